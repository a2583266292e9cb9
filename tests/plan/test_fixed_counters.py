"""Fixed counters (issue 27 item 2): events on the CPU's fixed counters take no general counter."""

import itertools

import pytest

from hemkit.core.errors import InputError
from hemkit.io.kernel import CounterSettings, fixed_counter_events
from hemkit.plan import Plan, Planner, make_plan

EVENTS = ["cycles", "instructions", "branches", "branch-misses", "L1-dcache-loads", "dTLB-loads", "iTLB-loads"]


def test_fixed_events_use_no_general_counter_and_every_pair_is_covered():
    p = Planner("much", fixed_counters=["cycles", "instructions"]).plan(EVENTS, 4)
    assert p.fixed_counters == ["cycles", "instructions"]
    for g in p.groups:
        assert g[:2] == ["cycles", "instructions"] and len(g) - 2 <= 4
    assert max(len(g) for g in p.groups) == 6  # 4 general counters used, not 2
    assert p.missing_pairs() == []
    assert p.size < make_plan(EVENTS, 4).size  # without fixed counters every event takes a general one
    assert "+ 2 fixed (cycles, instructions)" in p.line()


def test_plan_file_round_trip_keeps_the_fixed_counters(tmp_path):
    p = Planner("much", fixed_counters=["cycles"]).plan(EVENTS, 3)
    q = Plan.from_file(p.to_file(tmp_path / "p.toml"))
    assert q == p and q.fixed_counters == ["cycles"]


def test_a_plan_over_its_general_counters_is_refused():
    with pytest.raises(InputError, match=r"group 0 has 3 events besides 1 on fixed counters but pmcs is 2"):
        Plan([["cycles", "a", "b", "c"]], pmcs=2, fixed_counters=["cycles"])
    with pytest.raises(InputError, match="does not read the fixed-counter event 'cycles'"):
        Plan([["cycles", "a"], ["b", "a"]], pmcs=2, fixed_counters=["cycles"])
    with pytest.raises(InputError, match="not among the events"):
        Planner(fixed_counters=["ref-cycles"]).plan(EVENTS, 3)


def test_hrm_with_its_anchor_on_a_fixed_counter():
    p = Planner("hrm", anchor="cycles", fixed_counters=["cycles"]).plan(EVENTS, 2)
    assert p.anchor == "cycles" and all(g[0] == "cycles" and len(g) <= 3 for g in p.groups)
    assert sorted(itertools.chain(*(g[1:] for g in p.groups))) == sorted(EVENTS[1:])


def test_this_cpus_fixed_counters_from_the_kernel_log():
    intel = CounterSettings(fixed=3)
    assert fixed_counter_events(EVENTS + ["ref-cycles", "cycles:u"], intel) == [
        "cycles",
        "instructions",
        "ref-cycles",
        "cycles:u",
    ]
    assert fixed_counter_events(["cpu_core/cycles/", "cpu_atom/instructions/", "msr/tsc/"], intel) == [
        "cpu_core/cycles/",
        "cpu_atom/instructions/",
    ]
    assert fixed_counter_events(EVENTS, CounterSettings(fixed=0)) == []  # AMD Zen: none
    assert fixed_counter_events(EVENTS, CounterSettings(fixed=1)) == ["instructions"]


def kmsg_root(tmp_path, fixed):
    root = tmp_path / "root"
    (root / "dev").mkdir(parents=True)
    (root / "dev/kmsg").write_text(
        "6,1,1,-;Performance Events: PEBS fmt4+-baseline,  AnyThread deprecated, Alderlake Hybrid events, "
        "full-width counters, Intel PMU driver.\n"
        f"6,2,2,-;... generic registers:      8\n6,3,3,-;... fixed-purpose events:   {fixed}\n"
    )
    return root


def test_cli_fixed_auto_given_and_none(tmp_path, monkeypatch, cli):
    monkeypatch.setenv("HEMKIT_SYSROOT", str(kmsg_root(tmp_path, 3)))
    args = ["plan", *EVENTS, "--pmcs", "4", "--no-check-events"]
    res = cli([*args, "-o", str(tmp_path / "a.toml")])  # planning for another machine: auto is none
    assert res.exit_code == 0 and not Plan.from_file(tmp_path / "a.toml").fixed_counters
    res = cli([*args, "--fixed", "cycles,instructions", "-o", str(tmp_path / "b.toml")])
    p = Plan.from_file(tmp_path / "b.toml")
    assert res.exit_code == 0 and p.fixed_counters == ["cycles", "instructions"]
    assert all(len(g) - 2 <= 4 for g in p.groups) and "+ 2 fixed" in res.stdout
    res = cli([*args, "--fixed", "none", "-o", str(tmp_path / "c.toml")])
    assert res.exit_code == 0 and all(len(g) <= 4 for g in Plan.from_file(tmp_path / "c.toml").groups)
    res = cli([*args, "--fixed", "cycles,ref-cycles", "-o", str(tmp_path / "d.toml")])
    assert res.exit_code == 2 and "'ref-cycles' is not among EVENTS" in res.stderr
    assert not (tmp_path / "d.toml").exists()


def test_cli_fixed_auto_on_this_machine(tmp_path, monkeypatch, cli):
    """auto reads this machine's kernel log (substituted): an Intel PMU with 3 fixed counters."""
    import hemkit.cli.plan as plan_cli

    monkeypatch.setattr(plan_cli, "_check_with_perf", lambda events: None)  # no PMU here for perf to check
    monkeypatch.setenv("HEMKIT_SYSROOT", str(kmsg_root(tmp_path, 3)))
    res = cli(["plan", *EVENTS, "--pmcs", "4", "-o", str(tmp_path / "a.toml")])
    assert res.exit_code == 0, res.stderr
    assert Plan.from_file(tmp_path / "a.toml").fixed_counters == ["cycles", "instructions"]
    monkeypatch.setenv("HEMKIT_SYSROOT", str(kmsg_root(tmp_path / "amd", 0)))
    res = cli(["plan", *EVENTS, "--pmcs", "4", "-o", str(tmp_path / "b.toml")])
    assert res.exit_code == 0 and not Plan.from_file(tmp_path / "b.toml").fixed_counters
