"""MUCH: the paper's worked examples, keeping every event, errors and policies."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit import HemkitError, Readings
from hemkit.datasets import t2080_much
from hemkit.datasets.synthetic import make_truth, split_into_groups
from hemkit.merge import merge_much, normal_scores, pairwise_correlation, reorder
from hemkit.merge.correlation import complete_maxdet, nearest_correlation
from hemkit.merge.much import pooled_normal_scores


def test_paper_normal_scores_example():
    # MUCH paper, Sec. 4.3: {1,2,5,8} -> {0.2,0.4,0.6,0.8} -> {-0.842,-0.253,0.253,0.842}
    np.testing.assert_allclose(normal_scores(np.array([1, 2, 5, 8])), [-0.8416, -0.2533, 0.2533, 0.8416], atol=1e-4)


def test_paper_reorder_example():
    out = reorder(np.array([[9.0], [10], [12], [17]]), np.array([[1.121], [-0.870], [-0.172], [0.343]]))
    np.testing.assert_array_equal(out.ravel(), [17, 9, 10, 12])


def test_t2080_keeps_all_16_events_and_is_seeded():
    r = t2080_much()
    a = merge_much(r, n_sims=20, seed=7)
    b = merge_much(r, n_sims=20, seed=7)
    assert a.shape == (1000, 16) and list(a.columns) == r.events
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs["hemkit"]["repaired"] is True  # T2080's Sigma_0 is not positive definite
    assert a.attrs["hemkit"]["dropped"] == []
    # the best of the draws is kept
    assert a.attrs["hemkit"]["mse_to_observed"] == pytest.approx(min(a.attrs["hemkit"]["sim_mse"]), rel=1e-3)


def test_dep_lvl_compatibility_mode_keeps_7_of_16():
    m = merge_much(t2080_much(), n_sims=5, seed=0, dep_lvl=0.85)
    assert m.shape[1] == 7 and len(m.attrs["hemkit"]["dropped"]) == 9


def test_columns_are_the_events_readings():
    r = t2080_much()
    m = merge_much(r, n_sims=3, seed=0)
    # an event read in 8 groups of 1000 runs: its 1000 evenly spaced order statistics
    e = "L2_MISSES"
    pooled = np.sort(np.concatenate([t[e].to_numpy() for t in r.groups.values() if e in t.columns]))
    np.testing.assert_array_equal(
        np.sort(m[e].to_numpy()), pooled[np.rint(np.linspace(0, len(pooled) - 1, 1000)).astype(int)]
    )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**20), n=st.integers(6, 40))
def test_single_group_events_are_permuted_not_resampled(seed, n):
    truth = make_truth(n_events=5, n_runs=n * 10, seed=seed)
    ev = list(truth.columns)
    groups = [
        [ev[0], ev[1], ev[2]],
        [ev[0], ev[3], ev[4]],
        [ev[1], ev[3]],
        [ev[1], ev[4]],
        [ev[2], ev[3]],
        [ev[2], ev[4]],
    ]
    r = split_into_groups(truth, groups, n, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = merge_much(r, n_sims=2, seed=seed, n=n)
    assert len(m) == n
    for e in ev:
        pooled = np.sort(np.concatenate([t[e].to_numpy() for t in r.groups.values() if e in t.columns]))
        expected = pooled if len(pooled) == n else pooled[np.rint(np.linspace(0, len(pooled) - 1, n)).astype(int)]
        np.testing.assert_array_equal(np.sort(m[e].to_numpy()), expected)


def test_pair_never_read_together_is_an_error_naming_it():
    g1 = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [2.0, 1, 4, 3]})
    g2 = pd.DataFrame({"a": [1.0, 2, 3, 5], "c": [1.0, 3, 2, 4]})
    r = Readings({1: g1, 2: g2})
    with pytest.raises(HemkitError, match="events 'b' and 'c' were never read together"):
        merge_much(r, n_sims=2, seed=0)
    m = merge_much(r, n_sims=2, seed=0, impute="maxdet")
    assert m.attrs["hemkit"]["imputed"] == [["b", "c"]]


def test_maxdet_completion_is_conditional_independence():
    c = np.array([[1, 0.8, np.nan], [0.8, 1, 0.5], [np.nan, 0.5, 1]])
    assert complete_maxdet(c)[0, 2] == pytest.approx(0.4, abs=1e-4)


def test_nearest_correlation_repairs_and_keeps_size():
    c = np.array([[1, 0.9, -0.9], [0.9, 1, 0.9], [-0.9, 0.9, 1]])
    fixed, repaired = nearest_correlation(c)
    assert repaired and np.linalg.eigvalsh(fixed)[0] > 0
    np.testing.assert_allclose(np.diag(fixed), 1)
    np.linalg.cholesky(fixed)
    good = np.array([[1, 0.5], [0.5, 1]])
    same, repaired = nearest_correlation(good)
    assert not repaired and np.array_equal(same, good)


def test_pairwise_correlation_uses_every_group_and_centres_each():
    # two groups with very different means; within each, a and b are perfectly correlated
    g1 = pd.DataFrame({"a": [1.0, 2, 3], "b": [10.0, 20, 30]})
    g2 = pd.DataFrame({"a": [101.0, 102, 103], "b": [5.0, 15, 25]})
    c, n = pairwise_correlation(Readings({1: g1, 2: g2}))
    assert c.loc["a", "b"] == pytest.approx(1.0)
    assert n.loc["a", "b"] == 6


def test_outlier_policy_zscore_without_outliers_equals_keep():
    # the reference's bug: with no |z| >= 3 it dropped the whole group; here nothing changes
    r = t2080_much()
    small = Readings({g: t.iloc[:6] for g, t in r.groups.items()})  # 6 runs: |z| < 3 always
    keep, _ = pairwise_correlation(small, outliers="keep")
    z, n = pairwise_correlation(small, outliers="zscore")
    pd.testing.assert_frame_equal(keep, z)
    assert (n.to_numpy() > 0).all()


def test_outlier_policy_zscore_leaves_out_an_outlier():
    rng = np.random.default_rng(0)
    a = rng.normal(100, 1, 200)
    b = a + rng.normal(0, 0.5, 200)
    b[0] = 10_000  # one wild reading
    r = Readings({1: pd.DataFrame({"a": a, "b": b})})
    keep, _ = pairwise_correlation(r, outliers="keep")
    z, n = pairwise_correlation(r, outliers="zscore")
    assert keep.loc["a", "b"] < 0.2 and z.loc["a", "b"] > 0.85
    assert n.loc["a", "b"] == 199
    with pytest.raises(HemkitError, match="unknown outlier policy"):
        pairwise_correlation(r, outliers="drop-everything")


def test_pooled_normal_scores_follow_eq1():
    r = Readings(
        {1: pd.DataFrame({"a": [1.0, 5, 2], "b": [1.0, 2, 3]}), 2: pd.DataFrame({"a": [8.0, 3, 4], "c": [3.0, 2, 1]})}
    )
    s = pooled_normal_scores(r)
    # a's pooled readings 1,5,2,8,3,4: ranks 1,5,2,6,3,4 over n + 1 = 7
    from scipy import stats

    np.testing.assert_allclose(s[1][:, 0], stats.norm.ppf(np.array([1, 5, 2]) / 7))
    np.testing.assert_allclose(s[2][:, 0], stats.norm.ppf(np.array([6, 3, 4]) / 7))


def test_n_sims_must_be_positive():
    with pytest.raises(HemkitError, match="n_sims"):
        merge_much(t2080_much(), n_sims=0)


def test_bartlett_scatter_is_wishart():
    from hemkit.merge.much import bartlett_scatter

    sigma = np.array([[1.0, 0.6, -0.2], [0.6, 1.0, 0.3], [-0.2, 0.3, 1.0]])
    df = 20
    _, w = bartlett_scatter(np.linalg.cholesky(sigma), df, 40_000, np.random.default_rng(0))
    # E[W] = df * Sigma and Var(W_ij) = df * (Sigma_ij^2 + Sigma_ii Sigma_jj)
    np.testing.assert_allclose(w.mean(axis=0), df * sigma, atol=0.1)
    assert w[:, 0, 1].var() == pytest.approx(df * (0.36 + 1), rel=0.03)


def test_sample_criterion_keeps_events_and_is_seeded():
    r = t2080_much()
    a = merge_much(r, seed=2, criterion="sample")
    pd.testing.assert_frame_equal(a, merge_much(r, seed=2, criterion="sample"))
    assert a.shape == (1000, 16) and a.attrs["hemkit"]["criterion"] == "sample"
    assert a.attrs["hemkit"]["mse_to_observed"] < 0.02
    with pytest.raises(HemkitError, match="unknown criterion"):
        merge_much(r, criterion="vibes")
