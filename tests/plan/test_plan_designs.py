"""Designs: pair coverage (property test), known covering sizes, constraints, HRM balance."""

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit import HemkitError
from hemkit.plan import (
    Constraints,
    best_known,
    covering_design,
    hrm_design,
    pairs_covered,
    schonheim_bound,
)


def ev(v):
    return [f"e{i}" for i in range(v)]


@settings(max_examples=40, deadline=None)
@given(v=st.integers(2, 18), k=st.integers(2, 7), seed=st.integers(0, 1000))
def test_every_pair_covered_and_groups_within_budget(v, k, seed):
    res = covering_design(ev(v), k, seed=seed, effort=0.2, exact_time=0)
    assert pairs_covered(res.groups, ev(v)) == []
    assert all(len(g) <= k for g in res.groups)
    assert res.size >= res.lower_bound


@pytest.mark.parametrize(
    "v,k,size",
    [(7, 3, 7), (10, 4, 9), (13, 4, 13), (16, 4, 20), (16, 6, 10)],
)
def test_known_covering_sizes(v, k, size):
    res = covering_design(ev(v), k, seed=0)
    assert pairs_covered(res.groups, ev(v)) == []
    assert res.size == size
    assert res.best_known == size


def test_schonheim_bound_values():
    assert schonheim_bound(16, 6) == 8  # the issue: not reachable, best known 10
    assert schonheim_bound(7, 3) == 7
    assert schonheim_bound(16, 4) == 20
    assert schonheim_bound(5, 5) == 1
    assert best_known(10, 2) == 45 and best_known(9, 3) == 12


def test_greedy_only_is_larger_on_16_6():
    res = covering_design(ev(16), 6, seed=0, effort=0)
    assert res.size >= 10 and pairs_covered(res.groups, ev(16)) == []


def test_hrm_balanced_with_anchor():
    groups = hrm_design(ev(16), 6, anchor="e5")
    assert len(groups) == 3  # ceil(15 / 5)
    assert all(g[0] == "e5" for g in groups)
    assert sorted(len(g) for g in groups) == [6, 6, 6]
    groups = hrm_design(ev(9), 4)
    assert len(groups) == 3 and {len(g) for g in groups} == {3, 4}
    assert sorted(e for g in groups for e in g[1:]) == sorted(ev(9)[1:])


def test_fixed_event_in_every_group_and_budget():
    res = covering_design(ev(9), 6, constraints=Constraints(fixed="e0", budget=4))
    assert all(g[0] == "e0" and len(g) <= 4 for g in res.groups)
    assert pairs_covered(res.groups, ev(9)) == []
    # the fixed event takes one counter: 8 other events in groups of 3, C(8,3,2) = 11
    assert res.size == 11


def test_must_share_and_counter_restrictions():
    c = Constraints(must_share=[["e0", "e1"], ["e1", "e2"]], counters={"e3": [0], "e4": [0, 1]})
    res = covering_design(ev(8), 4, constraints=c)
    assert pairs_covered(res.groups, ev(8)) == []
    for g in res.groups:
        assert {"e0", "e1", "e2"} <= set(g) or not ({"e0", "e1", "e2"} & set(g))
        assert len(g) <= 4


def test_impossible_pair_is_named():
    c = Constraints(counters={"e0": [0], "e1": [0]})
    with pytest.raises(HemkitError, match="'e0' and 'e1' can never be read together"):
        covering_design(ev(4), 4, constraints=c)


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        (dict(events=["a", "a"], pmcs=2), "given twice"),
        (dict(events=["a", "b"], pmcs=1), "at least 2 counters"),
        (dict(events=["a", "b", "c"], pmcs=3, constraints=Constraints(must_share=[["a", "z"]])), "unknown event 'z'"),
        (dict(events=["a", "b", "c"], pmcs=2, constraints=Constraints(must_share=[["a", "b", "c"]])), "needs 3"),
    ],
)
def test_bad_input_one_line_errors(kwargs, msg):
    with pytest.raises(HemkitError, match=msg):
        covering_design(**kwargs)


def test_covering_is_seeded():
    a = covering_design(ev(12), 5, seed=3, exact_time=0).groups
    b = covering_design(ev(12), 5, seed=3, exact_time=0).groups
    assert a == b
    assert all(len(set(p)) == 2 for g in a for p in combinations(g, 2))


def test_hrm_with_must_share_and_counters():
    c = Constraints(must_share=[["e1", "e2", "e3"]], counters={"e4": [1], "e5": [1]})
    groups = hrm_design(ev(8), 4, constraints=c)
    assert all(g[0] == "e0" and len(g) <= 4 for g in groups)
    assert any({"e1", "e2", "e3"} <= set(g) for g in groups)
    assert not any({"e4", "e5"} <= set(g) for g in groups)  # both need counter 1
    assert sorted(e for g in groups for e in g[1:]) == sorted(ev(8)[1:])


@pytest.mark.parametrize("v,k,size", [(9, 4, 8), (10, 4, 9), (12, 4, 12)])
def test_exact_ilp_proves_small_cases_optimal(v, k, size):
    res = covering_design(ev(v), k, seed=0, effort=0.05)
    assert pairs_covered(res.groups, ev(v)) == []
    assert res.size == size and res.optimal
    assert "proven optimal" in res.summary()


def test_ilp_with_constraints_covers_everything():
    c = Constraints(must_share=[["e0", "e1"]], counters={"e2": [0], "e3": [1]})
    res = covering_design(ev(8), 4, constraints=c, seed=0)
    assert pairs_covered(res.groups, ev(8)) == []
    assert all(("e0" in g) == ("e1" in g) for g in res.groups)
