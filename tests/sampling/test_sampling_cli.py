"""``hemkit sampling`` commands: outputs, figures, vocabulary, deprecated spellings, one-line summaries."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

DATA = Path(__file__).parent / "data"


def last_line(res):
    return res.stdout.strip().splitlines()[-1]


def test_simulate_custom_tasks_with_plots(cli, tmp_path):
    res = cli(
        [
            "sampling",
            "simulate",
            "--task",
            "a:0.5:150",
            "--task",
            "b:0.2:30:exponential",
            "--units",
            "50000",
            "--reps",
            "50",
            "--plot-sd",
            tmp_path / "sd.png",
            "--plot-means",
            tmp_path / "means.svg",
            "--plot-histogram",
            tmp_path / "hist.png",
            "-o",
            tmp_path / "t.csv",
            "-q",
        ]
    )
    assert res.exit_code == 0, res.stderr
    assert "profile_sd" in res.stdout and "idle" in res.stdout
    for f in ("sd.png", "means.svg", "hist.png"):
        assert (tmp_path / f).stat().st_size > 1000
    t = pd.read_csv(tmp_path / "t.csv")
    assert list(t["task"]) == ["idle", "a", "b"] and "running_mean" in t.columns
    assert last_line(res).startswith("sampling simulate: 2 task(s) + idle on 50000 units, 50 profiles; wrote ")


def test_simulate_same_seed_same_table(cli, tmp_path):
    args = ["sampling", "simulate", "--task", "a:0.3:70:uniform", "--units", "20000", "--reps", "30", "--noise", "1"]
    a = cli([*args, "--seed", "5", "-o", tmp_path / "a.csv"])
    b = cli([*args, "--seed", "5", "-o", tmp_path / "b.csv"])
    c = cli([*args, "--seed", "6", "-o", tmp_path / "c.csv"])
    assert a.exit_code == b.exit_code == c.exit_code == 0
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text() != (tmp_path / "c.csv").read_text()


def test_simulate_paper_table_4_and_deprecated_plots_folder(cli, tmp_path):
    res = cli(
        [
            "sampling",
            "simulate",
            "--paper",
            "4",
            "--reps",
            "100",
            "--plots",
            tmp_path / "figs",
            "--out",
            tmp_path / "t.csv",
        ]
    )
    assert res.exit_code == 0, res.stderr
    assert "Table 4" in res.stdout and "paper_sd" in res.stdout
    assert "deprecated" in res.stderr  # the old spellings still work, with a warning
    for f in ("sd_vs_R.png", "profiled_vs_true.png", "histogram.png"):
        assert (tmp_path / "figs" / f).stat().st_size > 1000
    t = pd.read_csv(tmp_path / "t.csv")
    assert set(t["table"]) == {4} and len(t) == 5


def test_profile_text_fixture(cli, tmp_path):
    res = cli(
        [
            "sampling",
            "profile",
            DATA / "known_shares.script.txt",
            "--top",
            "4",
            "--plot",
            tmp_path / "bar.png",
            "-o",
            tmp_path / "shares.csv",
        ]
    )
    assert res.exit_code == 0, res.stderr
    assert "work_3" in res.stdout and "226 samples of cpu-clock" in res.stdout
    assert (tmp_path / "bar.png").stat().st_size > 1000
    assert (tmp_path / "shares.csv").read_text().startswith("sym,samples,period,share,se,low,high")
    assert last_line(res) == (
        f"sampling profile: read 226 samples from {DATA / 'known_shares.script.txt'}; 6 rows; "
        f"wrote {tmp_path / 'shares.csv'}, {tmp_path / 'bar.png'}"
    )


def test_profile_by_dso_of_text_fixture(cli):
    res = cli(["sampling", "profile", DATA / "libc_kernel.script.txt", "--by", "dso", "--method", "bound"])
    assert res.exit_code == 0, res.stderr
    for name in ("libc_kernel", "libc.so.6", "[kernel.kallsyms]", "[JIT] tid 29272"):
        assert name in res.stdout
    res = cli(["sampling", "profile", DATA / "libc_kernel.script.txt", "--comm", "libc_kernel", "--event", "cpu-clock"])
    assert res.exit_code == 0 and "read_zero" in res.stdout


def test_profile_deprecated_png_and_out(cli, tmp_path):
    res = cli(
        [
            "sampling",
            "profile",
            DATA / "known_shares.script.txt",
            "--png",
            tmp_path / "a.png",
            "--out",
            tmp_path / "a.csv",
        ]
    )
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "a.png").exists() and (tmp_path / "a.csv").exists()


def test_model_command(cli, tmp_path):
    res = cli(["sampling", "model", "--share", "0.3", "--ratio", "1.5", "--samples", "1000", "--half-width", "0.01"])
    assert res.exit_code == 0, res.stderr
    assert "samples_needed" in res.stdout and "1921" in res.stdout
    res = cli(
        [
            "sampling",
            "model",
            "--share",
            "0.3",
            "--share",
            "0.5",
            "-o",
            tmp_path / "m.csv",
            "--plot",
            tmp_path / "m.png",
        ]
    )
    assert res.exit_code == 0 and "R unknown: the bound p/n" in res.stdout
    assert pd.read_csv(tmp_path / "m.csv")["sd"].round(6).tolist() == [0.005477, 0.007071]
    old = cli(["sampling", "model", "--share", "0.3", "--R", "1.5", "--samples", "1000"])
    assert old.exit_code == 0 and "0.007071" in old.stdout and "deprecated" in old.stderr


def test_errors_are_one_line_exit_2_in_a_real_process(tmp_path):
    """The installed command: one line on stderr, exit code 2, no traceback."""
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    bad = tmp_path / "bad.txt"
    bad.write_text("this is not perf output\n")
    exe = str(Path(sys.executable).parent / "hemkit")
    for path, message in ((empty, "empty file, no samples"), (bad, "line 1 is not a perf script sample")):
        proc = subprocess.run([exe, "sampling", "profile", str(path)], capture_output=True, text=True)
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"hemkit: error: {path}: {message}")


@pytest.mark.perf
def test_check_command(perf_can_record, cli, tmp_path):
    res = cli(
        [
            "sampling",
            "check",
            "--period",
            "500000",
            "--runs",
            "1",
            "--granularity",
            "50",
            "-o",
            tmp_path / "cases.csv",
            "--plot",
            tmp_path / "cov.png",
            "-q",
        ]
    )
    assert res.exit_code == 0, res.stderr
    assert "coverage" in res.stdout and "all" in res.stdout
    assert last_line(res).startswith("sampling check: 1 perf record runs of cpu-clock, coverage systematic ")
    assert "width/ideal" in res.stdout and "-c 500000 g50 t1 systematic" in res.stdout
    cases = pd.read_csv(tmp_path / "cases.csv")
    assert len(cases) == 12 and set(cases["method"]) == {"systematic", "wilson", "bound"}
    assert (tmp_path / "cov.png").stat().st_size > 1000


def test_profile_default_method_is_systematic_with_se(cli, tmp_path):
    """The default interval is the calibrated one; every method writes the standard error it used."""
    src = DATA / "known_shares.script.txt"
    res = cli(["sampling", "profile", src, "-o", tmp_path / "s.csv"])
    assert res.exit_code == 0, res.stderr
    assert "95% intervals (systematic)" in res.stdout and " se " in res.stdout.splitlines()[1]
    wil = cli(["sampling", "profile", src, "--method", "wilson", "-o", tmp_path / "w.csv"])
    assert wil.exit_code == 0 and "95% intervals (wilson)" in wil.stdout
    s, w = pd.read_csv(tmp_path / "s.csv", index_col="sym"), pd.read_csv(tmp_path / "w.csv", index_col="sym")
    n = 226
    assert w["se"].to_numpy() == pytest.approx(np.sqrt(w["share"] * (1 - w["share"]) / n).to_numpy())
    # a real profile at ~1.5 samples per call: the calibrated SE is at most the binomial's, and not far below
    assert ((s["se"] / w["se"]).between(0.5, 1.0 + 1e-9)).all()
    assert ((s["low"] <= s["share"]) & (s["share"] <= s["high"])).all()
