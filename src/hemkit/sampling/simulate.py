"""Simulated sampling profiles of known running states (Wen et al. 2021, Secs. 4-5).

A profile samples the line of units every ``interval`` base events from a random start
``t0`` (Eq. 2), optionally with Gaussian jitter on each interval, and charges one *unit of
events* to the owner of the sampled unit.  Time-based sampling counts every unit; event-
based sampling counts each owner's ``rate`` of base events per unit (idle usually 0, so
idle is never sampled, like ``cycles`` on a halted core).  Noise on the unit of events
follows Eq. 10: each sample charges ``U * (1 + noise)`` with ``noise ~ N(0, s)``.

Repetitions are vectorised: each chunk of repetitions is one ``(reps, samples)`` array of
positions, one gather and one ``bincount`` -- no Python loop over samples or repetitions
beyond the memory-bounding chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError
from hemkit.sampling import model
from hemkit.sampling.states import RunningStates

MODES = ("time", "event")


@dataclass(frozen=True)
class SimulationResult:
    """Profiles of one line of running states, ``reps`` repetitions.

    Attributes
    ----------
    truth : pandas.Series
        Mean of the running states per owner (event shares for event-based sampling).
    profiles : pandas.DataFrame
        One row per repetition, one column per owner: profiled shares.
    n_samples : numpy.ndarray
        Samples taken in each repetition.
    run_ratio : pandas.Series
        Mean run length of each owner in sampling intervals (R, Eq. 1).
    model_sd : pandas.Series
        SD of the profiled share predicted from the actual runs (Eqs. 6, 7, 9), which
        treats runs as independent; noise-free time-based sampling without jitter only
        (NaN otherwise).
    exact_sd : pandas.Series
        Exact SD over random starts (:func:`hemkit.sampling.model.start_phase_profiles`);
        same conditions plus an integer interval (NaN otherwise).
    """

    truth: pd.Series
    profiles: pd.DataFrame
    n_samples: np.ndarray
    run_ratio: pd.Series
    model_sd: pd.Series
    exact_sd: pd.Series
    interval: float
    mode: str

    def summary(self) -> pd.DataFrame:
        """Per owner: R, mean of running states, mean and SD of the profiles, bias, model SD."""
        mean = self.profiles.mean()
        return pd.DataFrame(
            {
                "R": self.run_ratio,
                "running_mean": self.truth,
                "profile_mean": mean,
                "profile_sd": self.profiles.std(ddof=1),
                "bias": mean - self.truth,
                "model_sd": self.model_sd,
                "exact_sd": self.exact_sd,
            }
        ).rename_axis("task")


def _positions(rng, t0, interval, jitter, m):
    if jitter > 0:
        steps = rng.normal(interval, jitter, size=(t0.size, m))
        np.maximum(steps, 1e-9 * interval, out=steps)
        steps[:, 0] = 0.0
        return t0[:, None] + np.cumsum(steps, axis=1)
    return t0[:, None] + interval * np.arange(m)[None, :]


def simulate_profiles(
    states: RunningStates,
    interval: float = 100,
    reps: int = 1000,
    *,
    mode: str = "time",
    jitter: float = 0.0,
    noise: float = 0.0,
    seed=0,
    max_chunk: int = 4_000_000,
) -> SimulationResult:
    """Profile ``states`` ``reps`` times with random starts; return the profiled shares.

    Parameters
    ----------
    states : RunningStates
        From :func:`hemkit.sampling.generate_states`.
    interval : float
        Sampling interval in units (time-based) or base events (event-based).
    reps : int
        Profiling repetitions on the same running states (the paper uses 1000).
    mode : {"time", "event"}
    jitter : float
        SD of Gaussian noise added to each sampling interval (same unit as ``interval``).
    noise : float
        SD ``s`` of the relative noise on the unit of events, ``U (1 + N(0, s))`` (Eq. 10).
    seed : int or numpy.random.Generator
    max_chunk : int
        Largest number of samples held in memory at once.

    Examples
    --------
    >>> from hemkit.sampling import Task, generate_states
    >>> rs = generate_states([Task("a", 0.5, 150)], 100_000, seed=0)
    >>> res = simulate_profiles(rs, 100, reps=50, seed=1)
    >>> abs(float(res.summary().loc["a", "bias"])) < 0.002
    True
    """
    if mode not in MODES:
        raise HemkitError(f"unknown sampling mode {mode!r} (use {MODES})")
    if not interval > 0:
        raise HemkitError(f"sampling interval must be positive, got {interval}")
    if reps < 1:
        raise HemkitError(f"reps must be at least 1, got {reps}")
    if jitter < 0 or noise < 0:
        raise HemkitError("jitter and noise SDs must not be negative")
    rng = np.random.default_rng(seed)
    k = len(states.names)
    if mode == "time":
        axis_total = float(states.n_units)
        cum = None
        truth = states.shares()
    else:
        cum = np.cumsum(states.rates[states.states])
        axis_total = float(cum[-1])
        truth = states.event_shares()
    m = int(np.ceil(axis_total / interval)) + (int(6 * jitter * np.sqrt(axis_total / interval) / interval) + 2)
    if axis_total / interval < 1:
        raise HemkitError(f"sampling interval {interval:g} is longer than the whole run ({axis_total:g})")
    chunk = max(1, min(reps, max_chunk // m))
    totals = np.zeros((reps, k))
    n_samples = np.zeros(reps, dtype=np.int64)
    for lo in range(0, reps, chunk):  # chunks bound memory; each chunk is fully vectorised
        r = min(chunk, reps - lo)
        t0 = rng.uniform(0, interval, size=r)
        pos = _positions(rng, t0, interval, jitter, m)
        valid = pos < axis_total
        if cum is None:
            unit = np.minimum(pos.astype(np.int64), states.n_units - 1)
        else:
            unit = np.minimum(np.searchsorted(cum, pos, side="right"), states.n_units - 1)
        owner = states.states[unit].astype(np.int64)
        w = valid.astype(float)
        if noise > 0:
            w *= 1.0 + rng.normal(0.0, noise, size=pos.shape)
        idx = (np.arange(r)[:, None] * k + owner).ravel()
        totals[lo : lo + r] = np.bincount(idx, weights=w.ravel(), minlength=r * k).reshape(r, k)
        n_samples[lo : lo + r] = valid.sum(axis=1)
    profiles = pd.DataFrame(totals / totals.sum(axis=1, keepdims=True), columns=list(states.names))
    runs = states.runs()
    mean_len = runs.groupby("task")["length"].mean().reindex(range(k))
    run_ratio = pd.Series(mean_len.to_numpy() / interval, index=list(states.names))
    if mode == "time" and jitter == 0 and noise == 0:
        sd = np.sqrt(model.runs_variance(runs["task"], runs["length"], interval, k, axis_total / interval))
    else:
        sd = np.full(k, np.nan)
    if mode == "time" and jitter == 0 and noise == 0 and float(interval).is_integer():
        exact = model.start_phase_profiles(states, int(interval)).std(ddof=0).to_numpy()
    else:
        exact = np.full(k, np.nan)
    return SimulationResult(
        truth=truth,
        profiles=profiles,
        n_samples=n_samples,
        run_ratio=run_ratio,
        model_sd=pd.Series(sd, index=list(states.names)),
        exact_sd=pd.Series(exact, index=list(states.names)),
        interval=float(interval),
        mode=mode,
    )
