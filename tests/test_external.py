"""hemkit.external: perf prints C numbers while the measured program keeps the user's locale."""

from __future__ import annotations

import os
import sys

import pytest

from hemkit.external import perf as perf_mod
from hemkit.external.perf import PerfStatOptions, run_perf_stat


@pytest.mark.parametrize(
    ("env", "wrapped"),
    [
        ({}, False),
        ({"LANG": "C.UTF-8"}, False),
        ({"LANG": "en_US.UTF-8"}, False),
        ({"LC_ALL": "POSIX", "LANG": "de_DE.UTF-8"}, False),
        ({"LANG": "de_DE.UTF-8"}, True),
        ({"LC_NUMERIC": "fr_FR.UTF-8", "LANG": "en_US.UTF-8"}, True),
        ({"LC_ALL": "de_DE.UTF-8"}, True),
    ],
)
def test_perf_gets_c_numbers_only_when_the_locale_may_use_commas(monkeypatch, env, wrapped):
    for name in ("LC_ALL", "LC_NUMERIC", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    perf_env, command = perf_mod._in_c_numeric(["prog", "arg"])
    if not wrapped:
        assert (perf_env, command) == ({}, ["prog", "arg"])
        return
    assert perf_env == {"LC_ALL": "C"}
    assert command[-2:] == ["prog", "arg"] and os.path.basename(command[0]) == "env"
    # env first removes perf's LC_ALL=C, then puts back exactly the user's variables
    assert command[1:3] == ["-u", "LC_ALL"]
    assert sorted(command[3:-2]) == sorted(f"{k}={v}" for k, v in env.items())


def test_program_under_perf_sees_the_users_locale(monkeypatch, tmp_path, software_perf):
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    out = tmp_path / "env.txt"
    code = f"import os; open({str(out)!r}, 'w').write(os.environ.get('LC_ALL', '') + '|' + os.environ.get('LANG', ''))"
    res = run_perf_stat(["task-clock"], [sys.executable, "-c", code], PerfStatOptions(timeout=60))
    assert res.returncode == 0
    assert out.read_text() == "de_DE.UTF-8|de_DE.UTF-8"
    row = res.counts[res.counts["event"] == "task-clock"]
    assert row["status"].iloc[0] == "ok" and row["value"].iloc[0] > 0


def test_a_killed_program_is_seen_through_the_locale_wrapper(monkeypatch, software_perf):
    import signal

    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    # the program runs a moment before it is killed: one killed before perf waits for it is reported as
    # exit 0 by perf itself (its SIGCHLD handler forgets the child; seen once under load in CI)
    res = run_perf_stat(["task-clock"], ["sh", "-c", "sleep 0.3; kill -SEGV $$"], PerfStatOptions(timeout=60))
    assert res.returncode == -signal.SIGSEGV
