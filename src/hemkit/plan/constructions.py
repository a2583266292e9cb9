"""Algebraic and greedy constructions of pair coverings C(v, k, 2).

A *pair covering* of ``v`` points by blocks of at most ``k`` points is a list of blocks
such that every pair of points lies in some block.  hemkit starts its search from the
best of these constructions:

- **Projective planes** PG(2, q), q a prime power: ``q^2 + q + 1`` points and as many
  lines of ``q + 1`` points, every pair on exactly one line; optimal (the Schönheim bound)
  for ``v = k^2 - k + 1``, ``k = q + 1``.
- **Affine planes** AG(2, q): ``q^2`` points, ``q^2 + q`` lines of ``q`` points; optimal for
  ``v = k^2``, ``k = q``.  (PG(2, q) without one line.)
- **Truncations** of a plane for smaller ``v``: delete points, preferring to empty the
  smallest lines, so that lines left with one point disappear.
- **Transversal designs** TD(k, n), n a prime power >= k: ``k`` groups of ``n`` points and
  the ``n^2`` lines ``{(i, a + b * e_i)}`` of AG(2, n) meeting the groups, covering every
  pair from different groups exactly once; the pairs inside each group are covered by a
  smaller covering (recursively), so ``C(k n, k, 2) <= n^2 + k C(n, k, 2)``.  This is what
  makes designs for hundreds of events land near the bound (e.g. 200 events on 8 counters:
  625 + 8 x 13 blocks against the bound 725).
- A **greedy** covering (numpy bookkeeping): each block grows by the point that covers
  most uncovered pairs, as in the MUCH paper's "lowest order HEM not yet observed" rule.

Points are integers ``0 .. v-1``; blocks are sorted lists of points.  Finite fields
GF(p^m) are built from a primitive polynomial found by search (log/antilog tables).

Examples
--------
>>> blocks = projective_plane(2)          # the Fano plane
>>> len(blocks), sorted(len(b) for b in blocks) == [3] * 7
(7, True)
>>> len(affine_plane(5))
30
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

Blocks = list[list[int]]


# ------------------------------------------------------------------ finite fields
def prime_power(q: int) -> tuple[int, int] | None:
    """``(p, m)`` with ``q = p**m`` for a prime ``p``, or None.

    Examples
    --------
    >>> prime_power(8), prime_power(12), prime_power(13)
    ((2, 3), None, (13, 1))
    """
    if q < 2:
        return None
    p = next(d for d in range(2, q + 1) if q % d == 0)
    m = 0
    while q % p == 0:
        q //= p
        m += 1
    return (p, m) if q == 1 else None


@lru_cache(maxsize=64)
def _field(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Addition and multiplication tables of GF(q) (elements 0..q-1, base-p digit vectors)."""
    pm = prime_power(q)
    if pm is None:
        raise ValueError(f"{q} is not a prime power")
    p, m = pm
    digits = np.array([[(x // p**i) % p for i in range(m)] for x in range(q)])
    weights = p ** np.arange(m)
    add = ((digits[:, None, :] + digits[None, :, :]) % p) @ weights
    if m == 1:
        mul = np.outer(np.arange(q), np.arange(q)) % p
        return add.astype(np.int64), mul.astype(np.int64)
    # a primitive polynomial x^m + c_{m-1} x^{m-1} + ... + c_0: x must have order q - 1
    for code in range(q):
        coef = [(code // p**i) % p for i in range(m)]  # c_0 .. c_{m-1}
        if coef[0] == 0:
            continue
        power = [1] + [0] * (m - 1)  # x^0
        seen = {tuple(power)}
        ok = True
        for _ in range(q - 2):
            top = power[-1]  # multiply by x, reduce x^m = -sum c_i x^i
            power = [0, *power[:-1]]
            power = [(power[i] - top * coef[i]) % p for i in range(m)]
            key = tuple(power)
            if key in seen or not any(power):
                ok = False
                break
            seen.add(key)
        if ok:
            break
    else:  # pragma: no cover - a primitive polynomial always exists
        raise AssertionError(f"no primitive polynomial for GF({q})")
    exp = np.zeros(2 * (q - 1), dtype=np.int64)
    power = [1] + [0] * (m - 1)
    for i in range(q - 1):
        exp[i] = exp[i + q - 1] = int(np.dot(power, weights))
        top = power[-1]
        power = [0, *power[:-1]]
        power = [(power[j] - top * coef[j]) % p for j in range(m)]
    log = np.zeros(q, dtype=np.int64)
    log[exp[: q - 1]] = np.arange(q - 1)
    mul = np.zeros((q, q), dtype=np.int64)
    nz = np.arange(1, q)
    mul[1:, 1:] = exp[log[nz][:, None] + log[nz][None, :]]
    return add.astype(np.int64), mul


# ----------------------------------------------------------------------- planes
def affine_plane(q: int) -> Blocks:
    """The ``q^2 + q`` lines of AG(2, q) on points ``x * q + y`` (q a prime power).

    Examples
    --------
    >>> lines = affine_plane(3)
    >>> len(lines), {len(b) for b in lines}
    (12, {3})
    """
    add, mul = _field(q)
    xs = np.arange(q)
    lines = [sorted((xs * q + add[mul[m], c]).tolist()) for m in range(q) for c in range(q)]  # y = m x + c
    lines += [list(range(c * q, c * q + q)) for c in range(q)]  # x = c
    return lines


def projective_plane(q: int) -> Blocks:
    """The ``q^2 + q + 1`` lines of PG(2, q): AG(2, q) plus a line at infinity.

    Points ``0 .. q^2 - 1`` are affine, ``q^2 + m`` is the point at infinity of slope ``m``
    and ``q^2 + q`` that of the vertical lines.

    Examples
    --------
    >>> lines = projective_plane(4)
    >>> len(lines), {len(b) for b in lines}
    (21, {5})
    """
    affine = affine_plane(q)
    lines = [b + [q * q + i // q] for i, b in enumerate(affine[: q * q])]  # slope m = i // q
    lines += [b + [q * q + q] for b in affine[q * q :]]
    lines.append(list(range(q * q, q * q + q + 1)))
    return lines


def truncate(blocks: Blocks, n_points: int, keep: int) -> Blocks:
    """Restrict a linear space (two blocks share at most one point) to ``keep`` points.

    Points are deleted so that as many blocks as possible shrink to one point and vanish:
    repeatedly the smallest block still alive loses its points.  The survivors are
    renumbered ``0 .. keep-1``.

    Examples
    --------
    >>> len(truncate(projective_plane(5), 31, 30)), len(truncate(projective_plane(5), 31, 25))
    (31, 30)
    """
    if keep >= n_points:
        return [list(b) for b in blocks]
    alive = np.ones(n_points, dtype=bool)
    size = np.array([len(b) for b in blocks])
    on: list[list[int]] = [[] for _ in range(n_points)]
    for i, b in enumerate(blocks):
        for x in b:
            on[x].append(i)
    to_delete = n_points - keep
    while to_delete > 0:
        live = np.flatnonzero(size >= 2)
        target = int(live[np.argmin(size[live])]) if len(live) else 0
        # delete the point of the target block that shrinks the most small blocks
        cands = [x for x in blocks[target] if alive[x]]
        x = min(cands, key=lambda x: (sum(size[j] for j in on[x]), x))
        alive[x] = False
        for j in on[x]:
            size[j] -= 1
        to_delete -= 1
    new_index = np.cumsum(alive) - 1
    out = []
    for b in blocks:
        nb = [int(new_index[x]) for x in b if alive[x]]
        if len(nb) >= 2:
            out.append(nb)
    return out


def plane_covering(v: int, k: int) -> tuple[Blocks, str] | None:
    """The best (truncated) projective or affine plane with lines of at most ``k`` points.

    Returns ``(blocks, description)`` or None when no plane with lines of at most ``k``
    points has ``v`` points or more.

    Examples
    --------
    >>> [len(plane_covering(v, k)[0]) for v, k in [(57, 8), (49, 7), (64, 8), (31, 6), (25, 5)]]
    [57, 56, 72, 31, 30]
    >>> plane_covering(30, 6)[1]
    'projective plane PG(2,5) without 1 point'
    """
    best: tuple[Blocks, str] | None = None
    for q in range(2, k + 1):
        if prime_power(q) is None:
            continue
        if q + 1 <= k and q * q + q + 1 >= v:
            total, name, lines = q * q + q + 1, f"projective plane PG(2,{q})", projective_plane(q)
        elif q * q >= v:
            total, name, lines = q * q, f"affine plane AG(2,{q})", affine_plane(q)
        else:
            continue
        cand = truncate(lines, total, v)
        if total > v:
            name += f" without {total - v} point{'s' if total - v > 1 else ''}"
        if best is None or len(cand) < len(best[0]):
            best = (cand, name)
    return best


# ------------------------------------------------------------ transversal designs
def transversal_covering(k: int, n: int, sizes: Sequence[int], extra: int, inner: Callable[[int], Blocks]) -> Blocks:
    """A covering from a truncated transversal design TD(k, n) with ``extra`` points added.

    Group ``i`` keeps ``sizes[i] <= n`` of its ``n`` points; the lines of AG(2, n)
    ``{(i, a + b e_i)}`` (plus the point ``(n, b)`` when ``k = n + 1``) cover every pair of
    points from different groups; each group together with the ``extra`` points is
    covered by ``inner(size + extra)`` (blocks on ``0 .. size + extra - 1``, the extra
    points last).  Points are numbered group by group, the extra points last.

    Examples
    --------
    >>> blocks = transversal_covering(6, 8, [8] * 6, 2, lambda m: greedy_covering(m, 6))
    >>> len(blocks), is_covering(blocks, 50)   # 64 lines + 6 greedy coverings of 10 points (5 each)
    (94, True)

    With the optimal coverings of 10 points (4 blocks, found by :mod:`hemkit.plan.search`)
    it is 88 blocks for 50 events on 6 counters (Schönheim bound 84).
    """
    if not k <= n + 1 or len(sizes) != k or max(sizes) > n:
        raise ValueError(f"no TD({k}, {n}) with groups {list(sizes)}")
    add, mul = _field(n)
    offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    total = int(sum(sizes))
    out: Blocks = []
    rows = min(k, n)
    es = np.arange(rows)
    for a in range(n):
        for b in range(n):
            ys = add[a, mul[b, es]].tolist()  # point (i, a + b e_i)
            if k == n + 1:
                ys.append(b)
            block = [int(offset[i]) + y for i, y in enumerate(ys) if y < sizes[i]]
            if len(block) >= 2:
                out.append(block)
    infinity = list(range(total, total + extra))
    for i, s in enumerate(sizes):
        if s + extra < 2:
            continue
        points = list(range(int(offset[i]), int(offset[i]) + s)) + infinity
        out += [[points[x] for x in blk] for blk in inner(s + extra) if len(blk) >= 2]
    return out


def transversal_options(v: int, k: int, estimate: Callable[[int], float]) -> list[tuple[float, int, list[int], int]]:
    """Ways to build a ``v``-point covering from TD(k, n) plus extra points, best estimate first.

    Each is ``(estimated blocks, n, group sizes, extra points)``, for prime powers
    ``n >= k - 1`` near ``v / k`` and up to ``k`` extra points; ``estimate(m)`` guesses the
    size of a covering of ``m`` points.

    Examples
    --------
    >>> from hemkit.plan.bounds import schonheim_bound
    >>> transversal_options(50, 6, lambda m: schonheim_bound(m, 6))[0][1:]
    (8, [8, 8, 8, 8, 8, 8], 2)
    """
    out: list[tuple[float, int, list[int], int]] = []
    if k < 3 or v <= 2 * k:
        return out
    for extra in range(0, k + 1):
        lo = max(k - 1, math.ceil((v - extra) / k))
        n, tried = lo, 0
        while tried < 3 and n <= v:
            if prime_power(n) is not None:
                tried += 1
                rest = v - extra
                sizes = [rest // k + (i < rest % k) for i in range(k)]
                if max(sizes) <= n and min(sizes) >= 1:
                    est = n * n * _kept_fraction(sizes, n) + sum(estimate(s + extra) for s in sizes)
                    out.append((est, n, sizes, extra))
            n += 1
    out.sort(key=lambda t: (t[0], t[1], t[3]))
    return out


def _kept_fraction(sizes: Sequence[int], n: int) -> float:
    """Roughly the share of TD lines that keep at least two points when groups are truncated."""
    p = [s / n for s in sizes]
    none = float(np.prod([1 - x for x in p]))
    one = sum(x * float(np.prod([1 - y for j, y in enumerate(p) if j != i])) for i, x in enumerate(p))
    return 1 - none - one


# ------------------------------------------------------------------------ greedy
def greedy_covering(
    v: int,
    k: int,
    rng: np.random.Generator | None = None,
    fits: Callable[[Sequence[int]], bool] | None = None,
    report: Callable[[int], None] | None = None,
) -> Blocks:
    """Cover all pairs greedily, each block grown by the point that covers most new pairs.

    A block starts at the point with most uncovered pairs; ties are broken by ``rng``
    (else the lowest point).

    ``fits(block)`` (optional) says whether a block is allowed (constraints); the caller
    checks first that every pair fits in some block.  ``report(blocks_so_far)`` is called
    every 200 blocks (a progress display).

    Examples
    --------
    >>> len(greedy_covering(7, 3))
    7
    """
    if v <= 1 or (k >= v and (fits is None or fits(list(range(v))))):
        return [list(range(v))]
    unc = ~np.eye(v, dtype=bool)
    left = unc.sum(1)
    blocks: Blocks = []

    def pick(cands: np.ndarray) -> int:
        if rng is None or len(cands) == 1:
            return int(cands[0])
        return int(cands[rng.integers(len(cands))])

    while left.any():
        top = left.max()
        start = pick(np.flatnonzero(left == top))
        block = [start]
        gain = unc[start].astype(np.int64)
        while len(block) < k:
            g = gain.copy()
            g[block] = -1
            best = g.max()
            if best <= 0:
                break
            if fits is None:
                u = pick(np.flatnonzero(g == best))
            else:
                u = -1
                for val in np.unique(g[g > 0])[::-1]:  # best gain first; a random one of them that fits
                    tied = np.flatnonzero(g == val)
                    if rng is not None:
                        tied = rng.permutation(tied)
                    u = next((int(c) for c in tied if fits([*block, int(c)])), -1)
                    if u >= 0:
                        break
                if u < 0:
                    break
            block.append(u)
            gain += unc[u]
        if len(block) == 1:  # nothing allowed joins the start: cover one of its pairs directly
            partner = next((int(c) for c in np.flatnonzero(unc[start]) if fits is None or fits([start, int(c)])), None)
            if partner is None:
                raise ValueError(f"point {start} can share a block with none of its uncovered partners")
            block.append(partner)
        idx = np.array(block)
        unc[np.ix_(idx, idx)] = False
        left = unc.sum(1)
        blocks.append(sorted(block))
        if report is not None and len(blocks) % 200 == 0:
            report(len(blocks))
    return blocks


def pair_counts(blocks: Blocks, v: int) -> np.ndarray:
    """``v x v`` counts of the blocks holding each pair (diagonal: blocks holding the point).

    Examples
    --------
    >>> pair_counts([[0, 1], [0, 1, 2]], 3)[0].tolist()
    [2, 2, 1]
    """
    inc = np.zeros((len(blocks), v), dtype=np.float32)
    for i, b in enumerate(blocks):
        inc[i, b] = 1
    return (inc.T @ inc).round().astype(np.int64)  # float32 matmul: exact below 2**24 blocks


def prune(blocks: Blocks, v: int) -> Blocks:
    """Drop blocks whose pairs are all covered by other blocks (smallest blocks first).

    Examples
    --------
    >>> prune([[0, 1], [0, 1, 2], [1, 2]], 3)
    [[0, 1, 2]]
    """
    if not blocks:
        return []
    cnt = pair_counts(blocks, v)
    np.fill_diagonal(cnt, 1 << 20)
    width = max(len(b) for b in blocks)
    pad = np.full((len(blocks), width), v, dtype=np.int64)  # v: a dummy point covered "often"
    for i, b in enumerate(blocks):
        pad[i, : len(b)] = b
    big = np.full((v + 1, v + 1), 1 << 20, dtype=cnt.dtype)
    big[:v, :v] = cnt
    least = big[pad[:, :, None], pad[:, None, :]].min(axis=(1, 2))
    drop = set()
    for i in sorted(np.flatnonzero(least >= 2).tolist(), key=lambda i: (len(blocks[i]), i)):
        idx = np.asarray(blocks[i], dtype=np.int64)
        sub = cnt[np.ix_(idx, idx)]
        if sub.min() >= 2:  # still redundant after the blocks dropped before it
            cnt[np.ix_(idx, idx)] -= 1
            drop.add(i)
    return [b for i, b in enumerate(blocks) if i not in drop and (len(b) >= 2 or v == 1)]


def is_covering(blocks: Blocks, v: int) -> bool:
    """Whether ``blocks`` cover every pair of ``0 .. v-1``.

    Examples
    --------
    >>> is_covering([[0, 1, 2], [2, 3]], 4)
    False
    """
    seen = np.eye(v, dtype=bool)
    for b in blocks:
        idx = np.asarray(b, dtype=np.int64)
        seen[np.ix_(idx, idx)] = True
    return bool(seen.all())


__all__ = [
    "affine_plane",
    "greedy_covering",
    "is_covering",
    "pair_counts",
    "plane_covering",
    "prime_power",
    "projective_plane",
    "prune",
    "transversal_covering",
    "transversal_options",
    "truncate",
]
