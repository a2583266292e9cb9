"""Running states of one resource shared by tasks (Wen et al. 2021, Sec. 4 and 5.2).

The paper's simulation treats the resource as a line of *units* (e.g. CPU cycles), each
either idle or working for exactly one task.  A task has a utilisation (its share of the
units) and a *running granularity*: how many consecutive units it runs before being
switched out.  We build the line as a sequence of blocks whose owners are drawn
independently with probability proportional to ``share / granularity`` (so that each owner
gets its share of the units on average) and whose lengths are the owner's granularity,
constant or drawn from a distribution.  Idle is an owner like any other, with its own
granularity (the paper's Table 4 gives idle a granularity of 1).  Adjacent blocks of the
same owner join into one longer run, as a task that is scheduled again would.

Everything is vectorised: one call to the random generator per quantity, no Python loop
over blocks or units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hemkit.core.errors import InputError
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, as_generator

DISTRIBUTIONS = ("constant", "exponential", "uniform")


@dataclass(frozen=True)
class Task:
    """One task sharing the resource.

    Parameters
    ----------
    name : str
    share : float
        Wanted fraction of all units (0 < share <= 1).
    granularity : float
        Mean number of consecutive units per run (>= 1).
    distribution : {"constant", "exponential", "uniform"}
        How run lengths are drawn: exactly ``granularity``; geometric (discrete
        exponential) with that mean; uniform on ``[granularity/2, 3*granularity/2]``.
    rate : float
        Base events per unit while this task runs (1 for time; e.g. IPC for
        instruction-based sampling).  Only event-based sampling uses it.

    Examples
    --------
    >>> Task.from_spec("b:0.2:30:exponential")
    Task(name='b', share=0.2, granularity=30.0, distribution='exponential', rate=1.0)
    """

    name: str
    share: float
    granularity: float
    distribution: str = "constant"
    rate: float = 1.0

    @classmethod
    def from_spec(cls, spec: str) -> Task:
        """A task from ``NAME:SHARE:GRANULARITY[:DISTRIBUTION[:RATE]]`` (the command line's form).

        Raises
        ------
        InputError
            A spec of the wrong shape or with a non-number, naming the spec.
        """
        parts = spec.split(":")
        if not 3 <= len(parts) <= 5 or not parts[0].strip():
            raise InputError(f"task {spec!r}: use NAME:SHARE:GRANULARITY[:DISTRIBUTION[:RATE]]")
        try:
            share, gran = float(parts[1]), float(parts[2])
            rate = float(parts[4]) if len(parts) == 5 else 1.0
        except ValueError:
            raise InputError(f"task {spec!r}: share, granularity and rate must be numbers") from None
        if not all(np.isfinite([share, gran, rate])):
            raise InputError(f"task {spec!r}: share, granularity and rate must be finite numbers")
        return cls(parts[0].strip(), share, gran, parts[3] if len(parts) >= 4 else "constant", rate)


@dataclass(frozen=True)
class Workload:
    """Tasks sharing a resource of ``n_units`` units, with idle filling the rest.

    Parameters
    ----------
    tasks : sequence of Task
        Their shares add up to at most 1; idle gets the remainder.
    n_units : int
        Length of the line of running states.
    idle_granularity : float
        Mean run length of idle blocks (>= 1).
    idle_distribution : {"constant", "exponential", "uniform"}
        How idle run lengths are drawn (as for :class:`Task`).
    idle_rate : float
        Base events per idle unit (0: cycles do not tick when idle).

    Raises
    ------
    InputError
        A task out of range (naming it), shares adding up to more than 1, duplicate names.

    Examples
    --------
    >>> w = Workload((Task("a", 0.3, 150),), n_units=10_000)
    >>> round(float(w.states(seed=0).shares()["a"]), 1)
    0.3
    """

    tasks: tuple[Task, ...]
    n_units: int = 1_000_000
    idle_granularity: float = 1.0
    idle_distribution: str = "constant"
    idle_rate: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", tuple(self.tasks))
        _check(self)

    def states(self, seed: SeedLike = 0) -> RunningStates:
        """Draw one line of running states (see :func:`generate_states`)."""
        return _draw(self, as_generator(seed))


def _check(w: Workload) -> None:
    if not w.tasks:
        raise InputError("no tasks to simulate")
    names = [t.name for t in w.tasks]
    if len(set(names)) != len(names) or "idle" in names:
        raise InputError(f"task names must be unique and not 'idle': {names}")
    for t in w.tasks:
        if not 0 < t.share <= 1:
            raise InputError(f"task {t.name!r}: share {t.share:g} is not in (0, 1]")
        if not 1 <= t.granularity < 1e12:
            raise InputError(f"task {t.name!r}: granularity {t.granularity:g} is not in [1, 1e12) units")
        if t.distribution not in DISTRIBUTIONS:
            raise InputError(
                f"task {t.name!r}: unknown distribution {t.distribution!r} (use {', '.join(DISTRIBUTIONS)})"
            )
        if not 0 <= t.rate < float("inf"):
            raise InputError(f"task {t.name!r}: event rate {t.rate:g} is not a non-negative number")
    total = sum(t.share for t in w.tasks)
    if total > 1 + 1e-9:
        raise InputError(f"task shares add up to {total:g} > 1")
    if not 1 <= w.idle_granularity < 1e12:
        raise InputError(f"idle_granularity {w.idle_granularity:g} is not in [1, 1e12) units", param="idle_granularity")
    if w.idle_distribution not in DISTRIBUTIONS:
        raise InputError(f"unknown idle_distribution {w.idle_distribution!r} (use {', '.join(DISTRIBUTIONS)})")
    if not 0 <= w.idle_rate < float("inf"):
        raise InputError(f"idle_rate {w.idle_rate:g} is not a non-negative number")
    if not 1 <= w.n_units <= 10**8:
        raise InputError(f"n_units must be in [1, 1e8], got {w.n_units}")


@result
class RunningStates(Result):
    """A realised line of units: ``states[i]`` is the index into ``names`` of unit i's owner.

    Attributes
    ----------
    states : numpy.ndarray
        Owner of each unit (0 is idle).
    names : tuple of str
        ``("idle", task names...)``.
    rates : numpy.ndarray
        Base events per unit of each owner.
    granularities : numpy.ndarray
        Wanted mean run length of each owner.

    Examples
    --------
    Task ``a`` runs 150 units at a time for 30 % of the line, ``b`` about 20 units at a time
    (exponential) for 50 %; the rest is idle:

    >>> from hemkit.sampling import Task, generate_states
    >>> rs = generate_states([Task("a", 0.3, 150), Task("b", 0.5, 20, "exponential")], 100_000, seed=0)
    >>> rs.names, rs.n_units, rs.states[:8].tolist()
    (('idle', 'a', 'b'), 100000, [0, 0, 0, 0, 0, 2, 2, 2])
    >>> print(rs.summary().round(1).reset_index().to_string(index=False))
    task  share  runs  mean_run_length
    idle    0.2  2413              8.6
       a    0.3   194            151.5
       b    0.5  2263             22.0
    """

    states: np.ndarray
    names: tuple[str, ...]
    rates: np.ndarray
    granularities: np.ndarray

    @property
    def n_units(self) -> int:
        """Length of the line."""
        return int(self.states.size)

    def shares(self) -> pd.Series:
        """Mean of the running states: fraction of units owned by each task (the paper's truth)."""
        counts = np.bincount(self.states, minlength=len(self.names))
        return pd.Series(counts / self.states.size, index=list(self.names), name="running share")

    def event_shares(self) -> pd.Series:
        """Fraction of base events each task produces (truth for event-based sampling)."""
        ev = np.bincount(self.states, weights=self.rates[self.states], minlength=len(self.names))
        total = ev.sum()
        if total <= 0:
            raise InputError("no task produces base events (all rates are 0)")
        return pd.Series(ev / total, index=list(self.names), name="event share")

    def runs(self) -> pd.DataFrame:
        """Maximal runs of one owner: columns ``task`` (index), ``start``, ``length``."""
        s = self.states
        edges = np.flatnonzero(np.diff(s)) + 1
        starts = np.concatenate([[0], edges])
        lengths = np.diff(np.concatenate([starts, [s.size]]))
        return pd.DataFrame({"task": s[starts], "start": starts, "length": lengths})

    def summary(self) -> pd.DataFrame:
        """Per owner: share of units, number of runs and their mean length (units)."""
        runs = self.runs()
        k = len(self.names)
        n_runs = np.bincount(runs["task"], minlength=k)
        total = np.bincount(runs["task"], weights=runs["length"], minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / n_runs
        return pd.DataFrame(
            {"share": self.shares().to_numpy(), "runs": n_runs, "mean_run_length": mean},
            index=pd.Index(self.names, name="task"),
        )


def _lengths(rng: np.random.Generator, owner: np.ndarray, gran: np.ndarray, dist: np.ndarray) -> np.ndarray:
    g = gran[owner]
    d = dist[owner]
    out = np.rint(g).astype(np.int64)
    exp = d == 1
    if exp.any():
        out[exp] = rng.geometric(1.0 / g[exp])
    uni = d == 2
    if uni.any():
        out[uni] = np.rint(rng.uniform(0.5 * g[uni], 1.5 * g[uni])).astype(np.int64)
    return np.maximum(out, 1)


def _draw(w: Workload, rng: np.random.Generator) -> RunningStates:
    tasks = w.tasks
    idle_share = max(0.0, 1.0 - sum(t.share for t in tasks))
    names = ("idle", *[t.name for t in tasks])
    share = np.array([idle_share, *[t.share for t in tasks]])
    gran = np.array([w.idle_granularity, *[t.granularity for t in tasks]], dtype=float)
    dist = np.array([DISTRIBUTIONS.index(w.idle_distribution), *[DISTRIBUTIONS.index(t.distribution) for t in tasks]])
    rates = np.array([w.idle_rate, *[t.rate for t in tasks]], dtype=float)
    weight = share / gran
    prob = weight / weight.sum()
    mean_len = float(prob @ gran)
    chunks = []
    total = 0
    while total < w.n_units:  # normally one pass; a second only if the draw fell short
        m = int((w.n_units - total) / mean_len * 1.1) + 64
        owner = rng.choice(len(names), size=m, p=prob)
        lengths = _lengths(rng, owner, gran, dist)
        chunks.append((owner, lengths))
        total += int(lengths.sum())
    owner = np.concatenate([c[0] for c in chunks])
    lengths = np.concatenate([c[1] for c in chunks])
    states = np.repeat(owner.astype(np.int8 if len(names) < 127 else np.int32), lengths)[: w.n_units]
    return RunningStates(states=states, names=names, rates=rates, granularities=gran)


def generate_states(
    tasks: Sequence[Task],
    n_units: int = 1_000_000,
    *,
    idle_granularity: float = 1.0,
    idle_distribution: str = "constant",
    idle_rate: float = 0.0,
    seed: SeedLike = 0,
) -> RunningStates:
    """Draw a line of ``n_units`` running states for ``tasks`` plus idle.

    Owners of successive blocks are independent draws with probability proportional to
    ``share / granularity`` (idle gets ``1 - sum(shares)``), so each owner's expected share
    of units is its ``share``; the realised shares differ a little, as in the paper's
    "mean of running states" columns.  Same as ``Workload(...).states(seed)``.

    Parameters
    ----------
    tasks : sequence of Task
    n_units : int
    idle_granularity : float
        Mean run length of idle blocks.
    idle_distribution : {"constant", "exponential", "uniform"}
        How idle run lengths are drawn (as for :class:`Task`).
    idle_rate : float
        Base events per idle unit (0: cycles do not tick when idle).
    seed : int, numpy.random.Generator or None

    Examples
    --------
    >>> rs = generate_states([Task("a", 0.8, 30)], 100_000, seed=1)
    >>> round(float(rs.shares()["a"]), 1)
    0.8
    """
    workload = Workload(tuple(tasks), n_units, idle_granularity, idle_distribution, idle_rate)
    return workload.states(seed)
