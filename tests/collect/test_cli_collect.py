"""The collect commands as a user sees them: progress on a terminal only, one summary line, export, aliases."""

import os
import pty
import re
import select
import subprocess
import sys

import pandas as pd
import pytest


def _run_on_a_terminal(args, env, cwd):
    """Run hemkit with stderr (and stdout) on a pseudo-terminal; return (exit code, what the terminal showed)."""
    master, slave = pty.openpty()
    env = dict(env, PYTHONPATH=os.pathsep.join(sys.path), COLUMNS="120", TERM="xterm")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from hemkit.cli import main; main()", *map(str, args)],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
    )
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed: the program ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return proc.wait(timeout=60), re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown.decode(errors="replace"))


def test_progress_on_a_terminal_and_not_with_quiet(fake_perf, plan_file, tmp_path):
    env = dict(os.environ, FAKE_PERF_SLEEP="0.05")
    code, shown = _run_on_a_terminal(["collect", plan_file, "--runs", "3", "--", "true"], env, tmp_path)
    assert code == 0, shown
    assert re.search(r"collect ━+ +\d+/18", shown), shown  # rich's bar with runs done / runs to do
    assert f"{tmp_path / 'plan.db'}: 18 of 18 runs valid (18 added now); complete" in shown
    code, shown = _run_on_a_terminal(["collect", plan_file, "--runs", "4", "--quiet"], env, tmp_path)
    assert code == 0, shown
    assert "/6" not in shown and "━" not in shown
    assert shown.strip().splitlines()[-1].strip().endswith("24 of 24 runs valid (6 added now); complete")


def test_silent_when_not_a_terminal_and_one_summary_line(fake_perf, plan_file, tmp_path, cli):
    res = cli(["collect", plan_file, "--runs", "2", "--", "true"])
    assert res.exit_code == 0 and res.stderr == ""
    assert res.stdout.strip().splitlines() == [f"{tmp_path / 'plan.db'}: 12 of 12 runs valid (12 added now); complete"]
    res = cli(["collect", plan_file, "--runs", "3"])
    assert res.exit_code == 0 and res.stderr == ""
    assert res.stdout.strip().splitlines() == [
        f"continued {tmp_path / 'plan.db'}: true (in {os.getcwd()})",  # the folder it runs in
        f"{tmp_path / 'plan.db'}: 18 of 18 runs valid (6 added now); complete",
    ]


