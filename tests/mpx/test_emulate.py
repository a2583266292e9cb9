"""Emulation: the kernel's rotation, perf's scaling with the time the program ran, unique views."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io.traces import read_trace
from hemkit.mpx.emulate import MpxData, Rotation, concat, emulate, emulate_many, schedule
from hemkit.mpx.estimators import FixedInterpolation, LinearInterpolation
from hemkit.mpx.features import sibling_index
from hemkit.mpx.synthetic import synthetic_trace

DATA = Path(__file__).parent / "data"


@given(E=st.integers(2, 8), C=st.integers(1, 8), period=st.integers(1, 4), offset=st.integers(0, 7))
@settings(max_examples=60, deadline=None)
def test_schedule_gives_each_event_c_of_e_ticks(E, C, period, offset):
    on = schedule(E * period * 3, E, C, period=period, offset=offset)
    assert (on.sum(axis=1) == min(C, E)).all()
    assert np.allclose(on.mean(axis=0), min(C, E) / E)


@given(seed=st.integers(0, 1000), C=st.integers(1, 4), offset=st.integers(0, 4))
@settings(max_examples=30, deadline=None)
def test_exposed_slices_times_scaling_is_perfs_estimate(seed, C, offset):
    m = emulate(synthetic_trace(runs=2, steps=40, events=5, seed=seed), C, rotation=Rotation(offset=offset))
    obs = m.observed
    raw_sum = np.where(obs, m.raw, 0).sum(axis=1)
    enabled = np.where(m.valid, m.enabled, 0).sum(axis=1)
    running = np.where(obs, m.running, 0).sum(axis=1)
    assert np.allclose(raw_sum * enabled / running, m.perf_totals())
    cum = FixedInterpolation(mode="cumulative").estimate_array(m)
    assert np.allclose(np.nansum(cum, axis=1), m.perf_totals())
    assert np.isnan(m.raw[m.valid & ~obs]).all()  # the truth off the counters never leaks


def test_enough_counters_means_exact():
    m = emulate(synthetic_trace(runs=2, steps=30, events=4, seed=1), 4)
    assert m.observed[m.valid].all()
    for est in (FixedInterpolation(), FixedInterpolation(mode="cumulative"), LinearInterpolation()):
        assert np.allclose(est.estimate_array(m)[m.valid], m.truth[m.valid])
    assert np.allclose(m.perf_totals(), np.nansum(m.truth, axis=1))


def test_enabled_is_the_time_the_program_ran():
    """perf scales by time enabled, which is time_running of the OCOE trace (fails before issue 13: 10 ms)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        tr = read_trace(DATA / "zen5_phases_r1.csv")
    m = emulate(tr, 2)
    first = tr[tr["step"] == 0].set_index("event")["time_running"]
    assert np.allclose(m.enabled[:, 0], first.loc[m.keys["event"]].to_numpy())
    assert m.enabled[0, 0] == 13827871  # the first interval ran 13.8 ms, not 10
    on = m.observed
    assert np.array_equal(m.running[on], m.enabled[on]) and (m.running[m.valid & ~on] == 0).all()


def test_idle_intervals_are_known_zeros_and_do_not_rotate():
    text = (DATA / "ocoe_sleep.json").read_text()
    from hemkit.io.traces import parse_trace

    tr = parse_trace(text, run="s")
    m = emulate(tr, 1)
    idle_steps = sorted(tr.loc[tr["time_running"] == 0, "step"].unique())
    assert idle_steps and m.idle[:, idle_steps].all()
    est = LinearInterpolation().estimate_array(m)
    assert (est[:, idle_steps] == 0).all()
    # the rotation advances only over intervals where the program ran
    ran = ~m.idle[0, : m.length[0]]
    owner = np.argmax(m.observed[:, : m.length[0]], axis=0)[ran]
    assert (np.diff(owner) % len(m.keys) == 1).all()


def test_emulate_many_gives_each_view_its_own_runs():
    """Views at several counters and offsets never share a run id (fails before issue 13)."""
    tr = pd.concat(
        [
            synthetic_trace(runs=1, steps=20, seed=1, workload="a"),
            synthetic_trace(runs=1, steps=12, seed=2, workload="b"),
        ]
    )
    m = emulate_many(tr, [2, 3], range(5))
    assert len(m.keys) == 2 * 5 * 10 and m.keys.groupby("run").size().eq(5).all()
    assert set(m.keys["trace_run"]) == set(tr["run"]) and set(m.keys["pmcs"]) == {2, 3}
    sib = sibling_index(m.keys)
    same_view = m.keys["run"].to_numpy()[sib.clip(0)] == m.keys["run"].to_numpy()[:, None]
    assert same_view[sib >= 0].all()  # the features' "other events" come from the same view
    with pytest.raises(InputError, match="nothing"):
        concat([])


def test_each_run_multiplexed_on_its_own_and_uneven_lengths():
    a = synthetic_trace(runs=1, steps=20, events=5, seed=1, workload="a")
    b = synthetic_trace(runs=1, steps=13, events=3, seed=2, workload="b")
    m = emulate(pd.concat([a, b]), 2)
    assert m.length.tolist() == [20] * 5 + [13] * 3
    share = m.observed.sum(axis=1) / m.length
    assert np.allclose(share[:5], 0.4, atol=0.05) and np.allclose(share[5:], 2 / 3, atol=0.1)


def test_rotation_period_and_papi_shift():
    tr = synthetic_trace(runs=1, steps=40, events=4, seed=7)
    m = emulate(tr, 2, rotation=Rotation(period=2))
    on = m.observed[0]
    assert np.allclose(m.observed.mean(axis=1), 0.5) and (on[0::2] == on[1::2]).all()
    papi = emulate(tr, 2, rotation=Rotation(shift=2))
    assert (papi.observed[0] == papi.observed[1]).all() and (papi.observed[0] != papi.observed[2]).all()


