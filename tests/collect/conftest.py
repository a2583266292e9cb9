"""Fixtures of the collect tests: a fake perf on $HEMKIT_PERF."""

import os
import stat
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.fixture
def fake_perf(tmp_path, monkeypatch):
    """Install the fake perf (tests/collect/fake_perf.py) as $HEMKIT_PERF; return its env dict."""
    exe = tmp_path / "perf"
    exe.write_text(f"#!{sys.executable}\n" + (HERE / "fake_perf.py").read_text())
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("HEMKIT_PERF", str(exe))
    for k in list(os.environ):
        if k.startswith("FAKE_PERF_"):
            monkeypatch.delenv(k)
    return exe
