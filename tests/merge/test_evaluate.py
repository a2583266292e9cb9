"""Evaluation: per-pair differences, checked inputs, holdout, truth studies, the synthetic generator."""

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import HemkitError, InputError
from hemkit.datasets import split_truth, t2080_much, zen5_br_64kb
from hemkit.datasets.synthetic import make_truth, random_correlation, split_into_groups
from hemkit.evaluate import (
    Evaluation,
    HoldoutResult,
    StudyOptions,
    evaluate,
    evaluate_files,
    holdout,
    parse_methods,
    plot_pair_differences,
    truth_study,
)
from hemkit.merge import merge
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
    assert "Evaluation" in repr(ev) and "mse" in repr(ev)


def test_a_merge_result_is_evaluated_by_its_data_and_named_by_its_method():
    r = t2080_much()
    res = merge(r, "much", seed=0, rows=1000, n_sims=30)
    ev = evaluate(res, r)
    assert ev.label == "much" and len(ev.pairs) == 120
    assert ev.mse() == pytest.approx(res.summary().loc["much", "pearson_mse"])


def test_against_readings_uses_observed_pairs():
    r = t2080_much()
    merged = pd.concat([t.reset_index(drop=True) for t in r.groups.values()][:1], axis=1)
    with pytest.warns(UserWarning, match="the merged table lacks 10 event"):
        ev = evaluate(merged, r)
    assert len(ev.pairs) == 15  # 6 events -> 15 pairs, all observed in group 1 (and others)


def test_too_few_common_events():
    with pytest.raises(HemkitError, match="fewer than 2 events"):
        evaluate(pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]}), pd.DataFrame({"x": [1.0, 2, 3], "y": [1.0, 2, 4]}))


GOOD = {"a": [1.0, 2, 3, 4], "b": [2.0, 1, 4, 3], "c": [1.0, 3, 2, 5]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.assign(b=[1.0, np.inf, 2, 3]), "column 'b' has an infinite value in row 2"),
        (lambda t: t.assign(c=[np.nan, 1, 2, 3]), "column 'c' has NaN in row 1"),
        (lambda t: t.assign(b=[7.0, 7, 7, 7]), "column 'b' is constant"),
        (lambda t: t.set_axis(["a", "b", "a"], axis=1), "column 'a' appears twice"),
        (lambda t: t.assign(b=["x", "y", "z", "w"]), "column 'b' is not numeric"),
        (lambda t: t[["a"]], "has 1 event column"),
    ],
)
def test_evaluate_refuses_what_would_silently_drop_pairs(change, message):
    bad = change(pd.DataFrame(GOOD))
    with pytest.raises(InputError, match=message.replace("(", "\\(").replace(")", "\\)")):
        evaluate(bad, pd.DataFrame(GOOD))
    with pytest.raises(InputError, match=message.replace("(", "\\(").replace(")", "\\)")):
        evaluate(pd.DataFrame(GOOD), bad)


def test_evaluate_files_names_the_file(tmp_path):
    good = tmp_path / "truth.csv"
    pd.DataFrame(GOOD).to_csv(good, index=False)
    bad = tmp_path / "merged.csv"
    pd.DataFrame(GOOD).assign(b=[1, 1, 1, 1]).to_csv(bad, index=False)
    with pytest.raises(InputError, match=f"{bad}: column 'b' is constant"):
        evaluate_files(bad, good)
    assert evaluate_files(good, good).mse() == 0.0
    tidy = tmp_path / "tidy.csv"
    t2080_much().to_tidy().to_csv(tidy, index=False)
    with pytest.raises(InputError, match="looks like grouped readings"):
        evaluate_files(tidy, good)


def test_holdout_is_a_result_with_a_plot(tmp_path):
    res = holdout(t2080_much(), ["much"], seed=1, options={"much": {"n_sims": 30, "rows": 1000}})
    assert isinstance(res, HoldoutResult) and isinstance(res["much"], Evaluation)
    assert res["much"].pairs.shape[0] == 120
    assert list(res.summary().columns) == ["pairs", "pearson_mse", "pearson_max", "spearman_mse", "spearman_max"]
    ax = plot_pair_differences(dict(res.evaluations))
    path = tmp_path / "fig.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 5000
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    assert len(ax.lines) == 1 and len(ax.lines[0].get_ydata()) == 120
    assert np.all(np.diff(ax.lines[0].get_ydata()) >= 0)  # sorted, as in the MUCH paper's Fig. 5


