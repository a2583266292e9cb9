"""MergeResult keeps its merged columns as arrays: row() is summary(), data is a copy, show_row prints as pandas."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.core.errors import InputError
from hemkit.core.readings import Readings
from hemkit.datasets import t2080_much
from hemkit.merge import merge
from hemkit.merge.result import make_result, observed_pairs, observed_upper


@pytest.fixture(scope="module")
def readings():
    return t2080_much()


@pytest.mark.parametrize("method", ["much", "copula", "joint"])
def test_row_is_the_summary(readings, method):
    res = merge(readings, method, seed=1, rows=300, **({"n_sims": 30} if method == "much" else {}))
    row = res.row()
    summary = res.summary()
    assert list(summary.columns) == list(row)
    np.testing.assert_allclose(summary.iloc[0].to_numpy(dtype=float), list(row.values()), rtol=1e-12)
    # and the pairs behind it: merged minus observed, pandas' way
    p = res.pairs()
    d = (p["merged_pearson"] - p["observed_pearson"]).dropna()
    assert row["pairs"] == len(d)
    assert row["pearson_mse"] == pytest.approx(float((d**2).mean()), rel=1e-12)


def test_data_is_a_copy_of_read_only_arrays(readings):
    res = merge(readings, "much", seed=1, rows=300, n_sims=30)
    first = res.arrays[res.events[0]].copy()
    shown = res.data
    shown.iloc[:, 0] = -1.0
    assert np.array_equal(res.arrays[res.events[0]], first)
    assert np.array_equal(res.data.iloc[:, 0].to_numpy(), first)
    with pytest.raises(ValueError):
        res.arrays[res.events[0]][0] = 1.0
    assert res.shape == (300, 16) == res.data.shape and len(res) == 300


def test_a_frame_and_its_columns_make_the_same_result(readings):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({e: np.sort(readings.pooled(e))[rng.permutation(24)][:24] for e in readings.events[:3]})
    a = make_result(frame, "much", {}, {}, readings)
    b = make_result({e: frame[e].to_numpy() for e in frame}, "much", {}, {}, readings)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert a.row() == b.row()


def test_show_row_prints_what_pandas_prints(capsys):
    from hemkit.cli._options import show_row, show_table

    row = {
        "runs": 1000,
        "events": 16,
        "pairs": 120,
        "pearson_mse": 0.00791712,
        "pearson_max": 0.19594,
        "x": float("nan"),
    }
    show_row("much", row, "A title", index="method")
    plain = capsys.readouterr().out
    show_table(pd.DataFrame([row], index=pd.Index(["much"], name="method")), "A title")
    assert plain == capsys.readouterr().out


@settings(max_examples=200, deadline=None)
@given(
    x=st.lists(st.floats(-1e300, 1e300, allow_nan=False), min_size=1, max_size=40),
    f32=st.booleans(),
)
def test_median_is_numpys_bit_for_bit(x, f32):
    from hemkit.merge.correlation import median

    with np.errstate(over="ignore"):  # float32 of a value above its range: inf, still ordered
        a = np.array(x, dtype=np.float64).astype(np.float32 if f32 else np.float64)
    want = np.median(a)
    assert np.array_equal(median(a), want, equal_nan=True) and median(a).dtype == want.dtype
    two = np.stack([a, a[::-1]])
    assert np.array_equal(median(two, axis=1, keepdims=True), np.median(two, axis=1, keepdims=True), equal_nan=True)


def test_show_row_on_a_terminal_is_show_tables_rich_table(capsys, monkeypatch):
    import sys

    from hemkit.cli._options import show_row, show_table

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    row = {"runs": 1000, "pearson_mse": 0.0079171, "x": float("nan")}
    show_row("much", row, "T", index="method")
    rich = capsys.readouterr().out
    show_table(pd.DataFrame([row], index=pd.Index(["much"], name="method")), "T")
    assert rich == capsys.readouterr().out and "0.007917" in rich


@pytest.mark.parametrize("method", ["joint", "copula", "much", "hrm"])
def test_n_is_the_deprecated_name_of_rows(method):
    """One name, ``rows``, as on the command line (--rows); ``n=`` still works for one release and says so."""
    from hemkit.datasets import t2080_hrm

    readings = t2080_hrm() if method == "hrm" else t2080_much()
    extra = {"anchor": "PROCESSOR_CYCLES"} if method == "hrm" else {"n_sims": 30} if method == "much" else {}
    new = merge(readings, method, seed=1, rows=300, **extra)
    with pytest.warns(FutureWarning, match=r"n= is deprecated; use rows="):
        old = merge(readings, method, seed=1, n=300, **extra)
    assert new.params["rows"] == old.params["rows"] == 300 and new.data.equals(old.data)


def test_options_take_the_old_n_with_a_warning():
    from hemkit.merge import CopulaOptions, JointOptions, MuchOptions

    for cls in (MuchOptions, JointOptions, CopulaOptions):
        with pytest.warns(FutureWarning, match="use rows="):
            opts = cls(n=500)
        assert opts.rows == 500 and "n" not in dataclasses.asdict(opts)
        assert cls(rows=500) == opts


def test_observed_pairs_names_unknown_events_and_the_known_ones():
    x = np.arange(8.0)
    small = Readings({1: pd.DataFrame({"cycles": x, "instr": x**2}), 2: pd.DataFrame({"cycles": x, "misses": 10 - x})})
    assert len(observed_pairs(small, ["cycles", "misses"])) == 1
    with pytest.raises(
        InputError, match=r"^unknown event 'insrt'; choose from cycles, instr, misses; did you mean 'instr'\?$"
    ):
        observed_pairs(small, ["cycles", "insrt"])  # was KeyError: 'insrt'
    with pytest.raises(InputError, match=r"^unknown events 'a', 'b'; choose from cycles, instr, misses$"):
        observed_pairs(small, ["a", "cycles", "b"])
    with pytest.raises(InputError, match=r"^unknown event 'x'"):
        observed_upper(small, ["cycles", "x"])
    with pytest.raises(InputError, match=r"^events is one string \('cycles'\): give a list of event names$"):
        observed_pairs(small, "cycles")  # was: unknown event 'c'
