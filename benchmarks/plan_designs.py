"""Design sizes C(v, k, 2) found by hemkit's MUCH designer, next to the Schönheim bound.

Prints a table for v in 6..30 events and k in 2..8 counters: each cell is
``size/bound`` (``*`` marks a size equal to the best published one hemkit knows, which
is optimal when it equals the bound; ``o`` marks a size above the bound that the exact
integer program proved optimal).  Run:

    .venv/bin/python benchmarks/plan_designs.py [--effort 0.3] [--exact-time 2] [--vmax 30]
"""

from __future__ import annotations

import argparse
import time

from hemkit.plan import best_known, covering_design, schonheim_bound


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--effort", type=float, default=0.3, help="annealing effort (1 = hemkit plan's default)")
    ap.add_argument("--exact-time", type=float, default=2.0, help="seconds for the exact ILP on small cases")
    ap.add_argument("--vmin", type=int, default=6)
    ap.add_argument("--vmax", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    ks = range(2, 9)
    t_all = time.perf_counter()
    print("| v | " + " | ".join(f"k={k}" for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    at_bound = total = proven = 0
    for v in range(args.vmin, args.vmax + 1):
        cells = []
        for k in ks:
            if k >= v:
                cells.append("1/1")
                continue
            res = covering_design(
                [f"e{i}" for i in range(v)], k, seed=args.seed, effort=args.effort, exact_time=args.exact_time
            )
            lb = schonheim_bound(v, k)
            known = best_known(v, k)
            mark = "*" if known is not None and res.size == known else ""
            mark += "o" if res.optimal and res.size > lb else ""
            proven += res.optimal and res.size > lb
            cells.append(f"{res.size}/{lb}{mark}")
            total += 1
            at_bound += res.size == lb
        print(f"| {v} | " + " | ".join(cells) + " |", flush=True)
    print(
        f"\n{at_bound} of {total} designs reach the Schönheim bound, {proven} more are proven optimal; "
        f"total time {time.perf_counter() - t_all:.0f} s (effort {args.effort})"
    )


if __name__ == "__main__":
    main()
