"""Plan which events to read together when counters are few (HRM and MUCH designs).

- :func:`make_plan` / :class:`Plan` -- design groups and read/write the plan file.
- :func:`hrm_design`, :func:`covering_design` (MUCH), :func:`schonheim_bound`,
  :func:`best_known`, :class:`Constraints` -- the algorithms (:mod:`hemkit.plan.designs`).

Examples
--------
>>> from hemkit.plan import make_plan
>>> plan = make_plan([f"e{i}" for i in range(16)], pmcs=6, design="much")
>>> len(plan.groups), plan.lower_bound, plan.best_known
(10, 8, 10)
"""

from hemkit.plan.designs import (
    BEST_KNOWN,
    Constraints,
    CoveringResult,
    best_known,
    covering_design,
    hrm_design,
    much_design,
    pairs_covered,
    schonheim_bound,
)
from hemkit.plan.planfile import Plan, make_plan

__all__ = [
    "BEST_KNOWN",
    "Constraints",
    "CoveringResult",
    "Plan",
    "best_known",
    "covering_design",
    "hrm_design",
    "make_plan",
    "much_design",
    "pairs_covered",
    "schonheim_bound",
]
