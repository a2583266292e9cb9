"""Analytic accuracy of sampling profiles: Wen et al. 2021, Eqs. 1-9.

A task's run of ``r`` sampling intervals (``R = granularity / interval``, Eq. 1) is
caught by ``int(r)`` or ``int(r) + 1`` samples; with a random start ``t0`` (Eq. 2) the
second happens with probability ``MOD(r, 1)``.  Hence (Eqs. 3-5) the expected number of
samples charged to the run is exactly ``r`` -- the profile is unbiased -- and (Eq. 6) its
variance is ``MOD(r, 1) * (1 - MOD(r, 1))``: zero for integer ``R``.  A mixture of run
lengths keeps the expectation (Eq. 7) and adds the variances of its runs.

For a profile of ``n`` samples in which a task owns the share ``p`` through runs of
``R`` intervals there are ``p n / R`` runs, so (our reading of Eqs. 8-9, which the text
extraction garbles) the profiled share has expectation ``p`` and variance
``p * MOD(R,1) * (1 - MOD(R,1)) / (R n)`` -- for ``R < 1`` this is ``p (1 - R) / n``.
The model treats the runs' positions relative to the sampling grid as independent; the
simulator shows it holds when runs are separated by gaps of widely spread length and
over-states the variance when short runs of a task are packed closely (two runs inside
one interval cannot both be caught).

Since ``MOD(R,1)(1-MOD(R,1)) / R <= 1`` for every ``R``, the model's variance never
exceeds ``p / n``, the variance of a Poisson count: :func:`bound_interval` uses that bound
and is valid whatever the (unknown) run lengths of a real profile are.  The binomial
``p (1 - p) / n`` of :func:`wilson_interval` is smaller than the model's ``p (1 - R) / n``
only when ``R < p``, which forces a task's runs closer together than one interval -- the
packed case in which the model over-states the variance; in simulations of that case the
Wilson interval still covers (tests/sampling), so it is the default for real profiles.

:func:`share_model` puts these together for a user's question: the expected share, its SD
and interval for given run ratios (or for unknown ones, by the bound), and the samples
needed for a wanted interval width.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import InputError
from hemkit.core.normal import ndtri
from hemkit.core.results import Result, result


def ratio(granularity, interval):
    """``R = running granularity / sampling interval`` (Eq. 1)."""
    interval = np.asarray(interval, dtype=float)
    if np.any(interval <= 0):
        raise InputError(f"sampling interval must be positive, got {interval}")
    return np.asarray(granularity, dtype=float) / interval


def capture_mean(r):
    """Expected samples that catch one run of ``r`` intervals: ``r`` (Eqs. 3-5).

    Examples
    --------
    >>> float(capture_mean(2.8))
    2.8
    """
    return np.asarray(r, dtype=float)


def capture_variance(r):
    """Variance of the samples catching one run of ``r`` intervals: ``MOD(r,1)(1-MOD(r,1))`` (Eq. 6).

    Examples
    --------
    >>> [round(float(v), 2) for v in capture_variance([0.3, 1.0, 2.5])]
    [0.21, 0.0, 0.25]
    """
    f = np.mod(np.asarray(r, dtype=float), 1.0)
    return f * (1.0 - f)


def share_variance(shares, R, n_samples) -> np.ndarray:
    """Variance of each task's profiled share for constant run ratios ``R`` (Eqs. 6, 9).

    Parameters
    ----------
    shares : array of float
        True shares of the tasks.
    R : array of float
        Run length of each owner in sampling intervals.
    n_samples : float
        Samples in one profile.

    Examples
    --------
    >>> v = share_variance([0.3, 0.5], [0.3, 2.8], 10_000)
    >>> [round(float(x), 5) for x in np.sqrt(v)]
    [0.00458, 0.00169]
    >>> float(share_variance([0.5, 0.5], [1.0, 2.0], 100)[0])     # integer R: no variance
    0.0
    """
    p = np.asarray(shares, dtype=float)
    r = np.broadcast_to(np.asarray(R, dtype=float), p.shape)
    if np.any(r <= 0):
        raise InputError("run ratios R must be positive")
    if n_samples <= 0:
        raise InputError(f"number of samples must be positive, got {n_samples}")
    return p * capture_variance(r) / r / n_samples


def runs_variance(run_task, run_length, interval, n_tasks: int, n_samples) -> np.ndarray:
    """Variance of each task's profiled share from its actual runs (Eqs. 6, 7, 9).

    Every run of ``L`` units contributes ``capture_variance(L / interval)`` samples^2;
    runs are independent given a random start.  Used for mixtures of run lengths
    (Eq. 7) and to check the simulator against the model.
    """
    v = np.bincount(
        np.asarray(run_task), weights=capture_variance(np.asarray(run_length) / interval), minlength=n_tasks
    )
    return v / float(n_samples) ** 2


def start_phase_profiles(states, interval: int) -> pd.DataFrame:
    """Exact profile for every start phase of noise-free periodic time-based sampling.

    With an integer ``interval`` T, a start ``t0`` samples units ``floor(t0) + i T``, so
    the profile depends only on the phase ``floor(t0) mod T`` and a random start picks
    each of the ``T`` phases with probability ``1/T``.  The count of a task at phase
    ``phi`` is the number of its units ``u`` with ``u mod T == phi``: one ``bincount``.
    This is the exact distribution behind Eqs. 5-6 (for a single run it gives
    ``int(r)`` or ``int(r) + 1`` captures with probabilities ``1 - MOD(r,1)``,
    ``MOD(r,1)``), including the correlation between neighbouring runs that the
    independent-runs model leaves out.

    Parameters
    ----------
    states : hemkit.sampling.RunningStates
    interval : int

    Returns
    -------
    pandas.DataFrame
        ``T`` rows (phases) by owners: the profiled shares.

    Examples
    --------
    >>> from hemkit.sampling import Task, generate_states
    >>> rs = generate_states([Task("a", 0.5, 100)], 10_000, seed=0)
    >>> float(start_phase_profiles(rs, 100)["a"].std())  # integer R: every start agrees
    0.0
    """
    t = int(interval)
    if t != interval or t < 1:
        raise InputError(f"exact start-phase profiles need a positive integer interval, got {interval}")
    st = np.asarray(states.states, dtype=np.int64)
    k = len(states.names)
    phase = np.arange(st.size, dtype=np.int64) % t
    counts = np.bincount(phase * k + st, minlength=t * k).reshape(t, k).astype(float)
    return pd.DataFrame(counts / counts.sum(axis=1, keepdims=True), columns=list(states.names))


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise InputError(f"confidence level must be in (0, 1), got {level}")


def _z(level: float) -> float:
    """The two-sided normal quantile of ``level``."""
    _check_level(level)
    return float(ndtri(0.5 + level / 2))  # hemkit.core.normal: no SciPy import for the profile's intervals


def _interval_inputs(count, n, level: float) -> tuple[np.ndarray, np.ndarray]:
    _check_level(level)
    return np.asarray(count, dtype=float), np.asarray(n, dtype=float)


def wilson_interval(count, n, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions ``count / n`` (vectorised).

    ``n`` may be an effective sample size (non-integer) for weighted samples.

    Parameters
    ----------
    count : float or array of float
        Samples of the key (or their effective number).
    n : float or array of float
        Samples in all (or the effective sample size); broadcast against ``count``.
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray
        The interval's ends, clipped to [0, 1], in the broadcast shape of ``count`` and
        ``n`` (0-d for scalars); NaN where ``n`` is 0.

    Raises
    ------
    InputError
        ``level`` outside (0, 1).

    Examples
    --------
    >>> lo, hi = wilson_interval(30, 100)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.219, 0.396)
    """
    count, n = _interval_inputs(count, n, level)
    z = _z(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = count / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def bound_interval(count, n, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Interval for a share valid for any run lengths: exact Poisson (Garwood) on the count.

    The model's variance ``p MOD(R,1)(1-MOD(R,1)) / (R n)`` is at most ``p / n`` (see the
    module docstring), the variance of a Poisson count with mean ``p n``.  ``count`` and
    ``n`` may be effective (non-integer) values for weighted samples.

    Parameters
    ----------
    count : float or array of float
        Samples of the key (or their effective number).
    n : float or array of float
        Samples in all (or the effective sample size); broadcast against ``count``.
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray
        The interval's ends, clipped to [0, 1], in the broadcast shape of ``count`` and
        ``n`` (0-d for scalars); ``low`` is 0 where ``count`` is 0.

    Raises
    ------
    InputError
        ``level`` outside (0, 1).

    Examples
    --------
    >>> lo, hi = bound_interval(30, 100)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.202, 0.428)
    """
    count, n = _interval_inputs(count, n, level)
    a = 1 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        from scipy.special import gammaincinv  # only the bound needs it (0.4 s to import)

        # chi2.ppf(q, 2k) / 2 == gammaincinv(k, q): Garwood's limits on a Poisson mean
        lo = np.where(count > 0, gammaincinv(np.maximum(count, 1e-300), a / 2), 0.0) / n
        hi = gammaincinv(count + 1, 1 - a / 2) / n
    return np.clip(lo, 0, 1), np.clip(hi, 0, 1)


def samples_needed(share, half_width: float, level: float = 0.95, R=None) -> np.ndarray:
    """Samples needed for a ``level`` interval of ``+- half_width`` around ``share`` (Eq. 9 inverted).

    With ``R`` the model's per-sample variance ``p MOD(R,1)(1-MOD(R,1)) / R`` is used;
    without it the bound ``p`` over all run lengths (module docstring).

    Parameters
    ----------
    share : float or array of float
        The share(s), each in [0, 1].
    half_width : float
        The wanted half width of the interval (a share, e.g. 0.01), > 0.
    level : float, default 0.95
        Confidence level, in (0, 1).
    R : float or array of float, optional
        Run ratio of each share's task (Eq. 1), broadcast against ``share``; positive.
        Default: unknown run lengths, the bound.

    Returns
    -------
    numpy.ndarray of int64
        Samples per profile, rounded up (0 where the variance is 0: a share of 0, or an
        integer ``R``).

    Raises
    ------
    InputError
        ``half_width`` not positive, a share outside [0, 1], ``level`` outside (0, 1), or a run
        ratio ``R`` not positive (as :func:`share_model`).

    Examples
    --------
    >>> int(samples_needed(0.5, 0.01))
    19208
    >>> int(samples_needed(0.3, 0.01, R=0.3))
    8068
    """
    if not half_width > 0:
        raise InputError(f"half_width must be positive, got {half_width}", param="half_width")
    p = np.asarray(share, dtype=float)
    if not np.all((p >= 0) & (p <= 1)):  # NaN too: it would come out as a count of -2^63
        raise InputError("shares must lie in [0, 1]")
    z = _z(level)
    if R is None:
        v1 = p
    else:
        r = np.asarray(R, dtype=float)
        if not np.all(r > 0):
            raise InputError(f"run ratios R must be positive, got {r[~(r > 0)][0]:g}")
        try:
            np.broadcast_shapes(p.shape, r.shape)
        except ValueError:
            raise InputError(f"one run ratio R per share: {p.size} shares, {r.size} run ratios") from None
        v1 = p * capture_variance(r) / r
    return np.ceil(z**2 * v1 / half_width**2).astype(np.int64)


@result
class ShareModel(Result):
    """Expected share, SD and interval of profiled shares under the paper's model (Eqs. 5-9).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per task (index ``task``, 1, 2, ...): ``share`` (the true share, which is
        also the expected profiled share, Eq. 5), ``R`` (NaN when unknown), ``sd``,
        ``low``, ``high`` (normal interval, clipped to [0, 1]) and, when a half width was
        asked for, ``samples_needed``.
    n_samples : int
        Samples per profile.
    level : float
        Confidence level of the intervals.
    bound : bool
        True when the run ratios are unknown and the Poisson bound ``p / n`` is used.

    Examples
    --------
    Two tasks of 30 % and 50 % of the time, running 1.5 and 0.2 sampling intervals at a
    time, in profiles of 1000 samples:

    >>> m = share_model([0.3, 0.5], [1.5, 0.2], 1000)
    >>> m.n_samples, m.level, m.bound
    (1000, 0.95, False)
    >>> print(m.summary().round(3).reset_index().to_string(index=False))
     task  share   R    sd   low  high
        1    0.3 1.5 0.007 0.286 0.314
        2    0.5 0.2 0.020 0.461 0.539

    ``m.plot()`` draws each share with its interval.
    """

    table: pd.DataFrame
    n_samples: int
    level: float
    bound: bool

    def summary(self) -> pd.DataFrame:
        """The per-task table."""
        return self.table

    def to_frame(self) -> pd.DataFrame:
        """The per-task table (a copy)."""
        return self.table.copy()

    def plot(self, ax: Any = None) -> Any:
        """Each task's expected share with its interval; returns the Axes."""
        from hemkit.sampling.plots import plot_model

        return plot_model(self, ax=ax)


