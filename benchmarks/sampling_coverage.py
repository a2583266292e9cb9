"""Coverage of hemkit's profile intervals on real perf record samples of a known-share workload.

    .venv/bin/python benchmarks/sampling_coverage.py [--repeats 5] [--out /work/data/sampling/coverage.csv]

Functions work_0..work_3 take 10/20/30/40 % of the CPU time (measured per call with
CLOCK_THREAD_CPUTIME_ID); the workload is sampled with perf record over a range of periods
(-c, ns of cpu-clock here; cycles on a PMU machine) and frequencies (-F), and three running
granularities (5, 50, 500 units of ~1.5 us: calls of ~7.5 us, 75 us, 750 us).  Prints the
share of (run, function) cases whose true share lies inside the 95 % interval, per setting,
for the Wilson interval and the Poisson bound.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from hemkit.sampling.record import calibrate, coverage_table, default_event, record_known_shares


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--periods", default="50000,100000,250000,1000000,4000000")
    ap.add_argument("--freqs", default="997,4999")
    ap.add_argument("--granularities", default="5,50,500")
    ap.add_argument("--out", default="/work/data/sampling/coverage.csv")
    args = ap.parse_args()
    pd.set_option("display.width", 200)
    t0 = time.time()
    cal = calibrate(20_000, 3)
    print("equal-cost check, ns per unit of each function alone:")
    print(cal.round(4).to_string())
    event = default_event()
    settings = [("-c", int(p)) for p in args.periods.split(",") if p] + [("-F", int(f)) for f in args.freqs.split(",") if f]
    rows = []
    for flag, value in settings:
        for g in map(int, args.granularities.split(",")):
            for r in range(args.repeats):
                kw = {"period": value} if flag == "-c" else {"freq": value}
                run = record_known_shares(granularity=g, event=event, seed=r, **kw)
                for method in ("wilson", "bound"):
                    t = coverage_table(run, method=method).reset_index()
                    t["setting"], t["granularity"], t["repeat"], t["method"] = f"{event} {flag} {value}", g, r, method
                    rows.append(t)
    cases = pd.concat(rows, ignore_index=True)
    cases["abs_err"] = (cases["share"] - cases["truth"]).abs()
    cases.to_csv(args.out, index=False)
    summ = (
        cases.groupby(["setting", "granularity", "method"], sort=False)
        .agg(cases=("covered", "size"), coverage=("covered", "mean"), samples=("n", "mean"),
             R_est=("R_est", "mean"), mean_abs_err=("abs_err", "mean"))
        .unstack("method")
    )
    print(summ.round(4).to_string())
    overall = cases.groupby("method")["covered"].agg(["size", "mean"])
    print("overall coverage of the 95 % intervals:")
    print(overall.round(4).to_string())
    print(f"max |measured - designed share|: {(cases['truth'] - cases['designed']).abs().max():.4f}")
    print(f"{time.time() - t0:.0f} s; cases written to {args.out}")


if __name__ == "__main__":
    main()
