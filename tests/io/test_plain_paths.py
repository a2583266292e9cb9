"""The pandas-free paths give what the pandas ones give: mergingTools raw CSV, code tables, written columns."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hemkit import HemkitError
from hemkit.io import from_mergingtools, read_code_names, write_table
from hemkit.io.table import numeric_csv

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _readings_equal(a, b):
    assert list(a) == list(b)
    for g in a:
        pd.testing.assert_frame_equal(a[g], b[g])


def _raw(rng, n_groups, pmcs, n_runs, short):
    cols, data = [], {}
    for g in range(n_groups):
        for j in range(pmcs):
            name = f"X{j + 1}" + (f".{g}" if g else "")
            x = rng.integers(0, 10**12, size=n_runs).astype(float)
            if short and g == n_groups - 1:
                x[n_runs - 2 :] = np.nan  # the last group is 2 runs shorter: R writes NA
            cols.append(name)
            data[name] = x
    return pd.DataFrame(data, columns=cols)


@SETTINGS
@given(
    seed=st.integers(0, 2**16),
    n_groups=st.integers(1, 4),
    pmcs=st.integers(1, 4),
    n_runs=st.integers(5, 30),
    short=st.booleans(),
    quoted=st.booleans(),
)
def test_a_raw_file_reads_as_its_table_does(tmp_path_factory, seed, n_groups, pmcs, n_runs, short, quoted):
    raw = _raw(np.random.default_rng(seed), n_groups, pmcs, n_runs, short)
    path = tmp_path_factory.mktemp("raw") / "raw.csv"
    raw.to_csv(path, index=False, na_rep="NA", quoting=1 if quoted else 0)  # 1: R's write.csv quotes names
    if short:
        assert numeric_csv(path) is None  # NA: the general reader
    else:
        header, values = numeric_csv(path)
        assert header == list(raw.columns) and np.array_equal(values, raw.to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _readings_equal(from_mergingtools(path, pmcs), from_mergingtools(pd.read_csv(path), pmcs))


@pytest.mark.parametrize(
    "text, message",
    [
        ("X1,X2\n1,2\n2,abc\n3,4\n", "group 1: event 'X2' has a non-numeric value 'abc' in run 2"),
        ("X1,X1\n1,2\n2,3\n3,4\n", "column 'X1' appears twice"),
        ("X1,X2,X3\n1,2,3\n2,3,4\n3,4,5\n", "3 columns is not a multiple of 2"),
        ("X1,X2\n1,2\n,\n3,4\n", "group 1 has an empty row 2 followed by readings"),
        ("X1,X2\n1,2\n2,3\n", "has 2 runs; at least 3 are needed"),
        ("X1,X2\n1,2\n2,-3\n3,4\n", "event 'X2' has a negative count -3 in run 2"),
        ("X1,X2\n1,2\n2,inf\n3,4\n", "event 'X2' has an infinite value in run 2"),
        ("X1,X2\n1,2\n#2,3\n3,4\n", "event 'X1' has a non-numeric value '#2' in run 2"),  # not a comment
    ],
)
def test_raw_file_errors_name_the_culprit(tmp_path, text, message):
    path = tmp_path / "raw.csv"
    path.write_text(text)
    with pytest.raises(HemkitError, match=message):
        from_mergingtools(path, 2)


def test_code_tables_read_the_same_as_csv_and_parquet(tmp_path):
    table = pd.DataFrame({"hems": ["CYCLES", "INSTR", "MISS"], "code": [1, 24, 110]})
    table.to_csv(tmp_path / "codes.csv", index=False)
    table.to_parquet(tmp_path / "codes.parquet")
    want = {1: "CYCLES", 24: "INSTR", 110: "MISS"}
    assert read_code_names(tmp_path / "codes.csv") == want == read_code_names(tmp_path / "codes.parquet")


@pytest.mark.parametrize(
    "text, message",
    [
        ("hems,code\nA,1\nB,x\n", "line 3: code 'x' is not an integer"),
        ("hems,code\nA,1\n,2\n", "line 3: code 2 has no name"),
        ("hems,code\nA,1\nB,1\n", "line 3: code 1 is named twice"),
        ("name,code\nA,1\n", "needs columns 'hems' and 'code'"),
        ("hems,code\nA,1.5\n", "code 1.5 is not an integer"),
    ],
)
def test_code_table_errors(tmp_path, text, message):
    path = tmp_path / "codes.csv"
    path.write_text(text)
    with pytest.raises(HemkitError, match=message):
        read_code_names(path)


_FLOATS = st.floats(min_value=0, max_value=1e300, allow_nan=False) | st.integers(0, 2**63).map(float)


@SETTINGS
@given(
    cols=st.lists(st.lists(_FLOATS, min_size=3, max_size=3), min_size=1, max_size=4),
    f32=st.lists(st.booleans(), min_size=4, max_size=4),
    names=st.lists(
        st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1),
        min_size=4,
        max_size=4,
        unique=True,
    ),
)
def test_written_columns_are_the_csv_pandas_writes(tmp_path_factory, cols, f32, names):
    with np.errstate(over="ignore"):  # float32 of a value above its range: inf, replaced below
        arrays = {n: np.array(c, dtype=np.float32 if s else np.float64) for n, c, s in zip(names, cols, f32)}
    arrays = {n: np.where(np.isfinite(x), x, 1.0).astype(x.dtype) for n, x in arrays.items()}
    d = tmp_path_factory.mktemp("w")
    write_table(arrays, d / "plain.csv")
    write_table(pd.DataFrame(arrays), d / "pandas.csv")
    assert (d / "plain.csv").read_bytes() == (d / "pandas.csv").read_bytes()
    write_table(arrays, d / "plain.parquet")
    back = pd.read_parquet(d / "plain.parquet")
    pd.testing.assert_frame_equal(back, pd.DataFrame(arrays))


def _tidy_frame(rng, n_groups, n_runs, n_events, f32, shuffle, nan):
    rows = []
    for g in range(n_groups):
        events = [f"e{(g + j) % (n_events + 1)}" for j in range(n_events)]  # groups share some events
        for r in range(n_runs):
            for e in events:
                rows.append((g + 1, 10 * r + g, e, float(rng.integers(0, 5)) if e == "e0" else rng.lognormal(5, 1)))
    frame = pd.DataFrame(rows, columns=["group", "run", "event", "value"])
    if f32:
        frame["value"] = frame["value"].astype(np.float32)
    if shuffle:
        frame = frame.sample(frac=1.0, random_state=int(rng.integers(1 << 30))).reset_index(drop=True)
    if nan:
        frame.loc[len(frame) // 2, "value"] = np.nan
    return frame


@SETTINGS
@given(
    seed=st.integers(0, 2**31),
    n_groups=st.integers(1, 4),
    n_runs=st.integers(3, 12),
    n_events=st.integers(1, 4),
    f32=st.booleans(),
    shuffle=st.booleans(),
    nan=st.booleans(),
)
def test_tidy_parquet_reads_as_its_table_does(tmp_path_factory, seed, n_groups, n_runs, n_events, f32, shuffle, nan):
    """A tidy Parquet file read straight from Arrow (laid out) is what the pandas path makes of its table."""
    from hemkit.core.readings import Readings
    from hemkit.io import read_readings

    frame = _tidy_frame(np.random.default_rng(seed), n_groups, n_runs, n_events, f32, shuffle, nan)
    path = tmp_path_factory.mktemp("tidy") / "r.parquet"
    frame.to_parquet(path, index=False)
    try:
        expected = Readings.from_tidy(frame, source=str(path))
    except HemkitError as exc:
        with pytest.raises(HemkitError) as got:
            read_readings(path)
        assert str(got.value) == str(exc)
        return
    got_readings = read_readings(path)
    assert got_readings.source == expected.source and got_readings.events == expected.events
    _readings_equal(got_readings, expected)
    assert [type(g) for g in got_readings] == [type(g) for g in expected]


def test_a_tidy_parquet_comparison_needs_no_pandas(tmp_path):
    """Reading a laid-out tidy Parquet file and ``hemkit compare`` of two never import pandas (half a second)."""
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    for side in ("a", "b"):
        _tidy_frame(rng, 2, 30, 3, False, False, False).to_parquet(tmp_path / f"{side}.parquet", index=False)
    code = (
        "import sys\n"
        "from hemkit.cli import main\n"
        f"sys.argv = ['hemkit', 'compare', r'{tmp_path / 'a.parquet'}', r'{tmp_path / 'b.parquet'}']\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "events changed" in res.stdout and "e1" in res.stdout
