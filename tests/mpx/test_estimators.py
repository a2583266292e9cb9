"""Interpolation estimators: known answers, the phase-aware default, results and the registry."""

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import InputError
from hemkit.mpx.checked import CheckedEstimation
from hemkit.mpx.emulate import emulate
from hemkit.mpx.estimators import (
    FixedInterpolation,
    GrowthInterpolation,
    LinearInterpolation,
    MinInterpolation,
    neighbours,
)
from hemkit.mpx.features import FEATURES, interpolation_features
from hemkit.mpx.phase import PhaseInterpolation, pair_jumps, relevance, time_exponents
from hemkit.mpx.registry import DEFAULT_ESTIMATOR, NAMES, load_estimator, make_estimator
from hemkit.mpx.results import MpxEstimate
from hemkit.mpx.scores import relative_accuracy
from hemkit.mpx.synthetic import synthetic_trace


def _trace(columns: dict[str, list[float]], running: list[float] | None = None) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    events = list(columns)
    out = pd.DataFrame(
        {
            "run": "r",
            "step": np.repeat(np.arange(n), len(events)),
            "event": events * n,
            "value": np.ravel(np.column_stack([columns[e] for e in events])).astype(float),
        }
    )
    if running is not None:
        out["time_running"] = np.repeat(running, len(events))
    return out


def test_interpolations_known_answers():
    m = emulate(_trace({"a": [10, 0, 30, 0, 10, 0, 40], "b": [1] * 7}), 1)  # 'a' on at steps 0, 2, 4, 6
    assert FixedInterpolation().estimate_array(m)[0].tolist() == [10, 10, 30, 30, 10, 10, 40]
    assert LinearInterpolation().estimate_array(m)[0].tolist() == [10, 20, 30, 20, 10, 25, 40]
    g = GrowthInterpolation().estimate_array(m)[0]
    assert g[1] == pytest.approx(np.sqrt(11 * 31) - 1) and g[[0, 2, 4, 6]].tolist() == [10, 30, 10, 40]
    assert MinInterpolation().estimate_array(m)[0].tolist() == [10, 10, 30, 10, 10, 10, 40]
    assert LinearInterpolation().estimate_array(m)[1].tolist() == [1] * 7


def test_fixed_cumulative_is_difference_of_perf_reads():
    m = emulate(_trace({"a": [10, 0, 30, 0], "b": [1, 1, 1, 1]}), 1)
    est = FixedInterpolation(mode="cumulative").estimate_array(m)[0]
    assert np.cumsum(est).tolist() == [10, 20, 60, 80]  # reads 10*1/1, 10*2/1, 40*3/2, 40*4/2
    with pytest.raises(InputError, match="unknown mode"):
        FixedInterpolation(mode="bogus").estimate_array(m)


def test_phase_puts_the_change_where_the_seen_events_changed():
    """Two phases; 'a' is off its counter across the change, 'b' and 'c' on it show when it happened."""
    a = [100.0] * 6 + [1.0] * 6
    b = [50.0] * 6 + [5000.0] * 6
    c = [7.0] * 6 + [900.0] * 6
    d = [3e4] * 6 + [80.0] * 6
    m = emulate(_trace({"a": a, "b": b, "c": c, "d": d}), 1)  # one counter: 'a' is on at 0, 4, 8 only
    assert np.flatnonzero(m.observed[0]).tolist() == [0, 4, 8]  # the change at 6 falls in a gap of 'a'
    est = PhaseInterpolation(sharpness=2).estimate_array(m.without_truth())[0]
    fixed = FixedInterpolation().estimate_array(m)[0]
    assert relative_accuracy(est, m.truth[0]) > 0.95 > relative_accuracy(fixed, m.truth[0])
    jumps = pair_jumps(np.log1p(np.where(m.observed, m.raw, np.nan)))
    assert int(np.argmax(jumps[1:].sum(axis=0))) + 1 == 6  # the others' jumps meet at boundary 6 (5 | 6)
    assert relevance(jumps, m.observed).shape == (4, 4)


