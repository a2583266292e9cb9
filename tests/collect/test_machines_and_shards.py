"""Layout 2 of the collection database: every run names its machine; shards of one plan (issue 25).

- a run stores the machine that measured it (host, CPU model, kernel, perf version), under
  its checksum; a layout-1 database is read with its metadata's machine and upgraded when
  continued (a run changed outside hemkit is refused, never re-checksummed);
- runs of machines of another CPU model or kernel are not read as one collection unless
  ``allow_mixed_machines`` (CLI ``--allow-mixed-machines``), in one database or across several;
- ``--shard K/N`` collects a disjoint part of the (group, repetition) set; the N parts read
  together have exactly the shape of one collection.
"""

import json
import sqlite3
import warnings

import pandas as pd
import pytest

from hemkit import HemkitWarning, InputError
from hemkit.collect import CollectOptions, collect
from hemkit.collect.collector import local_machine, parse_shard
from hemkit.io import read_readings
from hemkit.io.collection import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    CollectionDB,
    Machine,
    StoredRun,
    WriterLock,
    _definition_digest,
    load_collections,
    load_readings,
    run_digest,
    run_machines,
    shard_reps,
)

from .test_database import OLD_SCHEMA

NODE1 = Machine("node1", "AMD EPYC 9554 64-Core Processor", "6.1.0-18-amd64", "6.1.76")
NODE2 = Machine("node2", "AMD EPYC 9554 64-Core Processor", "6.1.0-18-amd64", "6.1.76")
OTHER_CPU = Machine("node3", "Intel(R) Xeon(R) Gold 6338", "6.1.0-18-amd64", "6.1.76")
OTHER_KERNEL = Machine("node4", "AMD EPYC 9554 64-Core Processor", "6.8.0-45-generic", "6.8.12")


def _counts(events, base):
    n = len(events)
    return pd.DataFrame(
        {"event": events, "value": [base + 7.0 * i for i in range(n)], "percent": [100.0] * n}
        | {"run_time_ns": [1e6] * n, "status": ["ok"] * n}
    )


def _write(path, groups, runs, machines, *, meta=None, reps=None):
    """A collection of ``runs`` valid runs per group, run k measured on ``machines[k % len]``."""
    meta = {"runs": runs, "command": ["prog"], "pin": None, "corunner": None, **(meta or {})}
    with WriterLock(path) as lock, CollectionDB.create(path, groups, meta, lock=lock) as db:
        k = 0
        for rep in reps if reps is not None else range(runs):
            for gid, g in enumerate(groups):
                db.record_run(StoredRun(gid, rep, machine=machines[k % len(machines)]), _counts(g, 100.0 + 13 * k))
                k += 1
    return path


GROUPS = [["a", "b"], ["b", "c"], ["a", "c"]]


def test_every_run_names_its_machine(tmp_path):
    path = _write(tmp_path / "c.db", GROUPS, 4, [NODE1, NODE2])
    m = run_machines(path)
    assert list(m.columns) == ["group", "run", "host", "cpu_model", "kernel", "perf_version"]
    assert len(m) == 12 and sorted(set(m["host"])) == ["node1", "node2"]
    r = load_readings(path)
    # one row per run of the readings, labelled alike
    assert sorted(zip(m["group"], m["run"])) == sorted((g, run) for g in r.group_ids for run in r[g].index)
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        assert con.execute("SELECT COUNT(*) FROM machines").fetchone()[0] == 2


def test_a_machine_changed_outside_hemkit_is_refused(tmp_path):
    path = _write(tmp_path / "c.db", GROUPS, 3, [NODE1])
    with sqlite3.connect(path) as con:
        con.execute("UPDATE machines SET host = 'elsewhere'")
    with pytest.raises(InputError, match=r"c.db: damaged collection database \(run 1, .*checksum"):
        load_readings(path)


def test_a_run_naming_no_machine_is_refused(tmp_path):
    path = _write(tmp_path / "c.db", GROUPS, 3, [NODE1])
    with sqlite3.connect(path) as con:
        con.execute("UPDATE runs SET machine = 99 WHERE id = 2")
    with pytest.raises(InputError, match=r"c.db: damaged collection database \(run 2, .*names no machine"):
        load_readings(path)