def test_tidy_round_trip_and_multiplexed_perf_lines():
    m = emulate(synthetic_trace(runs=2, steps=25, seed=3), 2)
    back = MpxData.from_tidy(m.to_tidy())
    assert np.array_equal(np.nan_to_num(back.raw, nan=-1), np.nan_to_num(m.raw, nan=-1))
    assert np.allclose(back.truth[m.valid], m.truth[m.valid])
    lines = pd.DataFrame(
        {
            "run": "x",
            "step": [0, 1, 2, 0, 1, 2],
            "event": ["e"] * 3 + ["f"] * 3,
            "value": [300.0, np.nan, 50.0, np.nan, 80.0, np.nan],
            "time_running": [2.5e6, 0, 5e6, 0, 1e7, 0],
            "percent": [25.0, 0.0, 50.0, 0.0, 100.0, 0.0],
        }
    )
    mx = MpxData.from_tidy(lines)
    pv = mx.perf_values()[0]
    assert pv[0] == pytest.approx(300.0) and np.isnan(pv[1]) and pv[2] == pytest.approx(50.0)
    assert mx.enabled[0, 1] == pytest.approx(1e7)  # <not counted> at 0 %: enabled as the other events
    assert FixedInterpolation().estimate_array(mx)[0].tolist() == pytest.approx([300.0, 300.0, 50.0])


def test_fixed_reproduces_perf_values_on_recorded_lines():
    tr = read_trace(DATA / "ocoe_interval.csv", ocoe=False, workload="w")
    m = MpxData.from_tidy(tr)
    est = FixedInterpolation().estimate_array(m)
    got = pd.DataFrame(
        {
            "event": m.keys["event"].repeat(m.raw.shape[1]).to_numpy(),
            "step": np.tile(np.arange(m.raw.shape[1]), len(m.keys)),
            "est": est.ravel(),
        }
    )
    merged = tr.merge(got, on=["event", "step"])
    assert np.array_equal(merged["est"].to_numpy(), merged["value"].to_numpy())  # to the count
    assert np.allclose(m.perf_totals(), tr.groupby("event", sort=False)["value"].sum().to_numpy())


def test_emulate_errors():
    with pytest.raises(InputError, match="missing column"):
        emulate(pd.DataFrame({"run": [1], "step": [0]}), 2)
    tr = synthetic_trace(runs=1, steps=5)
    tr.loc[3, "value"] = np.nan
    with pytest.raises(InputError, match="missing count"):
        emulate(tr, 2)
    with pytest.raises(InputError, match="pmcs"):
        emulate(synthetic_trace(runs=1, steps=5), 0)
    with pytest.raises(InputError, match="offset"):
        emulate(synthetic_trace(runs=1, steps=5), 2, rotation=Rotation(offset=-1))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"runs": 0}, r"^runs must be an integer of at least 1, got 0$"),
        ({"runs": -2}, r"^runs must be an integer of at least 1, got -2$"),
        ({"runs": 1.5}, r"^runs must be an integer of at least 1, got 1\.5$"),
        ({"runs": True}, r"^runs must be an integer of at least 1, got True$"),
        ({"steps": 1}, r"^steps must be an integer of at least 2, got 1$"),
        ({"steps": 1, "phases": 1}, r"^steps must be an integer of at least 2, got 1$"),
        ({"steps": 0}, r"^steps must be an integer of at least 2, got 0$"),
        ({"events": 0}, r"^events must be an integer of at least 1, got 0$"),
        ({"phases": 0}, r"^phases must be an integer of at least 1, got 0$"),
    ],
)
def test_synthetic_trace_refuses_counts_out_of_range(kwargs, match):
    with pytest.raises(InputError, match=match):
        synthetic_trace(**kwargs)


def test_synthetic_trace_smallest_counts():
    tr = synthetic_trace(runs=1, steps=2, events=1, phases=1)
    assert len(tr) == 2 and tr["event"].unique().tolist() == ["ev0"]
    assert len(synthetic_trace(runs=1, steps=2, events=1, phases=7)) == 2  # more phases than steps: some empty


def test_the_share_of_intervals_the_program_ran_never_reads_100_percent_beside_the_rest():
    """8 idle intervals of about 6000 read '(100% of the intervals; in the rest it did not run ...)'."""
    tr = pd.DataFrame({"run": "r", "step": np.repeat(np.arange(400), 2), "event": ["a", "b"] * 400, "value": 1.0})
    d = emulate(tr, pmcs=1)
    d.enabled[:, 7] = d.running[:, 7] = 0
    d.raw[:, 7] = np.nan
    line = d.counted_line()
    assert "(99.8% of the intervals; in the rest it did not run" in line, line


def test_a_shift_that_never_reaches_some_events_is_refused():
    """gcd(shift, E) > C: the list returns to the same counters and some events never get a slice (shift 5 on
    5 events wrote a file in which 3 events had none, so estimate could do nothing with it)."""
    tr = synthetic_trace(runs=1, steps=20, events=6)
    with pytest.raises(InputError, match="shift 3 on 6 events with 2 counters never puts 2 of them"):
        emulate(tr, 2, rotation=Rotation(shift=3))
    with pytest.raises(InputError, match="never puts"):
        schedule(20, 6, 2, shift=3)
    assert emulate(tr, 3, rotation=Rotation(shift=3)).observed.any(axis=1).all()  # PAPI's sets: shift = C
    assert emulate(tr, 2, rotation=Rotation(shift=2)).observed.any(axis=1).all()
