"""Exact pair coverings of small instances by integer programming (scipy's HiGHS).

Minimise the number of groups ``sum x_B`` over all *maximal* feasible groups ``B`` (no
further unit fits) subject to every pair of units lying in a chosen group
(``sum_{B ∋ {a, c}} x_B >= 1``), ``x_B`` binary.  Restricting to maximal groups loses
nothing: any covering can be grown to one of maximal groups of the same size.  Used when
the search ends above the lower bound and there are at most ``limit`` candidate groups;
a run that finishes proves the size optimal.

Examples
--------
>>> from hemkit.plan.problem import Constraints, Problem
>>> blocks, proven = exact_covering(Problem([f"e{i}" for i in range(9)], 4, Constraints()), 9, 10.0)
>>> len(blocks), proven
(8, True)
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from hemkit.plan.problem import Problem


def candidate_blocks(prob: Problem, limit: int) -> list[tuple[int, ...]] | None:
    """Every feasible group that no other unit could join (None when more than ``limit``).

    Examples
    --------
    >>> from hemkit.plan.problem import Constraints
    >>> len(candidate_blocks(Problem(list("abcde"), 3, Constraints()), 100))
    10
    """
    n = prob.n
    if math.comb(n, min(prob.cap, n)) > 4 * limit:
        return None
    out = []
    for size in range(min(prob.cap, n), 1, -1):
        for b in combinations(range(n), size):
            if prob.fits(list(b)) and not any(prob.fits([*b, u]) for u in range(n) if u not in b):
                out.append(b)
                if len(out) > limit:
                    return None
    return out


def exact_covering(
    prob: Problem, upper: int, time_limit: float, limit: int = 1500
) -> tuple[list[list[int]], bool] | None:
    """The smallest covering of ``prob``'s units the solver finds in ``time_limit`` seconds.

    Returns ``(blocks, proven_optimal)``, or None when the instance has too many candidate
    groups or nothing smaller than ``upper`` was found (a time-limited answer of the same
    size is not used, so that results stay reproducible).

    Examples
    --------
    >>> from hemkit.plan.problem import Constraints, Problem
    >>> blocks, proven = exact_covering(Problem(list("abcdefg"), 4, Constraints()), 10, 10.0)
    >>> len(blocks), proven                     # C(7, 4, 2) = 5 > Schönheim's 4
    (5, True)
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_matrix

    cands = candidate_blocks(prob, limit)
    if not cands:
        return None
    n = prob.n
    pair_id = {p: i for i, p in enumerate(combinations(range(n), 2))}
    rows, cols = [], []
    for j, b in enumerate(cands):
        for p in combinations(b, 2):
            rows.append(pair_id[p])
            cols.append(j)
    a = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(pair_id), len(cands)))
    res = milp(
        np.ones(len(cands)),
        constraints=LinearConstraint(a, lb=1),
        integrality=np.ones(len(cands)),
        bounds=Bounds(0, 1),
        options={"time_limit": max(time_limit, 0.01), "disp": False},
    )
    if res.x is None:
        return None
    chosen = [list(cands[j]) for j in np.flatnonzero(res.x > 0.5)]
    proven = res.status == 0
    if len(chosen) > upper or (not proven and len(chosen) == upper):
        return None
    return chosen, proven


__all__ = ["candidate_blocks", "exact_covering"]
