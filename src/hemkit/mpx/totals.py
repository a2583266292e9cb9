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

* **How well the run predicts itself.**  ``h`` is phase-aware interpolation's relative error
  on the sums of counted blocks it was made to estimate with the blocks hidden (every second
  block, as :mod:`hemkit.mpx.checked` checks its candidates), times the estimated part of the
  total (``total - counted``): what the run's own slices say about how far a gap can be off.
* **How much the interpolations disagree.**  ``r`` is the range of the gap counts of phase,
  linear, fixed and min interpolation.

The *base* scale ``b = sqrt(S^2 sum U^2 + sum (U dy_gap)^2 + d^2)`` suits smooth rates.  Which
of these parts make the scale of a series depends on its count class (below), chosen by leaving
whole workloads out (BENCHMARKS.md): few counted events -- ``h`` (the rate says little, the
hidden blocks more); some (and some-half) -- ``sqrt(b r)``; many -- ``b``; millions --
``sqrt(sum (U dy)^2)``.
The interval is ``[max(total - q s, counted), total + q s]`` with ``counted`` the exact count of
the slices (the true total cannot be below it).  An event on a counter the whole run has
``s = 0``: its total is exact and ``lower = upper = total``.

``q`` is the ``level`` quantile of ``|total - truth| / s`` over series whose truth is known
(split-conformal), taken apart for *count classes* of series (Mondrian conformal: the
class is read from the data, never from the truth): ``none`` (every slice read 0), ``few``
(1-29 events counted), ``some`` (up to 10^4), ``many`` (up to 10^6) and ``huge``; ``some``
series on a counter at least half of their enabled time (3 counters for 5 events) are
``some-half``, with their own multiplier (their gaps are fewer and shorter, their totals'
errors smaller against the same scale).  Few counted events mean Poisson noise and bursts
that a slice catches or misses; millions (hardware events) mean a rate that moves smoothly.
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

COUNT_CLASSES = ("none", "few", "some", "many", "huge", "some-half")
"""Series by their counted events: none (every slice read 0), fewer than 30, 10^4, 10^6, more;
``some-half``: ``some`` on a counter at least half of its enabled time (:data:`HALF_SPLIT`)."""
COUNT_EDGES = (1.0, 30.0, 1e4, 1e6)
"""Lower edges of the count classes after ``none`` (see :data:`COUNT_CLASSES`)."""
HALF_SPLIT = ("some",)
"""The count classes split by time on a counter (``<class>-half`` from a running fraction of 0.5).

With fewer events than counters' worth of time off a counter (3 counters for 5 events: 60 %
on a counter) the gaps are shorter and fewer and the totals' errors smaller relative to what
a run shows; the number of counters is in the multiplexed file itself (enabled against
running time).  Split where leaving workloads out said it narrows the intervals
(BENCHMARKS.md)."""

SCALE_FORMS: dict[str, tuple[str, ...]] = {
    "none": ("base",),  # no upper bound: the scale does not matter
    "few": ("hidden",),
    "some": ("base", "spread"),
    "some-half": ("base", "spread"),
    "many": ("base",),
    "huge": ("gap_jumps",),
}
"""The parts of :func:`scale_parts` whose geometric mean is the scale of a series, per count class.

Chosen by leaving workloads out on the ``sw`` and ``zen5`` traces, among every part and pair of
parts (``benchmarks/mpx_interval_scales.py``; BENCHMARKS.md).
"""
SPREAD_ESTIMATORS = ("phase", "linear", "fixed", "min")
"""The interpolations whose gap counts' range is the ``spread`` part of the scale."""

