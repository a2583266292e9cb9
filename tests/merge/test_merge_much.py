"""MUCH: the paper's worked examples and algorithm, hemkit's mode, degenerate data, errors and policies."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from hemkit.core.errors import HemkitError, HemkitWarning, InputError
from hemkit.core.readings import Readings
from hemkit.datasets import t2080_much
from hemkit.datasets.synthetic import make_truth, split_into_groups
from hemkit.merge import MuchOptions, merge_much, normal_scores, pairwise_correlation, reorder
from hemkit.merge.correlation import complete_maxdet, nearest_correlation
from hemkit.merge.much import pooled_normal_scores
from hemkit.merge.reorder import default_rows, pooled_counts

SMALL = MuchOptions(rows=1000)


def five_events(truth: pd.DataFrame) -> list[list[str]]:
    """Six groups over five events: every pair read together, ev[1] read in three groups."""
    ev = list(truth.columns)
    return [
        [ev[0], ev[1], ev[2]],
        [ev[0], ev[3], ev[4]],
        [ev[1], ev[3]],
        [ev[1], ev[4]],
        [ev[2], ev[3]],
        [ev[2], ev[4]],
    ]


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        return fn(*a, **k)


def test_paper_normal_scores_example():
    # MUCH paper, Sec. 4.3: {1,2,5,8} -> {0.2,0.4,0.6,0.8} -> {-0.842,-0.253,0.253,0.842}
    np.testing.assert_allclose(normal_scores(np.array([1, 2, 5, 8])), [-0.8416, -0.2533, 0.2533, 0.8416], atol=1e-4)


def test_paper_reorder_example():
    out = reorder(np.array([[9.0], [10], [12], [17]]), np.array([[1.121], [-0.870], [-0.172], [0.343]]))
    np.testing.assert_array_equal(out.ravel(), [17, 9, 10, 12])


def test_t2080_keeps_all_16_events_and_is_seeded():
    r = t2080_much()
    a = merge_much(r, n_sims=30, seed=7, options=SMALL)
    b = merge_much(r, n_sims=30, seed=7, options=SMALL)
    assert a.data.shape == (1000, 16) and list(a.data.columns) == r.events
    pd.testing.assert_frame_equal(a.data, b.data)
    assert a.diagnostics["repaired"] is True  # T2080's Sigma_0 is not positive definite
    assert a.diagnostics["dropped"] == []
    # the best of the draws is kept
    assert a.diagnostics["mse_to_observed"] == pytest.approx(min(a.diagnostics["sim_mse"]), rel=1e-3)
    assert len(a.diagnostics["sim_mse"]) == 30


def test_default_rows_are_every_reading():
    # the paper (Sec. 4.3): "as many merged HEM vectors as actual values have been observed for each HEM"
    truth = make_truth(n_events=5, n_runs=2000, seed=3)
    ev = list(truth.columns)
    groups = five_events(truth)
    r = split_into_groups(truth, groups, 40, seed=0)
    assert default_rows(r) == int(pooled_counts(r).max()) == 120  # ev[1] is read in 3 groups of 40
    res = merge_much(r, n_sims=30, seed=0)
    assert len(res.data) == 120 and res.params["rows"] == 120
    np.testing.assert_array_equal(np.sort(res.data[ev[1]]), np.sort(np.concatenate([r[g][ev[1]] for g in (1, 3, 4)])))


def test_dep_lvl_compatibility_mode_keeps_7_of_16():
    m = merge_much(t2080_much(), n_sims=30, seed=0, options=MuchOptions(rows=500, dep_lvl=0.85))
    assert m.data.shape[1] == 7 and len(m.diagnostics["dropped"]) == 9


def test_columns_are_the_events_readings():
    r = t2080_much()
    m = merge_much(r, n_sims=30, seed=0, options=SMALL).data
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
    groups = five_events(truth)
    r = split_into_groups(truth, groups, n, seed=seed)
    m = quiet(merge_much, r, n_sims=2, seed=seed, options=MuchOptions(rows=n)).data
    assert len(m) == n
    for e in ev:
        pooled = np.sort(np.concatenate([t[e].to_numpy() for t in r.groups.values() if e in t.columns]))
        expected = pooled if len(pooled) == n else pooled[np.rint(np.linspace(0, len(pooled) - 1, n)).astype(int)]
        np.testing.assert_array_equal(np.sort(m[e].to_numpy()), expected)


def test_pair_never_read_together_is_an_error_naming_it():
    g1 = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [2.0, 1, 4, 3]})
    g2 = pd.DataFrame({"a": [1.0, 2, 3, 5], "c": [1.0, 3, 2, 4]})
    r = Readings({1: g1, 2: g2})
    with pytest.raises(InputError, match="events 'b' and 'c' were never read together"):
        quiet(merge_much, r, n_sims=2, seed=0)
    m = quiet(merge_much, r, n_sims=2, seed=0, options=MuchOptions(impute="maxdet"))
    assert m.diagnostics["imputed"] == [("b", "c")]


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


def test_paper_mode_pools_without_centring_hemkit_centres_each_group():
    # within each group a and b are uncorrelated; between groups both shift up: drift, not correlation
    rng = np.random.default_rng(0)
    groups = {
        g: pd.DataFrame({"a": rng.normal(100 + 50 * g, 1, 200), "b": rng.normal(100 + 50 * g, 1, 200)}) for g in (0, 1)
    }
    r = Readings(groups)
    centred, _ = pairwise_correlation(r)
    pooled, _ = pairwise_correlation(r, centre=False)
    assert abs(centred.loc["a", "b"]) < 0.15 and pooled.loc["a", "b"] > 0.95
    hemkit = quiet(merge_much, r, n_sims=30, seed=0)
    paper = quiet(merge_much, r, n_sims=30, seed=0, mode="paper")
    assert paper.params["criterion"] == "sample" and hemkit.params["criterion"] == "arranged"
    assert abs(hemkit.data.corr().loc["a", "b"]) < 0.2
    # two clusters: the pooled scores correlate 2/pi = 0.64, so merged clusters agree ~72 % of the time
    assert paper.data.corr().loc["a", "b"] > 0.3


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
    np.testing.assert_allclose(s[1][:, 0], stats.norm.ppf(np.array([1, 5, 2]) / 7))
    np.testing.assert_allclose(s[2][:, 0], stats.norm.ppf(np.array([6, 3, 4]) / 7))


def test_n_sims_must_be_positive_and_few_sims_warn():
    with pytest.raises(InputError, match="n_sims"):
        merge_much(t2080_much(), n_sims=0)
    with pytest.warns(HemkitWarning, match="n_sims 10 is below 30"):
        merge_much(t2080_much(), n_sims=10, seed=0, options=MuchOptions(rows=300))
    with warnings.catch_warnings():
        warnings.simplefilter("error", HemkitWarning)
        merge_much(t2080_much(), n_sims=30, seed=0, options=MuchOptions(rows=300))


def test_groups_under_30_runs_warn_as_the_paper_asks():
    truth = make_truth(n_events=4, n_runs=400, seed=0)
    ev = list(truth.columns)
    r = split_into_groups(truth, [[ev[0], ev[1], ev[2]], [ev[0], ev[3]], [ev[1], ev[3]], [ev[2], ev[3]]], 20, seed=0)
    with pytest.warns(HemkitWarning, match="has 20 runs .* at least 30 runs per group"):
        merge_much(r, n_sims=30, seed=0)


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
    opts = MuchOptions(rows=1000, criterion="sample")
    a = merge_much(r, seed=2, options=opts)
    pd.testing.assert_frame_equal(a.data, merge_much(r, seed=2, options=opts).data)
    assert a.data.shape == (1000, 16) and a.diagnostics["criterion"] == "sample"
    assert a.diagnostics["mse_to_observed"] < 0.02
    with pytest.raises(InputError, match="unknown criterion"):
        merge_much(r, options=MuchOptions(criterion="vibes"))


def test_large_tables_judge_draws_by_the_sample():
    from hemkit.merge.much import ARRANGED_BUDGET

    r = t2080_much()
    res = merge_much(r, n_sims=30, seed=0, options=MuchOptions(rows=ARRANGED_BUDGET // (16 * 30) + 1))
    assert res.params["criterion"] == "sample"


# ----------------------------------------------------------------- degenerate data (issue 11, class B)
def _grouped(scale: float, offset: float, dtype=np.float64) -> Readings:
    truth = make_truth(n_events=4, n_runs=600, seed=11)
    truth = truth * scale + offset
    ev = list(truth.columns)
    r = split_into_groups(truth, [[ev[0], ev[1], ev[2]], [ev[0], ev[3]], [ev[1], ev[3]], [ev[2], ev[3]]], 100, seed=0)
    return Readings({g: t.astype(dtype) for g, t in r.groups.items()})


def test_huge_counts_near_the_float32_limit_and_beyond_give_the_same_arrangement():
    base = merge_much(_grouped(1.0, 0.0), n_sims=30, seed=5)
    for scale in (3.4e38 / 1e6, 1e300 / 1e6):  # counts of ~1e38 (float32's limit) and ~1e300
        big = merge_much(_grouped(scale, 0.0), n_sims=30, seed=5)
        # (pandas' own corr overflows at 1e300: compare the arrangement on rescaled values)
        np.testing.assert_allclose((big.data / scale).corr().to_numpy(), base.data.corr().to_numpy(), atol=1e-9)
        assert np.isfinite(big.diagnostics["sim_mse"]).all()


def test_stable_large_counters_keep_their_small_variation():
    # counts around 1e12 that vary by far less: float32 would make them constant
    base = merge_much(_grouped(1.0, 0.0), n_sims=30, seed=1)
    stable = merge_much(_grouped(1.0, 2.0**40), n_sims=30, seed=1)  # exact integers in float64
    np.testing.assert_allclose(stable.data.corr().to_numpy(), base.data.corr().to_numpy(), atol=1e-9)
    assert stable.diagnostics["mse_to_observed"] < 0.05


def test_float32_input_merges():
    res = merge_much(_grouped(1.0, 2.0**24, dtype=np.float32), n_sims=30, seed=0)
    assert np.isfinite(res.data.corr().to_numpy()).all()


def test_a_single_event_is_named():
    r = Readings({1: pd.DataFrame({"cycles": [1.0, 2, 3, 4]})})
    with pytest.raises(InputError, match="one event \\('cycles'\\)"):
        merge_much(r, n_sims=30)


@pytest.mark.parametrize("dep_lvl", [0, -0.5, 1.5, float("nan"), "high"])
def test_bad_dep_lvl_is_an_input_error(dep_lvl):
    with pytest.raises(InputError, match="dep_lvl must be a number in \\(0, 1\\]"):
        merge_much(t2080_much(), n_sims=30, options=MuchOptions(dep_lvl=dep_lvl))


def test_dep_lvl_keeping_one_event_is_named():
    g = pd.DataFrame({"a": [1.0, 2, 3, 4, 5], "b": [2.0, 4, 6, 8, 11]})
    with pytest.raises(InputError, match="keeps only event 'a'"):
        quiet(merge_much, Readings({1: g}), n_sims=30, options=MuchOptions(dep_lvl=0.5))
