"""The calibrated ("systematic") interval of profile shares, checked against the exact SD of simulated profiles.

Running states with known runs are sampled periodically at every start phase
(:func:`hemkit.sampling.model.start_phase_profiles` gives the exact SD of each share over the
phases); the standard error estimated from each single profile must match that SD, and its
intervals must cover the running states' share as often as they say.
"""

import numpy as np
import pandas as pd
import pytest

from hemkit.sampling import Task, generate_states, model, profile_shares
from hemkit.sampling.profile import systematic_factor, systematic_variance

Z95 = 1.959964


def phase_estimates(states, interval: int, phases=None):
    """Per start phase: profiled share, estimated SE (systematic and binomial) of every owner.

    The floor of the real-machine calibration (timer and accounting noise) is left out: the
    simulated sampling has none, and the model itself is what is checked here.
    """
    st = np.asarray(states.states)
    k = len(states.names)
    rows = []
    for phi in range(interval) if phases is None else phases:
        seq = st[phi::interval]
        var, iid = systematic_variance(seq, np.ones(seq.size), n_keys=k, floor=0.0)
        share = np.bincount(seq, minlength=k) / seq.size
        rows.append(
            pd.DataFrame({"owner": list(states.names), "share": share, "se": np.sqrt(var), "iid": np.sqrt(iid)})
        )
    return pd.concat(rows, ignore_index=True)


def check_against_exact(tasks, n_units: int, interval: int, seeds, **idle):
    """Per owner, over layouts (seeds) and every start phase: exact SD, median estimated SE, coverage.

    The exact variance over the phases of one layout scatters by about +-60 % around its
    expectation (the phases of all its boundaries against one grid), so layouts are pooled:
    the RMS of the exact SDs is compared with the RMS of the estimated SEs.
    """
    frames = []
    for seed in seeds:
        rs = generate_states(tasks, n_units, seed=seed, **idle)
        est = phase_estimates(rs, interval)
        est["truth"] = est["owner"].map(rs.shares())
        est["exact_var"] = est["owner"].map(model.start_phase_profiles(rs, interval).var(ddof=0))
        frames.append(est)
    est = pd.concat(frames, ignore_index=True)
    est["covered"] = (est["share"] - est["truth"]).abs() <= Z95 * est["se"]
    by = est.assign(se2=est["se"] ** 2, iid2=est["iid"] ** 2).groupby("owner")
    return pd.DataFrame(
        {
            "exact_sd": np.sqrt(by["exact_var"].mean()),
            "se": np.sqrt(by["se2"].mean()),
            "iid": np.sqrt(by["iid2"].mean()),
            "coverage": by["covered"].mean(),
        }
    )


def test_long_runs_se_matches_exact_sd():
    """Runs of 2.5-6 intervals: the binomial SD is 2-5x the exact one; the estimate is within 25 %."""
    tasks = [Task("a", 0.3, 400, "uniform"), Task("b", 0.25, 250, "exponential"), Task("c", 0.2, 600, "uniform")]
    t = check_against_exact(tasks, 200_000, 100, range(8), idle_granularity=300, idle_distribution="exponential")
    assert (t["se"] / t["exact_sd"]).between(0.85, 1.25).all(), t
    assert (t["iid"] / t["exact_sd"] > 2).all(), t  # what the binomial says: far too wide
    assert t["coverage"].between(0.9, 0.99).all(), t


def test_short_packed_runs_se_is_about_binomial():
    """Runs much shorter than the interval: samples are almost independent; the estimate is the binomial's."""
    tasks = [Task("a", 0.3, 4, "exponential"), Task("b", 0.3, 7, "exponential")]
    t = check_against_exact(tasks, 200_000, 100, range(4), idle_granularity=5, idle_distribution="exponential")
    assert (t["se"] / t["exact_sd"]).between(0.85, 1.25).all(), t
    assert (t["se"] / t["iid"]).between(0.9, 1.01).all(), t
    assert t["coverage"].between(0.93, 0.99).all(), t


