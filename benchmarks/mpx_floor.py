"""How far can interpolation go?  The error cut of oracles that know the true counts around every gap (issue 26).

    OPENBLAS_NUM_THREADS=1 nice -n 5 .venv/bin/python benchmarks/mpx_floor.py \\
        --set sw=/work/mpx-data/traces --set fresh4=/work/mpx-data/fresh4 ...      # about 1 min a set

The default estimator (``checked``) fills each gap of a multiplexed series from the slices the run
counted around it.  This script asks how much better *any* such local estimator could do, by
giving oracles what no run has: the **true** counts of the ``k`` intervals on each side of every
gap interval (counted or not), for k = 1, 2, 4 and 8.  Each oracle fills the gap with the value
among those true neighbours that has the smallest summed relative error (Eq. 4) against the
others -- the relative-error-optimal choice among them, which leans low as relative accuracy
rewards -- and ``zero`` fills it with 0 (the best guess for a sparse event).  Then, per series, the
**best candidate by its true relative accuracy** is taken (a choice no estimator can make), with
and without ``checked`` among the candidates.

Printed per set and C: where the default's remaining error is -- its share in gap intervals by
whether the slices counted on either side read 0 and whether the true count is 0 (each series
weighing as in the mean RA) -- and the mean error cut (1 - RA of perf's scaling cut, as in
``mpx_eval.py``) of ``checked``, of each oracle alone, and of the per-series best.  Reading and
emulation are those of ``mpx_eval.py`` (hemkit's reader, the paper's cleaning, exact emulation of
the Linux rotation).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from hemkit.mpx.emulate import emulate
from hemkit.mpx.estimators import neighbours
from hemkit.mpx.evaluation import drop_unseen
from hemkit.mpx.registry import make_estimator
from hemkit.mpx.scores import markdown_table, relative_accuracy, relative_errors
from mpx_intervals import _read as read_set  # benchmarks run as scripts from this folder

#: neighbours on each side an oracle knows the true counts of
SIDES = (1, 2, 4, 8)
PAD = max(SIDES)


def neighbour_choice(padded: np.ndarray, offsets: list[int], T: int) -> np.ndarray:
    """Per interval, the true neighbour (at ``offsets``) with the smallest summed relative error against the others."""
    nb = [padded[:, PAD + o : PAD + o + T] for o in offsets]
    best = np.full(nb[0].shape, np.nan)
    best_err = np.full(nb[0].shape, np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        for cand in nb:
            err = np.nansum([np.where(np.isnan(v), 0.0, relative_errors(cand, v)) for v in nb], axis=0)
            better = (err < best_err) & ~np.isnan(cand)
            best = np.where(better, cand, best)
            best_err = np.where(better, err, best_err)
    return best


def where_error(blind, truth: np.ndarray, gap: np.ndarray, est: np.ndarray) -> dict[str, float]:
    """Share of ``est``'s error (mean over series of the mean relative error) by the gap's neighbours and truth."""
    obs = blind.observed
    val = np.nan_to_num(blind.perf_values())
    prev, nxt = neighbours(obs)
    T = obs.shape[1]
    rows = np.arange(obs.shape[0])[:, None]
    left, right = val[rows, prev.clip(0, T - 1)] == 0, val[rows, nxt.clip(0, T - 1)] == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.nan_to_num(relative_errors(est, truth)) / np.isfinite(truth).sum(axis=1, keepdims=True)
    total = err[gap].sum()
    sides = {"both read 0": left & right, "one read 0": left ^ right, "neither read 0": ~left & ~right}
    return {
        f"{name}, true {t}": err[gap & side & ((truth == 0) if t == "0" else (truth > 0))].sum() / total
        for name, side in sides.items()
        for t in ("0", "> 0")
    }


def floor(folder: str, pmcs: int) -> tuple[dict[str, float], dict[str, float]]:
    """Error cuts of checked, the oracles and the per-series best, and where checked's error is, for one set and C."""
    m, _ = drop_unseen(emulate(read_set(folder), pmcs))
    blind = m.without_truth()
    truth = np.where(m.valid, m.truth, np.nan)
    S, T = truth.shape
    gap = m.valid & ~m.known
    checked = make_estimator("checked").estimate_array(blind)
    fixed = make_estimator("fixed").estimate_array(blind)
    padded = np.concatenate([np.full((S, PAD), np.nan), truth, np.full((S, PAD), np.nan)], axis=1)
    cands = {"checked": checked, "zero": np.where(gap, 0.0, checked)}
    for k in SIDES:
        v = neighbour_choice(padded, [o for o in range(-k, k + 1) if o], T)
        cands[f"true neighbours k={k}"] = np.where(gap & ~np.isnan(v), v, checked)
    ra = {name: relative_accuracy(v, truth, axis=1) for name, v in cands.items()}
    loss_fixed = np.nanmean(1 - relative_accuracy(fixed, truth, axis=1))
    out = {name: 1 - np.nanmean(1 - r) / loss_fixed for name, r in ra.items()}
    stack = np.vstack(list(ra.values()))
    out["best per series (truth-chosen)"] = 1 - np.nanmean(1 - np.nanmax(stack, axis=0)) / loss_fixed
    out["best per series, checked left out"] = 1 - np.nanmean(1 - np.nanmax(stack[1:], axis=0)) / loss_fixed
    return out, where_error(blind, truth, gap, checked)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", required=True, help="LABEL=FOLDER of OCOE traces")
    ap.add_argument("--pmcs", type=int, nargs="+", default=[2, 3])
    args = ap.parse_args()
    rows, shares = [], []
    for spec in args.set:
        label, folder = spec.split("=", 1)
        for c in args.pmcs:
            t0 = time.perf_counter()
            cuts, where = floor(folder, c)
            rows.append({"set": label, "C": c, **cuts})
            shares.append({"set": label, "C": c, **where})
            print(f"[{label}] C = {c}: {time.perf_counter() - t0:.0f} s", flush=True)
    for title, frame in (("where checked's error is (share in gaps)", shares), ("error cut", rows)):
        table = pd.DataFrame(frame)
        table.index = pd.Index([f"{r.set}, C = {r.C}" for r in table.itertuples()], name="set")
        print(f"\n{title}:")
        print(markdown_table(table.drop(columns=["set", "C"])))
        print(f"\n{title}, mean over the sets:")
        print(markdown_table(table.drop(columns=["set"]).groupby("C").mean()))


if __name__ == "__main__":
    main()
