"""Simulated sampling profiles of known running states (Wen et al. 2021, Secs. 4-5).

A profile samples the line of units every ``interval`` base events from a random start
``t0`` (Eq. 2), optionally with Gaussian jitter on each interval, and charges one *unit of
events* to the owner of the sampled unit.  Time-based sampling counts every unit; event-
based sampling counts each owner's ``rate`` of base events per unit (idle usually 0, so
idle is never sampled, like ``cycles`` on a halted core).  Noise on the unit of events
follows Eq. 10: each sample charges ``U * (1 + noise)`` with ``noise ~ N(0, s)``.

Repetitions are vectorised: each chunk of repetitions is one ``(reps, samples)`` array of
positions, one gather and one ``bincount`` -- no Python loop over samples or repetitions
beyond the memory-bounding chunks (which report progress).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, as_generator, child
from hemkit.sampling import model
from hemkit.sampling.states import RunningStates, Workload

MODES = ("time", "event")


@dataclass(frozen=True)
class Sampler:
    """How a profile samples: every ``interval`` units or base events, with jitter and noise.

    Parameters
    ----------
    interval : float
        Sampling interval in units (time-based) or base events (event-based), > 0.
    mode : {"time", "event"}
        Time-based sampling counts every unit; event-based counts each owner's ``rate``.
    jitter : float
        SD of Gaussian noise added to each sampling interval (same unit as ``interval``).
    noise : float
        SD ``s`` of the relative noise on the unit of events, ``U (1 + N(0, s))`` (Eq. 10).

    Raises
    ------
    InputError
        A value out of range, naming the parameter.

    Examples
    --------
    >>> Sampler(100, noise=2.0)
    Sampler(interval=100, mode='time', jitter=0.0, noise=2.0)
    """

    interval: float = 100.0
    mode: str = "time"
    jitter: float = 0.0
    noise: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.interval < float("inf"):
            raise InputError(f"sampling interval must be positive, got {self.interval:g}")
        if self.mode not in MODES:
            raise InputError(f"unknown sampling mode {self.mode!r} (use {', '.join(MODES)})")
        for name in ("jitter", "noise"):
            value = getattr(self, name)
            if not 0 <= value < float("inf"):
                raise InputError(f"{name} SD must be a non-negative number, got {value:g}")

    @property
    def exact(self) -> bool:
        """Noise-free periodic time-based sampling: the case the model (Eqs. 6-9) describes."""
        return self.mode == "time" and self.jitter == 0 and self.noise == 0


@result
class SimulationResult(Result):
    """Profiles of one line of running states, ``reps`` repetitions with random starts.

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
    sampler : Sampler
        The sampling settings.

    Examples
    --------
    200 profiles, sampling every 100 units, of two tasks that run 150 and about 20 units at
    a time:

    >>> from hemkit.sampling import Task, generate_states, simulate_profiles
    >>> rs = generate_states([Task("a", 0.3, 150), Task("b", 0.5, 20, "exponential")], 100_000, seed=0)
    >>> sim = simulate_profiles(rs, 100, reps=200, seed=1)
    >>> sim.reps, sim.mode, sim.interval, sim.profiles.shape, int(sim.n_samples[0])
    (200, 'time', 100.0, (200, 3), 1000)
    >>> t = sim.summary()[["R", "running_mean", "profile_mean", "profile_sd", "exact_sd"]]
    >>> print(t.round(3).reset_index().to_string(index=False))
    task     R  running_mean  profile_mean  profile_sd  exact_sd
    idle 0.086         0.208         0.207       0.010     0.010
       a 1.515         0.294         0.294       0.005     0.005
       b 0.220         0.498         0.499       0.012     0.012
    """

    truth: pd.Series
    profiles: pd.DataFrame
    n_samples: np.ndarray
    run_ratio: pd.Series
    model_sd: pd.Series
    exact_sd: pd.Series
    sampler: Sampler

    @property
    def interval(self) -> float:
        """The sampling interval."""
        return float(self.sampler.interval)

    @property
    def mode(self) -> str:
        """``"time"`` or ``"event"``."""
        return self.sampler.mode

    @property
    def reps(self) -> int:
        """Number of profiles."""
        return len(self.profiles)

    def summary(self) -> pd.DataFrame:
        """Per owner: R, mean of running states, mean and SD of the profiles, bias, model and exact SD."""
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

    def to_frame(self) -> pd.DataFrame:
        """The profiles: one row per repetition (index ``rep``), one column per owner."""
        return self.profiles.rename_axis("rep")

    def plot(self, ax: Any = None) -> Any:
        """Mean profiled share (+- SD) of each owner against its running-state mean; returns the Axes."""
        from hemkit.sampling.plots import plot_profiled_vs_true

        title = f"{self.reps} simulated profiles, interval {self.interval:g}: profiled vs true shares"
        return plot_profiled_vs_true(self.summary(), ax=ax, title=title)

    def plot_sd(self, ax: Any = None) -> Any:
        """SD of each owner's profiled share against R, beside the model's and the exact SD."""
        from hemkit.sampling.plots import plot_sd_vs_R

        return plot_sd_vs_R(self.summary(), ax=ax, title=f"SD of {self.reps} simulated profiles against R")

    def plot_histogram(self, task: str | None = None, ax: Any = None) -> Any:
        """Histogram of one owner's profiled shares (default: the task with the largest SD; Fig. 11)."""
        from hemkit.sampling.plots import plot_profile_histogram

        if task is None:
            sd = self.profiles.drop(columns="idle", errors="ignore").std()
            task = str(sd.idxmax()) if len(sd) else str(self.profiles.columns[0])
        if task not in self.profiles.columns:
            raise InputError(f"unknown task {task!r} (tasks: {', '.join(map(str, self.profiles.columns))})")
        return plot_profile_histogram(
            self.profiles[task],
            float(self.truth[task]),
            ax=ax,
            title=f"task {task}: {self.reps} profiled shares, R = {float(self.run_ratio[task]):.3g}",
        )


