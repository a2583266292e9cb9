"""One table reader/writer and one version policy for every format hemkit writes (hemkit.io.formats)."""

from __future__ import annotations

import json
import re
import sqlite3

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import InputError
from hemkit.io import read_readings, read_table, write_table
from hemkit.io.formats import (
    ANALYSIS_VERSION,
    COLLECTION_VERSION,
    MODEL_VERSION,
    PARQUET_MAGIC,
    PLAN_VERSION,
    TABLE_VERSION,
    TABLE_VERSION_KEY,
    check_version,
)

TIDY = pd.DataFrame(
    {
        "group": [1] * 8,
        "run": [r for r in range(4) for _ in range(2)],
        "event": ["a", "b"] * 4,
        "value": [1.0, 2.0, 2.0, 1.0, 3.0, 5.0, 4.0, 3.0],
    }
)


def _newer(message: str, path, found: int, current: int) -> None:
    """The refusal names the file, the file's version and the version this hemkit reads."""
    assert str(path) in message
    assert f"version {found}" in message and f"(version {current})" in message
    assert "newer" in message


# ------------------------------------------------------------------ the policy itself
@pytest.mark.parametrize("found, want", [(None, 0), (0, 0), (1, 1)])
def test_files_without_a_version_or_an_older_one_are_read(found, want):
    assert check_version("f.toml", found, 1, "plan file") == want


@pytest.mark.parametrize("found", [2, 17])
def test_a_newer_version_is_refused_naming_file_and_both_versions(found):
    with pytest.raises(InputError) as err:
        check_version("dir/f.toml", found, 1, "plan file")
    _newer(str(err.value), "dir/f.toml", found, 1)


@pytest.mark.parametrize("found", [-1, 1.5, "2", True])
def test_a_version_that_is_no_whole_number_is_refused(found):
    with pytest.raises(InputError, match="f.json: derive analysis version .* is not a whole number"):
        check_version("f.json", found, 1, "derive analysis")


# ------------------------------------------------------------------ each format hemkit writes
def test_plan_file_carries_its_version_and_a_newer_one_is_refused(tmp_path):
    from hemkit.plan import Plan

    plan = Plan([["a", "b"], ["a", "c"]], pmcs=2)
    path = plan.to_file(tmp_path / "plan.toml")
    text = path.read_text()
    assert f"format_version = {PLAN_VERSION}\n" in text
    assert Plan.from_file(path) == plan
    old = tmp_path / "old.toml"  # written before plan files had a version
    old.write_text("\n".join(line for line in text.splitlines() if not line.startswith("format_version")) + "\n")
    assert Plan.from_file(old) == plan
    newer = tmp_path / "newer.toml"
    newer.write_text(text.replace(f"format_version = {PLAN_VERSION}", f"format_version = {PLAN_VERSION + 1}"))
    with pytest.raises(InputError) as err:
        Plan.from_file(newer)
    _newer(str(err.value), newer, PLAN_VERSION + 1, PLAN_VERSION)


def test_plan_file_json_too(tmp_path):
    from hemkit.io.planfile import read_plan_file, write_plan_file

    path = write_plan_file(tmp_path / "p.json", {"groups": [["a", "b"]]})
    assert json.loads(path.read_text())["format_version"] == PLAN_VERSION
    assert read_plan_file(path) == {"groups": [["a", "b"]]}
    path.write_text(json.dumps({"format_version": 9, "groups": [["a", "b"]]}))
    with pytest.raises(InputError) as err:
        read_plan_file(path)
    _newer(str(err.value), path, 9, PLAN_VERSION)


def test_derive_analysis_version(tmp_path):
    from hemkit.derive import analyze, example_measurements, load_analysis
    from hemkit.io.derive import write_analysis

    path = write_analysis(analyze(example_measurements("branch")), tmp_path / "r.json")
    d = json.loads(path.read_text())
    assert d["version"] == ANALYSIS_VERSION
    want = load_analysis(path).summary()
    del d["version"]  # an analysis written without a version is read
    path.write_text(json.dumps(d))
    pd.testing.assert_frame_equal(load_analysis(path).summary(), want)
    d["version"] = ANALYSIS_VERSION + 1
    path.write_text(json.dumps(d))
    with pytest.raises(InputError) as err:
        load_analysis(path)
    _newer(str(err.value), path, ANALYSIS_VERSION + 1, ANALYSIS_VERSION)


