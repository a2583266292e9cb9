"""Per-pair intervals: the jackknife against brute force, identified ranges, coverage on a known truth."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri

from hemkit.core.errors import InputError
from hemkit.core.readings import Readings
from hemkit.datasets import t2080_hrm, t2080_much, zen5_br_64kb
from hemkit.datasets.synthetic import make_truth, split_into_groups
from hemkit.merge import INTERVAL_COLUMNS, IntervalOptions, merge, merge_hrm, with_intervals
from hemkit.merge.intervals import identified_range, naive_intervals, pairwise_jackknife
from hemkit.plan import much_design


def _brute_jackknife(readings: Readings, a: str, b: str) -> float:
    """Leave each run read with both events out, recompute the pooled centred correlation: sd of atanh."""
    groups = [t[[a, b]].to_numpy() for t in readings.groups.values() if a in t.columns and b in t.columns]

    def pooled(gs):
        sxy = sxx = syy = 0.0
        for x in gs:
            c = x - x.mean(axis=0)
            sxy += c[:, 0] @ c[:, 1]
            sxx += c[:, 0] @ c[:, 0]
            syy += c[:, 1] @ c[:, 1]
        return sxy / np.sqrt(sxx * syy)

    zs = []
    for gi, x in enumerate(groups):
        for t in range(len(x)):
            gs = [np.delete(x, t, axis=0) if i == gi else y for i, y in enumerate(groups)]
            zs.append(np.arctanh(pooled(gs)))
    zs = np.array(zs)
    m = len(zs)
    return float(np.sqrt((m - 1) / m * ((zs - zs.mean()) ** 2).sum()))


def test_jackknife_matches_brute_force():
    truth = make_truth(n_events=4, n_runs=400, seed=4)
    ev = list(truth.columns)
    r = split_into_groups(truth, [[ev[0], ev[1], ev[2]], [ev[0], ev[1], ev[3]], [ev[2], ev[3]]], 25, seed=0)
    corr, se, runs = pairwise_jackknife(r)
    idx = {e: i for i, e in enumerate(r.events)}
    for a, b in [(ev[0], ev[1]), (ev[0], ev[3]), (ev[2], ev[3])]:
        assert se[idx[a], idx[b]] == pytest.approx(_brute_jackknife(r, a, b), rel=1e-8)
    assert runs[idx[ev[0]], idx[ev[1]]] == 50


def test_identified_range_is_the_3x3_psd_bound():
    c = np.array([[1, np.nan, 0.8], [np.nan, 1, 0.6], [0.8, 0.6, 1]])
    lo, hi = identified_range(c, 0, 1)
    # 0.8 * 0.6 -+ sqrt((1 - 0.64) (1 - 0.36)) = 0.48 -+ 0.48
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.96)
    # the ends are exactly where the 3 x 3 matrix stops being positive semidefinite
    for v in (lo, hi):
        m = c.copy()
        m[0, 1] = m[1, 0] = v
        assert np.linalg.eigvalsh(m)[0] == pytest.approx(0, abs=1e-12)
    assert identified_range(np.array([[1, np.nan], [np.nan, 1]]), 0, 1) == (-1.0, 1.0)


def test_interval_table_shape_and_centre():
    r = t2080_much()
    res = merge(r, "much", seed=0, level=0.9, rows=1000, n_sims=30)
    iv = res.pair_intervals
    assert list(iv.columns) == list(INTERVAL_COLUMNS) and len(iv) == 120
    assert (iv["lower"] <= iv["estimate"]).all() and (iv["estimate"] <= iv["upper"]).all()
    merged = res.data.corr()
    first = iv.iloc[0]
    assert first["estimate"] == pytest.approx(merged.loc[first["event_a"], first["event_b"]])
    assert (iv["runs_together"] >= 1000).all()
    assert res.params["level"] == 0.9 and res.summary()["median_width"].iloc[0] > 0


def test_wider_at_higher_level():
    r = t2080_much()
    res = merge(r, "copula", seed=0, pearson_weight=0.0, rows=2000)
    w90 = with_intervals(res, r, IntervalOptions(0.9)).pair_intervals
    w99 = with_intervals(res, r, IntervalOptions(0.99)).pair_intervals
    assert ((w99["upper"] - w99["lower"]) >= (w90["upper"] - w90["lower"]) - 1e-12).all()
    with pytest.raises(InputError, match="level must be a number in \\(0, 1\\)"):
        with_intervals(res, r, IntervalOptions(1.5))


def test_hrm_pairs_across_groups_get_the_identified_range():
    r = t2080_hrm()
    res = with_intervals(merge_hrm(r, "PROCESSOR_CYCLES"), r)
    iv = res.pair_intervals.set_index(["event_a", "event_b"])
    across = iv[iv["runs_together"] == 0]
    within = iv[iv["runs_together"] > 0]
    assert len(across) == 75 and len(within) == 45  # 3 groups of 5 events + the anchor
    assert (across["upper"] - across["lower"]).median() > 3 * (within["upper"] - within["lower"]).median()


def test_coverage_on_a_gaussian_truth_is_close_to_the_level():
    # normal counts with a known population correlation: 90 % intervals should cover ~90 %
    inside, total = 0, 0
    for seed in range(6):
        truth = make_truth(n_events=6, n_runs=50_000, marginals="normal", seed=seed)
        population = truth.corr().to_numpy()
        groups = much_design(list(truth.columns), 3)
        r = split_into_groups(truth, groups, 150, seed=seed)
        res = merge(r, "joint", seed=seed, level=0.9)
        iv = res.pair_intervals
        idx = {e: i for i, e in enumerate(truth.columns)}
        rho = np.array([population[idx[a], idx[b]] for a, b in zip(iv["event_a"], iv["event_b"])])
        inside += int(((iv["lower"] <= rho) & (rho <= iv["upper"])).sum())
        total += len(iv)
    assert 0.8 <= inside / total <= 0.99


def test_real_truth_coverage_beats_the_naive_bootstrap():
    from hemkit.datasets import split_truth

    truth = zen5_br_64kb()
    full = truth.corr()
    ours, naive = [], []
    for pmcs, seed in ((3, 0), (3, 1), (4, 0), (4, 1), (4, 2)):
        r = split_truth(truth, pmcs, seed=seed)
        res = merge(r, "joint", seed=seed, level=0.9)
        nv = naive_intervals(r, level=0.9, seed=seed, boot=200)
        for table, out in ((res.pair_intervals, ours), (nv, naive)):
            rho = np.array([full.loc[a, b] for a, b in zip(table["event_a"], table["event_b"])])
            out.append(((table["lower"] <= rho) & (rho <= table["upper"])).mean())
    assert np.mean(ours) > np.mean(naive) and np.mean(ours) >= 0.8


def test_intervals_of_a_merge_need_its_events():
    r = t2080_much()
    res = merge(r, "copula", seed=0, pearson_weight=0.0, rows=500)
    other = Readings({1: pd.DataFrame({"x": [1.0, 2, 3], "y": [3.0, 1, 2]})})
    with pytest.raises(InputError, match="not in the readings"):
        with_intervals(res, other)


def test_fisher_quantile():
    assert float(ndtri(0.95)) == pytest.approx(1.6449, abs=1e-4)


def test_near_copies_get_an_informative_interval_holding_their_own_estimate():
    """T2080 has pairs read together in 1000+ runs at r = 0.99999; a merge lands near 0.99.

    The Fisher-z jackknife of such a pair's data estimate exploded (atanh is steep there) and
    gave [-1, 1]; the interval must stay informative and hold the pair's observed value.
    """
    from hemkit.datasets import t2080_much
    from hemkit.merge import merge

    readings = t2080_much()
    iv = merge(readings, seed=0, level=0.9).pair_intervals
    obs, _, _ = pairwise_jackknife(readings)
    ev = readings.events
    steep = 0
    for row in iv.itertuples():
        r = obs[ev.index(row.event_a), ev.index(row.event_b)]
        assert row.lower <= row.estimate <= row.upper
        if abs(r) > 0.99:
            steep += 1
            assert row.lower <= r <= row.upper
            assert row.upper - row.lower < 0.3, row
    assert steep >= 10
    assert (iv["upper"] - iv["lower"]).max() < 0.5


def test_se_factor_scales_the_half_widths_on_the_fisher_scale():
    from hemkit.datasets import split_truth
    from hemkit.merge.intervals import compute_intervals

    r = split_truth(zen5_br_64kb(), 4, seed=0)
    res = merge(r, "copula", seed=0)
    one = compute_intervals(res, r, IntervalOptions(0.9, se_factor=1.0))
    two = compute_intervals(res, r, IntervalOptions(0.9, se_factor=2.0))
    z = np.arctanh(one["estimate"])
    # every pair of br_64kb is read together and none is a near-copy: exactly twice the z half-widths
    np.testing.assert_allclose(np.arctanh(two["upper"]) - z, 2 * (np.arctanh(one["upper"]) - z), rtol=1e-9)
    np.testing.assert_allclose(z - np.arctanh(two["lower"]), 2 * (z - np.arctanh(one["lower"])), rtol=1e-9)
    with pytest.raises(InputError, match="se_factor"):
        compute_intervals(res, r, IntervalOptions(0.9, se_factor=0.0))


def test_jackknife_clips_the_available_case_estimate_as_the_estimate_does():
    """A pair whose one group has wide spreads and whose other readings are narrow has an available-case
    estimate past 1; clipped (as ``pearson_estimates`` clips it) its leave-one-out values stay near 1,
    unclipped they were atanh(1 - 1e-12) = 14 for some runs and the pair's interval was [-1, 1]."""
    from hemkit.merge.intervals import mix_jackknife
    from hemkit.merge.joint import pearson_estimates

    rng = np.random.default_rng(0)
    n = 30
    a = rng.normal(100, 10, n)
    wide = np.column_stack([a, a + rng.normal(0, 3, n)])
    narrow_ac = np.column_stack([rng.normal(100, 6, n), rng.normal(100, 1, n)])
    narrow_bc = np.column_stack([rng.normal(100, 6, n), rng.normal(100, 1, n)])
    r = Readings.from_arrays(
        {
            1: (np.arange(n), ["a", "b"], wide),
            2: (np.arange(n, 2 * n), ["a", "c"], narrow_ac),
            3: (np.arange(2 * n, 3 * n), ["b", "c"], narrow_bc),
        }
    )
    _, available = pearson_estimates(r)
    assert available[0, 1] == 1.0  # clipped: past 1 before clipping
    se = mix_jackknife(r)
    assert 0.01 < se[0, 1] < 0.5  # unclipped: 11.7


