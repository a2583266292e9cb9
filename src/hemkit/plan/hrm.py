"""HRM plans: one anchor event in every group, the others in as few balanced groups as fit.

HRM (Vilardell et al., SAC 2021, Sec. 3): the anchor (e.g. ``cycles``) is read in every
group and every other event in exactly one, so the groups can be merged rank by rank on
the anchor.  Without constraints the ``ceil((v - 1) / (k - 1))`` groups are consecutive
chunks whose sizes differ by at most one (optimal).  With must-share sets (units of several
counters) or counters only some events may use it is a bin packing: first-fit decreasing
always gives a plan at once, then packings into fewer, balanced groups (each unit into the
lightest group it fits, in the sorted order and in seeded random orders) are tried from the
lower bound up while the time budget lasts.

Examples
--------
>>> hrm_design(["cycles", "a", "b", "c", "d", "e"], 3)
[['cycles', 'a', 'b'], ['cycles', 'c', 'd'], ['cycles', 'e']]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hemkit.core.errors import InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.rng import SeedLike, child, seed_sequence
from hemkit.plan.budget import Clock, SearchOptions
from hemkit.plan.constructions import Blocks
from hemkit.plan.problem import Constraints, Problem, check_events
from hemkit.plan.result import Plan


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
    prob = hrm_problem(events, pmcs, anchor, constraints or Constraints())
    return hrm_from_problem(prob, SearchOptions(), child(seed_sequence(seed), "hrm"), progress)


def hrm_problem(events: Sequence[str], pmcs: int, anchor: str | None, c: Constraints) -> Problem:
    """The checked HRM problem: the anchor (default ``c.fixed``, else the first event) is ``fixed``.

    Examples
    --------
    >>> hrm_problem(["cycles", "a", "b"], 2, None, Constraints()).fixed
    'cycles'
    """
    names = check_events(events)
    anchor = anchor if anchor is not None else (c.fixed if c.fixed is not None else names[0])
    if anchor not in names:
        raise InputError(f"anchor {anchor!r} is not among the events")
    if c.fixed is not None and c.fixed != anchor:
        raise InputError(
            f"HRM reads one event in every group, the anchor {anchor!r}; the fixed event {c.fixed!r} differs"
        )
    if isinstance(pmcs, int) and not isinstance(pmcs, bool) and pmcs < 2:
        raise InputError(f"HRM needs at least 2 counters (the anchor and one more), got pmcs {pmcs}", param="pmcs")
    return Problem(names, pmcs, Constraints(c.must_share, c.counters, anchor, c.budget))


def hrm_from_problem(prob: Problem, opts: SearchOptions, rng: np.random.Generator, progress: ProgressLike) -> Plan:
    """The HRM plan of a checked problem (the anchor is ``prob.fixed``) within ``opts.time_budget``.

    Examples
    --------
    >>> import numpy as np
    >>> prob = hrm_problem(["cycles", "a", "b", "c"], 3, None, Constraints())
    >>> hrm_from_problem(prob, SearchOptions(), np.random.default_rng(0), None).groups
    [['cycles', 'a', 'b'], ['cycles', 'c']]
    """
    lb = prob.packing_bound()
    with as_progress(progress).task("HRM plan", total=opts.time_budget) as task:
        clock = Clock(opts.time_budget, task, lb)
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


def _hrm_blocks(prob: Problem, lb: int, rng: np.random.Generator, clock: Clock) -> tuple[Blocks, str]:
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

    Parameters
    ----------
    events : sequence of str
        The events to read, each once.
    pmcs : int
        Counters per run (the anchor takes one); at least 2.
    anchor : str, optional
        The event read in every group; default ``constraints.fixed`` or the first event.
    constraints : Constraints, optional
        ``must_share``, ``counters`` and ``budget`` apply; ``fixed`` must be the anchor if given.
    seed : int, Generator or None
        Orders tried when the first packing needs more groups than the bound (only with
        must-share sets or counter restrictions).

    Returns
    -------
    list of list of str
        The groups, the anchor first in each; :func:`hrm_plan` gives the whole :class:`Plan`.

    Raises
    ------
    InputError
        Bad or repeated event names, an anchor not among the events or other than
        ``constraints.fixed``, fewer than 2 counters, or bad constraints.
    DesignError
        A must-share set that no group can hold.

    Examples
    --------
    >>> hrm_design(["cycles", "a", "b", "c", "d", "e"], 3)
    [['cycles', 'a', 'b'], ['cycles', 'c', 'd'], ['cycles', 'e']]
    """
    return [list(g) for g in hrm_plan(events, pmcs, anchor=anchor, constraints=constraints, seed=seed).groups]


__all__ = ["hrm_design", "hrm_from_problem", "hrm_plan", "hrm_problem"]
