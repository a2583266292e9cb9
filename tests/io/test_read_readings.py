"""read_readings: detection by content, and one InputError (never anything else) for bad input."""

import hashlib
import os
import shutil
import sqlite3
import stat
import tempfile
import warnings
from contextlib import closing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.datasets import t2080_hrm, t2080_path
from hemkit.io import read_code_names, read_readings, read_table, read_tidy, sniff, write_table
from hemkit.io.collection import CollectionDB, StoredRun, WriterLock
from hemkit.io.mergingtools import from_mergingtools

DATA = Path(__file__).parent / "data"
TIDY = "group,run,event,value\n" + "".join(f"1,{r},a,{r + 1}\n1,{r},b,{(2 * r) % 3}\n" for r in range(4))


def sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def written(path, content: bytes):
    path.write_bytes(content)
    return path


@pytest.fixture
def refused(one_line):
    """``refused(exc_info, *parts)``: one InputError line naming every part."""
    return lambda exc_info, *parts: one_line(exc_info, InputError, *parts)


# ------------------------------------------------------------------ detection by content
def test_tidy_csv_whatever_the_name(tmp_path):
    for name in ("r.txt", "r.json", "r.parquet", "r"):
        (tmp_path / name).write_text(TIDY)
        assert sniff(tmp_path / name) == "csv"
        assert read_readings(tmp_path / name).events == ["a", "b"]


def test_parquet_whatever_the_name(tmp_path):
    r = t2080_hrm()
    write_table(r.to_tidy(), tmp_path / "r.parquet")
    os.rename(tmp_path / "r.parquet", tmp_path / "r.csv")
    assert sniff(tmp_path / "r.csv") == "parquet"
    back = read_readings(tmp_path / "r.csv")
    np.testing.assert_array_equal(back[2].to_numpy(), r[2].to_numpy())


def test_collection_database_whatever_the_name(tmp_path):
    path = tmp_path / "c.bin"
    with WriterLock(path) as lock, CollectionDB.create(path, [["a", "b"]], {"runs": 3}, lock=lock) as db:
        for rep in range(3):
            counts = pd.DataFrame(
                {"event": ["a", "b"], "value": [1.0 + rep, 5.0 - rep * rep], "percent": 100.0, "run_time_ns": 1.0}
            ).assign(status="ok")
            db.record_run(StoredRun(0, rep), counts)
    assert sniff(tmp_path / "c.bin") == "database"
    r = read_readings(tmp_path / "c.bin")
    assert r[0]["b"].tolist() == [5.0, 4.0, 1.0]


def test_foreign_sqlite_refused_and_untouched(tmp_path, refused):
    p = tmp_path / "other.db"
    with sqlite3.connect(p) as con:
        con.execute("CREATE TABLE t (x)")
        con.execute("INSERT INTO t VALUES (1)")
    con.close()
    before = sha(p)
    with pytest.raises(InputError) as e:
        read_readings(p)
    refused(e, "other.db", "not a hemkit collection")
    assert sha(p) == before and sorted(os.listdir(tmp_path)) == ["other.db"]


def test_truncated_sqlite(tmp_path, refused):
    p = tmp_path / "c.db"
    p.write_bytes(b"SQLite format 3\x00" + os.urandom(200))
    with pytest.raises(InputError) as e:
        read_readings(p)
    refused(e, "c.db")


def test_mergingtools_with_pmcs(tmp_path, refused):
    shutil.copy(t2080_path("hrm_raw.csv"), tmp_path / "raw.txt")
    shutil.copy(t2080_path("code2name.csv"), tmp_path / "codes.txt")
    r = read_readings(tmp_path / "raw.txt", pmcs=6, codes=tmp_path / "codes.txt")
    assert r.events[0] == "PROCESSOR_CYCLES" and len(r) == 3
    with pytest.raises(InputError) as e:
        read_readings(tmp_path / "raw.txt")
    refused(e, "raw.txt", "give pmcs")
    with pytest.raises(InputError) as e:
        read_readings(tmp_path / "raw.txt", pmcs=0)
    refused(e, "pmcs must be an integer of at least 1, got 0")