def test_threads_add_their_variances():
    """Two threads sampled on their own clocks: the variance is the sum of each thread's."""
    rng = np.random.default_rng(5)
    a = np.repeat(rng.integers(0, 3, 200), rng.integers(2, 12, 200))
    b = rng.integers(0, 3, 1500)
    both, _ = systematic_variance(np.concatenate([a, b]), np.ones(a.size + b.size), np.repeat([7, 9], [a.size, b.size]))
    n = a.size + b.size
    s = np.bincount(np.concatenate([a, b]), minlength=3) / n
    expect = np.zeros(3)
    for seq in (a, b):  # residuals of each thread about the pooled share, one thread at a time
        for k in range(3):
            r = (seq == k) - s[k]
            changes = np.count_nonzero(np.diff(seq == k))  # samples where k starts or stops
            r1 = np.mean(np.diff(r) ** 2) / 2 / np.mean(r**2) * (1 + 1 / np.sqrt(changes))
            expect[k] += np.sum(r**2) * systematic_factor(r1)
    assert np.allclose(both, expect / n**2)
    pooled, _ = systematic_variance(np.concatenate([a, b]), np.ones(n))  # one thread: a different answer
    assert not np.allclose(pooled, both)


def test_unequal_periods_match_kish_when_independent():
    rng = np.random.default_rng(2)
    c = rng.integers(0, 2, 20_000)
    w = rng.uniform(0.5, 2.0, c.size)
    var, iid = systematic_variance(c, w)
    p = np.sum(w * c) / w.sum()
    kish = p * (1 - p) * np.sum(w**2) / w.sum() ** 2
    assert iid[1] == pytest.approx(kish, rel=0.02)
    assert 0.85 < var[1] / iid[1] <= 1.0


def test_factor_limits():
    """1/12 sample^2 per boundary for long runs (r1 / 6), the binomial for independent samples, never above it."""
    f = systematic_factor(np.array([0.0, 0.05, 1.0, 1.7]), power=8, floor=0.0)
    assert f[0] == 0 and f[1] == pytest.approx(0.05 / 6, rel=1e-3) and f[2] == 1 and f[3] == 1
    assert systematic_factor(0.0, floor=0.01) == pytest.approx(0.01)
    assert np.all(np.diff(systematic_factor(np.linspace(0, 1, 50))) > 0)
    assert systematic_factor(1.0) == 1 and systematic_factor(0.0) < 0.05


def test_profile_default_is_systematic_with_se_column():
    rng = np.random.default_rng(0)
    sym = np.repeat(rng.choice(["f", "g", "h"], 300, p=[0.2, 0.3, 0.5]), 20)  # runs of 20 samples
    df = pd.DataFrame({"sym": sym, "period": 1000, "tid": 1, "time": np.arange(sym.size) * 1e-3, "event": "e"})
    sys_ = profile_shares(df)
    wil = profile_shares(df, method="wilson")
    assert sys_.method == "systematic" and list(sys_.table.columns[:5]) == ["samples", "period", "share", "se", "low"]
    t, w = sys_.table, wil.table
    assert (t["se"] < w["se"] / 5).all()  # runs of 20 samples: far below binomial
    assert (t["low"] < t["share"]).all() and (t["share"] < t["high"]).all()
    assert ((t["high"] - t["low"]) / 2 / (Z95 * t["se"])).between(0.97, 1.03).all()
    assert w["se"].to_numpy() == pytest.approx(np.sqrt(w["share"] * (1 - w["share"]) / len(df)).to_numpy())
    shuffled = df.assign(time=rng.permutation(df["time"].to_numpy()))  # same samples, no runs left
    s2 = profile_shares(shuffled).table
    assert (s2["se"] / w["se"]).between(0.9, 1.01).all()


def test_floor_adds_a_share_of_the_binomial_variance():
    rng = np.random.default_rng(4)
    seq = np.repeat(rng.integers(0, 3, 300), 30)  # runs of 30 samples
    bare, iid = systematic_variance(seq, np.ones(seq.size), floor=0.0)
    floored, _ = systematic_variance(seq, np.ones(seq.size), floor=0.01)
    assert np.allclose(floored - bare, 0.01 * iid, rtol=1e-6)
    assert np.all(bare < iid / 50)
