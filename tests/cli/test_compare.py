"""``hemkit compare A B`` end to end on two small real collections, and every class of bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

DATA = Path(__file__).parent.parent / "data" / "compare"
KERNEL_A, KERNEL_B = DATA / "kernel_a.db", DATA / "kernel_b.db"  # ./kernel 20000 1000 vs 21000 1300, 40 runs


def _tidy(path, columns, group=1):
    rows = [(group, r, e, v) for e, vals in columns.items() for r, v in enumerate(vals)]
    pd.DataFrame(rows, columns=["group", "run", "event", "value"]).to_csv(path, index=False)
    return path


def test_two_collections_of_a_program_touching_5_percent_more_pages(cli, tmp_path):
    out, pairs, plot, power = (tmp_path / n for n in ("c.csv", "pairs.csv", "ratios.png", "power.png"))
    res = cli(["compare", KERNEL_A, KERNEL_B, "-o", out, "--pairs", pairs, "--plot", plot, "--plot-power", power])
    assert res.exit_code == 0, res.stderr
    t = pd.read_csv(out).set_index("event")
    for e in ("page-faults", "minor-faults"):
        assert t.loc[e, "changed"] and 1.04 < t.loc[e, "ratio"] < 1.06
        assert t.loc[e, "lower"] <= t.loc[e, "ratio"] <= t.loc[e, "upper"]
    assert {"event", "median_a", "median_b", "ratio", "lower", "upper", "p_value", "changed"} <= set(t.reset_index())
    p = pd.read_csv(pairs)
    assert {"event_a", "event_b", "r_a", "r_b", "difference", "lower", "upper", "changed"} <= set(p.columns)
    assert plot.stat().st_size > 1000 and power.stat().st_size > 1000
    assert "events changed at FDR 5%" in res.stdout and f"wrote {out}" in res.stdout


def test_the_same_file_on_both_sides_is_allowed_and_changes_nothing(cli):
    res = cli(["compare", KERNEL_A, KERNEL_A])
    assert res.exit_code == 0, res.stderr
    assert "A and B are the same" in res.stderr and "nothing can change" in res.stderr
    assert "0 of 3 events changed" in res.stdout


def test_mixed_formats_are_compared(cli, tmp_path):
    """A collection database against a tidy table of the same events (exported): nothing changes."""
    tidy = tmp_path / "a.csv"
    assert cli(["export", KERNEL_A, "-o", tidy]).exit_code == 0
    res = cli(["compare", KERNEL_A, tidy])
    assert res.exit_code == 0, res.stderr
    assert "0 of 3 events changed" in res.stdout


def test_bad_disjoint_events(bad_input, tmp_path):
    a = _tidy(tmp_path / "a.csv", {"x": np.arange(10.0)})
    b = _tidy(tmp_path / "b.csv", {"y": np.arange(10.0)})
    out = tmp_path / "out.csv"
    out.write_text("keep me\n")
    bad_input(
        ["compare", a, b, "-o", out],
        names=["A: ", "B: ", "a.csv", "b.csv", "'x'", "'y'", "share no event"],
        watch=[out, a, b],
    )


def test_bad_one_run(bad_input, tmp_path):
    a = _tidy(tmp_path / "a.csv", {"x": np.arange(10.0)})
    b = _tidy(tmp_path / "b.csv", {"x": [3.0]})
    bad_input(["compare", a, b], names=["B: ", "b.csv", "'x'", "1 run", "at least 5"], watch=[tmp_path])


def test_bad_all_nan(bad_input, tmp_path):
    a = _tidy(tmp_path / "a.csv", {"x": [np.nan] * 6})
    b = _tidy(tmp_path / "b.csv", {"x": np.arange(6.0)})
    bad_input(["compare", a, b], names=["A: ", "a.csv", "'x'"], watch=[tmp_path])


def test_bad_negative_count(bad_input, tmp_path):
    a = _tidy(tmp_path / "a.csv", {"x": np.arange(6.0)})
    b = _tidy(tmp_path / "b.csv", {"x": [1.0, 2, -3, 4, 5, 6]})
    bad_input(["compare", a, b], names=["B: ", "b.csv", "'x'", "negative"], watch=[tmp_path])


def test_bad_mixed_format_unreadable_on_one_side(bad_input, tmp_path):
    """A mergingTools raw file on side B without its counters per group: B is named, and the option."""
    raw = tmp_path / "raw.csv"
    shutil.copy(Path(__file__).parents[2] / "src/hemkit/datasets/data/much_raw.csv", raw)
    bad_input(["compare", KERNEL_A, raw], names=["B: ", "raw.csv"], watch=[tmp_path])


def test_bad_database_with_invalid_runs(bad_input, tmp_path):
    from hemkit.io.collection import CollectionDB, StoredRun, WriterLock

    path = tmp_path / "few.db"
    with WriterLock(path) as lock:
        db = CollectionDB.create(path, [["page-faults", "task-clock"]], {"plan": "test"}, lock=lock)
        for rep in range(10):
            status = "valid" if rep < 3 else "invalid"
            counts = pd.DataFrame({"event": ["page-faults", "task-clock"], "value": [70.0 + rep, 1.5 * rep + 1]})
            db.record_run(StoredRun(0, rep, status, "" if status == "valid" else "multiplexed"), counts)
        db.close()
    bad_input(["compare", path, KERNEL_A], names=["A: ", "few.db", "'page-faults'", "3 runs"], watch=[tmp_path])


def test_bad_output_in_place_of_an_input(bad_input, tmp_path):
    a = tmp_path / "a.db"
    shutil.copy(KERNEL_A, a)
    bad_input(["compare", a, KERNEL_B, "-o", a], names=[str(a)], watch=[a])


@pytest.mark.parametrize("level", ["0", "1", "x"])
def test_bad_level(bad_input, level):
    bad_input(["compare", KERNEL_A, KERNEL_B, "--level", level], names=["--level"])


def test_bad_output_over_a_file_of_an_input_folder(bad_input, tmp_path):
    """A folder of perf stat files is read file by file: -o naming one of them would overwrite a run."""
    folders = {}
    for side, pages in (("a", 1000), ("b", 1100)):
        folders[side] = tmp_path / side
        folders[side].mkdir()
        for i in range(6):
            (folders[side] / f"run_{i}.csv").write_text(
                f"12.5,msec,task-clock,12500000,100.00,,\n{pages + i},,page-faults,12500000,100.00,,\n"
            )
    run = folders["a"] / "run_3.csv"
    bad_input(["compare", folders["a"], folders["b"], "-o", run], names=[str(run), "input"], watch=[tmp_path])
    bad_input(["compare", folders["a"], folders["b"], "--pairs", folders["b"] / "run_0.csv"], names=["run_0.csv"])


@pytest.mark.parametrize("option", ["--plot", "--plot-power"])
def test_bad_figure_name_is_refused_before_any_work(bad_input, tmp_path, option):
    out = tmp_path / "c.csv"
    bad_input(["compare", KERNEL_A, KERNEL_B, "-o", out, option, tmp_path / "fig.txt"], names=[option, "fig.txt"])
    assert not out.exists()


def test_a_level_of_0_999_says_fdr_0_1_percent_not_0(cli):
    res = cli(["compare", KERNEL_A, KERNEL_B, "--level", "0.999"])
    assert res.exit_code == 0, res.stderr
    assert "at FDR 0.1%" in res.stdout and "(99.9% intervals)" in res.stdout


def test_bad_output_as_a_new_file_of_an_input_folder(bad_input, tmp_path):
    """export runs/ -o runs/readings.csv wrote the table among the runs, and runs/ no longer read next time."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for i in range(4):
        (folder / f"run_{i}.csv").write_text(
            f"12.5,msec,task-clock,12500000,100.00,,\n{1000 + i},,page-faults,12500000,100.00,,\n"
        )
    out = folder / "readings.csv"
    bad_input(["export", folder, "-o", out], names=["readings.csv", "inside the input folder"], watch=[tmp_path])
    bad_input(["compare", folder, folder, "--plot", folder / "c.png"], names=["c.png", "outside"], watch=[tmp_path])


