"""Analytic expectation and variance (Eqs. 3-9), intervals and samples needed."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hemkit.core.errors import InputError
from hemkit.sampling import model


def test_capture_variance_known_values():
    assert np.allclose(model.capture_variance([0.3, 0.5, 1.0, 1.5, 2.0, 2.8]), [0.21, 0.25, 0, 0.25, 0, 0.16])


@given(st.floats(0.001, 50))
def test_piecewise_binomial_expectation_is_r(r):
    """Eq. 5: P(int(r)+1) (int(r)+1) + P(int(r)) int(r) = r."""
    f = r % 1
    e = f * (np.floor(r) + 1) + (1 - f) * np.floor(r)
    assert e == pytest.approx(float(model.capture_mean(r)))
    assert 0 <= model.capture_variance(r) <= 0.25


@given(st.floats(0.01, 1), st.floats(0.01, 20))
def test_share_variance_never_exceeds_poisson_bound(p, r):
    assert model.share_variance(p, r, 1000) <= p / 1000 + 1e-15


def test_share_variance_short_runs_exceed_binomial():
    # R < p: p(1-R)/n > p(1-p)/n -- the binomial interval is not conservative there
    v = model.share_variance(0.5, 0.3, 10_000)
    assert v == pytest.approx(0.5 * 0.7 / 10_000)
    assert v > 0.25 / 10_000


def test_runs_variance_sums_runs():
    v = model.runs_variance([0, 1, 1], [30, 150, 200], 100, 2, 10)
    assert np.allclose(v, [0.21 / 100, 0.25 / 100])


def test_wilson_and_bound_cover_share():
    lo, hi = model.wilson_interval(np.array([0, 30, 100]), 100)
    assert lo[0] == pytest.approx(0, abs=1e-12) and hi[2] == pytest.approx(1) and lo[1] < 0.3 < hi[1]
    blo, bhi = model.bound_interval(np.array([0, 30]), 100)
    assert blo[0] == 0 and bhi[0] == pytest.approx(0.03689, abs=1e-4)  # -ln(0.025)/100
    assert blo[1] < lo[1] and bhi[1] > hi[1]  # the bound is the wider one


def test_intervals_cover_bursty_simulated_tasks():
    """R < p forces packed runs; there both the Wilson and the bound interval cover >= 95 %."""
    from hemkit.sampling import Task, generate_states, simulate_profiles

    cw, cb = [], []
    for s in range(8):
        rs = generate_states([Task("a", 0.6, 20)], 20_000, idle_granularity=13, idle_distribution="exponential", seed=s)
        res = simulate_profiles(rs, 100, 300, seed=np.random.SeedSequence(50, spawn_key=(s,)))
        n = res.n_samples[0]
        count = res.profiles["a"].to_numpy() * n
        truth = res.truth["a"]
        for f, out in ((model.wilson_interval, cw), (model.bound_interval, cb)):
            lo, hi = f(count, n)
            out.append(np.mean((lo <= truth) & (truth <= hi)))
    assert np.mean(cw) >= 0.95 and np.mean(cb) >= np.mean(cw)


def test_samples_needed_inverts_variance():
    n = model.samples_needed(0.3, 0.01, R=1.5)
    half = 1.959964 * np.sqrt(model.share_variance(0.3, 1.5, n))
    assert half <= 0.01 < 1.959964 * np.sqrt(model.share_variance(0.3, 1.5, n - 5))
    assert model.samples_needed(0.3, 0.01, R=2.0) == 0  # integer R: no samples needed beyond the run


def test_model_errors():
    with pytest.raises(InputError, match="half_width must be positive"):
        model.samples_needed(0.3, 0)
    with pytest.raises(InputError, match="level"):
        model.wilson_interval(1, 10, level=1.5)
    with pytest.raises(InputError, match="positive"):
        model.share_variance(0.3, 0, 10)


@pytest.mark.parametrize("R, shown", [(0, "0"), (-1.5, "-1.5"), ([1.5, np.nan], "nan"), ([2.0, 0.0], "0")])
def test_samples_needed_refuses_run_ratios_that_are_not_positive(R, shown):
    """As share_model does: R of 0 or less (or NaN) is no run ratio (it gave a negative or NaN count)."""
    with pytest.raises(InputError, match=rf"^run ratios R must be positive, got {shown}$"):
        model.samples_needed([0.3, 0.4], 0.01, R=R)


def test_start_phase_profiles_single_run_is_piecewise_binomial():
    """One run of r intervals: int(r)+1 captures with probability MOD(r,1) (Eqs. 5-6)."""
    from hemkit.sampling.states import RunningStates

    for length, interval in ((30, 100), (150, 100), (280, 100), (200, 100)):
        states = np.zeros(10 * interval, dtype=np.int8)
        states[interval : interval + length] = 1
        rs = RunningStates(states, ("idle", "a"), np.array([0.0, 1.0]), np.array([1.0, length]))
        prof = model.start_phase_profiles(rs, interval)
        captures = prof["a"].to_numpy() * 10  # 10 samples per start
        r = length / interval
        assert captures.mean() == pytest.approx(r)
        assert captures.var() == pytest.approx(float(model.capture_variance(r)))
    with pytest.raises(InputError, match="integer interval"):
        model.start_phase_profiles(rs, 2.5)


def test_share_model_given_and_unknown_R():
    m = model.share_model([0.3, 0.5], [1.5, 2.0], 1000, half_width=0.01)
    assert not m.bound
    assert m.table.loc[1, "sd"] == pytest.approx(np.sqrt(0.3 * 0.25 / 1.5 / 1000))
    assert m.table.loc[2, "sd"] == 0 and m.table.loc[2, "samples_needed"] == 0  # integer R
    u = model.share_model([0.3], n_samples=1000)
    assert u.bound and np.isnan(u.table.loc[1, "R"])
    assert u.table.loc[1, "sd"] == pytest.approx(np.sqrt(0.3 / 1000))  # the bound p/n
    # the bound is never narrower than the model for any R
    for r in (0.1, 0.5, 1.5, 2.8, 10.3):
        assert model.share_model([0.3], [r], 1000).table.loc[1, "sd"] <= u.table.loc[1, "sd"] + 1e-15


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"shares": [1.5]}, "shares must lie in"),
        ({"shares": [0.3], "ratios": [1.0, 2.0]}, "one run ratio per share"),
        ({"shares": [0.3], "ratios": [0.0]}, "positive"),
        ({"shares": [0.3], "n_samples": 0}, "n_samples"),
        ({"shares": [0.3], "level": 1.5}, "level"),
        ({"shares": [0.3], "half_width": 2}, "half_width"),
        ({"shares": []}, "no shares"),
        ({"shares": [0.6, 0.6]}, r"add up to 1.2 > 1"),  # shares of one profile: modelled as if possible
    ],
)
def test_share_model_errors(kwargs, match):
    with pytest.raises(InputError, match=match):
        model.share_model(**kwargs)


def test_samples_needed_refuses_nan_shares_and_run_ratios_that_do_not_match_the_shares():
    """A NaN share gave a count of -2^63, and shares and run ratios of other lengths numpy's broadcast error."""
    with pytest.raises(InputError, match=r"^shares must lie in \[0, 1\]$"):
        model.samples_needed([0.3, float("nan")], 0.01)
    with pytest.raises(InputError, match=r"^one run ratio R per share: 2 shares, 3 run ratios$"):
        model.samples_needed([0.3, 0.4], 0.01, R=[0.5, 1.5, 2.5])
    assert model.samples_needed([0.3, 0.4], 0.01, R=0.5).shape == (2,)  # one R for all broadcasts
