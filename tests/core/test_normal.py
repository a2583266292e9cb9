"""Phi^-1 without SciPy (issue 15: SciPy's import cost more than the MUCH merge itself)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri as scipy_ndtri

from hemkit.core.normal import ndtri, rank_scores


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=0.0, max_value=1.0, allow_subnormal=True))
def test_ndtri_is_scipys_to_double_precision(p):
    want = float(scipy_ndtri(p))
    got = float(ndtri(p))
    if np.isinf(want):
        assert got == want
    else:
        assert abs(got - want) <= 4e-15 * max(1.0, abs(want))


def test_ndtri_known_values_and_edges():
    # textbook quantiles: 1.959963984540054 (97.5 %), 1.6448536269514722 (95 %), 0 (median)
    got = ndtri(np.array([0.975, 0.95, 0.5, 0.025, 0.0, 1.0, -0.1, 1.1, np.nan]))
    want = [1.959963984540054, 1.6448536269514722, 0.0, -1.959963984540054]
    assert got[:4].tolist() == pytest.approx(want, abs=1e-15)
    assert got[4] == -np.inf and got[5] == np.inf and np.isnan(got[6:]).all()
    assert ndtri(np.empty((0, 3))).shape == (0, 3)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=400))
def test_rank_scores_are_ndtri_of_ranks(values):
    from hemkit.merge.correlation import average_ranks

    x = np.array(values, dtype=float)  # many ties: half ranks
    r = average_ranks(x)
    assert np.allclose(rank_scores(r, len(x)), scipy_ndtri(r / (len(x) + 1)), rtol=0, atol=4e-15)


def test_the_much_paper_scores():
    # MUCH (SAC 2021) Sec. 4.3: {1, 2, 5, 8} -> {-0.842, -0.253, 0.253, 0.842}
    assert rank_scores(np.array([1.0, 2, 3, 4]), 4).round(3).tolist() == [-0.842, -0.253, 0.253, 0.842]


@pytest.mark.parametrize("method", ["much", "copula"])
def test_much_and_copula_merges_import_no_scipy(method):
    code = (
        "import sys, warnings; warnings.simplefilter('ignore')\n"
        "from hemkit.datasets import t2080_much\n"
        "from hemkit.merge import merge\n"
        f"merge(t2080_much(), {method!r}, seed=0, rows=1000, **({{'n_sims': 30}} if {method!r} == 'much' else {{}}))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 3000), size=st.integers(1, 50), seed=st.integers(0, 2**16))
def test_rank_scores_from_a_kept_table_are_ndtris_bit_for_bit(n, size, seed):
    """The first call for an n computes directly, later ones read the kept table: the same numbers."""
    rng = np.random.default_rng(seed)
    ranks = rng.integers(2, 2 * n + 1, size=size) / 2.0
    want = ndtri(ranks / (n + 1))
    for _ in range(3):
        assert np.array_equal(rank_scores(ranks, n), want)
