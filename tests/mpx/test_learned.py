"""Learned estimators done as the paper does: split by workload, early stopping, normalisation, model files."""

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.progress import RecordingProgress
from hemkit.mpx.emulate import emulate, emulate_many
from hemkit.mpx.fitting import FitOptions, fit_estimator
from hemkit.mpx.synthetic import synthetic_trace

torch = pytest.importorskip("torch")

from hemkit.mpx.learned import BiGRUEstimator, MLPEstimator, TrainOptions, load_model  # noqa: E402


def _workloads(n, runs=3, steps=50):
    return pd.concat([synthetic_trace(runs=runs, steps=steps, seed=k, workload=f"w{k}") for k in range(n)])


@pytest.fixture(scope="module")
def data():
    return emulate_many(synthetic_trace(runs=4, steps=50, seed=1), [2, 3], range(5)), emulate(
        synthetic_trace(runs=2, steps=50, seed=2), 2
    )


def test_early_stopping_keeps_the_best_validation_epoch(data):
    train, val = data
    est = MLPEstimator(hidden=(16,), train=TrainOptions(epochs=12, patience=2, per_epoch=2000)).fit(train, val)
    h = est.history_
    best = int(h["validation_loss"].idxmin())
    assert est.best_epoch_ == h["epoch"].iloc[best]
    # the weights kept are those of the best epoch
    assert est._loss(torch, _data(est, val)) == pytest.approx(h["validation_loss"].min(), rel=1e-5)
    if len(h) < 12:  # stopped early: no better epoch in the last `patience`
        assert len(h) - 1 - best == 2


def _data(est, mpx):
    from hemkit.mpx.learned import _Data

    f, b, g = est._inputs(mpx)
    t = np.where(mpx.valid, np.log10(1 + np.nan_to_num(mpx.truth)) - b, 0.0).astype(np.float32)
    w = np.broadcast_to(mpx.length.mean() / np.maximum(mpx.length, 1)[:, None], b.shape).astype(np.float32)
    return _Data(f, t, b, g, np.ascontiguousarray(w))


def test_normalisation_comes_from_training_data_only(data):
    train, val = data
    other = emulate(synthetic_trace(runs=2, steps=50, seed=9), 3)
    a = MLPEstimator(hidden=(8,), train=TrainOptions(epochs=1, per_epoch=500)).fit(train, val)
    b = MLPEstimator(hidden=(8,), train=TrainOptions(epochs=1, per_epoch=500)).fit(train, other)
    assert np.array_equal(a.norm_mean_, b.norm_mean_) and np.array_equal(a.norm_std_, b.norm_std_)
    raw = MLPEstimator(hidden=(8,))
    raw.events_ = a.events_
    feats, _, _ = raw._inputs(train)
    assert np.allclose(a.norm_mean_, feats[train.valid].mean(axis=0), atol=1e-5)


def test_model_file_carries_events_window_and_normalisation(data, tmp_path):
    train, val = data
    est = MLPEstimator(hidden=(8,), window=2, train=TrainOptions(epochs=2, per_epoch=1000)).fit(train, val)
    path = est.save(tmp_path / "m.pt")
    blob = torch.load(path, weights_only=True)  # no code runs on load
    assert blob["events"] == sorted(set(train.keys["event"])) and blob["window"] == 2
    assert np.allclose(blob["norm_mean"].numpy(), est.norm_mean_) and len(blob["history"]["epoch"]) == 2
    again = load_model(path)
    assert np.allclose(again.estimate_array(val), est.estimate_array(val), equal_nan=True)
    renamed = emulate(synthetic_trace(runs=1, steps=30, seed=3).replace({"event": {"ev0": "cycles"}}), 2)
    with pytest.raises(InputError, match=r"trained on events .*knows nothing of 'cycles'"):
        again.estimate_array(renamed)
    (tmp_path / "bad.pt").write_text("nope")
    with pytest.raises(InputError, match="not a saved hemkit mpx model"):
        load_model(tmp_path / "bad.pt")


def test_bigru_never_steps_on_an_empty_batch(data):
    """per_epoch crops in batches: ceil(per_epoch / batch) steps (fails before issue 13: one per S / batch)."""
    train, _ = data
    assert len(train.keys) > 40
    est = BiGRUEstimator(hidden=4, layers=1, crop=20, train=TrainOptions(epochs=3, per_epoch=8, batch_size=4)).fit(
        train
    )
    assert est.steps_ == 3 * 2


