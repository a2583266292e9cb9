"""How far to trust a multiplexed total: an interval around each (run, event) total (issue 26, item 4).

Under multiplexing an event's total is its counted slices (exact) plus what an estimator puts
in its gaps (guessed).  The interval says how far the guess may be off, from what the run
itself holds, scaled by a multiplier chosen on traces whose true totals are known:

* **The gaps.**  Each stretch the event was off its counter -- a slice's own unobserved part
  (a partly counted interval) and the intervals up to the next slice -- is one *gap unit* of
  ``U`` interval-equivalents (the share of each interval's enabled time not on a counter).
* **How much the rate moves.**  ``S`` is the event's typical change from one counted slice to
  the next (successive differences of perf's per-interval values ``raw x enabled / running``:
  ``S^2 = mean(dy^2) / 2``, the successive-difference variance of systematic sampling, which
  a trend does not inflate); ``L`` is the change over each gap itself (the slices on either
  side), times the gap's size.
* **How much estimators disagree.**  ``d = |total - perf's scaled total|``: where the
  estimator moved far from perf's scaling, one of them is far from the truth.

The scale of a series is ``s = sqrt(S^2 sum U^2 + sum (U dy_gap)^2 + d^2)`` and the interval
``[max(total - q s, counted), total + q s]`` with ``counted`` the exact count of the slices (the
true total cannot be below it).  An event on a counter the whole run has ``s = 0``: its total is
exact and ``lower = upper = total``.

``q`` is the ``level`` quantile of ``|total - truth| / s`` over series whose truth is known
(split-conformal), taken apart for four *count classes* of series (Mondrian conformal: the
class is read from the data, never from the truth): ``none`` (every slice read 0), ``few``
(1-29 events counted), ``some`` (up to 10^4) and ``many``.  Few counted events mean Poisson
noise and bursts that a slice catches or misses; millions mean a rate that moves smoothly.
:data:`MULTIPLIERS` holds ``q`` per estimator and class at a grid of levels, measured by
``benchmarks/mpx_intervals.py`` (BENCHMARKS.md says on which traces and how the intervals
cover workloads left out); :func:`calibrate` measures it for any estimator.  Between grid
levels ``q`` is interpolated on the normal-quantile scale.

What no interval from the run can bound: counts that all fell while the event was off its
counter -- typically a burst at the program's start before the event first got a counter
(``kmem:kmem_cache_alloc`` or ``brk`` at exec), or at its end.  An event whose slices all read
0 (class ``none``) had such counts in most of the calibration runs, so its ``upper`` is
``inf``: the run says nothing about it.  ``unseen_start`` is the share of the run before the
event's first slice.
"""

from __future__ import annotations

from collections.abc import Mapping
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import InputError
from hemkit.core.results import Result, result
from hemkit.mpx.emulate import MpxData
from hemkit.mpx.results import MpxEstimate

LEVELS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99)
"""The levels at which :data:`MULTIPLIERS` holds the quantile of ``|error| / scale``."""

COUNT_CLASSES = ("none", "few", "some", "many")
"""Series by their counted events: none (every slice read 0), fewer than 30, fewer than 10^4, more."""
COUNT_EDGES = (1.0, 30.0, 1e4)
"""Lower edges of the count classes after ``none`` (see :data:`COUNT_CLASSES`)."""

