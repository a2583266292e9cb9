"""The joint merge: EM with data missing by design, rank matching, tail placement, accuracy on a real truth."""

import warnings

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.readings import Readings
from hemkit.datasets import split_truth, zen5_br_64kb
from hemkit.datasets.synthetic import make_truth, split_into_groups
from hemkit.evaluate import evaluate
from hemkit.merge import JointOptions, merge, merge_joint
from hemkit.merge.copula import white_scores
from hemkit.merge.correlation import pairwise_correlation, upper
from hemkit.merge.joint import (
    CALIBRATION,
    CALIBRATION_KNOTS,
    MIN_ROWS,
    _tie_ranks,
    calibrate_correlation,
    cv_factors,
    factor_blend,
    factor_model,
    factor_weights,
    linear_correlation,
    match_pearson,
    ml_correlation,
    one_factor,
    pearson_estimates,
    place_tails,
    runs_together,
)
from hemkit.plan import much_design


def _gaussian_groups(seed: int, runs: int = 300):
    """Normal marginals with a strong 2-factor correlation, read in a MUCH design on 3 counters."""
    rng = np.random.default_rng(seed)
    k = 8
    w = rng.normal(size=(k, 2))
    cov = w @ w.T + np.diag(rng.uniform(0.1, 0.3, k))
    d = np.sqrt(np.diag(cov))
    corr = cov / np.outer(d, d)
    x = rng.multivariate_normal(np.zeros(k), corr, size=runs * 20)
    truth = pd.DataFrame(1000 + 100 * x, columns=[f"e{i}" for i in range(k)])
    groups = much_design(list(truth.columns), 3)
    r = split_into_groups(truth, groups, runs, seed=seed)
    order = [list(truth.columns).index(e) for e in r.events]
    return corr[np.ix_(order, order)], r


def test_ml_without_missing_data_is_the_sample_correlation():
    rng = np.random.default_rng(0)
    t = pd.DataFrame(100 + rng.normal(size=(200, 4)) @ rng.normal(size=(4, 4)), columns=list("abcd"))
    r = Readings({1: t})
    c, _ = ml_correlation(r, {1: t.to_numpy()})
    np.testing.assert_allclose(c, np.corrcoef(t.to_numpy(), rowvar=False), atol=1e-5)


def test_ml_beats_pairwise_estimates_on_known_gaussian_truth():
    em_err, pw_err = [], []
    for seed in range(5):
        corr, r = _gaussian_groups(seed)
        arrays = {g: t.to_numpy() for g, t in r.groups.items()}
        em, _ = ml_correlation(r, arrays)
        pw, _ = pairwise_correlation(r)
        em_err.append(np.mean((upper(em) - upper(corr)) ** 2))
        pw_err.append(np.mean((upper(pw.to_numpy()) - upper(corr)) ** 2))
    # every run informs every pair: maximum likelihood is markedly closer to the truth
    assert np.mean(em_err) < 0.95 * np.mean(pw_err)


def test_tie_ranks_average_ties():
    np.testing.assert_array_equal(_tie_ranks(np.array([[0.0, 0, 0, 1, 2, 2]])), [[2, 2, 2, 4, 5.5, 5.5]])


def test_tail_swaps_keep_readings_and_move_pearson_toward_the_goal():
    rng = np.random.default_rng(3)
    x = np.vstack([rng.lognormal(0, 1.2, 500), rng.lognormal(0, 1.2, 500), rng.normal(0, 1, 500)])
    goal = np.corrcoef(x)
    goal[0, 1] = goal[1, 0] = 0.8  # ask for extremes that come together
    before = np.mean((np.corrcoef(x) - goal)[np.triu_indices(3, 1)] ** 2)
    moved, swaps = place_tails(x, goal, threshold=3.0, rng=rng)
    after = np.mean((np.corrcoef(moved) - goal)[np.triu_indices(3, 1)] ** 2)
    assert after < 0.5 * before and swaps[0] + swaps[1] > 0
    for a, b in zip(moved, x):
        np.testing.assert_array_equal(np.sort(a), np.sort(b))  # every column still its readings


