"""The joint merge's calibration (``JointOptions.calibration``, off by default): fitted on truth tables, left out.

    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/merge_calibration.py --out /tmp/mcal   # ~10 min

The shrinkage that makes the joint merge accurate on average leaves its correlations biased
where true correlations are common: strong positive ones come out low, weak negative ones
too negative.  A calibration shifts the merge's score target (step 2) and Pearson goal
(step 4) by a function of the correlation, linear between
:data:`hemkit.merge.joint.CALIBRATION_KNOTS`, each pair's shift weighted by how few runs read
it together (:func:`hemkit.merge.joint.calibrate_correlation`).

1. **Capture.**  Every workload of the pool -- the development truth tables, ``br_64kb`` and the
   held-out sets already scored (``--sets``) -- is split into MUCH designs on 3 and 4
   counters (one split each, seed ``--seed``), and merged uncalibrated (zero shifts) ``--reps``
   times, and by the MUCH paper 4 times.  The score target and the Pearson goal the merge hands
   to the calibration, the arrangement before the tail swaps and the merged table are recorded
   beside the truth's normal-score and Pearson correlations of the same pairs; where the
   uncalibrated merge's error is (table, goal, arrangement; merged against true correlations by
   bin) is printed.
2. **Fit** (:func:`hemkit.merge.joint.fit_calibration`): the shifts that bring the targets
   closest to the truth's normal-score correlations and the goals to its Pearson ones (knots
   below ``--lowest`` kept at 0).  Fitted on every workload: the constants of
   :data:`hemkit.merge.joint.CALIBRATION` (printed).
3. **Left out.**  Each workload is split again (a *different* split, seed ``--seed + 1``) and
   merged with the shifts fitted on the *other* workloads' captures, uncalibrated and by the
   MUCH paper (``--reference-reps`` merges); the MSE of its Pearson and Spearman correlations
   against the complete table's, as a ratio to the paper's, per workload and per set.

Writes ``captures.pkl``, ``scores.csv`` and ``calibration.txt`` to ``--out``.  ``--synthetic`` instead
merges synthetic clusters (gamma counts, positive and negative correlations; the cases of
``tests/merge/test_merge_joint.py``) with and without :data:`hemkit.merge.joint.CALIBRATION`.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import rankdata

import hemkit.merge.joint as joint
from hemkit.core.errors import HemkitWarning
from hemkit.core.normal import rank_scores
from hemkit.core.rng import child
from hemkit.evaluate import evaluate
from hemkit.evaluate.study import study_split
from merge_lowo import TRUTH, _geo, _merge, markdown, workloads  # benchmarks run as scripts from this folder

ZERO = (tuple(0.0 for _ in joint.CALIBRATION_KNOTS),) * 2


def pool(folder: Path, sets: list[str]) -> dict[str, pd.DataFrame]:
    """The development workloads and those of every scored held-out set (``set-name``)."""
    out = workloads(folder)
    for s in sets:
        out.update({f"{s}-{k}": v for k, v in workloads(folder, s).items()})
    return out


def truth_correlations(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The complete table's Pearson and normal-score (van der Waerden, ties averaged) correlations."""
    n = len(table)
    scores = np.stack([rank_scores(rankdata(c), n) for c in table.T])
    return np.corrcoef(table.T), np.corrcoef(scores)


