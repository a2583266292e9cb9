"""Multiplexing estimators on workloads held out from every choice (issues 13 and 26).

    nice -n 10 .venv/bin/python benchmarks/mpx_eval.py --out ~/mpx-data/eval --folds 6 --no-dtw \\
        --set zen5=../shared/data/zen5/traces --set sw=~/mpx-data/traces
    nice -n 10 .venv/bin/python benchmarks/mpx_eval.py --out ~/mpx-data/eval-fresh --no-dtw \\
        --set fresh=~/mpx-data/fresh:~/mpx-data/traces
    nice -n 10 .venv/bin/python benchmarks/mpx_eval.py --out ~/mpx-data/eval-pool --no-dtw --learned \\
        --set pool=sw=~/mpx-data/traces+fresh=~/mpx-data/fresh+fresh2=~/mpx-data/fresh2+fresh3=~/mpx-data/fresh3
    nice -n 10 .venv/bin/python benchmarks/mpx_eval.py --out ~/mpx-data/eval-fresh4 --no-dtw --learned \\
        --set fresh4=~/mpx-data/fresh4:~/mpx-data/traces+~/mpx-data/fresh+~/mpx-data/fresh2+~/mpx-data/fresh3

For every trace set (a folder of OCOE ``perf stat -I 10`` files; the sets have different
events, so each is scored on its own) and every counter count C (2, 3; the runs have 5
events):

* The traces are read with hemkit's reader (wrap-arounds repaired) and cleaned as in the paper
  (tail cut, broken runs against the median run).
* **Leave one workload out** (or folds of several, ``--folds``; or, ``LABEL=FOLDER:TRAIN``,
  the whole set held out with every choice made on another; ``TRAIN`` may join several folders
  of the same events with ``+``).  A *pool* ``LABEL=A=FOLDER_A+B=FOLDER_B...`` puts sets of the
  same events together: every workload is held out from choices made on all the others (of
  every set), and the tables are per set.  For each held-out part, on
  the *other* workloads only:

  - ``phase-lowo``: the phase estimator's ``sharpness`` and ``balance`` (largest mean error
    cut against ``fixed`` among the settings whose median |total error| is at most 1.1 x
    fixed's);
  - ``checked-lowo``: the self-checked estimator's candidates, the series set and temperature
    with the largest mean error cut and the totals set with the smallest worst (over C) median
    |total error| relative to fixed's (``SERIES_SETS``, ``TEMPERATURES``, ``TOTALS_SETS``);
  - the learned estimators, fitted with ``hemkit mpx fit``'s library function (split by
    workload, early stopping on validation loss, normalisation from training data).  Their
    totals are checked on hidden slices (``mlp``); ``mlp-sum`` is the same series scored on
    its own sum.  ``checked+pool``: the default's series, each total pooled over the runs of its
    workload (:func:`hemkit.mpx.totals.pool_totals`), as ``hemkit mpx estimate --totals`` pools
    them; ``mlp+pool``: the MLP's pooled the same way, its runs weighed by the widest listed
    estimator's multipliers (a variant measured, not shipped: BENCHMARKS.md).

  Then every estimator is scored on the held-out workloads, which nothing was tuned on.
  ``checked`` and ``phase`` are the shipped defaults.
* Scores per series: RA (Eq. 4), DTW-cost on log10 counts (unless ``--no-dtw``), |total
  error| (of the estimator's own total where it estimates one apart from its series).
  Tables per set and C: mean RA, error cut against fixed, median |total error| and its
  ratio to fixed's (``total_vs_baseline``) and to perf's end-of-run scaled total
  (``total_vs_perf``, the ``fixed-cumulative`` estimator), the worst event's RA difference
  to fixed; per event, RA minus fixed's and median |total error| over fixed's.

Writes ``scores.parquet`` (every series x estimator x C), ``tables.md`` and ``choices.csv``
(the settings chosen per held-out workload).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning
from hemkit.io.traces import read_trace
from hemkit.mpx.checked import CheckedEstimation, series_and_totals
from hemkit.mpx.emulate import emulate
from hemkit.mpx.evaluation import drop_unseen, select_workloads, workloads_of
from hemkit.mpx.fitting import FitOptions, fit_estimator
from hemkit.mpx.learned import TrainOptions
from hemkit.mpx.phase import PhaseInterpolation
from hemkit.mpx.registry import make_estimator
from hemkit.mpx.scores import markdown_table, rank_estimators, score_table
from hemkit.mpx.totals import POOLED, blind_start, pool_totals, scale_inputs, scale_parts
from hemkit.mpx.traces import clean_runs

SIMPLE = ["fixed", "fixed-cumulative", "linear", "growth", "min", "phase", "checked"]
GRID = list(itertools.product([0.5, 1.0, 2.0], [0.0, 0.25, 0.5]))  # phase sharpness x balance
# candidates of the self-checked estimator and how they are put together, chosen per fold on the training workloads
SERIES_SETS = [
    ("phase",),
    ("phase", "min"),
    ("phase", "min", "zero"),
    ("phase", "min", "zero", "growth"),
    ("phase", "min", "zero", "local"),
    ("phase", "min", "zero", "local4", "local"),
    ("phase", "min", "zero", "local6", "local"),
    ("phase", "min", "zero", "local8"),
    ("phase", "min", "zero", "local4", "local", "phase*"),
]
TEMPERATURES = [0.0, 0.005, 0.01, 0.02, 0.03, 0.05]
TOTALS_SETS = [("phase",), ("linear",), ("phase", "linear"), ("phase", "linear", "fixed")]


def grid_scores(tr: pd.DataFrame, pmcs: list[int]) -> pd.DataFrame:
    """RA and total error (no DTW) of fixed and every phase setting, per series, on every workload."""
    parts = []
    for c in pmcs:
        m, _ = drop_unseen(emulate(tr, c))
        blind = m.without_truth()
        ests = {"fixed": make_estimator("fixed").estimate_array(blind)}
        for s, b in GRID:
            ests[f"phase:{s}:{b}"] = PhaseInterpolation(sharpness=s, balance=b).estimate_array(blind)
        sc = score_table(m, ests, dtw=False)
        sc["pmcs"] = c
        parts.append(sc)
    return pd.concat(parts, ignore_index=True)


def checked_grid_scores(tr: pd.DataFrame, pmcs: list[int]) -> pd.DataFrame:
    """RA and total error of fixed and of every candidate set of the self-checked estimator, on every workload.

    Each series' choice depends on that series alone, so every candidate is run (and checked on
    hidden slices) once over all workloads and the sets are put together from the pieces
    (:func:`hemkit.mpx.checked.series_and_totals`, as the estimator itself does).
    """
    every = CheckedEstimation(
        series=list(dict.fromkeys(n for names in SERIES_SETS for n in names)),
        totals=list(dict.fromkeys(n for names in TOTALS_SETS for n in names)),
    )
    parts = []
    for c in pmcs:
        m, _ = drop_unseen(emulate(tr, c))
        blind = m.without_truth()
        values, checks = every.checks(blind)
        ests, tots = {"fixed": make_estimator("fixed").estimate_array(blind)}, {}
        for k, names in enumerate(SERIES_SETS):
            for temp in TEMPERATURES:
                ests[f"series:{k}:{temp}"] = series_and_totals(blind, values, checks, names, ("phase",), temp)[0]
        for k, names in enumerate(TOTALS_SETS):
            ests[f"totals:{k}"] = values["phase"]
            tots[f"totals:{k}"] = series_and_totals(blind, values, checks, ("phase",), names, 0.0)[1]
        sc = score_table(m, ests, dtw=False, totals=tots)
        sc["pmcs"] = c
        parts.append(sc)
    return pd.concat(parts, ignore_index=True)


def choose_checked(grid: pd.DataFrame) -> tuple[int, float, int]:
    """The series set and temperature with the largest mean error cut; the totals set with the smallest worst ratio."""

    def per_c(name: str, f: object) -> list[float]:
        out = []
        for _, g in grid.groupby("pmcs"):
            out.append(f(g[g["estimator"] == name], g[g["estimator"] == "fixed"]))  # type: ignore[operator]
        return out

    options = [(k, t) for k in range(len(SERIES_SETS)) for t in TEMPERATURES]
    cut = [
        float(np.mean(per_c(f"series:{k}:{t}", lambda p, f: 1 - (1 - p["ra"].mean()) / (1 - f["ra"].mean()))))
        for k, t in options
    ]
    ratio = [
        float(np.max(per_c(f"totals:{k}", lambda p, f: p["total_error"].median() / f["total_error"].median())))
        for k in range(len(TOTALS_SETS))
    ]
    ks, temp = options[int(np.argmax(cut))]  # ties: the first (fewer candidates, lower temperature)
    return ks, temp, int(np.argmin(ratio))


def choose(grid: pd.DataFrame) -> tuple[float, float]:
    """The phase setting with the largest mean error cut among those honest on totals (<= 1.1 x fixed)."""
    best, best_cut = None, -np.inf
    cuts, ok = {}, {}
    for s, b in GRID:
        name = f"phase:{s}:{b}"
        cut_c, ok_c = [], []
        for _, g in grid.groupby("pmcs"):
            f = g[g["estimator"] == "fixed"]
            p = g[g["estimator"] == name]
            cut_c.append(1 - (1 - p["ra"].mean()) / (1 - f["ra"].mean()))
            ok_c.append(p["total_error"].median() <= 1.1 * f["total_error"].median())
        cuts[(s, b)], ok[(s, b)] = float(np.mean(cut_c)), all(ok_c)
    for key in GRID:
        if ok[key] and cuts[key] > best_cut:
            best, best_cut = key, cuts[key]
    if best is None:  # nothing honest on totals: the one with the largest cut among the most balanced
        best = max((k for k in GRID if k[1] == max(b for _, b in GRID)), key=lambda k: cuts[k])
    return best


def learned(name: str, epochs: int) -> object:
    train = TrainOptions(epochs=epochs, patience=5, seed=0, threads=1)
    if name == "bigru":
        return make_estimator("bigru", hidden=32, layers=2, train=train)
    return make_estimator("mlp", train=train)


def _read(folder: str) -> pd.DataFrame:
    """One folder of traces, or several joined by ``+`` (the same events; workload names must differ)."""
    parts = []
    for f in folder.split("+"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            parts.append(clean_runs(read_trace(os.path.expanduser(f))))
    if len(parts) > 1:
        seen = [set(workloads_of(p)) for p in parts]
        if any(a & b for a, b in itertools.combinations(seen, 2)):
            raise SystemExit(f"workload names repeat across the folders of {folder}")
    return pd.concat(parts, ignore_index=True)


def evaluate_set(
    label: str, folder: str, train_folder: str | None, args: argparse.Namespace
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Score one trace set: leave one workload (or fold) out, or train on ``train_folder`` and hold out all."""
    origin: dict[str, str] = {}
    if "=" in folder:  # a pool of labelled sets, LABEL=FOLDER+LABEL=FOLDER..., held out together and scored per set
        specs = [f.split("=", 1) for f in folder.split("+")]
        frames = [_read(f) for _, f in specs]
        origin = {w: lab for (lab, _), fr in zip(specs, frames, strict=True) for w in workloads_of(fr)}
        tr = pd.concat(frames, ignore_index=True)
    else:
        tr = _read(folder)
    names = workloads_of(tr)
    print(f"[{label}] {tr['run'].nunique()} runs of {len(names)} workloads: {', '.join(names)}", flush=True)
    t0 = time.perf_counter()
    if train_folder:  # every workload of the set is held out; choices and models come from another set
        other = _read(train_folder)
        tr_all = pd.concat([other.assign(workload="train:" + other["workload"].astype(str)), tr], ignore_index=True)
        folds = [names]
    else:
        tr_all = tr
        k = min(args.folds, len(names)) if args.folds else len(names)
        folds = [names[i::k] for i in range(k)]  # deterministic: workloads dealt round-robin by name
    grid = grid_scores(tr_all, args.pmcs)
    cgrid = checked_grid_scores(tr_all, args.pmcs)
    print(f"[{label}] phase and checked grids scored in {time.perf_counter() - t0:.0f} s", flush=True)
    parts, choices, timing = [], [], {"fit_seconds": {}, "estimates_per_second": {}}
    for held in folds:
        train_tr = tr_all[~tr_all["workload"].isin(held)]
        s, b = choose(grid[~grid["workload"].isin(held)])
        ks, temp, kt = choose_checked(cgrid[~cgrid["workload"].isin(held)])
        choices += [
            {
                "set": label,
                "workload": w,
                "sharpness": s,
                "balance": b,
                "checked_series": "+".join(SERIES_SETS[ks]),
                "checked_temperature": temp,
                "checked_totals": "+".join(TOTALS_SETS[kt]),
            }
            for w in held
        ]
        models = {}
        for name in args.learned:
            t1 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", HemkitWarning)
                fit = fit_estimator(
                    train_tr,
                    learned(name, args.epochs),
                    FitOptions(pmcs=tuple(args.pmcs), split=(7, 1, 0), clean=False),
                )
            models[name] = fit.estimator
            timing["fit_seconds"].setdefault(name, []).append(time.perf_counter() - t1)
            print(
                f"[{label}] held out {','.join(held)}: {name} trained {len(fit.history)} epochs "
                f"(kept {fit.estimator.best_epoch_}) in {time.perf_counter() - t1:.0f} s",
                flush=True,
            )
        test_tr = select_workloads(tr, held)
        for c in args.pmcs:
            m, short = drop_unseen(emulate(test_tr, c))
            if short:
                print(f"[{label}] C = {c}: {len(short)} runs too short for the rotation, not scored", flush=True)
            blind = m.without_truth()
            ests = {n: make_estimator(n) for n in SIMPLE}
            ests["phase-lowo"] = PhaseInterpolation(sharpness=s, balance=b)
            ests["checked-lowo"] = CheckedEstimation(series=SERIES_SETS[ks], totals=TOTALS_SETS[kt], temperature=temp)
            ests.update(models)
            values, totals = {}, {}
            for n, est in ests.items():
                t1 = time.perf_counter()
                values[n], totals[n] = est.estimate_with_totals(blind)
                timing["estimates_per_second"].setdefault(n, []).append(m.valid.sum() / (time.perf_counter() - t1))
            for n in models:  # the network's own sums, for comparison with its checked totals
                values[f"{n}-sum"] = values[n]
            inputs = scale_inputs(blind)  # what the scales share, made once for every pooled estimator
            for n in ("checked", *models):  # totals pooled over each workload's runs (shipped for checked only)
                sp = scale_parts(blind, totals[n], inputs)
                sp["blind_start"] = blind_start(blind, values[n])  # each run's own multiplier, as the package
                pooled = pool_totals(m.keys, n, totals[n], sp)[0]
                values[n + POOLED], totals[n + POOLED] = values[n], pooled
            sc = score_table(m, values, dtw=not args.no_dtw, totals=totals)
            sc["pmcs"] = c
            sc["set"] = sc["workload"].astype(str).map(origin).fillna(label) if origin else label
            parts.append(sc)
        print(f"[{label}] held out {','.join(held)} scored ({time.perf_counter() - t0:.0f} s so far)", flush=True)
    return pd.concat(parts, ignore_index=True), pd.DataFrame(choices), timing


