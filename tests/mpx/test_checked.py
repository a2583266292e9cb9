"""The self-checked default estimator: known answers for its choices, its totals, and bad parameters."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import InputError
from hemkit.mpx.checked import (
    FACTORS,
    RUNS_CHOICE,
    SUM_ERROR_CAP,
    CheckedEstimation,
    blocks,
    hidden_errors,
    hide_blocks,
    hide_ends,
    runs_checks,
    series_and_totals,
)
from hemkit.mpx.emulate import emulate, emulate_many
from hemkit.mpx.estimators import LocalInterpolation, relative_fit
from hemkit.mpx.registry import make_estimator
from hemkit.mpx.scores import relative_accuracy, score_table


def _trace(columns: dict[str, np.ndarray]) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    events = list(columns)
    return pd.DataFrame(
        {
            "run": "r",
            "step": np.repeat(np.arange(n), len(events)),
            "event": events * n,
            "value": np.ravel(np.column_stack([columns[e] for e in events])).astype(float),
        }
    )


def _five(special: np.ndarray, seed: int = 0) -> pd.DataFrame:
    """One run of 5 events: 'a' is ``special``, the others noisy levels that change phase together."""
    n = len(special)
    rng = np.random.default_rng(seed)
    level = np.where(np.arange(n) // 25 % 2 == 0, 1000.0, 4000.0)
    cols = {"a": special}
    for k, e in enumerate("bcde"):
        cols[e] = np.round(level * (k + 1) * rng.uniform(0.9, 1.1, n))
    return _trace(cols)


def test_hiding_keeps_a_slice_of_every_series_and_hides_only_counted_ones():
    m = emulate(_five(np.arange(100.0) + 1), 2)
    for hidden_m, hidden in [hide_blocks(m, 0), hide_blocks(m, 1), hide_ends(m, False), hide_ends(m, True)]:
        assert (hidden <= m.full).all() and hidden.any()
        assert hidden_m.observed.any(axis=1).all()  # every series keeps a slice
        assert np.isnan(hidden_m.raw[hidden]).all() and (hidden_m.running[hidden] == 0).all()
    # the two block passes hide every block exactly once
    assert np.array_equal(hide_blocks(m, 0)[1] | hide_blocks(m, 1)[1], m.full & (blocks(m.full).max(1) >= 2)[:, None])
    assert not (hide_blocks(m, 0)[1] & hide_blocks(m, 1)[1]).any()


def test_a_steady_ramp_gets_linear_totals_exactly():
    """A count that grows by the same step every interval: linear interpolation is exact, phase's log scale is not."""
    m = emulate(_five(np.arange(200.0) * 10 + 5), 2)
    blind = m.without_truth()
    truth = np.nansum(m.truth, axis=1)
    _, totals = CheckedEstimation().estimate_with_totals(blind)
    _, _, n = hidden_errors(blind, make_estimator("linear"))
    assert n[0] > 0
    phase_sum = np.nansum(make_estimator("phase").estimate_array(blind)[0])
    assert totals[0] == pytest.approx(truth[0], rel=1e-9)  # linear: exact on a ramp
    assert abs(phase_sum - truth[0]) > 1e-6 * truth[0]  # phase alone is not
    ev = CheckedEstimation().estimate(blind)
    assert ev.totals()[0] == pytest.approx(truth[0], rel=1e-9) and ev.summary()["total"].iloc[0] == ev.totals()[0]


def test_a_sparse_event_is_left_at_zero_in_its_gaps():
    """An event that counts in a few lone intervals, all on a counter: zero fill is exact, interpolation is not."""
    n = 200
    on = np.flatnonzero(emulate(_five(np.zeros(n)), 2).full[0])
    spikes = np.zeros(n)
    spikes[on[::7]] = 50.0  # counts only where the event was on a counter, never in its gaps
    m = emulate(_five(spikes), 2)
    blind = m.without_truth()
    est = CheckedEstimation().estimate_array(blind)
    truth = np.where(m.valid, m.truth, np.nan)
    assert np.array_equal(est[0], make_estimator("zero").estimate_array(blind)[0])
    assert relative_accuracy(est[0], truth[0]) == 1.0
    assert relative_accuracy(make_estimator("phase").estimate_array(blind)[0], truth[0]) < 1.0


