"""Collection with a fake perf: round-robin order, invalid runs re-run, stop rules, resume after SIGKILL/SIGINT."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pandas as pd
import pytest
from click.testing import CliRunner

from hemkit import HemkitError
from hemkit.cli import main
from hemkit.collect import CollectionDB, collect, export, load_readings, status
from hemkit.plan import make_plan

EVENTS = ["task-clock", "page-faults", "context-switches", "minor-faults"]


@pytest.fixture
def plan():
    return make_plan(EVENTS, 2)  # C(4,2,2) = 6 groups


def test_collect_round_robin_and_metadata(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    res = collect(plan, ["true"], db, runs=4, progress=False)
    assert res.complete and res.added_valid == 24 and res.added_invalid == 0
    runs = CollectionDB(db).runs()
    assert runs["gid"].tolist() == list(range(6)) * 4  # interleaved, not group after group
    assert runs["rep"].tolist() == [r for r in range(4) for _ in range(6)]
    meta = CollectionDB(db).meta()
    assert meta["perf_version"] == "perf version 0.fake"
    assert meta["command"] == ["true"] and meta["plan"]["groups"] == plan.groups
    assert {"uname", "cpu_model", "cpus"} <= set(meta["machine"])
    r = load_readings(db)
    assert len(r) == 6 and set(r.events) == set(EVENTS) and r.n_runs.tolist() == [4] * 6
    assert r.missing_pairs() == []


def test_json_format_and_export(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    collect(plan, ["true"], db, runs=3, fmt="json", progress=False)
    for name in ("t.csv", "t.parquet"):
        out = export(db, tmp_path / name)
        t = pd.read_csv(out) if name.endswith("csv") else pd.read_parquet(out)
        assert list(t.columns) == ["group", "run", "event", "value"] and len(t) == 6 * 3 * 2


def test_invalid_runs_kept_with_reason_and_rerun(fake_perf, plan, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_FLAKY", str(tmp_path / "n"))
    db = tmp_path / "c.db"
    res = collect(plan, ["true"], db, runs=3, progress=False)
    runs = CollectionDB(db).runs()
    bad = runs[runs["status"] == "invalid"]
    assert len(bad) == res.added_invalid > 0
    assert bad["reason"].str.contains("multiplexed").all()
    assert (runs["status"] == "valid").sum() == 18
    assert load_readings(db).n_runs.tolist() == [3] * 6  # invalid runs never reach the readings


def test_always_multiplexed_stops(fake_perf, plan, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_MPX", "always")
    with pytest.raises(HemkitError, match=r"group 0 .*3 invalid runs in a row, last: .*multiplexed"):
        collect(plan, ["true"], tmp_path / "c.db", runs=2, max_attempts=3, progress=False)


def test_unsupported_event_stops_cli_exit_2(fake_perf, plan, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_UNSUPPORTED", "minor-faults")
    p = plan.to_file(tmp_path / "plan.toml")
    res = CliRunner().invoke(main, ["collect", str(p), "--runs", "2", "--quiet", "--", "true"])
    assert res.exit_code == 2
    assert "event 'minor-faults' is <not supported>" in res.output


def test_empty_database_has_clear_error(tmp_path):
    db = tmp_path / "e.db"
    CollectionDB(db, create=True).init([["a", "b"]], {"runs": 3})
    with pytest.raises(HemkitError, match="no valid runs yet"):
        load_readings(db)


def test_other_plan_or_command_refused(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    collect(plan, ["true"], db, runs=1, progress=False)
    with pytest.raises(HemkitError, match="different plan"):
        collect(make_plan(EVENTS, 3), ["true"], db, runs=1, progress=False)
    with pytest.raises(HemkitError, match="collected with command 'true'"):
        collect(plan, ["false"], db, runs=1, progress=False)


def test_more_runs_extend_and_status(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    collect(plan, ["true"], db, runs=2, progress=False)
    res = collect(plan, ["true"], db, runs=3, progress=False)
    assert res.added_valid == 6
    s = status(db)
    assert s["valid"].tolist() == [3] * 6 and s["target"].tolist() == [3] * 6
    out = CliRunner().invoke(main, ["collect", "--status", str(db)])
    assert out.exit_code == 0 and "18 of 18 runs valid (100%)" in out.output


def test_cli_errors_exit_2(tmp_path):
    r = CliRunner()
    res = r.invoke(main, ["collect", "--status", str(tmp_path / "none.db")])
    assert res.exit_code == 2 and "no such collection database" in res.output
    res = r.invoke(main, ["collect", str(tmp_path / "none.toml"), "--", "true"])
    assert res.exit_code == 2 and "no such plan file" in res.output
    (tmp_path / "junk.db").write_text("not sqlite at all" * 100)
    res = r.invoke(main, ["collect", "--status", str(tmp_path / "junk.db")])
    assert res.exit_code == 2 and "not a hemkit collection database" in res.output
    res = r.invoke(main, ["probe", "task-clock", "--workload", "iadd:L1"])
    assert res.exit_code == 2 and "OP:LEVEL:ITERS" in res.output


def _run_cli(args, env):
    # own process group, like a shell job: Ctrl-C at a terminal signals the whole group
    return subprocess.Popen(
        [sys.executable, "-c", "from hemkit.cli import main; main()", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _valid(db):
    if not os.path.exists(db):
        return 0
    try:
        with sqlite3.connect(db, timeout=10) as con:
            return con.execute("SELECT COUNT(*) FROM runs WHERE status='valid'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _wait_for(db, n, proc, limit=60):
    t0 = time.time()
    while _valid(db) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.time() - t0 < limit
        time.sleep(0.05)


@pytest.mark.parametrize("kill_at", [5, 13])
def test_sigkill_then_resume_loses_and_duplicates_nothing(fake_perf, plan, tmp_path, kill_at):
    p = plan.to_file(tmp_path / "plan.toml")
    db = str(tmp_path / "plan.db")
    env = dict(os.environ, FAKE_PERF_SLEEP="0.05", PYTHONPATH=os.pathsep.join(sys.path))
    proc = _run_cli(["collect", str(p), "--runs", "4", "--quiet", "--", "true"], env)
    _wait_for(db, kill_at, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _valid(db)
    assert kill_at <= before < 24
    proc = _run_cli(["collect", str(p), "--runs", "4", "--quiet"], env)  # continue: stored command
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "continuing" in out
    runs = CollectionDB(db).runs()
    valid = runs[runs["status"] == "valid"]
    assert len(valid) == 24
    assert not valid.duplicated(["gid", "rep"]).any()
    assert sorted(map(tuple, valid[["gid", "rep"]].to_numpy().tolist())) == [(g, r) for g in range(6) for r in range(4)]
    assert load_readings(db).n_runs.tolist() == [4] * 6


def test_ctrl_c_stops_after_current_run(fake_perf, plan, tmp_path):
    p = plan.to_file(tmp_path / "plan.toml")
    db = str(tmp_path / "plan.db")
    env = dict(os.environ, FAKE_PERF_SLEEP="0.2", PYTHONPATH=os.pathsep.join(sys.path))
    proc = _run_cli(["collect", str(p), "--runs", "4", "--quiet", "--", "true"], env)
    _wait_for(db, 2, proc)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the collector and its perf child
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "interrupted: run the same command again to continue" in out
    runs = CollectionDB(db).runs()
    assert (runs["status"] == "valid").all() and 2 <= len(runs) < 24


def test_corunner_dies_with_killed_collector(fake_perf, plan, tmp_path):
    from hemkit.collect import corunner_command

    p = plan.to_file(tmp_path / "plan.toml")
    db = str(tmp_path / "plan.db")
    env = dict(os.environ, FAKE_PERF_SLEEP="0.1", PYTHONPATH=os.pathsep.join(sys.path))
    co = corunner_command(max_mib=1, period_ms=5)  # runs until stopped
    proc = _run_cli(["collect", str(p), "--runs", "4", "--quiet", "--corunner", " ".join(co), "--", "true"], env)
    _wait_for(db, 2, proc)
    pids = subprocess.run(["pgrep", "-f", co[0]], capture_output=True, text=True).stdout.split()
    assert pids, "co-runner not running"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    t0 = time.time()

    def alive(pid):
        try:
            return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
        except OSError:
            return False

    while any(alive(pid) for pid in pids):
        assert time.time() - t0 < 10, "co-runner outlived the killed collector"
        time.sleep(0.05)
