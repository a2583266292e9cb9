"""The report and the main job at scale (issue 28): hemkit report of 100 and 200 events against the floor.

Run:  nice .venv/bin/python benchmarks/report_scale.py [--data /tmp/hemkit-report] [--repeat 3]   (~5-15 min)

1. Readings as a plan gives them: ``make_plan`` of 100 events on 6 counters (347 groups) and of
   200 events on 8 (729 groups), 30 runs a group, counts from ``make_truth(..., marginals="gamma")``,
   one tidy Parquet file each (62 460 and 174 960 readings), made once into ``--data``.
2. In one run, alternating, ``--repeat`` times each: the floor (a fresh Python process reading the
   same file with pandas: ``pd.read_parquet``) and ``hemkit report FILE -o page.html -q`` in a fresh
   process (the default merge, with per-pair intervals), timed end to end with the process's peak
   RSS; and the page's size.
3. The bundled T2080 page: ``hemkit report -o page.html -q`` (16 events, 24 groups x 1000 runs).

Prints one table (median seconds, ratio to the floor, peak RSS, page size) with the machine and load.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MAKE = r"""
import sys
import numpy as np, pandas as pd
from hemkit.datasets.synthetic import make_truth
from hemkit.plan import make_plan
n, pmcs, runs, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
kinds = ["l1d", "l2", "br", "tlb", "mem"]
names = [f"ev{i:03d}.{kinds[i % 5]}_{i}" for i in range(n)]
plan = make_plan(names, pmcs=pmcs, design="much", seed=0)
truth = make_truth(n, len(plan.groups) * runs, marginals="gamma", seed=0)
truth.columns = names
parts = []
for gi, g in enumerate(plan.groups):
    sub = truth.iloc[gi * runs:(gi + 1) * runs][list(g)].to_numpy()
    parts.append(pd.DataFrame({"group": gi + 1, "run": np.repeat(np.arange(runs), len(g)),
                               "event": np.tile(np.array(g, dtype=object), runs), "value": sub.ravel()}))
table = pd.concat(parts, ignore_index=True)
table.to_parquet(out, index=False)
print(len(plan.groups), len(table))
"""

# a fresh ``hemkit`` process that prints its own wall time, peak RSS and exit code (merge_scale's runner)
from merge_scale import CLI  # noqa: E402 - benchmarks run as scripts from this folder

FLOOR = r"""
import resource, sys, time
t = time.perf_counter()
import pandas as pd
frame = pd.read_parquet(sys.argv[1])
assert len(frame)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT", time.perf_counter() - t, rss, 0, file=sys.stderr)
"""


def _run(code: str, args: list[str]) -> tuple[float, float]:
    """Wall seconds of a fresh process (measured inside, from its first line) and its peak RSS (MB)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    outside = time.perf_counter() - start
    line = next((x for x in proc.stderr.splitlines() if x.startswith("RESULT")), None)
    if line is None or line.split()[3] != "0":
        raise SystemExit(f"failed: {args}\n{proc.stderr[-2000:]}")
    _, _, rss, _ = line.split()
    return outside, float(rss)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "hemkit-report")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", default="t2080,100,200")
    args = ap.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    cases = args.cases.split(",")
    files = {"100": (100, 6), "200": (200, 8)}
    for name, (n, pmcs) in files.items():
        path = args.data / f"r{name}.parquet"
        if name in cases and not path.exists():
            out = subprocess.run(
                [sys.executable, "-c", MAKE, str(n), str(pmcs), "30", str(path)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            print(f"made {path}: {out[0]} groups, {out[1]} readings", flush=True)
    print(
        f"# {platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; load average at start {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    rows = []
    for case in cases:
        page = args.data / f"page-{case}.html"
        if case == "t2080":
            report = ["report", "-o", str(page), "-q"]
            floor_file = Path(__file__).parents[1] / "src" / "hemkit" / "datasets" / "data" / "much_raw.csv"
            floor_code = FLOOR.replace("pd.read_parquet(sys.argv[1])", "pd.read_csv(sys.argv[1])")
        else:
            path = args.data / f"r{case}.parquet"
            report = ["report", str(path), "-o", str(page), "-q"]
            floor_file, floor_code = path, FLOOR
        floors, hems, rss = [], [], []
        for _ in range(args.repeat):
            floors.append(_run(floor_code, [str(floor_file)])[0])
            t, r = _run(CLI, report)
            hems.append(t)
            rss.append(r)
            print(
                f"  {case}: floor {floors[-1]:.2f} s, report {t:.2f} s, {r:.0f} MB, load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
        f, h = statistics.median(floors), statistics.median(hems)
        rows.append((case, f, h, h / f, max(rss), page.stat().st_size / 1e6))
    print(f"# load average at end {os.getloadavg()[0]:.2f}")
    print("| case | floor (s) | hemkit report (s) | ratio | peak RSS (MB) | page (MB) |")
    print("|---|---|---|---|---|---|")
    for case, f, h, ratio, r, size in rows:
        print(f"| {case} | {f:.2f} | {h:.2f} | {ratio:.1f}x | {r:.0f} | {size:.2f} |")


if __name__ == "__main__":
    main()
