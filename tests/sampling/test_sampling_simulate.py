"""Simulator and model against the paper's findings (Wen et al. 2021, Tables 2-6) with fixed seeds."""

import numpy as np
import pytest

from hemkit.core.errors import InputError
from hemkit.sampling import Sampler, Task, Workload, generate_states, simulate_profiles, simulate_workload
from hemkit.sampling.paper import reproduce


def table(name, **kw):
    return reproduce(name, **kw).tables[name]


@pytest.fixture(scope="module")
def single_tables():
    res = reproduce(["2", "3"], seed=0)
    return res.tables["2"], res.tables["3"]


def test_single_tasks_unbiased_within_0002(single_tables):
    for t in single_tables:
        assert len(t) in (6, 12)
        assert (t["bias"].abs() <= 0.002).all(), t[["utilisation", "granularity", "bias"]]
        # the realised running share is near the wanted utilisation, as in the paper
        assert ((t["running_mean"] - t["utilisation"]).abs() < 0.02).all()


def test_single_task_sds_paper_order_and_integer_R_near_zero(single_tables):
    t2, t3 = single_tables
    t = t3.set_index(["utilisation", "granularity"])
    integer = t.loc[(slice(None), [100, 200]), "profile_sd"]
    assert (integer < 1e-4).all()  # paper: 0.03e-3 .. 0.13e-3
    frac = t.drop(index=[100, 200], level="granularity")
    # paper Table 3: 1.33e-3 .. 4.79e-3; same order here
    assert (frac["profile_sd"] > 5e-4).all() and (frac["profile_sd"] < 1.5e-2).all()
    assert (t2.loc[t2["granularity"].isin([100, 200]), "profile_sd"] < 1e-4).all()


def test_simulated_sd_matches_exact_start_phase_sd(single_tables):
    """1000 random starts reproduce the exact SD over start phases (Monte Carlo error ~2 %)."""
    t4 = table("4", seed=1)
    for t in (*single_tables, t4):
        big = t[t["exact_sd"] > 1e-4]
        assert len(big) >= 4
        ratio = big["profile_sd"] / big["exact_sd"]
        assert ((ratio > 0.9) & (ratio < 1.1)).all(), ratio
        small = t[t["exact_sd"] <= 1e-4]
        assert (small["profile_sd"] < 2e-4).all()


def test_mixed_tasks_unbiased_and_sd_order():
    t = table("4", seed=1).set_index("task")
    assert (t["bias"].abs() <= 0.002).all()
    assert np.allclose(t["running_mean"], [0.2, 0.3, 0.2, 0.2, 0.1], atol=0.02)
    ratio = t["profile_sd"] / t["paper_sd"]
    assert ((ratio > 0.2) & (ratio < 5)).all()


@pytest.mark.parametrize("table_name", ["5", "6"])
def test_noise_stays_unbiased(table_name):
    t = reproduce(table_name, reps=1000, seed=2).tables[table_name]
    noisy = t[t["noise_sd"] == 2.0] if table_name == "5" else t
    # SD of the mean over 1000 profiles is profile_sd / sqrt(1000); allow 4 of them
    assert (noisy["bias"].abs() <= 4 * noisy["profile_sd"] / np.sqrt(1000) + 1e-4).all()
    if table_name == "5":
        assert (t[t["noise_sd"] == 2.0]["bias"].abs() <= 0.002).all()
    ratio = t["profile_sd"] / t["paper_sd"]
    assert ((ratio > 0.5) & (ratio < 2)).all(), t


def test_noise_grows_sd():
    rs = generate_states([Task("a", 0.4, 30)], 200_000, seed=3)
    sds = [simulate_profiles(rs, Sampler(100, noise=s), 300, seed=4).profiles["a"].std() for s in (0, 1, 2)]
    assert sds[0] < sds[1] < sds[2]


def test_model_matches_simulation_when_runs_are_independent():
    """Eq. 6 summed over runs (Eq. 7, 9) predicts the SD when gaps spread runs' phases."""
    cases = [
        [Task("t", 0.3, 30)],
        [Task("t", 0.3, 150)],
        [Task("t", 0.3, 280)],
        [Task("t", 0.3, 120, "exponential")],
        [Task("t", 0.2, 70), Task("u", 0.2, 170, "uniform")],
    ]
    for tasks in cases:
        ratios = []
        for s in range(40):
            rs = generate_states(tasks, 100_000, idle_granularity=400, idle_distribution="uniform", seed=s)
            sm = simulate_profiles(rs, 100, 150, seed=1000 + s).summary()
            ratios.append((sm["profile_sd"] ** 2 / sm["model_sd"] ** 2).to_numpy())
        mean = np.mean(ratios, axis=0)
        assert ((mean > 0.7) & (mean < 1.3)).all(), (tasks, mean)


