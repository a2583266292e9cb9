"""Group designs: which events to read together when only ``pmcs`` counters exist.

Two designs from the HRM/MUCH papers (Vilardell et al., SAC 2021, Sec. 3-4):

- **HRM** (:func:`hrm_design`): one *anchor* event read in every group, the other events
  spread over as few groups as the counters allow, of balanced size (a bin packing when
  must-share sets or counter restrictions apply: first-fit decreasing into the lightest
  group, then seeded random orders, from the lower bound up).
- **MUCH** (:func:`covering_design`): a *pair covering* C(v, k, 2): groups of at most
  ``k`` events such that every pair of events is read together at least once (MUCH step 1).
  It starts from the best construction (:mod:`hemkit.plan.constructions`: projective and
  affine planes, their truncations, transversal designs plus extra points, the greedy of
  the paper), makes it smaller with a tabu search (:mod:`hemkit.plan.search`) within a
  step and a time budget, and for small instances tries to prove the size optimal with an
  exact integer program (:mod:`hemkit.plan.exact`).

:class:`Planner` holds every choice (design, anchor, constraints, search effort);
:func:`make_plan` is the short form.  All return a :class:`~hemkit.plan.result.Plan`.

Sizes are reported next to the lower bound (Schönheim's for MUCH) and, where known, the
best published size (:mod:`hemkit.plan.bounds`).  The same seed gives the same plan
unless the time budget ended the search (``plan.diagnostics["stopped"] == "time
budget"``): a search that runs out of steps is reproducible, one that runs out of time
depends on the machine's speed.

Examples
--------
>>> plan = make_plan([f"e{i}" for i in range(31)], 6)     # a projective plane: optimal at once
>>> plan.size, plan.lower_bound, plan.optimal, plan.diagnostics["construction"]
(31, 31, True, 'projective plane PG(2,5)')
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hemkit.core.errors import DesignError, InputError
from hemkit.core.progress import ProgressLike, ProgressTask, as_progress
from hemkit.core.rng import SeedLike, child, seed_sequence
from hemkit.plan.bounds import best_known, estimate, schonheim_bound
from hemkit.plan.constructions import (
    Blocks,
    greedy_covering,
    plane_covering,
    prune,
    transversal_covering,
    transversal_options,
)
from hemkit.plan.exact import exact_covering
from hemkit.plan.problem import Constraints, Problem, check_events
from hemkit.plan.result import Plan
from hemkit.plan.search import CoverSearch

#: MUCH plans above this many groups (lower bound) are refused: nobody runs them
MAX_GROUPS = 20_000
#: at most this many events (units) in a MUCH plan (the search keeps a v x v table)
MAX_EVENTS = 3_000
#: tabu steps without a smaller design before the search gives up, at effort 1 (at most)
STEPS = 20_000
#: the same for the coverings of the groups of a transversal design
INNER_STEPS = 4_000


def _steps(n: int, k: int, most: int, effort: float) -> int:
    """The step budget: ``100 n k`` steps, between ``most / 10`` and ``most``, times ``effort``."""
    return int(effort * min(most, max(most // 10, 100 * n * k)))


#: greedy starts only up to this many events (beyond, constructions are far better)
GREEDY_MAX = 1_000
#: searches from other starts after the first, while the time budget lasts, for small
#: instances (events x counters at most RESTART_SIZE), where each search takes a second or two
RESTARTS = 3
RESTART_SIZE = 250


@dataclass(frozen=True)
class SearchOptions:
    """How hard to look for a small MUCH design (and a tight HRM packing).

    Parameters
    ----------
    time_budget : float or None
        Seconds for the whole planning (constructions, search, exact program); None: no
        limit but the step budget.  The search stops early at the lower bound.
    effort : float
        Scales the step budget (at 1: ``100 v k`` tabu steps without a smaller design, between
        2000 and 20000, for ``v`` events in groups of ``k``; 0: constructions and greedy
        only, no search).
    exact_time : float
        Seconds for the exact integer program on small instances (at most 1500 candidate
        groups) when the search ends above the lower bound; 0 turns it off.

    Examples
    --------
    >>> SearchOptions(time_budget=30).effort
    1.0
    """

    time_budget: float | None = 10.0
    effort: float = 1.0
    exact_time: float = 3.0

    def __post_init__(self) -> None:
        for name in ("time_budget", "effort", "exact_time"):
            value = getattr(self, name)
            if value is None and name == "time_budget":
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise InputError(f"{name} must be a finite number >= 0, got {value!r}")


class _Clock:
    """The time budget and the progress line ``N groups (bound B)``."""

    def __init__(self, budget: float | None, task: ProgressTask, lb: int):
        self.t0 = time.monotonic()
        self.deadline = None if budget is None else self.t0 + budget
        self.task, self.lb = task, lb
        self.best: int | None = None

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def over(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def remaining(self) -> float:
        return math.inf if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def report(self, size: int | None = None, what: str = "") -> None:
        if size is not None and (self.best is None or size < self.best):
            self.best = size
        info = f"{self.best} groups (bound {self.lb})" if self.best is not None else f"bound {self.lb}"
        self.task.update(completed=round(self.elapsed(), 1), info=f"{info}{'; ' + what if what else ''}")


class _Builder:
    """Starting coverings of ``v`` points by blocks of ``k`` (uniform problems), memoised by size."""

    def __init__(self, k: int, seed: np.random.SeedSequence, effort: float, clock: _Clock):
        self.k, self.seed, self.effort, self.clock = k, seed, effort, clock
        self.memo: dict[int, Blocks] = {}

    def start(self, v: int) -> tuple[Blocks, str]:
        """The smallest construction for ``v`` points: plane, transversal design or greedy."""
        return self.starts(v)[0]

    def starts(self, v: int) -> list[tuple[Blocks, str]]:
        """Every construction for ``v`` points, smallest first (ties: plane, design, greedy)."""
        k = self.k
        if v <= k:
            return [([list(range(v))], "one group")]
        if k == 2:
            return [([[a, c] for a in range(v) for c in range(a + 1, v)], "all pairs")]
        cands: list[tuple[Blocks, str]] = []
        plane = plane_covering(v, k)
        if plane is not None:
            cands.append(plane)
        if not cands or len(cands[0][0]) > schonheim_bound(v, k):
            for _est, n, sizes, extra in transversal_options(v, k, lambda m: estimate(m, k))[:2]:
                if max(sizes) + extra >= v:
                    continue
                blocks = transversal_covering(k, n, sizes, extra, self.inner)
                tail = f" + {extra} point{'s' if extra > 1 else ''}" if extra else ""
                short = f" without {k * n - sum(sizes)} points" if k * n > sum(sizes) else ""
                cands.append((blocks, f"transversal design TD({k},{n}){short}{tail}"))
        if v <= GREEDY_MAX:
            cands.append((greedy_covering(v, k, child(self.seed, "greedy", v)), "greedy"))
        pruned = [(prune(b, v), name) for b, name in cands]
        return sorted(pruned, key=lambda c: len(c[0]))  # stable: ties keep the order above

    def inner(self, m: int) -> Blocks:
        """A small covering of a group of ``m`` points, searched briefly."""
        if m <= self.k:
            return [list(range(m))]
        if m not in self.memo:
            blocks, _ = self.start(m)
            lb = schonheim_bound(m, self.k)
            lb = best_known(m, self.k) or lb
            if len(blocks) > lb and self.effort > 0 and not self.clock.over():
                self.clock.report(what=f"covering groups of {m}")
                s = CoverSearch(m, self.k, blocks, rng=child(self.seed, "group", m))
                # small, and used k times: searched in full whatever the effort
                steps = _steps(m, self.k, INNER_STEPS, 1.0)
                blocks = s.run(stop_at=lb, max_steps=steps, deadline=self.clock.deadline)
            self.memo[m] = blocks
        return self.memo[m]


def covering_design(
    events: Sequence[str],
    pmcs: int,
    *,
    constraints: Constraints | None = None,
    search: SearchOptions | None = None,
    seed: SeedLike = 0,
    progress: ProgressLike = None,
) -> Plan:
    """MUCH groups: every pair of events read together at least once, in as few groups as found.

    Parameters
    ----------
    events : sequence of str
    pmcs : int
        Counters per run: the most events per group.
    constraints : Constraints, optional
        Must-share sets, counter restrictions, an event in every group, a group budget.
    search : SearchOptions, optional
        Time budget, effort and exact-program seconds (default 10 s, 1, 3 s).
    seed : int, Generator or None
        Seeds the greedy's tie-breaking and the search.
    progress : bool or Progress, optional
        Reports ``N groups (bound B)`` against the seconds of the time budget.

    Returns
    -------
    Plan
        ``design="much"``, with the lower bound, the best known size and, in
        ``diagnostics``, the construction it started from, its size, the search steps,
        the seconds and why the search stopped.

    Raises
    ------
    InputError
        Bad events or constraints, or a plan too large to run (more than 20000 groups).
    DesignError
        No group can hold some pair of events (counter restrictions, budget), or fewer
        than 2 counters are left for the events.

    Examples
    --------
    >>> r = covering_design([f"e{i}" for i in range(7)], 3)
    >>> r.size, r.lower_bound, r.optimal
    (7, 7, True)
    """
    opts = search or SearchOptions()
    prob = Problem(events, pmcs, constraints or Constraints())
    n, k = prob.n, prob.cap
    if n >= 2 and k < 2:
        besides = f" besides {prob.fixed!r}" if prob.fixed else ""
        raise DesignError(
            f"groups of {k} event(s){besides} read no pair together; a MUCH plan needs at least 2 counters "
            f"for the other events (pmcs is {prob.n_counters})"
        )
    bad = prob.impossible_pair()
    if bad is not None:
        raise DesignError(
            f"events {bad[0]!r} and {bad[1]!r} can never be read together (counter restrictions or group "
            "budget); no MUCH plan covers that pair"
        )
    if n > MAX_EVENTS:
        raise InputError(f"{n} events are more than a MUCH plan can handle (at most {MAX_EVENTS}); plan fewer events")
    lb = prob.covering_bound()
    if lb > MAX_GROUPS:
        raise InputError(
            f"a MUCH plan for {n} events in groups of {k} needs at least {lb} groups (Schönheim bound), more "
            f"than the {MAX_GROUPS} hemkit plans; use more counters (pmcs) or fewer events"
        )
    known = best_known(n, k) if prob.uniform else None
    ss = seed_sequence(seed)
    with as_progress(progress).task("MUCH plan", total=opts.time_budget) as task:
        clock = _Clock(opts.time_budget, task, lb)
        blocks, diag = _much_blocks(prob, lb, opts, ss, clock)
        clock.report(len(blocks), "done")
    optimal = len(blocks) <= lb or diag.pop("proven", False)
    if optimal:
        diag["stopped"] = "optimal"
    diag["seconds"] = clock.elapsed()
    return Plan(
        groups=prob.groups(sorted(sorted(b) for b in blocks)),
        design="much",
        pmcs=prob.n_counters,
        anchor=prob.fixed,
        perf_groups=prob.perf_groups,
        lower_bound=lb,
        best_known=known,
        event_order=prob.events,
        optimal=bool(optimal),
        diagnostics=diag,
    )


def _much_blocks(
    prob: Problem, lb: int, opts: SearchOptions, ss: np.random.SeedSequence, clock: _Clock
) -> tuple[Blocks, dict[str, Any]]:
    """Construction, search and exact program for a MUCH design; blocks of unit indexes."""
    n, k = prob.n, prob.cap
    if n <= 1 or (sum(prob.weights) <= k and prob.fits(list(range(n)))):
        return [list(range(n))], {"construction": "one group", "start_size": 1, "steps": 0}
    if prob.uniform:
        builder = _Builder(k, ss, opts.effort, clock)
        starts = builder.starts(n)
    else:
        report = lambda b: clock.report(what=f"greedy: {b} groups so far")  # noqa: E731
        starts = [(prune(greedy_covering(n, k, child(ss, "greedy"), fits=prob.fits, report=report), n), "greedy")]
    blocks, how = starts[0]
    diag: dict[str, Any] = {"construction": how, "start_size": len(blocks), "steps": 0}
    clock.report(len(blocks), how)
    target = max(lb, best_known(n, k) or 0) if prob.uniform else lb
    if len(blocks) > target and opts.effort > 0 and not clock.over():
        # the search from the best start, then from the other constructions and fresh greedy
        # coverings while they may still help: different starts end in different local optima
        for attempt in range(1 + (RESTARTS if n * k <= RESTART_SIZE else 0)):
            if attempt < len(starts):
                start, name = starts[attempt]
            elif n <= GREEDY_MAX:
                fits = None if prob.uniform else prob.fits
                start, name = prune(greedy_covering(n, k, child(ss, "greedy", attempt), fits=fits), n), "greedy"
            else:
                break
            s = CoverSearch(
                n,
                k,
                start,
                weights=None if prob.uniform else prob.weights,
                fits=None if prob.uniform else prob.fits,
                rng=child(ss, "search", attempt),
            )
            found = prune(
                s.run(
                    stop_at=min(len(blocks) - 1, target) if attempt else target,
                    max_steps=_steps(n, k, STEPS, opts.effort),
                    deadline=clock.deadline,
                    on_level=lambda b: clock.report(b, "searching"),
                ),
                n,
            )
            diag["steps"] += s.steps
            diag["stopped"] = s.stopped
            if found and len(found) < len(blocks):
                blocks = found
                diag["construction"], diag["start_size"] = name, len(start)
            if len(blocks) <= target or clock.over():
                break
    elif len(blocks) > lb:
        diag["stopped"] = "time budget" if opts.effort > 0 else "no search (effort 0)"
    known = best_known(n, k) if prob.uniform else None
    if known is not None and len(blocks) <= known:
        pass  # as good as published: an exact program would only confirm it
    elif len(blocks) > lb and opts.effort > 0 and opts.exact_time > 0 and clock.remaining() > 0:
        clock.report(what="exact program")
        exact = exact_covering(prob, len(blocks), min(opts.exact_time, clock.remaining()))
        if exact is not None:
            blocks, diag["proven"] = exact
            diag["construction"] += " + exact program"
    return blocks, diag


def much_design(events: Sequence[str], pmcs: int, **kwargs: Any) -> list[list[str]]:
    """Groups of a MUCH pair-covering design; see :func:`covering_design` for the options.

    Examples
    --------
    >>> len(much_design([f"e{i}" for i in range(10)], 4))
    9
    """
    return [list(g) for g in covering_design(events, pmcs, **kwargs).groups]


# ------------------------------------------------------------------------ HRM
def hrm_plan(
    events: Sequence[str],
    pmcs: int,
    *,
    anchor: str | None = None,
    constraints: Constraints | None = None,
    seed: SeedLike = 0,
    progress: ProgressLike = None,
) -> Plan:
    """HRM groups: ``anchor`` in every group, the other events in as few balanced groups as fit.

    Parameters
    ----------
    events : sequence of str
    pmcs : int
        Counters per run (the anchor takes one).
    anchor : str, optional
        The event read in every group; default ``constraints.fixed`` or the first event.
    constraints : Constraints, optional
        ``must_share``, ``counters`` and ``budget`` apply; ``fixed`` must be the anchor if given.
    seed : int, Generator or None
        Orders tried when the first packing needs more groups than the bound.
    progress : bool or Progress, optional

    Returns
    -------
    Plan
        ``design="hrm"``, its lower bound and whether it meets it.

    Examples
    --------
    >>> hrm_plan(["cycles", "a", "b", "c", "d", "e"], 3).groups
    [['cycles', 'a', 'b'], ['cycles', 'c', 'd'], ['cycles', 'e']]
    """
    prob = _hrm_problem(events, pmcs, anchor, constraints or Constraints())
    return _hrm(prob, SearchOptions(), child(seed_sequence(seed), "hrm"), progress)


def _hrm_problem(events: Sequence[str], pmcs: int, anchor: str | None, c: Constraints) -> Problem:
    """The checked HRM problem: the anchor is the event read in every group."""
    names = check_events(events)
    anchor = anchor if anchor is not None else (c.fixed if c.fixed is not None else names[0])
    if anchor not in names:
        raise InputError(f"anchor {anchor!r} is not among the events")
    if c.fixed is not None and c.fixed != anchor:
        raise InputError(
            f"HRM reads one event in every group, the anchor {anchor!r}; the fixed event {c.fixed!r} differs"
        )
    if isinstance(pmcs, int) and not isinstance(pmcs, bool) and pmcs < 2:
        raise InputError(f"HRM needs at least 2 counters (the anchor and one more), got pmcs={pmcs}")
    return Problem(names, pmcs, Constraints(c.must_share, c.counters, anchor, c.budget))


def _hrm(prob: Problem, opts: SearchOptions, rng: np.random.Generator, progress: ProgressLike) -> Plan:
    """The HRM plan of a checked problem (the anchor is ``prob.fixed``)."""
    lb = prob.packing_bound()
    with as_progress(progress).task("HRM plan", total=opts.time_budget) as task:
        clock = _Clock(opts.time_budget, task, lb)
        blocks, how = _hrm_blocks(prob, lb, rng, clock)
        clock.report(len(blocks), "done")
    anchor = prob.fixed
    assert anchor is not None
    return Plan(
        groups=prob.groups(blocks) if blocks else [[anchor]],
        design="hrm",
        pmcs=prob.n_counters,
        anchor=anchor,
        perf_groups=prob.perf_groups,
        lower_bound=lb,
        event_order=prob.events,
        optimal=len(blocks) <= lb,
        diagnostics={"construction": how, "seconds": clock.elapsed()},
    )


def _hrm_blocks(prob: Problem, lb: int, rng: np.random.Generator, clock: _Clock) -> tuple[Blocks, str]:
    """Balanced chunks (uniform units), else first-fit decreasing and tighter balanced packings."""
    n = prob.n
    if n == 0:
        return [], "anchor alone"
    if prob.uniform:  # equal sizes: consecutive chunks whose sizes differ by at most one
        q, r = divmod(n, lb)
        bounds = [0]
        for g in range(lb):
            bounds.append(bounds[-1] + q + (g < r))
        return [list(range(a, b)) for a, b in zip(bounds, bounds[1:])], "balanced chunks"
    restricted = [len(prob.counters.get(u[0], range(prob.n_counters))) if len(u) == 1 else 0 for u in prob.units]
    first = sorted(range(n), key=lambda u: (-prob.weights[u], restricted[u], u))
    ffd: Blocks = []  # first fit decreasing, opening a group when a unit fits nowhere: always succeeds
    for u in first:
        home = next((b for b in ffd if prob.fits([*b, u])), None)
        if home is None:
            ffd.append([u])
        else:
            home.append(u)
    clock.report(len(ffd), "first fit")
    best, how = [sorted(b) for b in ffd], "first-fit decreasing"
    balanced = _pack(prob, first, len(ffd))
    if balanced is not None:
        best, how = balanced, "balanced packing"
    for n_groups in range(lb, len(ffd)):  # fewer groups: the sorted order, then random orders
        orders = [first] + [[int(x) for x in rng.permutation(n)] for _ in range(20)]
        for order in orders:
            if clock.over():
                return best, how
            blocks = _pack(prob, order, n_groups)
            if blocks is not None:
                return blocks, "balanced packing"
        clock.report(len(best), f"no packing into {n_groups} groups found")
    return best, how


def _pack(prob: Problem, order: Sequence[int], n_groups: int) -> Blocks | None:
    """Units in ``order``, each into the lightest group it fits; None if one fits nowhere."""
    blocks: Blocks = [[] for _ in range(n_groups)]
    load = [0] * n_groups
    for u in order:
        u = int(u)
        for g in sorted(range(n_groups), key=lambda g: (load[g], g)):
            if prob.fits([*blocks[g], u]):
                blocks[g].append(u)
                load[g] += prob.weights[u]
                break
        else:
            return None
    return [sorted(b) for b in blocks if b]


def hrm_design(
    events: Sequence[str],
    pmcs: int,
    *,
    anchor: str | None = None,
    constraints: Constraints | None = None,
    seed: SeedLike = 0,
) -> list[list[str]]:
    """Groups of an HRM design (anchor first in every group); see :func:`hrm_plan`.

    Examples
    --------
    >>> hrm_design(["cycles", "a", "b", "c", "d", "e"], 3)
    [['cycles', 'a', 'b'], ['cycles', 'c', 'd'], ['cycles', 'e']]
    """
    return [list(g) for g in hrm_plan(events, pmcs, anchor=anchor, constraints=constraints, seed=seed).groups]


# -------------------------------------------------------------------- planner
@dataclass(frozen=True)
class Planner:
    """Every choice of a plan but the events and counters: design, anchor, constraints, effort.

    Parameters
    ----------
    design : {"much", "hrm"}
    anchor : str, optional
        HRM anchor (default: the first event); for MUCH an event read in every group.
    constraints : Constraints
    search : SearchOptions

    Examples
    --------
    >>> planner = Planner("much", constraints=Constraints(must_share=[["a", "b"]]))
    >>> planner.plan(["a", "b", "c", "d"], 3).groups
    [['a', 'b', 'c'], ['a', 'b', 'd'], ['c', 'd']]
    """

    design: str = "much"
    anchor: str | None = None
    constraints: Constraints = field(default_factory=Constraints)
    search: SearchOptions = field(default_factory=SearchOptions)

    def plan(self, events: Sequence[str], pmcs: int, *, seed: SeedLike = 0, progress: ProgressLike = None) -> Plan:
        """Design the groups for ``events`` on ``pmcs`` counters (see :func:`covering_design`, :func:`hrm_plan`)."""
        c = self.constraints
        if self.design == "hrm":
            prob = _hrm_problem(events, pmcs, self.anchor, c)
            return _hrm(prob, self.search, child(seed_sequence(seed), "hrm"), progress)
        if self.design != "much":
            raise InputError(f"unknown design {self.design!r}; use 'much' or 'hrm'")
        if self.anchor is not None:
            if c.fixed not in (None, self.anchor):
                raise InputError(f"two events to read in every group: {self.anchor!r} and {c.fixed!r}")
            if self.anchor not in check_events(events):
                raise InputError(f"anchor {self.anchor!r} is not among the events")
            c = Constraints(c.must_share, c.counters, self.anchor, c.budget)
        return covering_design(events, pmcs, constraints=c, search=self.search, seed=seed, progress=progress)


def make_plan(
    events: Sequence[str],
    pmcs: int,
    *,
    design: str = "much",
    anchor: str | None = None,
    seed: SeedLike = 0,
    progress: ProgressLike = None,
) -> Plan:
    """Design groups for ``events`` on ``pmcs`` counters: ``Planner(design, anchor).plan(...)``.

    Use :class:`Planner` for constraints and the search budget.

    Parameters
    ----------
    events : sequence of str
    pmcs : int
    design : {"much", "hrm"}
    anchor : str, optional
        HRM anchor (default first event); for MUCH, an event to read in every group.
    seed : int, Generator or None
    progress : bool or Progress, optional

    Examples
    --------
    >>> make_plan(["cycles", "a", "b", "c"], 3, design="hrm").groups
    [['cycles', 'a', 'b'], ['cycles', 'c']]
    """
    return Planner(design, anchor).plan(events, pmcs, seed=seed, progress=progress)


#: the result of :func:`covering_design` (kept for older code: it is a :class:`Plan`)
CoveringResult = Plan

__all__ = [
    "CoveringResult",
    "Planner",
    "SearchOptions",
    "covering_design",
    "hrm_design",
    "hrm_plan",
    "make_plan",
    "much_design",
]