def _spiked_truth(n_runs: int = 300, seed: int = 0) -> pd.DataFrame:
    """Six counts, normal about 100, except two runs in which ``a`` and ``b`` are both 60 higher.

    Those two runs make the true correlation of ``a`` and ``b`` about 0.9; without them it is 0.
    """
    rng = np.random.default_rng(seed)
    x = rng.normal(100, 1, size=(n_runs, 6))
    x[[7, 150], :2] += 60
    return pd.DataFrame(x, columns=list("abcdef"))


def test_tail_weights_are_the_pooled_kurtosis_of_each_event():
    from scipy.stats import kurtosis

    from hemkit.datasets import split_truth
    from hemkit.merge.intervals import tail_weights

    r = split_truth(_spiked_truth(), 3, seed=0)
    kappa = {}
    for e in r.events:  # deviations from each group's mean, pooled over the groups that read e
        dev = np.concatenate([g[e].to_numpy() - g[e].mean() for g in r.groups.values() if e in g.columns])
        kappa[e] = kurtosis(dev, fisher=False, bias=True)
    t = tail_weights(r)
    for i, a in enumerate(r.events):
        for j, b in enumerate(r.events):
            assert t[i, j] == pytest.approx(max(np.sqrt(kappa[a] * kappa[b]) / 3 - 1, 0), rel=1e-9)
    assert kappa["a"] > 50 and kappa["c"] < 4


