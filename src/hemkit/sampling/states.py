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
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError

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
    """

    name: str
    share: float
    granularity: float
    distribution: str = "constant"
    rate: float = 1.0


@dataclass(frozen=True)
class RunningStates:
    """A realised line of units: ``states[i]`` is the index into ``names`` of unit i's owner."""

    states: np.ndarray
    names: tuple[str, ...]
    rates: np.ndarray
    granularities: np.ndarray = field(repr=False)

    @property
    def n_units(self) -> int:
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
            raise HemkitError("no task produces base events (all rates are 0)")
        return pd.Series(ev / total, index=list(self.names), name="event share")

    def runs(self) -> pd.DataFrame:
        """Maximal runs of one owner: columns ``task`` (index), ``start``, ``length``."""
        s = self.states
        edges = np.flatnonzero(np.diff(s)) + 1
        starts = np.concatenate([[0], edges])
        lengths = np.diff(np.concatenate([starts, [s.size]]))
        return pd.DataFrame({"task": s[starts], "start": starts, "length": lengths})


def _check_tasks(tasks: Sequence[Task], idle_granularity: float) -> None:
    if not tasks:
        raise HemkitError("no tasks to simulate")
    names = [t.name for t in tasks]
    if len(set(names)) != len(names) or "idle" in names:
        raise HemkitError(f"task names must be unique and not 'idle': {names}")
    for t in tasks:
        if not 0 < t.share <= 1:
            raise HemkitError(f"task {t.name!r}: share {t.share} is not in (0, 1]")
        if not t.granularity >= 1:
            raise HemkitError(f"task {t.name!r}: granularity {t.granularity} is below 1 unit")
        if t.distribution not in DISTRIBUTIONS:
            raise HemkitError(f"task {t.name!r}: unknown distribution {t.distribution!r} (use {DISTRIBUTIONS})")
        if t.rate < 0:
            raise HemkitError(f"task {t.name!r}: negative event rate {t.rate}")
    if sum(t.share for t in tasks) > 1 + 1e-9:
        raise HemkitError(f"task shares add up to {sum(t.share for t in tasks):g} > 1")
    if not idle_granularity >= 1:
        raise HemkitError(f"idle granularity {idle_granularity} is below 1 unit")


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


def generate_states(
    tasks: Sequence[Task],
    n_units: int = 1_000_000,
    *,
    idle_granularity: float = 1.0,
    idle_distribution: str = "constant",
    idle_rate: float = 0.0,
    seed=0,
) -> RunningStates:
    """Draw a line of ``n_units`` running states for ``tasks`` plus idle.

    Owners of successive blocks are independent draws with probability proportional to
    ``share / granularity`` (idle gets ``1 - sum(shares)``), so each owner's expected share
    of units is its ``share``; the realised shares differ a little, as in the paper's
    "mean of running states" columns.

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
    seed : int or numpy.random.Generator

    Examples
    --------
    >>> rs = generate_states([Task("a", 0.8, 30)], 100_000, seed=1)
    >>> round(float(rs.shares()["a"]), 1)
    0.8
    """
    _check_tasks(tasks, idle_granularity)
    if idle_distribution not in DISTRIBUTIONS:
        raise HemkitError(f"unknown idle distribution {idle_distribution!r} (use {DISTRIBUTIONS})")
    if n_units < 1:
        raise HemkitError(f"n_units must be positive, got {n_units}")
    rng = np.random.default_rng(seed)
    idle_share = max(0.0, 1.0 - sum(t.share for t in tasks))
    names = ("idle", *[t.name for t in tasks])
    share = np.array([idle_share, *[t.share for t in tasks]])
    gran = np.array([idle_granularity, *[t.granularity for t in tasks]], dtype=float)
    dist = np.array([DISTRIBUTIONS.index(idle_distribution), *[DISTRIBUTIONS.index(t.distribution) for t in tasks]])
    rates = np.array([idle_rate, *[t.rate for t in tasks]], dtype=float)
    weight = share / gran
    prob = weight / weight.sum()
    mean_len = float(prob @ gran)
    chunks = []
    total = 0
    while total < n_units:  # normally one pass; a second only if the draw fell short
        m = int((n_units - total) / mean_len * 1.1) + 64
        owner = rng.choice(len(names), size=m, p=prob)
        lengths = _lengths(rng, owner, gran, dist)
        chunks.append((owner, lengths))
        total += int(lengths.sum())
    owner = np.concatenate([c[0] for c in chunks])
    lengths = np.concatenate([c[1] for c in chunks])
    states = np.repeat(owner.astype(np.int8 if len(names) < 127 else np.int32), lengths)[:n_units]
    return RunningStates(states=states, names=names, rates=rates, granularities=gran)
