"""Estimator shapes, known interpolation answers, a tiny training run of MLP and Bi-GRU."""

import numpy as np
import pandas as pd
import pytest

from hemkit.errors import HemkitError
from hemkit.mpx.emulate import emulate
from hemkit.mpx.estimators import (
    FixedInterpolation,
    GrowthInterpolation,
    LinearInterpolation,
    interpolation_features,
    make_estimator,
    neighbours,
)
from hemkit.mpx.scores import relative_accuracy
from hemkit.mpx.synthetic import synthetic_trace


def _two_event_trace(a, b):
    n = len(a)
    return pd.DataFrame(
        {
            "run": "r",
            "step": np.repeat(np.arange(n), 2),
            "event": ["a", "b"] * n,
            "value": np.ravel(np.column_stack([a, b])).astype(float),
        }
    )


def test_interpolations_known_answers():
    # one counter, two events: 'a' is on at steps 0, 2, 4, 6
    m = emulate(_two_event_trace([10, 0, 30, 0, 10, 0, 40], [1] * 7), 1)
    assert FixedInterpolation().estimate_array(m)[0].tolist() == [10, 10, 30, 30, 10, 10, 40]
    assert LinearInterpolation().estimate_array(m)[0].tolist() == [10, 20, 30, 20, 10, 25, 40]
    g = GrowthInterpolation().estimate_array(m)[0]
    assert g[1] == pytest.approx(np.sqrt(11 * 31) - 1)  # geometric mean of 1 + rates
    assert g[[0, 2, 4, 6]].tolist() == [10, 30, 10, 40]  # observed slices kept exactly
    # 'b' is on at odd steps: leading gap takes the first slice, trailing gap the last
    assert LinearInterpolation().estimate_array(m)[1].tolist() == [1] * 7


def test_fixed_cumulative_is_difference_of_perf_reads():
    m = emulate(_two_event_trace([10, 0, 30, 0], [1, 1, 1, 1]), 1)
    est = FixedInterpolation(mode="cumulative").estimate_array(m)[0]
    # reads: 10*1/1, 10*2/1, 40*3/2, 40*4/2
    assert np.cumsum(est).tolist() == [10, 20, 60, 80]
    with pytest.raises(HemkitError, match="unknown mode"):
        FixedInterpolation(mode="bogus").estimate_array(m)


def test_shapes_tidy_output_and_features():
    m = emulate(synthetic_trace(runs=3, steps=40, seed=5), 2)
    for name in ("fixed", "fixed-cumulative", "linear", "growth"):
        est = make_estimator(name).fit(m)
        arr = est.estimate_array(m.without_truth())
        assert arr.shape == m.truth.shape
        assert np.isnan(arr[~m.valid]).all() and np.isfinite(arr[m.valid]).all()
        tidy = est.estimate(m)
        assert len(tidy) == m.valid.sum() and {"run", "event", "step", "estimate"} <= set(tidy.columns)
    f = interpolation_features(m)
    assert f.shape == (*m.truth.shape, 17) and np.isfinite(f).all()
    p, n = neighbours(m.observed)
    assert (p <= np.arange(m.truth.shape[1])).all()


def test_interpolation_beats_nothing_on_smooth_series():
    steps = np.arange(60)
    smooth = 1000 + 500 * np.sin(steps / 8)
    m = emulate(_two_event_trace(smooth, smooth[::-1]), 1)
    ra = {n: relative_accuracy(make_estimator(n).estimate_array(m)[0], m.truth[0]) for n in ("fixed", "linear")}
    assert ra["linear"] > ra["fixed"] > 0.9


def test_errors():
    with pytest.raises(HemkitError, match="unknown estimator"):
        make_estimator("magic")
    with pytest.raises(HemkitError, match="MpxData"):
        LinearInterpolation().fit("not data")
    tr = _two_event_trace([1, 2, 3], [1, 2, 3])
    m = emulate(tr, 1)
    m.running[0, :] = 0  # event never on a counter
    with pytest.raises(HemkitError, match="never on a counter"):
        LinearInterpolation().estimate_array(m)


def test_tiny_training_runs(tmp_path):
    pytest.importorskip("torch")
    from hemkit.mpx.learned import BiGRUEstimator, MLPEstimator, _TorchEstimator

    train = emulate(synthetic_trace(runs=4, steps=50, seed=1), 2)
    test = emulate(synthetic_trace(runs=2, steps=50, seed=2), 2)
    for est in (MLPEstimator(hidden=(16, 8), epochs=3, seed=0), BiGRUEstimator(hidden=8, layers=1, epochs=3)):
        with pytest.raises(HemkitError, match="fit the estimator"):
            est.estimate_array(test)
        est.fit(train)
        assert len(est.loss_) == 3 and np.isfinite(est.loss_).all()
        out = est.estimate_array(test.without_truth())
        assert out.shape == test.truth.shape and np.isfinite(out[test.valid]).all()
        full = test.observed & (test.running >= test.enabled)
        assert np.array_equal(out[full], test.raw[full])  # exact where observed
        path = tmp_path / f"{est.name}.pt"
        est.save(path)
        again = _TorchEstimator.load(path)
        assert np.allclose(again.estimate_array(test), out)
    # same seed, same model
    a = MLPEstimator(hidden=(8,), epochs=2, seed=3).fit(train).estimate_array(test)
    b = MLPEstimator(hidden=(8,), epochs=2, seed=3).fit(train).estimate_array(test)
    assert np.allclose(a, b)
    with pytest.raises(HemkitError, match="true counts"):
        MLPEstimator(epochs=1).fit(train.without_truth())
    bad = tmp_path / "bad.pt"
    bad.write_text("nope")
    with pytest.raises(HemkitError, match="not a saved hemkit mpx model"):
        _TorchEstimator.load(bad)
