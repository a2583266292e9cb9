"""Multiplexing estimators behind one interface (scikit-learn style).

``Estimator(**params).fit(mpx)``, ``estimate(mpx) -> MpxEstimate``, ``estimate_array(mpx) -> ndarray (S, T)``.

Interpolation estimators (nothing to learn; ``fit`` only checks its input):

* :class:`FixedInterpolation` -- perf's and PAPI's scaling (Wang et al. 2022, Eq. (2):
  ``Counted_i = Sampled_i x Interval``; May 2001).  ``mode="window"`` (default): an interval
  where the event was on a counter gets perf's ``-I`` value ``raw x enabled / running``
  and that value holds until the event is on a counter again (perf prints
  ``<not counted>`` in between; the rate measured in the last slice is assumed to hold).
  ``mode="cumulative"``: the difference of successive PAPI/perf reads of the running total,
  ``sum raw x sum enabled / sum running``, whose last value is perf's total estimate.
* :class:`LinearInterpolation` -- Mathur et al. 2005: the rate changes linearly between
  the two slices around an unobserved interval.
* :class:`GrowthInterpolation` -- in the spirit of NeoMPX's non-linear estimator: a constant
  *growth rate* between slices, i.e. the rate is interpolated linearly in ``log(1 + rate)``
  (geometric interpolation), so bursts decay and build multiplicatively.
* :class:`MinInterpolation` -- a diagnostic baseline: the smaller of the two slices around
  a gap.  RA (Eq. 4) punishes an overestimate without bound and an underestimate by at most
  1, so this conservative rule scores a high RA while undercounting totals; it shows how
  much of an RA gain is mere caution (compare the total error).
* :class:`ZeroFill` -- nothing in the gaps: a candidate for the series of sparse events.
* :class:`LocalInterpolation` -- the value with the smallest summed relative error against
  the nearest slices around a gap (a weighted median, weights ``1 / count``, or 0): what RA
  (Eq. 4) itself asks of an estimate when the slices around a gap disagree (a burst next to
  quiet intervals).
* :class:`PhaseInterpolation` (see :mod:`hemkit.mpx.phase`) -- uses what the events *on* a
  counter during a gap say about when the program changed phase.

hemkit's default, :class:`hemkit.mpx.checked.CheckedEstimation`, chooses among these per
series by how well each predicts the series' own hidden slices, and its totals apart.

The learned estimators (MLP, Bi-GRU) are in :mod:`hemkit.mpx.learned`; every estimator is
made by name with :func:`hemkit.mpx.registry.make_estimator`.  Every estimator returns, for
the intervals where the event was fully on a counter, the observed count itself, and 0 where
the program did not run (``enabled = 0``): only the gaps are estimated.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from hemkit.core.errors import InputError
from hemkit.core.progress import ProgressLike
from hemkit.mpx.emulate import MpxData
from hemkit.mpx.results import MpxEstimate


def neighbours(observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the previous and next observed interval for every interval (-1 / T when none).

    Examples
    --------
    >>> p, n = neighbours(np.array([[False, True, False, False, True]]))
    >>> p.tolist(), n.tolist()
    ([[-1, 1, 1, 1, 4]], [[1, 1, 4, 4, 4]])
    """
    S, T = observed.shape
    idx = np.broadcast_to(np.arange(T), (S, T))
    prev = np.maximum.accumulate(np.where(observed, idx, -1), axis=1)
    nxt = np.minimum.accumulate(np.where(observed, idx, T)[:, ::-1], axis=1)[:, ::-1]
    return prev, nxt


