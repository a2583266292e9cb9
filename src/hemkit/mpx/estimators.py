"""Multiplexing estimators behind one interface: ``fit(mpx) -> self``, ``estimate(mpx)``.

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
* :class:`MinInterpolation` -- a diagnostic baseline: the smaller of the two slices around
  a gap.  RA (Eq. 4) punishes an overestimate without bound and an underestimate by at most
  1, so this conservative rule scores a high RA while undercounting totals; it shows how
  much of an RA gain is mere caution (compare the total error).
* :class:`GrowthInterpolation` -- in the spirit of NeoMPX's non-linear estimator: a constant
  *growth rate* between slices, i.e. the rate is interpolated linearly in ``log(1 + rate)``
  (geometric interpolation), so bursts decay and build multiplicatively.

The learned estimators (MLP, Bi-GRU) are in :mod:`hemkit.mpx.learned`.  Every estimator
returns, for the intervals where the event was fully on a counter, the observed count
itself: only the gaps are estimated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError
from hemkit.mpx.emulate import MpxData


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


class MpxEstimator:
    """Base class: ``fit(mpx) -> self``; ``estimate_array(mpx)`` -> (S, T); ``estimate(mpx)`` -> tidy."""

    name = "base"

    def fit(self, mpx: MpxData) -> MpxEstimator:
        _check(mpx)
        return self

    def estimate_array(self, mpx: MpxData) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def estimate(self, mpx: MpxData) -> pd.DataFrame:
        """Tidy estimates ``run, step, event, estimate`` (one row per existing interval)."""
        est = self.estimate_array(mpx)
        v = mpx.valid
        s_idx, t_idx = np.nonzero(v)
        out = mpx.keys.iloc[s_idx].reset_index(drop=True).copy()
        out["step"] = t_idx
        out["estimate"] = est[v]
        return out

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.endswith("_"))
        return f"{type(self).__name__}({params})"


def _check(mpx: MpxData) -> None:
    if not isinstance(mpx, MpxData):
        raise HemkitError("estimators take MpxData (see hemkit.mpx.emulate)")
    empty = ~mpx.observed.any(axis=1) & (mpx.length > 0)
    if empty.any():
        k = mpx.keys.iloc[int(np.flatnonzero(empty)[0])]
        raise HemkitError(f"run {k['run']} event {k['event']}: never on a counter, nothing to estimate from")


def _finish(mpx: MpxData, est: np.ndarray) -> np.ndarray:
    """Keep exact counts where the event was on a counter the whole interval; NaN after the end."""
    full = mpx.observed & (mpx.running >= mpx.enabled)
    est = np.where(full, mpx.raw, est)
    return np.where(mpx.valid, np.maximum(est, 0.0), np.nan)


def _gap_weights(mpx: MpxData):
    """Per-interval perf value, neighbours and the weight of the next slice (0 = use prev only)."""
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
        w = np.where(has_p & has_n & (n > p), (t - p) / (n - p), 0.0)
    return vp, vn, w


class FixedInterpolation(MpxEstimator):
    """perf's / PAPI's fixed scaling (see the module docstring).

    Examples
    --------
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 1, 2, 3], "event": "a", "value": [4., 8., 2., 2.]})
    >>> m = emulate(pd.concat([tr, tr.assign(event="b")]), counters=1)
    >>> FixedInterpolation().fit(m).estimate_array(m)[0].tolist()
    [4.0, 4.0, 2.0, 2.0]
    """

    name = "fixed"

    def __init__(self, mode: str = "window"):
        self.mode = mode

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        _check(mpx)
        if self.mode == "window":
            vp, _, _ = _gap_weights(mpx)
            return _finish(mpx, vp)
        if self.mode == "cumulative":
            obs, v = mpx.observed, mpx.valid
            raw = np.cumsum(np.where(obs, mpx.raw, 0.0), axis=1)
            ena = np.cumsum(np.where(v, mpx.enabled, 0.0), axis=1)
            run = np.cumsum(np.where(obs, mpx.running, 0.0), axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                cum = np.where(run > 0, raw * ena / run, 0.0)
            est = np.diff(cum, axis=1, prepend=0.0)
            return np.where(v, est, np.nan)  # perf's running estimate, not clipped: its sum is perf's total
        raise HemkitError(f"fixed interpolation: unknown mode {self.mode!r} (window or cumulative)")


class LinearInterpolation(MpxEstimator):
    """The rate moves linearly between the slices around a gap (Mathur et al. 2005)."""

    name = "linear"

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        _check(mpx)
        vp, vn, w = _gap_weights(mpx)
        return _finish(mpx, vp + (vn - vp) * w)


class GrowthInterpolation(MpxEstimator):
    """Constant growth rate between slices: linear interpolation of ``log(1 + rate)``."""

    name = "growth"

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        _check(mpx)
        vp, vn, w = _gap_weights(mpx)
        lp, ln = np.log1p(np.maximum(vp, 0)), np.log1p(np.maximum(vn, 0))
        return _finish(mpx, np.expm1(lp + (ln - lp) * w))


class MinInterpolation(MpxEstimator):
    """The smaller of the slices around a gap (a cautious diagnostic baseline, see the module docstring)."""

    name = "min"

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        _check(mpx)
        vp, vn, _ = _gap_weights(mpx)
        return _finish(mpx, np.minimum(vp, vn))


N_SIBLINGS = 4


def sibling_index(keys: pd.DataFrame, n: int = N_SIBLINGS) -> np.ndarray:
    """(S, n) index of the events read in the same run, in the run's event order after each
    series (position + 1, + 2, ... modulo the run's events); -1 where the run has fewer events.
    """
    run_code = pd.factorize(keys["run"])[0]
    pos = keys.groupby(run_code, sort=False).cumcount().to_numpy()
    size = np.bincount(run_code)[run_code]
    table = np.full((run_code.max() + 1, int(size.max())), -1)
    table[run_code, pos] = np.arange(len(keys))
    k = np.arange(1, n + 1)[None, :]
    sib = table[run_code[:, None], (pos[:, None] + k) % size[:, None]]
    return np.where(k < size[:, None], sib, -1)


def interpolation_features(mpx: MpxData) -> np.ndarray:
    """Per-interval features for the learned estimators, shape (S, T, 9 + 2 x 4), log10-scaled counts.

    Own series: ``log10(1+fixed), log10(1+linear), log10(1+growth), log10(1+min), observed,
    steps since / until the nearest slice (/10), position in the run, log10(1 + mean observed
    rate)``.  The other events of the same run (up to 4, in rotation order): their level
    ``log10(1 + growth) - log10(1 + mean)`` and whether they were on a counter -- multiplexing
    sees *some* events in every interval, and events of one program move together.
    """
    obs = mpx.observed
    S, T = obs.shape
    fixed = FixedInterpolation().estimate_array(mpx)
    lin = LinearInterpolation().estimate_array(mpx)
    gro = GrowthInterpolation().estimate_array(mpx)
    low = MinInterpolation().estimate_array(mpx)
    prev, nxt = neighbours(obs)
    t = np.arange(T)[None, :]
    since = np.where(prev >= 0, t - prev, 10) / 10.0
    until = np.where(nxt < T, nxt - t, 10) / 10.0
    pos = t / np.maximum(mpx.length[:, None], 1)
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(np.where(obs, mpx.perf_values(), np.nan), axis=1)
    lmean = np.log10(1 + np.nan_to_num(mean))[:, None]
    lgro = np.log10(1 + np.nan_to_num(gro))
    level = np.where(mpx.valid, lgro - lmean, 0.0)
    sib = sibling_index(mpx.keys)
    has = (sib >= 0)[:, :, None]
    sib_level = np.where(has, level[sib.clip(0)], 0.0)  # (S, 4, T)
    sib_obs = np.where(has, obs[sib.clip(0)], 0.0)
    feats = np.concatenate(
        [
            np.stack(
                [
                    np.log10(1 + np.nan_to_num(fixed)),
                    np.log10(1 + np.nan_to_num(lin)),
                    lgro,
                    np.log10(1 + np.nan_to_num(low)),
                    obs.astype(float),
                    since,
                    until,
                    np.broadcast_to(pos, (S, T)),
                    np.broadcast_to(lmean, (S, T)),
                ],
                axis=-1,
            ),
            sib_level.transpose(0, 2, 1),
            sib_obs.transpose(0, 2, 1),
        ],
        axis=-1,
    )
    return np.where(mpx.valid[..., None], feats, 0.0).astype(np.float32)


ESTIMATORS = {
    "fixed": FixedInterpolation,
    "linear": LinearInterpolation,
    "growth": GrowthInterpolation,
    "min": MinInterpolation,
}


def make_estimator(name: str, **params) -> MpxEstimator:
    """An estimator by name: ``fixed``, ``fixed-cumulative``, ``linear``, ``growth``, ``min``, ``mlp``, ``bigru``."""
    if name == "fixed-cumulative":
        return FixedInterpolation(mode="cumulative")
    if name in ESTIMATORS:
        return ESTIMATORS[name](**params)
    if name in ("mlp", "bigru"):
        from hemkit.mpx.learned import BiGRUEstimator, MLPEstimator

        return (MLPEstimator if name == "mlp" else BiGRUEstimator)(**params)
    raise HemkitError(f"unknown estimator {name!r} (fixed, fixed-cumulative, linear, growth, min, mlp, bigru)")
