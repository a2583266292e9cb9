"""Plan which events to read together when counters are few (HRM and MUCH designs).

- :func:`make_plan` / :class:`Planner` -- design the groups; both return a :class:`Plan`
  (the result object: groups, bound, best known size, how it was made), which
  :meth:`Plan.from_file` reads back from a plan file (:mod:`hemkit.io.planfile` writes it).
- :func:`covering_design`, :func:`much_design` -- MUCH pair coverings
  (:mod:`hemkit.plan.much`), started from the constructions of
  :mod:`hemkit.plan.constructions` (projective and affine planes, transversal designs,
  greedy), improved by the tabu search of :mod:`hemkit.plan.search`, proven optimal for
  small cases by :mod:`hemkit.plan.exact`.
- :func:`hrm_plan`, :func:`hrm_design` -- HRM groups with an anchor (:mod:`hemkit.plan.hrm`).
- :class:`Constraints` (:mod:`hemkit.plan.problem`) -- must-share sets, counter
  restrictions, a fixed event, a group budget; :class:`SearchOptions`
  (:mod:`hemkit.plan.budget`) -- time budget, effort.
- :func:`schonheim_bound`, :func:`best_known` (:mod:`hemkit.plan.bounds`).

Examples
--------
>>> from hemkit.plan import make_plan
>>> plan = make_plan([f"e{i}" for i in range(16)], pmcs=6, design="much")
>>> len(plan.groups), plan.lower_bound, plan.best_known
(10, 8, 10)
"""

from hemkit.plan.bounds import BEST_KNOWN, best_known, schonheim_bound
from hemkit.plan.designs import (
    Planner,
    SearchOptions,
    covering_design,
    hrm_design,
    hrm_plan,
    make_plan,
    much_design,
)
from hemkit.plan.problem import Constraints, missing_pairs
from hemkit.plan.result import Plan

__all__ = [
    "BEST_KNOWN",
    "Constraints",
    "Plan",
    "Planner",
    "SearchOptions",
    "best_known",
    "covering_design",
    "hrm_design",
    "hrm_plan",
    "make_plan",
    "missing_pairs",
    "much_design",
    "schonheim_bound",
]
