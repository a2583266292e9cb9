"""The command line reads gzip, bzip2 and xz inputs as the files they hold, and refuses what cannot work compressed.

``hemkit evaluate study --truth lsns.csv.gz`` used to say "binary data of no known kind":
hemkit's own benchmark truth tables are stored as ``.csv.gz``.
"""

from __future__ import annotations

import gzip
import lzma
import shutil
from pathlib import Path

import pandas as pd

from hemkit.datasets import t2080_path

ROOT = Path(__file__).parents[2]
TRUTH = ROOT / "benchmarks" / "data" / "truth" / "fresh17"
KERNEL_DB = ROOT / "tests" / "data" / "compare" / "kernel_a.db"


def test_evaluate_study_reads_a_benchmark_truth_table_as_stored(cli, tmp_path):
    stored = TRUTH / "corelist.csv.gz"
    plain = tmp_path / "corelist.csv"
    plain.write_bytes(gzip.decompress(stored.read_bytes()))
    args = ["evaluate", "study", "--splits", "1", "--reps", "1", "--methods", "much,joint", "-q"]
    res = cli([*args, "--truth", stored, "-o", tmp_path / "packed.csv"])
    assert res.exit_code == 0, res.stderr
    assert cli([*args, "--truth", plain, "-o", tmp_path / "plain.csv"]).exit_code == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "packed.csv"), pd.read_csv(tmp_path / "plain.csv"))


def test_merge_reads_a_gzipped_tidy_table_and_a_folder_of_xz_perf_files(cli, tmp_path):
    tidy = tmp_path / "tidy.csv"
    res = cli(["export", t2080_path("much_raw.csv"), "--pmcs", "6", "-o", tidy])
    assert res.exit_code == 0, res.stderr
    packed = tmp_path / "tidy.csv.gz"
    packed.write_bytes(gzip.compress(tidy.read_bytes()))
    for src, out in ((tidy, "plain.csv"), (packed, "packed.csv")):
        res = cli(["merge", src, "-q", "-o", tmp_path / out])
        assert res.exit_code == 0, res.stderr
    assert (tmp_path / "plain.csv").read_bytes() == (tmp_path / "packed.csv").read_bytes()

    runs = ROOT / "tests" / "io" / "data" / "runs_csv"
    folder = tmp_path / "runs"
    folder.mkdir()
    for f in sorted(runs.iterdir()):
        (folder / (f.name + ".xz")).write_bytes(lzma.compress(f.read_bytes()))
    for src, out in ((runs, "runs_plain.csv"), (folder, "runs_packed.csv")):
        res = cli(["merge", src, "-q", "-o", tmp_path / out])
        assert res.exit_code == 0, res.stderr
    assert (tmp_path / "runs_plain.csv").read_bytes() == (tmp_path / "runs_packed.csv").read_bytes()


def test_a_damaged_gzip_file_is_one_error_line_naming_it(bad_input, tmp_path):
    whole = gzip.compress(t2080_path("much_raw.csv").read_bytes())
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    line = bad_input(["merge", cut, "-q"], names=[cut, "gzip"], watch=[tmp_path])
    assert "cut short" in line
    bad = tmp_path / "bad.csv.gz"
    bad.write_bytes(whole[:10] + bytes(200) + whole[210:])
    bad_input(["merge", bad, "-q"], names=[bad, "not a valid gzip file"], watch=[tmp_path])
    bad_input(["evaluate", "study", "--truth", cut, "-q"], names=[cut, "gzip"], watch=[tmp_path])


def test_a_gzipped_collection_database_is_refused_with_how_to_decompress_it(bad_input, tmp_path):
    db = tmp_path / "kernel.db.gz"
    db.write_bytes(gzip.compress(KERNEL_DB.read_bytes()))
    for args in (["merge", db, "-q"], ["evaluate", "study", "--truth", db, "-q"]):
        bad_input(args, names=[db, "SQLite database", f"gunzip -k {db}"], watch=[tmp_path])


def test_an_output_named_gz_is_refused_not_written_as_plain_csv(bad_input, tmp_path):
    src = tmp_path / "raw.csv"
    shutil.copy(t2080_path("much_raw.csv"), src)
    out = tmp_path / "merged.csv.gz"
    bad_input(["merge", src, "--pmcs", "6", "-q", "-o", out], names=[out, "write", "compress it"], watch=[tmp_path])
