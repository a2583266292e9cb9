"""MUCH plans: pair coverings from the best construction, made smaller by the tabu search.

MUCH step 1 (Vilardell et al., SAC 2021, Sec. 4): groups of at most ``k`` events such that
every pair of events is read together at least once, a pair covering C(v, k, 2).
:func:`covering_design` starts from the best construction of
:mod:`hemkit.plan.constructions` (projective and affine planes, their truncations,
transversal designs plus extra points whose groups are covered recursively, the greedy of
the paper), makes it smaller with the tabu search of :mod:`hemkit.plan.search` (on small
instances also from the other starts) within a step and a time budget, and for small
instances tries to prove the size optimal with the exact program of
:mod:`hemkit.plan.exact`.  Constraints (:mod:`hemkit.plan.problem`) make units of
several counters and a feasibility test; the constructions then give way to the greedy.

Examples
--------
>>> plan = covering_design([f"e{i}" for i in range(31)], 6)     # a projective plane: optimal at once
>>> plan.size, plan.lower_bound, plan.optimal, plan.diagnostics["construction"]
(31, 31, True, 'projective plane PG(2,5)')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hemkit.core.errors import DesignError, InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.rng import SeedLike, child, seed_sequence
from hemkit.plan.bounds import best_known, estimate, schonheim_bound
from hemkit.plan.budget import Clock, SearchOptions
from hemkit.plan.constructions import (
    Blocks,
    greedy_covering,
    plane_covering,
    prune,
    transversal_covering,
    transversal_options,
)
from hemkit.plan.exact import exact_covering
from hemkit.plan.problem import Constraints, Problem
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


class _Builder:
    """Starting coverings of ``v`` points by blocks of ``k`` (uniform problems), memoised by size."""

    def __init__(self, k: int, seed: np.random.SeedSequence, effort: float, clock: Clock):
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
        words, fix, param = prob.group_limit(2 + (prob.fixed is not None))
        raise DesignError(
            f"groups of {k} event(s){besides} read no pair together; a MUCH plan needs at least 2 counters "
            f"for the other events ({words})",
            fix=fix,
            param=param,
        )
    apart = prob.why_apart()
    if apart is not None:
        words, fix, param = apart
        raise DesignError(f"{words}; no MUCH plan covers that pair", fix=fix, param=param)
    if n > MAX_EVENTS:
        raise InputError(f"{n} events are more than a MUCH plan can handle (at most {MAX_EVENTS}); plan fewer events")
    lb = prob.covering_bound()
    if lb > MAX_GROUPS:
        raise InputError(
            f"a MUCH plan for {n} events in groups of {k} needs at least {lb} groups (Schönheim bound), more "
            f"than the {MAX_GROUPS} hemkit plans; use {'a larger budget' if prob.budget else 'more counters (pmcs)'} "
            "or fewer events"
        )
    known = best_known(n, k) if prob.uniform else None
    ss = seed_sequence(seed)
    with as_progress(progress).task("MUCH plan", total=opts.time_budget) as task:
        clock = Clock(opts.time_budget, task, lb)
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
    prob: Problem, lb: int, opts: SearchOptions, ss: np.random.SeedSequence, clock: Clock
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

    Parameters
    ----------
    events : sequence of str
        The events to read, each once.
    pmcs : int
        Counters per run: the most events per group.
    **kwargs
        The keyword arguments of :func:`covering_design`: ``constraints``, ``search``,
        ``seed`` and ``progress``.

    Returns
    -------
    list of list of str
        The groups; :func:`covering_design` gives the whole :class:`Plan`.

    Raises
    ------
    InputError
        Bad events or constraints, or a plan too large to run (more than 20000 groups).
    DesignError
        No group can hold some pair of events (counter restrictions, budget), or fewer
        than 2 counters are left for the events.

    Examples
    --------
    >>> len(much_design([f"e{i}" for i in range(10)], 4))
    9
    """
    return [list(g) for g in covering_design(events, pmcs, **kwargs).groups]


__all__ = ["MAX_EVENTS", "MAX_GROUPS", "covering_design", "much_design"]