INF = float("inf")
# quantiles of |total - truth| / scale at LEVELS, over every series of sw, zen5 (C = 2, 3)
MULTIPLIERS: dict[str, dict[str, tuple[float, ...]]] = {
    "checked": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.286, 0.471, 0.725, 1.12, 1.51, 3.07, 18, 51.7, 91.4),  # 478 series
        "some": (0.227, 0.345, 0.446, 0.627, 0.747, 0.972, 1.7, 3.24, 6.15),  # 1350 series
        "many": (0.243, 0.337, 0.475, 0.558, 0.641, 0.696, 1, 1.34, 2.52),  # 199 series
    },
    "phase": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.312, 0.48, 0.681, 1.09, 1.43, 2.33, 17.7, 46.5, 91.4),  # 478 series
        "some": (0.211, 0.328, 0.441, 0.657, 0.82, 1.06, 1.72, 3.3, 5.77),  # 1350 series
        "many": (0.248, 0.317, 0.392, 0.528, 0.609, 0.728, 0.876, 1.35, 2.52),  # 199 series
    },
    "fixed": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.667, 0.788, 0.816, 1.03, 1.24, 2.36, 17.2, 48.4, 81.2),  # 478 series
        "some": (0.45, 0.58, 0.705, 0.817, 0.89, 1.06, 1.58, 2.98, 6.32),  # 1350 series
        "many": (0.415, 0.498, 0.654, 0.748, 0.812, 0.931, 1.11, 1.52, 1.84),  # 199 series
    },
    "fixed-cumulative": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.683, 0.814, 0.957, 1.25, 1.72, 3.4, 18.8, 53, 97.2),  # 478 series
        "some": (0.388, 0.513, 0.675, 0.851, 0.964, 1.11, 1.65, 3.45, 6.37),  # 1350 series
        "many": (0.301, 0.365, 0.474, 0.627, 0.709, 0.899, 1.1, 1.53, 2.31),  # 199 series
    },
    "linear": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.446, 0.457, 0.634, 1.05, 1.5, 2.97, 18, 52.4, 95.8),  # 478 series
        "some": (0.351, 0.423, 0.484, 0.636, 0.725, 0.899, 1.65, 3.14, 6.15),  # 1350 series
        "many": (0.32, 0.404, 0.495, 0.57, 0.643, 0.75, 1.07, 1.34, 2.31),  # 199 series
    },
    "growth": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.295, 0.384, 0.7, 1.13, 1.57, 3.19, 18.1, 52.9, 94.5),  # 478 series
        "some": (0.302, 0.396, 0.513, 0.7, 0.844, 1.07, 1.76, 3.18, 5.65),  # 1350 series
        "many": (0.383, 0.48, 0.573, 0.704, 0.793, 0.936, 1.27, 1.46, 2.51),  # 199 series
    },
    "min": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.367, 0.643, 0.922, 1.38, 1.84, 3.31, 17.2, 49.5, 81.2),  # 478 series
        "some": (0.612, 0.75, 0.844, 0.952, 1.03, 1.19, 1.73, 2.88, 4.56),  # 1350 series
        "many": (0.691, 0.777, 0.863, 0.941, 1.01, 1.14, 1.4, 1.62, 2.49),  # 199 series
    },
}
"""Quantiles of ``|total - truth| / scale`` at :data:`LEVELS`, per estimator and count class.

Measured by ``benchmarks/mpx_intervals.py`` (printed as ``multipliers.py``; see BENCHMARKS.md for
the traces).  An estimator not listed (a model file, or one added later) gets the largest
multiplier of the listed ones at each level and class.
"""
TOTAL_COLUMNS = (
    "run",
    "event",
    "total",
    "lower",
    "upper",
    "perf_total",
    "counted",
    "count_class",
    "running_fraction",
    "gaps",
    "unseen_start",
    "scale",
)


def count_class(counted: np.ndarray) -> np.ndarray:
    """The count class of each series (:data:`COUNT_CLASSES`) from its counted events.

    Examples
    --------
    >>> count_class(np.array([0.0, 5.0, 300.0, 2e6])).tolist()
    ['none', 'few', 'some', 'many']
    """
    idx = np.searchsorted(np.asarray(COUNT_EDGES), np.asarray(counted, float), side="right")
    return np.asarray(COUNT_CLASSES, dtype=object)[idx]


