"""Collection on a Dask cluster (issue 25): runs per minute, the scheduler's overhead, the writer's pace.

Three measurements, with the real perf on software events (no PMU needed):

1. **Throughput**: a plan of 4 software events (6 groups) on a single-threaded CPU-bound
   program (the bundled ubench, ``iadd L1``, ~0.5 s a run) collected locally, with
   ``cluster="local:1"`` and with ``cluster="local:2"``.  Runs per minute are counted from the
   first run's start to the last run's end as stored (cluster start-up left out; the wall
   time of the whole call is shown too).  The same with ``sleep 0.4``, a program that waits
   rather than computes: on a machine of 2 cores shared with other work, two CPU-bound runs at
   once slow each other down, as two runs on two separate nodes would not; a waiting program
   shows what the engine itself achieves.
2. **Overhead per run**: the same with the program ``true`` (perf's own cost only), locally
   and on ``local:1``: the difference per run is what Dask adds (submit, scheduler, worker,
   result back, the caller's environment sent with each task).
3. **The writer**: ``CollectionDB.record_run`` alone, N runs of 4 readings each
   (one transaction per run, ``synchronous=FULL``, checksums).

From (2) and (3): the client stores runs at most at ``1 / (store + client's share)`` per
second; a node delivers ``1 / (run + overhead)``; the writer sets the pace beyond
``(run + overhead) / store`` nodes.

    .venv/bin/python benchmarks/collect_cluster.py --runs 5 --iters 100000000 --writes 2000
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.collect import CollectOptions, collect, machine_info, ubench_command
from hemkit.io.collection import CollectionDB, Machine, StoredRun, WriterLock
from hemkit.plan import make_plan

EVENTS = ["task-clock", "page-faults", "context-switches", "minor-faults"]


def _collect(command: list[str], runs: int, cluster: str | None, folder: Path) -> dict[str, float]:
    path = folder / f"c-{cluster or 'here'}-{time.monotonic_ns()}.db".replace(":", "")
    plan = make_plan(EVENTS, 2)
    t0 = time.perf_counter()
    res = collect(plan, command, path, runs=runs, options=CollectOptions(cluster=cluster, timeout=600))
    wall = time.perf_counter() - t0
    assert res.complete, res.line()
    with CollectionDB(path) as db:
        stored = db.runs()
    n = int((stored["status"] == "valid").sum())
    span = float((stored["started"] + stored["seconds"]).max() - stored["started"].min())
    return {
        "runs": n,
        "wall": wall,
        "span": span,
        "per_min": n / span * 60,
        "per_run": span / n,
        "run_seconds": float(stored["seconds"].median()),
    }


def _writer(n: int, folder: Path) -> float:
    """Seconds per ``record_run`` of a run of 4 readings."""
    path = folder / "writer.db"
    rng = np.random.default_rng(0)
    groups = [EVENTS[:2], EVENTS[2:]]
    machine = Machine(platform.node(), str(machine_info()["cpu_model"]), platform.release(), "perf version x")
    counts = [
        pd.DataFrame(
            {
                "event": g,
                "value": rng.integers(1_000, 10**9, 2).astype(float),
                "percent": 100.0,
                "run_time_ns": 1e6,
                "status": "ok",
            }
        )
        for g in groups
    ]
    with WriterLock(path) as lock, CollectionDB.create(path, groups, {"runs": n}, lock=lock) as db:
        t0 = time.perf_counter()
        for i in range(n):
            db.record_run(StoredRun(i % 2, i // 2, seconds=0.5, machine=machine), counts[i % 2])
        return (time.perf_counter() - t0) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per group (6 groups)")
    ap.add_argument("--iters", type=int, default=100_000_000, help="ubench iterations (~0.5 s at 100M here)")
    ap.add_argument("--writes", type=int, default=2000, help="runs stored by the writer benchmark")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hemkit-cluster-"))
    print(f"machine: {machine_info()['cpu_model']}, {os.cpu_count()} CPUs, {platform.release()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    busy = ubench_command("iadd", "L1", args.iters)
    rows = {}
    for label, cluster in [("here", None), ("local:1", "local:1"), ("local:2", "local:2")]:
        rows[label] = _collect(busy, args.runs, cluster, folder)
        print(f"busy {label}: {rows[label]}", flush=True)
    waits = {}
    for label, cluster in [("here", None), ("local:1", "local:1"), ("local:2", "local:2")]:
        waits[label] = _collect(["sleep", "0.4"], args.runs, cluster, folder)
        print(f"sleep {label}: {waits[label]}", flush=True)
    noop = {}
    for label, cluster in [("here", None), ("local:1", "local:1")]:
        noop[label] = _collect(["true"], args.runs * 3, cluster, folder)
        print(f"true {label}: {noop[label]}", flush=True)
    store = _writer(args.writes, folder)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n| program | where | runs | runs/min | s per run (stored span / runs) | wall of the call |")
    print("|---|---|---|---|---|---|")
    for name, table in [("ubench iadd L1", rows), ("sleep 0.4", waits), ("true", noop)]:
        for label, r in table.items():
            print(f"| {name} | {label} | {r['runs']} | {r['per_min']:.0f} | {r['per_run']:.3f} | {r['wall']:.1f} s |")
    speedup = rows["local:2"]["per_min"] / rows["local:1"]["per_min"]
    overhead = noop["local:1"]["per_run"] - noop["here"]["per_run"]
    print(f"\nlocal:2 / local:1 runs per minute: {speedup:.2f}x")
    print(f"local:2 / here: {rows['local:2']['per_min'] / rows['here']['per_min']:.2f}x")
    print(f"sleep 0.4: local:2 / local:1: {waits['local:2']['per_min'] / waits['local:1']['per_min']:.2f}x")
    print(f"Dask's overhead per run (true, local:1 - here): {overhead * 1e3:.1f} ms")
    print(f"record_run alone: {store * 1e3:.2f} ms per run ({1 / store:.0f} runs/s)")
    for run_s in (rows["here"]["run_seconds"], 1.0):
        alone = (run_s + max(overhead, 0.0)) / store
        nodes = (run_s + max(overhead, 0.0)) / (store + max(overhead, 0.0))
        print(
            f"a run of {run_s:.2f} s: the writer sets the pace beyond {alone:.0f} nodes "
            f"({nodes:.0f} counting Dask's whole overhead as the client's)"
        )


if __name__ == "__main__":
    main()
