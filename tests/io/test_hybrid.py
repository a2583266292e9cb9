"""Hybrid CPUs (issue 27 item 1): every hardware event once per core PMU.

No machine here has a hybrid PMU: the fixtures in tests/io/data/hybrid are written by
make_hybrid.py in perf's own formats (see its docstring for the sources).
"""

import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io import PerfOptions, read_readings
from hemkit.io.perf_files import pmu_of, read_perf_file

HYBRID = Path(__file__).parent / "data" / "hybrid"


def caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(x.message) for x in w if issubclass(x.category, HemkitWarning)]


def printed(path, event):
    """perf's count of ``event`` in a -x, fixture."""
    for s in path.read_text().splitlines():
        f = s.split(",")
        if len(f) > 2 and f[2] == event:
            return float(f[0])
    raise KeyError(event)


def test_fixtures_are_what_the_script_writes(tmp_path):
    shutil.copytree(HYBRID, tmp_path / "h")
    subprocess.run([sys.executable, str(tmp_path / "h" / "make_hybrid.py")], check=True)
    for f in HYBRID.rglob("run_*"):
        assert (tmp_path / "h" / f.relative_to(HYBRID)).read_text() == f.read_text(), f


def test_pinned_to_p_cores_leaves_the_idle_pmu_out_with_one_warning():
    r, warned = caught(lambda: read_readings(HYBRID / "pinned"))
    assert r.events == ["task-clock", "cpu_core/instructions/", "cpu_core/cycles/", "cpu_core/branch-misses/"]
    assert r.n_runs.tolist() == [4, 4, 4]
    assert len(warned) == 1 and warned[0].startswith("cpu_atom: the program never ran on its cores")
    for e in ("cpu_atom/instructions/", "cpu_atom/cycles/", "cpu_atom/branch-misses/"):
        assert e in warned[0]
    run = HYBRID / "pinned" / "run_04.csv"
    assert r[1].loc["run_04", "cpu_core/instructions/"] == printed(run, "cpu_core/instructions/")


def test_csv_and_json_runs_of_one_group_agree():
    (run,) = read_perf_file(HYBRID / "pinned" / "run_03.json")
    assert set(run.values) == {"task-clock", "cpu_core/cycles/", "cpu_core/branch-misses/"}
    assert set(run.idle) == {"cpu_atom/cycles/", "cpu_atom/branch-misses/"} and not run.problem


def test_both_pmus_counted_are_distinct_events():
    r, warned = caught(lambda: read_readings(HYBRID / "system"))
    assert not warned
    assert {"cpu_core/instructions/", "cpu_atom/instructions/"} <= set(r.events) and len(r.events) == 7
    run = HYBRID / "system" / "run_01.csv"
    assert r[1].loc["run_01", "cpu_atom/instructions/"] == printed(run, "cpu_atom/instructions/")


def test_a_run_that_moved_between_core_types_is_refused_or_dropped():
    with pytest.raises(InputError) as e:
        read_readings(HYBRID / "migrated")
    msg = str(e.value)
    for part in ("run_05.csv", "cpu_core (97%)", "cpu_atom (2%)", "pin the program to one core type", "unusable"):
        assert part in msg
    r, warned = caught(lambda: read_readings(HYBRID / "migrated", perf=PerfOptions(unusable="drop")))
    assert r.n_runs.tolist() == [5] and "run_05" not in r[1].index
    assert "cpu_atom/instructions/" not in r.events
    assert any("dropped run 'run_05'" in w for w in warned)


def test_idle_in_some_runs_but_counted_in_others_is_refused(tmp_path):
    folder = tmp_path / "runs"
    shutil.copytree(HYBRID / "system", folder)
    for f in sorted(folder.iterdir())[::3][:2]:  # two runs of group 1 pinned to P cores (edited copies)
        lines = [s for s in f.read_text().splitlines() if "cpu_atom" not in s]
        for e in ("instructions", "cycles"):
            lines.append(f"<not counted>,,cpu_atom/{e}/,0,0.00,,")
        f.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"did not run on cpu_atom cores in this run, but it did in run 'run_07'"):
        read_readings(folder)


def test_a_plain_event_not_counted_is_still_refused(tmp_path):
    """Only a core PMU idle while another core PMU counted is excused; a group that never got a counter is not."""
    f = tmp_path / "r.csv"
    lines = ["5.0,msec,task-clock,5000000,100.00,,", "<not counted>,,cycles,0,0.00,,"]
    lines.append("<not counted>,,msr/tsc/,0,0.00,,")
    f.write_text("\n".join(lines) + "\n")
    (run,) = read_perf_file(f)
    assert "is <not counted>" in run.problem and not run.idle


@pytest.mark.parametrize(
    ("event", "pmu"),
    [
        ("cpu_core/instructions/", "cpu_core"),
        ("cpu_atom/event=0xc0,umask=0x0/u", "cpu_atom"),
        ("instructions:u", ""),
        ("sched:sched_switch", ""),
        ("armv8_cortex_a53/cpu_cycles/", "armv8_cortex_a53"),
    ],
)
def test_pmu_of(event, pmu):
    assert pmu_of(event) == pmu


def test_export_and_merge_from_the_command_line(tmp_path):
    from click.testing import CliRunner

    from hemkit.cli import main

    runner = CliRunner()
    res = runner.invoke(main, ["export", str(HYBRID / "pinned"), "-o", str(tmp_path / "t.csv")])
    assert res.exit_code == 0, res.output
    assert "cpu_atom: the program never ran on its cores" in res.output
    res = runner.invoke(main, ["merge", str(HYBRID / "pinned"), "-o", str(tmp_path / "m.csv")])
    assert res.exit_code == 0, res.output
    head = (tmp_path / "m.csv").read_text().splitlines()[0]
    assert head == "task-clock,cpu_core/instructions/,cpu_core/cycles/,cpu_core/branch-misses/"
    res = runner.invoke(main, ["merge", str(HYBRID / "migrated"), "-o", str(tmp_path / "x.csv")])
    assert res.exit_code == 2 and "--unusable drop" in res.output and not (tmp_path / "x.csv").exists()