def _prev_observed(observed: np.ndarray) -> np.ndarray:
    """Index of the last observed interval strictly before each interval (-1 when none)."""
    S, T = observed.shape
    last = np.maximum.accumulate(np.where(observed, np.arange(T)[None, :], -1), axis=1)
    return np.concatenate([np.full((S, 1), -1), last[:, :-1]], axis=1)


def scale_parts(mpx: MpxData, totals: np.ndarray) -> pd.DataFrame:
    """What the scale of each series is made of, from the multiplexed data alone (no truth).

    Parameters
    ----------
    mpx : MpxData
        The multiplexed series (``truth`` is not used).
    totals : ndarray (S,)
        The estimator's total of each series.

    Returns
    -------
    DataFrame
        One row per series: ``counted`` (exact count of the slices), ``running_fraction``
        (time on a counter / time enabled), ``gaps`` (gap units), ``unseen_start`` (share of
        the enabled time before the first slice), ``rate_change`` (``S``), ``gap_size``
        (``sqrt(sum U^2)``), ``gap_jumps`` (``sqrt(sum (U dy)^2)``), ``vs_perf`` (``d``),
        ``perf_total`` and ``scale``.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> m = emulate(synthetic_trace(runs=1, steps=40, events=3), pmcs=3)   # every event always counted
    >>> scale_parts(m, m.perf_totals())["scale"].tolist()
    [0.0, 0.0, 0.0]
    """
    v = mpx.valid
    S, T = v.shape
    obs = mpx.observed
    ena = np.where(v, np.nan_to_num(mpx.enabled), 0.0)
    run = np.where(obs, np.nan_to_num(mpx.running), 0.0)
    active = v & (ena > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        missing = np.where(active, np.clip((ena - run) / np.where(active, ena, 1.0), 0.0, 1.0), 0.0)
        y = np.where(obs, np.nan_to_num(mpx.raw) * ena / np.where(obs, run, 1.0), 0.0)
    counted = np.where(obs, np.nan_to_num(mpx.raw), 0.0).sum(axis=1)
    # gap units: intervals from a slice (its own unobserved part) up to the next slice
    unit = np.cumsum(obs, axis=1)
    flat = (np.arange(S)[:, None] * (T + 1) + unit).ravel()
    U = np.bincount(flat, weights=missing.ravel(), minlength=S * (T + 1)).reshape(S, T + 1)
    # successive differences of the per-interval values over consecutive slices
    prev = _prev_observed(obs)
    pair = obs & (prev >= 0)
    rows = np.arange(S)[:, None]
    dy = np.where(pair, y - y[rows, prev.clip(0)], 0.0)
    n_pairs = pair.sum(axis=1)
    rate_change = np.sqrt(np.where(n_pairs > 0, (dy**2).sum(axis=1) / np.maximum(2 * n_pairs, 1), 0.0))
    u_between = np.where(pair, U[rows, unit[rows, prev.clip(0)]], 0.0)
    gap_jumps = np.sqrt(((u_between * dy) ** 2).sum(axis=1))
    gap_size = np.sqrt((U**2).sum(axis=1))
    first = np.where(obs.any(axis=1), obs.argmax(axis=1), T)
    before = np.arange(T)[None, :] < first[:, None]
    e_total = ena.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        running_fraction = np.where(e_total > 0, run.sum(axis=1) / e_total, 1.0)
        unseen_start = np.where(e_total > 0, np.where(before, ena, 0.0).sum(axis=1) / e_total, 0.0)
    perf = np.nan_to_num(mpx.perf_totals())
    d = np.abs(np.asarray(totals, float) - perf)
    scale = np.sqrt((rate_change * gap_size) ** 2 + gap_jumps**2 + d**2)
    return pd.DataFrame(
        {
            "counted": counted,
            "running_fraction": running_fraction,
            "gaps": (U > 0).sum(axis=1),
            "unseen_start": unseen_start,
            "rate_change": rate_change,
            "gap_size": gap_size,
            "gap_jumps": gap_jumps,
            "vs_perf": d,
            "perf_total": perf,
            "scale": scale,
        }
    )


def multiplier(estimator: str, level: float, count: str = "many") -> float:
    """The multiplier ``q`` of ``estimator``'s scale at ``level`` for series of count class ``count``.

    From :data:`MULTIPLIERS`: interpolated between its levels on the normal-quantile scale,
    scaled with the normal quantile beyond them; ``inf`` where the calibration data had too
    many misses at any width (events that never counted one event while on a counter).

    Examples
    --------
    >>> multiplier("phase", 0.9, "some") == MULTIPLIERS["phase"]["some"][LEVELS.index(0.9)]
    True
    >>> multiplier("my-model", 0.9) >= multiplier("phase", 0.9)
    True
    """
    level = check_scalar(level, "level", "real", min_val=0, max_val=1, closed="neither")
    if count not in COUNT_CLASSES:
        raise InputError(f"count must be one of {', '.join(COUNT_CLASSES)}, got {count!r}")
    if estimator in MULTIPLIERS:
        qs = np.asarray(MULTIPLIERS[estimator][count], float)
    else:
        qs = np.max(np.asarray([m[count] for m in MULTIPLIERS.values()], float), axis=0)
    ppf = NormalDist().inv_cdf
    z = np.array([ppf((1 + lv) / 2) for lv in LEVELS])
    zl = ppf((1 + level) / 2)
    if level <= LEVELS[0]:
        return float(qs[0] * zl / z[0]) if np.isfinite(qs[0]) else INF
    if level >= LEVELS[-1]:
        return float(qs[-1] * zl / z[-1]) if np.isfinite(qs[-1]) else INF
    k = int(np.searchsorted(z, zl))
    if not (np.isfinite(qs[k - 1]) and np.isfinite(qs[k])):
        return INF
    return float(np.interp(zl, z[k - 1 : k + 1], qs[k - 1 : k + 1]))


@result
class MpxTotals(Result):
    """Each (run, event) total of a multiplexed input with an interval (see the module docstring).

    Attributes
    ----------
    table : DataFrame
        One row per series: ``workload`` (when known), ``run, event, total, lower, upper,
        perf_total`` (perf's scaled total, ``count x enabled / running``), ``counted`` (the
        exact count of the slices), ``running_fraction``, ``gaps``, ``unseen_start`` and
        ``scale``.
    level : float
        The intervals' level.
    estimator : str
        The estimator whose totals they are.
    multiplier : mapping
        ``q`` of each count class: half-width = ``q x scale``.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=1, steps=60, events=4), pmcs=2).without_truth()
    >>> res = total_intervals(m, make_estimator("phase").estimate(m), level=0.9)
    >>> bool(((res.table["lower"] <= res.table["total"]) & (res.table["total"] <= res.table["upper"])).all())
    True
    """

    table: pd.DataFrame
    level: float
    estimator: str
    multiplier: Mapping[str, float]

    def summary(self) -> pd.DataFrame:
        """Per event: series, exact ones (counted the whole run), median total and half-width (% of the total)."""
        t = self.table
        with np.errstate(invalid="ignore", divide="ignore"):
            half = 100 * (t["upper"] - t["lower"]) / 2 / t["total"].where(t["total"] > 0)
        g = t.assign(half=half, exact=t["upper"] == t["lower"]).groupby("event", sort=False)
        return pd.DataFrame(
            {
                "series": g.size(),
                "exact": g["exact"].sum(),
                "median total": g["total"].median(),
                f"median half-width ({self.level:.0%}, % of total)": g["half"].median().round(2),
                "median running fraction": g["running_fraction"].median().round(3),
            }
        )

    def line(self) -> str:
        """One line: series, level, estimator, how many are exact and how many have no upper bound."""
        t = self.table
        unbounded = int(np.isinf(t["upper"]).sum())
        return (
            f"{len(t)} {self.estimator} totals with {self.level:g} intervals "
            f"({int((t['upper'] == t['lower']).sum())} exact"
            + (f", {unbounded} without an upper bound: never counted while on a counter" if unbounded else "")
            + ")"
        )

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def plot(self, ax: Any = None) -> Any:
        """Each total with its interval, divided by perf's scaled total, per series (error bars)."""
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=(max(6.0, 0.35 * len(self.table) + 3), 4))
        t = self.table
        with np.errstate(invalid="ignore", divide="ignore"):
            base = t["perf_total"].where(t["perf_total"] > 0).to_numpy(float)
            mid, lo, hi = (t[c].to_numpy(float) / base for c in ("total", "lower", "upper"))
        x = np.arange(len(t))
        bounded = np.isfinite(hi)
        yerr = [np.clip(mid - lo, 0, None)[bounded], np.clip(hi - mid, 0, None)[bounded]]
        ax.errorbar(x[bounded], mid[bounded], yerr=yerr, fmt="o", ms=3, capsize=2, label=f"{self.estimator} total")
        if (~bounded).any():
            top = float(np.nanmax(np.where(bounded, hi, mid))) if np.isfinite(mid).any() else 1.0
            ax.plot(x[~bounded], np.full(int((~bounded).sum()), top), "^", color="grey", label="no upper bound")
        ax.axhline(1.0, color="black", lw=1, ls="--", label="perf's scaled total")
        one_run = t["run"].nunique() == 1
        labels = t["event"] if one_run else t["run"].astype(str) + " " + t["event"]
        ax.set_xticks(x, [str(s)[:36] for s in labels], rotation=60, ha="right", fontsize=7)
        ax.set_xlabel("event" if one_run else "run and event")
        ax.set_ylabel("total / perf's scaled total (ratio)")
        ax.set_title(f"Totals with {self.level:.0%} intervals ({self.estimator})")
        ax.legend(fontsize="small")
        return ax


