"""The Plan result object, plan files (TOML, JSON) through hemkit.io.planfile, and ``hemkit plan``."""

import json
import tomllib

import pandas as pd
import pytest

from hemkit.core.errors import InputError
from hemkit.io.planfile import plan_text, read_plan_file, write_plan_file
from hemkit.plan import Plan, SearchOptions, covering_design, make_plan

QUICK = SearchOptions(time_budget=None, effort=0.05, exact_time=0)


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_plan_round_trip(tmp_path, suffix):
    p = make_plan(["task-clock", "page-faults", "sched:sched_switch", "cpu/event=0x3c,umask=0x0/", "e4"], 3)
    path = write_plan_file(tmp_path / f"plan{suffix}", p.to_dict())
    q = Plan.from_file(path)
    assert q == p and q.groups == p.groups
    assert q.events == ["task-clock", "page-faults", "sched:sched_switch", "cpu/event=0x3c,umask=0x0/", "e4"]
    assert q.missing_pairs() == []
    assert Plan.from_file(p.to_file(tmp_path / f"again{suffix}")) == p  # the convenience goes through io


def test_toml_is_human_readable_and_json_is_compact(tmp_path):
    p = make_plan([f"e{i}" for i in range(7)], 3)
    path = p.to_file(tmp_path / "p.toml")
    text = path.read_text()
    assert text.startswith("# hemkit much plan: 7 events in 7 groups")
    assert tomllib.loads(text)["groups"] == p.groups
    assert text.count("\n  [") == 7  # one group per line
    js = plan_text(p.to_dict(), "json")
    assert json.loads(js)["groups"] == p.groups and js.count("\n    [") == 7


def test_plan_is_a_frozen_result_object():
    p = covering_design([f"e{i}" for i in range(16)], 6, search=QUICK)
    s = p.summary()
    assert isinstance(s, pd.DataFrame) and s.loc["groups", "value"] == p.size == 10
    assert s.loc["lower bound", "value"] == 8 and s.loc["best known", "value"] == 10
    assert repr(p).startswith("Plan\n") and "lower bound" in repr(p)
    assert list(p.to_frame().columns) == ["size", "events"] and len(p.to_frame()) == 10
    with pytest.raises(AttributeError):
        p.pmcs = 3  # type: ignore[misc]
    with pytest.raises(TypeError, match="cannot be changed"):
        p.groups[0].append("x")
    with pytest.raises(TypeError):
        p.groups.append(["x"])
    with pytest.raises(TypeError):
        p.diagnostics["x"] = 1  # type: ignore[index]
    assert p.groups == [list(g) for g in p.groups] and json.dumps(p.groups)  # still lists to everyone else


def test_hrm_plan_has_anchor_and_manual_plans_work():
    p = make_plan(["cycles", "a", "b", "c", "d"], 3, design="hrm")
    assert p.anchor == "cycles" and all(g[0] == "cycles" for g in p.groups)
    assert p.lower_bound == 2 and p.optimal
    m = Plan([["a", "b"], ["c"]], design="ideal")  # how other areas build one by hand
    assert m.events == ["a", "b", "c"] and m.pmcs == 0 and m.missing_pairs() == [("a", "c"), ("b", "c")]