INF = float("inf")
# quantiles of |total - truth| / scale at LEVELS, over every series of sw, zen5 (C = 2, 3)
MULTIPLIERS: dict[str, dict[str, tuple[float, ...]]] = {
    "checked": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.871, 0.996, 1.39, 2.59, 4.09, 17.6, 330, INF, INF),  # 478 series
        "some": (0.227, 0.315, 0.403, 0.574, 0.756, 1.08, 2.27, 3.72, 25.3),  # 664 series
        "many": (0.316, 0.46, 0.527, 0.626, 0.663, 0.75, 1.07, 1.37, 2.52),  # 127 series
        "huge": (0.221, 0.29, 0.412, 0.505, 0.582, 0.65, 0.975, 1.42, 1.58),  # 72 series
        "some-half": (0.233, 0.345, 0.472, 0.625, 0.738, 0.957, 2.23, 4.18, 35.7),  # 686 series
    },
    "phase": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.898, 0.997, 1.51, 3.29, 5.2, 26.7, 394, INF, INF),  # 478 series
        "some": (0.234, 0.334, 0.459, 0.689, 0.855, 1.11, 2.39, 3.72, 25.3),  # 664 series
        "many": (0.254, 0.308, 0.403, 0.527, 0.58, 0.728, 0.897, 1.37, 2.52),  # 127 series
        "huge": (0.278, 0.44, 0.563, 0.657, 0.784, 0.932, 1.1, 1.18, 1.43),  # 72 series
        "some-half": (0.204, 0.31, 0.471, 0.649, 0.799, 1.06, 2.11, 4.49, 35.7),  # 686 series
    },
    "fixed": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.75, 0.953, 1, 1.85, 3.45, 8.52, 95.1, INF, INF),  # 478 series
        "some": (0.446, 0.55, 0.706, 0.874, 0.91, 1.17, 2.08, 3.56, 24.6),  # 664 series
        "many": (0.437, 0.557, 0.699, 0.804, 0.912, 1.04, 1.14, 1.52, 1.84),  # 127 series
        "huge": (0.429, 0.562, 0.762, 0.893, 0.987, 1.18, 1.39, 1.96, 2.16),  # 72 series
        "some-half": (0.439, 0.594, 0.709, 0.84, 0.893, 1.05, 2.04, 4.38, 35.7),  # 686 series
    },
    "fixed-cumulative": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.997, 1, 1.04, 1.86, 2.65, 4.64, 23.3, 75.4, 114),  # 478 series
        "some": (0.348, 0.469, 0.627, 0.948, 1.4, 1.9, 3.51, 99.5, INF),  # 664 series
        "many": (0.32, 0.392, 0.502, 0.675, 0.753, 0.932, 1.25, 1.55, 2.31),  # 127 series
        "huge": (0.302, 0.387, 0.489, 0.66, 0.757, 0.835, 1.07, 1.3, 1.74),  # 72 series
        "some-half": (0.366, 0.495, 0.717, 1.12, 1.59, 2.62, INF, INF, INF),  # 686 series
    },
    "linear": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.815, 0.994, 1.13, 2.13, 3.11, 6.5, 61, INF, INF),  # 478 series
        "some": (0.316, 0.393, 0.457, 0.574, 0.705, 1, 2.19, 3.56, 24.4),  # 664 series
        "many": (0.352, 0.478, 0.541, 0.64, 0.688, 0.882, 1.08, 1.57, 2.31),  # 127 series
        "huge": (0.325, 0.411, 0.483, 0.53, 0.625, 0.821, 1.29, 1.43, 1.58),  # 72 series
        "some-half": (0.348, 0.432, 0.484, 0.604, 0.71, 0.979, 1.91, 4.18, 35.7),  # 686 series
    },
    "growth": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.931, 0.998, 1.58, 2.86, 4.17, 10.8, 94, INF, INF),  # 478 series
        "some": (0.298, 0.375, 0.494, 0.704, 0.838, 1.17, 2.45, 3.71, 25.1),  # 664 series
        "many": (0.414, 0.488, 0.595, 0.748, 0.88, 1.06, 1.36, 1.81, 2.51),  # 127 series
        "huge": (0.435, 0.537, 0.714, 0.833, 0.879, 1.1, 1.32, 1.47, 1.55),  # 72 series
        "some-half": (0.298, 0.405, 0.527, 0.662, 0.828, 1.1, 2.1, 4.49, 35.7),  # 686 series
    },
    "min": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 213 series
        "few": (0.784, 1.59, 3.44, 8.73, 15.8, 36.8, 395, INF, INF),  # 478 series
        "some": (0.743, 0.834, 0.929, 1.08, 1.23, 1.53, 2.45, 3.56, 25.5),  # 664 series
        "many": (0.633, 0.691, 0.779, 0.905, 0.959, 1.17, 1.53, 1.75, 2.49),  # 127 series
        "huge": (1.71, 1.81, 1.94, 2.16, 2.34, 2.51, 2.77, 3.56, 4.47),  # 72 series
        "some-half": (0.692, 0.821, 0.916, 1.05, 1.17, 1.38, 2.17, 4.29, 35.7),  # 686 series
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