def check_data(mpx: Any) -> MpxData:
    """Raise unless ``mpx`` is :class:`MpxData` with at least one slice per series."""
    if not all(hasattr(mpx, a) for a in ("keys", "raw", "enabled", "running", "length", "observed")):
        raise InputError(f"estimators take MpxData (see hemkit.mpx.emulate), got {type(mpx).__name__}")
    if len(mpx.keys) == 0:
        raise InputError("no series to estimate")
    empty = ~mpx.observed.any(axis=1) & ~(mpx.idle | ~mpx.valid).all(axis=1)
    if empty.any():
        k = mpx.keys.iloc[int(np.flatnonzero(empty)[0])]
        raise InputError(
            f"run {k['run']!r}: event {k['event']!r} was never on a counter: nothing to estimate from (the run ended "
            "before its turn: record a longer run or fewer events per run, or emulate it on more counters, --pmcs)"
        )
    return mpx


def finish(mpx: MpxData, est: np.ndarray) -> np.ndarray:
    """Exact counts where known, 0 where the program did not run, NaN after the end, never negative."""
    est = np.where(mpx.full, mpx.raw, np.where(mpx.idle, 0.0, est))
    return np.where(mpx.valid, np.maximum(np.nan_to_num(est), 0.0), np.nan)


def gap_weights(mpx: MpxData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-interval perf value of the slice before and after each gap and the weight of the next one.

    A gap before the first slice takes the first slice; after the last, the last.

    Examples
    --------
    >>> from hemkit.mpx.emulate import emulate
    >>> import pandas as pd
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 0, 1, 1, 2, 2], "event": ["a", "b"] * 3})
    >>> vp, vn, w = gap_weights(emulate(tr.assign(value=[1.0, 0, 9, 0, 5, 0]), pmcs=1))
    >>> vp[0].tolist(), vn[0].tolist(), w[0].tolist()
    ([1.0, 1.0, 5.0], [1.0, 5.0, 5.0], [0.0, 0.5, 0.0])
    """
    obs = mpx.observed
    val = np.nan_to_num(mpx.perf_values())
    prev, nxt = neighbours(obs)
    T = obs.shape[1]
    has_p, has_n = prev >= 0, nxt < T
    p = np.where(has_p, prev, nxt).clip(0, T - 1)
    n = np.where(has_n, nxt, prev).clip(0, T - 1)
    rows = np.arange(obs.shape[0])[:, None]
    vp, vn = val[rows, p], val[rows, n]
    t = np.arange(T)[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(has_p & has_n & (n > p), (t - p) / np.maximum(n - p, 1), 0.0)
    return vp, vn, w


class MpxEstimator:
    """Base class: ``fit(mpx) -> self``; ``estimate_array(mpx)`` -> (S, T); ``estimate(mpx)`` -> :class:`MpxEstimate`.

    Parameters live in ``__init__`` (no logic there); learned state in attributes ending in
    ``_``.  Interpolation estimators learn nothing and need no ``fit``.

    Examples
    --------
    An estimator of one's own fills the gaps of each series with the mean of its counted
    slices (:func:`finish` puts back the exact counts and the end of each series):

    >>> from hemkit.mpx import make_estimator, score_traces, synthetic_trace, ScoreOptions
    >>> from hemkit.mpx.emulate import emulate
    >>> class MeanFill(MpxEstimator):
    ...     '''Every gap filled with the mean of the series' counted slices.'''
    ...     name = "mean"
    ...     def estimate_array(self, mpx):
    ...         v = mpx.perf_values()
    ...         return finish(mpx, np.broadcast_to(np.nanmean(v, axis=1, keepdims=True), v.shape))
    >>> mpx = emulate(synthetic_trace(runs=2, steps=60, seed=1), pmcs=2)
    >>> est = MeanFill().estimate(mpx.without_truth())
    >>> type(est).__name__, est.values.shape == mpx.truth.shape
    ('MpxEstimate', True)

    Scored against the built-in ones, it is worst on RA (the share of intervals estimated
    well):

    >>> ests = {"fixed": make_estimator("fixed"), "mean": MeanFill(), "phase": make_estimator("phase")}
    >>> scores = score_traces(synthetic_trace(runs=3, steps=80), ests, ScoreOptions(dtw=False))
    >>> print(scores.summary()[["ra", "total_error"]].round(2).reset_index().to_string(index=False))
    estimator   ra  total_error
        phase 0.75         0.02
        fixed 0.34         0.13
         mean 0.03         0.11
    """

    name: ClassVar[str] = "base"

    def get_params(self) -> dict[str, Any]:
        """The estimator's parameters (its ``__init__`` arguments)."""
        return {k: v for k, v in vars(self).items() if not k.endswith("_") and not k.startswith("_")}

    def fit(self, mpx: MpxData, validation: MpxData | None = None, progress: ProgressLike = None) -> MpxEstimator:
        """Learn from ``mpx`` (emulated, with ``truth``); interpolation estimators only check it."""
        check_data(mpx)
        return self

    def estimate_array(self, mpx: MpxData) -> np.ndarray:  # pragma: no cover - abstract
        """Estimated count per interval, (S, T), NaN after the end of each series."""
        raise NotImplementedError

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the fitted estimator to ``path`` (only learned estimators have anything to save)."""
        raise InputError(f"estimator {self.name!r} learns nothing; there is no model to save")

    def estimate_with_totals(self, mpx: MpxData) -> tuple[np.ndarray, np.ndarray]:
        """Estimated series (S, T) and each series' estimated total (S,): by default the sum of its series.

        An estimator may estimate a total apart from its series (see :mod:`hemkit.mpx.checked`):
        the interval values that are most often right are not the ones whose sum is.
        """
        values = self.estimate_array(mpx)
        return values, np.nansum(np.where(mpx.valid, values, np.nan), axis=1)

    def estimate_totals(self, mpx: MpxData) -> np.ndarray:
        """Each series' estimated total, (S,)."""
        return self.estimate_with_totals(mpx)[1]

    def estimate(self, mpx: MpxData) -> MpxEstimate:
        """Estimate every series of ``mpx``: an :class:`MpxEstimate`."""
        values, totals = self.estimate_with_totals(mpx)
        return MpxEstimate.from_array(mpx, values, self.name, self.get_params(), totals=totals)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"