def test_holdout_methods_have_their_own_streams():
    # a method's numbers do not depend on which other methods ran (streams by name)
    opts = {"much": {"n_sims": 30, "rows": 500}, "copula": {"rows": 500}}
    alone = holdout(t2080_much(), ["copula"], seed=3, options=opts).summary()
    both = holdout(t2080_much(), ["much", "copula"], seed=3, options=opts).summary()
    pd.testing.assert_series_equal(alone.loc["copula"], both.loc["copula"])


def test_parse_methods():
    assert parse_methods("much-paper, joint") == ["much-paper", "joint"]
    with pytest.raises(InputError, match="unknown method 'magic'"):
        parse_methods("much,magic")
    with pytest.raises(InputError, match="method 'much' is given twice"):
        parse_methods(["much", "much"])


def test_truth_study_compares_with_the_paper():
    st = truth_study(
        zen5_br_64kb(),
        ["much", "joint"],
        seed=0,
        options=StudyOptions(pmcs=(4,), splits=2, reps=1, level=0.9),
        merge_options={"much-paper": {"n_sims": 30}, "much": {"n_sims": 30}},
    )
    s = st.summary()
    assert list(s.index) == ["much-paper", "much", "joint"]
    assert s.loc["much-paper", "pearson_ratio"] == pytest.approx(1.0)
    assert s.loc["joint", "pearson_ratio"] < 1.0  # more accurate than the paper on the real truth
    assert 0 <= s.loc["joint", "coverage"] <= 1 and s.loc["joint", "median_width"] > 0
    assert set(st.by_pmcs().index) == {"much-paper", "much", "joint"}


def test_synthetic_truth_has_its_correlation_and_shapes():
    corr = random_correlation(8, seed=4)
    assert np.linalg.eigvalsh(corr)[0] > 0 and np.allclose(np.diag(corr), 1)
    t = make_truth(8, 100_000, corr=corr, seed=5)
    # normal scores of the truth recover the copula correlation
    from hemkit.merge import normal_scores

    z = normal_scores(t.to_numpy(), axis=0)
    np.testing.assert_allclose(np.corrcoef(z, rowvar=False), corr, atol=0.02)
    assert (t.to_numpy() >= 0).all()
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


def test_split_truth_of_the_real_table():
    t = zen5_br_64kb()
    assert "L1-dcache-prefetches" not in t.columns  # the dead 6th counter, dropped explicitly
    r = split_truth(t, 3, seed=0)
    assert len(r) == 11 and r.missing_pairs() == [] and set(r.n_runs) == {72}
    h = split_truth(t, 3, design="hrm", seed=0)
    assert all("cycles" in g.columns for g in h.groups.values())
    with pytest.raises(InputError, match="unknown design 'magic'"):
        split_truth(t, 3, design="magic")
    with pytest.raises(InputError, match="pmcs must be an integer of at least 2"):
        split_truth(t, 1)


def test_events_only_one_side_has_are_named_with_the_pairs_left_out(cli, tmp_path):
    """Fails before issue 22: 21 of 28 pairs compared and the summary said 'dropped: nothing'."""
    truth = zen5_br_64kb()
    with pytest.warns(UserWarning) as caught:
        ev = evaluate(truth.drop(columns="dTLB-load-misses"), truth)
    assert len(ev.pairs) == 21
    (message,) = [str(w.message) for w in caught if "lacks" in str(w.message)]
    assert "the merged table lacks 1 event(s) of the reference: 'dTLB-load-misses'" in message
    assert "7 pair(s)" in message and "(cycles, dTLB-load-misses)" in message
    truth.to_csv(tmp_path / "truth.csv", index=False)
    truth.drop(columns="dTLB-load-misses").to_csv(tmp_path / "merged.csv", index=False)
    res = cli(["evaluate", tmp_path / "merged.csv", "--truth", tmp_path / "truth.csv"])
    assert res.exit_code == 0, res.stderr
    assert "'dTLB-load-misses'" in res.stderr and "7 pair(s)" in res.stderr
    assert res.stdout.rstrip().endswith("; dropped: 7 pair(s) of 'dTLB-load-misses' (not in the merged table)")
