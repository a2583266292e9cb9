"""Whole numbers written by NumPy are the text csv.writer writes for them (issue 28)."""

import csv
import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.io.table import integral_csv, write_table


def _csv_writer(columns: list[np.ndarray]) -> str:
    fh = io.StringIO()
    csv.writer(fh, lineterminator="\n").writerows(zip(*[c.tolist() for c in columns]))
    return fh.getvalue()


_magnitudes = st.sampled_from([1, 9, 10, 999, 10**6, 2**31, 2**32 + 7, 10**12, 2**53, 10**16 - 1])


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    kinds=st.lists(st.sampled_from(["float64", "float32", "int64", "int32", "uint8"]), min_size=1, max_size=6),
    rows=st.integers(1, 300),
    top=_magnitudes,
    signed=st.booleans(),
)
def test_integral_csv_is_what_csv_writer_writes(seed, kinds, rows, top, signed):
    rng = np.random.default_rng(seed)
    cols = []
    for kind in kinds:
        hi = {"float32": min(top, 2**24), "int32": min(top, 2**31 - 1), "uint8": 255}.get(kind, top)
        lo = -hi if signed and kind != "uint8" else 0
        v = rng.integers(lo, hi, size=rows, endpoint=True)
        v[rng.random(rows) < 0.1] = 0
        x = v.astype(kind)
        cols.append(x)
    text = integral_csv(cols)
    floats64 = [c.astype(np.float64) if c.dtype == np.float32 else c for c in cols]
    big = any(c.dtype.kind == "f" and np.any(np.abs(c.astype(np.float64)) >= 1e16) for c in cols)
    if big:
        assert text is None
    else:
        assert text == _csv_writer(floats64)


def test_integral_csv_leaves_other_numbers_to_csv_writer():
    assert integral_csv([np.array([1.0, 2.5])]) is None
    assert integral_csv([np.array([1.0, -0.0])]) is None  # repr: -0.0
    assert integral_csv([np.array([1.0, np.nan])]) is None
    assert integral_csv([np.array([np.inf])]) is None
    assert integral_csv([np.array([1e16])]) is None  # repr: 1e+16
    assert integral_csv([np.array(["a"], dtype=object)]) is None
    assert integral_csv([np.array([2**64 - 1], dtype=np.uint64)]) is None
    assert integral_csv([np.array([-(2**63)], dtype=np.int64)]) is None


def test_a_table_of_counts_is_the_file_pandas_writes(tmp_path):
    rng = np.random.default_rng(0)
    cols = {
        "cycles": rng.integers(0, 3 * 10**7, 70_000).astype(np.float64),  # two slices of rows
        "misses": rng.integers(-5, 5, 70_000).astype(np.float32),
        "runs": rng.integers(0, 9, 70_000),
    }
    write_table(cols, tmp_path / "fast.csv")
    frame = pd.DataFrame({c: x.astype(np.float64) if x.dtype == np.float32 else x for c, x in cols.items()})
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    assert (tmp_path / "fast.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