def test_parquet_tables_carry_the_version_and_a_newer_one_is_refused(tmp_path):
    import pyarrow.parquet as pq

    for table in (TIDY, {"a": np.arange(3.0)}):
        path = write_table(table, tmp_path / "t.parquet")
        assert pq.read_schema(path).metadata[TABLE_VERSION_KEY] == str(TABLE_VERSION).encode()
    path = write_table(TIDY, tmp_path / "t.parquet")
    plain = tmp_path / "plain.parquet"  # written by pandas (another tool): no hemkit version, read
    TIDY.to_parquet(plain, index=False)
    pd.testing.assert_frame_equal(read_table(plain), read_table(path))
    arrow = pq.read_table(path)
    newer = tmp_path / "newer.parquet"
    pq.write_table(
        arrow.replace_schema_metadata({**arrow.schema.metadata, TABLE_VERSION_KEY: str(TABLE_VERSION + 1)}), newer
    )
    with pytest.raises(InputError) as err:
        read_table(newer)
    _newer(str(err.value), newer, TABLE_VERSION + 1, TABLE_VERSION)
    with pytest.raises(InputError, match="newer"):
        read_readings(newer)


def test_collection_database_version(tmp_path):
    """The collection database's version is SQLite's user_version; the policy is the same (read older, refuse newer).

    tests/collect/test_database.py checks a real database; here a file that only has the marker.
    """
    from hemkit.io.collection import APPLICATION_ID, load_readings

    path = tmp_path / "c.db"
    with sqlite3.connect(path) as con:
        con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        con.execute(f"PRAGMA user_version = {COLLECTION_VERSION + 1}")
        con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    with pytest.raises(InputError) as err:
        load_readings(path)
    _newer(str(err.value), path, COLLECTION_VERSION + 1, COLLECTION_VERSION)


def test_model_version(tmp_path):
    torch = pytest.importorskip("torch")
    from hemkit.io.mpx import MODEL_FORMAT, read_model, write_model

    path = write_model({"class": "MLPEstimator"}, tmp_path / "m.pt")
    blob = read_model(path)
    assert blob["version"] == MODEL_VERSION and blob["format"] == MODEL_FORMAT
    older = tmp_path / "older.pt"
    torch.save({"format": MODEL_FORMAT, "version": 1, "class": "MLPEstimator"}, older)
    assert read_model(older)["version"] == 1
    newer = tmp_path / "newer.pt"
    torch.save({"format": MODEL_FORMAT, "version": MODEL_VERSION + 1, "class": "MLPEstimator"}, newer)
    with pytest.raises(InputError) as err:
        read_model(newer)
    _newer(str(err.value), newer, MODEL_VERSION + 1, MODEL_VERSION)


# ------------------------------------------------------------------ Parquet by content, not by name
def test_parquet_named_csv_is_read_as_parquet(tmp_path):
    real = write_table(TIDY, tmp_path / "t.parquet")
    disguised = tmp_path / "t.csv"
    disguised.write_bytes(real.read_bytes())
    assert disguised.read_bytes()[:4] == PARQUET_MAGIC
    pd.testing.assert_frame_equal(read_table(disguised), read_table(real))
    assert read_readings(disguised).events == ["a", "b"]


def test_csv_named_parquet_is_read_as_csv(tmp_path):
    real = write_table(TIDY, tmp_path / "t.csv")
    disguised = tmp_path / "t.parquet"
    disguised.write_bytes(real.read_bytes())
    pd.testing.assert_frame_equal(read_table(disguised), read_table(real))
    assert read_readings(disguised).events == ["a", "b"]


def test_writing_goes_by_suffix(tmp_path):
    for name, parquet in (("t.parquet", True), ("t.PQ", True), ("t.csv", False), ("t.txt", False)):
        path = write_table(TIDY, tmp_path / name)
        assert (path.read_bytes()[:4] == PARQUET_MAGIC) is parquet, name