PER_EVENT = ["checked", "phase", "mlp"]  # the estimators of the per-event tables (against fixed)


def tables(scores: pd.DataFrame) -> str:
    """Markdown: per set and C, the ranking and a per-event table; per set, RA per workload and per event."""
    md = []
    for label, g in scores.groupby("set", sort=False):
        for c, gc in g.groupby("pmcs"):
            r = rank_estimators(gc, "fixed")
            if "fixed-cumulative" in r.index:
                r["total_vs_perf"] = r["total_error"] / r.loc["fixed-cumulative", "total_error"]
            cols = ["ra", "error_cut", "dtw", "total_error", "total_vs_baseline", "total_vs_perf", "worst_event_ra"]
            cols = [k for k in cols if k in r.columns and r[k].notna().any()]  # no DTW column when not computed
            md += [f"#### {label}, C = {c} ({gc['workload'].nunique()} held-out workloads)", ""]
            md += [markdown_table(r.sort_values("error", kind="stable")[cols], 3), ""]
            ev = gc.pivot_table(index="event", columns="estimator", values="ra")
            tot = gc.pivot_table(index="event", columns="estimator", values="total_error", aggfunc="median")
            names = [n for n in PER_EVENT if n in ev.columns]
            per = pd.DataFrame({"fixed RA": ev["fixed"]})
            for n in names:
                per[f"{n} RA - fixed"] = ev[n] - ev["fixed"]
            per["fixed total err"] = tot["fixed"]
            for n in names + [n + "-sum" for n in names if n + "-sum" in tot.columns]:
                per[f"{n} total / fixed"] = tot[n] / tot["fixed"]
            md += [
                f"#### {label}, C = {c}: per event, mean RA against fixed's and median |total error| over fixed's",
                "",
            ]
            md += [markdown_table(per, 3), ""]
        md += [f"#### {label}: RA per workload (C = 2 and 3 pooled)", ""]
        md += [markdown_table(g.pivot_table(index="workload", columns="estimator", values="ra"), 3), ""]
        md += [f"#### {label}: RA per event (C = 2 and 3 pooled)", ""]
        md += [markdown_table(g.pivot_table(index="event", columns="estimator", values="ra"), 3), ""]
    return "\n".join(md)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        help="LABEL=FOLDER of OCOE trace files, or LABEL=FOLDER:TRAIN_FOLDER to hold out all of FOLDER "
        "and choose/fit on TRAIN_FOLDER (several folders of the same events joined by +); "
        "LABEL=A=FOLDER_A+B=FOLDER_B...: a pool of sets held out together (leave one workload out "
        "or --folds across the pool), scored per set",
    )
    ap.add_argument("--out", default=os.path.expanduser("~/mpx-data/eval"))
    ap.add_argument("--pmcs", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--learned", nargs="*", default=["mlp"], help="learned estimators to fit per fold (mlp, bigru)")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--folds", type=int, default=0, help="folds of workloads (0: leave one workload out)")
    ap.add_argument("--no-dtw", action="store_true")
    ap.add_argument("--tables", nargs="+", metavar="SCORES", help="only write tables.md from scores.parquet files")
    args = ap.parse_args()
    if args.tables:
        text = tables(pd.concat([pd.read_parquet(p) for p in args.tables], ignore_index=True))
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "tables.md").write_text(text)
        print(text)
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    all_scores, all_choices, timing = [], [], {}
    for spec in args.set:
        label, folders = spec.split("=", 1)
        folder, _, train = folders.partition(":")
        sc, ch, tm = evaluate_set(label, folder, train or None, args)
        all_scores.append(sc)
        all_choices.append(ch)
        timing[label] = {k: {n: float(np.median(v)) for n, v in d.items()} for k, d in tm.items()}
        pd.concat(all_scores).to_parquet(out / "scores.parquet", index=False)
    scores = pd.concat(all_scores, ignore_index=True)
    pd.concat(all_choices).to_csv(out / "choices.csv", index=False)
    (out / "tables.md").write_text(tables(scores))
    (out / "timing.json").write_text(json.dumps(timing, indent=1))
    print(tables(scores))
    print(json.dumps(timing, indent=1))


if __name__ == "__main__":
    main()
