"""Shared test fixtures."""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
os.environ.setdefault("HEMKIT_CACHE", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "hemkit"))


@pytest.fixture(scope="session")
def hardware_perf():
    """Skip unless perf counts hardware events on this machine."""
    from hemkit.external.perf import hardware_events_work

    ok, why = hardware_events_work()
    if not ok:
        pytest.skip(why)
    return True


@pytest.fixture(scope="session")
def software_perf():
    """Skip unless perf can count software events (task-clock) on this machine."""
    from hemkit.core.errors import HemkitError
    from hemkit.external.perf import PerfStatOptions, run_perf_stat

    try:
        res = run_perf_stat(["task-clock"], ["true"], PerfStatOptions(timeout=30))
    except HemkitError as exc:
        pytest.skip(f"perf unusable here: {exc}")
    if res.counts.empty or res.counts["status"].iloc[0] != "ok":
        pytest.skip("perf cannot count even task-clock here")
    return True


# ------------------------------------------------------------------ the command line
@dataclass
class CliOutcome:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(args, *, cwd=None) -> CliOutcome:
    """Run ``hemkit ARGS`` in-process (click's CliRunner) and return exit code, stdout, stderr."""
    from click.testing import CliRunner

    from hemkit.cli import main

    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)
    finally:
        os.chdir(old)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(res.exception))
        return CliOutcome(99, res.stdout, res.stderr + "\nTRACEBACK:\n" + tb)
    return CliOutcome(res.exit_code, res.stdout, res.stderr)


def _snapshot(paths) -> dict:
    out = {}
    for p in paths:
        p = Path(p)
        files = [p] if not p.is_dir() else sorted(x for x in p.rglob("*") if x.is_file())
        if p.is_dir():
            out[str(p)] = ("dir", tuple(str(x) for x in files))
        for f in files:
            out[str(f)] = (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns) if f.exists() else None
    return out


@pytest.fixture
def cli():
    """``cli(args, cwd=None)`` runs hemkit in-process; returns ``CliOutcome(exit_code, stdout, stderr)``."""
    return run_cli


@pytest.fixture
def bad_input():
    """``bad_input(args, names=[...], watch=[paths], cwd=None)``: assert hemkit refuses ``args`` properly.

    Exit code 2, exactly one line on stderr, starting ``hemkit: error: `` and containing every
    string of ``names`` (the file, event, run or option at fault), and no file under ``watch``
    (files or folders) created, removed or changed.
    """

    def check(args, *, names=(), watch=(), cwd=None):
        if isinstance(names, str):
            names = [names]
        before = _snapshot(watch)
        res = run_cli(args, cwd=cwd)
        lines = [line for line in res.stderr.splitlines() if line.strip()]
        command = " ".join(map(str, args))
        context = f"hemkit {command}\nexit {res.exit_code}\nstderr:\n{res.stderr}\nstdout:\n{res.stdout}"
        assert res.exit_code == 2, context
        errors = [line for line in lines if line.startswith("hemkit: error: ")]
        assert len(errors) == 1 and len([x for x in lines if not x.startswith("hemkit: warning: ")]) == 1, context
        for n in names:
            assert str(n) in errors[0], f"{n!r} not named in: {errors[0]}"
        assert _snapshot(watch) == before, f"files changed by a refused command\n{context}"
        return errors[0]

    return check


@pytest.fixture
def spawn_cli():
    """``spawn_cli(args, env=None, cwd=None)``: hemkit in a subprocess, in its own session like a shell job."""
    import subprocess

    def spawn(args, env=None, cwd=None):
        env = dict(os.environ if env is None else env)
        env["PYTHONPATH"] = os.pathsep.join(sys.path)
        return subprocess.Popen(
            [sys.executable, "-c", "from hemkit.cli import main; main()", *map(str, args)],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    return spawn