def count_class(counted: np.ndarray, running_fraction: np.ndarray | None = None) -> np.ndarray:
    """The count class of each series (:data:`COUNT_CLASSES`) from its counted events and time on a counter.

    Parameters
    ----------
    counted : ndarray (S,)
        The exact count of each series' slices.
    running_fraction : ndarray (S,), optional
        Time on a counter / time enabled; from 0.5 a class of :data:`HALF_SPLIT` becomes
        ``<class>-half`` (not given: no split).

    Examples
    --------
    >>> count_class(np.array([0.0, 5.0, 300.0, 2e4, 2e6])).tolist()
    ['none', 'few', 'some', 'many', 'huge']
    >>> count_class(np.array([5.0, 300.0, 300.0]), np.array([0.6, 0.4, 0.6])).tolist()
    ['few', 'some', 'some-half']
    """
    idx = np.searchsorted(np.asarray(COUNT_EDGES), np.asarray(counted, float), side="right")
    out = np.asarray(COUNT_CLASSES[: len(COUNT_EDGES) + 1], dtype=object)[idx]
    if running_fraction is not None:
        half = np.asarray(running_fraction, float) >= 0.5
        for c in HALF_SPLIT:
            out = np.where((out == c) & half, f"{c}-half", out).astype(object)
    return out


def _prev_observed(observed: np.ndarray) -> np.ndarray:
    """Index of the last observed interval strictly before each interval (-1 when none)."""
    S, T = observed.shape
    last = np.maximum.accumulate(np.where(observed, np.arange(T)[None, :], -1), axis=1)
    return np.concatenate([np.full((S, 1), -1), last[:, :-1]], axis=1)


def scale_inputs(mpx: MpxData) -> pd.DataFrame:
    """The parts of the scale that do not depend on the estimator: ``spread`` and ``hidden_error``.

    Parameters
    ----------
    mpx : MpxData
        The multiplexed series (``truth`` is not used).

    Returns
    -------
    DataFrame
        One row per series: ``spread`` (range of the gap counts of :data:`SPREAD_ESTIMATORS`),
        ``hidden_error`` (phase-aware interpolation's relative error on the sums of the counted
        blocks it estimated with them hidden; 1 where no block could be hidden) and ``phase_gap``
        (what phase-aware interpolation adds to the counted part of the total).

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": np.repeat(np.arange(30), 2), "event": ["a", "b"] * 30, "value": 7.0})
    >>> scale_inputs(emulate(tr, pmcs=1)).round(9).to_dict("list")     # constant rates: nothing to disagree on
    {'spread': [0.0, 0.0], 'hidden_error': [0.0, 0.0], 'phase_gap': [105.0, 105.0]}
    """
    from hemkit.mpx.checked import hidden_errors
    from hemkit.mpx.phase import INTERPOLATIONS

    blind = mpx.without_truth()
    gap = blind.valid & ~blind.known
    values = {n: INTERPOLATIONS[n]().estimate_array(blind) for n in SPREAD_ESTIMATORS}
    sums = np.vstack([np.where(gap, values[n], 0.0).sum(axis=1) for n in SPREAD_ESTIMATORS])
    sum_error, n_hidden = hidden_errors(blind, INTERPOLATIONS["phase"](), ends=False)[1:]
    hidden = np.where((n_hidden > 0) & np.isfinite(sum_error), sum_error, 1.0)
    counted = np.where(blind.observed, np.nan_to_num(blind.raw), 0.0).sum(axis=1)
    phase_gap = np.maximum(np.where(blind.valid, values["phase"], 0.0).sum(axis=1) - counted, 0.0)
    return pd.DataFrame({"spread": sums.max(axis=0) - sums.min(axis=0), "hidden_error": hidden, "phase_gap": phase_gap})