def test_columns_are_every_reading_and_seeded():
    r = split_truth(zen5_br_64kb(), 4, seed=0)
    a = merge_joint(r, seed=5)
    pd.testing.assert_frame_equal(a.data, merge_joint(r, seed=5).data)
    e = "cycles"
    pooled = np.sort(np.concatenate([t[e].to_numpy() for t in r.groups.values() if e in t.columns]))
    # at least MIN_ROWS rows: the 399 readings spread evenly (each order statistic repeated alike)
    assert len(a.data) == max(len(pooled), MIN_ROWS) == MIN_ROWS
    spread = pooled[np.rint(np.linspace(0, len(pooled) - 1, MIN_ROWS)).astype(np.int64)]
    np.testing.assert_array_equal(np.sort(a.data[e].to_numpy()), spread)
    # min_rows=0: every reading once
    b = merge_joint(r, seed=5, options=JointOptions(min_rows=0))
    assert len(b.data) == len(pooled)
    np.testing.assert_array_equal(np.sort(b.data[e].to_numpy()), pooled)
    assert set(a.diagnostics) >= {"ml_iterations", "rank_mse", "tail_swaps", "mse_to_observed", "repaired", "imputed"}


def test_rank_matching_brings_spearman_to_its_goal():
    r = split_truth(zen5_br_64kb(), 3, seed=1)
    res = merge_joint(r, seed=0, options=JointOptions(tails=None, ranks=True))
    hist = res.diagnostics["rank_mse"]
    assert hist[-1] <= hist[0] and min(hist) < 0.2 * hist[0]


@pytest.mark.parametrize(("pmcs", "seed"), [(3, 0), (4, 0), (3, 7)])
def test_more_accurate_than_the_paper_on_the_real_truth(pmcs, seed):
    # br_64kb: 800 real runs with every event read together; split as a MUCH design would
    truth = zen5_br_64kb()
    r = split_truth(truth, pmcs, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        paper = np.mean([evaluate(merge(r, "much", mode="paper", seed=s), truth).mse() for s in range(2)])
        joint = np.mean([evaluate(merge(r, "joint", seed=s), truth).mse() for s in range(2)])
    assert joint < paper


def test_options_are_checked():
    r = split_truth(zen5_br_64kb(), 4, seed=0)
    with pytest.raises(InputError, match=r"tails \(robust z\) must be a positive number"):
        merge_joint(r, options=JointOptions(tails=-1))
    with pytest.raises(InputError, match="boot must be an integer of at least 1"):
        merge_joint(r, options=JointOptions(boot=0))
    with pytest.raises(InputError, match="option 'n_sims' does not apply to joint"):
        merge(r, "joint", n_sims=3)


def test_pair_never_read_together():
    g1 = pd.DataFrame({"a": [1.0, 2, 3, 4, 5], "b": [2.0, 1, 4, 3, 5]})
    g2 = pd.DataFrame({"a": [1.0, 2, 3, 5, 4], "c": [1.0, 3, 2, 4, 5]})
    r = Readings({1: g1, 2: g2})
    with pytest.raises(InputError, match="events 'b' and 'c' were never read together"):
        merge_joint(r)
    res = merge_joint(r, seed=0, options=JointOptions(impute="maxdet"))
    assert res.diagnostics["imputed"] == [("b", "c")] and np.isfinite(res.data.corr().to_numpy()).all()


def test_pearson_estimates_available_case_uses_all_readings():
    # the pair (a, b) is read in a calm group; a's extreme reading is seen elsewhere
    g1 = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [1.0, 2, 3, 4, 5, 7]})
    g2 = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 60], "c": [3.0, 1, 2, 5, 4, 6]})
    pw, ac = pearson_estimates(Readings({1: g1, 2: g2}))
    assert pw[0, 1] > 0.95  # the runs read together alone
    assert ac[0, 1] < 0.5 * pw[0, 1]  # a's spread over all its readings is far larger


def test_synthetic_columns_never_nan():
    truth = make_truth(n_events=6, n_runs=600, seed=2, marginals="heavy")
    r = split_into_groups(truth, much_design(list(truth.columns), 3), 40, seed=1)
    res = merge_joint(r, seed=1)
    assert np.isfinite(res.data.to_numpy()).all() and np.isfinite(res.pairs()["merged_pearson"]).all()


