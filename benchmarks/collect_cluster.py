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
2. **Overhead per run**: the program ``true`` (perf's own cost only), locally and on
   ``local:1``: the time per run outside perf (span per run minus perf's own seconds), on
   ``local:1`` minus here, is what Dask adds (submit, scheduler, worker, result back, the
   caller's environment sent with each task).
3. **The writer**: ``CollectionDB.record_run`` alone, N runs of 4 readings each
   (one transaction per run, ``synchronous=FULL``, checksums).

From (2) and (3): the client stores runs at most at ``1 / (store + client's share)`` per
second; a node delivers ``1 / (run + overhead)``; the writer sets the pace beyond
``(run + overhead) / store`` nodes.

    .venv/bin/python benchmarks/collect_cluster.py --runs 5 --iters 100000000 --writes 2000 --repeat 3
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


def _round_trip(n: int) -> float:
    """Seconds from submit to result of a task that does nothing, one at a time, on ``local:1``.

    The task carries what a run's task carries (the caller's environment) and returns a small
    DataFrame, as a run returns its counts.
    """
    from hemkit.external.cluster import dask_client

    env = dict(os.environ)
    with dask_client("local:1") as client:
        client.submit(_echo, env, pure=False).result()  # warm up
        t0 = time.perf_counter()
        for _ in range(n):
            client.submit(_echo, env, pure=False).result()
        return (time.perf_counter() - t0) / n


def _echo(env: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({"event": EVENTS[:2], "value": [1.0, 2.0], "percent": 100.0, "run_time_ns": 1e6})


class _Timed:
    """Wraps ``hemkit.collect.collector._store_run`` (judge and store one run): seconds per call."""

    def __init__(self) -> None:
        from hemkit.collect import collector

        self.module, self.inner, self.seconds = collector, collector._store_run, []

    def __call__(self, *args: object, **kw: object) -> str:
        t0 = time.perf_counter()
        try:
            return self.inner(*args, **kw)
        finally:
            self.seconds.append(time.perf_counter() - t0)

    def __enter__(self) -> _Timed:
        self.module._store_run = self
        return self

    def __exit__(self, *exc: object) -> None:
        self.module._store_run = self.inner


def _median(values: list[float]) -> float:
    return float(np.median(values))


def _measure_all(args: argparse.Namespace, folder: Path) -> dict[tuple[str, str], list[dict[str, float]]]:
    """Every (program, where) ``args.repeat`` times, interleaved (so that load changes hit all alike)."""
    programs = {
        "ubench iadd L1": (ubench_command("iadd", "L1", args.iters), args.runs, ["here", "local:1", "local:2"]),
        "sleep 0.4": (["sleep", "0.4"], args.runs, ["here", "local:1", "local:2"]),
        "true": (["true"], args.runs * 3, ["here", "local:1"]),
    }
    if args.programs:
        programs = {k: v for k, v in programs.items() if k.split()[0] in args.programs.split(",")}
    out: dict[tuple[str, str], list[dict[str, float]]] = {}
    for i in range(args.repeat):
        for name, (command, runs, places) in programs.items():
            for where in places:
                load = os.getloadavg()[0]
                with _Timed() as timed:
                    r = _collect(command, runs, None if where == "here" else where, folder)
                r["store_run"] = _median(timed.seconds)
                r["load"] = load
                out.setdefault((name, where), []).append(r)
                print(
                    f"[{i + 1}/{args.repeat}] {name} {where}: {r['per_min']:.0f} runs/min "
                    f"(load average {load:.1f}; store_run {r['store_run'] * 1e3:.1f} ms)",
                    flush=True,
                )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per group (6 groups)")
    ap.add_argument("--iters", type=int, default=100_000_000, help="ubench iterations (~0.5 s at 100M here)")
    ap.add_argument("--writes", type=int, default=2000, help="runs stored by the writer benchmark")
    ap.add_argument("--repeat", type=int, default=3, help="measurements of each case (medians shown)")
    ap.add_argument("--programs", default="", help="only these, e.g. 'ubench' or 'ubench,sleep' (default: all)")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hemkit-cluster-"))
    print(f"machine: {machine_info()['cpu_model']}, {os.cpu_count()} CPUs, {platform.release()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    res = _measure_all(args, folder)
    store = _writer(args.writes, folder)
    rt = _round_trip(args.writes // 10)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    def med(name: str, where: str, key: str) -> float:
        return _median([r[key] for r in res[name, where]])

    print(f"\nmedians of {args.repeat} collections each")
    print(
        "| program | where | runs | runs/min (median, range) | s per run | s in perf per run "
        "| store_run per run | wall of the call |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for (name, where), rows in res.items():
        rates = [r["per_min"] for r in rows]
        print(
            f"| {name} | {where} | {rows[0]['runs']:.0f} | {_median(rates):.0f} ({min(rates):.0f}-{max(rates):.0f}) "
            f"| {med(name, where, 'per_run'):.3f} | {med(name, where, 'run_seconds'):.3f} "
            f"| {med(name, where, 'store_run') * 1e3:.1f} ms | {med(name, where, 'wall'):.1f} s |"
        )
    for name in [n for n in ("ubench iadd L1", "sleep 0.4") if (n, "here") in res]:
        two, one, here = (med(name, w, "per_min") for w in ("local:2", "local:1", "here"))
        print(f"{name}: local:2 / local:1 {two / one:.2f}x, local:2 / here {two / here:.2f}x")
    print(f"Dask's round trip of one task (submit to result, nothing to do): {rt * 1e3:.1f} ms")
    print(f"record_run alone: {store * 1e3:.2f} ms per run ({1 / store:.0f} runs/s)")
    if ("true", "here") in res:
        outside = {w: [r["per_run"] - r["run_seconds"] for r in res["true", w]] for w in ("here", "local:1")}
        overhead = _median([b - a for a, b in zip(outside["here"], outside["local:1"], strict=True)])
        here_ms, one_ms = _median(outside["here"]) * 1e3, _median(outside["local:1"]) * 1e3
        print(f"time per run outside perf (true): here {here_ms:.1f} ms, local:1 {one_ms:.1f} ms")
        print(f"  local:1 - here (median of pairs): {overhead * 1e3:.1f} ms")
    judge = _median([r["store_run"] for (name, w), rows in res.items() if w == "local:2" for r in rows] or [store])
    print(f"the client's store_run (check and record) on local:2: {judge * 1e3:.2f} ms per run")
    if ("ubench iadd L1", "here") not in res:
        return
    for run_s in (med("ubench iadd L1", "here", "run_seconds"), 1.0):
        print(
            f"a run of {run_s:.2f} s: the writer sets the pace beyond {run_s / judge:.0f} nodes "
            f"({run_s / (judge + rt):.0f} if the client also spent a whole round trip per run)"
        )


if __name__ == "__main__":
    main()
