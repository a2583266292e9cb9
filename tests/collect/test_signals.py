"""Signals and kills, on the real command in a subprocess: Ctrl-C, SIGTERM, SIGKILL at random moments.

Ctrl-C at a terminal signals the whole foreground process group: the tests start hemkit in
its own session (like a shell job) and signal the group (os.killpg) for Ctrl-C, the process
alone (os.kill) for SIGTERM.
"""

import os
import random
import shlex
import signal
import subprocess
import sys
import time

import pytest

from hemkit.collect import corunner_command
from hemkit.io.collection import CollectionDB, load_readings


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


def _pids(pattern):
    out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
    return [p for p in out if int(p) != os.getpid()]


def _check_complete(db, groups=6, runs=4):
    with CollectionDB(db) as handle:
        handle.verify()
        all_runs = handle.runs()
    valid = all_runs[all_runs["status"] == "valid"]
    assert not valid.duplicated(["gid", "rep"]).any()
    assert sorted(map(tuple, valid[["gid", "rep"]].to_numpy().tolist())) == [
        (g, r) for g in range(groups) for r in range(runs)
    ]
    assert load_readings(db).n_runs.tolist() == [runs] * groups


def _interrupted_line(err):
    lines = err.splitlines()  # no empty line before it either (click printed one for every interruption)
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("hemkit: interrupted: "), err
    return lines[0]


def _env(tmp_path, **extra):
    tmp = tmp_path / "tmpdir"
    tmp.mkdir(exist_ok=True)
    return dict(os.environ, TMPDIR=str(tmp), **extra)


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_signal_stops_at_a_run_boundary_exit_130_with_the_command_that_continues(
    fake_perf, plan_file, tmp_path, spawn_cli, wait_for_runs, how
):
    db = tmp_path / "plan.db"
    env = _env(tmp_path, FAKE_PERF_SLEEP="0.2")
    proc = spawn_cli(["collect", plan_file, "--runs", "4", "--quiet", "--", "true"], env)
    wait_for_runs(db, 2, proc)
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)  # the collector and its perf child, as a terminal does
    else:
        os.kill(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    line = _interrupted_line(err)
    hint = line.split("continue with: ")[1]
    assert hint == f"hemkit collect {shlex.quote(str(plan_file))}"
    assert f"runs are stored in {db}" in line
    assert out.strip().endswith("interrupted")  # the summary line
    with CollectionDB(db) as handle:
        runs = handle.runs()
    assert (runs["status"] == "valid").all() and 2 <= len(runs) < 24  # the run in flight was finished, not cut
    assert list((tmp_path / "tmpdir").iterdir()) == []  # perf's temporary folders are gone
    # the printed command continues and completes the collection
    proc = spawn_cli(shlex.split(hint)[1:] + ["--quiet"], env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.splitlines()[0] == f"continued {db}: true (in {os.getcwd()})"
    _check_complete(db)


def test_ctrl_c_before_the_first_run_is_stored(fake_perf, plan_file, tmp_path, spawn_cli):
    # runs slow enough that, even on a loaded machine, the signal lands before the first is stored
    env = _env(tmp_path, FAKE_PERF_SLEEP="6")
    proc = spawn_cli(["collect", plan_file, "--runs", "2", "--quiet", "--", "true"], env)
    t0 = time.time()
    while not (tmp_path / "plan.db.lock").exists():  # the collector has started, no run is stored yet
        assert proc.poll() is None, proc.communicate()
        assert time.time() - t0 < 60
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    _interrupted_line(err)
    assert not (tmp_path / "plan.db.lock").exists()
    assert list((tmp_path / "tmpdir").iterdir()) == []


def test_second_ctrl_c_stops_at_once_and_kills_the_run(fake_perf, plan_file, tmp_path, spawn_cli, wait_for_runs):
    db = tmp_path / "plan.db"
    marker = f"sleep 60.{random.randrange(10**9):09d}"
    env = _env(tmp_path)
    # the first runs are quick; then the program sleeps long enough that only a second Ctrl-C ends it
    script = f"if [ -e {tmp_path}/slow ]; then {marker}; fi"
    proc = spawn_cli(["collect", plan_file, "--runs", "4", "--quiet", "--", "sh", "-c", script], env)
    wait_for_runs(db, 3, proc)
    (tmp_path / "slow").touch()
    t0 = time.time()
    while not _pids(marker):
        assert proc.poll() is None, proc.communicate()
        assert time.time() - t0 < 60
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.3)
    assert proc.poll() is None  # the first Ctrl-C waits for the run
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    _interrupted_line(err)
    assert time.time() - t0 < 30
    t0 = time.time()
    while _pids(marker):  # the measured program went with its run
        assert time.time() - t0 < 10, "the measured program outlived the interrupted collection"
        time.sleep(0.05)
    with CollectionDB(db) as handle:
        handle.verify()
        runs = handle.runs()
    assert (runs["status"] == "valid").all()  # the killed run was not stored
    assert list((tmp_path / "tmpdir").iterdir()) == []
    assert not (tmp_path / "plan.db.lock").exists()


@pytest.mark.parametrize("how", ["ctrl-c", "sigkill"])
def test_corunner_stopped(fake_perf, plan_file, tmp_path, spawn_cli, wait_for_runs, how):
    db = tmp_path / "plan.db"
    env = _env(tmp_path, FAKE_PERF_SLEEP="0.1")
    co = corunner_command(max_mib=1, period_ms=5)  # runs until stopped
    marker = f"{co[0]} {co[1]} {co[2]}"
    before = set(_pids(marker))
    proc = spawn_cli(["collect", plan_file, "--runs", "4", "--quiet", "--corunner", shlex.join(co), "--", "true"], env)
    wait_for_runs(db, 2, proc)
    pids = set(_pids(marker)) - before
    assert pids, "co-runner not running"
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=60)
        assert proc.returncode == 130
    else:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    t0 = time.time()
    while any(_alive(pid) for pid in pids):
        assert time.time() - t0 < 10, "co-runner outlived the collector"
        time.sleep(0.05)