def total_intervals(mpx: MpxData, estimate: MpxEstimate, *, level: float = 0.9) -> MpxTotals:
    """Each series' total of ``estimate`` with an interval at ``level`` (see the module docstring).

    Parameters
    ----------
    mpx : MpxData
        The multiplexed series the estimate was made from (``truth`` is not used).
    estimate : MpxEstimate
        Any estimator's estimate of ``mpx`` (its name picks the multiplier).
    level : float
        In (0, 1): the share of true totals the intervals should hold.

    Returns
    -------
    MpxTotals

    Raises
    ------
    InputError
        ``level`` outside (0, 1), or an estimate of other series.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=1, steps=60, events=4), pmcs=4).without_truth()
    >>> t = total_intervals(m, make_estimator("fixed").estimate(m)).table
    >>> bool((t["lower"] == t["upper"]).all())    # every event counted the whole run: exact
    True
    """
    level = check_scalar(level, "level", "real", min_val=0, max_val=1, closed="neither")
    keys = mpx.keys.reset_index(drop=True)
    same = len(estimate.keys) == len(keys) and all(
        (estimate.keys[c].astype(str).to_numpy() == keys[c].astype(str).to_numpy()).all() for c in ("run", "event")
    )
    if not same:
        raise InputError("the estimate is not of these multiplexed series (its runs and events differ)")
    name = calibration_name(estimate)
    totals = estimate.totals()
    parts = scale_parts(mpx, totals)
    scale = parts["scale"].to_numpy()
    counted = parts["counted"].to_numpy()
    classes = count_class(counted)
    used = {c: multiplier(name, level, c) for c in COUNT_CLASSES}
    q = np.array([used[c] for c in classes], float)
    exact = parts["gap_size"].to_numpy() <= 0  # on a counter the whole run: nothing was estimated
    with np.errstate(invalid="ignore"):
        half = np.where(exact, 0.0, np.where(np.isinf(q), np.inf, np.where(scale > 0, q * scale, 0.0)))
    lower = np.maximum(np.minimum(np.maximum(totals - half, counted), totals), 0.0)
    out = keys[[c for c in ("workload", "run", "event") if c in keys.columns]].copy()
    out["total"] = totals
    out["lower"] = lower
    out["upper"] = totals + half
    out["count_class"] = classes
    for c in TOTAL_COLUMNS[5:]:
        if c != "count_class":
            out[c] = parts[c].to_numpy()
    out = out[[c for c in ("workload",) if c in out.columns] + list(TOTAL_COLUMNS)]
    return MpxTotals(out, level, name, used)