def test_phase_changes_keep_phase_and_unchecked_series_take_the_first_candidate():
    m = emulate(_five(np.where(np.arange(150) // 25 % 2 == 0, 300.0, 1200.0)), 2)
    blind = m.without_truth()
    est = CheckedEstimation(series=("phase", "min", "zero"), temperature=0).estimate_array(blind)
    truth = np.where(m.valid, m.truth, np.nan)
    fixed = make_estimator("fixed").estimate_array(blind)
    assert (relative_accuracy(est, truth, axis=1) >= relative_accuracy(fixed, truth, axis=1) - 1e-12).all()
    # one block per series (a run as short as one turn of the rotation): nothing to check, the first wins
    short = emulate(_five(np.arange(1.0, 5.0)), 2)
    assert (blocks(short.full).max(axis=1) <= 1).all()
    a = CheckedEstimation(series=("linear", "zero"), totals=("linear", "zero"))
    b = make_estimator("linear")
    got, tot = a.estimate_with_totals(short.without_truth())
    assert np.array_equal(got, b.estimate_array(short.without_truth()))
    assert np.allclose(tot, b.estimate_totals(short.without_truth()))


def test_enough_counters_keep_every_total_exactly():
    tr = _five(np.arange(60.0) ** 2)
    m = emulate(tr, 5)
    vals, tots = CheckedEstimation().estimate_with_totals(m.without_truth())
    assert np.array_equal(vals, m.truth) and np.allclose(tots, np.nansum(m.truth, axis=1))


def test_score_table_uses_the_estimated_totals():
    m = emulate(_five(np.arange(200.0) * 10 + 5), 2)
    blind = m.without_truth()
    vals, tots = CheckedEstimation().estimate_with_totals(blind)
    plain = score_table(m, {"c": vals}, dtw=False)
    own = score_table(m, {"c": vals}, dtw=False, totals={"c": tots})
    assert own["total_error"].iloc[0] == pytest.approx(0.0, abs=1e-12)
    assert plain["total_error"].iloc[0] > 1e-6  # the series' own sum (zero or min in the gaps) is not exact
    assert (own["ra"] == plain["ra"]).all()
    with pytest.raises(InputError, match="totals for"):
        score_table(m, {"c": vals}, dtw=False, totals={"c": tots[:2]})


def test_bad_candidates_are_refused_by_name():
    m = emulate(_five(np.arange(50.0)), 2).without_truth()
    with pytest.raises(InputError, match="series takes a non-empty list"):
        CheckedEstimation(series="phase").estimate_array(m)
    with pytest.raises(InputError, match="totals takes a non-empty list"):
        CheckedEstimation(totals=()).estimate_array(m)
    with pytest.raises(InputError, match="its own candidate"):
        CheckedEstimation(series=("checked",)).estimate_array(m)
    with pytest.raises(InputError, match="unknown estimator 'magic'"):
        make_estimator("checked", series=("magic",)).estimate_array(m)
    with pytest.raises(InputError, match="not an estimator"):
        CheckedEstimation(totals=(3,)).estimate_array(m)  # type: ignore[arg-type]
    assert CheckedEstimation().get_params() == {
        "series": ("phase", "min", "zero", "local4", "local", "phase*"),
        "totals": ("phase", "linear"),
        "temperature": 0.02,
        "runs_start": True,
        "runs_choice": RUNS_CHOICE,
    }
    with pytest.raises(InputError, match="runs_start must be True or False"):
        CheckedEstimation(runs_start="no").estimate_array(m)  # type: ignore[arg-type]
    for bad in (-0.5, float("nan"), float("inf"), True, "1"):
        with pytest.raises(InputError, match="runs_choice must be a number >= 0"):
            CheckedEstimation(runs_choice=bad).estimate_array(m)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="temperature must be a number >= 0"):
        CheckedEstimation(temperature=-0.1).estimate_array(m)
    with pytest.raises(InputError, match="slices must be an even integer"):
        CheckedEstimation(series=("phase", "local3")).estimate_array(m)
    with pytest.raises(InputError, match="unknown estimator 'magic'"):
        CheckedEstimation(series=("phase", "magic*")).estimate_array(m)


def test_relative_fit_is_the_best_of_zero_and_every_slice_in_relative_error():
    rng = np.random.default_rng(3)
    y = np.round(rng.lognormal(2, 2, (400, 6)) * rng.integers(0, 2, (400, 6)))  # bursts, quiet slices and zeros
    y[rng.random((400, 6)) < 0.1] = np.nan  # fewer slices at the ends of a run
    got = relative_fit(y)

    def cost(x: np.ndarray) -> np.ndarray:
        rel = np.where(y > 0, np.abs(x[:, None] - y) / np.where(y > 0, y, 1.0), (y == 0) & (x[:, None] >= 0.5))
        return np.where(np.isnan(y), 0.0, rel).sum(axis=1)

    brute = np.min([cost(np.nan_to_num(y[:, j])) for j in range(6)] + [cost(np.zeros(400))], axis=0)
    assert np.allclose(cost(got), brute)
    assert relative_fit(np.array([[10.0, 1000.0, 12.0]])).tolist() == [10.0]  # the burst does not pull it up
    assert relative_fit(np.array([[0.0, 0.0, 7.0]])).tolist() == [0.0]  # mostly nothing: nothing


def test_local_interpolation_over_two_slices_is_min_and_wider_ones_ignore_a_burst():
    rng = np.random.default_rng(0)
    counts = np.round(rng.lognormal(3, 1.5, 120)) * (rng.random(120) < 0.7)
    m = emulate(_five(counts), 2).without_truth()
    assert np.array_equal(LocalInterpolation(slices=2).estimate_array(m), make_estimator("min").estimate_array(m))
    quiet = np.full(120, 10.0)
    quiet[39:41] = 1e6  # one block of a burst, counted (steps 39-40 are on the counter at C = 2)
    m = emulate(_five(quiet), 2)
    assert m.full[0, 39] and m.full[0, 40]
    blind = m.without_truth()
    local = LocalInterpolation().estimate_array(blind)
    gap = m.valid & ~m.known
    assert np.array_equal(local[0][gap[0]], np.full(gap[0].sum(), 10.0))  # every gap at the quiet level
    assert make_estimator("linear").estimate_array(blind)[0][gap[0]].max() > 1e5  # linear spreads the burst
    with pytest.raises(InputError, match="slices must be an even integer"):
        LocalInterpolation(slices=0).estimate_array(blind)


def test_combined_series_stay_within_the_candidates_and_scaled_ones_are_factors_of_their_base():
    rng = np.random.default_rng(1)
    m = emulate(_five(np.round(rng.lognormal(3, 1, 200))), 2).without_truth()
    est = CheckedEstimation()
    values, checks = est.checks(m)
    combined = est.estimate_array(m)
    gap = m.valid & ~m.known
    stack = np.stack([values[n] for n in est.series])
    assert (combined[gap] >= stack.min(axis=0)[gap] * (1 - 1e-9) - 1e-9).all()
    assert (combined[gap] <= stack.max(axis=0)[gap] * (1 + 1e-9) + 1e-9).all()
    assert np.array_equal(combined[m.valid & m.known], np.nan_to_num(m.raw)[m.valid & m.known])
    hard = CheckedEstimation(temperature=0).estimate_array(m)
    assert all(any(np.array_equal(hard[s], values[n][s]) for n in est.series) for s in range(len(m.keys)))
    # the scaled candidate: its base's gaps times one factor per series, slices as counted
    base, scaled = values["phase"], values["phase*"]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(gap & (base > 0), scaled / base, np.nan)
    for s in range(len(m.keys)):
        r = ratio[s][~np.isnan(ratio[s])]
        assert len(r) == 0 or (np.allclose(r, r[0]) and np.isclose(FACTORS, r[0]).any())
    assert np.array_equal(scaled[~gap & m.valid], base[~gap & m.valid])
    # checked on slices it was not fitted to: never better on them than the base fitted in-sample could be
    assert checks["phase*"][0].shape == (len(m.keys),) and np.isfinite(checks["phase*"][0]).all()


def _runs(n_runs: int = 4, steps: int = 40, **extra: object) -> pd.DataFrame:
    """``n_runs`` runs of one workload, 3 events of steady counts."""
    rng = np.random.default_rng(3)
    rows = [
        {"workload": "w", "run": f"r{r}", "step": t, "event": e, "value": float(rng.integers(50, 150)), **extra}
        for r in range(n_runs)
        for t in range(steps)
        for e in "abc"
    ]
    return pd.DataFrame(rows)


def test_a_series_chooses_with_the_other_runs_of_its_workload():
    m = emulate(_runs(), 2).without_truth()
    S = len(m.keys)
    low, high = np.full(m.raw.shape, 9.0), np.full(m.raw.shape, 99.0)
    values = {"low": low, "high": high}
    first = (m.keys["run"] == "r0").to_numpy()
    # r0's own hidden slices favour "low" a little; the three other runs favour "high" clearly
    rel_low, rel_high = np.where(first, 0.20, 0.60), np.where(first, 0.25, 0.10)
    n = np.full(S, 10.0)
    checks = {"low": (rel_low, np.where(first, 0.1, 0.5), n), "high": (rel_high, np.where(first, 0.2, 0.05), n)}
    gap = m.valid & ~m.known

    def r0_gap(series: np.ndarray) -> set:
        return set(np.unique(series[first][gap[first]]).tolist())

    alone, alone_totals = series_and_totals(m, values, checks, ("low", "high"), ("low", "high"), 0.0, runs_choice=0)
    pooled, pooled_totals = series_and_totals(m, values, checks, ("low", "high"), ("low", "high"), 0.0)
    assert r0_gap(alone) == {9.0} and r0_gap(pooled) == {99.0}
    # the other runs agree with their neighbours already: their choice does not move
    assert np.array_equal(alone[~first], pooled[~first])
    # the totals follow the pooled sum errors in the same way: r0's gaps are filled by "high"
    known = 9.0 * (m.valid & m.known).sum(axis=1)  # the series' known slices, as the candidates give them
    assert np.allclose(alone_totals[first], known[first] + 9.0 * gap[first].sum(axis=1))
    assert np.allclose(pooled_totals[first], known[first] + 99.0 * gap[first].sum(axis=1))


def test_runs_checks_averages_the_other_runs_only():
    m = emulate(_runs(n_runs=3), 2)
    S = len(m.keys)
    rel = np.arange(S, dtype=float) / S
    tot = np.where(np.arange(S) == 0, np.inf, 0.3)
    n = np.arange(S, dtype=float) % 4 + 1
    out = runs_checks(m, {"x": (rel, tot, n)}, 0.5)["x"]
    for i in range(S):
        same = np.flatnonzero(m.keys["event"].to_numpy() == m.keys["event"].iloc[i])
        other = same[same != i]
        want = (n[i] * rel[i] + 0.5 * (n[other] * rel[other]).sum()) / (n[i] + 0.5 * n[other].sum())
        assert out[0][i] == pytest.approx(want)
        capped = np.minimum(tot, SUM_ERROR_CAP)
        assert out[1][i] == pytest.approx((capped[i] + 0.5 * capped[other].sum()) / (1 + 0.5 * len(other)))
    assert out[2] is n  # the hidden counts stay the series' own
    # no workload, or a weight of 0: the checks as they were
    plain = m.keys.drop(columns="workload")
    for mm, w in ((replace(m, keys=plain), 0.5), (m, 0.0)):
        same_out = runs_checks(mm, {"x": (rel, tot, n)}, w)["x"]
        assert same_out[0] is rel and same_out[1] is tot


def test_runs_checks_keeps_views_of_one_run_and_counter_counts_apart():
    views = emulate_many(_runs(n_runs=2, steps=30), pmcs=[2, 3], offsets=[0, 1])
    keys = views.keys
    S = len(keys)
    rel, tot, n = np.arange(S, dtype=float), np.zeros(S), np.ones(S)
    out = runs_checks(views, {"x": (rel, tot, n)}, 1.0)["x"][0]
    for i in range(S):
        k = keys.iloc[i]
        peers = np.flatnonzero(
            (keys["event"] == k["event"]).to_numpy()
            & (keys["pmcs"] == k["pmcs"]).to_numpy()
            & (keys["trace_run"] != k["trace_run"]).to_numpy()
        )
        assert len(peers) == 2  # the other recorded run, at both offsets, on the same counters
        assert out[i] == pytest.approx((rel[i] + rel[peers].sum()) / 3)
