"""Property tests (issue 11 point 2): readers raise only InputError, or return valid Readings.

Arbitrary bytes under every suffix, mutations of real perf output, Parquet and SQLite files,
and two model-based properties: generated perf stat folders and tidy tables either come
back with exactly the numbers written, or are refused with one InputError line.
"""

import io
import json
import os
import shutil
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hemkit.core.errors import InputError
from hemkit.core.readings import Readings
from hemkit.io import parse_perf_stat, read_code_names, read_readings
from hemkit.io.collection import CollectionDB, StoredRun, WriterLock
from hemkit.io.mergingtools import from_mergingtools
from hemkit.io.perf_stat import scan_perf_stat

DATA = Path(__file__).parent / "data"
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SUFFIXES = [".csv", ".parquet", ".json", ".db", ".txt", ""]
PREFIXES = [
    b"",
    b"SQLite format 3\x00",
    b"PAR1",
    b"# started on Mon Nov 23 15:52:13 2026\n\n",
    b"group,run,event,value\n",
    b"\xef\xbb\xbf",
    b'{"counter-value" : "',
    b"X1,X2,X3,X4\n",
    b"hems,code\n",
]


@contextmanager
def scratch():
    d = tempfile.mkdtemp(prefix="hemkit-prop-")
    try:
        yield Path(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def outcome(fn):
    """``fn()``'s Readings, or None after a proper InputError; anything else fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn()
        except InputError as exc:
            msg = str(exc)
            assert msg and "\n" not in msg, repr(msg)
            return None
    return result


def _tidy_parquet() -> bytes:
    buf = io.BytesIO()
    t = pd.DataFrame(
        {"group": [1] * 6, "run": [1, 1, 2, 2, 3, 3], "event": ["a", "b"] * 3, "value": [1, 5, 2, 4, 3, 9]}
    )
    t.to_parquet(buf, index=False)
    return buf.getvalue()


def _collection_db() -> bytes:
    with scratch() as d:
        with (
            WriterLock(d / "c.db") as lock,
            CollectionDB.create(d / "c.db", [["a", "b"]], {"runs": 3}, lock=lock) as db,
        ):
            for rep in range(3):
                counts = pd.DataFrame({"event": ["a", "b"], "value": [1.0 + rep, 9.0 - rep * rep]})
                db.record_run(StoredRun(0, rep), counts.assign(percent=100.0, run_time_ns=1.0, status="ok"))
        return (d / "c.db").read_bytes()


PARQUET = _tidy_parquet()
DATABASE = _collection_db()
PERF_FILES = sorted((DATA / "perf").iterdir()) + sorted((DATA / "runs_csv").iterdir())[:3]


def mutate(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for pos, cut, insert in edits:
        pos = pos % (len(out) + 1)
        out[pos : pos + cut] = insert
    return bytes(out)


EDITS = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 40), st.binary(max_size=12)), min_size=1, max_size=4)


# ------------------------------------------------------------------ arbitrary bytes
@SETTINGS
@given(prefix=st.sampled_from(PREFIXES), body=st.binary(max_size=3000), suffix=st.sampled_from(SUFFIXES))
def test_read_readings_on_arbitrary_bytes(prefix, body, suffix):
    with scratch() as d:
        p = d / f"input{suffix}"
        p.write_bytes(prefix + body)
        r = outcome(lambda: read_readings(p))
        assert r is None or isinstance(r, Readings)
        assert sorted(os.listdir(d)) == [p.name]  # reading wrote nothing beside the input


@SETTINGS
@given(body=st.binary(max_size=2000), pmcs=st.integers(1, 4), suffix=st.sampled_from([".csv", ".parquet", ""]))
def test_mergingtools_and_code_names_on_arbitrary_bytes(body, pmcs, suffix):
    with scratch() as d:
        p = d / f"raw{suffix}"
        p.write_bytes(b"X1,X2,X3,X4\n" + body)
        outcome(lambda: from_mergingtools(p, pmcs))
        outcome(lambda: read_readings(p, pmcs=pmcs))
        q = d / "codes.csv"
        q.write_bytes(b"hems,code\n" + body)
        with warnings.catch_warnings():
            try:
                names = read_code_names(q)
                assert all(isinstance(k, int) and isinstance(v, str) and v.strip() for k, v in names.items())
            except InputError as exc:
                assert "\n" not in str(exc)


@SETTINGS
@given(text=st.text(max_size=2000))
def test_parse_perf_stat_on_arbitrary_text(text):
    try:
        t = parse_perf_stat(text)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    assert list(t.columns[:7]) == ["t", "event", "value", "unit", "run_time_ns", "percent", "status"]
    assert set(t["status"]) <= {"ok", "not counted", "not supported"}
    try:
        scan_perf_stat(text, source="x")
    except InputError as exc:
        assert "\n" not in str(exc)


@SETTINGS
@given(
    lines=st.lists(
        st.lists(
            st.sampled_from(["1", "0.5", "", "msec", "cycles", "<not counted>", "100.00", "S0", "CPU1", "7%"])
            | st.text(max_size=8),
            max_size=9,
        ),
        max_size=8,
    ),
    sep=st.sampled_from([",", ";", "\t", " "]),
)
def test_parse_perf_stat_on_perf_like_text(lines, sep):
    text = "\n".join(sep.join(f) for f in lines)
    try:
        parse_perf_stat(text)
    except InputError as exc:
        assert "\n" not in str(exc)


# ------------------------------------------------------------------ mutations of real files
@SETTINGS
@given(source=st.sampled_from(PERF_FILES), edits=EDITS, suffix=st.sampled_from([".csv", ".json", ".txt"]))
def test_mutated_perf_output(source, edits, suffix):
    with scratch() as d:
        runs = d / "runs"
        shutil.copytree(DATA / "runs_csv", runs)
        (runs / f"zz_mutant{suffix}").write_bytes(mutate(source.read_bytes(), edits))
        r = outcome(lambda: read_readings(runs))
        if r is not None:  # the good files' numbers are untouched
            clean = read_readings(DATA / "runs_csv")
            assert r[1].loc["run_01"].to_dict() == clean[1].loc["run_01"].to_dict()
        outcome(lambda: read_readings(runs / f"zz_mutant{suffix}"))


@SETTINGS
@given(edits=EDITS, suffix=st.sampled_from([".parquet", ".csv"]))
def test_mutated_parquet(edits, suffix):
    with scratch() as d:
        p = d / f"t{suffix}"
        p.write_bytes(mutate(PARQUET, edits))
        outcome(lambda: read_readings(p))


@SETTINGS
@given(edits=EDITS, cut=st.integers(0, len(DATABASE)))
def test_mutated_or_truncated_database(edits, cut):
    with scratch() as d:
        p = d / "c.db"
        p.write_bytes(mutate(DATABASE, edits)[: max(cut, 16)])
        outcome(lambda: read_readings(p))


def test_the_clean_database_reads():
    with scratch() as d:
        (d / "c.db").write_bytes(DATABASE)
        assert read_readings(d / "c.db")[0]["b"].tolist() == [9.0, 8.0, 5.0]


# ------------------------------------------------------------------ model-based: the numbers written come back
EVENTS = ["task-clock", "page-faults", "syscalls:sys_enter_read", "software/config=2,period=1/", "r00c0"]


@st.composite
def perf_folders(draw):
    """Runs of up to 3 event groups, sometimes with one untrusted reading (wrap-around, multiplexed)."""
    groups = draw(st.lists(st.frozensets(st.sampled_from(EVENTS), min_size=1), min_size=1, max_size=3, unique=True))
    runs = []
    for g in groups:
        order = draw(st.permutations(sorted(g)))
        for _ in range(draw(st.integers(2, 5))):
            runs.append([[e, draw(st.integers(0, 10**12)), 100.0] for e in order])
    bad = draw(st.sampled_from([None] * 6 + ["wrap", "wrap48", "mpx", "edge"]))
    run = draw(st.sampled_from(runs))
    cell = run[draw(st.integers(0, len(run) - 1))]
    if bad == "wrap":
        cell[1] = 2**47 + cell[1] % 10000
    elif bad == "wrap48":
        cell[1] = 2**48 + 5
    elif bad == "mpx":
        cell[2] = draw(st.sampled_from([99.99, 62.5, 0.0]))
    elif bad == "edge":
        cell[1] = 2**47 - 1  # the largest count still trusted
    return [[tuple(c) for c in r] for r in runs], draw(st.sampled_from(["csv", "json"]))


def write_run(path, run, fmt):
    lines = ["# started on Mon Nov 23 15:52:13 2026", ""]
    for event, value, pct in run:
        if fmt == "csv":
            lines.append(f"{value},,{event},1000,{pct:.2f},,")
        else:
            obj = {"counter-value": f"{value}.000000", "unit": "", "event": event, "event-runtime": 1000}
            lines.append(json.dumps({**obj, "pcnt-running": pct, "metric-value": 0.0, "metric-unit": ""}))
    path.write_text("\n".join(lines) + "\n")


@SETTINGS
@given(folder=perf_folders())
def test_perf_folder_model(folder):
    runs, fmt = folder
    with scratch() as d:
        for i, run in enumerate(runs):
            write_run(d / f"run_{i}.{fmt}", run, fmt)
        r = outcome(lambda: read_readings(d))
    untrusted = any(v >= 2**47 or pct < 100 for run in runs for _, v, pct in run)
    sizes: dict = {}
    for run in runs:
        sizes.setdefault(frozenset(e for e, _, _ in run), []).append(run)
    # an event constant in a group is data since issue 22: it does not make the folder invalid;
    # two files alike in every line (running times too: all 1000 here) are one run copied, refused
    copied = len({tuple(run) for run in runs}) < len(runs)
    valid = not untrusted and not copied and all(len(m) >= 3 for m in sizes.values())
    assert (r is not None) == valid
    if r is not None:
        for i, run in enumerate(runs):
            gid = list(sizes).index(frozenset(e for e, _, _ in run)) + 1
            assert {e: r[gid].loc[f"run_{i}", e] for e, _, _ in run} == {e: float(v) for e, v, _ in run}


@st.composite
def tidy_rows(draw):
    """A tidy table of up to 3 groups, sometimes with one bad row (NaN, inf, negative, missing, twice)."""
    rows = []
    for g in range(1, draw(st.integers(1, 3)) + 1):
        events = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True))
        for run in range(draw(st.integers(2, 6))):
            rows += [[g, run, e, draw(st.integers(0, 2**53))] for e in events]
    bad = draw(st.sampled_from([None] * 5 + ["nan", "inf", "neg", "drop", "twice", "huge"]))
    i = draw(st.integers(0, len(rows) - 1))
    if bad == "drop":
        del rows[i]
    elif bad == "twice":
        rows.append(list(rows[i]))
    elif bad is not None:
        rows[i][3] = {"nan": float("nan"), "inf": float("inf"), "neg": -1, "huge": 1e308}[bad]
    return [tuple(r) for r in rows]


def tidy_valid(table: pd.DataFrame) -> bool:
    """The model: what a tidy table must be to give Readings."""
    v = table["value"].astype(float)
    if not np.isfinite(v).all() or (v < 0).any() or table.duplicated(["group", "run", "event"]).any():
        return False
    for _, g in table.groupby("group"):
        wide = g.pivot(index="run", columns="event", values="value")
        if wide.isna().to_numpy().any() or len(wide) < 3:  # an event constant in a group is data (issue 22)
            return False
    return len(table) > 0


@SETTINGS
@given(rows=tidy_rows(), suffix=st.sampled_from([".csv", ".parquet"]))
def test_tidy_table_model(rows, suffix):
    table = pd.DataFrame(rows, columns=["group", "run", "event", "value"])
    with scratch() as d:
        p = d / f"t{suffix}"
        if suffix == ".csv":
            table.to_csv(p, index=False)
        else:
            table.astype({"value": float}).to_parquet(p, index=False)
        r = outcome(lambda: read_readings(p))
    assert (r is not None) == tidy_valid(table)
    if r is None:
        return
    back = r.to_tidy().set_index(["group", "run", "event"])["value"]
    assert len(back) == len(table)
    for g, run, e, v in rows:
        assert back.loc[(g, run, e)] == float(v) and np.isfinite(back.loc[(g, run, e)])


@pytest.mark.parametrize("n", [0, 1, 2])
def test_perf_folder_model_small_cases_are_refused(tmp_path, n):
    for i in range(n):
        write_run(tmp_path / f"run_{i}.csv", [("task-clock", i + 1, 100.0)], "csv")
    with pytest.raises(InputError):
        read_readings(tmp_path)