def test_corunner_that_ends_stops_the_collection(fake_perf, plan_file, tmp_path, cli):
    res = cli(["collect", plan_file, "--runs", "30", "--quiet", "--corunner", "sleep 0.3", "--", "sleep", "0.05"])
    assert res.exit_code == 2, res.stderr
    assert "co-runner 'sleep 0.3' ended (exit code 0) during the collection" in res.stderr


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_at_random_moments_then_resume_loses_and_duplicates_nothing(
    fake_perf, plan_file, tmp_path, spawn_cli, seed
):
    """Kills land anywhere: during start-up, creating the database, measuring, committing."""
    rng = random.Random(seed)
    db = tmp_path / "plan.db"
    env = _env(tmp_path, FAKE_PERF_SLEEP="0.03")
    args = ["collect", plan_file, "--runs", "4", "--quiet"]
    for k in range(6):
        proc = spawn_cli(args + (["--", "true"] if not db.exists() else []), env)
        time.sleep(rng.uniform(0.2, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        if db.exists():  # never damaged, never foreign, whatever the moment
            with CollectionDB(db) as handle:
                handle.verify()
    proc = spawn_cli(args + (["--", "true"] if not db.exists() else []), env)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    _check_complete(db)


def test_sigkill_then_resume(fake_perf, plan_file, tmp_path, spawn_cli, wait_for_runs):
    db = tmp_path / "plan.db"
    env = _env(tmp_path, FAKE_PERF_SLEEP="0.05")
    proc = spawn_cli(["collect", plan_file, "--runs", "4", "--quiet", "--", "true"], env)
    wait_for_runs(db, 7, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (tmp_path / "plan.db.lock").exists()  # left by the killed collector; its lock died with it
    proc = spawn_cli(["collect", plan_file, "--quiet"], env)  # continue: the stored command
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "continued" in out
    _check_complete(db)
    assert not (tmp_path / "plan.db.lock").exists()


def test_two_collectors_on_one_database(fake_perf, plan_file, tmp_path, spawn_cli):
    """One writes, the other is refused naming the first's pid; the database stays whole."""
    db = tmp_path / "plan.db"
    env = _env(tmp_path, FAKE_PERF_SLEEP="0.1")
    refused = False
    for _ in range(3):
        a = spawn_cli(["collect", plan_file, "--runs", "4", "--quiet", "--", "true"], env)
        b = spawn_cli(["collect", plan_file, "--runs", "4", "--quiet", "--", "true"], env)
        results = {p.pid: (p.communicate(timeout=180), p.returncode) for p in (a, b)}
        codes = sorted(rc for _, rc in results.values())
        if codes == [0, 0]:  # the second started after the first ended (slow machine): retry
            continue
        assert codes == [0, 2], results
        (loser_out, loser_err), _ = next(v for v in results.values() if v[1] == 2)
        winner = next(pid for pid, v in results.items() if v[1] == 0)
        assert loser_err.strip() == (
            f"hemkit: error: {db}: in use by pid {winner} (another 'hemkit collect' writes it); "
            "wait for it to end or stop it, or use another database"
        )
        assert "IntegrityError" not in loser_err
        refused = True
        break
    assert refused, "the two collectors never overlapped"
    _check_complete(db)


def test_collector_refused_while_another_holds_the_lock(fake_perf, plan, plan_file, tmp_path, bad_input):
    from hemkit.collect import collect
    from hemkit.io.collection import WriterLock

    db = tmp_path / "plan.db"
    collect(plan, ["true"], db, runs=1, progress=False)
    with WriterLock(db):
        bad_input(
            ["collect", plan_file, "--runs", "2", "--", "true"], names=[str(db), f"pid {os.getpid()}"], watch=[db]
        )
    # a lock file left by a dead collector (no lock held on it) does not stop the next one
    (tmp_path / "plan.db.lock").write_text("999999 somehost 0\n")
    res = collect(plan, ["true"], db, runs=2, progress=False)
    assert res.complete and not (tmp_path / "plan.db.lock").exists()


def test_no_process_left_after_a_run_times_out(fake_perf, plan_file, tmp_path, cli):
    marker = f"sleep 30.{random.randrange(10**9):09d}"
    res = cli(["collect", plan_file, "--runs", "1", "--timeout", "0.5", "--", "sh", "-c", marker])
    assert res.exit_code == 2 and "timed out after 0.5 s" in res.stderr
    assert "give a larger --timeout" in res.stderr  # the option that gets past it, not the library's word
    time.sleep(0.2)
    assert not _pids(marker)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