# --------------------------------------------------- bootstrap estimates (issue 15: at scale)
def test_bootstrap_counts_are_resamples():
    from hemkit.merge.joint import bootstrap_counts

    c = bootstrap_counts(200, 500, np.random.default_rng(1))
    assert c.shape == (500, 200) and (c.sum(axis=1) == 200).all() and (c >= 0).all()
    assert c.mean() == pytest.approx(1.0) and c.var() == pytest.approx(1 - 1 / 200, rel=0.05)  # multinomial


def test_bootstrap_pearson_estimates_match_each_resample_computed_alone():
    from hemkit.datasets import t2080_much
    from hemkit.merge.joint import _pearson_estimates, bootstrap_counts

    full = t2080_much()
    r = Readings({g: full[g] for g in full.group_ids[:6]}).select_events(full.events[:5])
    bpw, bav = _pearson_estimates(r, (3, np.random.default_rng(7)))
    from hemkit.core.rng import spawn

    streams = iter(spawn(np.random.default_rng(7), len(r)))
    weights = {g: bootstrap_counts(len(t), 3, next(streams)) for g, t in r.groups.items()}
    for b in range(3):  # resample b by hand: repeat each run as often as drawn, then plain estimates
        rows = {g: t.loc[t.index.repeat(weights[g][b].astype(int))].reset_index(drop=True) for g, t in r.groups.items()}
        pw, av = _pearson_estimates(Readings(rows), None)
        assert np.allclose(bpw[b], pw[0], equal_nan=True, atol=1e-9)
        assert np.allclose(bav[b], av[0], equal_nan=True, atol=1e-9)


def _disturbed_truth(seed: int, runs: int = 600) -> pd.DataFrame:
    """Counts whose quiet runs are independent, and 4 % disturbed runs where every count jumps together.

    The disturbed runs make the Pearson correlations about 0.5 and the rank ones near 0:
    the structure of the software-event truth tables (context switches, interrupts, frees).
    """
    rng = np.random.default_rng(seed)
    k = 8
    quiet = rng.poisson(20, size=(runs, k)).astype(float)
    hit = rng.random(runs) < 0.04
    quiet[hit] += rng.poisson(80, size=(int(hit.sum()), k)) * rng.uniform(0.5, 1.5, k)
    return pd.DataFrame(quiet, columns=[f"e{i}" for i in range(k)])


def test_linear_fit_without_missing_data_is_the_sample_pearson_correlation():
    truth = _disturbed_truth(0, 200)
    c = linear_correlation(Readings({1: truth}))
    np.testing.assert_allclose(c, np.corrcoef(truth.to_numpy(), rowvar=False), atol=1e-4)


