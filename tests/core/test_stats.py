"""hemkit.core.stats against SciPy and statsmodels, and on data with a known truth."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.core import stats


def _sorted(*xs):
    return [np.sort(np.asarray(x, dtype=np.float64)) for x in xs]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 12), min_size=5, max_size=40),
    st.lists(st.integers(0, 12), min_size=5, max_size=40),
)
def test_brunner_munzel_equals_scipy_on_tied_counts_of_unequal_sizes(a, b):
    from scipy.stats import brunnermunzel

    a, b = np.array(a, float), np.array(b, float)
    p, pl = stats.brunner_munzel(_sorted(a), _sorted(b))
    with np.errstate(all="ignore"):
        ref = brunnermunzel(a, b)
    if np.isfinite(ref.pvalue) and pl.se[0] > 0:
        assert p[0] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)
    # superiority: P(A < B) + P(A = B) / 2 by brute force
    sup = (a[:, None] < b[None, :]).mean() + 0.5 * (a[:, None] == b[None, :]).mean()
    assert pl.superiority[0] == pytest.approx(sup)
    assert 0 <= p[0] <= 1


def test_continuous_samples_take_the_merge_path_and_equal_scipy():
    from scipy.stats import brunnermunzel

    rng = np.random.default_rng(3)
    a, b = rng.lognormal(0, 1, 300), rng.lognormal(0.2, 2, 500)
    p, _ = stats.brunner_munzel(_sorted(a), _sorted(b))
    assert p[0] == pytest.approx(brunnermunzel(a, b).pvalue, rel=1e-9)


def test_separated_constants_get_the_exact_permutation_p_and_equal_constants_p_one():
    p, _ = stats.brunner_munzel(_sorted([3] * 5, [7] * 5, [1, 2, 3, 4, 5]), _sorted([3] * 5, [9] * 6, [6, 7, 8, 9, 10]))
    assert p[0] == 1.0
    assert p[1] == pytest.approx(2 / 462)  # C(11, 5) = 462
    assert p[2] == pytest.approx(2 / 252)


def test_fdr_bh_equals_statsmodels():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for m in (1, 2, 7, 64, 500):
        p = np.r_[rng.uniform(size=m // 2), rng.uniform(0, 0.01, size=m - m // 2)]
        p[:3] = p[0]  # ties
        ours = stats.fdr_bh(p)
        _, ref, _, _ = multipletests(p, alpha=0.05, method="fdr_bh")
        np.testing.assert_allclose(ours, ref, rtol=1e-12)


def test_exact_bootstrap_medians_match_resampling():
    rng = np.random.default_rng(1)
    x = np.sort(rng.poisson(30, 201).astype(float))
    exact = stats.bootstrap_medians(x, 20000, np.random.default_rng(2))
    resampled = np.median(rng.choice(x, (4000, len(x))), axis=1)
    for q in (0.025, 0.25, 0.5, 0.75, 0.975):
        assert abs(np.quantile(exact, q) - np.quantile(resampled, q)) <= 1.0


@settings(max_examples=8, deadline=None)
@given(st.floats(0.05, 1.0), st.integers(30, 200), st.floats(0.5, 2.0))
def test_ratio_interval_covers_the_true_ratio_of_medians(sigma, n, ratio):
    """Lognormal(mu, sigma): the median is exp(mu); 200 replicates, coverage of 95 % intervals >= 0.9."""
    rng = np.random.default_rng(int(sigma * 1000) + n)
    reps = 200
    a = np.sort(rng.lognormal(3.0, sigma, (reps, n)), axis=1)
    b = np.sort(rng.lognormal(3.0 + np.log(ratio), sigma, (reps, n)), axis=1)
    r = stats.median_ratio(list(a), list(b), level=0.95, seed=0)
    covered = np.mean((r.lower <= ratio) & (ratio <= r.upper))
    assert 0.9 <= covered <= 0.995


def test_aa_on_synthetic_counts_flags_at_most_the_nominal_rate():
    """Known null: 400 comparisons of 12 events (Poisson, lognormal, tied small counts), each side 30 runs."""
    rng = np.random.default_rng(7)
    any_flag, per_event = 0, 0
    reps, k = 400, 12
    for _ in range(reps):

        def side():
            cols = [rng.poisson(lam, 30) for lam in (2, 20, 500, 1e5)]
            cols += [rng.lognormal(10, s, 30) for s in (0.01, 0.1, 1.0, 2.0)]
            cols += [np.round(rng.gamma(2, 50, 30)) for _ in range(4)]
            return [np.sort(np.asarray(c, float)) for c in cols]

        a, b = side(), side()
        p, _ = stats.brunner_munzel(a, b)
        flags = stats.fdr_bh(p) <= 0.05
        any_flag += flags.any()
        per_event += flags.sum()
    assert any_flag / reps <= 0.075  # 0.05 plus binomial slack (sd 0.011)
    assert per_event / (reps * k) <= 0.01


def test_a_known_shift_is_detected_and_its_ratio_covered():
    rng = np.random.default_rng(11)
    a = np.sort(rng.lognormal(12, 0.02, 60))
    b = np.sort(1.03 * rng.lognormal(12, 0.02, 60))
    p, _ = stats.brunner_munzel([a], [b])
    r = stats.median_ratio([a], [b], seed=0)
    assert p[0] < 1e-6
    assert r.lower[0] < 1.03 < r.upper[0]


def test_zero_medians_and_all_zero_sides_never_give_nan():
    a = _sorted([0, 0, 0, 0, 1, 2], [0] * 6, [0] * 6, [5, 5, 5, 5, 5])
    b = _sorted([0, 0, 0, 0, 3, 4], [0, 0, 0, 1, 2, 3], [0] * 6, [5, 5, 5, 5, 5])
    r = stats.median_ratio(a, b, seed=0)
    assert not np.isnan(r.ratio).any() and not np.isnan(r.lower).any() and not np.isnan(r.upper).any()
    assert list(r.basis) == ["mean", "zero", "constant", "constant"]
    assert r.ratio[0] == pytest.approx(7 / 3)
    assert r.ratio[1] == np.inf
    assert r.ratio[2] == 1.0 and r.ratio[3] == 1.0


def test_detectable_change_is_what_the_test_detects_with_power_0_9():
    """Simulate at the predicted detectable shift: about 90 % flagged; at half of it, far fewer."""
    rng = np.random.default_rng(5)
    n, alpha = 50, 0.05
    base = np.sort(rng.lognormal(8, 0.05, n))
    _, pl = stats.brunner_munzel([base], [np.sort(rng.lognormal(8, 0.05, n))])
    d = stats.detectable_change([base], pl, alpha=alpha, power=0.9, seed=0).detectable[0]
    assert 0.01 < d < 0.1

    def rate(delta):
        hits = 0
        for _ in range(300):
            a = np.sort(rng.lognormal(8, 0.05, n))
            b = np.sort((1 + delta) * rng.lognormal(8, 0.05, n))
            hits += stats.brunner_munzel([a], [b])[0][0] <= alpha
        return hits / 300

    assert 0.8 <= rate(d) <= 0.98
    assert rate(d / 2) <= 0.6


def test_runs_needed_for_a_change_smaller_than_one_count_is_infinite():
    rng = np.random.default_rng(0)
    a = np.sort(rng.poisson(20, 100).astype(float))
    _, pl = stats.brunner_munzel([a], [np.sort(rng.poisson(20, 100).astype(float))])
    pw = stats.detectable_change([a], pl, alpha=0.05, change=0.01)
    assert pw.runs_needed[0] == np.inf
    assert np.isfinite(pw.detectable[0])


def test_t_tail_equals_scipy():
    from scipy.special import stdtr

    for df in (1.0, 2.5, 7.0, 30.0, 99.3, 1000.0, 5e4, 2e5, 1e7):
        for t in (0.0, 0.3, 1.0, 2.0, 4.0, 8.0, 20.0):
            ref = stdtr(df, -t)
            assert stats.t_sf(t, df) == pytest.approx(ref, rel=1e-7, abs=1e-300)


def test_compare_imports_no_scipy():
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, pandas as pd\n"
        "from hemkit import Readings\n"
        "from hemkit.compare import compare\n"
        "r = Readings({1: pd.DataFrame({'x': np.arange(30.0), 'y': np.arange(30.0) % 7})})\n"
        "compare(r, r, seed=0)\n"
        "print('scipy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 9), min_size=3, max_size=40),
    st.lists(st.integers(0, 9), min_size=3, max_size=40),
)
def test_the_statistic_from_class_counts_is_brunner_munzels(a, b):
    """What the permutations recompute (from counts per distinct value) is the statistic of the placements."""
    sa, sb = _sorted(a, b)
    _, pl = stats.brunner_munzel([sa], [sb])
    t = stats._class_t(*(c[None, :] for c in stats._class_counts(sa, sb)))[0]
    if pl.se[0] > 0:
        assert t == pytest.approx((pl.superiority[0] - 0.5) / pl.se[0], rel=1e-9, abs=1e-12)
    else:
        assert t == (0.0 if pl.superiority[0] == 0.5 else np.copysign(np.inf, pl.superiority[0] - 0.5))


def test_permutation_p_holds_its_level_on_random_halves_of_tied_counts():
    """A/A: random halves of one pooled sample are exchangeable, so p <= 0.05 in at most ~5 % of them.

    50 runs a side of 7 distinct counts (as page-faults of a small kernel): where the t
    approximation need not hold, the permutation p-value is exact.  The permutation path
    must be taken, agree with the asymptotic p where that is good, and not be degenerate.
    """
    rng = np.random.default_rng(11)
    pooled = rng.choice(np.arange(20055.0, 20062.0), size=100, p=[0.03, 0.09, 0.2, 0.34, 0.29, 0.03, 0.02])
    assert stats._small_or_tied(np.sort(pooled[:50]), np.sort(pooled[50:]))
    hits, ps = 0, []
    for s in range(300):
        perm = rng.permutation(100)
        a, b = np.sort(pooled[perm[:50]]), np.sort(pooled[perm[50:]])
        p, _ = stats.brunner_munzel([a], [b], method="auto", resolution=0.05, seed=s)
        hits += p[0] <= 0.05
        ps.append(p[0])
    assert hits / 300 <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / 300)
    assert 0.35 <= np.mean(ps) <= 0.65  # p-values of a true null: about uniform, not all 1 or all 0


def test_permutation_p_resolves_small_p_values_and_keeps_decisive_ones():
    rng = np.random.default_rng(1)
    a = np.sort(rng.poisson(30, 60).astype(float))
    b = np.sort(rng.poisson(34, 60).astype(float))
    p_t, _ = stats.brunner_munzel([a], [b])
    p_perm, _ = stats.brunner_munzel([a], [b], method="auto", resolution=0.001, seed=0)
    assert 1e-3 < p_t[0] < 0.01  # a change near the resolution: drawn until resolved (2000 draws: +-0.001)
    assert p_perm[0] == pytest.approx(p_t[0], rel=0.35)
    assert p_perm[0] == stats.brunner_munzel([a], [b], method="auto", resolution=0.001, seed=0)[0][0]  # seeded
    far = np.sort(rng.poisson(60, 60).astype(float))
    p_far, _ = stats.brunner_munzel([a], [far], method="auto", resolution=0.001, seed=0)
    assert p_far[0] == stats.brunner_munzel([a], [far])[0][0] < 1e-6  # decisive: the t tail, not 1 / draws


def test_many_varied_runs_keep_the_t_approximation():
    rng = np.random.default_rng(4)
    a, b = _sorted(rng.lognormal(8, 0.1, 500), rng.lognormal(8, 0.1, 500))
    assert not stats._small_or_tied(a, b)
    tied = _sorted(rng.poisson(20, 2000), rng.poisson(20, 2000))  # many runs, however tied: asymptotics hold
    assert not stats._small_or_tied(*tied)
    assert stats._small_or_tied(*_sorted(rng.poisson(20, 500), rng.poisson(20, 500)))
    assert stats.brunner_munzel([a], [b], method="auto", seed=0)[0][0] == stats.brunner_munzel([a], [b])[0][0]
    with pytest.raises(ValueError, match="method"):
        stats.brunner_munzel([a], [b], method="exact")


def test_auto_p_value_of_few_runs_is_never_below_what_a_permutation_can_give():
    """6 runs a side, all of A below all of B but one tie: the t approximation says ~1e-7, but no
    split of 12 runs is that rare; the p-value is the permutation's (enumerated here over all
    924 splits with SciPy's statistic), not the t approximation's."""
    from itertools import combinations

    from scipy.stats import brunnermunzel

    a = np.array([1.0, 2, 3, 4, 5, 6])
    b = np.array([6.0, 7, 8, 9, 10, 11])
    pooled = np.r_[a, b]
    observed = abs(brunnermunzel(a, b).statistic)
    extreme = 0
    splits = list(combinations(range(12), 6))
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for idx in splits:
            mask = np.zeros(12, dtype=bool)
            mask[list(idx)] = True
            t = brunnermunzel(pooled[mask], pooled[~mask]).statistic
            extreme += bool(not np.isfinite(t) or abs(t) >= observed * (1 - 1e-9))
    exact = extreme / len(splits)
    p, _ = stats.brunner_munzel([a], [b], method="auto", resolution=0.05 / 100, seed=0)
    assert brunnermunzel(a, b).pvalue < exact / 100  # the t approximation is far off here
    assert exact / 2 <= p[0] <= 2 * exact