def test_bad_host_on_a_side_that_names_none_says_which_option_selects_the_other(bad_input, cli, tmp_path):
    """A tidy export against a collection database: --host (both sides) cannot select the table's runs. The
    error said 'read it without a host', not that --host-b selects B's runs alone, which is what works."""
    from hemkit.io import read_machines

    host = str(read_machines(KERNEL_B)["host"].iloc[0])
    tidy = tmp_path / "a.csv"
    assert cli(["export", KERNEL_A, "-o", tidy]).exit_code == 0
    bad_input(
        ["compare", tidy, KERNEL_B, "--host", host],
        names=["A: ", "a.csv", f"pass --host-b {host} instead of --host"],
        watch=[tmp_path],
    )
    bad_input(
        ["compare", KERNEL_B, tidy, "--host", host],
        names=["B: ", "a.csv", f"pass --host-a {host} instead of --host"],
        watch=[tmp_path],
    )
    assert cli(["compare", tidy, KERNEL_B, "--host-b", host]).exit_code == 0  # what the message says works


def test_the_table_shows_the_q_value_changed_is_decided_on(cli):
    """The table showed p_value beside changed, which Benjamini-Hochberg decides on q_value: a run of another
    program in A's folder gave task-clock p = 0.038 and changed False, with nothing on screen to say why."""
    res = cli(["compare", KERNEL_A, KERNEL_B])
    assert res.exit_code == 0, res.stderr
    header = next(line for line in res.stdout.splitlines() if line.startswith("event "))
    assert header.split()[6:9] == ["p_value", "q_value", "changed"], header


