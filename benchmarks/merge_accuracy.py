"""Correlation accuracy of HRM, MUCH and the copula merge.

Run:  nice .venv/bin/python benchmarks/merge_accuracy.py   (~15 min on 2 loaded cores)

1. Synthetic data with a known truth (hemkit.evaluate.study.synthetic_study): the same total
   number of runs for every method (MUCH design: 50 or 100 runs per group; HRM: the same
   total over its groups); reference = correlations of 100 000 complete vectors.
2. The real T2080 MUCH data, holdout: half of each group's runs merged, the other half's
   observed pairwise correlations as the reference (5 splits).

(Real data with a full known truth: benchmarks/merge_truth.py.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning
from hemkit.datasets import t2080_much
from hemkit.evaluate import holdout, synthetic_study

METHODS = ("hrm", "much-paper", "much", "copula", "joint")

CASES = [
    (16, 6, "mixed", 50),
    (8, 3, "mixed", 50),
    (16, 4, "heavy", 50),
    (12, 4, "lognormal", 100),
    (16, 6, "bimodal", 100),
    (32, 6, "mixed", 50),
]


def markdown(df: pd.DataFrame, fmt: str = "{:.4f}") -> str:
    """A DataFrame as a Markdown table (index included)."""
    df = df.reset_index()
    cells = [[fmt.format(v) if isinstance(v, float) else str(v) for v in row] for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells])


def main() -> None:
    rows = []
    for k, p, marg, rpg in CASES:
        for seed in range(3):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", HemkitWarning)
                res = synthetic_study(k, p, runs_per_much_group=rpg, marginals=marg, seed=seed, methods=METHODS)
            t = res.summary()
            rows.append(
                {
                    "events": k,
                    "pmcs": p,
                    "marginals": marg,
                    "runs/group": rpg,
                    "seed": seed,
                    "total runs": res.setup["total_runs"],
                    **{f"{m} P": t.loc[m, "pearson_mse"] for m in t.index},
                    **{f"{m} S": t.loc[m, "spearman_mse"] for m in t.index},
                }
            )
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    cols = ["total runs"] + [f"{m} P" for m in METHODS] + [f"{m} S" for m in METHODS]
    agg = df.groupby(["events", "pmcs", "marginals", "runs/group"], sort=False)[cols].mean()
    agg["total runs"] = agg["total runs"].round().astype(int)
    agg["joint/paper P"] = agg["joint P"] / agg["much-paper P"]
    agg["joint/paper S"] = agg["joint S"] / agg["much-paper S"]
    print("\n### Synthetic truth: pairwise-correlation MSE (mean of 3 seeds; P = Pearson, S = Spearman)\n")
    print(markdown(agg))
    ratio_p = df["joint P"] / df["much-paper P"]
    ratio_s = df["joint S"] / df["much-paper S"]
    print(
        f"\nper-run ratio joint/much-paper: Pearson geometric mean {np.exp(np.log(ratio_p).mean()):.3f} "
        f"(worst {ratio_p.max():.3f}); Spearman {np.exp(np.log(ratio_s).mean()):.3f}; "
        f"much < hrm in {int((df['much P'] < df['hrm P']).sum())}/{len(df)} (Pearson)"
    )

    print("\n### T2080 holdout (real data; half of each group's runs merged, other half = reference)\n")
    hold = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        for seed in range(5):
            res = holdout(t2080_much(), ["much-paper", "much", "copula", "joint"], seed=seed)
            hold.append(
                {
                    "split": seed,
                    **{f"{m} P": e.mse("pearson") for m, e in res.evaluations.items()},
                    **{f"{m} S": e.mse("spearman") for m, e in res.evaluations.items()},
                }
            )
    h = pd.DataFrame(hold)
    h.loc["mean"] = h.mean()
    print(markdown(h, "{:.5f}"))


if __name__ == "__main__":
    main()