def test_traces_and_measurements_go_by_content_too(tmp_path):
    from hemkit.derive import example_measurements, read_measurements
    from hemkit.io.derive import write_measurements
    from hemkit.io.traces import read_trace, write_trace

    trace = pd.DataFrame({"run": "r", "step": [0, 1, 0, 1], "event": ["a", "a", "b", "b"], "value": [1.0, 2, 3, 4]})
    pq = write_trace(trace, tmp_path / "tr.parquet")
    named_csv = tmp_path / "w_r1.csv"
    named_csv.write_bytes(pq.read_bytes())
    assert read_trace(named_csv)["value"].tolist() == read_trace(pq)["value"].tolist()
    text = write_trace(trace, tmp_path / "tr.csv")
    named_parquet = tmp_path / "w_r2.parquet"
    named_parquet.write_bytes(text.read_bytes())
    assert read_trace(named_parquet)["value"].tolist() == [1.0, 2.0, 3.0, 4.0]
    m = write_measurements(example_measurements("branch"), tmp_path / "m.parquet")
    named = tmp_path / "m.csv"
    named.write_bytes(m.read_bytes())
    pd.testing.assert_frame_equal(read_measurements(named), read_measurements(m))


def test_duplicate_header_is_refused_once_for_every_table(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,a\n1,2,3\n")
    with pytest.raises(InputError, match=r"d.csv: column 'a' appears twice"):
        read_table(path)


@pytest.mark.parametrize("name", ["t.xlsx", "t.JSON", "t.tsv", "t.feather", "t.db"])
def test_a_table_named_for_another_format_is_refused_and_not_written(tmp_path, name):
    """hemkit wrote CSV text into t.xlsx, which no spreadsheet opens: refused, naming the file and the fix."""
    from hemkit.core.errors import OutputError

    with pytest.raises(
        OutputError, match=r"hemkit writes tables as CSV or Parquet, not \.\w+; name it \.csv or \.parquet"
    ):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / name)
    assert list(tmp_path.iterdir()) == []
    # CSV under any other name, Parquet by suffix; not t.csv.gz (plain CSV under a gzip name: see test_compressed)
    for ok in ("t.csv", "t.txt", "t", "t.pq"):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / ok)
        assert read_table(tmp_path / ok)["a"].tolist() == [1]


@pytest.mark.parametrize("name", ["r.pdf", "r.PNG", "r.svg", "r.csv", "r.parquet", "r.json", "r.xlsx"])
def test_a_report_named_for_another_format_is_refused(name):
    """hemkit report -o r.pdf wrote HTML text into r.pdf, which no PDF reader opens."""
    from hemkit.core.errors import OutputError
    from hemkit.io.formats import check_page_name

    with pytest.raises(OutputError, match=rf"report {re.escape(name)}: hemkit writes a report as one HTML page"):
        check_page_name(name)
    for ok in ("r.html", "r.HTM", "report", "r.txt"):
        check_page_name(ok)


@pytest.mark.parametrize("name", ["t.csv", "t.parquet"])
def test_a_tidy_table_given_pmcs_is_read_as_tidy_with_a_warning(tmp_path, name):
    """pmcs read a tidy table as a mergingTools raw file: 'event 'event' has a non-numeric value 'a' in run 1'.

    A tidy table names its groups as a database or perf stat files do: pmcs is ignored with a warning there too.
    """
    from hemkit.core.errors import HemkitWarning

    path = write_table(TIDY, tmp_path / name)
    with pytest.warns(HemkitWarning, match=rf"pmcs ignored: {re.escape(str(path))} is a tidy table"):
        got = read_readings(path, pmcs=2)
    want = read_readings(path)
    assert got.events == want.events and got[1].equals(want[1])


def test_a_tidy_table_given_pmcs_on_the_command_line(tmp_path, cli):
    path = write_table(TIDY, tmp_path / "t.csv")
    res = cli(["export", path, "--pmcs", "2", "-o", tmp_path / "out.csv"])
    assert res.exit_code == 0, res.stderr
    # the option the user gave, not the library's parameter (it said 'pmcs ignored')
    assert res.stderr.startswith(f"hemkit: warning: --pmcs 2 ignored: {path} is a tidy table"), res.stderr
    assert pd.read_csv(tmp_path / "out.csv").equals(pd.read_csv(path))