def test_heavy_tail_term_widens_a_pair_whose_runs_missed_the_extremes():
    """gpg --symmetric's page faults and frees as a known truth: two extreme runs make the true r of a and b
    0.96.  A pair read in runs without them sees r near 0 with a tight jackknife; the term, from the events'
    other readings, widens it: z half-width ``factor q sqrt(se^2 + kurtosis K / (m - 3))``, exactly."""
    from hemkit.datasets import split_truth
    from hemkit.merge.intervals import compute_intervals, mix_jackknife, tail_weights

    truth = _spiked_truth()
    widened = 0
    for seed in range(8):
        r = split_truth(truth, 3, seed=seed)
        res = merge(r, "joint", seed=0)
        old = compute_intervals(res, r, IntervalOptions(0.9, kurtosis=0.0)).set_index(["event_a", "event_b"])
        new = compute_intervals(res, r).set_index(["event_a", "event_b"])
        # the term only widens: every interval holds the one without it
        assert (new["lower"] <= old["lower"] + 1e-12).all() and (new["upper"] >= old["upper"] - 1e-12).all()
        key = ("a", "b") if ("a", "b") in new.index else ("b", "a")
        row = new.loc[key]
        if abs(row["estimate"]) > 0.5:  # a pair whose runs held an extreme run: near-copy scale, not checked
            continue
        i, j = r.events.index("a"), r.events.index("b")
        se = mix_jackknife(r)[i, j]
        m = new.loc[key, "runs_together"]
        opts = IntervalOptions()
        half = opts.se_factor * float(ndtri(0.95)) * np.sqrt(se**2 + opts.kurtosis * tail_weights(r)[i, j] / (m - 3))
        z = np.arctanh(row["estimate"])
        assert np.arctanh(row["upper"]) - z == pytest.approx(half, rel=1e-9)
        assert z - np.arctanh(row["lower"]) == pytest.approx(half, rel=1e-9)
        widened += (row["upper"] - row["lower"]) > 1.5 * (old.loc[key, "upper"] - old.loc[key, "lower"])
    assert widened >= 2


def test_heavy_tail_term_leaves_normal_readings_nearly_alone():
    from hemkit.datasets import split_truth
    from hemkit.merge.intervals import compute_intervals, tail_weights

    truth = make_truth(n_events=6, n_runs=300, seed=3, marginals="normal")
    r = split_truth(truth, 3, seed=0)
    assert tail_weights(r).max() < 0.5  # kurtosis near 3 for every event
    res = merge(r, "joint", seed=0)
    old = compute_intervals(res, r, IntervalOptions(0.9, kurtosis=0.0))
    new = compute_intervals(res, r)
    z = np.arctanh(new["estimate"])
    ratio = (np.arctanh(new["upper"]) - z) / (np.arctanh(old["upper"]) - z)
    steep = old["estimate"].abs() > 0.95  # near-copies: their interval is made on the r scale
    assert ((ratio[~steep] >= 1 - 1e-12) & (ratio[~steep] < 1.1)).all()
    with pytest.raises(InputError, match="kurtosis"):
        compute_intervals(res, r, IntervalOptions(0.9, kurtosis=-1.0))
