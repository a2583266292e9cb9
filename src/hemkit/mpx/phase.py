"""Phase-aware interpolation: the main candidate of hemkit's default multiplexing estimator.

Under multiplexing an event is off its counter for a run of intervals (a *gap*); perf holds
the last slice's rate (:class:`hemkit.mpx.estimators.FixedInterpolation`), plain
interpolation draws a line.  Both ignore two things perf's own output tells:

1. **When the program changed phase.**  During an event's gap *other* events are on the
   counters.  When the event's level differs before and after the gap, its change most
   likely sits where the observed events changed.  Every other event ``j`` of the run has,
   for every boundary ``k`` (between intervals ``k-1`` and ``k``), a pair of slices around
   it: its last slice before ``k`` and its first slice from ``k`` on.  Its jump over that
   pair, ``z_j(k) = |y_j(after) - y_j(before)| / s_j`` (``y = log(1 + rate)``, ``s_j`` the
   event's typical step-to-step change), is evidence that the program changed phase
   somewhere between the two slices; a pair of adjacent slices pins the change to ``k``, a
   longer pair only says it is somewhere in between.  Not every event moves with every
   other (a burst of page frees says little about system calls), so each event ``j`` counts
   for event ``e`` in proportion to its *relevance* ``r_ej``: the rank correlation, over the
   run, between ``e``'s jumps from slice to slice and ``j``'s largest jump in the same
   stretch (at least ``min_relevance``).  The evidences add up (as log-likelihood ratios) to
   ``d_k = sum_j r_ej min(z_j(k), cap)``, and ``e``'s change is put at boundary ``k`` of its
   gap with probability ``P(k) ~ exp(sharpness * d_k)``.  The estimate at interval ``t`` is
   the mixture ``(1 - P(k <= t)) * before + P(k <= t) * after`` on the ``log(1 + rate)``
   scale (``sharpness = 0`` is growth-rate interpolation).
2. **When, and how long, the program ran.**  perf reports each interval's enabled time for
   every event, on a counter or not: where it is 0 the program did not run and every count
   is 0; where it is short, counts of events that grow with running time are short too.  So
   *rates* are interpolated, ``count / (enabled / typical) ** g``, then multiplied back by
   each interval's ``(enabled / typical) ** g``.  The exponent ``g`` of each event is fitted
   on its own slices (least squares of ``log count`` on ``log enabled``, clipped to 0..1):
   about 1 for ``task-clock`` or ``cycles``, about 0 for ``context-switches``, whose count
   does not grow with the time run.  Where the enabled time hardly varies, ``g = 1``.

**Totals.**  The log-scale mixture leans low where the evidence is weak (a geometric mean
is below the arithmetic one), which relative accuracy rewards and totals do not.  perf's
scaled total (``sum raw x sum enabled / sum running``) is unbiased but noisy per interval.
``balance`` moves the estimated gap counts of a series part of the way to perf's total:
they are multiplied by ``(needed / estimated) ** balance`` (0 = no forcing, 1 = exactly
perf's total).  The defaults were chosen by leaving whole workloads out (BENCHMARKS.md).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.mpx.emulate import MpxData
from hemkit.mpx.estimators import (
    FixedInterpolation,
    GrowthInterpolation,
    LinearInterpolation,
    LocalInterpolation,
    MinInterpolation,
    MpxEstimator,
    ZeroFill,
    check_data,
    finish,
    neighbours,
)


def typical_steps(y: np.ndarray, floor: float = 0.05) -> np.ndarray:
    """Each event's typical step-to-step change of ``y``: 1.48 x the median absolute change, + ``floor``.

    Examples
    --------
    >>> typical_steps(np.array([[1.0, 1.1, 1.0, 5.0], [2.0, np.nan, 2.0, 2.0]])).round(3).tolist()
    [0.198, 0.05]
    """
    dy = np.abs(np.diff(y, axis=1))
    if dy.shape[1] == 0:
        return np.full(len(y), floor)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an event never on two adjacent slices
        s = np.nanmedian(dy, axis=1) * 1.4826
    return np.where(np.isfinite(s), s, 0.0) + floor


def pair_jumps(y: np.ndarray, *, cap: float = 6.0, floor: float = 0.05) -> np.ndarray:
    """Each event's jump ``min(z_j(k), cap)`` over its pair of slices around each boundary k = 1..T-1.

    ``y`` (E, T) is ``log(1 + rate)`` where an event was on a counter, NaN elsewhere; the
    result is (E, T-1), 0 where an event has no slice on one side.

    Examples
    --------
    >>> y = np.array([[1.0, 1.0, np.nan, 5.0], [2.0, np.nan, 2.0, 2.0]])
    >>> pair_jumps(y).tolist()   # event 0 jumps somewhere in (1, 3]; event 1 is steady
    [[0.0, 6.0, 6.0], [0.0, 0.0, 0.0]]
    """
    E, T = y.shape
    if T < 2:
        return np.zeros((E, 0))
    obs = ~np.isnan(y)
    s = typical_steps(y, floor)
    prev, nxt = neighbours(obs)
    before, after = prev[:, :-1], nxt[:, 1:]  # each event's pair of slices around boundary k = 1..T-1
    ok = (before >= 0) & (after < T)
    rows = np.arange(E)[:, None]
    with np.errstate(invalid="ignore"):
        z = np.abs(y[rows, after.clip(max=T - 1)] - y[rows, before.clip(min=0)]) / s[:, None]
    return np.where(ok, np.minimum(np.nan_to_num(z), cap), 0.0)


def relevance(jumps: np.ndarray, observed: np.ndarray, *, least: float = 0.2) -> np.ndarray:
    """(E, E): how far event j's jumps go with event i's, over one run (rank correlation, >= ``least``).

    For every pair of consecutive slices of event i, its own jump is compared with the
    largest jump of event j between the same two slices; the Spearman correlation of the
    two over the run is ``r_ij`` (``least`` where it is lower, or where either never varies;
    1 where i has fewer than 6 such pairs: too few to judge).  The diagonal is 0.

    Examples
    --------
    >>> t = np.arange(40)
    >>> step = (t // 10 % 2).astype(float)
    >>> y = np.vstack([step * 3, step * 2 + 1, np.sin(t)])      # 0 and 1 change together, 2 does not
    >>> obs = (t[None, :] + np.arange(3)[:, None]) % 3 != 0
    >>> r = relevance(pair_jumps(np.where(obs, y, np.nan)), obs)
    >>> bool(r[0, 1] > 0.5 and r[0, 2] < 0.5)
    True
    """
    E, K = jumps.shape
    rho = np.ones((E, E))
    for i in range(E):
        idx = np.flatnonzero(observed[i])
        if len(idx) < 7:
            continue
        a, b = idx[:-1], idx[1:]  # consecutive slices of i; boundaries a+1..b are columns a..b-1
        own = jumps[i, b - 1]
        others = np.maximum.reduceat(jumps, a, axis=1) if K else np.zeros((E, 0))
        if own.std() == 0:
            rho[i] = least
            continue
        r_own = _ranks(own)
        for j in range(E):
            if j == i:
                continue
            v = others[j, : len(a)]
            rho[i, j] = least if v.std() == 0 else max(least, float(np.corrcoef(r_own, _ranks(v))[0, 1]))
    np.fill_diagonal(rho, 0.0)
    return rho


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share their mean rank)."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x), dtype=float)
    _, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.bincount(inv, weights=ranks)
    return (sums / counts)[inv]


def time_exponents(observed: np.ndarray, values: np.ndarray, enabled: np.ndarray) -> np.ndarray:
    """Per event: how its count grows with the time the program ran (0..1; 1 where that time hardly varies).

    The least-squares slope of ``log count`` on ``log enabled`` over the event's slices with
    a positive count (at least 8), clipped to [0, 1].

    Examples
    --------
    >>> ena = np.array([1.0, 2.0, 4.0, 8.0] * 3)
    >>> obs = np.ones((2, 12), bool)
    >>> time_exponents(obs, np.vstack([3 * ena, np.full(12, 5.0)]), ena).round(2).tolist()
    [1.0, 0.0]
    """
    g = np.ones(observed.shape[0])
    with np.errstate(all="ignore"):
        le = np.log(np.where(enabled > 0, enabled, np.nan))
        lv = np.log(np.where(values > 0, values, np.nan))
    for j in range(observed.shape[0]):
        m = observed[j] & np.isfinite(le) & np.isfinite(lv[j])
        if m.sum() < 8:
            continue
        x, v = le[m], lv[j, m]
        vx = x.var()
        if vx < 0.01:  # the program ran about as long in every interval: nothing to fit
            continue
        g[j] = float(np.clip(((x - x.mean()) * (v - v.mean())).mean() / vx, 0.0, 1.0))
    return g


class PhaseInterpolation(MpxEstimator):
    """Phase-aware interpolation of rates (see the module docstring).

    Parameters
    ----------
    sharpness : float
        How strongly the other events' jumps place the unseen event's change (0 = not at
        all: growth-rate interpolation of rates).
    cap : float
        Largest jump one event's pair of slices contributes (in typical steps).
    balance : float
        0..1: how far each series' gap counts move toward perf's scaled total.
    floor : float
        Smallest typical step-to-step change of ``log(1 + rate)`` (keeps tiny noise from
        looking like a phase change).
    min_relevance : float
        0..1: the least weight another event's jumps get (1: every event counts fully).

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> m = emulate(synthetic_trace(runs=2, steps=60, seed=1), pmcs=2)
    >>> est = PhaseInterpolation().estimate_array(m.without_truth())
    >>> est.shape == m.truth.shape and bool(np.isfinite(est[m.valid]).all())
    True
    """

    name = "phase"

    def __init__(
        self,
        sharpness: float = 1.0,
        cap: float = 6.0,
        balance: float = 0.0,
        floor: float = 0.05,
        min_relevance: float = 0.2,
    ):
        self.sharpness = sharpness
        self.cap = cap
        self.balance = balance
        self.floor = floor
        self.min_relevance = min_relevance

    def _check_params(self) -> None:
        for name, value, low, high in (
            ("sharpness", self.sharpness, 0.0, 100.0),
            ("cap", self.cap, 0.0, 1e6),
            ("balance", self.balance, 0.0, 1.0),
            ("floor", self.floor, 1e-9, 1e6),
            ("min_relevance", self.min_relevance, 0.0, 1.0),
        ):
            check_scalar(value, name, "real", min_val=low, max_val=high, what="phase interpolation")

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """Phase-aware estimates, (S, T)."""
        check_data(mpx)
        self._check_params()
        est = np.zeros(mpx.raw.shape)
        obs = mpx.observed
        pv = np.nan_to_num(mpx.perf_values())
        ena = np.where(mpx.valid, np.nan_to_num(mpx.enabled), 0.0)
        run_code = pd.factorize(mpx.keys["run"])[0]
        order = np.argsort(run_code, kind="stable")
        for rows in np.split(order, np.flatnonzero(np.diff(run_code[order])) + 1):
            est[rows] = self._run(obs[rows], pv[rows], ena[rows])
        est = finish(mpx, est)
        return self._balance(mpx, est) if self.balance > 0 else est

    def _run(self, obs: np.ndarray, pv: np.ndarray, ena: np.ndarray) -> np.ndarray:
        """Estimates of the events of one run (counted together)."""
        E, T = obs.shape
        e_step = ena.max(axis=0)  # the program's running time per interval (the same for all its events)
        typical = float(np.median(e_step[e_step > 0])) if (e_step > 0).any() else 1.0
        g = time_exponents(obs, pv, e_step)
        rel = e_step / typical
        with np.errstate(all="ignore"):
            to_count = np.where(rel[None, :] > 0, rel[None, :] ** g[:, None], 0.0)
            rate = np.where(obs & (to_count > 0), pv / np.where(to_count > 0, to_count, 1.0), np.nan)
        y = np.log1p(rate)
        jumps = pair_jumps(y, cap=self.cap, floor=self.floor)
        d = relevance(jumps, obs, least=self.min_relevance) @ jumps  # (E, T-1): evidence for each event
        d = d - (d.max(axis=1, keepdims=True) if d.shape[1] else 0.0)  # only differences matter
        w = np.exp(np.maximum(self.sharpness * d, -700.0))
        W = np.concatenate([np.zeros((E, 1)), np.cumsum(w, axis=1)], axis=1)  # W[e, t]: weights of boundaries 1..t
        prev, nxt = neighbours(obs)
        t = np.broadcast_to(np.arange(T), (E, T))
        has_p, has_n = prev >= 0, nxt < T
        p = np.where(has_p, prev, np.where(has_n, nxt, 0))
        n = np.where(has_n, nxt, p)
        rows = np.arange(E)[:, None]
        with np.errstate(all="ignore"):
            share = (W[rows, t] - W[rows, p]) / (W[rows, n] - W[rows, p])
        share = np.where(has_p & has_n & (n > p), np.nan_to_num(share), np.where(has_p, 0.0, 1.0))
        ya, yb = np.nan_to_num(y[rows, p]), np.nan_to_num(y[rows, n])
        return np.expm1(ya + (yb - ya) * share) * to_count

    def _balance(self, mpx: MpxData, est: np.ndarray) -> np.ndarray:
        """Move each series' gap counts ``balance`` of the way (geometrically) toward perf's total."""
        gap = mpx.valid & ~mpx.known
        known_sum = np.where(mpx.valid & mpx.known, est, 0.0).sum(axis=1)
        gap_sum = np.where(gap, est, 0.0).sum(axis=1)
        need = mpx.perf_totals() - known_sum
        with np.errstate(all="ignore"):
            ratio = np.where((gap_sum > 0) & (need > 0), need / gap_sum, 1.0)
        factor = np.power(np.nan_to_num(ratio, nan=1.0, posinf=1.0), self.balance)
        return np.where(gap, est * factor[:, None], est)


INTERPOLATIONS: dict[str, type[MpxEstimator]] = {
    "fixed": FixedInterpolation,
    "linear": LinearInterpolation,
    "local": LocalInterpolation,
    "growth": GrowthInterpolation,
    "min": MinInterpolation,
    "phase": PhaseInterpolation,
    "zero": ZeroFill,
}
"""The interpolation estimators by name (nothing to learn)."""

__all__ = ["INTERPOLATIONS", "PhaseInterpolation", "pair_jumps", "relevance", "time_exponents", "typical_steps"]
