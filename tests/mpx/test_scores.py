"""RA, DTW-cost, total error, rankings on all three, run-to-run correlation, figures."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.core.errors import InputError
from hemkit.mpx.emulate import emulate
from hemkit.mpx.evaluation import ScoreOptions, score_traces
from hemkit.mpx.plots import estimate_figure, plot_dtw, plot_series
from hemkit.mpx.registry import make_estimator
from hemkit.mpx.scores import (
    MpxScores,
    dtw_cost,
    dtw_path,
    markdown_table,
    plot_ra,
    rank_estimators,
    relative_accuracy,
    run_to_run,
    score_table,
    total_error,
)
from hemkit.mpx.synthetic import synthetic_trace

matplotlib.use("Agg")


def test_ra_known_answers():
    assert relative_accuracy([90, 110, 100, 100], [100, 100, 100, 100]) == pytest.approx(0.95)
    assert relative_accuracy([2, 2], [1, 4]) == pytest.approx(1 - (1 + 0.5) / 2)
    assert relative_accuracy([10, 10], [1, 1]) == 0.0  # clipped at 0 as the paper does
    assert relative_accuracy([0.2, 100], [0, 100]) == 1.0  # zero truth: right when it rounds to 0
    assert relative_accuracy([3, 100], [0, 100]) == pytest.approx(0.5)
    ra = relative_accuracy(np.array([[1, 2, np.nan], [1, 1, 1]]), np.array([[1, 2, np.nan], [2, 2, 2]]), axis=1)
    assert ra.tolist() == pytest.approx([1.0, 0.5])


def test_dtw_known_answers():
    assert dtw_cost([1, 2, 3], [1, 2, 3], log=False) == 0
    assert dtw_cost([1, 1, 2, 3], [1, 2, 3, 3], log=False) == 0  # a pure time shift costs nothing
    assert dtw_cost([0, 0, 0], [1, 1, 1], log=False) == 3
    assert dtw_cost([1, 3, 4], [2, 3, 5], log=False) == 2  # (1,1)(2,2)(3,3): 1 + 0 + 1
    assert dtw_cost([9], [99]) == pytest.approx(1.0)  # log10(100) - log10(10)
    with pytest.raises(InputError, match="shapes"):
        dtw_cost([1, 2], [1, 2, 3])


def _dtw_reference(a, b):
    n, m = len(a), len(b)
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            D[i, j] = abs(a[i - 1] - b[j - 1]) + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    return D[n, m]


@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0, 100)), min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)
def test_dtw_matches_textbook_dp_batches_and_path(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    ref = _dtw_reference(a, b)
    assert dtw_cost(a, b, log=False) == pytest.approx(ref)
    cost, path = dtw_path(a, b, log=False)
    assert cost == pytest.approx(ref)
    assert sum(abs(a[i] - b[j]) for i, j in path) == pytest.approx(ref)  # the path costs what it says
    assert path[0].tolist() == [0, 0] and path[-1].tolist() == [len(a) - 1, len(b) - 1]
    A = np.vstack([a, np.r_[a[:1], np.full(len(a) - 1, np.nan)]])
    B = np.vstack([b, np.r_[b[:1], np.full(len(b) - 1, np.nan)]])
    got = dtw_cost(A, B, log=False, chunk_cells=1)
    assert got[0] == pytest.approx(ref) and got[1] == pytest.approx(abs(a[0] - b[0]))


def test_ranking_on_all_three_does_not_reward_caution():
    """A cautious estimator that always undercounts wins on RA alone, not on the three together."""
    m = emulate(synthetic_trace(runs=3, steps=60, seed=4), 2)
    truth = np.where(m.valid, m.truth, np.nan)
    rng = np.random.default_rng(0)
    ests = {
        "fixed": make_estimator("fixed").estimate_array(m),
        "honest": truth * rng.uniform(0.9, 1.1, truth.shape),
        "cautious": truth * 0.5,
    }
    res = MpxScores(score_table(m, ests), "fixed")
    summ = res.summary()
    assert summ.loc["cautious", "total_error"] == pytest.approx(0.5)
    assert summ.index[0] == "honest" and summ.loc["cautious", "rank"] > summ.loc["honest", "rank"]
    assert {"ra", "error_cut", "dtw", "total_error", "worst_event_ra", "rank_ra", "rank_dtw", "rank_total"} <= set(
        summ.columns
    )
    assert total_error(np.array([[5, 5.0]]), np.array([[4, 4.0]]))[0] == pytest.approx(0.25)
    assert res.by("event", "total_error").shape == (5, 3) and "MpxScores" in repr(res)
    assert markdown_table(res.by("event")).startswith("| event | cautious | fixed | honest |")
    with pytest.raises(InputError, match="true .OCOE. counts"):
        score_table(m.without_truth(), ests)
    with pytest.raises(InputError, match="unknown score"):
        res.by("event", "bogus")


def test_run_to_run_pearson_known_answer():
    steps = np.arange(50)
    base = np.sin(steps / 5) * 100 + 200
    rows = []
    for k, noise in enumerate([0, 1, 2]):
        rows.append(pd.DataFrame({"workload": "w", "run": f"r{k}", "step": steps, "event": "e", "value": base + noise}))
    rows.append(pd.DataFrame({"workload": "w", "run": "r3", "step": steps[:40], "event": "e", "value": -base[:40]}))
    r = run_to_run(pd.concat(rows))
    row = r.iloc[0]
    assert row["runs"] == 4 and row["pairs"] == 6
    assert row["r"] == pytest.approx((3 * 1.0 + 3 * -1.0) / 6) and row["r_min"] == pytest.approx(-1.0)
    assert np.corrcoef(base, base + 1)[0, 1] == pytest.approx(1.0)


def test_score_traces_and_figures(tmp_path):
    tr = pd.concat([synthetic_trace(runs=3, steps=60, seed=k, workload=f"w{k}") for k in range(2)])
    ests = {n: make_estimator(n) for n in ("fixed", "growth", "phase")}
    res = score_traces(tr, ests, ScoreOptions(pmcs=(2, 3)))
    assert set(res.table["pmcs"]) == {2, 3} and res.baseline == "fixed"
    assert set(res.run_to_run["workload"]) == {"w0", "w1"}
    fig = estimate_figure(tr, {"fixed": ests["fixed"], "phase": ests["phase"]}, 2)
    assert len(fig.axes) == 6
    for ax in fig.axes:
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
    assert "interval" in fig.axes[0].get_xlabel() and "count" in fig.axes[0].get_ylabel()
    assert fig.axes[-1].get_title().startswith("DTW alignment")
    ax = plot_ra(res.table)
    assert ax.get_title() and ax.get_legend() is not None
    with pytest.raises(InputError, match="run 'nope' is not in the traces"):
        estimate_figure(tr, ests, 2, run="nope")
    m = emulate(tr, 2)
    with pytest.raises(InputError, match="no series"):
        plot_series(m, {}, "nope", "ev0")
    assert plot_dtw([1, 5, 1], [1, 1, 5]).get_legend() is not None


def test_rank_estimators_without_baseline():
    t = pd.DataFrame(
        {"event": ["a"] * 2, "estimator": ["x", "y"], "ra": [0.9, 0.8], "dtw": [1.0, 2.0], "total_error": [0.1, 0.2]}
    )
    r = rank_estimators(t, baseline=None)
    assert r.index.tolist() == ["x", "y"] and r.loc["x", "rank"] == 1


def test_score_table_needs_at_least_one_estimate():
    m = emulate(synthetic_trace(runs=1, steps=20, events=3), pmcs=2)
    with pytest.raises(InputError, match=r"^score_table needs at least one estimate"):
        score_table(m, {})
