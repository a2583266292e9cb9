"""HRM: exact reproduction of mergingTools, run-count rule, anchor correlations kept."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from hemkit.core.errors import HemkitError, InputError
from hemkit.core.readings import Readings
from hemkit.datasets import t2080_hrm, t2080_hrm_reference
from hemkit.merge import merge_hrm


def test_reproduces_mergingtools_exactly():
    res = merge_hrm(t2080_hrm(), "PROCESSOR_CYCLES")
    merged = res.data
    ref = t2080_hrm_reference()
    assert res.method == "hrm" and res.params["anchor"] == "PROCESSOR_CYCLES"
    assert sorted(merged.columns) == sorted(ref.columns)
    np.testing.assert_array_equal(merged[ref.columns].to_numpy(), ref.to_numpy())


def test_anchor_is_type2_quantiles_of_pooled_readings():
    r = Readings(
        {1: pd.DataFrame({"a": [1.0, 3, 5], "x": [1.0, 2, 3]}), 2: pd.DataFrame({"a": [2.0, 4, 6], "y": [3.0, 2, 1]})}
    )
    m = merge_hrm(r, "a").data
    # R: quantile(c(1,3,5,2,4,6), c(0, .5, 1), type = 2) = 1, 3.5, 6
    np.testing.assert_array_equal(m["a"].to_numpy(), [1.0, 3.5, 6.0])
    np.testing.assert_array_equal(m["x"].to_numpy(), [1, 2, 3])
    np.testing.assert_array_equal(m["y"].to_numpy(), [3, 2, 1])


def test_groups_of_different_sizes_are_quantile_resampled():
    g1 = pd.DataFrame({"a": np.arange(10.0), "x": np.arange(10.0) * 2})
    g2 = pd.DataFrame({"a": np.arange(5.0)[::-1], "y": np.arange(5.0)[::-1] + 100})
    m = merge_hrm(Readings({1: g1, 2: g2}), "a").data
    assert len(m) == 10
    # the 5-run group contributes its sorted rows at ranks round(linspace(0, 4, 10))
    np.testing.assert_array_equal(m["y"].to_numpy(), 100 + np.rint(np.linspace(0, 4, 10)))
    assert set(m["y"]) <= set(g2["y"])
    m6 = merge_hrm(Readings({1: g1, 2: g2}), "a", rows=6).data
    assert len(m6) == 6


def test_errors():
    r = t2080_hrm()
    with pytest.raises(HemkitError, match="unknown anchor 'NOPE'"):
        merge_hrm(r, "NOPE")
    with pytest.raises(HemkitError, match="not read in group 2"):
        merge_hrm(r, "CYCLES_LSU_SCHEDULE_STALLED")
    with pytest.raises(InputError, match="rows \\(merged runs\\) must be an integer of at least 3"):
        merge_hrm(r, "PROCESSOR_CYCLES", rows=2)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**20), n=st.integers(5, 60), groups=st.integers(1, 4))
def test_keeps_rank_correlation_with_the_anchor_and_permutes_readings(seed, n, groups):
    rng = np.random.default_rng(seed)
    tables = {}
    for g in range(groups):
        a = rng.permutation(n * 10)[:n].astype(float)  # distinct anchor readings
        x = a * rng.uniform(-2, 2) + rng.normal(0, 50, n)
        tables[g] = pd.DataFrame({"anchor": a, f"x{g}": np.round(x - x.min() + 1, 3)})
    r = Readings(tables)
    m = merge_hrm(r, "anchor").data
    for g, t in tables.items():
        col = f"x{g}"
        # a permutation of the group's readings
        np.testing.assert_array_equal(np.sort(m[col].to_numpy()), np.sort(t[col].to_numpy()))
        # Spearman with the anchor is exactly the group's own
        within = stats.spearmanr(t["anchor"], t[col])[0]
        merged = stats.spearmanr(m["anchor"], m[col])[0]
        if np.isfinite(within):
            assert merged == pytest.approx(within, abs=1e-12)


def r_quantile_type2(x, probs):
    """R 4.x quantile.default, types 1-3 branch, transcribed line by line for type 2."""
    n = len(x)
    fuzz = 4 * np.finfo(float).eps
    out = []
    xs = np.sort(x)
    xp = np.concatenate([[xs[0], xs[0]], xs, [xs[-1], xs[-1]]])  # x <- c(x[1L], x[1L], x, x[n], x[n])
    for p in probs:
        nppm = n * p
        j = int(np.floor(nppm + fuzz))
        h = ((nppm > j) + 1) / 2
        q = xp[j + 1]  # R's x[j + 2L], 1-based
        if h == 1:
            q = xp[j + 2]
        elif 0 < h < 1 and xp[j + 1] != xp[j + 2]:
            q = (1 - h) * xp[j + 1] + h * xp[j + 2]
        out.append(q)
    return np.array(out)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=40), st.integers(2, 60))
def test_quantile_type2_follows_r(values, n_probs):
    from hemkit.merge.hrm import quantile_type2

    x = np.array(values, dtype=float)
    p = np.linspace(0, 1, n_probs)
    np.testing.assert_array_equal(quantile_type2(x, p), r_quantile_type2(x, p))
