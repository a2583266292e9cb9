"""Re-run Wen et al. 2021 Tables 2-6 with hemkit's simulator; print Markdown tables beside the paper's.

    .venv/bin/python benchmarks/sampling_tables.py [--seed 0] [--reps 1000]

1e6 units (Table 6: 1e5 / 5e4), sampling interval 100, 1000 profiling repetitions on
one realisation of the running states per set-up.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from hemkit.sampling.paper import reproduce


def fmt(v, kind):
    if pd.isna(v):
        return "-"
    return f"{v:.4f}" if kind == "mean" else f"{v:.2e}"


def md(df: pd.DataFrame, cols: list[tuple[str, str, str]]) -> str:
    head = "| " + " | ".join(c[1] for c in cols) + " |"
    sep = "| " + " | ".join("---" for _ in cols) + " |"
    rows = [
        "| "
        + " | ".join(
            fmt(r[c[0]], c[2]) if c[2] != "raw" else (f"{r[c[0]]:g}" if isinstance(r[c[0]], float) else str(r[c[0]]))
            for c in cols
        )
        + " |"
        for _, r in df.iterrows()
    ]
    return "\n".join([head, sep, *rows])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reps", type=int, default=1000)
    args = ap.parse_args()
    t0 = time.time()
    single = [
        ("utilisation", "util", "raw"),
        ("granularity", "gran", "raw"),
        ("R", "R", "raw"),
        ("running_mean", "running mean", "mean"),
        ("profile_mean", "profile mean", "mean"),
        ("bias", "bias", "sd"),
        ("profile_sd", "SD", "sd"),
        ("model_sd", "model SD (Eq. 6-9)", "sd"),
        ("exact_sd", "exact SD", "sd"),
        ("paper_profile_mean", "paper mean", "mean"),
        ("paper_sd", "paper SD", "sd"),
    ]
    res = reproduce("all", reps=args.reps, seed=args.seed, progress=True)
    for t in ("2", "3"):
        df = res.tables[t]
        print(f"\n**Table {t}**\n")
        print(md(df, single))
        print(f"\nmax |bias| = {df['bias'].abs().max():.5f}")
    df = res.tables["4"]
    print("\n**Table 4 (mixed tasks)**\n")
    print(
        md(
            df,
            [
                ("task", "task", "raw"),
                ("R", "R", "mean"),
                ("running_mean", "running mean", "mean"),
                ("profile_mean", "profile mean", "mean"),
                ("bias", "bias", "sd"),
                ("profile_sd", "SD", "sd"),
                ("model_sd", "model SD", "sd"),
                ("exact_sd", "exact SD", "sd"),
                ("paper_running_mean", "paper running", "mean"),
                ("paper_profile_mean", "paper mean", "mean"),
                ("paper_sd", "paper SD", "sd"),
            ],
        )
    )
    for t in ("5", "6"):
        df = res.tables[t]
        print(f"\n**Table {t}**\n")
        print(
            md(
                df,
                [
                    ("noise_sd", "noise s", "raw"),
                    ("samples", "samples", "raw"),
                    ("task", "task", "raw"),
                    ("running_mean", "running mean", "mean"),
                    ("profile_mean", "profile mean", "mean"),
                    ("bias", "bias", "sd"),
                    ("profile_sd", "SD", "sd"),
                    ("paper_profile_mean", "paper mean", "mean"),
                    ("paper_sd", "paper SD", "sd"),
                ],
            )
        )
        print(f"\nmax |bias| = {df['bias'].abs().max():.5f}")
    print(f"\n({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
