"""Should the multipliers of multiplexed totals' intervals depend on how steady a series' rate is? (issue 26, item 4)

    OPENBLAS_NUM_THREADS=1 nice -n 5 .venv/bin/python benchmarks/mpx_steady_split.py \\
        --series /tmp/s22/iv-dev25b/series.parquet \\
        --set zen5=../shared/data/zen5/traces --set sw=/work/mpx-data/traces --set fresh=/work/mpx-data/fresh ...

``--series`` is the ``series.parquet`` of a ``benchmarks/mpx_intervals.py`` run (every series, estimator and C,
with ``z = |error| / scale`` and its count class); ``--set`` names the same trace folders, from which each series'
*relative rate change* is read again, from the multiplexed data alone: ``S / mean``, the root mean square change of
perf's per-interval value ``raw x enabled / running`` from one counted slice to the next over sqrt(2) (the scale's
``S``), over the slices' mean value, on at least 3 slices (NaN with fewer, or a mean of 0).

Each variant cuts the count classes by that feature (Mondrian conformal: each cut class its own multiplier) and is
scored as ``mpx_intervals.py`` scores the shipped classes: every workload's ``q`` (the 90 % quantile of ``z`` in
its class) from every *other* workload of every set (``sw`` in 6 folds), then per set and C the coverage and the
median half-width over the median |error|, for the default estimator each run alone with the runs' spread
(``checked+runs``) and pooled (``checked+pool``).  Reported: the geometric mean of width / error over the cells, the
lowest coverage, the cells at or under 3x and those below 0.85.  What ships (:data:`hemkit.mpx.totals.STEADY`) is one
cut at 1 of the classes ``some``, ``some-half`` and ``many``, series on fewer than 3 slices with the bursty ones.
A ``series.parquet`` written after that split has ``-steady`` classes: they are taken off first.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from hemkit.mpx.emulate import emulate
from hemkit.mpx.evaluation import drop_unseen
from hemkit.mpx.scores import markdown_table
from hemkit.mpx.totals import STEADY, STEADY_SLICES, _slice_changes
from mpx_intervals import _read, held_out  # benchmarks run as scripts from this folder

KEYS = ["set", "pmcs", "workload", "run", "event"]
SCORED = ("checked+runs", "checked+pool")


def relative_change(folder: str, label: str, pmcs: tuple[int, ...] = (2, 3)) -> pd.DataFrame:
    """Each series' ``S / mean`` (the module docstring; ``S`` as the package reads it) and its slices, per C."""
    tr = _read(folder)
    parts = []
    for c in pmcs:
        m, _ = drop_unseen(emulate(tr, c))
        b = m.without_truth()
        y, _, _, _, change = _slice_changes(b)
        n = b.observed.sum(axis=1)
        mean = y.sum(axis=1) / np.maximum(n, 1)
        t = m.keys[["workload", "run", "event"]].reset_index(drop=True)
        t.insert(0, "pmcs", c)
        t.insert(0, "set", label)
        t["slices"] = n
        with np.errstate(invalid="ignore", divide="ignore"):
            t["rel_change"] = np.where((n >= STEADY_SLICES) & (mean > 0), change / mean, np.nan)
        parts.append(t)
    return pd.concat(parts, ignore_index=True)[[*KEYS, "slices", "rel_change"]]


def score(res: pd.DataFrame) -> dict[str, tuple[float, float, int, int]]:
    out = {}
    for est in SCORED:
        g = res[res["estimator"] == est].groupby(["set", "pmcs"])
        w = g["rel_half"].median() / g["rel_err"].median()
        cov = g["covered"].mean()
        out[est] = (float(np.exp(np.log(w).mean())), float(cov.min()), int((w <= 3).sum()), int((cov < 0.85).sum()))
    return out