def capture(name: str, truth: pd.DataFrame, seed: int, reps: int) -> list[dict[str, Any]]:
    """Uncalibrated merges of one split per counter count: target, goal and truth per pair."""
    seen: list[np.ndarray] = []
    before: list[np.ndarray] = []
    original, tails = joint.calibrate_correlation, joint.place_tails

    def spy(corr: np.ndarray, together: np.ndarray, shifts: Any) -> np.ndarray:
        seen.append(np.array(corr, dtype=float))
        return original(corr, together, shifts)

    def spy_tails(x: np.ndarray, goal: np.ndarray, **kw: Any) -> tuple[np.ndarray, np.ndarray]:
        before.append(np.corrcoef(np.asarray(x, dtype=float)))  # the arrangement before the tail swaps
        return tails(x, goal, **kw)

    rows = []
    joint.calibrate_correlation = spy  # the merge calls it on its target, then on its Pearson goal
    joint.place_tails = spy_tails
    try:
        for pmcs in (3, 4):
            readings = study_split(truth, pmcs, child(seed, "split", name, pmcs, 0))
            pearson, normal = truth_correlations(truth[readings.events].to_numpy(float))
            iu = np.triu_indices(len(pearson), 1)
            together = joint.runs_together(readings)[iu]
            sub = truth[readings.events]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", HemkitWarning)
                paper = [
                    evaluate(_merge("much-paper", readings, child(seed, "paper", name, pmcs, r), {}), sub)
                    for r in range(4)
                ]
            for rep in range(reps):
                seen.clear()
                before.clear()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", HemkitWarning)
                    res = _merge("joint", readings, child(seed, "merge", name, pmcs, rep), {"calibration": ZERO})
                target, goal = seen
                rows.append(
                    {
                        "workload": name,
                        "pmcs": pmcs,
                        "rep": rep,
                        "target": target[iu],
                        "goal": goal[iu],
                        "before": before[0][iu],
                        "table": np.corrcoef(res.data[readings.events].to_numpy(float).T)[iu],
                        "paper": float(np.mean([e.mse("pearson") for e in paper])),
                        "normal": normal[iu],
                        "pearson": pearson[iu],
                        "together": together,
                    }
                )
    finally:
        joint.calibrate_correlation, joint.place_tails = original, tails
    return rows


