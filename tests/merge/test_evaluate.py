"""Evaluation: per-pair differences, holdout, plot, and the synthetic generator."""

import numpy as np
import pandas as pd
import pytest

from hemkit import HemkitError
from hemkit.datasets import t2080_much
from hemkit.datasets.synthetic import make_truth, random_correlation, split_into_groups
from hemkit.evaluate import evaluate, holdout, plot_pair_differences
from hemkit.plan import hrm_design


def test_known_pair_differences():
    truth = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [1.0, 2, 3, 4], "c": [4.0, 3, 2, 1]})
    merged = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [4.0, 3, 2, 1], "c": [4.0, 3, 2, 1]})
    ev = evaluate(merged, truth)
    d = ev.pairs["diff_pearson"]
    assert d[("a", "b")] == pytest.approx(-2.0)
    assert d[("a", "c")] == pytest.approx(0.0)
    assert d[("b", "c")] == pytest.approx(2.0)
    assert ev.mse() == pytest.approx(8 / 3)
    assert ev.max_abs("spearman") == pytest.approx(2.0)
    assert list(ev.summary().index) == ["pearson", "spearman"]


def test_against_readings_uses_observed_pairs():
    r = t2080_much()
    merged = pd.concat([t.reset_index(drop=True) for t in r.groups.values()][:1], axis=1)
    ev = evaluate(merged, r)
    assert len(ev.pairs) == 15  # 6 events -> 15 pairs, all observed in group 1 (and others)


def test_too_few_common_events():
    with pytest.raises(HemkitError, match="fewer than 2 events"):
        evaluate(pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]}), pd.DataFrame({"x": [1.0, 2, 3], "y": [1.0, 2, 4]}))


def test_holdout_and_plot(tmp_path):
    res = holdout(t2080_much(), ["much"], seed=1, n_sims=5)
    assert res["much"].pairs.shape[0] == 120
    ax = plot_pair_differences(res)
    path = tmp_path / "fig.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 5000
    assert len(ax.lines) == 1 and len(ax.lines[0].get_ydata()) == 120
    assert np.all(np.diff(ax.lines[0].get_ydata()) >= 0)  # sorted, as in the MUCH paper's Fig. 5


def test_synthetic_truth_has_its_correlation_and_shapes():
    corr = random_correlation(8, seed=4)
    assert np.linalg.eigvalsh(corr)[0] > 0 and np.allclose(np.diag(corr), 1)
    t = make_truth(8, 100_000, corr=corr, seed=5)
    # normal scores of the truth recover the copula correlation
    from hemkit.merge import normal_scores

    z = normal_scores(t.to_numpy(), axis=0)
    np.testing.assert_allclose(np.corrcoef(z, rowvar=False), corr, atol=0.02)
    assert (t.to_numpy() >= 0).all()
    # skewed and bimodal marginals really are
    from scipy import stats

    assert stats.skew(t.filter(like="lognormal").iloc[:, 0]) > 1
    bimodal = t.filter(like="bimodal").iloc[:, 0].to_numpy()
    hist, _ = np.histogram(bimodal, bins=30)
    assert hist[len(hist) // 2] < 0.2 * hist.max()  # a valley between two modes


def test_split_into_groups_gives_disjoint_runs():
    t = make_truth(7, 1000, seed=0)
    ev = list(t.columns)
    r = split_into_groups(t, hrm_design(ev, 3, anchor=ev[0]), 200, seed=0)
    assert len(r) == 3 and r.events[0] == ev[0]
    rows = [set(map(tuple, g.to_numpy()[:, :1])) for g in r.groups.values()]
    assert all(len(a & b) == 0 for i, a in enumerate(rows) for b in rows[i + 1 :])
    with pytest.raises(HemkitError, match="need 3000 runs"):
        split_into_groups(t, hrm_design(ev, 3, anchor=ev[0]), 1000)


def test_split_by_design():
    from hemkit.datasets.synthetic import split_by_design

    t = make_truth(9, 3000, seed=1)
    hrm = split_by_design(t, "hrm", 3, 200, anchor=t.columns[2])
    assert all(t.columns[2] in g.columns for g in hrm.groups.values()) and len(hrm) == 4
    much = split_by_design(t, "much", 3, 100)
    assert much.missing_pairs() == [] and set(much.n_runs) == {100}
    with pytest.raises(HemkitError, match="unknown design 'magic'"):
        split_by_design(t, "magic", 3, 100)
