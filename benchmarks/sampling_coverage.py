"""Coverage of hemkit's profile intervals on real perf record samples of a known-share workload.

    .venv/bin/python benchmarks/sampling_coverage.py [--runs 5] [--out /work/data/sampling/coverage.csv]

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

import numpy as np
import pandas as pd

from hemkit.sampling.model import capture_variance
from hemkit.sampling.record import CheckOptions, calibrate, validate_coverage


def model_sd_ratio(setting: str, granularity: int, ns_per_unit: float, shares=(0.1, 0.2, 0.3, 0.4)) -> float:
    """Model SD (Eqs. 6-9, independent runs) over the binomial SD, RMS over the functions.

    Calls last ``U[g/2, 3g/2]`` units; R = call length / sampling period.
    """
    kind, value = setting.split()[1:]
    period_ns = float(value) if kind == "-c" else 1e9 / float(value)
    r = np.linspace(granularity / 2, 1.5 * granularity, 1001) * ns_per_unit / period_ns
    v1 = np.mean(capture_variance(r)) / np.mean(r)
    p = np.asarray(shares)
    return float(np.sqrt(np.mean(v1 / (1 - p))))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", "--repeats", type=int, default=5, help="perf record runs per setting and granularity")
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
    options = CheckOptions(
        periods=tuple(int(p) for p in args.periods.split(",") if p),
        freqs=tuple(int(f) for f in args.freqs.split(",") if f),
        granularities=tuple(int(g) for g in args.granularities.split(",")),
        runs=args.runs,
    )
    res = validate_coverage(options, methods=("wilson", "bound"), progress=True)
    res.cases.to_csv(args.out, index=False)
    long = res.summary()
    summ = long.unstack("method").reindex(long.index.droplevel("method").unique())
    out = pd.DataFrame(
        {
            "cases": summ[("cases", "wilson")],
            "samples": summ[("samples", "wilson")].round(0),
            "cover_wilson": summ[("coverage", "wilson")],
            "cover_bound": summ[("coverage", "bound")],
            "mean_abs_err": summ[("mean_abs_err", "wilson")],
            "sd/binomial": summ[("sd/binomial", "wilson")],
        }
    )
    # coverage of the designed shares (units ratio, equal cost per unit) instead of the measured CPU times
    c = res.cases[res.cases["method"] == "wilson"]
    hit = (c["low"] <= c["designed"]) & (c["designed"] <= c["high"])
    by = hit.groupby([c["setting"], c["granularity"]], sort=False).mean()
    out["cover_wilson_designed"] = [hit.mean() if s_ == "all" else by.loc[(s_, g_)] for s_, g_, *_ in out.index]
    ns = float(cal["ns_per_unit"].mean())
    out["model/binomial"] = [model_sd_ratio(s_, g_, ns) if s_ != "all" else np.nan for s_, g_, *_ in out.index]
    print(out.round(4).to_string())
    cases = res.cases
    print(f"max |measured - designed share|: {(cases['truth'] - cases['designed']).abs().max():.4f}")
    print(f"{time.time() - t0:.0f} s; cases written to {args.out}")


if __name__ == "__main__":
    main()