def test_linear_goal_carries_disturbed_runs_to_pairs_that_missed_them():
    # known truth: co-occurring extremes; the pairs whose runs missed them learn them through the others
    err = {0.0: [], 1.0: []}
    for seed in range(3):
        truth = _disturbed_truth(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            r = split_truth(truth, 3, seed=seed)
            for w in err:
                res = merge_joint(r, seed=seed, options=JointOptions(linear=w))
                err[w].append(evaluate(res, truth).mse())
    assert np.mean(err[1.0]) < 0.7 * np.mean(err[0.0])


def test_linear_fit_is_left_out_above_its_event_limit_and_the_merge_says_so(monkeypatch):
    from hemkit.merge import joint

    truth = _disturbed_truth(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        r = split_truth(truth, 3, seed=0)
    used = merge_joint(r, seed=0)
    assert used.diagnostics["linear"] == JointOptions().linear > 0
    monkeypatch.setattr(joint, "LINEAR_MAX_EVENTS", len(r.events) - 1)
    left = merge_joint(r, seed=0)
    none = merge_joint(r, seed=0, options=JointOptions(linear=0.0))
    assert left.diagnostics["linear"] == 0.0
    np.testing.assert_array_equal(left.data.to_numpy(), none.data.to_numpy())  # exactly the merge without it
    assert not np.array_equal(used.data.to_numpy(), none.data.to_numpy())


def test_linear_weight_is_checked():
    r = split_truth(zen5_br_64kb(), 4, seed=0)
    with pytest.raises(InputError, match="linear"):
        merge_joint(r, options=JointOptions(linear=1.5))


def _varied_input_truth(seed: int, runs: int = 300) -> pd.DataFrame:
    """Counts that all follow an input size drawn per run, no outliers: strong correlations (0.8-0.98)."""
    rng = np.random.default_rng(seed)
    size = rng.uniform(1, 200, runs)
    k = 10
    rate = rng.uniform(0.5, 3.0, k)
    return pd.DataFrame(rng.poisson(np.outer(size, rate)) + rng.poisson(30, size=(runs, k)), dtype=float).rename(
        columns=lambda i: f"e{i}"
    )


def test_linear_target_moves_the_bulk_when_there_are_no_outliers():
    # known truth: a varied input and no extreme readings, 17 runs a group; step 4 moves no reading,
    # so only the arrangement's target can carry the raw-reading fit
    err = {False: [], True: []}
    for seed in range(3):
        truth = _varied_input_truth(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            r = split_truth(truth, 3, seed=seed)
            for flag in err:
                res = merge_joint(r, seed=seed, options=JointOptions(linear=0.5, linear_target=flag))
                err[flag].append(evaluate(res, truth).mse())
    assert np.mean(err[True]) < 0.8 * np.mean(err[False])


def _one_factor_truth(seed: int, runs: int = 300) -> tuple[pd.DataFrame, np.ndarray]:
    """Counts driven by one common load of weak to moderate weight (correlations 0.04-0.5), and their loadings."""
    rng = np.random.default_rng(seed)
    k = 10
    load = rng.uniform(0.2, 0.7, k)
    f = rng.normal(size=runs)
    z = np.outer(f, load) + rng.normal(size=(runs, k)) * np.sqrt(1 - load**2)
    return pd.DataFrame(np.round(1000 + 40 * z), columns=[f"e{i}" for i in range(k)]), load


def test_one_factor_fits_a_one_factor_matrix_and_stays_a_correlation_matrix():
    _, load = _one_factor_truth(0)
    c = np.outer(load, load)
    np.fill_diagonal(c, 1.0)
    np.testing.assert_allclose(one_factor(c), c, atol=1e-3)
    # a two-factor matrix is not fitted exactly, but the fit is a correlation matrix
    w = np.random.default_rng(1).normal(size=(6, 2))
    cov = w @ w.T + np.eye(6)
    d = np.sqrt(np.diag(cov))
    two = cov / np.outer(d, d)
    fit = one_factor(two)
    assert np.abs(fit - two).max() > 0.05
    assert np.allclose(np.diag(fit), 1.0) and np.linalg.eigvalsh(fit)[0] > -1e-9


def test_factor_cuts_the_noise_of_pairs_read_in_one_small_group():
    # known truth: one common factor; at 17 runs a group each pair's own estimate is noise around it,
    # and the one-factor fit, informed by every pair of both events, pulls it back
    err = {0.0: [], 0.5: []}
    for seed in range(3):
        truth, _ = _one_factor_truth(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            r = split_truth(truth, 3, seed=seed)
            for w in err:
                res = merge_joint(r, seed=seed, options=JointOptions(factor=w))
                err[w].append(evaluate(res, truth).mse())
    assert np.mean(err[0.5]) < 0.8 * np.mean(err[0.0])


def test_factor_weight_is_checked():
    r = split_truth(zen5_br_64kb(), 4, seed=0)
    with pytest.raises(InputError, match="factor"):
        merge_joint(r, options=JointOptions(factor=-0.1))


def test_factor_runs_weighs_each_pair_by_the_runs_that_read_it():
    r = split_truth(zen5_br_64kb(), 4, seed=0)
    m = runs_together(r)
    assert m[0, 0] == sum(len(g.values) for g in r.arrays.values() if r.events[0] in g.events)
    w = factor_weights(r, JointOptions(factor_runs=14.0))
    np.testing.assert_allclose(w, 14.0 / (14.0 + m))
    assert factor_weights(r, JointOptions(factor=0.0)) is None
    np.testing.assert_allclose(factor_weights(r, JointOptions(factor=0.3)), 0.3)


def test_match_pearson_brings_skewed_readings_to_their_pearson_goal():
    # known answer: log-normal readings placed by a score target of 0.9 reach a Pearson correlation
    # well below 0.9; correcting the target brings them to it
    rng = np.random.default_rng(0)
    k, n = 3, 2000
    values = np.sort(np.exp(1.2 * rng.normal(size=(k, n))), axis=1)
    goal = np.full((k, k), 0.9)
    np.fill_diagonal(goal, 1.0)
    white = white_scores(k, n, np.random.default_rng(1))
    merged, hist = match_pearson(values, white, goal, goal, 6)
    achieved = np.corrcoef(merged)
    assert hist[0] > 0.005  # the plain arrangement misses (Pearson ~0.8)
    assert np.mean((upper(achieved) - upper(goal)) ** 2) < hist[0] / 10
    assert sorted(merged[0]) == sorted(values[0])  # every reading kept


def test_pearson_steps_are_checked():
    r = split_truth(zen5_br_64kb(), 4, seed=0)
    with pytest.raises(InputError, match="pearson_steps"):
        merge_joint(r, options=JointOptions(pearson_steps=-1))


# ---------------------------------------------------------- factor="auto"
def test_factor_model_recovers_a_two_factor_matrix_that_one_factor_cannot():
    w = np.random.default_rng(2).normal(size=(8, 2))
    cov = w @ w.T + np.diag(np.full(8, 0.3))
    d = np.sqrt(np.diag(cov))
    two = cov / np.outer(d, d)
    np.testing.assert_allclose(factor_model(two, 2), two, atol=2e-3)
    assert np.abs(factor_model(two, 1) - two).max() > 0.05
    np.testing.assert_allclose(factor_model(two, 1), one_factor(two))


def test_factor_blend_leaves_precise_estimates_alone_and_pulls_noisy_ones():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(8, 8))  # no model of up to MAX_FACTORS factors fits it
    cov = w @ w.T + np.eye(8)
    d = np.sqrt(np.diag(cov))
    c = cov / np.outer(d, d)
    # pairs estimated from a million runs: nothing to gain from a model, the estimates stay
    out, info = factor_blend(c, np.full((8, 8), 1e-6))
    assert np.abs(out - c).max() < 1e-3 and info["weight"] < 0.05
    # noisy estimates of a one-factor truth: pulled toward the fit, closer to the truth
    load = rng.uniform(0.3, 0.8, 8)
    truth = np.outer(load, load)
    np.fill_diagonal(truth, 1.0)
    errs = []
    for seed in range(10):
        x = np.random.default_rng(seed).multivariate_normal(np.zeros(8), truth, size=20)
        est = np.corrcoef(x.T)
        blended, info = factor_blend(est, np.full((8, 8), 1 / 17))
        assert 0.3 < info["weight"] <= 1
        errs.append((np.mean((blended - truth) ** 2), np.mean((est - truth) ** 2)))
    assert np.mean([a for a, _ in errs]) < 0.8 * np.mean([b for _, b in errs])
    # a pair never read together (infinite noise) takes the model's value
    noise = np.full((8, 8), 1 / 17)
    noise[0, 1] = noise[1, 0] = np.inf
    blended, _ = factor_blend(est, noise)
    fit = factor_model(est, 1)
    assert abs(blended[0, 1] - fit[0, 1]) < 0.05


def _cluster_case(n: int, runs: int, seed: int) -> tuple[Readings, pd.DataFrame]:
    """Synthetic truth with several clusters of events (gamma counts) read in a MUCH plan on 6 counters."""
    from hemkit.plan import make_plan

    names = [f"e{i:03d}" for i in range(n)]
    plan = make_plan(names, pmcs=6, design="much", seed=seed)
    truth = make_truth(n, len(plan.groups) * runs, marginals="gamma", seed=seed)
    truth.columns = names
    return split_into_groups(truth, plan.groups, runs, seed=seed), truth


def test_factor_auto_helps_where_a_fixed_one_factor_blend_hurts():
    # several clusters, positive and negative: one factor at a fixed weight is worse than none (BENCHMARKS:
    # 1.3-2.2x), the factor model chosen from the data is better than none
    err: dict[object, list[float]] = {0.0: [], "auto": [], 0.35: []}
    for seed in range(2):
        r, truth = _cluster_case(16, 30, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            for f in err:
                res = merge_joint(r, seed=seed, options=JointOptions(linear=0, factor=f))
                err[f].append(evaluate(res, truth[r.events]).mse())
    assert np.mean(err["auto"]) < 0.9 * np.mean(err[0.0])
    assert np.mean(err[0.35]) > 1.2 * np.mean(err[0.0])


def test_factor_auto_keeps_what_pairs_read_in_many_runs_say():
    # T2080: 1000 runs a group, two clusters with negative correlations between them; each pair's own
    # estimate is close to the truth, and a fixed one-factor blend moved the merge away from it (1.5x)
    from hemkit.datasets import t2080_much

    r = t2080_much()
    mse = {}
    for f in (0.0, "auto", 0.35):
        res = merge_joint(r, seed=0, options=JointOptions(factor=f, rows=2000))
        mse[f] = res.diagnostics["mse_to_observed"]
    assert set(res.diagnostics["factor_model"]) == set()
    assert mse["auto"] <= 1.05 * mse[0.0] < mse[0.35]


def test_factor_auto_is_the_only_word_taken():
    r = split_truth(zen5_br_64kb(), 4, seed=0)
    with pytest.raises(InputError, match="factor 'many'"):
        merge_joint(r, options=JointOptions(factor="many"))


def test_cv_factors_finds_the_clusters_of_a_known_truth_and_the_fewest_in_noise():
    # three clusters of strongly related events: three factors; independent events: the fewest tried (one)
    rng = np.random.default_rng(5)
    k, runs = 12, 60
    load = np.zeros((k, 3))
    for c in range(3):
        load[4 * c : 4 * c + 4, c] = rng.uniform(0.7, 0.9, 4)
    x = rng.normal(size=(runs * 40, 3)) @ load.T + rng.normal(size=(runs * 40, k)) * np.sqrt(1 - (load**2).sum(1))
    clustered = pd.DataFrame(1000 + 50 * x, columns=[f"e{i}" for i in range(k)])
    noise = pd.DataFrame(1000 + 50 * rng.normal(size=(runs * 40, k)), columns=clustered.columns)
    groups = much_design(list(clustered.columns), 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        found = [
            cv_factors(split_into_groups(t, groups, runs, seed=1), np.random.default_rng(0)) for t in (clustered, noise)
        ]
    assert found == [3, 1]


def test_calibration_shifts_a_pair_by_its_knots_and_less_the_more_runs_read_it():
    c = np.array([[1.0, 0.3, -0.2], [0.3, 1.0, 0.9], [-0.2, 0.9, 1.0]])
    shifts = tuple(np.linspace(-0.05, 0.05, len(CALIBRATION_KNOTS)))
    expected = np.interp(c, CALIBRATION_KNOTS, shifts)
    np.fill_diagonal(expected, 0.0)
    few = calibrate_correlation(c, np.full((3, 3), 10.0), shifts) - c  # up to 20 runs: the whole shift
    many = calibrate_correlation(c, np.full((3, 3), 1003.0), shifts) - c  # 1000 runs: (20 - 3) / 1000 of it
    np.testing.assert_allclose(few, expected, atol=1e-12)
    np.testing.assert_allclose(many, expected * 17 / 1000, atol=1e-12)
    zero = (0.0,) * len(CALIBRATION_KNOTS)
    np.testing.assert_allclose(calibrate_correlation(c, np.full((3, 3), 10.0), zero), c)


def test_calibration_zero_is_the_default_merge_and_bad_shifts_are_refused():
    zero = ((0.0,) * len(CALIBRATION_KNOTS),) * 2
    moved = {}
    for runs in (800, 120):  # 133 and 20 runs a group
        r = split_truth(zen5_br_64kb().iloc[:runs], 4, seed=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            off = merge_joint(r, seed=1).data.corr().to_numpy()
            nothing = merge_joint(r, seed=1, options=JointOptions(calibration=zero)).data.corr().to_numpy()
            prior = merge_joint(r, seed=1, options=JointOptions(calibration=CALIBRATION)).data.corr().to_numpy()
        assert np.abs(nothing - off).max() < 1e-9  # zero shifts: the default, uncalibrated merge
        moved[runs] = np.abs(prior - off).max()
    assert moved[120] > 0.04 and moved[800] < 0.5 * moved[120]  # the fitted shifts move few runs more than many
    for bad in [((0.1,) * 3, zero[0]), (zero[0],), ((float("nan"),) * len(CALIBRATION_KNOTS), zero[0]), "pool"]:
        with pytest.raises(InputError, match="calibration must be None or two sequences of 9 finite shifts"):
            merge_joint(r, options=JointOptions(calibration=bad))
