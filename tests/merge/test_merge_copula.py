"""The copula merge: exact Iman-Conover reordering, every reading, weights chosen by holdout."""

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import InputError
from hemkit.core.readings import Readings
from hemkit.datasets import t2080_much
from hemkit.merge import CopulaOptions, merge_copula
from hemkit.merge.copula import choose_pearson_weight, iman_conover, whiten
from hemkit.merge.correlation import normal_scores

SMALL = CopulaOptions(rows=3000)


def test_iman_conover_hits_the_target_exactly():
    rng = np.random.default_rng(0)
    base = rng.permuted(np.broadcast_to(normal_scores(np.arange(500.0)), (4, 500)), axis=1)
    target = np.array([[1, 0.7, -0.3, 0.1], [0.7, 1, 0.0, 0.2], [-0.3, 0.0, 1, 0.5], [0.1, 0.2, 0.5, 1]])
    s = iman_conover(whiten(base), target)
    np.testing.assert_allclose(np.corrcoef(s), target, atol=1e-12)


def test_columns_are_every_reading_and_seeded():
    r = t2080_much()
    a = merge_copula(r, seed=3, pearson_weight=0.5)
    b = merge_copula(r, seed=3, pearson_weight=0.5)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert a.data.shape == (24000, 16)  # PROCESSOR_CYCLES was read in all 24 groups: 24 000 readings
    pooled = np.sort(np.concatenate([t["PROCESSOR_CYCLES"].to_numpy() for t in r.groups.values()]))
    np.testing.assert_array_equal(np.sort(a.data["PROCESSOR_CYCLES"].to_numpy()), pooled)


def test_pearson_weight_one_matches_observed_pearson_closely():
    r = t2080_much()
    w0 = merge_copula(r, seed=0, pearson_weight=0.0, options=SMALL)
    w1 = merge_copula(r, seed=0, pearson_weight=1.0, options=SMALL)
    assert w1.diagnostics["mse_to_observed"] < 0.1 * w0.diagnostics["mse_to_observed"]
    assert w1.diagnostics["mse_to_observed"] < 1e-3


def test_auto_weight_is_chosen_by_holdout():
    w, scores = choose_pearson_weight(t2080_much(), seed=0, options=SMALL)
    assert set(scores) == {0.0, 0.25, 0.5, 0.75, 1.0}
    assert scores[w] == min(scores.values())
    res = merge_copula(t2080_much(), seed=0, options=SMALL)
    assert res.params["auto"] is True and res.diagnostics["pearson_weight"] in scores


@pytest.mark.parametrize("weight", [2.0, -0.1, "sometimes", float("nan")])
def test_bad_weight(weight):
    with pytest.raises(InputError, match="pearson_weight"):
        merge_copula(t2080_much(), pearson_weight=weight, options=SMALL)


def test_bad_rows_and_refine():
    with pytest.raises(InputError, match="rows \\(merged runs\\) must be an integer of at least 3"):
        merge_copula(t2080_much(), options=CopulaOptions(rows=1))
    with pytest.raises(InputError, match="refine must be an integer of at least 0"):
        merge_copula(t2080_much(), options=CopulaOptions(refine=-1))


def test_auto_weight_falls_back_when_halves_cannot_be_formed():
    # 6 runs per group; one event changes in a single run only, so some half is constant
    g = {
        1: pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [0.0, 0, 0, 0, 0, 1]}),
        2: pd.DataFrame({"a": [2.0, 1, 4, 3, 6, 5], "c": [1.0, 2, 1, 2, 1, 2]}),
        3: pd.DataFrame({"b": [0.0, 1, 0, 0, 0, 0], "c": [1.0, 1, 2, 2, 3, 3]}),
    }
    w, scores = choose_pearson_weight(Readings(g), seed=0)
    assert (w, scores) == (0.0, {}) or set(scores) == {0.0, 0.25, 0.5, 0.75, 1.0}
    assert merge_copula(Readings(g), seed=0).data.shape[1] == 3