def _positions(rng: np.random.Generator, t0: np.ndarray, interval: float, jitter: float, m: int) -> np.ndarray:
    if jitter > 0:
        steps = rng.normal(interval, jitter, size=(t0.size, m))
        np.maximum(steps, 1e-9 * interval, out=steps)
        steps[:, 0] = 0.0
        return t0[:, None] + np.cumsum(steps, axis=1)
    return t0[:, None] + interval * np.arange(m)[None, :]


def simulate_profiles(
    states: RunningStates,
    interval: float | Sampler = 100,
    reps: int = 1000,
    *,
    seed: SeedLike = 0,
    progress: ProgressLike = None,
    max_chunk: int = 4_000_000,
) -> SimulationResult:
    """Profile ``states`` ``reps`` times with random starts; return the profiled shares.

    Parameters
    ----------
    states : RunningStates
        From :func:`hemkit.sampling.generate_states`.
    interval : float or Sampler
        The sampling interval in units (noise-free periodic time-based sampling), or a
        :class:`Sampler` with mode, jitter and noise.
    reps : int
        Profiling repetitions on the same running states, at least 2 (the paper uses 1000).
    seed : int, numpy.random.Generator or None
    progress : bool or Progress, optional
        Report the repetitions done (see :mod:`hemkit.core.progress`).
    max_chunk : int
        Largest number of samples held in memory at once.

    Examples
    --------
    >>> from hemkit.sampling import Task, generate_states
    >>> rs = generate_states([Task("a", 0.5, 150)], 100_000, seed=0)
    >>> res = simulate_profiles(rs, 100, reps=50, seed=1)
    >>> abs(float(res.summary().loc["a", "bias"])) < 0.002
    True
    >>> noisy = simulate_profiles(rs, Sampler(100, noise=1.0), reps=50, seed=1)
    >>> bool(noisy.summary()["model_sd"].isna().all())  # the model covers noise-free sampling only
    True
    """
    sampler = interval if isinstance(interval, Sampler) else Sampler(float(interval))
    if not 2 <= reps <= 10**7:  # one profile has no SD: its summary was NaN
        raise InputError(f"reps must be in [2, 1e7] (the SD of the profiles needs two), got {reps}", param="reps")
    if max_chunk < 1:
        raise InputError(f"max_chunk must be at least 1, got {max_chunk}")
    rng = as_generator(seed)
    k = len(states.names)
    step, jitter, noise = sampler.interval, sampler.jitter, sampler.noise
    if sampler.mode == "time":
        axis_total = float(states.n_units)
        cum = None
        truth = states.shares()
    else:
        cum = np.cumsum(states.rates[states.states])
        axis_total = float(cum[-1])
        truth = states.event_shares()
    if axis_total / step < 1:
        raise InputError(f"sampling interval {step:g} is longer than the whole run ({axis_total:g})")
    m = int(np.ceil(axis_total / step)) + (int(6 * jitter * np.sqrt(axis_total / step) / step) + 2)
    chunk = max(1, min(reps, max_chunk // m))
    totals = np.zeros((reps, k))
    n_samples = np.zeros(reps, dtype=np.int64)
    with as_progress(progress).task("simulated profiles", total=reps) as task:
        for lo in range(0, reps, chunk):  # chunks bound memory; each chunk is fully vectorised
            r = min(chunk, reps - lo)
            t0 = rng.uniform(0, step, size=r)
            pos = _positions(rng, t0, step, jitter, m)
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
            task.advance(r)
    profiles = pd.DataFrame(totals / totals.sum(axis=1, keepdims=True), columns=list(states.names))
    runs = states.runs()
    mean_len = runs.groupby("task")["length"].mean().reindex(range(k))
    run_ratio = pd.Series(mean_len.to_numpy() / step, index=list(states.names))
    if sampler.exact:
        sd = np.sqrt(model.runs_variance(runs["task"], runs["length"], step, k, axis_total / step))
    else:
        sd = np.full(k, np.nan)
    if sampler.exact and float(step).is_integer():
        exact = model.start_phase_profiles(states, int(step)).std(ddof=0).to_numpy()
    else:
        exact = np.full(k, np.nan)
    return SimulationResult(
        truth=truth,
        profiles=profiles,
        n_samples=n_samples,
        run_ratio=run_ratio,
        model_sd=pd.Series(sd, index=list(states.names)),
        exact_sd=pd.Series(exact, index=list(states.names)),
        sampler=sampler,
    )


def simulate_workload(
    workload: Workload,
    sampler: float | Sampler = 100,
    reps: int = 1000,
    *,
    seed: SeedLike = 0,
    progress: ProgressLike = None,
) -> SimulationResult:
    """Draw the running states of ``workload`` once and profile them ``reps`` times.

    The states and the profiles take independent streams of ``seed`` (named ``"states"``
    and ``"profiles"``, :func:`hemkit.core.rng.child`).

    Parameters
    ----------
    workload : Workload
        The tasks and the length of the line of running states.
    sampler : float or Sampler, default 100
        The sampling interval in units (noise-free periodic time-based sampling), or a
        :class:`Sampler` with mode, jitter and noise.
    reps : int, default 1000
        Profiling repetitions on the same running states, in [1, 1e7].
    seed : int, numpy.random.Generator or None
        Seeds the running states and the profiles' random starts.
    progress : bool or Progress, optional
        Report the repetitions done (see :mod:`hemkit.core.progress`).

    Returns
    -------
    SimulationResult
        The profiled shares of every repetition beside the running states' shares, the
        run ratios and the model's SD (see :func:`simulate_profiles`).

    Raises
    ------
    InputError
        ``reps`` out of range, or a sampling interval not positive or longer than the whole run.

    Examples
    --------
    >>> from hemkit.sampling import Task, Workload
    >>> w = Workload((Task("a", 0.3, 150), Task("b", 0.2, 30)), n_units=100_000)
    >>> res = simulate_workload(w, Sampler(100, jitter=5.0), reps=100, seed=0)
    >>> bool((res.summary()["bias"].abs() < 0.005).all())
    True
    """
    states = workload.states(child(seed, "states"))
    return simulate_profiles(states, sampler, reps, seed=child(seed, "profiles"), progress=progress)
