"""Multiplexing: every held-out workload together, and how far a better choice per series could go (issue 26).

    nice -n 10 .venv/bin/python benchmarks/mpx_heldout.py --scores EVAL/scores.parquet ...   # seconds
    nice -n 10 .venv/bin/python benchmarks/mpx_heldout.py --oracle \\
        --set sw=/work/mpx-data/traces --set fresh4=/work/mpx-data/fresh4 ...                  # ~3 min

``--scores``: the ``scores.parquet`` files of ``benchmarks/mpx_eval.py`` runs in which every
workload was held out from the choices it was scored with (the pool's leave-one-workload-out
run, the held-out sets' runs).  Pooled over every software-event workload (``zen5`` left
out: other events): the default's (``checked``) mean error cut against perf's scaling
(``fixed``) and its median |total error| relative to ``fixed``'s and to perf's end-of-run
total's, per C.

``--oracle``: for each trace set and C = 2, 3, the error cut of every series candidate of the
default estimator alone, of the default (its choice on hidden slices), and of the best
candidate per series chosen *with the truth* -- a bound no choice among these candidates can
pass.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from hemkit.mpx.checked import SERIES, CheckedEstimation
from hemkit.mpx.emulate import emulate
from hemkit.mpx.evaluation import drop_unseen
from hemkit.mpx.registry import make_estimator
from hemkit.mpx.scores import relative_accuracy
from merge_lowo import markdown  # benchmarks run as scripts from this folder
from mpx_eval import _read


def pooled(files: list[str]) -> pd.DataFrame:
    """Per C: workloads, series, the default's error cut and its total error against perf's two scalings."""
    d = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    d = d[d["set"] != "zen5"]
    rows = []
    for c, g in d.groupby("pmcs"):
        est = {e: g[g["estimator"] == e] for e in ("checked", "fixed", "fixed-cumulative")}
        rows.append(
            {
                "C": c,
                "workloads": est["checked"]["workload"].nunique(),
                "series": len(est["checked"]),
                "error cut": 1 - (1 - est["checked"]["ra"].mean()) / (1 - est["fixed"]["ra"].mean()),
                "total vs fixed": est["checked"]["total_error"].median() / est["fixed"]["total_error"].median(),
                "total vs perf's end-of-run": est["checked"]["total_error"].median()
                / est["fixed-cumulative"]["total_error"].median(),
            }
        )
    return pd.DataFrame(rows).set_index("C")


def _cut(ra: np.ndarray, fixed: np.ndarray) -> float:
    return float(1 - (1 - np.nanmean(ra)) / (1 - np.nanmean(fixed)))


def oracle(label: str, folder: str, pmcs: int) -> dict[str, float | str | int]:
    """Error cuts of each candidate alone, of the default and of the truth's best candidate per series."""
    m, _ = drop_unseen(emulate(_read(folder), pmcs))
    blind = m.without_truth()
    truth = np.where(m.valid, m.truth, np.nan)

    def ra(est: np.ndarray) -> np.ndarray:
        return relative_accuracy(np.where(m.valid, est, np.nan), truth, axis=1)

    fixed = ra(make_estimator("fixed").estimate_array(blind))
    values, _ = CheckedEstimation().checks(blind)
    alone = {n: ra(values[n]) for n in SERIES}
    stack = np.vstack(list(alone.values()))
    best = np.nanmax(np.where(np.isnan(stack), -np.inf, stack), axis=0)
    row: dict[str, float | str | int] = {"set": label, "C": pmcs}
    row["default"] = _cut(ra(CheckedEstimation().estimate_array(blind)), fixed)
    row["oracle choice"] = _cut(best, fixed)
    row.update({n: _cut(r, fixed) for n, r in alone.items()})
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scores", nargs="*", default=[], help="scores.parquet files of held-out mpx_eval.py runs")
    ap.add_argument("--oracle", action="store_true", help="the oracle bound of the choice per series")
    ap.add_argument("--set", action="append", default=[], help="LABEL=FOLDER of OCOE traces (with --oracle)")
    args = ap.parse_args()
    if args.scores:
        print("Every held-out software-event workload together:\n\n" + markdown(pooled(args.scores)))
    if args.oracle:
        rows = [oracle(*spec.split("=", 1), c) for spec in args.set for c in (2, 3)]
        print("\nError cut against perf's scaling (fixed):\n\n" + markdown(pd.DataFrame(rows).set_index(["set", "C"])))


if __name__ == "__main__":
    main()
