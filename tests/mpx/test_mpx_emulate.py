"""Emulation invariants: perf's scaling of the exposed slices, C >= E exactness, schedule shares."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.errors import HemkitError
from hemkit.mpx.emulate import MpxData, emulate, schedule
from hemkit.mpx.estimators import FixedInterpolation, LinearInterpolation
from hemkit.mpx.synthetic import synthetic_trace


@given(E=st.integers(2, 8), C=st.integers(1, 8), period=st.integers(1, 4), offset=st.integers(0, 7))
@settings(max_examples=60, deadline=None)
def test_schedule_gives_each_event_c_of_e_ticks(E, C, period, offset):
    on = schedule(E * period * 3, E, C, period=period, offset=offset)
    assert (on.sum(axis=1) == min(C, E)).all()  # every tick fills min(C, E) counters
    share = on.mean(axis=0)
    assert np.allclose(share, min(C, E) / E)


@given(seed=st.integers(0, 1000), C=st.integers(1, 4), offset=st.integers(0, 4))
@settings(max_examples=30, deadline=None)
def test_exposed_slices_times_scaling_is_perfs_estimate(seed, C, offset):
    m = emulate(synthetic_trace(runs=2, steps=40, events=5, seed=seed), C, offset=offset)
    obs = m.observed
    raw_sum = np.where(obs, m.raw, 0).sum(axis=1)
    enabled = np.where(m.valid, m.enabled, 0).sum(axis=1)
    running = np.where(obs, m.running, 0).sum(axis=1)
    assert np.allclose(raw_sum * enabled / running, m.perf_totals())
    # the cumulative fixed estimator (successive PAPI/perf reads) ends exactly at perf's total
    cum = FixedInterpolation(mode="cumulative").estimate_array(m)
    assert np.allclose(np.nansum(cum, axis=1), m.perf_totals())
    # the estimators see nothing beyond the exposed slices: truth off the counters never leaks
    assert np.isnan(m.raw[m.valid & ~obs]).all()


@given(seed=st.integers(0, 1000), extra=st.integers(0, 3))
@settings(max_examples=20, deadline=None)
def test_enough_counters_means_exact(seed, extra):
    tr = synthetic_trace(runs=2, steps=30, events=4, seed=seed)
    m = emulate(tr, 4 + extra)
    assert m.observed[m.valid].all()
    for est in (FixedInterpolation(), FixedInterpolation(mode="cumulative"), LinearInterpolation()):
        got = est.estimate_array(m)
        assert np.allclose(got[m.valid], m.truth[m.valid])
    assert np.allclose(m.perf_totals(), np.nansum(m.truth, axis=1))


def test_each_set_multiplexed_on_its_own_and_uneven_lengths():
    a = synthetic_trace(runs=1, steps=20, events=5, seed=1, workload="a")
    b = synthetic_trace(runs=1, steps=13, events=3, seed=2, workload="b")
    m = emulate(pd.concat([a, b]), 2)
    assert m.length.tolist() == [20] * 5 + [13] * 3
    share = m.observed.sum(axis=1) / m.length
    assert np.allclose(share[:5], 0.4, atol=0.05) and np.allclose(share[5:], 2 / 3, atol=0.1)


def test_tidy_round_trip_and_fake_multiplexed_perf_lines():
    m = emulate(synthetic_trace(runs=2, steps=25, seed=3), 2)
    back = MpxData.from_tidy(m.to_tidy())
    assert np.array_equal(np.nan_to_num(back.raw, nan=-1), np.nan_to_num(m.raw, nan=-1))
    assert np.allclose(back.truth[m.valid], m.truth[m.valid])
    # perf -I lines of a multiplexed run: value already scaled, percent < 100
    lines = pd.DataFrame(
        {
            "run": "x",
            "step": [0, 1, 2],
            "event": "e",
            "value": [300.0, np.nan, 50.0],
            "time_running": [2.5e6, 0, 5e6],
            "percent": [25.0, 0.0, 50.0],
        }
    )
    mx = MpxData.from_tidy(lines)
    pv = mx.perf_values()[0]
    assert pv[0] == pytest.approx(300.0) and np.isnan(pv[1]) and pv[2] == pytest.approx(50.0)
    est = FixedInterpolation().estimate_array(mx)[0]
    assert est.tolist() == pytest.approx([300.0, 300.0, 50.0])  # perf's numbers kept to the count


def test_emulate_errors():
    with pytest.raises(HemkitError, match="missing column"):
        emulate(pd.DataFrame({"run": [1], "step": [0]}), 2)
    tr = synthetic_trace(runs=1, steps=5)
    tr.loc[3, "value"] = np.nan
    with pytest.raises(HemkitError, match="missing count"):
        emulate(tr, 2)
    with pytest.raises(HemkitError, match="counters"):
        emulate(synthetic_trace(runs=1, steps=5), 0)


def test_emulate_many_stacks_offsets_and_counters():
    from hemkit.mpx.emulate import concat, emulate_many

    tr = pd.concat(
        [
            synthetic_trace(runs=1, steps=20, seed=1, workload="a"),
            synthetic_trace(runs=1, steps=12, seed=2, workload="b"),
        ]
    )
    m = emulate_many(tr, [2, 3], range(5))
    assert len(m.keys) == 2 * 5 * 10 and m.raw.shape[1] == 20
    assert np.allclose(m.observed.sum(axis=1)[:10] / m.length[:10], 0.4, atol=0.11)
    with pytest.raises(HemkitError, match="nothing"):
        concat([])


def test_fixed_reproduces_perf_values_on_recorded_lines():
    from pathlib import Path

    from hemkit.mpx.traces import read_trace

    tr = read_trace(Path(__file__).parent / "data" / "ocoe_interval.csv", run="r", ocoe=False)
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
    assert len(merged) == len(tr)
    assert np.array_equal(merged["est"].to_numpy(), merged["value"].to_numpy())  # to the count
    assert np.allclose(m.perf_totals(), tr.groupby("event", sort=False)["value"].sum().to_numpy())


def test_rotation_period_and_papi_shift():
    tr = synthetic_trace(runs=1, steps=40, events=4, seed=7)
    m = emulate(tr, 2, period=2)
    on = m.observed[0]
    assert np.allclose(m.observed.mean(axis=1), 0.5)
    assert (on[0::2] == on[1::2]).all()  # a slice lasts two intervals
    papi = emulate(tr, 2, shift=2)  # PAPI-style: whole sets take turns
    assert (papi.observed[0] == papi.observed[1]).all() and (papi.observed[0] != papi.observed[2]).all()
