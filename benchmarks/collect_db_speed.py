"""What the collection database's checks cost: storing a run, opening, verifying every checksum.

A database the size of the T2080 MUCH collection (24 groups of 6 events, 1000 runs each:
24 000 runs, 144 000 readings) is written run by run as the collector writes it (one
transaction per run, ``synchronous=FULL``), then read back:

    .venv/bin/python benchmarks/collect_db_speed.py --groups 24 --events 6 --runs 1000
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.io.collection import CollectionDB, StoredRun, WriterLock, load_readings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, default=24)
    ap.add_argument("--events", type=int, default=6)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--dir", default=None, help="where the database goes (default: a temporary folder)")
    args = ap.parse_args()
    folder = Path(args.dir or tempfile.mkdtemp(prefix="hemkit-dbspeed-"))
    path = folder / "speed.db"
    path.unlink(missing_ok=True)
    rng = np.random.default_rng(0)
    groups = [[f"e{g}_{i}" for i in range(args.events)] for g in range(args.groups)]
    t0 = time.perf_counter()
    with WriterLock(path) as lock, CollectionDB.create(path, groups, {"runs": args.runs}, lock=lock) as db:
        t_create = time.perf_counter() - t0
        t0 = time.perf_counter()
        for rep in range(args.runs):
            for gid, events in enumerate(groups):
                counts = pd.DataFrame(
                    {
                        "event": events,
                        "value": rng.integers(1_000, 10**9, len(events)).astype(float),
                        "percent": 100.0,
                        "run_time_ns": 1e6,
                        "status": "ok",
                    }
                )
                db.record_run(StoredRun(gid, rep, seconds=0.01), counts)
        t_write = time.perf_counter() - t0
    n = args.runs * args.groups
    t0 = time.perf_counter()
    with WriterLock(path) as lock, CollectionDB(path, lock=lock) as db:  # what a collector does on resume
        t_open_writer = time.perf_counter() - t0
        t0 = time.perf_counter()
        db.verify()
        t_verify = time.perf_counter() - t0
    t0 = time.perf_counter()
    readings = load_readings(path)
    t_load = time.perf_counter() - t0
    size = path.stat().st_size / 2**20
    print(f"database: {args.groups} groups x {args.events} events x {args.runs} runs = {n} runs, {size:.1f} MiB")
    print("| step | time |\n|---|---|")
    print(f"| create (atomic) | {t_create * 1e3:.0f} ms |")
    print(f"| store one run (one transaction, synchronous=FULL, checksums) | {t_write / n * 1e3:.2f} ms |")
    print(f"| open for writing (lock, marker, integrity_check, definition checksum) | {t_open_writer:.2f} s |")
    print(f"| verify every run's checksum | {t_verify:.2f} s |")
    print(f"| load_readings (quick_check, verify, tidy, Readings) | {t_load:.2f} s |")
    assert readings.n_runs.tolist() == [args.runs] * args.groups


if __name__ == "__main__":
    main()
