"""Planning in one call: :class:`Planner` (every choice) and :func:`make_plan` (the short form).

Two designs from the HRM/MUCH papers (Vilardell et al., SAC 2021, Sec. 3-4), both returning
a :class:`~hemkit.plan.result.Plan`:

- **MUCH** (:mod:`hemkit.plan.much`): every pair of events read together at least once,
  in as few groups as the constructions and the search find;
- **HRM** (:mod:`hemkit.plan.hrm`): an anchor event in every group, the others once each.

Sizes are reported next to the lower bound (Schönheim's for MUCH) and, where known, the
best published size (:mod:`hemkit.plan.bounds`).  The same seed gives the same plan unless
the time budget ended the search (``plan.diagnostics["stopped"] == "time budget"``): a
search that runs out of steps is reproducible, one that runs out of time depends on the
machine's speed.

Examples
--------
>>> plan = make_plan([f"e{i}" for i in range(49)], 7)     # an affine plane: optimal at once
>>> plan.size, plan.lower_bound, plan.optimal, plan.diagnostics["construction"]
(56, 56, True, 'affine plane AG(2,7)')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from hemkit.core.checks import check_scalar
from hemkit.core.errors import InputError
from hemkit.core.progress import ProgressLike
from hemkit.core.rng import SeedLike, child, seed_sequence
from hemkit.io.perf_files import core_pmu_of
from hemkit.plan.budget import SearchOptions
from hemkit.plan.hrm import hrm_design, hrm_from_problem, hrm_plan, hrm_problem
from hemkit.plan.much import covering_design, much_design
from hemkit.plan.problem import Constraints, check_events, check_share_set
from hemkit.plan.result import Plan


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
    fixed_counters: Sequence[str] = ()

    def plan(self, events: Sequence[str], pmcs: int, *, seed: SeedLike = 0, progress: ProgressLike = None) -> Plan:
        """Design the groups for ``events`` on ``pmcs`` counters (see :func:`covering_design`, :func:`hrm_plan`).

        Events of ``fixed_counters`` are read in every group on the CPU's fixed counters: the
        others are planned on the ``pmcs`` general counters, and the fixed ones added to
        every group (every pair with them is covered).
        """
        must_share = self.constraints.must_share
        if not isinstance(must_share, str) and isinstance(must_share, Sequence):
            for s in must_share:  # as given: the paths below drop the sets left with one event
                check_share_set(s)
        if self.fixed_counters:
            made = self._with_fixed(check_events(events), pmcs, seed, progress)
        else:
            pmus = list(dict.fromkeys(p for p in map(core_pmu_of, check_events(events)) if p))
            if len(pmus) > 1:
                made = self._per_pmu(check_events(events), pmus, pmcs, seed, progress)
            else:
                made = self._plan(events, pmcs, seed, progress)
        budget = self.constraints.budget
        if isinstance(budget, int) and budget < made.pmcs:  # its groups are capped below pmcs: the line says so
            made = dataclasses.replace(made, diagnostics={**made.diagnostics, "budget": budget})
        return made

    def _per_pmu(self, events: list[str], pmus: list[str], pmcs: int, seed: SeedLike, progress: ProgressLike) -> Plan:
        """A hybrid CPU: each core PMU has its own ``pmcs`` counters, so each PMU's events are planned alone.

        Group ``i`` reads group ``i`` of every PMU's plan; events of no core PMU (software
        events, tracepoints) are planned with the first PMU's.  Pairs across core PMUs are not
        planned: a program pinned to one core type counts on one PMU only.
        """
        parts = [
            [e for e in events if core_pmu_of(e) == p or (i == 0 and not core_pmu_of(e))] for i, p in enumerate(pmus)
        ]
        c = self.constraints
        subs = []
        for k, part in enumerate(parts):
            inner = Constraints(
                [[e for e in s if e in part] for s in c.must_share if all(e in part for e in s)],
                {e: v for e, v in c.counters.items() if e in part},
                c.fixed if c.fixed in part else None,
                c.budget,
            )
            anchor = self.anchor if self.anchor in part else None
            if len(part) == 1:
                subs.append(Plan([part], self.design, pmcs, event_order=part, optimal=True))
            else:
                subs.append(
                    Planner(self.design, anchor, inner, self.search)._plan(
                        part, pmcs, child(seed_sequence(seed), k), progress
                    )
                )
        size = max(s.size for s in subs)
        groups = [[e for s in subs if i < s.size for e in s.groups[i]] for i in range(size)]
        bounds = [s.lower_bound for s in subs]
        return Plan(
            groups,
            design=self.design,
            pmcs=pmcs,
            perf_groups=[g for s in subs for g in s.perf_groups],
            lower_bound=max(b for b in bounds if b is not None) if any(b is not None for b in bounds) else None,
            event_order=events,
            optimal=all(s.optimal for s in subs) and len({s.size for s in subs}) == 1,
            diagnostics={
                "per_pmu": {p: s.size for p, s in zip(pmus, subs)},
                "seconds": sum(s.diagnostics.get("seconds", 0.0) for s in subs),
            },
        )

    def _with_fixed(self, events: list[str], pmcs: int, seed: SeedLike, progress: ProgressLike) -> Plan:
        fixed = check_events(self.fixed_counters)
        stray = next((e for e in fixed if e not in events), None)
        if stray is not None:
            raise InputError(f"fixed-counter event {stray!r} is not among the events")
        rest = [e for e in events if e not in fixed]
        if not rest:
            return Plan([fixed], self.design, pmcs, event_order=events, optimal=True, fixed_counters=fixed)
        c = self.constraints
        shared = [[e for e in s if e not in fixed] for s in c.must_share]
        counters = {e: v for e, v in c.counters.items() if e not in fixed}
        anchor = self.anchor if self.anchor not in fixed else None
        inner = Constraints([s for s in shared if len(s) > 1], counters, c.fixed if c.fixed not in fixed else None)
        inner = Constraints(inner.must_share, inner.counters, inner.fixed, c.budget)
        if self.design == "hrm" and anchor is None:  # the anchor sits on a fixed counter: the rest once each
            budget = check_scalar(c.budget, "budget", min_val=1, allow_none=True)
            size = pmcs if budget is None else min(pmcs, budget)
            groups = [rest[i : i + size] for i in range(0, len(rest), size)]
            sub = Plan(groups, "hrm", pmcs, event_order=rest)
        elif len(rest) == 1:
            sub = Plan([rest], self.design, pmcs, event_order=rest, optimal=True)
        else:
            sub = Planner(self.design, anchor, inner, self.search)._plan(rest, pmcs, seed, progress)
        return Plan(
            [[*fixed, *g] for g in sub.groups],
            design=sub.design,
            pmcs=pmcs,
            anchor=self.anchor if self.anchor in fixed else sub.anchor,
            perf_groups=sub.perf_groups,
            lower_bound=sub.lower_bound,
            best_known=sub.best_known,
            event_order=events,
            optimal=sub.optimal,
            diagnostics=sub.diagnostics,
            fixed_counters=fixed,
        )

    def _plan(self, events: Sequence[str], pmcs: int, seed: SeedLike, progress: ProgressLike) -> Plan:
        c = self.constraints
        if self.design == "hrm":
            prob = hrm_problem(events, pmcs, self.anchor, c)
            return hrm_from_problem(prob, self.search, child(seed_sequence(seed), "hrm"), progress)
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


__all__ = [
    "Planner",
    "SearchOptions",
    "covering_design",
    "hrm_design",
    "hrm_plan",
    "make_plan",
    "much_design",
]
