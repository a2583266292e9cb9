"""``hemkit mpx trace`` stopped by Ctrl-C part way through its runs, in a real subprocess with real perf.

As ``hemkit collect``: the first Ctrl-C stops after the run in progress, a second at once; the files of the
finished runs stay (never one half written), stderr says how many runs were kept of how many and the command that
records the rest, and the exit status is 130.  With no run finished nothing is written and a folder that was there
stays as it was.  Found by a walk: the interrupted command said only 'hemkit: interrupted', stopped at once (the run
in progress lost), and the user could not tell what was kept nor how to get the rest.
"""

import os
import shlex
import signal
import time

import pytest

EVENTS = "task-clock,context-switches,page-faults"


def _program(tmp_path, seconds):
    """A program that notes each start in tmp_path/started, then runs ``seconds``."""
    marks = tmp_path / "started"
    return ["sh", "-c", f"echo x >> {shlex.quote(str(marks))}; sleep {seconds}"], marks


def _wait(proc, until, limit=60):
    deadline = time.monotonic() + limit
    while not until():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _starts(marks):
    return len(marks.read_text().splitlines()) if marks.exists() else 0


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


def _one_line(err):
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("hemkit: interrupted: ") and "Traceback" not in err, err
    return lines[0]


def test_ctrl_c_stops_after_the_current_run_keeps_the_runs_finished_and_says_how_to_record_the_rest(
    tmp_path, software_perf, spawn_cli
):
    command, marks = _program(tmp_path, 0.6)
    out = tmp_path / "t"
    proc = spawn_cli(
        ["mpx", "trace", "-e", EVENTS, "--runs", 4, "-w", "prog", "-q", "-o", out, "--", *command], cwd=tmp_path
    )
    _wait(proc, lambda: _starts(marks) == 2)  # the second run has begun
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert _files(out) == ["prog_r1.csv", "prog_r2.csv"]  # the run in progress was finished, and kept
    line = _one_line(err)
    assert line.startswith(f"hemkit: interrupted: kept 2 of 4 runs in {out}; record the rest with: "), line
    rest = line.split("record the rest with: ")[1]
    assert rest == shlex.join(["hemkit", "mpx", "trace", "-e", EVENTS, "--runs", "2", "-w", "prog", "-o", str(out)]) + (
        " -- " + shlex.join(command)
    )
    proc = spawn_cli([*shlex.split(rest)[1:], "-q"], cwd=tmp_path)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert _files(out) == [f"prog_r{k}.csv" for k in range(1, 5)]  # numbered on: as if never interrupted
    third = (out / "prog_r3.csv").read_text()
    assert [x.split(",")[3] for x in third.splitlines() if x and not x.startswith("#")][0] == "page-faults"


def test_a_second_ctrl_c_stops_at_once_dropping_the_run_in_progress_and_no_file_is_half_written(
    tmp_path, software_perf, spawn_cli
):
    command, marks = _program(tmp_path, 5)
    out = tmp_path / "t"
    sets = ["-e", "task-clock", "-e", "context-switches,page-faults"]
    proc = spawn_cli(["mpx", "trace", *sets, "--runs", 2, "-w", "prog", "-q", "-o", out, "--", *command], cwd=tmp_path)
    _wait(proc, lambda: _starts(marks) == 1)
    _wait(proc, lambda: _starts(marks) == 2)  # the second run of the first set has begun
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # and again: at once
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - t0 < 4, "waited for the run in progress"
    assert proc.returncode == 130, err
    assert _files(out) == ["prog_s1_r1.csv"]  # no temporary file, no part of the second run
    line = _one_line(err)
    # the rest: one set's last run and every run of the other, whose files keep their names through -w
    rest = line.split("record the rest with: ")[1].split(" && ")
    assert line.startswith(f"hemkit: interrupted: kept 1 of 4 runs in {out}; "), line
    assert [shlex.split(r)[3:9] for r in rest] == [
        ["-e", "task-clock", "--runs", "1", "-w", "prog_s1"],
        ["-e", "context-switches,page-faults", "--runs", "2", "-w", "prog_s2"],
    ]


@pytest.mark.parametrize("existing", [False, True])
def test_no_run_finished_writes_nothing_and_leaves_the_folder_as_it_was(tmp_path, software_perf, spawn_cli, existing):
    command, marks = _program(tmp_path, 5)
    out = tmp_path / "t"
    if existing:
        out.mkdir()
        (out / "prog_r1.csv").write_text("an earlier recording\n")
    proc = spawn_cli(
        ["mpx", "trace", "-e", EVENTS, "--runs", 3, "-w", "prog", "-q", "-o", out, "--", *command], cwd=tmp_path
    )
    _wait(proc, lambda: _starts(marks) == 1)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    out_text, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert _one_line(err) == "hemkit: interrupted: no run finished, so nothing was written; run the same command again"
    assert out_text == ""
    if existing:
        assert _files(out) == ["prog_r1.csv"] and (out / "prog_r1.csv").read_text() == "an earlier recording\n"
    else:
        assert not out.exists()
