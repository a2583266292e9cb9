"""Counter probe with a fake 5-counter PMU (silent 6th counter, FP-style breaker) and on this machine."""

import pytest

from hemkit.collect import probe

HW = ["cycles", "instructions", "branches", "branch-misses", "L1-dcache-loads", "dTLB-loads", "iTLB-loads"]


def test_budget_is_five_although_perf_says_100_percent(fake_perf):
    res = probe(HW + ["task-clock"], ["true"], runs=2)
    assert res.budget == 5
    assert res.steps["ok"].tolist() == [True] * 5 + [False, False]
    assert "dTLB-loads reads 0 in the group" in res.steps["note"].iloc[5]
    v = res.events.set_index("event")["verdict"]
    assert v["task-clock"] == "ok (no counter limit)"
    assert v["dTLB-loads"].startswith("did not fit")
    assert "budget: 5 hardware events" in res.note


def test_breaker_event_flagged_measure_alone(fake_perf, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_BREAKER", "r0803")
    res = probe(["cycles", "r0803", "instructions", "branches"], ["true"], runs=2)
    assert res.budget == 3
    assert res.events.set_index("event").loc["r0803", "verdict"] == "breaks its group: measure alone"


def test_unsupported_and_zero(fake_perf, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_UNSUPPORTED", "cycles,instructions")
    res = probe(["cycles", "instructions", "page-faults"], ["true"], runs=1)
    assert res.budget is None
    assert "perf counts no hardware event here (2 of 2 <not supported>: no PMU driver?)" in res.note
    assert "no counter limit" in res.note
    # an event without a count showed cv 0 beside its NaN median, a variation measured as none
    cv = res.events.set_index("event")["cv"]
    assert cv.isna().tolist() == [True, True, False], cv
    # the table shown said NaN where the counts were: it says perf's words, and no CV
    s = res.summary()
    assert s["alone"].tolist()[:2] == ["<not supported>"] * 2 and s["cv"].tolist()[:2] == ["", ""], s
    assert s.loc["page-faults", "alone"] == res.events.set_index("event").loc["page-faults", "alone"] > 0
    assert "NaN" not in repr(res) and "nan" not in repr(res)


def test_cli_probe_without_a_pmu_shows_no_nan(fake_perf, cli, monkeypatch):
    """On a machine without a PMU the probe table showed NaN as the count and CV of every hardware event."""
    monkeypatch.setenv("FAKE_PERF_UNSUPPORTED", "cycles,instructions")
    res = cli(["probe", "cycles", "instructions", "page-faults", "--runs", "2", "--", "true"])
    assert res.exit_code == 0, res.stderr
    assert "NaN" not in res.stdout and "nan" not in res.stdout, res.stdout
    rows = {line.split()[0]: line.split()[1:] for line in res.stdout.splitlines()[2:-1]}
    assert rows["cycles"] == ["hardware", "<not", "supported>", "unsupported"], res.stdout
    assert rows["page-faults"][0] == "software" and float(rows["page-faults"][1]) > 0, res.stdout


def test_result_object(fake_perf):
    res = probe(HW[:3] + ["task-clock"], ["true"], runs=1)
    s = res.summary()
    assert s.index.name == "event" and list(s.columns) == ["kind", "alone", "cv", "verdict"]
    assert res.runs == 4 + 2  # each event alone, then groups of 2 and 3
    assert res.line() == f"{res.note} (6 perf runs)"
    assert repr(res).startswith("ProbeResult\n")


def test_cli_probe_fake(fake_perf, cli):
    res = cli(["probe", *HW[:6], "--runs", "1", "--", "true"])
    assert res.exit_code == 0, res.stderr
    assert "budget: 5 hardware events" in res.stdout
    assert res.stdout.strip().splitlines()[-1].endswith("(11 perf runs)")
    assert res.stderr == ""  # no progress display when stderr is not a terminal


def test_cli_probe_repeats_is_a_deprecated_alias(fake_perf, cli):
    res = cli(["probe", "task-clock", "--repeats", "2", "--", "true"])
    assert res.exit_code == 0, res.stderr
    assert "(2 perf runs)" in res.stdout and "deprecated" in res.stderr and "--runs" in res.stderr


def test_cli_probe_takes_events_separated_by_commas_as_plan_does(fake_perf, cli):
    """'probe page-faults,task-clock' probed one unknown 'hardware' event (NaN, 'no output from perf') and exited 0."""
    joined = cli(["probe", "page-faults,task-clock", "--runs", "1", "--", "true"])
    apart = cli(["probe", "page-faults", "task-clock", "--runs", "1", "--", "true"])
    assert joined.exit_code == apart.exit_code == 0, joined.stderr
    assert "NaN" not in joined.stdout and "no output from perf" not in joined.stdout
    for res in (joined, apart):  # the same events, each measured (the fake perf's counts vary run to run)
        rows = [line.split()[0] for line in res.stdout.splitlines() if "ok (no counter limit)" in line]
        assert rows == ["page-faults", "task-clock"], res.stdout
        assert res.stdout.strip().splitlines()[-1].startswith("no counter limit: all 2 events are software")


@pytest.mark.parametrize(
    ("events", "message"),
    [
        (["page-faults,task-clock"], "event name 'page-faults,task-clock' holds several events"),
        (["page-faults", "task-clock", "page-faults"], "event 'page-faults' is given twice"),
        (["task-clock", ""], "an event name is empty"),
    ],
)
def test_probe_refuses_event_lists_that_are_no_list_of_events(fake_perf, bad_input, events, message):
    from hemkit.core.errors import InputError

    with pytest.raises(InputError, match=message):
        probe(events, ["true"], runs=1)
    if len(events) == 3:  # on the command line a comma separates events, as for 'hemkit plan'
        bad_input(["probe", *events, "--runs", "1", "--", "true"], names=[message])


def test_a_pmu_term_list_is_one_event(fake_perf):
    from hemkit.collect.probe import _checked_events

    assert _checked_events(["cpu/event=0x3c,umask=0x0/", "task-clock"]) == ["cpu/event=0x3c,umask=0x0/", "task-clock"]


@pytest.mark.perf
def test_probe_on_this_machine(software_perf):
    from hemkit.collect import ubench_command
    from hemkit.external.perf import hardware_events_work

    res = probe(["task-clock", "page-faults", "instructions"], ubench_command("iadd", "L1", 10**5), runs=1)
    v = res.events.set_index("event")["verdict"]
    assert v["task-clock"] == "ok (no counter limit)"
    if not hardware_events_work()[0]:
        assert v["instructions"] == "unsupported" and res.budget is None
        assert "no PMU driver" in res.note
