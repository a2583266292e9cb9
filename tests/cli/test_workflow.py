"""The everyday workflow as a new user walks it, with the real perf (issue 22).

plan -> collect -> merge -> export -> report on software events and tracepoints, where some
events are constant within some groups (a tracepoint that fires the same number of times in
every run, a migration that never happens): export and report take the collection as it is,
only the merge needs the constant events out, and every refusal names the options of the
command that printed it, which then get past it.  A misspelt event is refused before any run.
"""

from __future__ import annotations

import re
import shlex
import sys

import pandas as pd
import pytest

from hemkit.collect import ubench_command

EVENTS = ["task-clock", "page-faults", "context-switches", "cpu-migrations", "syscalls:sys_enter_read"]


def _options_named(stderr: str) -> list[str]:
    """The options an error line says to pass (``...; pass --drop-constant --impute maxdet``)."""
    found = re.search(r"; pass (--[^()]+?)(?: \(all \d+ in .*\))?$", stderr.strip().splitlines()[-1])
    assert found, f"no option named in: {stderr}"
    return shlex.split(found.group(1))


@pytest.mark.perf
def test_plan_collect_merge_export_report_with_constant_events(software_perf, cli, tmp_path):
    workload = ubench_command("iadd", "L2", 50_000, jitter=0.5)
    res = cli(["plan", *EVENTS, "--pmcs", "2", "-o", tmp_path / "plan.toml"])
    assert res.exit_code == 0, res.stderr
    res = cli(["collect", tmp_path / "plan.toml", "--runs", "6", "-o", tmp_path / "plan.db", "-q", "--", *workload])
    assert res.exit_code == 0, res.stderr
    db = tmp_path / "plan.db"

    # export and report take the collection as it is: every event, constant ones too
    res = cli(["export", db, "-o", tmp_path / "all.csv"])
    assert res.exit_code == 0, res.stderr
    tidy = pd.read_csv(tmp_path / "all.csv")
    assert set(tidy["event"]) == set(EVENTS)
    constant = tidy.groupby(["group", "event"])["value"].nunique().eq(1)
    assert constant.any(), "the workload should leave some event constant within a group"

    res = cli(["report", db, "-o", tmp_path / "report.html", "-q"])
    assert res.exit_code == 0, res.stderr
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    for event in EVENTS:
        assert event in html

    # the merge needs the constant events out: it says which, and which options of its own fix it
    res = cli(["merge", db, "-q"])
    assert res.exit_code == 2 and "is constant" in res.stderr and "Traceback" not in res.stderr
    options = _options_named(res.stderr)
    assert "--drop-constant" in options
    res = cli(["merge", db, "-q", *options, "-o", tmp_path / "merged.csv"])
    assert res.exit_code == 0, res.stderr
    merged = pd.read_csv(tmp_path / "merged.csv")
    assert not merged.isna().any().any()
    summary = res.stdout.strip().splitlines()[-1]
    assert "dropped: " in summary and "constant event(s)" in summary
    gone = set(EVENTS) - set(merged.columns)
    for event in gone:  # an event left out of the merge entirely is named in its summary
        assert repr(event) in summary
    assert "uncertain by" in res.stderr  # 6 runs a group: how noisy each observed correlation is


@pytest.mark.perf
def test_a_misspelt_event_is_refused_before_any_run(software_perf, cli, tmp_path):
    res = cli(["plan", "task-clock", "context-swtiches", "--pmcs", "2", "-o", tmp_path / "plan.toml"])
    if res.exit_code == 0:  # plan checks names only where perf is present; collect always does
        res = cli(["collect", tmp_path / "plan.toml", "--runs", "3", "-o", tmp_path / "c.db", "-q", "--", "true"])
    assert res.exit_code == 2, res.stderr
    assert "context-swtiches" in res.stderr and "context-switches" in res.stderr
    assert not (tmp_path / "c.db").exists()


@pytest.mark.perf
def test_a_folder_of_perf_stat_files_works_in_every_command_that_reads_readings(software_perf, cli, tmp_path):
    from hemkit.external.perf import PerfStatOptions, run_perf_stat  # noqa: F401 (perf is there)

    folder = tmp_path / "runs"
    folder.mkdir()
    import subprocess

    groups = [["task-clock", "page-faults"], ["task-clock", "minor-faults"], ["page-faults", "minor-faults"]]
    workload = ubench_command("iadd", "L2", 30_000, jitter=0.5)
    for g, events in enumerate(groups):
        for r in range(6):
            out = folder / f"g{g}_r{r}.csv"
            subprocess.run(
                ["perf", "stat", "-x,", "-o", str(out), "-e", ",".join(events), "--", *workload],
                check=True,
                capture_output=True,
                timeout=60,
            )
    for args in (
        ["export", folder, "-o", tmp_path / "x.csv"],
        ["merge", folder, "-q", "-o", tmp_path / "m.csv"],
        ["report", folder, "-q", "-o", tmp_path / "r.html"],
    ):
        res = cli(args)
        assert res.exit_code == 0, (args, res.stderr)
    assert set(pd.read_csv(tmp_path / "x.csv")["event"]) == {"task-clock", "page-faults", "minor-faults"}
    assert sys.platform.startswith("linux")