# ----------------------------------------------------------- bad plan files
BAD_FILES = [
    # (file name, contents, words the message must hold)
    ("bad.toml", "groups = [[\n", ["bad.toml", "not valid TOML"]),
    ("bad.json", '{"groups": [["a", "b"]]', ["bad.json", "not valid JSON", "line 1"]),
    ("bad.json", "[1, 2]", ["bad.json", "expected a table of keys", "list"]),
    ("bad.json", "null", ["bad.json", "table of keys"]),
    ("bad.toml", b"\xff\xfe\x00groups", ["bad.toml", "not UTF-8"]),
    ("empty.toml", "", ["empty.toml", "no 'groups' key"]),
    ("bad.toml", "design = 'much'\n", ["no 'groups' key"]),
    ("bad.toml", "groups = 3\n", ["key 'groups'", "list of lists"]),
    ("bad.toml", "groups = ['a', 'b']\n", ["key 'groups'", "list of lists"]),
    ("bad.json", '{"groups": [["a", 1]]}', ["key 'groups'", "list of lists"]),
    ("bad.toml", "groups = []\n", ["key 'groups'", "no groups"]),
    ("bad.toml", "groups = [[]]\n", ["key 'groups'", "group 0 is empty"]),
    ("bad.toml", "groups = [['a', 'a']]\n", ["key 'groups'", "group 0 names event 'a' twice"]),
    ("bad.toml", "pmcs = 2\ngroups = [['a', 'b', 'c']]\n", ["key 'groups'", "group 0 has 3 events but pmcs is 2"]),
    ("bad.toml", "pmcs = '2'\ngroups = [['a']]\n", ["key 'pmcs'", "integer"]),
    ("bad.toml", "pmcs = true\ngroups = [['a']]\n", ["key 'pmcs'", "integer"]),
    ("bad.toml", "pmcs = -1\ngroups = [['a']]\n", ["key 'pmcs'", "non-negative"]),
    ("bad.toml", "design = 3\ngroups = [['a']]\n", ["key 'design'"]),
    ("bad.toml", "design = ''\ngroups = [['a']]\n", ["key 'design'"]),
    ("bad.toml", "anchor = ['a']\ngroups = [['a']]\n", ["key 'anchor'"]),
    ("bad.toml", "anchor = 'z'\ngroups = [['a', 'b']]\n", ["key 'anchor'", "group 0 does not read the anchor 'z'"]),
    ("bad.toml", "events = ['a', 'a']\ngroups = [['a']]\n", ["key 'events'", "'a' twice"]),
    ("bad.toml", "events = ['a']\ngroups = [['a', 'b']]\n", ["key 'groups'", "'b'", "not in the event list"]),
    ("bad.toml", "events = ['a', 'b', 'c']\ngroups = [['a', 'b']]\n", ["key 'events'", "'c'", "in no group"]),
    ("bad.toml", "events = 'ab'\ngroups = [['a', 'b']]\n", ["key 'events'", "list of event names"]),
    ("bad.toml", "groups = [['a', 'b c']]\n", ["key 'groups'", "white space"]),
    ("bad.toml", "groups = [['a', '']]\n", ["key 'groups'", "empty"]),
    ("bad.toml", 'groups = [["a", "b\\u0007"]]\n', ["key 'groups'", "control"]),
    ("bad.toml", "optimal = 'yes'\ngroups = [['a']]\n", ["key 'optimal'", "true or false"]),
    ("bad.toml", "lower_bound = -3\ngroups = [['a']]\n", ["key 'lower_bound'"]),
    ("bad.toml", "best_known = 2.5\ngroups = [['a']]\n", ["key 'best_known'"]),
    ("bad.toml", "grops = [['a']]\ngroups = [['a']]\n", ["unknown key 'grops'"]),
    ("new.toml", "format_version = 2\ngroups = [['a']]\n", ["new.toml", "plan file version 2", "(version 1)"]),
    ("bad.toml", "format_version = 'one'\ngroups = [['a']]\n", ["bad.toml", "version 'one' is not a whole number"]),
    ("bad.toml", "perf_groups = 'ab'\ngroups = [['a', 'b']]\n", ["key 'perf_groups'"]),
    ("bad.toml", "perf_groups = [['a', 'z']]\ngroups = [['a', 'b']]\n", ["key 'perf_groups'", "'z'"]),
    (
        "bad.toml",
        "perf_groups = [['a', 'b']]\ngroups = [['a', 'b'], ['a', 'c']]\n",
        ["key 'perf_groups'", "group 1 reads only part of perf group 0"],
    ),
    ("deep.json", "[" * 100_000 + "]" * 100_000, ["deep.json"]),
]


@pytest.mark.parametrize("name,text,words", BAD_FILES)
def test_bad_plan_files_name_the_file_and_key(tmp_path, name, text, words):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(InputError) as info:
        Plan.from_file(path)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(str(path))
    for w in words:
        assert w in msg, msg


def test_missing_unreadable_and_folder_plan_files(tmp_path):
    with pytest.raises(InputError, match="no such plan file"):
        read_plan_file(tmp_path / "nope.toml")
    with pytest.raises(InputError, match="is a folder"):
        read_plan_file(tmp_path)


# ------------------------------------------------------------------ the CLI
NO_CHECK = "--no-check-events"  # made-up event names: not checked with this machine's perf


def test_cli_plan_writes_file_and_ends_with_one_line(cli, tmp_path):
    out = tmp_path / "p.json"
    res = cli(["plan", *[f"e{i}" for i in range(10)], NO_CHECK, "--pmcs", "4", "-o", out, "-q"])
    assert res.exit_code == 0, res.stderr
    assert "lower bound 8" in res.stdout and "best known 9" in res.stdout
    assert len(json.loads(out.read_text())["groups"]) == 9
    last = res.stdout.strip().splitlines()[-1]
    assert last.startswith("planned 10 events into 9 groups of at most 4 counters") and f"wrote {out}" in last


