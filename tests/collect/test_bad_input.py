"""Bad input to ``hemkit probe``, ``hemkit collect`` and ``hemkit export``, class by class (issue 11).

Every case: exit 2, exactly one line ``hemkit: error: ...`` naming the option, file, event or
program at fault, and no file created, removed or changed in the folder it works in
(:func:`tests.conftest.bad_input`).  Read-only and full disks: ``test_database.py`` (tmpfs).

Classes: A outputs (database or export file in a bad place, the input itself), F the database
(foreign, not SQLite, empty, damaged, another plan/command/pin/co-runner), H options (ranges,
formats, workloads), plus the plan file, the measured program and the co-runner.
"""

import os
import shutil
import sqlite3

import pytest

from hemkit.collect import collect
from hemkit.plan import make_plan

EVENTS = ["task-clock", "page-faults", "context-switches", "minor-faults"]
NCPU = os.cpu_count() or 1


@pytest.fixture(scope="module")
def template(tmp_path_factory, fake_perf_launcher):
    """The files the cases point at, made once: plans, a collection, foreign and damaged files."""
    w = tmp_path_factory.mktemp("world")
    plan = make_plan(EVENTS, 2)
    plan.to_file(w / "plan.toml")
    make_plan(EVENTS, 3).to_file(w / "plan3.toml")
    make_plan(["task-clock", "context-switches"], 2).to_file(w / "constant.toml")
    (w / "bad.toml").write_text("groups = [\n")
    (w / "nogroups.toml").write_text('design = "much"\n')
    (w / "folder").mkdir()
    (w / "text.db").write_text("group,run,event,value\n")
    (w / "empty.db").write_bytes(b"")
    with sqlite3.connect(w / "foreign.db") as con:
        con.execute("CREATE TABLE accounts (name TEXT)")
    old = os.environ.get("HEMKIT_PERF")
    os.environ["HEMKIT_PERF"] = str(fake_perf_launcher)
    try:
        collect(plan, ["true"], w / "c.db", runs=3)
        # page-faults made constant below: a database whose merge needs --drop-constant
        collect(make_plan(["task-clock", "page-faults"], 2), ["true"], w / "two.db", runs=3)
    finally:
        if old is None:
            del os.environ["HEMKIT_PERF"]
        else:
            os.environ["HEMKIT_PERF"] = old
    with sqlite3.connect(w / "two.db") as con:  # make page-faults constant, as software events often are
        con.execute("PRAGMA user_version = 0")
        con.execute("PRAGMA application_id = 0")
        con.execute("UPDATE readings SET value = 0 WHERE event = 'page-faults'")
    data = bytearray((w / "c.db").read_bytes())
    data[2 * 4096 + 8 : 2 * 4096 + 200] = b"\xa5" * 192
    (w / "damaged.db").write_bytes(bytes(data))
    (w / "prog.txt").write_text("not a program")
    (w / "raw.csv").write_text("X1,X2\n1,2\n3,4\n5,7\n")
    return w


@pytest.fixture
def world(template, tmp_path, fake_perf):
    """A private copy of the template folder (a case that wrongly succeeds cannot spoil the next)."""
    w = tmp_path / "w"
    shutil.copytree(template, w)
    return w


