"""Finite fields, projective and affine planes, truncations, transversal designs, the greedy, the search."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.plan.bounds import schonheim_bound
from hemkit.plan.constructions import (
    _field,
    affine_plane,
    greedy_covering,
    is_covering,
    pair_counts,
    plane_covering,
    prime_power,
    projective_plane,
    prune,
    transversal_covering,
    truncate,
)
from hemkit.plan.search import CoverSearch


def test_prime_powers():
    assert [q for q in range(2, 33) if prime_power(q)] == [
        2,
        3,
        4,
        5,
        7,
        8,
        9,
        11,
        13,
        16,
        17,
        19,
        23,
        25,
        27,
        29,
        31,
        32,
    ]
    assert prime_power(1) is None and prime_power(12) is None and prime_power(27) == (3, 3)


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 32])
def test_finite_field_axioms(q):
    add, mul = _field(q)
    xs = np.arange(q)
    assert (add[0] == xs).all() and (mul[1] == xs).all() and (mul[0] == 0).all()
    assert (add == add.T).all() and (mul == mul.T).all()
    assert all(sorted(add[x]) == list(range(q)) for x in range(q))  # every row a permutation: inverses exist
    assert all(sorted(mul[x, 1:]) == list(range(1, q)) for x in range(1, q))  # no zero divisors
    rng = np.random.default_rng(q)
    a, b, c = rng.integers(0, q, (3, 200))
    assert (mul[a, add[b, c]] == add[mul[a, b], mul[a, c]]).all()  # distributive
    assert (mul[a, mul[b, c]] == mul[mul[a, b], c]).all()  # associative
    assert (add[a, add[b, c]] == add[add[a, b], c]).all()


def _each_pair_once(blocks, v):
    cnt = pair_counts(blocks, v)
    off = cnt[~np.eye(v, dtype=bool)]
    return off.min() == off.max() == 1


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7, 8, 9, 11, 13])
def test_planes_are_designs(q):
    """PG(2,q): q^2+q+1 lines of q+1 points; AG(2,q): q^2+q lines of q; every pair on exactly one line."""
    pg, ag = projective_plane(q), affine_plane(q)
    assert len(pg) == q * q + q + 1 and {len(b) for b in pg} == {q + 1}
    assert len(ag) == q * q + q and {len(b) for b in ag} == {q}
    assert _each_pair_once(pg, q * q + q + 1) and _each_pair_once(ag, q * q)
    # two lines of a projective plane always meet in exactly one point
    assert all(len(set(a) & set(b)) == 1 for a, b in combinations(pg[:20], 2))


@pytest.mark.parametrize("q", [3, 4, 5, 7])
def test_truncations_stay_coverings(q):
    total = q * q + q + 1
    for v in range(2, total + 1):
        blocks = truncate(projective_plane(q), total, v)
        assert is_covering(blocks, v) and max(len(b) for b in blocks) <= q + 1
        assert all(0 <= x < v for b in blocks for x in b)
    assert len(truncate(projective_plane(q), total, q * q)) <= q * q + q  # as good as the affine plane


def test_plane_covering_picks_the_best_order():
    assert len(plane_covering(50, 8)[0]) == 56  # AG(2,7) plus a point beats PG(2,7) minus 7
    assert plane_covering(40, 5) is None  # no plane with lines of <= 5 points has 40 points
    blocks, name = plane_covering(30, 6)
    assert len(blocks) == 31 and name == "projective plane PG(2,5) without 1 point"


@pytest.mark.parametrize(
    "k,n,sizes,extra", [(6, 8, [8] * 6, 2), (4, 5, [5, 5, 4, 3], 1), (6, 5, [5] * 6, 0), (8, 7, [7] * 8, 3)]
)
def test_transversal_coverings(k, n, sizes, extra):
    v = sum(sizes) + extra
    blocks = transversal_covering(k, n, sizes, extra, lambda m: greedy_covering(m, k))
    assert is_covering(blocks, v) and max(len(b) for b in blocks) <= k
    assert all(0 <= x < v for b in blocks for x in b)


def test_transversal_design_alone_covers_cross_pairs_once():
    k, n = 5, 7
    blocks = transversal_covering(k, n, [n] * k, 0, lambda m: [])
    assert len(blocks) == n * n
    cnt = pair_counts(blocks, k * n)
    group = np.repeat(np.arange(k), n)
    cross = group[:, None] != group[None, :]
    assert (cnt[cross] == 1).all() and (cnt[~cross & ~np.eye(k * n, dtype=bool)] == 0).all()


def test_prune_and_greedy():
    assert prune([[0, 1], [0, 1, 2], [1, 2]], 3) == [[0, 1, 2]]
    for v, k in [(7, 3), (16, 6), (30, 5)]:
        blocks = greedy_covering(v, k, np.random.default_rng(0))
        assert is_covering(blocks, v) and len(blocks) >= schonheim_bound(v, k)
    assert not is_covering([[0, 1, 2], [2, 3]], 4)


@settings(max_examples=25, deadline=None)
@given(v=st.integers(8, 30), k=st.integers(3, 6), seed=st.integers(0, 10**6))
def test_search_keeps_a_covering_and_its_bookkeeping(v, k, seed):
    s = CoverSearch(v, k, greedy_covering(v, k), rng=np.random.default_rng(seed))
    best = s.run(stop_at=schonheim_bound(v, k), max_steps=300)
    assert is_covering(best, v) and max(len(b) for b in best) <= k
    # the bitsets and the pair list agree with the blocks the search holds now
    cnt = pair_counts(s.blocks, v)
    uncovered = {a * v + c for a, c in zip(*np.nonzero(np.triu(cnt == 0, 1)))}
    assert set(s.pairs) == uncovered
    for x in range(v):
        assert s.unc[x] == sum(1 << z for z in range(v) if z != x and cnt[x, z] == 0)
        assert s.one[x] == sum(1 << z for z in range(v) if z != x and cnt[x, z] == 1)