@pytest.mark.slow
def test_same_seed_same_model_in_any_process_and_no_global_seed(data):
    train, val = data
    state = torch.random.get_rng_state()
    a = MLPEstimator(hidden=(8,), train=TrainOptions(epochs=2, seed=5, per_epoch=800)).fit(train).estimate_array(val)
    assert torch.equal(torch.random.get_rng_state(), state)  # torch's global generator untouched
    b = MLPEstimator(hidden=(8,), train=TrainOptions(epochs=2, seed=5, per_epoch=800)).fit(train).estimate_array(val)
    assert np.array_equal(a, b, equal_nan=True)
    code = textwrap.dedent(
        """
        import hashlib, numpy as np, torch
        torch.manual_seed(123)  # a caller's global seed must not matter
        from hemkit.mpx.emulate import emulate, emulate_many
        from hemkit.mpx.synthetic import synthetic_trace
        from hemkit.mpx.learned import BiGRUEstimator, TrainOptions
        tr = emulate_many(synthetic_trace(runs=4, steps=50, seed=1), [2, 3], range(5))
        va = emulate(synthetic_trace(runs=2, steps=50, seed=2), 2)
        est = BiGRUEstimator(hidden=4, layers=1, train=TrainOptions(epochs=2, seed=5, per_epoch=16)).fit(tr, va)
        print(hashlib.sha256(np.nan_to_num(est.estimate_array(va), nan=-1).round(6).tobytes()).hexdigest())
        """
    )
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True) for _ in range(2)]
    assert outs[0].stdout == outs[1].stdout and len(outs[0].stdout.strip()) == 64


def test_fit_splits_by_workload_and_reports_validation_scores():
    rec = RecordingProgress()
    est = MLPEstimator(hidden=(8,), train=TrainOptions(epochs=3, per_epoch=1000))
    res = fit_estimator(_workloads(10), est, FitOptions(pmcs=(2,)), progress=rec)
    parts = res.split.groupby("part")["workload"].apply(set)
    assert [len(parts[p]) for p in ("train", "validation", "test")] == [7, 1, 2]
    assert set(res.split.groupby("workload")["part"].nunique()) == {1}  # a workload's runs in one part
    assert res.validation is not None and res.test is not None
    summ = res.summary()
    assert set(summ.index.get_level_values("part")) == {"validation", "test"}
    assert {"fixed", "phase", "mlp"} <= set(summ.index.get_level_values("estimator"))
    epochs = [e for e in rec.events if e[0] == "training mlp"]
    assert epochs[-1][1] == 3 and "train loss" in epochs[-1][3] and "validation loss" in epochs[-1][3]


def test_one_workload_validates_on_its_runs():
    with pytest.warns(HemkitWarning, match="only one workload.*validating on 1 of its runs"):
        res = fit_estimator(
            _workloads(1, runs=5), MLPEstimator(hidden=(4,), train=TrainOptions(epochs=1, per_epoch=500)), FitOptions()
        )
    assert res.validation is not None and res.test is None


def test_train_options_are_checked():
    with pytest.raises(InputError, match="epochs must be an integer of at least 1"):
        TrainOptions(epochs=0)
    with pytest.raises(InputError, match="seed"):
        TrainOptions(seed=-1)
    with pytest.raises(InputError, match="loss"):
        TrainOptions(loss="mae")
    with pytest.raises(InputError, match="true counts"):
        MLPEstimator(train=TrainOptions(epochs=1)).fit(emulate(synthetic_trace(runs=2, steps=20), 2).without_truth())
    with pytest.raises(InputError, match="fit the estimator"):
        MLPEstimator().estimate_array(emulate(synthetic_trace(runs=1, steps=20), 2))


def test_a_networks_totals_are_checked_on_hidden_slices(data):
    """Each total is the network's own sum, phase's or linear's: the one closest on the series' hidden blocks."""
    from hemkit.mpx.checked import hidden_errors, runs_checks
    from hemkit.mpx.registry import make_estimator

    train, val = data
    est = MLPEstimator(hidden=(8,), train=TrainOptions(epochs=2, per_epoch=800)).fit(train)
    blind = val.without_truth()
    values, totals = est.estimate_with_totals(blind)
    assert np.array_equal(values, est.estimate_array(blind), equal_nan=True)  # the series stay the network's
    gap = blind.valid & ~blind.known
    known = np.where(blind.valid & blind.known, blind.raw, 0.0).sum(axis=1)
    cands = [est, make_estimator("phase"), make_estimator("linear")]
    sums = np.vstack([known + np.where(gap, c.estimate_array(blind), 0.0).sum(axis=1) for c in cands])
    own = {str(k): hidden_errors(blind, c, ends=False) for k, c in enumerate(cands)}
    loss = np.vstack([runs_checks(blind, own)[str(k)][1] for k in range(len(cands))])  # with the other runs
    assert np.allclose(totals, sums[np.argmin(loss, axis=0), np.arange(len(totals))])
    alone = np.vstack([own[str(k)][1] for k in range(len(cands))])
    assert not np.allclose(totals, sums[np.argmin(alone, axis=0), np.arange(len(totals))])  # the runs moved a choice
    assert np.allclose(est.estimate(blind).totals(), totals)