W = "{w}"
CASES = [
    # ------------------------------------------------------------ H: collect options
    ("runs-0", ["collect", f"{W}/plan.toml", "--runs", "0", "--", "true"], ["--runs"]),
    ("runs-negative", ["collect", f"{W}/plan.toml", "--runs", "-2", "--", "true"], ["--runs"]),
    ("runs-word", ["collect", f"{W}/plan.toml", "--runs", "many", "--", "true"], ["--runs"]),
    ("pin-99", ["collect", f"{W}/plan.toml", "--pin", "99", "--", "true"], ["--pin"]),
    ("pin-negative", ["collect", f"{W}/plan.toml", "--pin", "-1", "--", "true"], ["--pin"]),
    ("timeout-negative", ["collect", f"{W}/plan.toml", "--timeout", "-1", "--", "true"], ["--timeout"]),
    ("timeout-0", ["collect", f"{W}/plan.toml", "--timeout", "0", "--", "true"], ["--timeout"]),
    ("timeout-nan", ["collect", f"{W}/plan.toml", "--timeout", "nan", "--", "true"], ["timeout"]),
    ("max-attempts-0", ["collect", f"{W}/plan.toml", "--max-attempts", "0", "--", "true"], ["--max-attempts"]),
    ("format", ["collect", f"{W}/plan.toml", "--format", "xml", "--", "true"], ["--format"]),
    ("workload-short", ["collect", f"{W}/plan.toml", "--workload", "iadd:L1"], ["--workload", "iadd:L1"]),
    ("workload-op", ["collect", f"{W}/plan.toml", "--workload", "idiv:L1:100"], ["--workload", "idiv"]),
    ("workload-level", ["collect", f"{W}/plan.toml", "--workload", "iadd:L9:100"], ["--workload", "L9"]),
    ("workload-iters", ["collect", f"{W}/plan.toml", "--workload", "iadd:L1:many"], ["--workload"]),
    ("workload-jitter", ["collect", f"{W}/plan.toml", "--workload", "iadd:L1:100:2"], ["--workload", "jitter"]),
    ("workload-and-command", ["collect", f"{W}/plan.toml", "--workload", "iadd:L1:100", "--", "true"], ["--workload"]),
    ("unknown-option", ["collect", f"{W}/plan.toml", "--repetitions", "3", "--", "true"], ["--repetitions"]),
    # ------------------------------------------------------------------ the plan file
    ("no-plan", ["collect", "--runs", "2", "--", "true"], ["plan file"]),
    ("plan-missing", ["collect", f"{W}/none.toml", "--", "true"], [f"{W}/none.toml"]),
    ("plan-garbage", ["collect", f"{W}/bad.toml", "--", "true"], [f"{W}/bad.toml"]),
    ("plan-no-groups", ["collect", f"{W}/nogroups.toml", "--", "true"], [f"{W}/nogroups.toml", "groups"]),
    ("plan-folder", ["collect", f"{W}/folder", "--", "true"], [f"{W}/folder"]),
    # ------------------------------------------------------- A: the database as an output
    ("db-missing-folder", ["collect", f"{W}/plan.toml", "-o", f"{W}/no/c.db", "--", "true"], [f"{W}/no/c.db"]),
    ("db-is-folder", ["collect", f"{W}/plan.toml", "-o", f"{W}/folder", "--", "true"], [f"{W}/folder"]),
    ("db-is-the-plan", ["collect", f"{W}/plan.toml", "-o", f"{W}/plan.toml", "--", "true"], [f"{W}/plan.toml"]),
    ("db-is-a-device", ["collect", f"{W}/plan.toml", "-o", "/dev/null", "--", "true"], ["/dev/null"]),
    # ------------------------------------------------------------- F: the database itself
    ("db-foreign", ["collect", f"{W}/plan.toml", "-o", f"{W}/foreign.db", "--", "true"], [f"{W}/foreign.db"]),
    ("db-text", ["collect", f"{W}/plan.toml", "-o", f"{W}/text.db", "--", "true"], [f"{W}/text.db"]),
    ("db-empty", ["collect", f"{W}/plan.toml", "-o", f"{W}/empty.db", "--", "true"], [f"{W}/empty.db"]),
    ("db-damaged", ["collect", f"{W}/plan.toml", "-o", f"{W}/damaged.db", "--", "true"], [f"{W}/damaged.db"]),
    ("db-other-plan", ["collect", f"{W}/plan3.toml", "-o", f"{W}/c.db", "--", "true"], [f"{W}/c.db", "plan"]),
    ("db-other-command", ["collect", f"{W}/plan.toml", "-o", f"{W}/c.db", "--", "false"], [f"{W}/c.db", "'true'"]),
    ("db-other-pin", ["collect", f"{W}/plan.toml", "-o", f"{W}/c.db", "--pin", "0"], [f"{W}/c.db", "pin"]),
    (
        "db-other-corunner",
        ["collect", f"{W}/plan.toml", "-o", f"{W}/c.db", "--corunner", "sleep 100"],
        [f"{W}/c.db", "co-runner"],
    ),
    # a format other than the stored one was taken for the new runs only, the database still saying csv
    (
        "db-other-format",
        ["collect", f"{W}/plan.toml", "-o", f"{W}/c.db", "--format", "json"],
        [f"{W}/c.db", "--format csv"],
    ),
    ("db-new-no-command", ["collect", f"{W}/plan.toml", "-o", f"{W}/new.db"], ["no command"]),
    ("status-missing", ["collect", "--status", f"{W}/none.db"], [f"{W}/none.db"]),
    ("status-foreign", ["collect", "--status", f"{W}/foreign.db"], [f"{W}/foreign.db"]),
    ("status-text", ["collect", "--status", f"{W}/text.db"], [f"{W}/text.db"]),
    ("status-empty", ["collect", "--status", f"{W}/empty.db"], [f"{W}/empty.db"]),
    ("status-damaged", ["collect", "--status", f"{W}/damaged.db"], [f"{W}/damaged.db"]),
    ("status-folder", ["collect", "--status", f"{W}/folder"], [f"{W}/folder"]),
    # --status only reads: these were accepted and did nothing
    ("status-runs", ["collect", "--status", f"{W}/c.db", "--runs", "3"], ["--runs", "--status"]),
    ("status-format", ["collect", "--status", f"{W}/c.db", "--format", "json"], ["--format", "--status"]),
    ("status-plan", ["collect", f"{W}/plan.toml", "--status", f"{W}/c.db"], ["PLAN_FILE", "--status"]),
    ("status-command", ["collect", "--status", f"{W}/c.db", "--", "true"], ["command after --", "--status"]),
    # the measured command given without --: click said 'Got unexpected extra arguments (./prog 1000)'
    (
        "command-without-dashdash",
        ["collect", f"{W}/plan.toml", "./prog", "1000", "--runs", "3"],
        ["./prog 1000", "goes after --", "PLAN_FILE -- ./prog 1000"],
    ),
    ("program-option-without-dashdash", ["collect", f"{W}/plan.toml", "sort", "-n", "x"], ["'-n'", "after --"]),
    ("probe-program-option-without-dashdash", ["probe", "task-clock", "./prog", "-n", "2"], ["'-n'", "after --"]),
    # ------------------------------------------------------- the program and the co-runner
    ("program-missing", ["collect", f"{W}/plan.toml", "--", "no-such-program-here"], ["no-such-program-here"]),
    ("program-path-missing", ["collect", f"{W}/plan.toml", "--", "./no-such-prog"], ["./no-such-prog"]),
    ("program-not-executable", ["collect", f"{W}/plan.toml", "--", f"{W}/prog.txt"], [f"{W}/prog.txt"]),
    ("program-fails", ["collect", f"{W}/plan.toml", "--", "false"], ["false", "exit code 1"]),
    ("program-killed", ["collect", f"{W}/plan.toml", "--", "sh", "-c", "kill -9 $$"], ["SIGKILL"]),
    ("corunner-empty", ["collect", f"{W}/plan.toml", "--corunner", "", "--", "true"], ["corunner"]),
    ("corunner-quotes", ["collect", f"{W}/plan.toml", "--corunner", 'a "b', "--", "true"], ["corunner"]),
    ("corunner-missing", ["collect", f"{W}/plan.toml", "--corunner", "no-such-co", "--", "true"], ["no-such-co"]),
    # ---------------------------------------------------------------------------- probe
    ("probe-runs-0", ["probe", "task-clock", "--runs", "0", "--", "true"], ["--runs"]),
    ("probe-tol", ["probe", "task-clock", "--tol", "-1", "--", "true"], ["--tol"]),
    ("probe-pin", ["probe", "task-clock", "--pin", "99", "--", "true"], ["--pin"]),
    ("probe-timeout", ["probe", "task-clock", "--timeout", "0", "--", "true"], ["--timeout"]),
    ("probe-no-events", ["probe", "--", "true"], ["EVENTS"]),
    ("probe-no-command", ["probe", "task-clock"], ["command"]),
    ("probe-workload", ["probe", "task-clock", "--workload", "iadd"], ["--workload"]),
    ("probe-program-missing", ["probe", "task-clock", "--", "no-such-program-here"], ["no-such-program-here"]),
    ("probe-program-fails", ["probe", "task-clock", "--", "false"], ["false", "exit code 1"]),
    # --------------------------------------------------------------------------- export
    ("export-missing", ["export", f"{W}/none.db", "-o", f"{W}/x.csv"], [f"{W}/none.db"]),
    ("export-folder", ["export", f"{W}/folder", "-o", f"{W}/x.csv"], [f"{W}/folder"]),
    ("export-text", ["export", f"{W}/text.db", "-o", f"{W}/x.csv"], [f"{W}/text.db"]),
    ("export-foreign", ["export", f"{W}/foreign.db", "-o", f"{W}/x.csv"], [f"{W}/foreign.db"]),
    ("export-damaged", ["export", f"{W}/damaged.db", "-o", f"{W}/x.csv"], [f"{W}/damaged.db"]),
    # a constant event is data: export writes it (test below); only a merge refuses it, naming the fix
    ("merge-constant", ["merge", f"{W}/two.db", "-o", f"{W}/x.csv"], [f"{W}/two.db", "page-faults", "--drop-constant"]),
    ("export-no-output", ["export", f"{W}/c.db"], ["--output"]),
    ("export-out-missing-folder", ["export", f"{W}/c.db", "-o", f"{W}/no/x.csv"], [f"{W}/no/x.csv"]),
    ("export-out-is-input", ["export", f"{W}/c.db", "-o", f"{W}/c.db"], [f"{W}/c.db"]),
    ("export-out-is-folder", ["export", f"{W}/c.db", "-o", f"{W}/folder"], [f"{W}/folder"]),
    ("export-out-device", ["export", f"{W}/c.db", "-o", "/dev/full"], ["/dev/full"]),
    ("export-codes-alone", ["export", f"{W}/c.db", "--codes", f"{W}/raw.csv", "-o", f"{W}/x.csv"], ["--codes"]),
    ("export-pmcs-0", ["export", f"{W}/raw.csv", "--pmcs", "0", "-o", f"{W}/x.csv"], ["--pmcs"]),
    ("export-raw-no-pmcs", ["export", f"{W}/raw.csv", "-o", f"{W}/x.csv"], [f"{W}/raw.csv"]),
    # the plan and its collection's database mixed up: each says what it is and what to give instead
    ("collect-database-as-plan", ["collect", f"{W}/c.db"], [f"{W}/c.db", "collection database", "--status"]),
    ("merge-plan-as-readings", ["merge", f"{W}/plan.toml"], [f"{W}/plan.toml", "hemkit plan", "hemkit collect"]),
    ("export-plan-as-readings", ["export", f"{W}/plan.toml", "-o", f"{W}/x.csv"], [f"{W}/plan.toml", "hemkit plan"]),
]


