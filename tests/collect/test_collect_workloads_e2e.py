"""Bundled C workloads and the end-to-end path with the real perf: plan -> collect -> merge -> evaluate."""

import subprocess

import pytest

from hemkit import HemkitError
from hemkit.collect import CollectOptions, collect, corunner_command, ubench_command
from hemkit.io.collection import load_readings
from hemkit.plan import make_plan


@pytest.mark.parametrize("op", ["iadd", "imul", "fadd", "fmul", "branchy"])
def test_ubench_runs(op):
    out = subprocess.run(ubench_command(op, "L1", 20000), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip()


def test_corunner_stops_after_seconds():
    out = subprocess.run(corunner_command(max_mib=2, period_ms=5, seconds=0.05), timeout=30)
    assert out.returncode == 0


def test_workload_bad_arguments():
    with pytest.raises(HemkitError, match="unknown workload operation 'idiv'"):
        ubench_command("idiv")
    with pytest.raises(HemkitError, match="unknown memory level 'L4'"):
        ubench_command("iadd", "L4")
    out = subprocess.run([ubench_command()[0], "iadd"], capture_output=True, text=True)
    assert out.returncode == 2 and "usage" in out.stderr


@pytest.mark.perf
def test_end_to_end_real_perf(software_perf, tmp_path):
    merge = pytest.importorskip("hemkit.merge", reason="hemkit.merge not available")
    from hemkit.evaluate import evaluate

    events = ["task-clock", "page-faults", "minor-faults", "syscalls:sys_enter_write"]
    plan = make_plan(events, 3)
    plan_file = plan.to_file(tmp_path / "plan.toml")
    command = ubench_command("iadd", "L3", 300000, jitter=0.6)
    res = collect(plan, command, tmp_path / "c.db", runs=8, options=CollectOptions(timeout=60))
    assert res.complete, res.line()
    readings = load_readings(tmp_path / "c.db")
    assert readings.missing_pairs() == [] and set(readings.events) == set(events)
    merged = merge.merge_much(readings, n_sims=20, seed=0)
    assert list(merged.columns) == readings.events or set(merged.columns) == set(events)
    ev = evaluate(merged, readings)
    assert ev.mse() < 0.5  # page-faults and minor-faults move together: a sane merge keeps that
    # the merge command reads the collection database directly
    from click.testing import CliRunner

    from hemkit.cli import main

    out = CliRunner().invoke(
        main, ["merge", str(tmp_path / "c.db"), "-m", "much", "--n-sims", "10", "-o", str(tmp_path / "m.csv")]
    )
    assert out.exit_code == 0, out.output
    assert (tmp_path / "m.csv").exists() and plan_file.exists()
