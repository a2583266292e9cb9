"""Which parts make the scale of a multiplexed total's interval, per count class (issue 26, item 4).

    nice -n 10 .venv/bin/python benchmarks/mpx_interval_scales.py --out ~/mpx-data/iscales-pool \\
        --set zen5=../shared/data/zen5/traces --set sw=~/mpx-data/traces --set fresh=~/mpx-data/fresh \\
        --set fresh2=~/mpx-data/fresh2 --set fresh3=~/mpx-data/fresh3 --folds sw=6 --size 4

The interval of a total is ``total +- q x scale`` (:mod:`hemkit.mpx.totals`).  This script
chooses, for each count class, which parts of what a run shows make the scale -- one part or
the geometric mean of two (``--size 2``), or a weighted geometric mean with weights in steps of
``1 / size`` (a part repeated: ``--size 4``) -- by **nested** leave-one-workload-out: for every
held-out workload (or fold of workloads, ``--folds``), the forms are chosen on the other
workloads of every set (coordinate descent over the classes, two sweeps, minimising the sum over
sets and C of ``log(median half-width / median |error|)`` with ``q`` the level quantile of
``|error| / scale`` per class on those workloads), then ``q`` is taken on them, and the
held-out workload is scored.  The same choice made on every workload is what
:data:`hemkit.mpx.totals.SCALE_FORMS` ships (checked again, with the shipped forms and ``q``
held out, by ``benchmarks/mpx_intervals.py``).

Parts (all from the multiplexed run alone, for the default estimator's totals; the first six
from :func:`hemkit.mpx.totals.scale_parts`):

* ``base``: the scale of issue 26's first intervals, ``sqrt(S^2 sum U^2 + sum (U dy)^2 + d^2)``;
* ``gap_jumps``: ``sqrt(sum (U dy)^2)`` alone;
* ``hidden``: phase's relative error on hidden block sums x (total - counted);
* ``hidden_chosen``: the same for the totals candidate `checked` chose;
* ``spread``: range of the gap counts of phase, linear, fixed and min;
* ``spread_candidates``: range of the gap counts of `checked`'s series candidates (but zero);
* tried and not kept (``--parts`` takes them): ``spread_phase_min`` (|gap counts of phase - of
  min|), ``spread_totals`` (|phase - linear|), ``hidden_worst`` (the larger of the two totals
  candidates' hidden errors), ``series_vs_total`` (|sum of `checked`'s series - its total|),
  ``hidden_slices`` (the best series candidate's mean relative error on hidden slices x the
  estimated part), ``poisson`` (the square root of the estimated part);
* how far the *other runs* of the workload put the same event's total, ``runs_sd``, ``runs_mad``,
  ``runs_loo`` (:func:`runs_parts`; ``--parts`` takes them): the forms chosen with them on every
  workload are :data:`hemkit.mpx.totals.RUNS_SCALE_FORMS`, for series whose workload has several runs.

``--runs-excess T ...`` scores, with each set left out whole and the forms as shipped, the thresholds of
:func:`hemkit.mpx.totals.runs_excess` above which a series keeps the run's own scale instead of
:data:`hemkit.mpx.totals.RUNS_SCALE_FORMS` (``RUNS_EXCESS`` was chosen so; BENCHMARKS.md, thirteenth pass).

``--learned-scale`` instead scores, against the shipped forms (their ``q`` held out the same way), a scale
learned per count class: ordinary least squares (ridge ``--ridge`` on standardised features) of
``log(max(|error|, floor x total) / total)`` on the log of every part over the total, the log of the counted
part over the total, the running fraction and the log of the total, fitted on the other workloads of every
set (tried in the twelfth session on issue 26 and not kept: BENCHMARKS.md).

Writes ``parts.parquet`` (read back instead of recomputed when ``--out`` already holds it) and ``choice.md``
(chosen forms per fold, held-out coverage and width / error, the forms chosen on every workload).
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd

from hemkit.mpx.checked import CheckedEstimation, series_and_totals
from hemkit.mpx.emulate import emulate
from hemkit.mpx.evaluation import drop_unseen
from hemkit.mpx.phase import INTERPOLATIONS
from hemkit.mpx.registry import DEFAULT_ESTIMATOR, make_estimator
from hemkit.mpx.scores import markdown_table
from hemkit.mpx.totals import (
    COUNT_CLASSES,
    POOL_LEVEL,
    RUNS_PARTS,
    RUNS_SCALE_FORMS,
    SCALE_FORMS,
    runs_excess,
    runs_spread,
    scale_inputs,
    scale_parts,
)
from mpx_intervals import _read

PARTS = ["base", "gap_jumps", "hidden", "hidden_chosen", "spread", "spread_candidates"]
# parts tried and not kept: |phase - min| of the gaps (second pass); in the fourth pass (issue 26) further
# disagreements and checks of the self-checked estimator's candidates, and a Poisson term
NEW_PARTS = ["spread_phase_min", "spread_totals", "hidden_worst", "series_vs_total", "hidden_slices", "poisson"]


def runs_parts(t: pd.DataFrame) -> pd.DataFrame:
    """The spread of the default's totals over the runs of each workload and event, per series, per set and C.

    ``runs_sd``, ``runs_mad`` and ``runs_loo`` of :func:`hemkit.mpx.totals.runs_spread` (what the package reads
    where a workload has ``MIN_RUNS`` runs with the event; the traces here have 3 or 4 a workload).
    """
    t = t.copy()
    for _, g in t.groupby(["set", "pmcs"], sort=False):
        spread = runs_spread(g[["workload", "event"]].reset_index(drop=True), g["total"].to_numpy())
        for c in RUNS_PARTS:
            t.loc[g.index, c] = spread[c].to_numpy()
    return t


CLASSES = [c for c in COUNT_CLASSES if c != "none"]  # none: no upper bound whatever the scale


def parts_table(label: str, folder: str, pmcs: list[int]) -> pd.DataFrame:
    """Every series x C: truth, the default estimator's total, its counted part, class and every part."""
    tr = _read(folder)
    out = []
    est = make_estimator(DEFAULT_ESTIMATOR)
    assert isinstance(est, CheckedEstimation), "the candidate parts read the self-checked estimator's candidates"
    s_names = [str(n) for n in est.series]
    t_names = [str(n) for n in est.totals]
    for c in pmcs:
        m, _ = drop_unseen(emulate(tr, c))
        blind = m.without_truth()
        values, checks = est.checks(blind)
        series, totals = series_and_totals(blind, values, checks, s_names, t_names, est.temperature)
        inputs = scale_inputs(blind)
        sp = scale_parts(blind, totals, inputs)
        gap = blind.valid & ~blind.known
        gsum = {n: np.where(gap, v, 0.0).sum(axis=1) for n, v in values.items()}
        gsum["min"] = np.where(gap, INTERPOLATIONS["min"]().estimate_array(blind), 0.0).sum(axis=1)
        worst = np.max(np.vstack([checks[n][1] for n in t_names]), axis=0)
        mass = np.maximum(totals - sp["counted"].to_numpy(), 0.0)
        mass = np.where(mass > 0, mass, inputs["phase_gap"].to_numpy(float))
        t = m.keys[["workload", "run", "event"]].reset_index(drop=True).copy()
        t["set"], t["pmcs"] = label, c
        t["truth"] = np.nansum(np.where(m.valid, m.truth, np.nan), axis=1)
        t["total"] = totals
        lib = ("base", "gap_jumps", "hidden", "hidden_chosen", "spread", "spread_candidates")
        for col in ("counted", "count_class", "running_fraction", *lib):
            t[col] = sp[col].to_numpy()
        t["spread_phase_min"] = np.abs(gsum["phase"] - gsum["min"])
        # further candidates' disagreement and checks, tried in the fourth pass (issue 26) and not kept
        t["spread_totals"] = np.abs(gsum[t_names[0]] - gsum[t_names[-1]])
        t["hidden_worst"] = np.where(np.isfinite(worst), np.minimum(worst, 10.0), 10.0) * mass
        t["series_vs_total"] = np.abs(np.where(blind.valid, series, 0.0).sum(axis=1) - totals)
        t["hidden_slices"] = np.min(np.vstack([checks[n][0] for n in s_names]), axis=0) * mass
        t["poisson"] = np.sqrt(mass)
        out.append(t)
        print(f"[{label}] C = {c}: {len(t)} series", flush=True)
    return pd.concat(out, ignore_index=True)


