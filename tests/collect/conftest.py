"""Fixtures of the collect tests: a fake perf on $HEMKIT_PERF, started like the real one."""

import os
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.fixture(scope="session")
def fake_perf_launcher(tmp_path_factory):
    """The compiled launcher of fake_perf.py (see fake_perf_launcher.c)."""
    from hemkit.external.compiler import compile_c

    folder = tmp_path_factory.mktemp("fakeperf")
    script = folder / "fake_perf.py"
    shutil.copy(HERE / "fake_perf.py", script)
    return compile_c(
        HERE / "fake_perf_launcher.c", flags=("-O1", f'-DPYTHON="{sys.executable}"', f'-DSCRIPT="{script}"')
    )


@pytest.fixture
def fake_perf(tmp_path, monkeypatch, fake_perf_launcher):
    """Install the fake perf (tests/collect/fake_perf.py) as $HEMKIT_PERF; return its path."""
    folder = tmp_path / "perfbin"
    folder.mkdir()
    exe = folder / "perf"
    shutil.copy(fake_perf_launcher, exe)
    monkeypatch.setenv("HEMKIT_PERF", str(exe))
    for k in list(os.environ):
        if k.startswith("FAKE_PERF_"):
            monkeypatch.delenv(k)
    return exe


EVENTS = ["task-clock", "page-faults", "context-switches", "minor-faults"]


@pytest.fixture
def plan():
    """A MUCH plan of 4 software events on 2 counters: 6 groups."""
    from hemkit.plan import make_plan

    return make_plan(EVENTS, 2)


@pytest.fixture
def plan_file(plan, tmp_path):
    """``plan`` written to tmp_path/plan.toml."""
    return plan.to_file(tmp_path / "plan.toml")


def count_valid(db) -> int:
    """Valid runs in a collection database (0 when it does not exist or cannot be read yet)."""
    import sqlite3

    if not os.path.exists(db):
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
        try:
            return con.execute("SELECT COUNT(*) FROM runs WHERE status='valid'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.fixture
def valid_runs():
    """``valid_runs(db)``: valid runs stored so far (0 if none or not readable yet)."""
    return count_valid


@pytest.fixture
def wait_for_runs():
    """``wait_for_runs(db, n, proc, limit=60)``: wait until ``db`` holds ``n`` valid runs (proc must live)."""
    import time

    def wait(db, n, proc, limit=60):
        t0 = time.time()
        while count_valid(db) < n:
            assert proc.poll() is None, proc.communicate()
            assert time.time() - t0 < limit, f"no {n} valid runs after {limit} s"
            time.sleep(0.02)

    return wait


@pytest.fixture
def tmpfs(tmp_path):
    """A small tmpfs (256 KiB) mounted on tmp_path/fs: ``(path, set_readonly)``; skipped where mount is not allowed."""
    import subprocess

    mnt = tmp_path / "fs"
    mnt.mkdir()
    try:
        proc = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", str(mnt)], capture_output=True, text=True
        )
    except OSError as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {proc.stderr.strip()}")

    def set_readonly(readonly=True):
        opt = "remount,ro" if readonly else "remount,rw"
        subprocess.run(["mount", "-o", opt, str(mnt)], check=True, capture_output=True)

    try:
        yield mnt, set_readonly
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
