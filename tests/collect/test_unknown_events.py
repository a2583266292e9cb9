"""Events perf does not know are refused before the first run (issue 22, item 3).

``hemkit collect`` checks every event of the plan with this machine's perf before it runs or
stores anything: a misspelt event is one error line naming every unknown event in full with
the closest names ``perf list`` prints; no database is made, and a stored one is unchanged.
``hemkit plan`` does the same where perf is installed, and checks nothing where it is not.
"""

import pytest

from hemkit.collect import collect
from hemkit.plan import Plan, make_plan

TYPOS = ["task-clock", "context-swtiches", "page-fualts"]


@pytest.fixture
def real_perf():
    """Skip unless this machine has a perf (its event parser is what is tested)."""
    from hemkit.core.errors import SetupError
    from hemkit.external.perf import find_perf

    try:
        return find_perf()
    except SetupError as exc:
        pytest.skip(str(exc))


@pytest.mark.perf
def test_collect_refuses_misspelt_events_before_any_run(real_perf, bad_input, tmp_path):
    plan_file = make_plan(TYPOS, 2).to_file(tmp_path / "plan.toml")
    line = bad_input(
        ["collect", plan_file, "--runs", "2", "--", "true"],
        names=["'context-swtiches'", "context-switches", "'page-fualts'", "page-faults", "2 events"],
        watch=[tmp_path],
    )
    assert line.startswith(f"hemkit: error: {plan_file}: "), line  # the file to fix: the plan
    assert "'task-clock'" not in line and ".." not in line  # only the unknown ones, each in full
    assert not (tmp_path / "plan.db").exists() and not (tmp_path / "plan.db.lock").exists()


@pytest.mark.perf
def test_collect_resumed_with_an_unknown_event_leaves_the_database_unchanged(
    real_perf, bad_input, tmp_path, monkeypatch, fake_perf_launcher
):
    db = tmp_path / "c.db"
    plan = Plan([["task-clock", "context-swtiches"], ["task-clock", "page-faults"]])
    monkeypatch.setenv("HEMKIT_PERF", str(fake_perf_launcher))  # the fake perf takes any name
    collect(plan, ["true"], db, runs=2)
    monkeypatch.delenv("HEMKIT_PERF")
    plan_file = plan.to_file(tmp_path / "plan.toml")
    names = [f"{plan_file}: ", "'context-swtiches'", "context-switches"]
    bad_input(["collect", plan_file, "-o", db, "--runs", "3"], names=names, watch=[tmp_path])


@pytest.mark.perf
def test_plan_refuses_misspelt_events_where_perf_exists(real_perf, bad_input, tmp_path):
    out = tmp_path / "plan.toml"
    bad_input(
        ["plan", *TYPOS, "--pmcs", "2", "-o", out],
        names=["'context-swtiches'", "context-switches", "'page-fualts'", "page-faults", "--no-check-events"],
        watch=[tmp_path],
    )
    from ..conftest import run_cli

    res = run_cli(["plan", *TYPOS, "--pmcs", "2", "--no-check-events", "-o", out, "-q"])
    assert res.exit_code == 0 and out.exists(), res.stderr


def test_plan_without_perf_checks_nothing(tmp_path, monkeypatch):
    from ..conftest import run_cli

    monkeypatch.setenv("HEMKIT_PERF", "hemkit-no-such-perf")
    res = run_cli(["plan", *TYPOS, "--pmcs", "2", "-o", tmp_path / "plan.toml", "-q"])
    assert res.exit_code == 0 and not res.stderr, res.stderr


def test_many_unknown_events_are_counted_past_the_first_ten(real_perf, bad_input, tmp_path):
    """Fifty names of another machine's events: the line names ten, counts the rest and says how to plan them."""
    from hemkit.external.perf import SHOW_UNKNOWN

    names = [f"other_pmu_event_{i}" for i in range(50)]
    err = bad_input(
        ["plan", *names, "--pmcs", "6", "-o", tmp_path / "plan.toml"],
        names=["50 events", "'other_pmu_event_0'", f"and {50 - SHOW_UNKNOWN} more", "--no-check-events"],
        watch=[tmp_path],
    )
    assert "'other_pmu_event_10'" not in err
