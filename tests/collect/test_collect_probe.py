"""Counter probe with a fake 5-counter PMU (silent 6th counter, FP-style breaker) and on this machine."""

import pytest
from click.testing import CliRunner

from hemkit.cli import main
from hemkit.collect import probe

HW = ["cycles", "instructions", "branches", "branch-misses", "L1-dcache-loads", "dTLB-loads", "iTLB-loads"]


def test_budget_is_five_although_perf_says_100_percent(fake_perf):
    res = probe(HW + ["task-clock"], ["true"], repeats=2)
    assert res.budget == 5
    assert res.steps["ok"].tolist() == [True] * 5 + [False, False]
    assert "dTLB-loads reads 0 in the group" in res.steps["note"].iloc[5]
    v = res.events.set_index("event")["verdict"]
    assert v["task-clock"] == "ok (no counter limit)"
    assert v["dTLB-loads"].startswith("did not fit")
    assert "budget: 5 hardware events" in res.note


def test_breaker_event_flagged_measure_alone(fake_perf, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_BREAKER", "r0803")
    res = probe(["cycles", "r0803", "instructions", "branches"], ["true"], repeats=2)
    assert res.budget == 3
    assert res.events.set_index("event").loc["r0803", "verdict"] == "breaks its group: measure alone"


def test_unsupported_and_zero(fake_perf, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_UNSUPPORTED", "cycles,instructions")
    res = probe(["cycles", "instructions", "page-faults"], ["true"], repeats=1)
    assert res.budget is None
    assert "perf counts no hardware event here (2 of 2 <not supported>: no PMU driver?)" in res.note
    assert "no counter limit" in res.note


def test_cli_probe_fake(fake_perf):
    res = CliRunner().invoke(main, ["probe", *HW[:6], "--repeats", "1", "--", "true"])
    assert res.exit_code == 0, res.output
    assert "budget: 5 hardware events" in res.output


@pytest.mark.perf
def test_probe_on_this_machine(software_perf):
    from hemkit.collect import ubench_command
    from hemkit.external.perf import hardware_events_work

    res = probe(["task-clock", "page-faults", "instructions"], ubench_command("iadd", "L1", 10**5), repeats=1)
    v = res.events.set_index("event")["verdict"]
    assert v["task-clock"] == "ok (no counter limit)"
    if not hardware_events_work()[0]:
        assert v["instructions"] == "unsupported" and res.budget is None
        assert "no PMU driver" in res.note