def test_invalid_runs_are_counted_with_their_reason(fake_perf, plan_file, tmp_path, cli, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_FLAKY", str(tmp_path / "n"))
    res = cli(["collect", plan_file, "--runs", "2", "-q", "--", "true"])
    assert res.exit_code == 0, res.stderr
    line = res.stdout.strip().splitlines()[-1]
    assert "12 of 12 runs valid (12 added now; " in line
    assert " x task-clock multiplexed (counted 60% of the time)" in line


def test_output_option_and_deprecated_db_alias(fake_perf, plan_file, tmp_path, cli):
    res = cli(["collect", plan_file, "-o", tmp_path / "mine.db", "--runs", "1", "--", "true"])
    assert res.exit_code == 0 and (tmp_path / "mine.db").exists() and not (tmp_path / "plan.db").exists()
    res = cli(["collect", plan_file, "--db", tmp_path / "old.db", "--runs", "1", "--", "true"])
    assert res.exit_code == 0 and (tmp_path / "old.db").exists()
    assert "deprecated" in res.stderr and "-o/--output" in res.stderr


def test_status(fake_perf, plan_file, tmp_path, cli):
    cli(["collect", plan_file, "--runs", "2", "--", "true"])
    res = cli(["collect", "--status", tmp_path / "plan.db"])
    assert res.exit_code == 0
    assert res.stdout.strip().splitlines()[-1] == f"{tmp_path / 'plan.db'}: 12 of 12 runs valid (100%), 0 invalid"
    assert "last_invalid_reason" in res.stdout


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_export_command(fake_perf, plan_file, tmp_path, cli, suffix):
    cli(["collect", plan_file, "--runs", "3", "--", "true"])
    out = tmp_path / f"r.{suffix}"
    res = cli(["export", tmp_path / "plan.db", "-o", out])
    assert res.exit_code == 0, res.stderr
    assert res.stdout.strip() == f"read {tmp_path / 'plan.db'}: 6 groups, 4 events, 18 runs; wrote {out} (36 rows)"
    t = pd.read_csv(out) if suffix == "csv" else pd.read_parquet(out)
    assert list(t.columns) == ["group", "run", "event", "value"] and len(t) == 36
    res = cli(["export", out, "-o", tmp_path / "again.csv"])  # any readings input, a tidy file too
    assert res.exit_code == 0 and pd.read_csv(tmp_path / "again.csv").equals(pd.read_csv(out) if suffix == "csv" else t)


def test_export_of_an_unfinished_collection_writes_every_stored_run(fake_perf, plan_file, tmp_path, cli):
    """A collection stopped at 2 runs a group was refused ('group 0: has 2 runs; at least 3 are needed'):
    export writes the stored runs out, however few, as hemkit report shows them."""
    cli(["collect", plan_file, "--runs", "2", "--", "true"])
    res = cli(["export", tmp_path / "plan.db", "-o", tmp_path / "r.csv"])
    assert res.exit_code == 0, res.stderr
    assert "6 groups, 4 events, 12 runs" in res.stdout
    assert pd.read_csv(tmp_path / "r.csv").groupby("group")["run"].nunique().tolist() == [2] * 6


def test_export_drop_constant_and_raw_files(tmp_path, cli):
    from hemkit.datasets import t2080_path

    res = cli(["export", t2080_path("much_raw.csv"), "--pmcs", "6", "-o", tmp_path / "t.parquet"])
    assert res.exit_code == 0, res.stderr
    assert "24 groups, 16 events, 24000 runs" in res.stdout
    tidy = pd.DataFrame(
        {"group": [0] * 6, "run": [0, 0, 1, 1, 2, 2], "event": ["a", "b"] * 3, "value": [1, 5, 2, 5, 3, 5]}
    )
    tidy.to_csv(tmp_path / "c.csv", index=False)
    res = cli(["export", tmp_path / "c.csv", "--drop-constant", "-o", tmp_path / "d.csv"])
    assert res.exit_code == 0, res.stderr
    assert res.stderr.strip().startswith("hemkit: warning: ") and "'b'" in res.stderr
    assert pd.read_csv(tmp_path / "d.csv")["event"].unique().tolist() == ["a"]


def test_export_of_interval_files_writes_the_sums_perf_printed(tmp_path, cli):
    """export summed perf stat -I intervals in floats and wrote task-clock 51.96000000000001 for 51.96 msec."""
    from decimal import Decimal

    folder = tmp_path / "runs"
    folder.mkdir()
    ms = [
        ["8.26", "7.91", "5.11", "9.19", "7.78", "8.21", "5.52"],
        ["5.11", "9.19", "7.78", "8.21", "5.93", "9.96", "9.3"],
        ["3.14", "5.9", "4.33"],
    ]
    for r, clock in enumerate(ms):  # written in the layout of perf 6.1's 'perf stat -I 10 -x,'; the values made up
        lines = ["# started on Sun Nov 22 00:13:16 2026", ""]
        for k, v in enumerate(clock):
            t, ns = f"{0.01 * (k + 1) + 0.002315594:.9f}", int(float(v) * 1e6) + 17 * r
            lines += [f"     {t},{v},msec,task-clock,{ns},100.00,0.582,CPUs utilized"]
            lines += [f"     {t},{3928 + 1000 * k + r},,page-faults,{ns},100.00,675.307,K/sec"]
        (folder / f"run_{r + 1}.csv").write_text("\n".join(lines) + "\n")
    res = cli(["export", folder, "-o", tmp_path / "r.csv"])
    assert res.exit_code == 0, res.stderr
    text = (tmp_path / "r.csv").read_text().splitlines()[1:]
    got = {(f.split(",")[1], f.split(",")[2]): f.split(",")[3] for f in text}
    for r, clock in enumerate(ms):
        assert sum(map(float, clock)) != float(sum(map(Decimal, clock)))  # float sums add digits here
        assert got[(f"run_{r + 1}", "task-clock")] == str(sum(map(Decimal, clock))), text
        assert got[(f"run_{r + 1}", "page-faults")] == f"{sum(3928 + 1000 * k + r for k in range(len(clock)))}.0"


def test_deprecated_collect_export(fake_perf, plan_file, tmp_path, cli):
    cli(["collect", plan_file, "--runs", "3", "--", "true"])
    res = cli(["collect", "--export", tmp_path / "plan.db", tmp_path / "x.csv"])
    assert res.exit_code == 0 and len(pd.read_csv(tmp_path / "x.csv")) == 36
    assert "deprecated" in res.stderr and "hemkit export" in res.stderr