def _layout1(path, groups, runs, *, machine_meta):
    """A database as hemkit wrote it before runs named their machine (layout 1)."""
    con = sqlite3.connect(path)
    con.executescript(OLD_SCHEMA.replace("PRAGMA journal_mode=WAL;", "") + "ALTER TABLE runs ADD COLUMN digest TEXT;")
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    con.execute("PRAGMA user_version = 1")
    rows = [(gid, json.dumps(g)) for gid, g in enumerate(groups)]
    con.executemany("INSERT INTO groups VALUES (?, ?)", rows)
    meta = {"runs": runs, "command": ["prog"], "pin": None, "corunner": None, "n_runs": runs * len(groups)}
    meta |= machine_meta
    texts = {k: json.dumps(v) for k, v in meta.items()}
    texts["digest"] = json.dumps(_definition_digest(texts, rows))
    con.executemany("INSERT INTO meta VALUES (?, ?)", texts.items())
    k = 0
    for rep in range(runs):
        for gid, g in enumerate(groups):
            readings = [(e, 100.0 + 13 * k + 7 * i, 100.0, 1e6, "ok") for i, e in enumerate(g)]
            row = (gid, rep, "valid", "", 1.0, 0.1, 0)
            cur = con.execute(
                "INSERT INTO runs (gid, rep, status, reason, started, seconds, returncode, digest) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (*row, run_digest(row, readings)),
            )
            con.executemany("INSERT INTO readings VALUES (?,?,?,?,?,?)", [(cur.lastrowid, *x) for x in readings])
            k += 1
    con.commit()
    con.close()
    return path


META1 = {
    "machine": {"uname": "Linux oldhost 6.1.0-18-amd64 #1 SMP x86_64", "cpu_model": "AMD EPYC 9554", "cpus": 2},
    "perf_version": "6.1.76",
}


def test_layout_1_is_read_with_the_machine_of_its_metadata(tmp_path):
    path = _layout1(tmp_path / "old.db", GROUPS, 3, machine_meta=META1)
    before = path.read_bytes()
    m = run_machines(path)
    assert set(m["host"]) == {"oldhost"} and set(m["kernel"]) == {"6.1.0-18-amd64"}
    assert set(m["cpu_model"]) == {"AMD EPYC 9554"} and set(m["perf_version"]) == {"6.1.76"}
    assert load_readings(path).n_runs.tolist() == [3, 3, 3]
    assert path.read_bytes() == before  # reading never upgrades


def test_layout_1_is_upgraded_when_continued_and_keeps_its_runs(tmp_path):
    path = _layout1(tmp_path / "old.db", GROUPS, 3, machine_meta=META1)
    old = load_readings(path)
    with WriterLock(path) as lock, CollectionDB(path, lock=lock) as db:
        db.prepare_for_writing()
        db.record_run(StoredRun(0, 3, machine=NODE1), _counts(GROUPS[0], 5.0))
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == 2
    m = run_machines(path)
    assert (m[m["run"] < 3]["host"] == "oldhost").all()
    assert m[(m["group"] == 0) & (m["run"] == 3)]["host"].tolist() == ["node1"]
    new = load_readings(path, allow_mixed_machines=True, min_runs=3)
    for g in old.group_ids:
        pd.testing.assert_frame_equal(new[g].loc[:2], old[g])


def test_layout_1_changed_outside_hemkit_is_not_rechecksummed(tmp_path):
    path = _layout1(tmp_path / "old.db", GROUPS, 3, machine_meta=META1)
    with sqlite3.connect(path) as con:
        con.execute("UPDATE readings SET value = value + 1 WHERE rowid = 3")
    before = path.read_bytes()
    with WriterLock(path) as lock, CollectionDB(path, lock=lock) as db:
        with pytest.raises(InputError, match=r"old.db: damaged collection database \(run 2, .*checksum"):
            db.prepare_for_writing()
    assert path.read_bytes() == before


