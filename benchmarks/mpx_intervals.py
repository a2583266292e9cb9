"""Intervals on multiplexed totals (issue 26, item 4): coverage and width on workloads held out.

    nice -n 10 .venv/bin/python benchmarks/mpx_intervals.py --out ~/mpx-data/intervals \\
        --set zen5=../shared/data/zen5/traces --set sw=~/mpx-data/traces --folds sw=6 \\
        [--set fresh=~/mpx-data/fresh ...] [--fresh fresh4=~/mpx-data/fresh4]

(Since issue 26's fourth pass the development pool is ``zen5``, ``sw``, ``fresh``, ``fresh2`` and
``fresh3``, every one a ``--set``: each workload's ``q`` comes from all the others.)

For every trace set (a folder of OCOE ``perf stat -I`` files, read with hemkit's reader and
cleaned as in the paper) and C = 2 and 3 counters: emulate multiplexing
(:func:`hemkit.mpx.emulate.emulate`), estimate with each estimator, and compare every
(run, event) total's interval (:func:`hemkit.mpx.totals.total_intervals`) with the true total.

* **Held out.**  The multiplier ``q`` (the ``level`` quantile of ``|error| / scale``) of a
  held-out workload is chosen on every *other* workload of every ``--set`` (leave one workload
  out; ``--folds LABEL=K`` deals a large set's workloads into K folds by name instead).
* **Shipped.**  The quantiles over all the ``--set`` workloads are printed as
  :data:`hemkit.mpx.totals.MULTIPLIERS` (``multipliers.py``); ``--update-package`` writes them
  into ``hemkit/mpx/totals.py`` (commit that file; a new default estimator needs its own entry).
* **Fresh.**  ``--fresh`` sets are scored once with the multipliers the package ships when the
  script starts (nothing chosen on them): after ``--update-package``, run again with ``--fresh`` only.

* **Pooled.**  Every estimator also as ``NAME+pool``: its totals pooled over the runs of each
  workload (:func:`hemkit.mpx.totals.pool_totals`, as ``total_intervals`` does by default), the
  pooled standard error the scale; its multipliers come from the pooled series only (a total
  left as it was keeps the estimator's own interval).
* **With the runs' spread.**  The default estimator also as ``NAME+runs``: each run's own total,
  scaled by :data:`hemkit.mpx.totals.RUNS_SCALE_FORMS` (how far the runs of its workload put the
  event's total, too) where the workload has ``MIN_RUNS`` runs with it, as ``total_intervals``
  scales a total it leaves on its own (``--per-run``).

Reports, per set, C and estimator, and per event: the coverage of the true totals, the median
half-width and the median |error| (both as a share of the true total) and their ratio.
Writes ``series.parquet`` (every series, estimator, C), ``tables.md`` and ``multipliers.py``.
"""

from __future__ import annotations

import argparse
import os
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning
from hemkit.io.traces import read_trace
from hemkit.mpx.emulate import emulate
from hemkit.mpx.evaluation import drop_unseen, workloads_of
from hemkit.mpx.registry import DEFAULT_ESTIMATOR, make_estimator
from hemkit.mpx.scores import markdown_table
from hemkit.mpx.totals import (
    LEVELS,
    POOLED,
    Q_CLASSES,
    RUNS,
    blind_start,
    count_class,
    multiplier,
    multiplier_classes,
    pool_totals,
    runs_scale_applies,
    scale_inputs,
    scale_parts,
)
from hemkit.mpx.traces import clean_runs

ESTIMATORS = list(dict.fromkeys([DEFAULT_ESTIMATOR, "phase", "fixed", "fixed-cumulative", "linear", "growth", "min"]))


def _read(folder: str) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        return clean_runs(read_trace(os.path.expanduser(folder)))


