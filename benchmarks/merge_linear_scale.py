"""Does the joint merge's linear fit (JointOptions.linear) pay at the sizes hemkit plans for? (issue 28)

Run:  nice .venv/bin/python benchmarks/merge_linear_scale.py [--events 16,30,50,100] [--runs 30] [--seeds 2]
          [--first-seed 0] [--factors auto,0.35]

On synthetic truth (``make_truth(n, ..., marginals="gamma")``: a random correlation matrix with
structure, gamma counts) split as a MUCH plan on 6 counters gives it (``make_plan``), every run a
fresh draw, the default joint merge is run with ``linear=0.5`` (the weight chosen on the 10-event
development truth tables, issue 26; :data:`hemkit.merge.joint.LINEAR_MAX_EVENTS` is lifted here so
that the fit is used at every size), with ``linear=0``, and with ``linear=0, factor=0`` (the
one-factor blend off too); printed: the MSE of the merged correlations against the truth's (all
pairs) and the time of each merge.  The development tables have 10 events: this measures what that choice does at
16-100 events, where no truth table of real programs exists.

``--factors auto,0.35`` compares instead the factor blends (``JointOptions.factor``) with none, all
at ``linear=0``: a ``<factor> ratio`` column per value, its MSE over ``factor=0``'s.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from hemkit.core.readings import Readings
from hemkit.datasets.synthetic import make_truth
from hemkit.merge import joint, merge
from hemkit.plan import make_plan


def _case(n: int, runs: int, seed: int) -> tuple[Readings, pd.DataFrame]:
    names = [f"e{i:03d}" for i in range(n)]
    plan = make_plan(names, pmcs=6, design="much", seed=seed)
    truth = make_truth(n, len(plan.groups) * runs, marginals="gamma", seed=seed)
    truth.columns = names
    groups = {
        g: truth.iloc[g * runs : (g + 1) * runs][list(evs)].reset_index(drop=True) for g, evs in enumerate(plan.groups)
    }
    return Readings(groups), truth.corr()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", default="16,30,50,100")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--first-seed", type=int, default=0, help="seeds first .. first + seeds - 1")
    ap.add_argument("--factors", default="", help="factor blends to compare with none (e.g. auto,0.35)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    joint.LINEAR_MAX_EVENTS = 10**9  # measure the fit itself at every size
    rows = []
    factors: list[float | str] = [f if f == "auto" else float(f) for f in args.factors.split(",") if f]
    cases: list[tuple[float, float | str | None]] = (
        [(0.0, 0.0), *((0.0, f) for f in factors)] if factors else [(0.5, None), (0.0, None), (0.0, 0.0)]
    )
    for n in map(int, args.events.split(",")):
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            readings, truth = _case(n, args.runs, seed)
            iu = np.triu_indices(n, 1)
            for linear, factor in cases:
                extra = {} if factor is None else {"factor": factor}
                t = time.perf_counter()
                res = merge(readings, "joint", seed=seed, linear=linear, **extra)
                sec = time.perf_counter() - t
                corr = res.data.corr().to_numpy()
                events = list(res.data.columns)  # the readings' order, not the truth's
                mse = float(np.mean((corr[iu] - truth.loc[events, events].to_numpy()[iu]) ** 2))
                case = f"linear={linear:g}" + ("" if factor is None else f",factor={factor}")
                rows.append((n, len(readings.group_ids), seed, case, mse, sec))
                print(n, seed, case, f"{mse:.5f}", f"{sec:.1f} s", flush=True)
    t = pd.DataFrame(rows, columns=["events", "groups", "seed", "case", "mse", "seconds"])
    wide = t.pivot_table(index=["events", "groups", "seed"], columns="case", values=["mse", "seconds"])
    if factors:
        for f in factors:
            wide[("mse", f"{f} ratio")] = wide[("mse", f"linear=0,factor={f}")] / wide[("mse", "linear=0,factor=0.0")]
    else:
        wide[("mse", "linear ratio")] = wide[("mse", "linear=0.5")] / wide[("mse", "linear=0")]
        wide[("mse", "factor ratio")] = wide[("mse", "linear=0")] / wide[("mse", "linear=0,factor=0.0")]
    print(wide.round(5).to_string())


if __name__ == "__main__":
    main()