def test_margin_gives_a_verdict_at_a_size_that_matters(cli, tmp_path):
    """5 % more pages: page-faults changed beyond 1 %; task-clock (flagged in shape only) unclear; the line says so."""
    out = tmp_path / "c.csv"
    res = cli(["compare", KERNEL_A, KERNEL_B, "--margin", "0.01", "-o", out])
    assert res.exit_code == 0, res.stderr
    t = pd.read_csv(out).set_index("event")
    assert t.loc["page-faults", "verdict"] == "changed" and t.loc["minor-faults", "verdict"] == "changed"
    assert t.loc["task-clock", "verdict"] == "unclear" and not t.loc["task-clock", "changed"]
    header = next(line for line in res.stdout.splitlines() if line.startswith("event "))
    assert "verdict" in header.split()
    assert "2 of 3 events changed at FDR 5%, 0 alike, 1 unclear at margin 1%" in res.stdout
    same = cli(["compare", KERNEL_A, KERNEL_A, "--margin", "0.05"])
    assert "0 of 3 events changed at FDR 5%, 2 alike, 1 unclear at margin 5%" in same.stdout, same.stdout
    # a percent is what a user types: the same verdicts as the fraction
    pct = tmp_path / "pct.csv"
    assert cli(["compare", KERNEL_A, KERNEL_B, "--margin", "1%", "-o", pct]).exit_code == 0
    pd.testing.assert_frame_equal(pd.read_csv(pct), pd.read_csv(out))


@pytest.mark.parametrize("bad", ["1", "-0.01", "1.5", "abc", "100%", "abc%", "-1%"])
def test_bad_margin(bad_input, tmp_path, bad):
    out = tmp_path / "out.csv"
    out.write_text("keep me\n")
    bad_input(
        ["compare", KERNEL_A, KERNEL_B, "--margin", bad, "-o", out],
        names=["Invalid value for '--margin'"],
        watch=[tmp_path],
    )


@pytest.mark.parametrize("typed", ["1", "5", "2.5"])
def test_a_margin_of_a_percent_without_its_sign_says_how_to_write_it(bad_input, tmp_path, typed):
    """``--margin 1`` most likely means 1 %: the error says to write 0.01 or 1%."""
    n = float(typed)
    bad_input(
        ["compare", KERNEL_A, KERNEL_B, "--margin", typed],
        names=["Invalid value for '--margin'", f"write {n / 100:g} or {n:g}%"],
        watch=[tmp_path],
    )
