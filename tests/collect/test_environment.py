"""The measured program gets the user's environment (PATH, venv, cwd); a failing program is an error.

perf puts folders in front of the program's PATH (its exec folder, and the folder of its own
argv[0] when started by a full path -- /usr/bin, where the system python3 lives).  The fake
perf does the same, and a decoy ``python3`` sits beside it, as the system one sits beside
/usr/bin/perf; the user's ``python3`` is the first on their PATH.
"""

import os
import stat

import pytest

from hemkit import InputError, MeasurementError
from hemkit.collect import CollectOptions, ProbeOptions, collect, probe
from hemkit.io.collection import CollectionDB
from hemkit.plan import make_plan

RECORDER = """#!/bin/sh
printf '%s\\n%s\\n%s\\n%s\\n' "$PATH" "$(pwd)" "$VIRTUAL_ENV" "$HEMKIT_TEST_VAR" > "{out}"
"""
DECOY = """#!/bin/sh
echo decoy >> "{out}"
"""


def _script(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.fixture
def user_env(tmp_path, monkeypatch):
    """A user PATH whose first folder holds a python3 that records what it sees; a venv; a work folder."""
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    seen = tmp_path / "seen.txt"
    _script(venv / "python3", RECORDER.format(out=seen))
    user_path = f"{venv}{os.pathsep}{os.environ['PATH']}"
    monkeypatch.setenv("PATH", user_path)
    monkeypatch.setenv("VIRTUAL_ENV", str(venv.parent))
    monkeypatch.setenv("HEMKIT_TEST_VAR", "kept")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return {"seen": seen, "path": user_path, "venv": str(venv.parent), "work": str(work), "tmp": tmp_path}


def _seen(env):
    path, cwd, venv, var = env["seen"].read_text().splitlines()
    return {"PATH": path, "cwd": cwd, "VIRTUAL_ENV": venv, "var": var}


def test_program_sees_the_users_environment_fake_perf(fake_perf, user_env):
    decoy_log = user_env["tmp"] / "decoy.txt"
    _script(fake_perf.parent / "python3", DECOY.format(out=decoy_log))  # the "system" python3 beside perf
    plan = make_plan(["task-clock", "page-faults"], 2)
    res = collect(plan, ["python3", "-c", "pass"], "c.db", runs=2, progress=False)
    assert res.complete
    assert not decoy_log.exists(), "the python3 beside perf ran, not the user's"
    seen = _seen(user_env)
    # perf's own exec folder comes first (the real perf does that too); then the user's PATH, unchanged
    assert seen["PATH"] == f"/nonexistent/perf-core{os.pathsep}{user_env['path']}"
    assert seen["cwd"] == user_env["work"]
    assert seen["VIRTUAL_ENV"] == user_env["venv"] and seen["var"] == "kept"
    assert "FAKE_PERF_ARGV0" not in os.environ


@pytest.mark.perf
def test_program_sees_the_users_environment_real_perf(software_perf, user_env, monkeypatch):
    monkeypatch.delenv("HEMKIT_PERF", raising=False)
    plan = make_plan(["task-clock", "page-faults"], 2)
    res = collect(plan, ["python3", "-c", "pass"], "c.db", runs=2, progress=False)
    assert res.complete
    assert user_env["seen"].exists(), "the user's python3 did not run (perf put another first on PATH)"
    seen = _seen(user_env)
    assert seen["PATH"].endswith(user_env["path"])
    before = seen["PATH"][: -len(user_env["path"])].rstrip(os.pathsep).split(os.pathsep)
    assert all("perf" in folder for folder in before if folder), before  # only perf's helper folder
    assert seen["cwd"] == user_env["work"] and seen["VIRTUAL_ENV"] == user_env["venv"]


def test_cli_runs_the_users_python3(fake_perf, user_env, cli):
    decoy_log = user_env["tmp"] / "decoy.txt"
    _script(fake_perf.parent / "python3", DECOY.format(out=decoy_log))
    make_plan(["task-clock", "page-faults"], 2).to_file("plan.toml")
    res = cli(["collect", "plan.toml", "--runs", "2", "-q", "--", "python3", "-c", "pass"])
    assert res.exit_code == 0, res.stderr
    assert not decoy_log.exists() and _seen(user_env)["cwd"] == user_env["work"]


@pytest.mark.parametrize(
    ("command", "status"),
    [
        (["false"], "exit code 1"),
        (["sh", "-c", "exit 3"], "exit code 3"),
        (["sh", "-c", "kill -SEGV $$"], "killed by signal SIGSEGV"),
        (["sh", "-c", "kill -KILL $$"], "killed by signal SIGKILL"),
    ],
)
def test_failing_program_is_a_measurement_error(fake_perf, plan, tmp_path, command, status):
    db = tmp_path / "c.db"
    with pytest.raises(MeasurementError, match=rf"{command[0]}.*: {status} in group 0, run 0"):
        collect(plan, command, db, runs=2, progress=False)
    # made by this call with no valid run: removed, so that a corrected command can start afresh
    assert not db.exists() and not (tmp_path / "c.db.lock").exists()


def test_program_failing_later_keeps_the_runs_and_the_failed_one(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    flag = tmp_path / "fail"
    command = ["sh", "-c", f"test ! -e {flag}"]
    collect(plan, command, db, runs=1, progress=False)
    flag.touch()
    with pytest.raises(MeasurementError, match=r"exit code 1 in group 0, run 1"):
        collect(plan, command, db, runs=2, progress=False)
    with CollectionDB(db) as handle:
        runs = handle.runs()
    assert runs["status"].tolist() == ["valid"] * 6 + ["invalid"]
    assert runs["reason"].iloc[-1] == "sh exit code 1"


def test_allow_failure_keeps_the_runs(fake_perf, plan, tmp_path):
    res = collect(plan, ["false"], tmp_path / "c.db", runs=2, options=CollectOptions(allow_failure=True))
    assert res.complete
    with CollectionDB(tmp_path / "c.db") as handle:
        assert set(handle.runs()["returncode"]) == {1}


def test_failing_program_cli_names_program_and_status(fake_perf, plan_file, tmp_path, cli):
    res = cli(["collect", plan_file, "--runs", "2", "--", "sh", "-c", "echo oops >&2; exit 4"])
    assert res.exit_code == 2
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("hemkit: error: sh -c 'echo oops >&2; exit 4': exit code 4 in group 0, run 0")
    assert "(it said: oops)" in line
    assert not (tmp_path / "plan.db").exists()  # nothing to continue: the failed command is not kept
    # so the line says so, rather than that runs stay in it and how to continue it; the fix is the option
    assert "plan.db was not kept" in line and "continue with" not in line, line
    assert line.endswith("; pass --allow-failure") and "allow_failure" not in line, line
    res = cli(["collect", plan_file, "--runs", "2", "-q", "--allow-failure", "--", "false"])
    assert res.exit_code == 0, res.stderr
    last = res.stdout.strip().splitlines()[-1]
    assert last == f"{tmp_path / 'plan.db'}: 12 of 12 runs valid (12 added now); complete"


@pytest.mark.perf
def test_killed_program_with_real_perf(software_perf, plan, tmp_path, monkeypatch):
    """perf itself exits 0 when the program is killed: hemkit must still notice.  (The program runs a moment
    first: one killed before perf waits for it, perf reports as exit 0 itself; see ``run_perf_stat``.)"""
    monkeypatch.delenv("HEMKIT_PERF", raising=False)
    with pytest.raises(MeasurementError, match="killed by signal SIGSEGV"):
        collect(plan, ["sh", "-c", "sleep 0.3; kill -SEGV $$"], tmp_path / "c.db", runs=1, progress=False)
    with pytest.raises(MeasurementError, match="killed by signal SIGTERM"):
        collect(
            plan, ["sh", "-c", "sleep 0.3; kill -TERM $$"], tmp_path / "d.db", runs=1, options=CollectOptions(pin=0)
        )
    with pytest.raises(MeasurementError, match="exit code 2"):
        collect(plan, ["sh", "-c", "exit 2"], tmp_path / "e.db", runs=1, progress=False)


def test_missing_program_is_named_before_anything_is_written(fake_perf, plan, tmp_path):
    with pytest.raises(InputError, match="program 'no-such-program-here' not found on PATH"):
        collect(plan, ["no-such-program-here"], tmp_path / "c.db", runs=1)
    with pytest.raises(InputError, match="program './missing': no such file"):
        collect(plan, ["./missing"], tmp_path / "c.db", runs=1)
    (tmp_path / "data.txt").write_text("x")
    with pytest.raises(InputError, match="not an executable file"):
        collect(plan, [str(tmp_path / "data.txt")], tmp_path / "c.db", runs=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt", "perfbin"]


def test_failing_program_later_cli_says_how_to_continue(fake_perf, plan_file, tmp_path, cli):
    flag = tmp_path / "fail"
    command = ["sh", "-c", f"test ! -e {flag}"]
    assert cli(["collect", plan_file, "--runs", "1", "-q", "--", *command]).exit_code == 0
    flag.touch()
    res = cli(["collect", plan_file, "--runs", "2", "-q"])
    assert res.exit_code == 2
    (line,) = res.stderr.strip().splitlines()
    assert "the runs stored so far stay in" in line and "continue with: hemkit collect" in line, line
    assert line.endswith("; pass --allow-failure"), line


def test_probe_failing_program_cli_names_the_option(fake_perf, cli):
    res = cli(["probe", "task-clock", "--runs", "1", "--", "false"])
    assert res.exit_code == 2
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("hemkit: error: false: exit code 1 while measuring task-clock"), line
    assert line.endswith("; pass --allow-failure") and "allow_failure" not in line, line


def test_probe_failing_program(fake_perf):
    with pytest.raises(MeasurementError, match=r"false: exit code 1 while measuring task-clock"):
        probe(["task-clock"], ["false"], runs=1)
    res = probe(["task-clock"], ["false"], runs=1, options=ProbeOptions(allow_failure=True))
    assert res.events["verdict"].tolist() == ["ok (no counter limit)"]