class Folds:
    """The held-out folds and a fast scorer of a per-class choice of forms."""

    def __init__(self, t: pd.DataFrame, folds: dict[str, int], level: float, parts: list[str] = PARTS, size: int = 2):
        self.t, self.level, self.parts, self.size = t, level, parts, size
        self.err = (t["total"] - t["truth"]).abs().to_numpy()
        self.truth, self.total, self.counted = (t[c].to_numpy(float) for c in ("truth", "total", "counted"))
        self.cls = t["count_class"].to_numpy()
        self.group = (t["set"] + " C=" + t["pmcs"].astype(str)).to_numpy()
        self.tol = 1e-9 * np.maximum(np.abs(self.truth), 1.0)
        self.fold = np.empty(len(t), dtype=object)
        for label, g in t.groupby("set", sort=False):
            names = sorted(g["workload"].unique())
            k = min(folds.get(label, 0) or len(names), len(names))
            for i in range(k):
                self.fold[g.index[g["workload"].isin(names[i::k])]] = f"{label} {i + 1}/{k}"
        self.part = {p: t[p].to_numpy(float) for p in parts}

    def scale(self, forms: dict[str, tuple[str, ...]]) -> np.ndarray:
        s = self.part["base"].copy()
        for c, form in forms.items():
            here = self.cls == c
            s[here] = np.prod([self.part[p][here] for p in form], axis=0) ** (1 / len(form))
        return s

    def intervals(self, s: np.ndarray, train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(s > 0, self.err / np.where(s > 0, s, 1.0), np.where(self.err <= self.tol, 0.0, np.inf))
        q = np.full(len(s), np.inf)
        for c in CLASSES:
            here = self.cls == c
            if (here & train).any():
                q[here] = np.quantile(z[here & train], self.level, method="higher")
        with np.errstate(invalid="ignore"):
            half = np.where(np.isinf(q), np.inf, np.where(s > 0, q * s, 0.0))
        lower = np.maximum(np.minimum(np.maximum(self.total - half, self.counted), self.total), 0.0)
        return lower, self.total + half

    def loss(self, s: np.ndarray, train: np.ndarray) -> float:
        lower, upper = self.intervals(s, train)
        pos = self.truth > 0
        out = 0.0
        for g in np.unique(self.group[train]):
            m = train & pos & (self.group == g)
            out += np.log(np.median((upper - lower)[m] / 2 / self.truth[m]) / np.median(self.err[m] / self.truth[m]))
        return float(out)

    def choose(self, train: np.ndarray, sweeps: int = 2) -> dict[str, tuple[str, ...]]:
        if self.size == 2:
            forms = [(p,) for p in self.parts] + list(itertools.combinations(self.parts, 2))
        else:  # weighted geometric means: weights in steps of 1 / size (a part repeated)
            forms = [f for f in itertools.combinations_with_replacement(self.parts, self.size)]
            forms = [f if len(set(f)) > 1 else f[:1] for f in forms]
        cur: dict[str, tuple[str, ...]] = {c: ("base",) for c in CLASSES}
        for _ in range(sweeps):
            for c in CLASSES:
                losses = [self.loss(self.scale({**cur, c: f}), train) for f in forms]
                cur[c] = forms[int(np.argmin(losses))]  # ties: the first (single parts, then pairs)
        return cur

    def held_out(self) -> tuple[pd.DataFrame, dict[str, dict[str, tuple[str, ...]]]]:
        res, chosen = [], {}
        for f in dict.fromkeys(self.fold):
            test = self.fold == f
            forms = self.choose(~test)
            chosen[f] = forms
            lower, upper = self.intervals(self.scale(forms), ~test)
            res.append(self.score(test, lower, upper))
        return pd.concat(res, ignore_index=True), chosen

    def score(self, rows: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> pd.DataFrame:
        t = self.t[rows].copy()
        truth, tol = self.truth[rows], self.tol[rows]
        t["covered"] = (truth >= lower[rows] - tol) & (truth <= upper[rows] + tol)
        pos = truth > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            t["rel_half"] = np.where(pos, (upper - lower)[rows] / 2 / np.where(pos, truth, 1.0), np.nan)
            t["rel_err"] = np.where(pos, self.err[rows] / np.where(pos, truth, 1.0), np.nan)
        return t


def learned_scale(folds: Folds, shipped: np.ndarray, train: np.ndarray, floor: float, ridge: float) -> np.ndarray:
    """A log-linear model of each series' relative |error| per count class, fitted on ``train``, as a scale
    (``shipped``, the scale of the shipped forms, where a class has too few series to fit or no gaps)."""
    tot = np.maximum(np.abs(folds.total), 1.0)

    def rel_log(x: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(x, 1e-6 * tot) / tot)

    x = np.column_stack(
        [rel_log(folds.part[p]) for p in PARTS]
        + [rel_log(folds.counted), folds.t["running_fraction"].to_numpy(float), np.log(tot)]
    )
    y = np.log(np.maximum(folds.err, floor * tot) / tot)
    exact = shipped <= 0  # no gaps: the total is exact whatever the model says
    s = shipped.copy()
    for c in CLASSES:
        here = folds.cls == c
        fit = train & here & ~exact
        if fit.sum() < 20:  # too few to fit: the shipped form
            continue
        mu, sd = x[fit].mean(axis=0), x[fit].std(axis=0) + 1e-9
        z = np.column_stack([np.ones(fit.sum()), (x[fit] - mu) / sd])
        penalty = ridge * np.eye(z.shape[1])
        penalty[0, 0] = 0.0
        beta = np.linalg.solve(z.T @ z + penalty, z.T @ y[fit])
        s[here] = np.exp(np.column_stack([np.ones(here.sum()), (x[here] - mu) / sd]) @ beta) * tot[here]
    return np.where(exact, 0.0, s)


def learned_scale_check(folds: Folds, floors: list[float], ridges: list[float]) -> str:
    """Held-out coverage and width / error of the shipped forms and of learned scales, per set and C."""
    shipped = folds.scale({c: f for c, f in SCALE_FORMS.items() if c in CLASSES})
    runs = {"shipped forms": lambda train: shipped}
    for fl, r in itertools.product(floors, ridges):
        runs[f"learned, floor {fl:g}, ridge {r:g}"] = lambda train, fl=fl, r=r: learned_scale(
            folds, shipped, train, fl, r
        )
    cols = {}
    for name, make in runs.items():
        res = []
        for f in dict.fromkeys(folds.fold):
            test = folds.fold == f
            lower, upper = folds.intervals(make(~test), ~test)
            res.append(folds.score(test, lower, upper))
        sm = summary(pd.concat(res, ignore_index=True))
        cols[f"{name}: coverage"] = sm["coverage"]
        cols[f"{name}: width / error"] = sm["width / error"]
    table = pd.DataFrame(cols)
    geo = {k: float(np.exp(np.log(v).mean())) for k, v in table.items() if k.endswith("width / error")}
    lines = ["#### Shipped forms against learned scales (q and the model held out by fold)", ""]
    lines += [markdown_table(table, 3)]
    lines += ["", "Geometric mean of width / error over sets and C:", ""] + [f"- {k}: {v:.3f}" for k, v in geo.items()]
    return "\n".join(lines) + "\n"


def runs_excess_check(t: pd.DataFrame, thresholds: list[float], level: float) -> str:
    """Which series should keep the run's own scale: each set left out whole, the shipped forms.

    For every held-out set, ``q`` of the run alone (:data:`SCALE_FORMS`) per count class comes from the
    other sets; it gives each run's standard error (as :func:`hemkit.mpx.totals.run_errors`), and
    :func:`hemkit.mpx.totals.runs_excess` says how far each workload's runs spread beyond those errors.
    Series above the threshold keep the run's own scale, the others take :data:`RUNS_SCALE_FORMS`; ``q``
    per (scale, class) from the other sets.  ``none``: never the run's own (the runs' scale everywhere).
    """
    f = Folds(t, {}, level, PARTS + list(RUNS_PARTS))
    cls, sets, group = f.cls, t["set"].to_numpy(), f.group
    truth, total, counted, err, tol = f.truth, f.total, f.counted, f.err, f.tol
    z_pool = NormalDist().inv_cdf((1 + POOL_LEVEL) / 2)
    base = f.part["base"]

    def scale_of(forms: dict[str, tuple[str, ...]]) -> np.ndarray:  # as the package: base where the form gives 0
        s = f.scale(forms)
        return np.where((s <= 0) & (base > 0), base, s)

    def ratio(s: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(s > 0, err / np.where(s > 0, s, 1.0), np.where(err <= tol, 0.0, np.inf))

    def quantiles(z: np.ndarray, kinds: np.ndarray, train: np.ndarray, lv: float) -> np.ndarray:
        q = np.full(len(z), np.inf)
        for k in np.unique(kinds):
            if (train & (kinds == k)).any():
                q[kinds == k] = np.quantile(z[train & (kinds == k)], lv, method="higher")
        return q

    lone, runs = scale_of(SCALE_FORMS), scale_of(RUNS_SCALE_FORMS)
    z_lone = ratio(lone)
    workload = t["set"] + "|" + t["pmcs"].astype(str) + "|" + t["workload"]  # one workload per set and C
    keys = pd.DataFrame({"workload": workload, "event": t["event"]})
    rows = []
    for label in ["never", *map(str, thresholds), "none"]:
        res = []
        for held in np.unique(sets):
            test, train = sets == held, sets != held
            q_pool = quantiles(z_lone, cls, train, POOL_LEVEL)
            with np.errstate(invalid="ignore"):
                se = np.where(np.isinf(q_pool), np.inf, q_pool * lone / z_pool)
            excess = runs_excess(keys, total, se)
            if label in ("never", "none"):
                use = np.full(len(t), label == "none")
            else:
                use = ~(excess > float(label))
            s = np.where(use, runs, lone)
            q = quantiles(ratio(s), np.where(use, "runs ", "run ") + cls.astype(object), train, level)
            with np.errstate(invalid="ignore"):
                half = np.where(np.isinf(q), np.inf, np.where(s > 0, q * s, 0.0))
            lower = np.maximum(np.minimum(np.maximum(total - half, counted), total), 0.0)
            pos = truth > 0
            with np.errstate(invalid="ignore", divide="ignore"):
                frame = pd.DataFrame(
                    {
                        "g": group,
                        "covered": (truth >= lower - tol) & (truth <= total + half + tol),
                        "rel_half": np.where(pos, (total + half - lower) / 2 / np.where(pos, truth, 1.0), np.nan),
                        "rel_err": np.where(pos, err / np.where(pos, truth, 1.0), np.nan),
                        "runs": use,
                    }
                )
            res.append(frame[test])
        g = pd.concat(res).groupby("g")
        we = g["rel_half"].median() / g["rel_err"].median()
        cov = g["covered"].mean()
        rows.append(
            {
                "runs' scale unless runs_excess >": label,
                "geometric mean of width / error": float(np.exp(np.log(we).mean())),
                "lowest coverage": float(cov.min()),
                "share on the runs' scale": float(g["runs"].mean().mean()),
            }
        )
    head = f"level {level}; each set left out whole; forms as shipped (SCALE_FORMS, RUNS_SCALE_FORMS)"
    return "\n".join(
        [head, "", markdown_table(pd.DataFrame(rows).set_index("runs' scale unless runs_excess >"), 3), ""]
    )


def summary(res: pd.DataFrame) -> pd.DataFrame:
    g = res.groupby(["set", "pmcs"], sort=False)
    out = pd.DataFrame(
        {
            "series": g.size(),
            "coverage": g["covered"].mean(),
            "median half-width": g["rel_half"].median(),
            "median |error|": g["rel_err"].median(),
        }
    )
    out["width / error"] = out["median half-width"] / out["median |error|"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", default=[], required=True, help="LABEL=FOLDER")
    ap.add_argument("--folds", action="append", default=[], help="LABEL=K: folds of workloads for a large set")
    ap.add_argument("--out", default=os.path.expanduser("~/mpx-data/interval-scales"))
    ap.add_argument("--pmcs", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--level", type=float, default=0.9)
    ap.add_argument(
        "--parts",
        nargs="+",
        default=PARTS,
        choices=PARTS + NEW_PARTS + list(RUNS_PARTS),
        help="the parts to choose among",
    )
    ap.add_argument(
        "--size",
        type=int,
        default=2,
        help="2: one part or the geometric mean of two; K > 2: weighted geometric means, weights in steps of 1/K",
    )
    ap.add_argument(
        "--runs-excess",
        type=float,
        nargs="+",
        help="score thresholds of runs_excess above which a series keeps the run's own scale (sets left out whole)",
    )
    ap.add_argument("--learned-scale", action="store_true", help="score learned scales against the shipped")
    ap.add_argument("--floor", type=float, nargs="+", default=[1e-3, 1e-2], help="--learned-scale: relative floor")
    ap.add_argument("--ridge", type=float, nargs="+", default=[1.0, 100.0], help="--learned-scale: ridge weight")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    path = out / "parts.parquet"
    if path.exists():
        t = pd.read_parquet(path)
    else:
        t = pd.concat([parts_table(*s.split("=", 1), args.pmcs) for s in args.set], ignore_index=True)
        t.to_parquet(path)
    t = runs_parts(t)
    folds = Folds(t, {k: int(v) for k, v in (f.split("=", 1) for f in args.folds)}, args.level, args.parts, args.size)
    # a check instead of the choice of forms: its table, written to its own file
    checks = {
        "runs_excess.md": (args.runs_excess, lambda: runs_excess_check(t, args.runs_excess, args.level)),
        "learned.md": (args.learned_scale, lambda: learned_scale_check(folds, args.floor, args.ridge)),
    }
    for name, (wanted, check) in checks.items():
        if wanted:
            text = check()
            (out / name).write_text(text)
            print(text)
            print(f"done in {time.perf_counter() - t0:.0f} s; wrote {out / name}", flush=True)
            return
    res, chosen = folds.held_out()
    md = [f"level {args.level}; default estimator {DEFAULT_ESTIMATOR}; C = {args.pmcs}", ""]
    md += ["#### Forms chosen per held-out fold (count class: parts, geometric mean)", ""]
    md += [
        markdown_table(
            pd.DataFrame({f: {c: " x ".join(v) for c, v in forms.items()} for f, forms in chosen.items()}).T, 3
        ),
        "",
    ]
    md += ["#### Held out (forms and q chosen without the fold)", "", markdown_table(summary(res), 3), ""]
    every = folds.choose(np.ones(len(t), bool))
    md += ["#### Chosen on every workload (what SCALE_FORMS ships)", ""]
    md += [f"- {c}: {' x '.join(f)}" for c, f in every.items()] + [""]
    all_base = []
    for f in dict.fromkeys(folds.fold):
        test = folds.fold == f
        lower, upper = folds.intervals(folds.part["base"], ~test)
        all_base.append(folds.score(test, lower, upper))
    md += ["#### For comparison: the base scale alone, q held out", "", markdown_table(summary(pd.concat(all_base)), 3)]
    (out / "choice.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    print(f"done in {time.perf_counter() - t0:.0f} s; wrote {out}", flush=True)


if __name__ == "__main__":
    main()