@pytest.mark.parametrize(("args", "names"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input(world, bad_input, args, names):
    args = [a.replace(W, str(world)) for a in args]
    names = [n.replace(W, str(world)) for n in names]
    bad_input(args, names=names, watch=[world], cwd=world)


def test_an_option_of_ours_after_the_command_is_said(world, cli):
    """'hemkit collect plan.toml -- ./prog 1000 --runs 3': --runs goes to the program (as after -- it must), which
    ignores it, and the collection ran 50 runs a group without a word. Now a warning says so, at once."""
    res = cli(["collect", world / "plan.toml", "-o", world / "new.db", "--", "no-such-program-here", "--runs", "3"])
    assert res.exit_code == 2
    warning = [line for line in res.stderr.splitlines() if line.startswith("hemkit: warning: ")]
    assert warning == [
        "hemkit: warning: --runs after -- is an argument of no-such-program-here, not an option of hemkit collect, "
        "whose options go before --"
    ], res.stderr
    assert not (world / "new.db").exists()
    # the program's own short options are its own: no word
    res = cli(["probe", "task-clock", "--", "no-such-program-here", "-o", "x", "--verbose"])
    assert "hemkit: warning" not in res.stderr, res.stderr


def test_every_case_names_something():
    assert len({c[0] for c in CASES}) == len(CASES)
    assert all(c[2] for c in CASES)


def test_export_writes_a_collection_with_a_constant_event_as_it_is(world, cli):
    import pandas as pd

    res = cli(["export", world / "two.db", "-o", world / "x.csv"])
    assert res.exit_code == 0, res.stderr
    tidy = pd.read_csv(world / "x.csv")
    assert set(tidy["event"]) == {"task-clock", "page-faults"}
    assert (tidy.loc[tidy["event"] == "page-faults", "value"] == 0).all()