def fit(caps: pd.DataFrame, lowest: float = -1.0) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Shifts of the target (toward the normal-score truth) and of the goal (toward Pearson's)."""

    def cat(col: str) -> np.ndarray:
        return np.concatenate(caps[col].to_list())

    together = cat("together")
    t = joint.fit_calibration(cat("target"), cat("normal"), together, lowest=lowest)
    g = joint.fit_calibration(cat("goal"), cat("pearson"), together, lowest=lowest)
    return tuple(round(float(x), 4) for x in t), tuple(round(float(x), 4) for x in g)


def score(name: str, truth: pd.DataFrame, shifts: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Calibrated, uncalibrated and paper-MUCH merges of a new split: MSE per counter count."""
    seed = args.seed + 1
    rows = []
    for pmcs in (3, 4):
        readings = study_split(truth, pmcs, child(seed, "split", name, pmcs, 0))
        sub = truth[readings.events]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            for label, method, opts, reps in (
                ("much-paper", "much-paper", {}, args.reference_reps),
                ("uncalibrated", "joint", {"calibration": None}, args.reps),
                ("calibrated", "joint", {"calibration": shifts}, args.reps),
            ):
                evs = [
                    evaluate(_merge(method, readings, child(seed, "merge", name, pmcs, rep, label), opts), sub)
                    for rep in range(reps)
                ]
                rows.append(
                    {
                        "workload": name,
                        "pmcs": pmcs,
                        "setting": label,
                        "pearson": float(np.mean([e.mse("pearson") for e in evs])),
                        "spearman": float(np.mean([e.mse("spearman") for e in evs])),
                    }
                )
    return rows


def report(scores: pd.DataFrame) -> str:
    """Per workload and per set: Pearson and Spearman MSE ratio to paper-MUCH, calibrated and not."""
    per = scores.groupby(["workload", "setting"])[["pearson", "spearman"]].mean().unstack("setting")
    out = pd.DataFrame(index=per.index)
    for kind in ("pearson", "spearman"):
        for s in ("uncalibrated", "calibrated"):
            out[f"{kind} {s}"] = per[(kind, s)] / per[(kind, "much-paper")]
    out["set"] = [w.split("-")[0] if w.split("-")[0].startswith("fresh") else "development" for w in out.index]
    sets = out.groupby("set").agg(_geo)
    sets.loc["all"] = out.drop(columns="set").agg(_geo)
    worse = int((out["pearson calibrated"] > out["pearson uncalibrated"]).sum())
    lines = [
        "Per set (geometric mean over its workloads of the MSE ratio to paper-MUCH):",
        "",
        markdown(sets),
        "",
        f"Calibration worse in Pearson on {worse} of {len(out)} workloads; "
        f"worst calibrated {out['pearson calibrated'].max():.3f} ({out['pearson calibrated'].idxmax()}).",
    ]
    return "\n".join(lines)


def synthetic(cases: int = 4) -> str:
    """Synthetic clusters (16 gamma-count events, 30 runs a group, 6 counters) with and without the calibration."""
    from hemkit.datasets.synthetic import make_truth, split_into_groups
    from hemkit.plan import make_plan

    rows = []
    for seed in range(cases):
        names = [f"e{i:03d}" for i in range(16)]
        plan = make_plan(names, pmcs=6, design="much", seed=seed)
        truth = make_truth(16, len(plan.groups) * 30, marginals="gamma", seed=seed)
        truth.columns = names
        readings = split_into_groups(truth, plan.groups, 30, seed=seed)
        row: dict[str, Any] = {"case": seed}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            for label, cal in (("uncalibrated", None), ("calibrated", joint.CALIBRATION)):
                res = joint.merge_joint(readings, seed=seed, options=joint.JointOptions(linear=0, calibration=cal))
                ev = evaluate(res, truth[readings.events])
                row[f"pearson {label}"], row[f"spearman {label}"] = ev.mse("pearson"), ev.mse("spearman")
        rows.append(row)
    return markdown(pd.DataFrame(rows).set_index("case"), "{:.5f}")


def diagnose(caps: pd.DataFrame) -> str:
    """Where the uncalibrated merge's Pearson error is: its table, its goal, the arrangement before the swaps."""

    def ratio(col: str, f: Any = None) -> float:
        mse = [np.mean(((f(r[col]) if f else r[col]) - r["pearson"]) ** 2) / r["paper"] for _, r in caps.iterrows()]
        per = caps.assign(x=mse).groupby("workload")["x"].mean()
        return _geo(per)

    rows = {
        "the merged table": ratio("table"),
        "the Pearson goal of the tail swaps": ratio("goal"),
        "the arrangement before the swaps": ratio("before"),
        "the table's correlations x 1.05": ratio("table", lambda r: np.clip(1.05 * r, -1, 1)),
        "the table's Fisher z x 1.05": ratio("table", lambda r: np.tanh(1.05 * np.arctanh(np.clip(r, -0.999, 0.999)))),
    }
    t = np.concatenate(caps["table"].to_list())
    p = np.concatenate(caps["pearson"].to_list())
    bins = [(-0.5, -0.2), (-0.2, 0.2), (0.2, 0.5), (0.5, 0.8), (0.8, 1.01)]
    lines = [f"| {k} | {v:.3f} |" for k, v in rows.items()]
    lines += ["", "| merged correlation in | pairs | mean merged | mean truth |", "|---|---|---|---|"]
    for lo, hi in bins:
        k = (t >= lo) & (t < hi)
        lines.append(f"| [{lo}, {hi}) | {int(k.sum())} | {t[k].mean():.3f} | {p[k].mean():.3f} |")
    head = "| Pearson MSE ratio to paper-MUCH (geometric mean over workloads) | |\n|---|---|\n"
    return head + "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("/tmp/merge_calibration"))
    ap.add_argument("--truth", type=Path, default=TRUTH)
    ap.add_argument("--sets", nargs="*", default=["fresh", "fresh2", "fresh3", "fresh4", "fresh5"])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--reference-reps", type=int, default=4)
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--lowest", type=float, default=-1.0, help="knots below it keep a shift of 0")
    ap.add_argument("--synthetic", action="store_true", help="only the synthetic clusters, with the shipped shifts")
    args = ap.parse_args()
    if args.synthetic:
        print(synthetic())
        return
    args.out.mkdir(parents=True, exist_ok=True)
    work = pool(args.truth, args.sets)
    t0 = time.perf_counter()
    cache = args.out / "captures.pkl"
    if cache.exists():
        caps = pd.read_pickle(cache)
    else:
        caps = pd.DataFrame([r for name, truth in work.items() for r in capture(name, truth, args.seed, args.reps)])
        caps.to_pickle(cache)
    print(f"captured {len(work)} workloads in {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"\nThe uncalibrated merges of the captures:\n\n{diagnose(caps)}\n", flush=True)
    shipped = fit(caps, args.lowest)
    text = f"CALIBRATION = (\n    {shipped[0]},\n    {shipped[1]},\n)"
    (args.out / "calibration.txt").write_text(text + "\n")
    print(f"\nFitted on all {len(work)} workloads (hemkit.merge.joint.CALIBRATION):\n\n{text}\n", flush=True)
    rows = []
    for name, truth in work.items():
        rows += score(name, truth, fit(caps[caps["workload"] != name], args.lowest), args)
    scores = pd.DataFrame(rows)
    scores.to_csv(args.out / "scores.csv", index=False)
    print(f"\nLeft out one workload at a time ({time.perf_counter() - t0:.0f} s):\n\n{report(scores)}")


if __name__ == "__main__":
    main()