def test_perf_files_whatever_the_names(tmp_path):
    for i, f in enumerate(sorted((DATA / "runs_json").iterdir())):
        shutil.copy(f, tmp_path / f"run_{i}.csv" if i % 2 else tmp_path / f"run_{i}")
    assert {sniff(p) for p in tmp_path.iterdir()} == {"perf-json"}
    assert read_readings(tmp_path).n_runs.tolist() == [8, 8, 8]
    assert sniff(DATA / "runs_csv" / "run_01.csv") == "perf-csv" and sniff(DATA / "runs_csv") == "folder"


@pytest.mark.parametrize(
    ("content", "parts"),
    [
        (b"", ["is empty", "hemkit reads"]),
        (b"hello world\nthis is not data\n", ["not a readings file", "hemkit reads", "perf stat"]),
        (bytes(range(256)) * 4, ["binary data", "hemkit reads"]),
        (b"\x89PNG\r\n\x1a\n" + os.urandom(100), ["binary data"]),
        (b"a,b\n1,2\n", ["not a readings file (no columns group, run, event, value)"]),
    ],
)
def test_unrecognised_lists_what_is_read(tmp_path, content, parts, refused):
    with pytest.raises(InputError) as e:
        read_readings(written(tmp_path / "x.csv", content))
    refused(e, "x.csv", *parts)


def test_several_files_must_be_perf_runs(tmp_path, refused):
    (tmp_path / "a.csv").write_text(TIDY)
    (tmp_path / "b.csv").write_text(TIDY)
    with pytest.raises(InputError) as e:
        read_readings([tmp_path / "a.csv", tmp_path / "b.csv"])
    refused(e, "a.csv", "is not perf stat output")


def test_bad_sources(refused):
    for bad in ([], 3, b"x.csv", [None], [""]):
        with pytest.raises(InputError):
            read_readings(bad)
    with pytest.raises(InputError) as e:
        read_readings("/nonexistent/x.csv")
    refused(e, "/nonexistent/x.csv", "no such file")
    with pytest.raises(InputError) as e:
        read_readings("x\0y.csv")
    refused(e, "cannot be read")
    with pytest.raises(InputError):
        read_readings(DATA / "runs_csv", min_runs=0)


# ------------------------------------------------------------------ the classes of bad bytes (issue 11)
def test_csv_with_a_bom_reads(tmp_path):
    p = tmp_path / "bom.csv"
    p.write_bytes(b"\xef\xbb\xbf" + TIDY.encode())
    assert read_readings(p).events == ["a", "b"]
    q = tmp_path / "bom_perf.csv"
    q.write_bytes(b"\xef\xbb\xbf" + (DATA / "runs_csv" / "run_01.csv").read_bytes())
    assert sniff(q) == "perf-csv"


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("group,run,event,value,value\n1,1,a,1,2\n", ["column 'value' appears twice"]),
        (TIDY + "1,0,a,7\n", ["event 'a' is read twice in run 0 of group 1"]),
        (TIDY.replace("1,2,a,3", "1,2,a,1e400"), ["event 'a' has an infinite value in run 2"]),
        (TIDY.replace("1,2,a,3", "1,2,a,inf"), ["infinite value"]),
        (TIDY.replace("1,2,a,3", "1,2,a,-3"), ["negative count -3 in run 2"]),
        (TIDY.replace("1,2,a,3", "1,2,a,NaN"), ["event 'a' has NaN in run 2"]),
        (TIDY.replace("1,2,a,3", "1,2,a,"), ["event 'a' has NaN in run 2"]),
        (TIDY.replace("1,2,a,3", "1,2,a,12abc"), ["non-numeric value '12abc'"]),
        ("group,run,event,value\n", ["has no rows"]),
        ('group,run,event,value\n1,1,"a\n', ["cannot be read as CSV"]),
    ],
)
def test_bad_tidy_tables(tmp_path, text, parts, refused):
    with pytest.raises(InputError) as e:
        read_readings(written(tmp_path / "t.csv", text.encode()))
    refused(e, "t.csv", *parts)