def scale_parts(mpx: MpxData, totals: np.ndarray, inputs: pd.DataFrame | None = None) -> pd.DataFrame:
    """What the scale of each series is made of, from the multiplexed data alone (no truth).

    Parameters
    ----------
    mpx : MpxData
        The multiplexed series (``truth`` is not used).
    totals : ndarray (S,)
        The estimator's total of each series.
    inputs : DataFrame, optional
        :func:`scale_inputs` of ``mpx`` (computed when not given; pass it to score several
        estimators' totals of the same data).

    Returns
    -------
    DataFrame
        One row per series: ``counted`` (exact count of the slices), ``running_fraction``
        (time on a counter / time enabled), ``gaps`` (gap units), ``unseen_start`` (share of
        the enabled time before the first slice), ``rate_change`` (``S``), ``gap_size``
        (``sqrt(sum U^2)``), ``gap_jumps`` (``sqrt(sum (U dy)^2)``), ``vs_perf`` (``d``),
        ``perf_total``, ``base`` (``sqrt(S^2 sum U^2 + sum (U dy)^2 + d^2)``), ``spread``,
        ``hidden`` (``hidden_error x (total - counted)``, or ``x phase_gap`` where the total is not above
        the counted part), ``count_class`` and ``scale`` (the
        geometric mean of the parts :data:`SCALE_FORMS` names for the class).

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
    totals = np.asarray(totals, float)
    d = np.abs(totals - perf)
    if inputs is None:
        inputs = scale_inputs(mpx)
    parts = {
        "base": np.sqrt((rate_change * gap_size) ** 2 + gap_jumps**2 + d**2),
        "gap_jumps": gap_jumps,
        "spread": inputs["spread"].to_numpy(float),
        # the estimated part of the total; where the estimator put nothing beyond the counted part (min
        # leans low), phase's: the hidden error is a share of what the gaps may hold, not of one estimate
        "hidden": inputs["hidden_error"].to_numpy(float)
        * np.where(totals > counted, totals - counted, inputs["phase_gap"].to_numpy(float)),
    }
    classes = count_class(counted, running_fraction)
    scale = np.zeros(S)
    for c, form in SCALE_FORMS.items():
        here = classes == c
        scale[here] = np.prod([parts[p][here] for p in form], axis=0) ** (1 / len(form))
    scale = np.where(gap_size > 0, scale, 0.0)
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
            "base": parts["base"],
            "spread": parts["spread"],
            "hidden": parts["hidden"],
            "count_class": classes,
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

    def of(table: Mapping[str, tuple[float, ...]]) -> tuple[float, ...]:
        return table[count] if count in table else table[count.split("-")[0]]  # a split class: its parent's

    if estimator in MULTIPLIERS:
        qs = np.asarray(of(MULTIPLIERS[estimator]), float)
    else:
        qs = np.max(np.asarray([of(m) for m in MULTIPLIERS.values()], float), axis=0)
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
        g = t.assign(half=half, exact=t["gaps"] == 0).groupby("event", sort=False)
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
        """One line: series, level, estimator, how many are exact (counted the whole run), how many unbounded."""
        t = self.table
        unbounded = int(np.isinf(t["upper"]).sum())
        return (
            f"{len(t)} {self.estimator} totals with {self.level:g} intervals "
            f"({int((t['gaps'] == 0).sum())} exact"
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
    classes = parts["count_class"].to_numpy()
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
    inputs = scale_inputs(mpx)
    for name, values in estimates.items():
        values = np.asarray(values, float)
        totals = values if values.ndim == 1 else np.nansum(np.where(mpx.valid, values, np.nan), axis=1)
        z = error_ratios(mpx, totals, truth, inputs)
        classes = scale_parts(mpx, totals, inputs)["count_class"].to_numpy()
        for c in COUNT_CLASSES:
            zc = z[classes == c]
            if len(zc):
                rows[(name, c)] = [*(float(np.quantile(zc, lv, method="higher")) for lv in levels), len(zc)]
    index = pd.MultiIndex.from_tuples(list(rows), names=["estimator", "count_class"])
    return pd.DataFrame(list(rows.values()), index=index, columns=[*levels, "series"])


def error_ratios(mpx: MpxData, totals: np.ndarray, truth: np.ndarray, inputs: pd.DataFrame | None = None) -> np.ndarray:
    """``|total - truth| / scale`` per series (0 where both are 0, ``inf`` where only the scale is)."""
    err = np.abs(np.asarray(totals, float) - np.asarray(truth, float))
    s = scale_parts(mpx, totals, inputs)["scale"].to_numpy()
    tol = 1e-9 * np.maximum(np.abs(truth), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s > 0, err / np.where(s > 0, s, 1.0), np.where(err <= tol, 0.0, np.inf))


__all__ = [
    "COUNT_CLASSES",
    "HALF_SPLIT",
    "LEVELS",
    "MULTIPLIERS",
    "SCALE_FORMS",
    "SPREAD_ESTIMATORS",
    "MpxTotals",
    "calibrate",
    "calibration_name",
    "count_class",
    "error_ratios",
    "multiplier",
    "scale_inputs",
    "scale_parts",
    "total_intervals",
]
