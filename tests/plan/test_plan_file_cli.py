"""Plan file round trips (TOML, JSON) and the ``hemkit plan`` command."""

import json
import tomllib

import pytest
from click.testing import CliRunner

from hemkit import HemkitError
from hemkit.cli import main
from hemkit.plan import Plan, make_plan


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_plan_round_trip(tmp_path, suffix):
    p = make_plan(["task-clock", "page-faults", "sched:sched_switch", "e3", "e4"], 3, design="much")
    path = p.to_file(tmp_path / f"plan{suffix}")
    q = Plan.from_file(path)
    assert q == p
    assert q.events == ["task-clock", "page-faults", "sched:sched_switch", "e3", "e4"]
    assert q.missing_pairs() == []


def test_toml_is_human_readable(tmp_path):
    p = make_plan([f"e{i}" for i in range(7)], 3)
    text = p.to_toml()
    assert text.startswith("# hemkit plan: 7 events, 7 groups")
    assert tomllib.loads(text)["groups"] == p.groups
    assert text.count("\n  [") == 7  # one group per line


def test_hrm_plan_has_anchor():
    p = make_plan(["cycles", "a", "b", "c", "d"], 3, design="hrm")
    assert p.anchor == "cycles" and all(g[0] == "cycles" for g in p.groups)


@pytest.mark.parametrize(
    "text,msg",
    [
        ("groups = 3\n", "list of lists"),
        ("design = 'much'\n", "no 'groups'"),
        ("groups = [[\n", "not a valid plan file"),
        ("pmcs = 2\ngroups = [['a', 'b', 'c']]\n", "group 0 has 3 events but pmcs is 2"),
    ],
)
def test_bad_plan_files(tmp_path, text, msg):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(HemkitError, match=msg):
        Plan.from_file(path)


def test_cli_plan_writes_file(tmp_path):
    out = tmp_path / "p.json"
    res = CliRunner().invoke(main, ["plan", *[f"e{i}" for i in range(10)], "--pmcs", "4", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "Schönheim lower bound 8" in res.output
    assert len(json.loads(out.read_text())["groups"]) == 9


def test_cli_plan_errors_exit_2(tmp_path):
    res = CliRunner().invoke(main, ["plan", "a", "b", "--pmcs", "1"])
    assert res.exit_code == 2 and "at least 2 counters" in res.output
    res = CliRunner().invoke(main, ["plan", "a", "b", "--pmcs", "2", "--counters", "a0"])
    assert res.exit_code == 2 and "EVENT=C1,C2" in res.output
    res = CliRunner().invoke(main, ["plan", "a", "b", "c", "--pmcs", "3", "--design", "hrm", "--anchor", "z"])
    assert res.exit_code == 2 and "anchor 'z'" in res.output


def test_cli_plan_constraints(tmp_path):
    out = tmp_path / "p.toml"
    res = CliRunner().invoke(
        main,
        [
            "plan",
            "cycles",
            "a",
            "b",
            "c",
            "d",
            "e",
            "--pmcs",
            "4",
            "--anchor",
            "cycles",
            "--must-share",
            "a,b",
            "--counters",
            "c=0",
            "-o",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    p = Plan.from_file(out)
    assert all(g[0] == "cycles" for g in p.groups) and p.missing_pairs() == []
    assert p.perf_groups == [["a", "b"]]
    assert all(("a" in g) == ("b" in g) for g in p.groups)
