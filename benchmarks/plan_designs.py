"""Plan sizes and times: the cases of issue 15 through ``hemkit plan``, and a table of small designs.

``targets`` (default) runs ``hemkit plan e0 ... e{v-1} --no-check-events --pmcs k --seed S -q -o plan.toml``
in a fresh process for each case and seed (end to end: start-up, planning, writing), reads
the number of groups back from the plan file and prints, per case, the median and range of
the sizes and wall times over the seeds, next to the Schönheim bound, the best known size
and the issue's target.

``table`` prints C(v, k, 2) as found by :func:`hemkit.plan.covering_design` for v in
``--vmin..--vmax`` and k = 2..8: each cell is ``size/bound``, ``*`` when the size equals
the best published one hemkit knows, ``o`` when above the bound but proven optimal.

    .venv/bin/python benchmarks/plan_designs.py [targets] [--seeds 3]
    .venv/bin/python benchmarks/plan_designs.py table [--time-budget 2] [--vmax 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from hemkit.plan import SearchOptions, best_known, covering_design, schonheim_bound

# (events, counters, target: at most this many groups, in at most this many seconds)
TARGETS = [
    (31, 6, 31, None),
    (25, 5, 30, None),
    (57, 8, 57, None),
    (49, 7, 56, None),
    (64, 8, 72, None),
    (50, 6, 90, 10),
    (100, 6, 360, 30),
    (200, 8, 780, 60),
    (200, 4, None, None),
    (16, 6, 10, None),
    (12, 5, None, None),
]


def hemkit_exe() -> str:
    exe = Path(sys.executable).with_name("hemkit")
    return str(exe) if exe.exists() else "hemkit"


def run_case(v: int, k: int, seed: int, extra: list[str]) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "plan.toml")
        args = [hemkit_exe(), "plan", *[f"e{i}" for i in range(v)], "--no-check-events", "--pmcs", str(k)]
        args += ["--seed", str(seed)]
        t0 = time.perf_counter()
        subprocess.run([*args, *extra, "-q", "-o", out], check=True, capture_output=True)
        seconds = time.perf_counter() - t0
        with open(out, "rb") as fh:
            groups = len(tomllib.load(fh)["groups"])
    return groups, seconds


def targets(args: argparse.Namespace) -> None:
    extra = ["--time-budget", str(args.time_budget)] if args.time_budget is not None else []
    print("| events/pmcs | groups (median, range) | bound | best known | target | seconds (median, range) | ok |")
    print("|---|---|---|---|---|---|---|")
    for v, k, most, secs in TARGETS:
        runs = [run_case(v, k, seed, extra) for seed in range(args.seeds)]
        sizes, times = [r[0] for r in runs], [r[1] for r in runs]
        med, tmed = statistics.median(sizes), statistics.median(times)
        known = best_known(v, k)
        target = "-" if most is None else f"<= {most}" + (f" in <= {secs} s" if secs else "")
        ok = (most is None or med <= most) and (secs is None or tmed <= secs)
        print(
            f"| {v}/{k} | {med:g} ({min(sizes)}-{max(sizes)}) | {schonheim_bound(v, k)} | "
            f"{'-' if known is None else known} | {target} | {tmed:.1f} ({min(times):.1f}-{max(times):.1f}) | "
            f"{'yes' if ok else 'NO'} |",
            flush=True,
        )
    options = " ".join(["--no-check-events --pmcs k --seed S", *extra, "-q -o plan.toml"])
    print(f"\ncommand per run: hemkit plan e0 ... e{{v-1}} {options}")


def table(args: argparse.Namespace) -> None:
    ks = range(2, 9)
    t_all = time.perf_counter()
    opts = SearchOptions(time_budget=args.time_budget, exact_time=args.exact_time)
    print("| v | " + " | ".join(f"k={k}" for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    at_bound = total = proven = known_hit = 0
    for v in range(args.vmin, args.vmax + 1):
        cells = []
        for k in ks:
            if k >= v:
                cells.append("1/1")
                continue
            res = covering_design([f"e{i}" for i in range(v)], k, search=opts, seed=0)
            lb = schonheim_bound(v, k)
            known = best_known(v, k)
            mark = "*" if known is not None and res.size == known else ""
            mark += "o" if res.optimal and res.size > lb else ""
            proven += res.optimal and res.size > lb
            known_hit += bool(known is not None and res.size == known)
            cells.append(f"{res.size}/{lb}{mark}")
            total += 1
            at_bound += res.size == lb
        print(f"| {v} | " + " | ".join(cells) + " |", flush=True)
    print(
        f"\n{at_bound} of {total} designs reach the Schönheim bound, {proven} more are proven optimal; "
        f"{known_hit} equal the best known size hemkit knows; total {time.perf_counter() - t_all:.0f} s "
        f"(time budget {args.time_budget} s, exact program {args.exact_time} s per design)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", nargs="?", choices=["targets", "table"], default="targets")
    ap.add_argument("--seeds", type=int, default=3, help="runs (seeds 0..N-1) per target case")
    ap.add_argument("--time-budget", type=float, default=None, help="seconds per plan (default: hemkit's)")
    ap.add_argument("--exact-time", type=float, default=2.0, help="table: seconds for the exact program")
    ap.add_argument("--vmin", type=int, default=6)
    ap.add_argument("--vmax", type=int, default=30)
    args = ap.parse_args()
    if args.mode == "table":
        if args.time_budget is None:
            args.time_budget = 2.0
        table(args)
    else:
        targets(args)


if __name__ == "__main__":
    main()
