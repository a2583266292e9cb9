"""Property tests: on arbitrary finite readings every merge gives finite correlations in [-1, 1] or an InputError."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.readings import Readings
from hemkit.merge import IntervalOptions, merge, with_intervals

EVENTS = ["a", "b", "c", "d", "e"]

values = st.one_of(
    st.integers(0, 5).map(float),  # heavy ties
    st.integers(0, 2**53).map(float),  # large exact counters
    st.floats(0, 1e300, allow_nan=False, allow_infinity=False),  # anything finite and >= 0
    st.floats(3.4e38, 3.5e38),  # at the float32 limit
)


@st.composite
def readings(draw):
    k = draw(st.integers(2, 5))
    events = EVENTS[:k]
    n_groups = draw(st.integers(1, 4))
    groups = {}
    for g in range(n_groups):
        members = draw(st.lists(st.sampled_from(events), min_size=1, max_size=k, unique=True))
        runs = draw(st.integers(3, 12))
        data = {e: draw(st.lists(values, min_size=runs, max_size=runs)) for e in members}
        groups[g] = pd.DataFrame(data)
    return groups


def _check(result, readings_):
    data = result.data.to_numpy(dtype=float)
    assert np.isfinite(data).all()
    p = result.pairs()
    for col in ("merged_pearson", "merged_spearman"):
        v = p[col].to_numpy()
        assert np.isfinite(v).all() and (np.abs(v) <= 1 + 1e-12).all()
    iv = with_intervals(result, readings_, IntervalOptions(0.9)).pair_intervals
    assert np.isfinite(iv[["estimate", "lower", "upper"]].to_numpy()).all()
    assert (iv["lower"] <= iv["estimate"] + 1e-12).all() and (iv["estimate"] <= iv["upper"] + 1e-12).all()
    assert (iv["lower"] >= -1 - 1e-12).all() and (iv["upper"] <= 1 + 1e-12).all()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(groups=readings(), method=st.sampled_from(["joint", "copula", "much", "much-paper"]), seed=st.integers(0, 2**16))
def test_merges_give_finite_correlations_or_an_input_error(groups, method, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        try:
            r = Readings(groups, drop_constant=True)
        except InputError:
            return
        kwargs = {"much": {"n_sims": 30}, "much-paper": {"n_sims": 30, "mode": "paper"}}.get(method, {})
        try:
            res = merge(r, method.split("-")[0], seed=seed, impute="maxdet", **kwargs)
        except InputError:
            return
        _check(res, r)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(groups=readings(), seed=st.integers(0, 2**16))
def test_hrm_gives_finite_correlations_or_an_input_error(groups, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        try:
            r = Readings(groups, drop_constant=True)
            anchor = next((e for e in r.events if all(e in t.columns for t in r.groups.values())), "a")
            res = merge(r, "hrm", anchor=anchor)
        except InputError:
            return
        # HRM may put a group's constant-in-order rows together: correlations stay within [-1, 1] where defined
        p = res.pairs()["merged_pearson"].dropna()
        assert (np.abs(p) <= 1 + 1e-12).all()
        assert np.isfinite(res.data.to_numpy(dtype=float)).all()


@settings(max_examples=200, deadline=None)
@given(
    x=st.lists(st.lists(st.integers(0, 6).map(float), min_size=1, max_size=30), min_size=1, max_size=4).filter(
        lambda rows: len({len(r) for r in rows}) == 1
    ),
    axis=st.sampled_from([0, 1]),
)
def test_average_ranks_equal_scipy_rankdata(x, axis):
    from scipy import stats

    from hemkit.merge.correlation import average_ranks

    a = np.array(x)
    np.testing.assert_array_equal(average_ranks(a, axis=axis), stats.rankdata(a, axis=axis))


def _identical_pair_groups(huge: bool) -> dict[int, pd.DataFrame]:
    """Hypothesis' examples of the joint crash: c and b identical in a group (a correlation of exactly 1)."""
    big = [0.0, 3.457428e38, 3.487537e38] if huge else [0.0, 3.0, 3.0]
    g2 = pd.DataFrame(
        {
            "d": [0, 0, 1, 1, 1, 2, 1.674443e06, 1.407375e14, 1.072654e16] if huge else [1, 1, 1, 0, 0, 2, 1, 0, 1],
            "c": [0, 5.787300e05, 3.479295e38, 9.007199e15, 3, 5, 3.402823e38, 4.993e03, 5]
            if huge
            else [0, 5, 0, 3, 1, 5, 0, 2, 5],
            "e": [4.0, 3, 0, 0, 0, 0, 1, 2, 2] if huge else [2.0, 0, 0, 0, 1, 0, 3, 2, 2],
        }
    )
    g2["b"] = g2["c"]
    return {0: pd.DataFrame({"d": [0.0, 5, 3], "e": [4.0, 0, 5], "a": big}), 1: pd.DataFrame({"a": [0.0] * 5}), 2: g2}


@pytest.mark.parametrize("huge", [True, False])
def test_two_identical_events_with_an_imputed_pair_merge_to_finite_correlations(huge):
    """Once a LinAlgError: the likelihood fit ran off to an infinite scale, or the max-determinant
    completion met a matrix that Cholesky passes and inversion calls singular."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        r = Readings(_identical_pair_groups(huge), drop_constant=True)
        res = merge(r, "joint", seed=0, impute="maxdet")
    _check(res, r)
    assert res.pairs().loc[("c", "b"), "merged_pearson"] > 0.99