def test_phase_uses_the_time_the_program_ran():
    """A task-clock-like event is proportional to running time; idle intervals are zeros."""
    ran = np.array([10, 10, 5, 10, 2, 10, 10, 8, 10, 10, 0, 10, 10, 4, 10, 10] * 2, float) * 1e6
    clock = ran / 1e6
    steady = np.full(len(ran), 3.0) * (ran > 0)
    m = emulate(_trace({"task-clock": clock, "ctx": steady, "x": clock * 7}, list(ran)), 1)
    est = PhaseInterpolation().estimate_array(m.without_truth())
    assert np.allclose(est[0], clock)  # exact: the rate is constant per time run
    assert (est[:, ran == 0] == 0).all()
    g = time_exponents(m.observed, np.nan_to_num(m.perf_values()), np.nan_to_num(m.enabled).max(axis=0))
    assert g[0] == pytest.approx(1.0) and g[1] == pytest.approx(0.0)


def test_phase_balance_moves_totals_toward_perfs():
    m = emulate(synthetic_trace(runs=3, steps=80, seed=4), 2)
    blind = m.without_truth()
    perf = m.perf_totals()
    dev = {
        b: np.abs(np.nansum(PhaseInterpolation(balance=b).estimate_array(blind), axis=1) - perf).mean()
        for b in (0.0, 0.5, 1.0)
    }
    assert dev[1.0] < 1e-6 * perf.mean() + 1e-6 and dev[1.0] <= dev[0.5] <= dev[0.0]
    with pytest.raises(InputError, match="balance"):
        PhaseInterpolation(balance=2).estimate_array(blind)


def test_every_estimator_shapes_and_results():
    m = emulate(synthetic_trace(runs=3, steps=40, seed=5), 2)
    for name in ("fixed", "fixed-cumulative", "linear", "growth", "min", "zero", "local", "phase", "checked"):
        est = make_estimator(name)
        arr = est.fit(m).estimate_array(m.without_truth())
        assert arr.shape == m.truth.shape
        assert np.isnan(arr[~m.valid]).all() and np.isfinite(arr[m.valid]).all()
        if name != "fixed-cumulative":
            assert np.array_equal(arr[m.full], m.raw[m.full])  # exact where seen
        res = est.estimate(m.without_truth())
        assert isinstance(res, MpxEstimate) and res.estimator == est.name
        tidy = res.to_frame()
        assert len(tidy) == m.valid.sum() and {"run", "event", "step", "estimate"} <= set(tidy.columns)
        summ = res.summary()
        assert list(summ.columns) == ["intervals", "on a counter", "total", "perf total", "vs perf"]
        assert "MpxEstimate" in repr(res)
    f = interpolation_features(m)
    assert f.shape == (*m.truth.shape, len(FEATURES)) and np.isfinite(f).all()
    p, n = neighbours(m.observed)
    assert (p <= np.arange(m.truth.shape[1])).all()


def test_registry_and_errors():
    assert DEFAULT_ESTIMATOR == "checked" and "phase" in NAMES and "zero" in NAMES
    assert isinstance(load_estimator("phase"), PhaseInterpolation)
    assert isinstance(load_estimator("checked"), CheckedEstimation)
    with pytest.raises(InputError, match="unknown estimator 'magic'") as no_hint:
        make_estimator("magic")
    assert "did you mean" not in str(no_hint.value)  # nothing close: no guess
    with pytest.raises(InputError, match="did you mean 'checked'"):
        make_estimator("chekced")
    with pytest.raises(InputError, match="must be trained first"):
        load_estimator("mlp")
    with pytest.raises(InputError, match="no such model file"):
        load_estimator("nothing-here.pt")
    with pytest.raises(InputError, match="estimator 'linear'"):
        make_estimator("linear", bogus=1)
    with pytest.raises(InputError, match=r"^estimator 'fixed-cumulative' takes no parameters, got bogus"):
        make_estimator("fixed-cumulative", bogus=1)
    with pytest.raises(InputError, match=r"^estimator 'fixed-cumulative' takes no parameters, got mode"):
        make_estimator("fixed-cumulative", mode="window")  # not quietly cumulative
    with pytest.raises(InputError, match="MpxData"):
        LinearInterpolation().fit("not data")
    m = emulate(_trace({"a": [1, 2, 3], "b": [1, 2, 3]}), 1)
    m.running[0, :] = 0  # event never on a counter
    with pytest.raises(InputError, match="never on a counter"):
        LinearInterpolation().estimate_array(m)