def variants(d: pd.DataFrame) -> dict[str, np.ndarray]:
    """The class of every row under each variant tried (the shipped one is ``cut 1, some/some-half/many``)."""
    base = d["count_class"].astype(str).to_numpy()
    root = np.array([c.removesuffix("-start") for c in base])
    rel = d["rel_change"].to_numpy(float)
    out: dict[str, np.ndarray] = {"one class (as before)": base}

    def cut(edges: list[float], na_apart: bool = True) -> np.ndarray:
        b = np.digitize(np.nan_to_num(rel, nan=-1.0), edges).astype(str)
        tag = np.where(np.isnan(rel), "na" if na_apart else str(len(edges)), b)
        return np.char.add(np.char.add(base, "|"), tag)

    for edges in ([0.3], [0.2, 1.0], [0.15, 1.0], [0.1, 1.0], [0.15, 1.5], [0.15, 0.5, 1.5], [1.0], [0.15, 1.0, 3.0]):
        out[f"cut at {edges}, fewer than 3 slices apart"] = cut(edges)
    steady = ~np.isnan(rel) & (rel < 1.0)
    for name, split in (
        ("some, some-half, many", ("some", "some-half", "many")),
        ("... and few", ("some", "some-half", "many", "few")),
        ("... and huge", ("some", "some-half", "many", "huge")),
        ("every class", ("few", "some", "some-half", "many", "huge")),
    ):
        out[f"cut at 1 of {name}"] = np.where(steady & np.isin(root, split), np.char.add(base, STEADY), base)
    # a continuous alternative: the scale times the feature to a power (one class as before)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--series", required=True, help="series.parquet of benchmarks/mpx_intervals.py")
    ap.add_argument("--set", action="append", default=[], metavar="LABEL=FOLDER", help="the trace sets it scored")
    ap.add_argument("--level", type=float, default=0.9)
    args = ap.parse_args(argv)
    d = pd.read_parquet(args.series)
    d = d[d["estimator"].isin(["checked", *SCORED])].copy()
    d["count_class"] = d["count_class"].astype(str).str.removesuffix(STEADY)
    d = d.drop(columns=[c for c in ("q", "lower", "upper", "unbounded", "covered", "rel_half", "rel_err") if c in d])
    feats = pd.concat([relative_change(f, lab) for lab, f in (s.split("=", 1) for s in args.set)], ignore_index=True)
    d = d.merge(feats, on=KEYS, how="left")
    if d["slices"].isna().any():
        missing = sorted(d.loc[d["slices"].isna(), "set"].unique())
        raise SystemExit(f"no traces given for the series of {', '.join(missing)}: pass them with --set")
    print(f"{len(d)} rows, {d.groupby(['set', 'workload']).ngroups} workloads, {d['set'].nunique()} sets", flush=True)
    rows = []
    for name, classes in variants(d).items():
        res = held_out(d.assign(count_class=classes), {"sw": 6}, args.level)
        for est, (w, cov, under, low) in score(res).items():
            rows.append(
                {
                    "variant": name,
                    "estimator": est,
                    "width / error": w,
                    "lowest coverage": cov,
                    "cells <= 3x": under,
                    "cells < 0.85": low,
                }
            )
        print(name, flush=True)
    s0 = d["scale"].to_numpy(float)
    for a in (0.25, 0.5):
        adj = np.where(np.isfinite(d["rel_change"]), d["rel_change"].clip(0.02, 10), 1.0) ** a
        res = held_out(d.assign(scale=s0 * adj), {"sw": 6}, args.level)
        for est, (w, cov, under, low) in score(res).items():
            rows.append(
                {
                    "variant": f"scale x (S / mean)^{a}",
                    "estimator": est,
                    "width / error": w,
                    "lowest coverage": cov,
                    "cells <= 3x": under,
                    "cells < 0.85": low,
                }
            )
    out = pd.DataFrame(rows).pivot(index="variant", columns="estimator")
    out.columns = [f"{est}: {what}" for what, est in out.columns]
    print(markdown_table(out, 3))


if __name__ == "__main__":
    main()
