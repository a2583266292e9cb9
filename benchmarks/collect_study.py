"""Validation study (issue 3, like MUCH paper Table 4) on real readings from this machine.

For each workload, read all EVENTS together in every run (>= 600 runs: the "ideal",
complete vectors), then emulate machines with np = 2 and 3 counters: split those runs at
random into the groups of an HRM design (anchor = first event) or a MUCH pair-covering
design (disjoint runs per group, each group keeps only its events), merge, and compare
the merged table's pairwise Pearson correlations with the ideal ones (MSE over all pairs).
Repeated over ``--boot`` random splits; the mean MSE is reported.

This VM has no PMU driver, so the events are software events and tracepoints (they vary
from run to run because the bundled microbenchmark draws its work size per run, plus
scheduler noise); on a machine with counters pass hardware events with ``--events``.

    .venv/bin/python benchmarks/collect_study.py --runs 600 --boot 20 --data /work/data/a3/study
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit import Readings
from hemkit.collect import CollectOptions, collect, ubench_command
from hemkit.io.collection import load_readings
from hemkit.plan import Plan, make_plan

EVENTS = ["task-clock", "page-faults", "syscalls:sys_enter_write", "sched:sched_switch", "timer:hrtimer_expire_entry"]
WORKLOADS = {
    "IADD_L3": ("iadd", "L3", 3_000_000),
    "FMUL_L2": ("fmul", "L2", 5_000_000),
    "BRANCHY_L3": ("branchy", "L3", 2_000_000),
}


def emulate(ideal: pd.DataFrame, groups: list[list[str]], seed: int) -> Readings:
    """Give each group a disjoint random share of the ideal runs, keeping only its events."""
    rng = np.random.default_rng(seed)
    parts = np.array_split(rng.permutation(len(ideal)), len(groups))
    return Readings(
        {
            g: ideal.iloc[np.sort(idx)][events].reset_index(drop=True)
            for g, (events, idx) in enumerate(zip(groups, parts))
        }
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=600)
    ap.add_argument("--boot", type=int, default=20)
    ap.add_argument("--jitter", type=float, default=0.5)
    ap.add_argument("--events", nargs="+", default=EVENTS)
    ap.add_argument("--data", default="/work/data/a3/study", help="where the collection databases go")
    ap.add_argument("--workloads", nargs="+", default=list(WORKLOADS))
    ap.add_argument("--corunner", action="store_true", help="run hemkit's co-runner during collection")
    args = ap.parse_args()
    from hemkit.collect import corunner_command
    from hemkit.evaluate import evaluate
    from hemkit.merge import merge_copula, merge_hrm, merge_much

    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    anchor = args.events[0]
    rows = []
    for name in args.workloads:
        op, level, iters = WORKLOADS[name]
        db = data / f"{name}.db"
        t0 = time.perf_counter()
        res = collect(
            Plan([list(args.events)], design="ideal"),
            ubench_command(op, level, iters, jitter=args.jitter),
            db,
            runs=args.runs,
            options=CollectOptions(corunner=corunner_command(max_mib=32) if args.corunner else None),
        )
        print(f"{name}: {res.line()} ({time.perf_counter() - t0:.0f} s)", flush=True)
        ideal = load_readings(db)[0].reset_index(drop=True)
        for np_ in (2, 3):
            designs = {
                d: make_plan(args.events, np_, design=d, anchor=anchor if d == "hrm" else None).groups
                for d in ("hrm", "much")
            }
            mse = {"HRM": [], "MUCH": [], "copula": []}
            for b in range(args.boot):
                hrm_r = emulate(ideal, designs["hrm"], seed=b)
                much_r = emulate(ideal, designs["much"], seed=b)
                mse["HRM"].append(evaluate(merge_hrm(hrm_r, anchor), ideal).mse())
                mse["MUCH"].append(evaluate(merge_much(much_r, n_sims=100, seed=b), ideal).mse())
                mse["copula"].append(evaluate(merge_copula(much_r, seed=b), ideal).mse())
            rows.append(
                {
                    "workload": name,
                    "np": np_,
                    "runs": len(ideal),
                    "groups HRM/MUCH": f"{len(designs['hrm'])}/{len(designs['much'])}",
                    **{f"MSE {k}": float(np.mean(v)) for k, v in mse.items()},
                }
            )
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    print()
    cols = list(table.columns)
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in table.itertuples(index=False):
        print("| " + " | ".join(f"{x:.4f}" if isinstance(x, float) else str(x) for x in r) + " |")


if __name__ == "__main__":
    main()
