"""How small a plan can be: the Schönheim bound and the best published covering sizes.

- :func:`schonheim_bound` -- ``L(v, k) = ceil(v / k * ceil((v - 1) / (k - 1)))``, the lower
  bound on the number of groups of ``k`` events covering all pairs of ``v`` events
  (Schönheim 1964; Gordon, Kuperberg & Patashnik 1995, Theorem 1).
- :func:`best_known` -- the smallest size published, where hemkit knows it: the
  La Jolla Covering Repository values of :data:`BEST_KNOWN`, ``C(v, 2, 2) = v(v-1)/2``,
  ``C(v, 3, 2) = L(v, 3)`` (Fort & Hedlund 1958), and the planes: ``C(q^2+q+1, q+1, 2) =
  q^2+q+1`` and ``C(q^2, q, 2) = q^2+q`` for prime powers ``q`` (both equal the bound, so
  they are optimal).
- :func:`hrm_bound` -- the fewest HRM groups: every group holds the anchor.

Examples
--------
>>> schonheim_bound(50, 6), best_known(57, 8), best_known(64, 8), best_known(50, 6) is None
(84, 57, 72, True)
"""

from __future__ import annotations

import math

from hemkit.core.checks import check_scalar
from hemkit.core.errors import InputError

#: Best known sizes of pair coverings C(v, k, 2) from the La Jolla Covering Repository
#: (https://ljcr.dmgordon.org/cover/table.html) for cases hemkit's docs and tests name,
#: beyond those :func:`best_known` computes (k = 2, k = 3, projective and affine planes).
BEST_KNOWN: dict[tuple[int, int], int] = {
    (7, 4): 5,
    (9, 4): 8,
    (10, 4): 9,
    (16, 6): 10,
}


def _prime_power(q: int) -> bool:
    if q < 2:
        return False
    p = next(d for d in range(2, q + 1) if q % d == 0)
    while q % p == 0:
        q //= p
    return q == 1


def schonheim_bound(v: int, k: int) -> int:
    """Schönheim lower bound on the number of groups of ``k`` covering all pairs of ``v`` events.

    The one implementation in hemkit (:func:`hemkit.evaluate.diagnostics.schonheim` calls it).

    Parameters
    ----------
    v : int
        Number of events, at least 0.
    k : int
        Events per group (counters per run), at least 1.

    Returns
    -------
    int
        The fewest groups any pair covering can have: 0 for no events (no pair to cover and
        no event to read), 1 for one event (the group that reads it) or when a single group
        holds them all (``k >= v``).

    Raises
    ------
    InputError
        ``v`` or ``k`` not an integer or below its least value, or ``k < 2`` with at least
        two events: such groups cover no pair.

    Examples
    --------
    >>> schonheim_bound(16, 6), schonheim_bound(10, 4), schonheim_bound(200, 8)
    (8, 8, 725)
    >>> schonheim_bound(0, 6), schonheim_bound(1, 6)
    (0, 1)
    """
    v = check_scalar(v, "v", min_val=0)
    k = check_scalar(k, "k", min_val=1)
    if v <= 1:
        return v
    if k >= v:
        return 1
    if k < 2:
        raise InputError(f"groups of {k} event(s) cannot cover pairs; need at least 2 counters")
    return math.ceil(v / k * math.ceil((v - 1) / (k - 1)))


def plane_order(v: int, k: int) -> tuple[str, int] | None:
    """``("projective", q)`` or ``("affine", q)`` when C(v, k, 2) is a whole plane of order q.

    Examples
    --------
    >>> plane_order(31, 6), plane_order(49, 7), plane_order(50, 6)
    (('projective', 5), ('affine', 7), None)
    """
    q = k - 1
    if v == q * q + q + 1 and _prime_power(q):
        return ("projective", q)
    q = k
    if v == q * q and _prime_power(q):
        return ("affine", q)
    return None


def best_known(v: int, k: int) -> int | None:
    """Best published covering size C(v, k, 2), or None when hemkit does not know it.

    Parameters
    ----------
    v : int
        Number of events.
    k : int
        Events per group (counters per run).

    Returns
    -------
    int or None
        The size (1 when ``k >= v``, 0 for no events), or None for pairs ``(v, k)`` neither
        computed nor in :data:`BEST_KNOWN` (also for ``k < 2`` with two or more events: no
        such covering exists).

    Examples
    --------
    >>> best_known(10, 2), best_known(9, 3), best_known(25, 5), best_known(16, 6)
    (45, 12, 30, 10)
    """
    if v <= 1:
        return max(v, 0)
    if k >= v:
        return 1
    if k == 2:
        return v * (v - 1) // 2
    if k == 3:
        return schonheim_bound(v, 3)
    if plane_order(v, k) is not None:
        return schonheim_bound(v, k)
    return BEST_KNOWN.get((v, k))


def estimate(v: int, k: int) -> float:
    """A guess of C(v, k, 2) for choosing between constructions: best known, else 1.08 x the bound.

    Examples
    --------
    >>> estimate(31, 6), estimate(6, 6)
    (31, 1)
    """
    known = best_known(v, k)
    if known is not None:
        return known
    lb = schonheim_bound(v, k)
    return lb if lb <= 1 else 1.08 * lb


__all__ = ["BEST_KNOWN", "best_known", "estimate", "plane_order", "schonheim_bound"]