class FixedInterpolation(MpxEstimator):
    """perf's / PAPI's fixed scaling (see the module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 1, 2, 3], "event": "a", "value": [4., 8., 2., 2.]})
    >>> m = emulate(pd.concat([tr, tr.assign(event="b")]), pmcs=1)
    >>> FixedInterpolation().estimate_array(m)[0].tolist()
    [4.0, 4.0, 2.0, 2.0]
    """

    name = "fixed"

    def __init__(self, mode: str = "window"):
        self.mode = mode

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """Hold perf's value of each slice (``window``) or difference perf's running total (``cumulative``)."""
        check_data(mpx)
        if self.mode == "window":
            vp, _, _ = gap_weights(mpx)
            return finish(mpx, vp)
        if self.mode == "cumulative":
            obs, v = mpx.observed, mpx.valid
            raw = np.cumsum(np.where(obs, mpx.raw, 0.0), axis=1)
            ena = np.cumsum(np.where(v, np.nan_to_num(mpx.enabled), 0.0), axis=1)
            run = np.cumsum(np.where(obs, mpx.running, 0.0), axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                cum = np.where(run > 0, raw * ena / run, 0.0)
            est = np.diff(cum, axis=1, prepend=0.0)
            return np.where(v, est, np.nan)  # perf's running estimate, not clipped: its sum is perf's total
        raise InputError(f"fixed interpolation: unknown mode {self.mode!r} (window or cumulative)")


class LinearInterpolation(MpxEstimator):
    """The rate moves linearly between the slices around a gap (Mathur et al. 2005).

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 1, 2], "event": "a", "value": [0., 5., 10.]})
    >>> LinearInterpolation().estimate_array(emulate(pd.concat([tr, tr.assign(event="b")]), pmcs=1))[0].tolist()
    [0.0, 5.0, 10.0]
    """

    name = "linear"

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """Linear interpolation of perf's values between slices."""
        check_data(mpx)
        vp, vn, w = gap_weights(mpx)
        return finish(mpx, vp + (vn - vp) * w)


class GrowthInterpolation(MpxEstimator):
    """Constant growth rate between slices: linear interpolation of ``log(1 + rate)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 1, 2], "event": "a", "value": [0., 5., 99.]})
    >>> m = emulate(pd.concat([tr, tr.assign(event="b")]), pmcs=1)
    >>> GrowthInterpolation().estimate_array(m)[0].round(6).tolist()
    [0.0, 9.0, 99.0]
    """

    name = "growth"

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """Geometric interpolation of ``1 + value`` between slices."""
        check_data(mpx)
        vp, vn, w = gap_weights(mpx)
        lp, ln = np.log1p(np.maximum(vp, 0)), np.log1p(np.maximum(vn, 0))
        return finish(mpx, np.expm1(lp + (ln - lp) * w))


class MinInterpolation(MpxEstimator):
    """The smaller of the slices around a gap (a cautious diagnostic baseline, see the module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 1, 2], "event": "a", "value": [7., 5., 3.]})
    >>> MinInterpolation().estimate_array(emulate(pd.concat([tr, tr.assign(event="b")]), pmcs=1))[0].tolist()
    [7.0, 3.0, 3.0]
    """

    name = "min"

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """The smaller neighbouring slice."""
        check_data(mpx)
        vp, vn, _ = gap_weights(mpx)
        return finish(mpx, np.minimum(vp, vn))


class ZeroFill(MpxEstimator):
    """Nothing happened in the gaps: every unobserved interval is 0 (the slices stay as counted).

    Not an estimator of totals (it undercounts any event that ran in its gaps): a candidate
    for series of sparse events -- system calls, page allocations, context switches that come
    in rare bursts -- whose typical interval is 0, where relative accuracy is best served by 0.
    :mod:`hemkit.mpx.checked` uses it only where a series' own hidden slices say so.

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 1, 2], "event": "a", "value": [7., 5., 3.]})
    >>> ZeroFill().estimate_array(emulate(pd.concat([tr, tr.assign(event="b")]), pmcs=1))[0].tolist()
    [7.0, 0.0, 3.0]
    """

    name = "zero"

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """The counted slices, 0 elsewhere."""
        check_data(mpx)
        return finish(mpx, np.zeros(mpx.raw.shape))


class LocalInterpolation(MpxEstimator):
    """The estimate that best fits the nearest slices around a gap in relative error.

    Each interval of a gap gets the value ``x`` that minimises ``sum_j |x - y_j| / y_j`` over
    the perf values ``y_j`` of the ``slices / 2`` slices before it and the ``slices / 2`` after
    it (fewer at the ends of a run), with hemkit's zero rule (a slice that read 0 costs 1 for
    any ``x >= 0.5``): the weighted median of the non-zero slices (weights ``1 / y_j``; the
    lower one where two fit equally), or 0 where that costs less.  This is the value RA (Eq. 4)
    rewards if the gap behaves like the slices around it; a burst in one neighbouring slice
    then does not spread into the gap (RA punishes an overestimate without bound).

    Parameters
    ----------
    slices : int
        Even, >= 2: the number of neighbouring slices (``2``: the smaller of the two around a
        gap, as ``min``).

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": range(7), "event": "a", "value": [4., 5., 9000., 5., 4., 6., 5.]})
    >>> m = emulate(pd.concat([tr, tr.assign(event="b")]), pmcs=1)   # 'a' counted at steps 0, 2, 4 and 6
    >>> LocalInterpolation(slices=4).estimate_array(m)[0].tolist()   # the burst at step 2 stays there
    [4.0, 4.0, 9000.0, 4.0, 4.0, 4.0, 5.0]
    >>> LinearInterpolation().estimate_array(m)[0].tolist()
    [4.0, 4502.0, 9000.0, 4502.0, 4.0, 4.5, 5.0]
    """

    name = "local"

    def __init__(self, slices: int = 12):
        self.slices = slices

    def _check_params(self) -> None:
        if isinstance(self.slices, bool) or not isinstance(self.slices, (int, np.integer)):
            raise InputError(f"local interpolation: slices must be an even integer >= 2, got {self.slices!r}")
        if self.slices < 2 or self.slices % 2:
            raise InputError(f"local interpolation: slices must be an even integer >= 2, got {self.slices!r}")

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """The relative-error fit to the nearest slices in every gap."""
        check_data(mpx)
        self._check_params()
        near = nearest_slices(mpx.observed, np.nan_to_num(mpx.perf_values()), int(self.slices) // 2)
        gap = mpx.valid & ~mpx.full & ~mpx.idle
        est = np.zeros(mpx.raw.shape)
        est[gap] = relative_fit(near[gap])
        return finish(mpx, est)


def nearest_slices(observed: np.ndarray, values: np.ndarray, half: int) -> np.ndarray:
    """Values of the ``half`` observed slices before and the ``half`` after each interval (S, T, 2 half; NaN: none).

    Both strictly before and strictly after the interval (an observed interval is not its own neighbour).

    Examples
    --------
    >>> obs = np.array([[True, False, True, False, True]])
    >>> nearest_slices(obs, np.array([[1.0, 0, 3, 0, 5]]), 1)[0].tolist()
    [[nan, 3.0], [1.0, 3.0], [1.0, 5.0], [3.0, 5.0], [3.0, nan]]
    """
    S, T = observed.shape
    before = np.cumsum(observed, axis=1) - observed  # observed slices strictly before t
    n_obs = observed.sum(axis=1)[:, None]
    order = np.argsort(~observed, axis=1, kind="stable")  # positions of the observed slices first, in order
    ranked = np.take_along_axis(values, order, axis=1)
    out = np.full((S, T, 2 * half), np.nan)
    for j in range(half):
        r = before - 1 - j
        out[:, :, half - 1 - j] = np.where(r >= 0, np.take_along_axis(ranked, r.clip(0), axis=1), np.nan)
        r = before + observed + j
        out[:, :, half + j] = np.where(r < n_obs, np.take_along_axis(ranked, r.clip(0, T - 1), axis=1), np.nan)
    return out


def relative_fit(y: np.ndarray) -> np.ndarray:
    """Per row of ``y`` (N, K; NaN = none): the ``x`` minimising ``sum_j relative error(x, y_j)``.

    The lower weighted median of the positive values (weights ``1 / y_j``; each 0 adds 1 to
    the cost of any ``x >= 0.5``), or 0 where that costs less (ties: 0).  A row without any
    value gets 0.

    Examples
    --------
    >>> relative_fit(np.array([[10.0, 1000.0, 12.0, np.nan], [0.0, 0.0, 5.0, np.nan], [2.0, 4.0, 0.0, 0.0]])).tolist()
    [10.0, 0.0, 0.0]
    """
    y = np.asarray(y, float)
    pos = np.where(y > 0, y, np.inf)
    order = np.sort(pos, axis=1)
    w = np.where(np.isfinite(order), 1.0 / order, 0.0)
    cum = np.cumsum(w, axis=1)
    total = cum[:, -1:]
    k = np.argmax(cum >= total / 2 - 1e-12, axis=1)  # the lower weighted median
    m = np.take_along_axis(order, k[:, None], axis=1)[:, 0]
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(y > 0, np.abs(m[:, None] - y) / np.where(y > 0, y, 1.0), (y == 0) & (m[:, None] >= 0.5))
    cost_m = np.where(np.isnan(y), 0.0, rel).sum(axis=1)
    cost_0 = (y > 0).sum(axis=1).astype(float)
    return np.where((m > 0) & (cost_m < cost_0), m, 0.0)


__all__ = [
    "FixedInterpolation",
    "GrowthInterpolation",
    "LinearInterpolation",
    "LocalInterpolation",
    "MinInterpolation",
    "MpxEstimator",
    "ZeroFill",
    "check_data",
    "finish",
    "gap_weights",
    "nearest_slices",
    "neighbours",
    "relative_fit",
]