def test_event_based_sampling_estimates_event_shares():
    tasks = [Task("fast", 0.3, 40, rate=3.0), Task("slow", 0.3, 70, rate=1.0)]
    rs = generate_states(tasks, 300_000, seed=5)
    ev = rs.event_shares()
    assert ev["idle"] == 0 and abs(ev["fast"] - 0.75) < 0.03
    res = simulate_profiles(rs, Sampler(100, mode="event"), 200, seed=6)
    assert res.profiles["idle"].max() == 0
    assert (res.summary()["bias"].abs() < 0.002).all()


def test_jitter_keeps_unbiased_and_breaks_integer_R_exactness():
    rs = generate_states([Task("a", 0.5, 100)], 200_000, seed=7)
    exact = simulate_profiles(rs, 100, 200, seed=8).summary().loc["a"]
    jit = simulate_profiles(rs, Sampler(100, jitter=5), 200, seed=8).summary().loc["a"]
    assert exact["profile_sd"] < 1e-6 < jit["profile_sd"]
    assert abs(jit["bias"]) < 0.002


def test_seeded_and_reproducible():
    rs = generate_states([Task("a", 0.5, 30)], 50_000, seed=9)
    a = simulate_profiles(rs, Sampler(100, noise=1, jitter=2), 20, seed=10).profiles
    b = simulate_profiles(rs, Sampler(100, noise=1, jitter=2), 20, seed=10).profiles
    assert a.equals(b)
    w = Workload((Task("a", 0.5, 30),), 50_000)
    c = simulate_workload(w, Sampler(100, noise=1), 20, seed=np.random.default_rng(3)).profiles
    d = simulate_workload(w, Sampler(100, noise=1), 20, seed=np.random.default_rng(3)).profiles
    assert c.equals(d)


def test_chunking_does_not_change_results():
    rs = generate_states([Task("a", 0.5, 30)], 50_000, seed=11)
    a = simulate_profiles(rs, 100, 50, seed=12).profiles
    b = simulate_profiles(rs, 100, 50, seed=12, max_chunk=2000).profiles
    assert a.equals(b)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"tasks": [Task("a", 1.5, 10)]}, "share"),
        ({"tasks": [Task("a", 0.5, 0.5)]}, "granularity"),
        ({"tasks": [Task("a", 0.6, 10), Task("b", 0.6, 10)]}, "add up"),
        ({"tasks": [Task("idle", 0.5, 10)]}, "unique"),
        ({"tasks": [Task("a", 0.5, 10, "gamma")]}, "distribution"),
        ({"tasks": []}, "no tasks"),
    ],
)
def test_bad_workloads_raise(kwargs, match):
    with pytest.raises(InputError, match=match):
        generate_states(kwargs["tasks"], 1000)
    with pytest.raises(InputError, match=match):
        Workload(tuple(kwargs["tasks"]), 1000)


@pytest.mark.parametrize(
    "spec, match",
    [
        ("a:0.3", "use NAME:SHARE:GRANULARITY"),
        ("a:x:30", "must be numbers"),
        ("a:0.3:30:constant:1:9", "use NAME"),
        (":0.3:30", "use NAME"),
        ("a:nan:30", "finite"),
    ],
)
def test_bad_task_specs_name_the_spec(spec, match):
    with pytest.raises(InputError, match=match) as err:
        Task.from_spec(spec)
    assert repr(spec) in str(err.value)


def test_task_spec_round_trip():
    assert Task.from_spec("b:0.2:30:exponential:2.5") == Task("b", 0.2, 30.0, "exponential", 2.5)


def test_bad_sampling_raises():
    rs = generate_states([Task("a", 0.5, 10)], 1000, seed=0)
    with pytest.raises(InputError, match="mode"):
        Sampler(100, mode="cycles")
    with pytest.raises(InputError, match="jitter"):
        Sampler(100, jitter=-1)
    with pytest.raises(InputError, match="longer than"):
        simulate_profiles(rs, 5000)
    with pytest.raises(InputError, match="positive"):
        simulate_profiles(rs, 0)
    with pytest.raises(InputError, match="reps"):
        simulate_profiles(rs, 100, 0)
    with pytest.raises(InputError, match="reps"):  # one profile: its SD was NaN in the summary
        simulate_profiles(rs, 100, 1)
    with pytest.raises(InputError, match="seed"):
        simulate_profiles(rs, 100, 10, seed=-1)
