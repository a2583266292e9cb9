"""RA and DTW-cost known answers, total error, score tables."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.errors import HemkitError
from hemkit.mpx.emulate import emulate
from hemkit.mpx.scores import ScoreResult, dtw_cost, markdown_table, relative_accuracy, score, total_error
from hemkit.mpx.synthetic import synthetic_trace


def test_ra_known_answers():
    # paper Eq. 4: 1 - mean(|est - true| / true)
    assert relative_accuracy([90, 110, 100, 100], [100, 100, 100, 100]) == pytest.approx(0.95)
    assert relative_accuracy([2, 2], [1, 4]) == pytest.approx(1 - (1 + 0.5) / 2)
    assert relative_accuracy([10, 10], [1, 1]) == 0.0  # clipped at 0 as the paper does
    # zero truth: 0 error when the estimate rounds to 0, a full miss otherwise
    assert relative_accuracy([0.2, 100], [0, 100]) == 1.0
    assert relative_accuracy([3, 100], [0, 100]) == pytest.approx(0.5)
    # NaN padding ignored; rows scored separately
    ra = relative_accuracy(np.array([[1, 2, np.nan], [1, 1, 1]]), np.array([[1, 2, np.nan], [2, 2, 2]]), axis=1)
    assert ra.tolist() == pytest.approx([1.0, 0.5])


def test_dtw_known_answers():
    assert dtw_cost([1, 2, 3], [1, 2, 3], log=False) == 0
    assert dtw_cost([1, 1, 2, 3], [1, 2, 3, 3], log=False) == 0  # a pure time shift costs nothing
    assert dtw_cost([0, 0, 0], [1, 1, 1], log=False) == 3
    # hand-computed: a=[1,3,4], b=[2,3,5]; best path (1,1)(2,2)(3,3): 1 + 0 + 1
    assert dtw_cost([1, 3, 4], [2, 3, 5], log=False) == 2
    assert dtw_cost([0, 9], [0, 9]) == 0
    assert dtw_cost([9], [99]) == pytest.approx(1.0)  # log10(100) - log10(10)
    with pytest.raises(HemkitError, match="shapes"):
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
def test_dtw_matches_textbook_dp_and_batches(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    assert dtw_cost(a, b, log=False) == pytest.approx(_dtw_reference(a, b))
    # batched with a shorter padded row: each row scored on its own length
    A = np.vstack([a, np.r_[a[:1], np.full(len(a) - 1, np.nan)]])
    B = np.vstack([b, np.r_[b[:1], np.full(len(b) - 1, np.nan)]])
    got = dtw_cost(A, B, log=False, chunk_cells=1)
    assert got[0] == pytest.approx(_dtw_reference(a, b))
    assert got[1] == pytest.approx(abs(a[0] - b[0]))


def test_total_error_and_score_table():
    assert total_error(np.array([[5, 5.0]]), np.array([[4, 4.0]]))[0] == pytest.approx(0.25)
    m = emulate(synthetic_trace(runs=2, steps=30, seed=4), 2)
    perfect = np.where(m.valid, m.truth, np.nan)
    res = ScoreResult(score(m, {"fixed": perfect * 1.1, "oracle": perfect}))
    assert set(res.table.columns) >= {"run", "event", "estimator", "ra", "dtw", "total_error"}
    ov = res.overall()
    assert ov.loc["oracle", "ra"] == 1.0 and ov.loc["oracle", "dtw"] == 0.0
    assert ov.loc["oracle", "error_cut"] == 1.0
    assert res.by("event").shape == (5, 2)
    assert "RA per event" in res.summary()
    assert markdown_table(res.by("event")).startswith("| event | fixed | oracle |")
    with pytest.raises(HemkitError, match="true .OCOE. counts"):
        score(m.without_truth(), {"x": perfect})
    with pytest.raises(HemkitError, match="shape"):
        score(m, {"x": perfect[:, :3]})
