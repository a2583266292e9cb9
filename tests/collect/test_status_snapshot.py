"""``hemkit collect --status`` on a database a collector is writing: every number from one moment.

The status reads the runs per group, the runs per host and the readings of the machines
check; read one after the other while a collector stores runs, they counted different runs
(31 valid runs in one table, 29 in the other).  They are now read in one read transaction
(``CollectionDB.snapshot``); so is every reader's check of the runs against the number
stored, which could otherwise call the database damaged ("it should hold 61 runs, it holds
60").  The writer here is a real one: another process storing runs through
``CollectionDB.record_run`` every 2 ms, alternating two hosts.
"""

from __future__ import annotations

import multiprocessing
import re
import time

import pandas as pd
import pytest

from hemkit.io import read_readings
from hemkit.io.collection import CollectionDB, Machine, StoredRun, WriterLock, collection_status, status_snapshot

GROUPS = [["a", "b"], ["b", "c"], ["a", "c"]]
HOSTS = [Machine(h, "AMD EPYC 9554", "6.1.0", "6.1.76") for h in ("node1", "node2")]
TARGET = 100_000  # runs per group: never reached, so the valid runs are never clipped to it


def _counts(events, k):
    n = len(events)
    return pd.DataFrame(
        {"event": events, "value": [1000.0 + (k * 7919 + 13 * i) % 997 for i in range(n)], "percent": [100.0] * n}
        | {"run_time_ns": [1e6] * n, "status": ["ok"] * n}
    )


def _write(path, start, stop, ready=None, done=None, pause=0.0):
    """Store runs ``start`` .. ``stop - 1`` (round robin over the groups, hosts alternating), creating ``path``."""
    with WriterLock(path) as lock:
        if start == 0:
            meta = {"runs": TARGET, "command": ["prog"], "pin": None, "corunner": None}
            db = CollectionDB.create(path, GROUPS, meta, lock=lock)
        else:
            db = CollectionDB(path, lock=lock)
        with db:
            for k in range(start, stop):
                if done is not None and done.is_set():
                    break
                gid, rep = k % len(GROUPS), k // len(GROUPS)
                db.record_run(StoredRun(gid, rep, machine=HOSTS[rep % 2]), _counts(GROUPS[gid], k))
                if ready is not None and k == start + 5:
                    ready.set()
                if pause:
                    time.sleep(pause)


@pytest.fixture
def writing(tmp_path):
    """A database with 30 runs, and another process storing more into it for as long as the test runs."""
    path = tmp_path / "c.db"
    _write(path, 0, 30)
    ctx = multiprocessing.get_context("fork")
    ready, done = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_write, args=(path, 30, 30 + 20_000, ready, done, 0.002))
    proc.start()
    try:
        assert ready.wait(30), "the writer did not start"
        yield path
    finally:
        done.set()
        proc.join(30)
        if proc.is_alive():  # pragma: no cover - only if the writer hangs
            proc.kill()
        assert proc.exitcode == 0


def _numbers(stdout):
    """(valid runs of the group table, runs of the runs-per-host table, N of 'N of M runs valid') of one print."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("events"))
    per_group = sum(int(line.split()[2]) for line in lines[start + 2 : start + 2 + len(GROUPS)])
    at = lines.index("runs per host")
    per_host = sum(int(line.split()[1]) for line in lines[at + 3 : at + 5])
    done = int(re.search(r": (\d+) of \d+ runs valid", lines[-1]).group(1))
    return per_group, per_host, done


def test_status_counts_agree_while_a_collector_writes(writing, cli):
    seen = []
    for _ in range(12):
        res = cli(["collect", "--status", writing])
        assert res.exit_code == 0, res.stderr + res.stdout
        per_group, per_host, done = _numbers(res.stdout)
        assert per_group == per_host == done, res.stdout
        seen.append(done)
    assert seen[-1] > seen[0] >= 30, seen  # the writer did write meanwhile


def test_the_library_snapshot_and_status_agree_while_a_collector_writes(writing):
    for _ in range(12):
        snap = status_snapshot(writing)
        valid = int(snap.status["valid"].sum())
        assert valid == len(snap.machines) == snap.tidy[["group", "run"]].drop_duplicates().shape[0]
        assert int(collection_status(writing)["valid"].sum()) >= valid
        # every reader verifies the runs against the stored number of runs: never 'damaged' for a run stored meanwhile
        assert sum(read_readings(writing, min_runs=1).run_counts.values()) >= valid


def test_a_snapshot_sees_one_moment_and_nests(writing):
    with CollectionDB(writing) as db, db.snapshot():
        first = db.valid_counts()
        with db.snapshot():
            inner = db.valid_counts()
        time.sleep(0.3)  # the writer waits for this read to end; nothing new is seen meanwhile
        assert db.valid_counts() == first == inner
    with CollectionDB(writing) as db:
        assert sum(db.valid_counts().values()) >= sum(first.values())
