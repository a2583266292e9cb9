"""Hypothesis properties: emulation and every estimator keep shapes and totals; readers fail only with InputError."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io.traces import read_trace
from hemkit.mpx.emulate import MpxData, Rotation, emulate
from hemkit.mpx.registry import make_estimator

ESTIMATORS = ["fixed", "fixed-cumulative", "linear", "growth", "min", "phase", "zero", "local", "checked"]


@st.composite
def ocoe_traces(draw):
    runs = draw(st.integers(1, 3))
    parts = []
    for r in range(runs):
        n_ev = draw(st.integers(1, 6))
        steps = draw(st.integers(1, 30))
        # counts as perf prints them: whole numbers, or msec with two decimals
        counts = draw(
            st.lists(
                st.one_of(st.just(0.0), st.floats(0, 1e9).map(lambda x: round(x, 2)), st.integers(0, 50).map(float)),
                min_size=n_ev * steps,
                max_size=n_ev * steps,
            )
        )
        ran = draw(st.lists(st.sampled_from([0.0, 1e5, 5e6, 1e7, 1.4e7]), min_size=steps, max_size=steps))
        value = np.array(counts).reshape(steps, n_ev)
        value[np.array(ran) == 0] = 0.0  # the program did not run: nothing counted
        parts.append(
            pd.DataFrame(
                {
                    "workload": f"w{r % 2}",
                    "run": f"r{r}",
                    "step": np.repeat(np.arange(steps), n_ev),
                    "event": np.tile([f"e{k}" for k in range(n_ev)], steps),
                    "value": value.ravel(),
                    "time_running": np.repeat(ran, n_ev),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


@given(trace=ocoe_traces(), pmcs=st.integers(1, 6), offset=st.integers(0, 5), period=st.integers(1, 3))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_emulate_keeps_shapes_and_the_truth(trace, pmcs, offset, period):
    m = emulate(trace, pmcs, rotation=Rotation(period=period, offset=offset))
    n_series = trace.groupby(["run", "event"]).ngroups
    assert m.raw.shape == m.truth.shape == m.enabled.shape == (n_series, int(trace["step"].max()) + 1)
    lengths = trace.groupby(["run", "event"], sort=False)["step"].max() + 1
    assert sorted(m.length.tolist()) == sorted(lengths.tolist())
    assert np.isclose(np.nansum(m.truth), trace["value"].sum())  # the truth is the trace, all of it
    obs = m.observed
    for run in m.keys["run"].unique():
        assert (obs[(m.keys["run"] == run).to_numpy()].sum(axis=0) <= pmcs).all()  # never more than C counters
    assert np.array_equal(m.raw[obs], m.truth[obs]) and np.isnan(m.raw[m.valid & ~obs]).all()
    assert (m.truth[m.idle] == 0).all()
    totals = m.perf_totals()
    assert np.all(np.isnan(totals) | (totals >= 0))


@given(trace=ocoe_traces(), pmcs=st.integers(1, 6), name=st.sampled_from(ESTIMATORS))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_estimator_keeps_shapes_exact_slices_and_totals(trace, pmcs, name):
    m = emulate(trace, pmcs)
    seen = m.observed.any(axis=1) | (m.idle | ~m.valid).all(axis=1)
    assume(seen.all())  # an event never on a counter is refused, not estimated
    est = make_estimator(name).estimate_array(m.without_truth())
    assert est.shape == m.truth.shape
    assert np.isnan(est[~m.valid]).all() and np.isfinite(est[m.valid]).all()
    if name == "fixed-cumulative":
        perf = m.perf_totals()
        ok = np.isfinite(perf)
        assert np.allclose(np.nansum(est, axis=1)[ok], perf[ok], rtol=1e-9, atol=1e-6)
        return
    assert (est[m.valid] >= 0).all()
    assert np.array_equal(est[m.full], m.raw[m.full]) and (est[m.idle] == 0).all()
    n_ev = m.keys.groupby("run")["event"].transform("size").to_numpy()
    every = (pmcs >= n_ev)[:, None] & m.valid  # enough counters: every total is kept exactly
    assert np.allclose(est[every], m.truth[every])
    values, totals = make_estimator(name).estimate_with_totals(m.without_truth())
    assert np.array_equal(values, est, equal_nan=True) and totals.shape == (len(m.keys),)
    assert np.isfinite(totals).all() and (totals >= 0).all()
    known = np.where(m.valid & m.known, np.nan_to_num(m.raw), 0.0).sum(axis=1)
    assert (totals >= known * (1 - 1e-9) - 1e-9).all()  # a total never drops counts that were seen
    all_on = pmcs >= n_ev
    assert np.allclose(totals[all_on], np.nansum(m.truth, axis=1)[all_on])


@given(trace=ocoe_traces(), pmcs=st.integers(1, 5))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_phase_fully_balanced_keeps_perfs_totals(trace, pmcs):
    m = emulate(trace, pmcs)
    assume((m.observed.any(axis=1) | (m.idle | ~m.valid).all(axis=1)).all())
    est = make_estimator("phase", balance=1.0).estimate_array(m.without_truth())
    gap = m.valid & ~m.known
    known = np.where(m.valid & m.known, est, 0).sum(axis=1)
    gap_sum = np.where(gap, est, 0).sum(axis=1)
    perf = m.perf_totals()
    need = perf - known
    ok = np.isfinite(perf) & (gap_sum > 0) & (need > 0)
    assert np.allclose(np.nansum(est, axis=1)[ok], perf[ok], rtol=1e-6)


@given(data=st.binary(max_size=600), suffix=st.sampled_from([".csv", ".parquet", ".json", ".txt"]))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_reader_fails_only_with_input_error(tmp_path, data, suffix):
    p = tmp_path / f"x{suffix}"
    p.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        try:
            out = read_trace(p, workload="w")
        except InputError:
            return
    assert {"run", "step", "event", "value"} <= set(out.columns)


@given(
    text=st.lists(
        st.tuples(
            st.sampled_from(["0.01", "0.02", "0.03", "x", "-1", ""]),
            st.sampled_from(["5", "<not counted>", "<not supported>", "-3", "inf", "nan", "1e300", "140737488361450"]),
            st.sampled_from(["a", "b", ""]),
            st.sampled_from(["10000000", "0", "-5", ""]),
            st.sampled_from(["100.00", "50.00", "0.00", "200", ""]),
        ),
        max_size=12,
    ),
    ocoe=st.booleans(),
)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_perf_lines_fail_only_with_input_error(tmp_path, text, ocoe):
    p = tmp_path / "w_r1.csv"
    p.write_text("".join(f"{t},{v},,{e},{r},{pc},,\n" for t, v, e, r, pc in text))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        try:
            tr = read_trace(p, ocoe=ocoe)
        except InputError:
            return
        if not ocoe:
            try:
                MpxData.from_tidy(tr)
            except InputError:
                return
    assert np.isfinite(tr["step"]).all()


def test_reader_property_has_teeth():
    with pytest.raises(InputError):
        read_trace("/nonexistent/x.csv")
