"""``hemkit sampling`` commands: outputs and one-line errors with exit code 2."""

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hemkit.cli import main

DATA = Path(__file__).parent / "data"


def run(*args):
    return CliRunner().invoke(main, ["sampling", *args])


def test_simulate_custom_tasks_with_plots(tmp_path):
    r = run(
        "simulate",
        "--task",
        "a:0.5:150",
        "--task",
        "b:0.2:30:exponential",
        "--units",
        "50000",
        "--reps",
        "50",
        "--plots",
        str(tmp_path),
        "-o",
        str(tmp_path / "t.csv"),
    )
    assert r.exit_code == 0, r.output
    assert "profile_sd" in r.output and "idle" in r.output
    for png in ("profiled_vs_true.png", "sd_vs_R.png", "histogram.png"):
        assert (tmp_path / png).stat().st_size > 1000
    assert "running_mean" in (tmp_path / "t.csv").read_text()


def test_simulate_paper_table_4(tmp_path):
    r = run("simulate", "--paper", "4", "--reps", "100", "--plots", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert "Table 4" in r.output and "paper_sd" in r.output
    assert (tmp_path / "fig11_histogram.png").exists()


def test_profile_text_fixture(tmp_path):
    r = run(
        "profile",
        str(DATA / "known_shares.script.txt"),
        "--top",
        "4",
        "--png",
        str(tmp_path / "bar.png"),
        "-o",
        str(tmp_path / "shares.csv"),
    )
    assert r.exit_code == 0, r.output
    assert "work_3" in r.output and "226 samples" in r.output
    assert (tmp_path / "bar.png").stat().st_size > 1000
    assert (tmp_path / "shares.csv").read_text().startswith("sym,samples")


def test_model_command():
    r = run("model", "--share", "0.3", "--R", "1.5", "--samples", "1000", "--half-width", "0.01")
    assert r.exit_code == 0, r.output
    assert "samples_needed" in r.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["profile", "missing.txt"], "missing.txt: no such file"),
        (["simulate"], "give --paper N or at least one --task"),
        (["simulate", "--task", "a:x:3"], "must be numbers"),
        (["simulate", "--task", "a:0.9:30", "--task", "b:0.5:30", "--units", "1000"], "add up to"),
        (["simulate", "--task", "a:0.5:30", "--units", "1000", "--interval", "5000"], "longer than the whole run"),
        (["model", "--share", "0.3", "--R", "1", "--R", "2"], "one --R per --share"),
    ],
)
def test_errors_are_one_line_exit_2(args, message):
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.output and "Traceback" not in r.output


def test_bad_and_empty_files_exit_2(tmp_path):
    """Run the real command: one line on stderr, exit code 2."""
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    bad = tmp_path / "bad.txt"
    bad.write_text("this is not perf output\n")
    exe = str(Path(sys.executable).parent / "hemkit")
    for path, message in ((empty, "no samples"), (bad, "line 1 is not a perf script sample")):
        proc = subprocess.run([exe, "sampling", "profile", str(path)], capture_output=True, text=True)
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"hemkit: error: {path}: {message}")


@pytest.mark.perf
def test_profile_perf_data_and_check(software_perf, tmp_path):
    """Real perf record of the known-share workload (cpu-clock here, cycles with a PMU)."""
    from hemkit.external.perf import find_perf
    from hemkit.sampling.record import default_event, workload

    data = tmp_path / "perf.data"
    cmd = [
        find_perf(),
        "record",
        "-q",
        "-e",
        default_event(),
        "-c",
        "250000",
        "-o",
        str(data),
        "--",
        workload(),
        "50",
        "0",
        "20000",
        "40000",
    ]
    subprocess.run(cmd, check=True, capture_output=True)
    r = run("profile", str(data), "--top", "3")
    assert r.exit_code == 0, r.output
    assert "work_1" in r.output and "work_0" in r.output
    r = run("check", "--period", "500000", "--repeats", "1", "--granularity", "50")
    assert r.exit_code == 0, r.output
    assert "coverage" in r.output and "all" in r.output


@pytest.mark.perf
def test_record_cycles_on_a_pmu_machine(hardware_perf):
    """With a PMU, event-based sampling on cycles: shares near the measured CPU-time shares."""
    from hemkit.sampling.record import coverage_table, record_known_shares

    run_ = record_known_shares((20_000, 60_000), period=2_000_000, event="cycles")
    t = coverage_table(run_)
    assert run_.event == "cycles" and t["n"].iloc[0] > 100
    assert (t["share"] - t["truth"]).abs().max() < 0.05