def share_model(
    shares: Sequence[float] | np.ndarray,
    ratios: Sequence[float] | np.ndarray | None = None,
    n_samples: int = 10_000,
    *,
    level: float = 0.95,
    half_width: float | None = None,
) -> ShareModel:
    """Model SD and interval of each share in a profile of ``n_samples`` samples (Eqs. 5-9).

    Parameters
    ----------
    shares : sequence of float
        True shares of the tasks, each in [0, 1], adding up to at most 1.
    ratios : sequence of float, optional
        Run ratio ``R = granularity / interval`` of each task (Eq. 1).  Without them the
        run lengths are unknown and the bound ``p / n`` (valid for every R) is used.
    n_samples : int
        Samples per profile.
    level : float
        Confidence level.
    half_width : float, optional
        Also give the samples needed for an interval of ``+- half_width``.

    Examples
    --------
    >>> m = share_model([0.3], [1.5], 1000, half_width=0.01)
    >>> m.table[["share", "R", "samples_needed"]].round(3).to_dict("records")
    [{'share': 0.3, 'R': 1.5, 'samples_needed': 1921}]
    >>> share_model([0.3], n_samples=1000).bound
    True
    """
    p = np.asarray(shares, dtype=float).ravel()
    if p.size == 0:
        raise InputError("no shares to model")
    if not np.all((p >= 0) & (p <= 1)):
        raise InputError(f"shares must lie in [0, 1], got {p[~((p >= 0) & (p <= 1))][0]:g}")
    if p.sum() > 1 + 1e-9:  # the shares of one profile, as a Workload's tasks
        raise InputError(f"shares (--share) add up to {p.sum():g} > 1; the shares of one profile add up to at most 1")
    if not n_samples >= 1:
        raise InputError(f"n_samples must be at least 1, got {n_samples}")
    if half_width is not None and not 0 < half_width < 1:
        raise InputError(f"half_width must be in (0, 1), got {half_width}", param="half_width")
    z = _z(level)
    if ratios is None or len(ratios) == 0:
        r = np.full(p.shape, np.nan)
        var = p / n_samples  # unknown run lengths: the Poisson bound of every R
    else:
        r = np.asarray(ratios, dtype=float).ravel()
        if r.size != p.size:
            raise InputError(f"give one run ratio per share ({p.size} shares, {r.size} ratios)")
        if not np.all(r > 0):
            raise InputError(f"run ratios R must be positive, got {r[~(r > 0)][0]:g}")
        var = share_variance(p, r, n_samples)
    sd = np.sqrt(var)
    table = pd.DataFrame(
        {"share": p, "R": r, "sd": sd, "low": np.clip(p - z * sd, 0, 1), "high": np.clip(p + z * sd, 0, 1)},
        index=pd.RangeIndex(1, p.size + 1, name="task"),
    )
    if half_width is not None:
        table["samples_needed"] = samples_needed(p, half_width, level, R=None if np.isnan(r).all() else r)
    return ShareModel(table=table, n_samples=int(n_samples), level=level, bound=bool(np.isnan(r).all()))