# ------------------------------------------------------------------- mixed machines
def test_hosts_alike_are_one_collection(tmp_path):
    a = _write(tmp_path / "a.db", GROUPS, 3, [NODE1])
    b = _write(tmp_path / "b.db", GROUPS, 3, [NODE2], reps=range(3, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = load_collections([a, b])
    assert r.n_runs.tolist() == [6, 6, 6]
    assert sorted(set(run_machines([a, b])["host"])) == ["node1", "node2"]


@pytest.mark.parametrize(("other", "what"), [(OTHER_CPU, "CPU model"), (OTHER_KERNEL, "kernel")])
def test_another_cpu_model_or_kernel_is_refused_naming_both_files(tmp_path, other, what):
    a = _write(tmp_path / "a.db", GROUPS, 3, [NODE1])
    b = _write(tmp_path / "b.db", GROUPS, 3, [other], reps=range(3, 6))
    with pytest.raises(InputError, match=rf"a.db and .*b.db: runs measured on machines of different {what} "):
        load_collections([a, b])
    with pytest.raises(InputError, match=r"allow_mixed_machines=True"):
        read_readings([a, b])
    with pytest.warns(HemkitWarning, match=rf"different {what} .*read as one collection as asked"):
        r = load_collections([a, b], allow_mixed_machines=True)
    assert r.n_runs.tolist() == [6, 6, 6]


def test_mixed_machines_in_one_database_are_refused(tmp_path):
    path = _write(tmp_path / "c.db", GROUPS, 4, [NODE1, OTHER_CPU])
    with pytest.raises(InputError, match=r"c.db: runs measured on machines of different CPU model \(node1: AMD"):
        load_readings(path)
    with pytest.warns(HemkitWarning):
        assert read_readings(path, allow_mixed_machines=True).n_runs.tolist() == [4, 4, 4]


def test_cli_names_the_option_that_reads_mixed_machines(tmp_path, cli):
    a = _write(tmp_path / "a.db", GROUPS, 3, [NODE1])
    b = _write(tmp_path / "b.db", GROUPS, 3, [OTHER_KERNEL], reps=range(3, 6))
    out = tmp_path / "m.csv"
    res = cli(["merge", str(a), str(b), "-o", str(out)])
    assert res.exit_code == 2 and "pass --allow-mixed-machines" in res.stderr and not out.exists()
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("hemkit: error: ")
    res = cli(["export", str(a), str(b), "-o", str(out), "--allow-mixed-machines"])
    assert res.exit_code == 0, res.stderr
    assert "different kernel" in res.stderr and len(pd.read_csv(out)) == 36


# -------------------------------------------------------------------------- shards
def test_shard_reps_are_disjoint_and_together_the_plan():
    for runs in (1, 5, 12, 50):
        for n in (1, 2, 3, 7):
            parts = [shard_reps(runs, (k, n)) for k in range(1, n + 1)]
            assert sorted(r for p in parts for r in p) == list(range(runs))


@pytest.mark.parametrize("bad", ["2", "0/2", "3/2", "a/b", "1/2/3", "", (1,), (0, 1)])
def test_bad_shard_is_refused(bad):
    with pytest.raises(InputError, match=r"shard must be K/N"):
        parse_shard(bad)


def test_shards_together_are_one_collection(fake_perf, plan, tmp_path):
    whole = collect(plan, ["true"], tmp_path / "whole.db", runs=5, progress=False)
    parts = [
        collect(
            plan, ["true"], tmp_path / f"part_{k}.db", runs=5, options=CollectOptions(shard=f"{k}/2"), progress=False
        )
        for k in (1, 2)
    ]
    assert whole.complete and all(p.complete for p in parts)
    assert [p.wanted for p in parts] == [3 * len(plan.groups), 2 * len(plan.groups)]
    keys = [set(zip(*(run_machines(p.db)[c] for c in ("group", "run")))) for p in parts]
    assert not keys[0] & keys[1]
    assert keys[0] | keys[1] == set(zip(*(run_machines(whole.db)[c] for c in ("group", "run"))))
    together = load_collections([p.db for p in parts])
    alone = load_readings(whole.db)
    assert together.n_runs.tolist() == alone.n_runs.tolist() == [5] * len(plan.groups)
    assert together.events == alone.events
    for g in alone.group_ids:
        assert sorted(together[g].index) == sorted(alone[g].index) == list(range(5))
    m = run_machines([p.db for p in parts])
    assert set(m["host"]) == {local_machine("perf", "x").host}


def test_a_shard_continues_only_as_itself(fake_perf, plan, tmp_path):
    path = tmp_path / "part.db"
    collect(plan, ["true"], path, runs=4, options=CollectOptions(shard="1/2"), progress=False)
    before = path.read_bytes()
    for other in ("2/2", "1/3"):
        with pytest.raises(InputError, match=r"part.db: was collected as shard 1/2; continue it with the same shard"):
            collect(None, None, path, options=CollectOptions(shard=other), progress=False)
    assert path.read_bytes() == before
    res = collect(None, None, path, runs=6, progress=False)  # the stored shard, extended
    assert res.complete and res.valid == 3 * len(plan.groups)
    assert sorted(set(run_machines(path)["run"])) == [0, 2, 4]


def test_a_shard_beyond_the_runs_is_refused(fake_perf, plan, tmp_path):
    with pytest.raises(InputError, match=r"runs 2 per group split into 4 shards leave shard 3/4 no runs"):
        collect(plan, ["true"], tmp_path / "p.db", runs=2, options=CollectOptions(shard="3/4"), progress=False)
    assert not (tmp_path / "p.db").exists()


def test_cli_shard(fake_perf, plan_file, tmp_path, cli):
    out = tmp_path / "p1.db"
    res = cli(["collect", str(plan_file), "-o", str(out), "--runs", "3", "--shard", "1/2", "-q", "--", "true"])
    assert res.exit_code == 0, res.stderr
    with CollectionDB(out) as db:
        assert db.shard() == (1, 2) and db.status()["target"].unique().tolist() == [2]
    res = cli(["collect", str(plan_file), "-o", str(tmp_path / "p9.db"), "--shard", "9/2", "--", "true"])
    assert res.exit_code == 2 and "--shard" in res.stderr and "K/N" in res.stderr
    assert not (tmp_path / "p9.db").exists()


# ------------------------------------------------------- a lock interrupted while taken
@pytest.mark.parametrize("where", ["flock", "pwrite"])
def test_ctrl_c_while_the_lock_is_taken_leaves_no_lock_file(tmp_path, monkeypatch, where):
    """The Ctrl-C of a test that signals as soon as the lock file appears (test_signals) lands here."""
    import fcntl
    import os

    import hemkit.io.collection as collection

    real = {"flock": fcntl.flock, "pwrite": os.pwrite}[where]
    calls = []

    def interrupted(*args, **kwargs):  # the first call is interrupted just after it did its work
        out = real(*args, **kwargs)
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return out

    target = collection.fcntl if where == "flock" else collection.os
    with monkeypatch.context() as m:
        m.setattr(target, where, interrupted)
        with pytest.raises(KeyboardInterrupt):
            WriterLock(tmp_path / "c.db").acquire()
    assert list(tmp_path.iterdir()) == []
    with WriterLock(tmp_path / "c.db") as lock:  # and the next writer takes it
        assert lock.held


# ------------------------------------------------- a folder of shards is one collection
def test_a_folder_of_databases_is_one_collection_for_every_command(tmp_path, cli):
    before, after = tmp_path / "before", tmp_path / "after"
    for folder, base in ((before, 0), (after, 1)):
        folder.mkdir()
        _write(folder / "part_1.db", GROUPS, 20, [NODE1], reps=range(0, 20, 2))
        _write(folder / "part_2.db", GROUPS, 20, [NODE2], reps=range(1, 20, 2))
        (folder / "part_2.db.lock").write_text("123 node2 0\n")  # a writer's lock beside it is not a reading
    r = read_readings(before)
    assert r.n_runs.tolist() == [10 + 10] * 3 and r.source == f"{before / 'part_1.db'} {before / 'part_2.db'}"
    res = cli(["compare", str(before), str(after), "-o", str(tmp_path / "c.csv")])
    assert res.exit_code == 0, res.stderr
    assert len(pd.read_csv(tmp_path / "c.csv")) == 3
    res = cli(["merge", str(before), "-o", str(tmp_path / "m.csv")])
    assert res.exit_code == 0, res.stderr


def test_a_folder_of_databases_and_other_files_is_refused(tmp_path, bad_input):
    folder = tmp_path / "parts"
    folder.mkdir()
    _write(folder / "part_1.db", GROUPS, 4, [NODE1])
    (folder / "notes.csv").write_text("group,run,event,value\n")
    bad_input(["merge", str(folder)], names=["parts", "collection databases and other files", "notes.csv"])


def test_the_machines_of_a_collection_just_read_are_not_read_again(tmp_path, monkeypatch):
    a = _write(tmp_path / "a.db", GROUPS, 3, [NODE1])
    b = _write(tmp_path / "b.db", GROUPS, 3, [NODE2], reps=range(3, 6))
    load_collections([a, b])
    calls = []
    monkeypatch.setattr(CollectionDB, "verify", lambda self: calls.append(self.path) or [])
    assert sorted(set(run_machines([a, b])["host"])) == ["node1", "node2"] and calls == []
    monkeypatch.undo()
    _write(tmp_path / "c.db", GROUPS, 3, [OTHER_CPU])
    c = tmp_path / "c.db"
    with WriterLock(b) as lock, CollectionDB(b, lock=lock) as db:  # b changes: read again
        db.record_run(StoredRun(0, 9, machine=OTHER_KERNEL), _counts(GROUPS[0], 1.0))
    assert "node4" in set(run_machines([a, b])["host"])
    assert set(run_machines([c])["host"]) == {"node3"}


def test_one_shard_of_too_few_runs_says_to_read_all_the_shards(tmp_path, cli):
    """A shard of 2 runs per group was refused ('has 2 runs; at least 3 are needed'), no word of the other shards."""
    one = _write(tmp_path / "part1.db", GROUPS, 6, [NODE1], meta={"shard": [1, 3]}, reps=shard_reps(6, (1, 3)))
    with pytest.raises(InputError, match=r"has 2 runs.*is shard 1/3.*give the databases of all 3 shards together") as e:
        load_collections([one])
    assert "unfinished" not in str(e.value)
    # export writes every run stored (min_runs 1 for collection databases), and says the shard is one of 3
    res = cli(["export", one, "-o", tmp_path / "out.csv"])
    assert res.exit_code == 0, res.stderr
    assert "is shard 1/3" in res.stderr and "give the databases of all 3 shards together" in res.stderr
    assert len(pd.read_csv(tmp_path / "out.csv")) == 3 * 2 * len(GROUPS[0])
    two = _write(tmp_path / "part2.db", GROUPS, 3, [NODE1], meta={"shard": [2, 3]}, reps=shard_reps(3, (2, 3)))
    one.unlink()
    _write(one, GROUPS, 3, [NODE1], meta={"shard": [1, 3]}, reps=shard_reps(3, (1, 3)))
    with pytest.raises(InputError, match=r"part1.db and .*part2.db are 2 of the 3 shards.*all 3 shards together"):
        load_collections([one, two])
    three = _write(tmp_path / "part3.db", GROUPS, 3, [NODE1], meta={"shard": [3, 3]}, reps=shard_reps(3, (3, 3)))
    assert load_collections([one, two, three]).n_runs.tolist() == [3, 3, 3]


def test_an_unfinished_collection_of_too_few_runs_says_so(tmp_path):
    unfinished = _write(tmp_path / "u.db", GROUPS, 6, [NODE1], reps=range(2))
    with pytest.raises(InputError, match=r"has 2 runs; .*u.db is an unfinished collection \(a group has 2 of its 6"):
        load_collections([unfinished])
    done = _write(tmp_path / "d.db", GROUPS, 2, [NODE1])  # finished, of 2 runs: nothing more to read
    with pytest.raises(InputError, match=r"has 2 runs; at least 3 are needed$"):
        load_collections([done])