def test_cli_plan_constraints_and_deprecated_counters_alias(cli, tmp_path):
    out = tmp_path / "p.toml"
    args = [
        "plan",
        "cycles",
        "a",
        "b",
        "c",
        "d",
        "e",
        NO_CHECK,
        "--pmcs",
        "4",
        "--anchor",
        "cycles",
        "--must-share",
        "a,b",
    ]
    res = cli([*args, "--event-counters", "c=0", "-o", out, "-q"])
    assert res.exit_code == 0, res.stderr
    p = Plan.from_file(out)
    assert all(g[0] == "cycles" for g in p.groups) and p.missing_pairs() == []
    assert p.perf_groups == [["a", "b"]] and all(("a" in g) == ("b" in g) for g in p.groups)
    old = cli([*args, "--counters", "c=0", "-q"])
    assert old.exit_code == 0 and "deprecated" in old.stderr and "--event-counters" in old.stderr
    assert old.stdout.splitlines()[-1].split(" in ")[0] == res.stdout.splitlines()[-1].split(" in ")[0]


def test_cli_plan_hrm_time_budget_and_pmu_names(cli):
    res = cli(
        ["plan", "cycles,instructions", "cpu/event=0x3c,umask=0x0/", "x y", NO_CHECK, "--pmcs", "3", "--design", "hrm"]
    )
    assert res.exit_code == 0, res.stderr
    assert "hrm plan: 5 events in 2 groups" in res.stdout and "cpu/event=0x3c,umask=0x0/" in res.stdout
    res = cli(
        ["plan", *[f"e{i}" for i in range(40)], NO_CHECK, "--pmcs", "5", "--time-budget", "0", "--seed", "3", "-q"]
    )
    assert res.exit_code == 0 and "planned 40 events" in res.stdout


def test_cli_plan_is_reproducible(cli, tmp_path):
    outs = []
    for name in ("a.toml", "b.toml"):
        res = cli(
            ["plan", *[f"e{i}" for i in range(14)], NO_CHECK, "--pmcs", "5", "--seed", "7", "-o", tmp_path / name, "-q"]
        )
        assert res.exit_code == 0
        outs.append((tmp_path / name).read_text())
    assert outs[0] == outs[1]


@pytest.mark.parametrize("name", ["p.csv", "p.yaml", "p.DB", "p.parquet", "p.xlsx"])
def test_a_plan_named_for_another_format_is_refused_and_not_written(tmp_path, name, bad_input):
    """plan -o p.csv wrote TOML text into p.csv (and -o p.db a plan that 'collect p.db' takes for its database)."""
    from hemkit.core.errors import OutputError

    p = make_plan(["task-clock", "page-faults", "context-switches"], 2)
    with pytest.raises(OutputError, match=rf"{name}: hemkit writes a plan as TOML or JSON, not \.\w+; name it \.toml"):
        p.to_file(tmp_path / name)
    assert list(tmp_path.iterdir()) == []
    args = ["plan", "task-clock", "page-faults", "--pmcs", "2", "--no-check-events", "-o", tmp_path / name]
    bad_input(args, names=["'-o' / '--output'", name, "name it .toml or .json"], watch=[tmp_path])
    for ok in ("p.toml", "p.JSON", "plan", "p.txt"):  # TOML under any other name, JSON by suffix
        assert Plan.from_file(p.to_file(tmp_path / ok)) == p


def test_an_event_name_holding_several_events_is_refused(tmp_path, bad_input):
    """A plan file naming 'page-faults,minor-faults' was collected: 5 invalid runs ('missing from perf output')."""
    with pytest.raises(InputError, match="event name 'a,b' holds several events"):
        make_plan(["a,b", "c"], 2)
    assert make_plan(["cpu/event=0x3c,umask=0x0/", "c"], 2).events == ["cpu/event=0x3c,umask=0x0/", "c"]
    plan = tmp_path / "plan.toml"
    plan.write_text('groups = [["task-clock", "page-faults,minor-faults"]]\n')
    names = [str(plan), "'page-faults,minor-faults' holds several events"]
    bad_input(["collect", plan, "--runs", "3", "--", "true"], names=names, watch=[tmp_path])


def test_summary_lines_say_1_event_in_1_group(cli):
    """'much plan: 1 events in 1 groups ...' and 'planned 1 events into 1 groups ...'."""
    res = cli(["plan", "task-clock", "--pmcs", "2", "--no-check-events", "-q"])
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("much plan: 1 event in 1 group of at most 2 counters")
    assert "planned 1 event into 1 group of at most 2 counters" in res.stdout
    two = cli(["plan", "task-clock", "page-faults", "--pmcs", "2", "--no-check-events", "-q"])
    assert two.stdout.startswith("much plan: 2 events in 1 group of")