def series_table(
    label: str, folder: str, pmcs: list[int], estimators: list[str], trace: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Every series x C x estimator: truth, total, counted part, scale and |error| / scale (of ``trace``, the
    folder's traces as read already, if given)."""
    tr = _read(folder) if trace is None else trace
    print(f"[{label}] {tr['run'].nunique()} runs of {len(workloads_of(tr))} workloads", flush=True)
    parts = []
    for c in pmcs:
        m, short = drop_unseen(emulate(tr, c))
        if short:
            print(f"[{label}] C = {c}: {len(short)} runs too short for the rotation, left out", flush=True)
        blind = m.without_truth()
        truth = np.nansum(np.where(m.valid, m.truth, np.nan), axis=1)
        inputs = scale_inputs(blind)
        for name in estimators:
            est = make_estimator(name).estimate(blind)
            totals = est.totals()  # an estimator's own totals, where it has them
            sp = scale_parts(blind, totals, inputs)
            t = m.keys[["workload", "run", "event"]].reset_index(drop=True).copy()
            t["set"], t["pmcs"], t["estimator"], t["q_as"] = label, c, name, name
            t["truth"], t["total"] = truth, totals
            for col in ("counted", "scale", "perf_total", "running_fraction", "unseen_start", "steady"):
                t[col] = sp[col].to_numpy()
            t["blind_start"] = sp["blind_start"] = blind_start(blind, est.values)  # its own q in the pooling
            # the default's own totals with the runs' scale where it applies (NAME+runs), once for both uses
            own = _with_runs(t, sp, name) if name == DEFAULT_ESTIMATOR else None
            parts += [t, _pooled(t, sp, name, own)] + ([own] if own is not None else [])
    out = pd.concat(parts, ignore_index=True)
    out["err"] = (out["total"] - out["truth"]).abs()
    tol = 1e-9 * np.maximum(out["truth"].abs(), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["z"] = np.where(
            out["scale"] > 0,
            out["err"] / out["scale"].where(out["scale"] > 0, 1.0),
            np.where(out["err"] <= tol, 0, np.inf),
        )
    out["seen"] = (out["counted"] > 0) | (out["truth"] == 0)
    out["count_class"] = multiplier_classes(  # the multipliers' classes
        out.assign(count_class=count_class(out["counted"].to_numpy(), out["running_fraction"].to_numpy()))
    )
    return out


def _pooled(t: pd.DataFrame, sp: pd.DataFrame, name: str, own: pd.DataFrame | None = None) -> pd.DataFrame:
    """The same series with each total pooled over the runs of its workload (``NAME+pool``), as
    :func:`hemkit.mpx.totals.total_intervals` pools them; the pooled standard error is the scale.  A total
    left as it was keeps its own interval: ``own``, the default estimator's with the runs' spread where that
    applies (:func:`_with_runs`), as ``total_intervals`` gives it (not given: the estimator's own scale)."""
    pooled, pooled_se, runs = pool_totals(t, name, t["total"].to_numpy(), sp)
    own = t if own is None else own
    out = own.copy()
    shared = runs > 1
    out["estimator"] = name + POOLED
    out["q_as"] = np.where(shared, name + POOLED, own["q_as"])
    out["total"] = np.where(shared, pooled, out["total"])
    out["scale"] = np.where(shared, pooled_se, out["scale"])
    return out


def _with_runs(t: pd.DataFrame, sp: pd.DataFrame, name: str) -> pd.DataFrame:
    """The same series, each run's own total, with the scale that also reads how far the runs of its workload
    spread (``NAME+runs``) where :func:`hemkit.mpx.totals.runs_scale_applies` (``MIN_RUNS`` runs of the workload
    with the event that do not truly differ), as ``total_intervals`` scales a total left on its own; the others
    keep the estimator's own interval."""
    with_runs = runs_scale_applies(t, name, t["total"].to_numpy(), sp)
    out = t.copy()
    out["estimator"] = name + RUNS
    out["q_as"] = np.where(with_runs, name + RUNS, name)
    out["scale"] = np.where(with_runs, sp["scale_runs"].to_numpy(), out["scale"])
    return out


def covered(t: pd.DataFrame, q: np.ndarray | float) -> pd.DataFrame:
    """Interval of every row at multiplier q: lower, upper, covered, relative half-width and error."""
    s = t["scale"].to_numpy()
    with np.errstate(invalid="ignore"):
        half = np.where(np.isinf(q), np.inf, np.where(s > 0, q * s, 0.0))
    lower = np.maximum(np.minimum(np.maximum(t["total"] - half, t["counted"]), t["total"]), 0)
    upper = t["total"] + half
    tol = 1e-9 * np.maximum(t["truth"].abs(), 1.0)
    out = t.copy()
    out["q"] = q
    out["lower"], out["upper"] = lower, upper
    out["unbounded"] = np.isinf(upper)
    out["covered"] = (t["truth"] >= lower - tol) & (t["truth"] <= upper + tol)
    pos = t["truth"] > 0
    out["rel_half"] = np.where(pos, (upper - lower) / 2 / t["truth"].where(pos, 1.0), np.nan)
    out["rel_err"] = np.where(pos, t["err"] / t["truth"].where(pos, 1.0), np.nan)
    return out


def held_out(series: pd.DataFrame, folds: dict[str, int], level: float) -> pd.DataFrame:
    """Each workload's intervals with q chosen on every other workload (or fold) of every set."""
    parts = []
    for label, g in series.groupby("set", sort=False):
        names = sorted(g["workload"].unique())
        k = min(folds.get(label, 0) or len(names), len(names))
        for held in (names[i::k] for i in range(k)):
            out_mask = (series["set"] == label) & series["workload"].isin(held)
            train = series[~out_mask]
            test = series[out_mask]
            own = train[train["q_as"] == train["estimator"]]  # a pooled estimator's unpooled rows: no twice
            for (est, cls), tt in test.groupby(["q_as", "count_class"]):
                z = own.loc[(own["estimator"] == est) & (own["count_class"] == cls), "z"].to_numpy()
                q = float(np.quantile(z, level, method="higher")) if len(z) else np.inf
                parts.append(covered(tt, q))
    return pd.concat(parts, ignore_index=True)


def shipped(series: pd.DataFrame, level: float) -> pd.DataFrame:
    """Every row's interval with the multiplier the package ships."""
    parts = [covered(t, multiplier(est, level, cls)) for (est, cls), t in series.groupby(["q_as", "count_class"])]
    return pd.concat(parts, ignore_index=True)


def scores(res: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    g = res.groupby(by, sort=False)
    out = pd.DataFrame(
        {
            "series": g.size(),
            "coverage": g["covered"].mean(),
            "coverage (seen)": g.apply(lambda x: x.loc[x["seen"], "covered"].mean(), include_groups=False),
            "median half-width": g["rel_half"].median(),
            "median |error|": g["rel_err"].median(),
            "unbounded": g["unbounded"].mean(),
        }
    )
    out["width / error"] = out["median half-width"] / out["median |error|"]
    # what an interval of one relative width for every series would need: q90 / median of |error| / truth
    out["|error| q90 / median"] = g["rel_err"].quantile(0.9) / out["median |error|"]
    return out


def pooling(res: pd.DataFrame) -> pd.DataFrame:
    """Per set and C: how much the true totals of a workload's runs differ (median coefficient of
    variation over its events), the default's median |total error| alone and pooled, relative to
    perf's scaling (``fixed``) and end-of-run total (``fixed-cumulative``); coverage and width /
    error of both."""
    own, pooled, runs = DEFAULT_ESTIMATOR, DEFAULT_ESTIMATOR + POOLED, DEFAULT_ESTIMATOR + RUNS
    rows = []
    for (kind, label, c), g in res[res["truth"] > 0].groupby(["kind", "set", "pmcs"], sort=False):
        e = {k: g[g["estimator"] == k] for k in (own, pooled, runs, "fixed", "fixed-cumulative")}
        med = {k: v["rel_err"].median() for k, v in e.items()}
        spread = e["fixed"].groupby(["workload", "event"])["truth"].agg(lambda t: t.std() / t.mean())
        rows.append(
            {
                "set": f"{label} ({kind})",
                "C": c,
                "series": len(e[own]),
                "true totals' CV across runs": spread.median(),
                "default's |total error|": med[own],
                "perf's scaling's": med["fixed"],
                "total vs fixed": med[own] / med["fixed"],
                "pooled vs fixed": med[pooled] / med["fixed"],
                "pooled vs perf's end-of-run": med[pooled] / med["fixed-cumulative"],
                "coverage": e[own]["covered"].mean(),
                "pooled coverage": e[pooled]["covered"].mean(),
                "width / error": e[own]["rel_half"].median() / med[own],
                "with the runs' spread: coverage": e[runs]["covered"].mean() if len(e[runs]) else np.nan,
                "with the runs' spread: width / error": e[runs]["rel_half"].median() / med[own]
                if len(e[runs])
                else np.nan,
                "pooled width / error": e[pooled]["rel_half"].median() / med[pooled],
            }
        )
    return pd.DataFrame(rows).set_index(["set", "C"])


def multipliers_text(series: pd.DataFrame) -> str:
    head = (
        "quantiles of |total - truth| / scale at LEVELS, over every series of "
        + ", ".join(sorted(series["set"].unique()))
        + f" (C = {', '.join(map(str, sorted(series['pmcs'].unique())))})"
    )
    lines = [*("# " + ln for ln in textwrap.wrap(head, 116)), "MULTIPLIERS: dict[str, tuple[float, ...]] = {"]
    # pooled multipliers for the default estimator only: pooling other estimators' totals did not pay on the
    # development pool (phase's got worse: BENCHMARKS.md), so total_intervals does not pool them
    own = series[(series["q_as"] == series["estimator"])]
    kept = [DEFAULT_ESTIMATOR + POOLED, DEFAULT_ESTIMATOR + RUNS]
    own = own[~own["estimator"].str.endswith((POOLED, RUNS)) | own["estimator"].isin(kept)]
    for est, t in own.groupby("estimator", sort=False):
        lines.append(f'    "{est}": {{')
        for cls in Q_CLASSES:
            z = t.loc[t["count_class"] == cls, "z"].to_numpy()
            qs = [float(np.quantile(z, lv, method="higher")) if len(z) else np.inf for lv in LEVELS]
            text = ", ".join("INF" if not np.isfinite(q) else f"{q:.3g}".replace("e+", "e") for q in qs)
            lines.append(f'        "{cls}": ({text}),  # {len(z)} series')
        lines.append("    },")
    return "\n".join([*lines, "}"])


def update_package(text: str) -> Path:
    """Replace the ``MULTIPLIERS`` block of :mod:`hemkit.mpx.totals` (the file imported) by ``text``."""
    import hemkit.mpx.totals as totals

    path = Path(totals.__file__)
    src = path.read_text()
    start = src.index("MULTIPLIERS: dict[")
    head = src.rfind("\n# quantiles of", 0, start) + 1  # the comment written with the table, if it is just above
    if head and all(line.startswith("# ") for line in src[head:start].splitlines()):
        start = head
    end = src.index('"""Quantiles of ``|total - truth|')
    body = text.replace(
        "MULTIPLIERS: dict[str, tuple[float, ...]]", "MULTIPLIERS: dict[str, dict[str, tuple[float, ...]]]"
    )
    path.write_text(src[:start] + body.rstrip() + "\n" + src[end:])
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", default=[], help="LABEL=FOLDER: held out workload by workload")
    ap.add_argument("--fresh", action="append", default=[], help="LABEL=FOLDER: scored once with the shipped q")
    ap.add_argument("--folds", action="append", default=[], help="LABEL=K: folds of workloads for a large set")
    ap.add_argument("--out", default=os.path.expanduser("~/mpx-data/intervals"))
    ap.add_argument("--pmcs", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--level", type=float, default=0.9)
    ap.add_argument("--estimators", nargs="+", default=ESTIMATORS)
    ap.add_argument(
        "--update-package",
        action="store_true",
        help="write the multipliers chosen on the --set traces into hemkit/mpx/totals.py (then score --fresh)",
    )
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    folds = {k: int(v) for k, v in (f.split("=", 1) for f in args.folds)}
    md = [f"level {args.level}; estimators {', '.join(args.estimators)}; C = {args.pmcs}", ""]
    frames = []
    if args.set:
        series = pd.concat(
            [series_table(*s.split("=", 1), args.pmcs, args.estimators) for s in args.set], ignore_index=True
        )
        res = held_out(series, folds, args.level)
        res["kind"] = "held out"
        frames.append(res)
        (out / "multipliers.py").write_text(multipliers_text(series) + "\n")
        print(multipliers_text(series))
        if args.update_package:
            print(f"wrote the multipliers into {update_package(multipliers_text(series))}", flush=True)
    for s in args.fresh:
        fresh = series_table(*s.split("=", 1), args.pmcs, args.estimators)
        res = shipped(fresh, args.level)
        res["kind"] = "fresh (shipped q)"
        frames.append(res)
    allres = pd.concat(frames, ignore_index=True)
    allres.to_parquet(out / "series.parquet")
    for (kind, label), g in allres.groupby(["kind", "set"], sort=False):
        md += [f"#### {label} ({kind}): per C and estimator", ""]
        md += [markdown_table(scores(g, ["pmcs", "estimator"]), 3), ""]
        md += [f"#### {label} ({kind}): default estimator ({DEFAULT_ESTIMATOR}) per count class, C = 2 and 3", ""]
        md += [markdown_table(scores(g[g["estimator"] == DEFAULT_ESTIMATOR], ["count_class"]), 3), ""]
        md += [f"#### {label} ({kind}): default estimator ({DEFAULT_ESTIMATOR}) per workload, C = 2 and 3 pooled", ""]
        md += [markdown_table(scores(g[g["estimator"] == DEFAULT_ESTIMATOR], ["workload"]), 3), ""]
        md += [f"#### {label} ({kind}): default estimator ({DEFAULT_ESTIMATOR}) per event, C = 2 and 3 pooled", ""]
        md += [markdown_table(scores(g[g["estimator"] == DEFAULT_ESTIMATOR], ["event"]), 3), ""]
    md += ["#### Pooling the default's totals over the runs of each workload, per set and C", ""]
    md += [markdown_table(pooling(allres), 3), ""]
    (out / "tables.md").write_text("\n".join(md))
    print("\n".join(md))
    print(f"done in {time.perf_counter() - t0:.0f} s; wrote {out}", flush=True)


if __name__ == "__main__":
    main()
