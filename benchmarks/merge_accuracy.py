"""Correlation accuracy of HRM, MUCH and the copula merge.

Run:  .venv/bin/python benchmarks/merge_accuracy.py   (~3 min on 2 cores)

1. Synthetic data with a known truth (hemkit.evaluate.study.synthetic_study): the same total
   number of runs for every method (MUCH design: 50 or 100 runs per group; HRM: the same
   total over its groups); reference = correlations of 100 000 complete vectors.
2. The real T2080 MUCH data, holdout: half of each group's runs merged, the other half's
   observed pairwise correlations as the reference (5 splits).
"""

from __future__ import annotations

import warnings

import pandas as pd

from hemkit.datasets import t2080_much
from hemkit.errors import HemkitWarning
from hemkit.evaluate import holdout
from hemkit.evaluate.study import synthetic_study

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
            res = synthetic_study(k, p, runs_per_much_group=rpg, marginals=marg, seed=seed)
            t = res.table()
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
    agg = df.groupby(["events", "pmcs", "marginals", "runs/group"], sort=False)[
        ["total runs", "hrm P", "much P", "copula P", "hrm S", "much S", "copula S"]
    ].mean()
    agg["total runs"] = agg["total runs"].round().astype(int)
    agg["copula/much P"] = agg["copula P"] / agg["much P"]
    agg["copula/much S"] = agg["copula S"] / agg["much S"]
    print("\n### Synthetic truth: pairwise-correlation MSE (mean of 3 seeds; P = Pearson, S = Spearman)\n")
    print(markdown(agg))
    ratio_p = df["copula P"] / df["much P"]
    ratio_s = df["copula S"] / df["much S"]
    print(
        f"\nper-run ratio copula/much: Pearson mean {ratio_p.mean():.3f} (median {ratio_p.median():.3f}, "
        f"max {ratio_p.max():.3f}); Spearman mean {ratio_s.mean():.3f}; "
        f"much < hrm in {int((df['much P'] < df['hrm P']).sum())}/{len(df)}, "
        f"copula < much in {int((df['copula P'] < df['much P']).sum())}/{len(df)} (Pearson)"
    )

    print("\n### T2080 holdout (real data; half of each group's runs merged, other half = reference)\n")
    hold = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        for seed in range(5):
            res = holdout(t2080_much(), ["much", "copula"], seed=seed)
            hold.append(
                {
                    "split": seed,
                    **{f"{m} P": e.mse("pearson") for m, e in res.items()},
                    **{f"{m} S": e.mse("spearman") for m, e in res.items()},
                }
            )
    h = pd.DataFrame(hold)
    h.loc["mean"] = h.mean()
    print(markdown(h, "{:.5f}"))


if __name__ == "__main__":
    main()
