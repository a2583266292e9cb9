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
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from hemkit.errors import HemkitError


def ratio(granularity, interval):
    """``R = running granularity / sampling interval`` (Eq. 1)."""
    interval = np.asarray(interval, dtype=float)
    if np.any(interval <= 0):
        raise HemkitError(f"sampling interval must be positive, got {interval}")
    return np.asarray(granularity, dtype=float) / interval


def capture_mean(r):
    """Expected samples that catch one run of ``r`` intervals: ``r`` (Eqs. 3-5).

    >>> float(capture_mean(2.8))
    2.8
    """
    return np.asarray(r, dtype=float)


def capture_variance(r):
    """Variance of the samples catching one run of ``r`` intervals: ``MOD(r,1)(1-MOD(r,1))`` (Eq. 6).

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
        raise HemkitError("run ratios R must be positive")
    if n_samples <= 0:
        raise HemkitError(f"number of samples must be positive, got {n_samples}")
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
        raise HemkitError(f"exact start-phase profiles need a positive integer interval, got {interval}")
    st = np.asarray(states.states, dtype=np.int64)
    k = len(states.names)
    phase = np.arange(st.size, dtype=np.int64) % t
    counts = np.bincount(phase * k + st, minlength=t * k).reshape(t, k).astype(float)
    return pd.DataFrame(counts / counts.sum(axis=1, keepdims=True), columns=list(states.names))


def _interval_inputs(count, n, level: float) -> tuple[np.ndarray, np.ndarray]:
    if not 0 < level < 1:
        raise HemkitError(f"confidence level must be in (0, 1), got {level}")
    return np.asarray(count, dtype=float), np.asarray(n, dtype=float)


def wilson_interval(count, n, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions ``count / n`` (vectorised).

    ``n`` may be an effective sample size (non-integer) for weighted samples.

    >>> lo, hi = wilson_interval(30, 100)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.219, 0.396)
    """
    count, n = _interval_inputs(count, n, level)
    z = stats.norm.ppf(0.5 + level / 2)
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

    >>> lo, hi = bound_interval(30, 100)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.202, 0.428)
    """
    count, n = _interval_inputs(count, n, level)
    a = 1 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(count > 0, stats.chi2.ppf(a / 2, 2 * count) / 2, 0.0) / n
        hi = stats.chi2.ppf(1 - a / 2, 2 * count + 2) / 2 / n
    return np.clip(lo, 0, 1), np.clip(hi, 0, 1)


def samples_needed(share, half_width: float, level: float = 0.95, R=None) -> np.ndarray:
    """Samples needed for a ``level`` interval of ``+- half_width`` around ``share`` (Eq. 9 inverted).

    With ``R`` the model's per-sample variance ``p MOD(R,1)(1-MOD(R,1)) / R`` is used;
    without it the bound ``p`` over all run lengths (module docstring).

    >>> int(samples_needed(0.5, 0.01))
    19208
    >>> int(samples_needed(0.3, 0.01, R=0.3))
    8068
    """
    if not half_width > 0:
        raise HemkitError(f"half width must be positive, got {half_width}")
    p = np.asarray(share, dtype=float)
    if np.any((p < 0) | (p > 1)):
        raise HemkitError("shares must lie in [0, 1]")
    z = stats.norm.ppf(0.5 + level / 2)
    if R is None:
        v1 = p
    else:
        r = np.asarray(R, dtype=float)
        v1 = p * capture_variance(r) / r
    return np.ceil(z**2 * v1 / half_width**2).astype(np.int64)


def model_table(shares, R, n_samples, level: float = 0.95) -> pd.DataFrame:
    """Expected share, model SD and ``level`` interval per task (Eqs. 5-9) as a table."""
    p = np.asarray(shares, dtype=float)
    sd = np.sqrt(share_variance(p, R, n_samples))
    z = stats.norm.ppf(0.5 + level / 2)
    return pd.DataFrame(
        {"R": np.broadcast_to(R, p.shape), "expected": p, "sd": sd, "low": p - z * sd, "high": p + z * sd}
    )
