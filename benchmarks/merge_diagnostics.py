"""MUCH's own diagnostics reproduced on the T2080 data (MUCH paper, Fig. 6 and 7) and on the real Zen 5 truth.

Run:  nice .venv/bin/python benchmarks/merge_diagnostics.py [--reps 20] [--out /tmp/hemkit-diagnostics]   (~15 min)

- MSE against the number of simulations (T2080 MUCH data, half of each group's runs merged
  with n_sims in 1..300, the other half's observed correlations as the reference; 1000 merged
  rows, the arranged criterion throughout);
- Fig. 6: MSE against the total number of runs for HRM, MUCH (and hemkit's joint merge)
  (``nr`` = 50, 100, 200, 400 runs drawn per group, ``--reps`` times; reference = observed
  pairwise correlations of all MUCH runs) -- and the same on ``br_64kb`` against its real
  truth (``nr`` = 25, 50, 100);
- Fig. 7: runs MUCH and HRM need against the number of events (np = 6, nr = 100).

Figures go to ``--out`` (PNG); the tables are printed as Markdown.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from hemkit.datasets import split_truth, t2080_hrm, t2080_much, zen5_br_64kb  # noqa: E402
from hemkit.evaluate import CurveOptions, design_runs, runs_curve, sims_curve  # noqa: E402


def markdown(df, fmt: str = "{:.4f}") -> str:
    """A DataFrame as a Markdown table (index included)."""
    df = df.reset_index()
    cells = [[fmt.format(v) if isinstance(v, float) else str(v) for v in row] for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out", default="/tmp/hemkit-diagnostics")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    sc = sims_curve(
        t2080_much(),
        seed=0,
        options=CurveOptions((1, 3, 10, 30, 100, 300), reps=max(3, args.reps // 4)),
        merge_options={"rows": 1000, "criterion": "arranged"},
    )
    sc.plot().figure.savefig(out / "much_sims.png", dpi=120, bbox_inches="tight")
    print(f"## MSE against n_sims (T2080, held-out halves; {time.perf_counter() - t0:.0f} s)\n")
    print(markdown(sc.summary()))

    three = ("hrm", "much", "joint")
    rc = runs_curve(
        t2080_much(), t2080_hrm(), seed=0, options=CurveOptions((50, 100, 200, 400), reps=args.reps, methods=three)
    )
    rc.plot().figure.savefig(out / "fig6_t2080.png", dpi=120, bbox_inches="tight")
    print(f"\n## Fig. 6 on T2080 ({time.perf_counter() - t0:.0f} s)\n")
    print(markdown(rc.summary()))

    truth = zen5_br_64kb()
    much = split_truth(truth, 4, seed=0)  # 6 groups of 133 runs
    hrm = split_truth(truth, 4, design="hrm", seed=0)  # 3 groups of 266 runs, anchor cycles
    rz = runs_curve(
        much, hrm, reference=truth, seed=0, options=CurveOptions((25, 50, 100), reps=args.reps, methods=three)
    )
    rz.plot().figure.savefig(out / "fig6_br64kb.png", dpi=120, bbox_inches="tight")
    print(f"\n## Fig. 6 on br_64kb, against the real truth ({time.perf_counter() - t0:.0f} s)\n")
    print(markdown(rz.summary()))

    d = design_runs(pmcs=6, runs_per_group=100)
    d.plot().figure.savefig(out / "fig7.png", dpi=120, bbox_inches="tight")
    print("\n## Fig. 7 (np = 6, nr = 100): total runs\n")
    print(markdown(d.table.loc[[6, 10, 16, 20, 30, 40, 50, 60]], "{:.0f}"))
    print(f"\nfigures in {out} ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
