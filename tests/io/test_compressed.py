"""Compressed inputs: every reader takes gzip, bzip2 and xz files (told by content) as the file they hold.

hemkit's own benchmark truth tables are ``.csv.gz``, and perf outputs and tables are often kept
compressed; pandas and pyperf read such files transparently.  Every reader of hemkit opens its
input text files through :func:`hemkit.io.formats.open_input`, so a compressed file gives the
same result as the file it holds; a compressed database, Parquet or perf.data file is refused
saying how to decompress it; a damaged compressed file is one :class:`InputError` naming it.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
import sqlite3
import warnings
from pathlib import Path

import pandas as pd
import pytest

from hemkit.core.errors import HemkitWarning, InputError, OutputError
from hemkit.datasets import t2080_path
from hemkit.io import read_readings, read_table, sniff, write_table
from hemkit.io.atomic import check_output
from hemkit.io.derive import read_text_file
from hemkit.io.evaluation import read_reference_file
from hemkit.io.event_tables import read_event_tables
from hemkit.io.mergingtools import read_code_names
from hemkit.io.perf_files import read_perf_file
from hemkit.io.perf_script import read_perf_script
from hemkit.io.planfile import read_plan_file, write_plan_file
from hemkit.io.traces import read_trace

DATA = Path(__file__).parent / "data"
MPX = Path(__file__).parents[1] / "mpx" / "data"
SAMPLING = Path(__file__).parents[1] / "sampling" / "data"
TRUTH = Path(__file__).parents[2] / "benchmarks" / "data" / "truth" / "fresh17" / "corelist.csv.gz"

KINDS = {"gzip": (gzip.compress, ".gz"), "bzip2": (bz2.compress, ".bz2"), "xz": (lzma.compress, ".xz")}


def packed(src: Path, folder: Path, kind: str, name: str | None = None) -> Path:
    """``src`` compressed with ``kind`` into ``folder``, named ``src.name + .gz`` (or ``name``)."""
    squeeze, suffix = KINDS[kind]
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / (name or src.name + suffix)
    out.write_bytes(squeeze(src.read_bytes()))
    return out


def packed_folder(src: Path, folder: Path, kind: str) -> Path:
    for f in sorted(src.iterdir()):
        packed(f, folder, kind)
    return folder


def same_readings(a, b) -> None:
    pd.testing.assert_frame_equal(a.to_tidy(), b.to_tidy())


kinds = pytest.mark.parametrize("kind", list(KINDS))


# ------------------------------------------------------------------ each reader, each compression
@kinds
def test_a_perf_stat_csv_file(tmp_path, kind):
    src = DATA / "perf" / "software.csv"
    p = packed(src, tmp_path, kind)
    assert sniff(p) == sniff(src) == "perf-csv"
    assert read_perf_file(p) == [r.__class__(**{**r.__dict__, "path": p}) for r in read_perf_file(src)]


@kinds
def test_a_perf_stat_json_file(tmp_path, kind):
    src = DATA / "perf" / "software.json"
    p = packed(src, tmp_path, kind)
    assert sniff(p) == "perf-json"
    assert [r.values for r in read_perf_file(p)] == [r.values for r in read_perf_file(src)]


@kinds
@pytest.mark.parametrize("folder", ["runs_csv", "runs_json"])
def test_a_folder_of_compressed_perf_files_reads_as_the_folder(tmp_path, kind, folder):
    got = read_readings(packed_folder(DATA / folder, tmp_path / folder, kind))
    same_readings(got, read_readings(DATA / folder))  # run ids too: run_01.csv.gz is run 'run_01'


@kinds
def test_a_tidy_table(tmp_path, kind):
    plain = tmp_path / "tidy.csv"
    read_readings(t2080_path("much_raw.csv"), pmcs=6).to_tidy().to_csv(plain, index=False)
    same_readings(read_readings(packed(plain, tmp_path, kind)), read_readings(plain))
    pd.testing.assert_frame_equal(read_table(packed(plain, tmp_path, kind)), read_table(plain))


@kinds
def test_a_mergingtools_raw_table_and_its_code_names(tmp_path, kind):
    raw, codes = t2080_path("much_raw.csv"), t2080_path("code2name.csv")
    got = read_readings(packed(raw, tmp_path, kind), pmcs=6, codes=packed(codes, tmp_path, kind))
    same_readings(got, read_readings(raw, pmcs=6, codes=codes))
    assert read_code_names(packed(codes, tmp_path, kind)) == read_code_names(codes)


@kinds
def test_an_ocoe_trace_file_and_a_folder_of_them(tmp_path, kind):
    src = MPX / "ocoe_interval.csv"
    pd.testing.assert_frame_equal(read_trace(packed(src, tmp_path, kind), workload="w"), read_trace(src, workload="w"))
    plain = tmp_path / "plain"
    plain.mkdir()
    for f in sorted(MPX.glob("zen5_phases_r*.csv")):
        shutil.copy(f, plain)
    folder = tmp_path / "packed"
    for f in sorted(plain.iterdir()):
        packed(f, folder, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)  # wrap-arounds repaired: the same in both
        got, want = read_trace(folder), read_trace(plain)
    pd.testing.assert_frame_equal(got, want)  # runs zen5_phases_r1..., workload zen5_phases
    assert sorted(got["workload"].unique()) == ["zen5_phases"]


@kinds
def test_a_truth_table_long_and_wide(tmp_path, kind):
    plain = tmp_path / "truth.csv"
    plain.write_bytes(gzip.decompress(TRUTH.read_bytes()))
    long = read_reference_file(packed(plain, tmp_path, kind))
    pd.testing.assert_frame_equal(long, read_reference_file(plain))
    assert long.shape == (300, 10) and long.index.name == "run"
    wide = tmp_path / "wide.csv"
    long.reset_index().to_csv(wide, index=False)
    pd.testing.assert_frame_equal(read_reference_file(packed(wide, tmp_path, kind)), long)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("run,event,value\n0,a,1\n0,b,2\n0,a,2\n", "run 0 has event 'a' twice"),
        ("run,event,value\n0,a,1\n0,b,2\n1,a,2\n", "run 1 has no row for event 'b'"),
    ],
)
def test_a_long_truth_table_with_a_cell_twice_or_missing_is_refused(tmp_path, text, says, one_line):
    p = tmp_path / "t.csv"
    p.write_text(text)
    with pytest.raises(InputError) as err:
        read_reference_file(p)
    one_line(err, InputError, p, says)


def test_the_benchmark_truth_table_as_stored():
    table = read_reference_file(TRUTH)
    assert table.shape == (300, 10) and list(table.index[:3]) == [0, 1, 2]


@kinds
@pytest.mark.parametrize("name", ["plan.toml", "plan.json"])
def test_a_plan_file(tmp_path, kind, name):
    plain = write_plan_file(tmp_path / name, {"pmcs": 2, "groups": [["a", "b"], ["a", "c"]]}, header="a plan")
    assert read_plan_file(packed(plain, tmp_path / "z", kind)) == read_plan_file(plain)


@kinds
def test_text_files_of_derive_event_tables_and_perf_script(tmp_path, kind):
    events = tmp_path / "events.json"
    events.write_text('[{"EventName": "INST_RETIRED.ANY", "Counter": "Fixed counter 0"}]')
    assert len(read_event_tables([packed(events, tmp_path, kind)])) == 1
    assert read_text_file(packed(events, tmp_path, kind), "event list") == events.read_text()
    script = SAMPLING / "libc_kernel.script.txt"
    pd.testing.assert_frame_equal(
        read_perf_script(packed(script, tmp_path, kind)), read_perf_script(script), check_like=True
    )


# ------------------------------------------------------------------ content, not names
def test_compression_is_told_by_content_not_by_name(tmp_path):
    from hemkit.io.formats import compression, open_input

    src = DATA / "perf" / "software.csv"
    hidden = packed(src, tmp_path, "gzip", name="run.csv")  # gzip bytes under a plain name
    plain_named_gz = tmp_path / "plain.csv.gz"  # plain text under a .gz name
    shutil.copy(src, plain_named_gz)
    assert sniff(hidden) == sniff(plain_named_gz) == "perf-csv"
    assert [r.values for r in read_perf_file(hidden)] == [r.values for r in read_perf_file(plain_named_gz)]
    assert compression(hidden) == "gzip" and compression(plain_named_gz) is None
    with open_input(hidden, "r", encoding="utf-8") as fh:
        assert fh.read() == src.read_text()
    bzh = tmp_path / "bzh.csv"  # text that starts as bzip2 does is text
    bzh.write_text("BZh9,b\n1,2\n")
    assert compression(bzh) is None and read_table(bzh).columns.tolist() == ["BZh9", "b"]


# ------------------------------------------------------------------ what cannot be read compressed
@kinds
def test_a_compressed_database_or_parquet_file_is_refused_with_how_to_decompress_it(tmp_path, kind, one_line):
    db = tmp_path / "c.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (x)")
    con.close()
    pq = write_table(pd.DataFrame({"group": [1], "run": [0], "event": ["a"], "value": [1.0]}), tmp_path / "t.parquet")
    tool = {"gzip": "gunzip", "bzip2": "bunzip2", "xz": "unxz"}[kind]
    for src, what in ((db, "an SQLite database"), (pq, "a Parquet file")):
        p = packed(src, tmp_path, kind)
        for read in (sniff, read_readings, read_table, read_trace):
            with pytest.raises(InputError) as err:
                read(p)
            one_line(err, InputError, p, what, f"{kind}-compressed", f"{tool} -k {p}")


def test_a_compressed_perf_data_file_is_refused_with_how_to_decompress_it(tmp_path, one_line):
    p = tmp_path / "perf.data.gz"
    p.write_bytes(gzip.compress(b"PERFILE2" + bytes(200)))
    with pytest.raises(InputError) as err:
        read_perf_script(p)
    one_line(err, InputError, p, "a perf.data file", "gunzip -k")


# ------------------------------------------------------------------ damaged compressed files
def _damaged(tmp_path: Path) -> dict[str, Path]:
    text = (DATA / "perf" / "software.csv").read_bytes() * 50
    out = {}
    for kind, (squeeze, suffix) in KINDS.items():
        whole = squeeze(text)
        cut = tmp_path / f"cut{suffix}"
        cut.write_bytes(whole[: len(whole) // 2])
        bad = tmp_path / f"bad{suffix}"
        bad.write_bytes(whole[:12] + bytes(len(whole) - 24) + whole[-12:])
        out[f"{kind}-cut"], out[f"{kind}-bad"] = cut, bad
    tiny = tmp_path / "tiny.gz"
    tiny.write_bytes(b"\x1f\x8b\x08")
    out["gzip-tiny"] = tiny
    return out


@pytest.mark.parametrize(
    "reader",
    [sniff, read_readings, read_table, read_trace, read_plan_file, lambda p: read_text_file(p, "event list")],
    ids=["sniff", "read_readings", "read_table", "read_trace", "read_plan_file", "read_text_file"],
)
def test_a_damaged_compressed_file_is_one_input_error_naming_it(tmp_path, reader, one_line):
    for case, p in _damaged(tmp_path).items():
        kind = case.split("-")[0]
        with pytest.raises(InputError) as err:
            reader(p)
        msg = one_line(err, InputError, p, kind)
        assert "cut short" in msg or "not a valid" in msg, (case, msg)


def test_a_damaged_compressed_head_is_refused_when_sniffed(tmp_path, one_line):
    from hemkit.io.formats import read_head

    p = tmp_path / "x.csv.gz"
    p.write_bytes(b"\x1f\x8b\x08\x00" + b"garbage" * 10)
    with pytest.raises(InputError) as err:
        read_head(p, 100)
    assert one_line(err, InputError, p).startswith(f"{p}: not a valid gzip file (")


# ------------------------------------------------------------------ outputs stay plain
@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".GZ"])
def test_an_output_named_for_a_compression_is_refused_not_written_plain(tmp_path, suffix):
    target = tmp_path / f"out.csv{suffix}"
    with pytest.raises(OutputError, match=r"writes files uncompressed.*write .*out\.csv and compress it"):
        write_table(pd.DataFrame({"a": [1]}), target)
    with pytest.raises(OutputError, match="uncompressed"):
        check_output(tmp_path / f"plan.toml{suffix}")
    with pytest.raises(OutputError, match="uncompressed"):
        write_plan_file(tmp_path / f"plan.toml{suffix}", {"groups": [["a"]]})
    assert not list(tmp_path.iterdir())