def test_huge_but_finite_numbers_are_kept_exactly(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(TIDY.replace("1,2,a,3", "1,2,a,1e300"))
    assert read_readings(p)[1].loc[2, "a"] == 1e300


def test_non_utf8(tmp_path, refused):
    p = tmp_path / "t.csv"
    p.write_bytes(TIDY.replace("a,", "\xe9v,").encode("latin-1"))
    with pytest.raises(InputError) as e:
        read_readings(p)
    refused(e, "t.csv", "not UTF-8")
    for fn in (read_table, read_code_names, lambda q: from_mergingtools(q, 2)):
        with pytest.raises(InputError):
            fn(p)


def test_truncated_and_odd_parquet(tmp_path, refused):
    good = write_table(t2080_hrm().to_tidy(), tmp_path / "good.parquet")
    data = good.read_bytes()
    for cut in (4, 100, len(data) // 2, len(data) - 1):
        bad = tmp_path / f"cut{cut}.parquet"
        bad.write_bytes(data[:cut])
        with pytest.raises(InputError) as e:
            read_readings(bad)
        refused(e, bad.name)
    nested = tmp_path / "nested.parquet"
    pd.DataFrame({"group": [1, 1, 1], "run": [1, 2, 3], "event": ["a"] * 3, "value": [[1], [2], [3]]}).to_parquet(
        nested
    )
    with pytest.raises(InputError) as e:
        read_readings(nested)
    refused(e, "nested.parquet", "column 'value' holds a")
    with pytest.raises(InputError):
        read_tidy(nested)


def test_a_folder_given_as_a_file(tmp_path, refused):
    for fn in (read_table, read_code_names, read_tidy, lambda q: from_mergingtools(q, 2)):
        with pytest.raises(InputError) as e:
            fn(tmp_path)
        refused(e, str(tmp_path), "is a folder")
    with pytest.raises(InputError) as e:
        read_readings(tmp_path)  # a folder is read as perf runs: this one is empty
    refused(e, "no files in the folder")


def test_not_a_regular_file_never_hangs(tmp_path, refused):
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)  # opening it for reading would wait forever for a writer
    for fn in (read_readings, read_table, read_code_names):
        with pytest.raises(InputError) as e:
            fn(fifo)
        refused(e, "fifo.csv", "not a regular file")
    if os.path.exists("/dev/zero"):
        with pytest.raises(InputError):
            read_readings("/dev/zero")


def test_symlink_loop(tmp_path, refused):
    (tmp_path / "a.csv").symlink_to(tmp_path / "b.csv")
    (tmp_path / "b.csv").symlink_to(tmp_path / "a.csv")
    for fn in (read_readings, read_table):
        with pytest.raises(InputError) as e:
            fn(tmp_path / "a.csv")
        refused(e, "a.csv")


def run_as_nobody(fn):
    """Run ``fn()`` in a forked child that dropped root (root reads any file whatever its mode)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        out = "ok"
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            fn()
        except InputError as exc:
            out = f"InputError|{exc}"
        except BaseException as exc:  # noqa: BLE001 - report whatever escaped
            out = f"{type(exc).__name__}|{exc}"
        finally:
            os.write(w, out.encode()[:60000])
            os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode()


def test_no_read_permission():
    d = Path(tempfile.mkdtemp(prefix="hemkit-perm-"))
    try:
        os.chmod(d, 0o755)
        shutil.copytree(DATA / "runs_csv", d / "runs")
        os.chmod(d / "runs", 0o755)
        (d / "t.csv").write_text(TIDY)
        for p in [d / "t.csv", *(d / "runs").iterdir()]:
            os.chmod(p, 0)
        (d / "locked").mkdir()
        shutil.copy(DATA / "runs_csv" / "run_01.csv", d / "locked" / "r.csv")
        os.chmod(d / "locked", 0)
        cases = {
            "t.csv": lambda: read_readings(d / "t.csv"),
            "run_01.csv": lambda: read_readings(d / "runs"),
            "locked": lambda: read_readings(d / "locked"),
            "locked/r.csv": lambda: read_readings(d / "locked" / "r.csv"),
            "table t.csv": lambda: read_table(d / "t.csv"),
            "codes t.csv": lambda: read_code_names(d / "t.csv"),
        }
        for name, fn in cases.items():
            if os.geteuid() == 0:
                out = run_as_nobody(fn)
            else:
                try:
                    fn()
                    out = "ok"
                except InputError as exc:
                    out = f"InputError|{exc}"
            kind, _, msg = out.partition("|")
            assert kind == "InputError", (name, out)
            assert name.split()[-1] in msg and ("Permission denied" in msg or "cannot be" in msg), (name, msg)
    finally:
        for p in d.rglob("*"):
            os.chmod(p, stat.S_IRWXU)
        shutil.rmtree(d)


def test_code_table_errors(tmp_path, refused):
    p = tmp_path / "codes.csv"
    for text, part in [
        ("hems,code\nA,1\nB,x\n", "line 3: code 'x' is not an integer"),
        ("hems,code\nA,1\nB,1.5\n", "line 3: code 1.5 is not an integer"),
        ("hems,code\nA,1\n,2\n", "line 3: code 2 has no name"),
        ("hems,code\nA,1\nB,1\n", "line 3: code 1 is named twice ('A' and 'B')"),
        ("name,code\nA,1\n", "needs columns 'hems' and 'code'"),
    ]:
        p.write_text(text)
        with pytest.raises(InputError) as e:
            read_code_names(p)
        refused(e, "codes.csv", part)
    p.write_text("hems,code\nA,1\nA,1\nB,2\n")
    assert read_code_names(p) == {1: "A", 2: "B"}


def test_mergingtools_bad_layouts(tmp_path, refused):
    p = tmp_path / "raw.csv"
    p.write_text("X1,X2,X3\n1,2,3\n")
    with pytest.raises(InputError) as e:
        from_mergingtools(p, 2)
    refused(e, "raw.csv", "3 columns is not a multiple of 2")
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InputError):
            from_mergingtools(p, bad)
    p.write_text("X1,X1\n1,2\n")
    with pytest.raises(InputError) as e:
        from_mergingtools(p, 1)
    refused(e, "column 'X1' appears twice")


def test_live_database_reads_the_runs_stored_so_far(tmp_path):
    # a collector still holds the database (and its writer lock): the runs it committed are read
    path = tmp_path / "c.db"
    with WriterLock(path) as lock, CollectionDB.create(path, [["a", "b"]], {"runs": 5}, lock=lock) as db:
        for rep in range(3):
            counts = pd.DataFrame({"event": ["a", "b"], "value": [1.0 + rep, 5.0 - rep * rep]})
            db.record_run(StoredRun(0, rep), counts.assign(percent=100.0, run_time_ns=1.0, status="ok"))
        with pytest.warns(HemkitWarning, match=r"c\.db is an unfinished collection \(a group has 3 of its 5 runs\)"):
            assert read_readings(path)[0]["a"].tolist() == [1.0, 2.0, 3.0]
        db.record_run(StoredRun(0, 3), counts.assign(percent=100.0, run_time_ns=1.0, status="ok"))
        db.record_run(StoredRun(0, 4), counts.assign(percent=100.0, run_time_ns=1.0, status="ok"))
        with warnings.catch_warnings():  # all 5 runs: nothing to say
            warnings.simplefilter("error", HemkitWarning)
            assert len(read_readings(path)[0]) == 5
    assert sorted(os.listdir(tmp_path)) == ["c.db"]  # no journal, lock or temporary file left


def test_reading_a_database_leaves_no_files(tmp_path):
    p = tmp_path / "other.db"
    with closing(sqlite3.connect(p)) as con:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("CREATE TABLE t (x)")
    with pytest.raises(InputError):
        read_readings(p)
    assert sorted(os.listdir(tmp_path)) == ["other.db"]