def calibration_name(estimate: MpxEstimate) -> str:
    """The name :data:`MULTIPLIERS` knows ``estimate``'s estimator by (``fixed-cumulative`` apart from ``fixed``)."""
    if estimate.estimator == "fixed" and estimate.params.get("mode") == "cumulative":
        return "fixed-cumulative"
    return estimate.estimator


def calibrate(mpx: MpxData, estimates: Mapping[str, np.ndarray], levels: tuple[float, ...] = LEVELS) -> pd.DataFrame:
    """The multipliers of each estimator on data whose truth is known: quantiles of ``|error| / scale``.

    Parameters
    ----------
    mpx : MpxData
        Emulated multiplexing (with ``truth``).
    estimates : mapping
        Estimator name -> its totals (S,) of ``mpx``'s series, or its (S, T) estimates (summed), made
        without the truth (an estimator that estimates totals apart: ``estimate(mpx).totals()``).
    levels : tuple of float
        The levels to measure at.

    Returns
    -------
    DataFrame
        Rows ``(estimator, count class)``, columns the levels: the (higher) empirical quantile
        of ``|error| / scale`` (a series of scale 0 counts as 0 when its total is exact, as
        ``inf`` when not), with a column ``series``.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=4, steps=80, events=4), pmcs=2)
    >>> q = calibrate(m, {"fixed": make_estimator("fixed").estimate_array(m.without_truth())}, (0.5, 0.9))
    >>> bool((q[0.5] <= q[0.9]).all())
    True
    """
    if mpx.truth is None:
        raise InputError("calibration needs the true counts: emulate from an OCOE trace")
    for lv in levels:
        check_scalar(lv, "levels", "real", min_val=0, max_val=1, closed="neither")
    truth = np.nansum(np.where(mpx.valid, mpx.truth, np.nan), axis=1)
    rows = {}
    for name, values in estimates.items():
        values = np.asarray(values, float)
        totals = values if values.ndim == 1 else np.nansum(np.where(mpx.valid, values, np.nan), axis=1)
        z = error_ratios(mpx, totals, truth)
        classes = count_class(scale_parts(mpx, totals)["counted"].to_numpy())
        for c in COUNT_CLASSES:
            zc = z[classes == c]
            if len(zc):
                rows[(name, c)] = [*(float(np.quantile(zc, lv, method="higher")) for lv in levels), len(zc)]
    index = pd.MultiIndex.from_tuples(list(rows), names=["estimator", "count_class"])
    return pd.DataFrame(list(rows.values()), index=index, columns=[*levels, "series"])


def error_ratios(mpx: MpxData, totals: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``|total - truth| / scale`` per series (0 where both are 0, ``inf`` where only the scale is)."""
    err = np.abs(np.asarray(totals, float) - np.asarray(truth, float))
    s = scale_parts(mpx, totals)["scale"].to_numpy()
    tol = 1e-9 * np.maximum(np.abs(truth), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s > 0, err / np.where(s > 0, s, 1.0), np.where(err <= tol, 0.0, np.inf))


__all__ = [
    "COUNT_CLASSES",
    "LEVELS",
    "MULTIPLIERS",
    "MpxTotals",
    "calibrate",
    "calibration_name",
    "count_class",
    "error_ratios",
    "multiplier",
    "scale_parts",
    "total_intervals",
]
