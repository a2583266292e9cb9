"""Counter restrictions from perf's event tables become plan constraints (issue 27 item 2)."""

import warnings
from pathlib import Path

import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io.event_tables import read_event_tables
from hemkit.plan import Plan
from hemkit.plan.tables import table_constraints

TABLES = Path(__file__).parent / "data" / "event_tables"
AMD = Path(__file__).parents[2] / "src" / "hemkit" / "derive" / "data"
EVENTS = [
    "INST_RETIRED.ANY",
    "L1D_PEND_MISS.PENDING",
    "L1D_PEND_MISS.FB_FULL",
    "BR_MISP_RETIRED.ALL_BRANCHES",
    "ARITH.DIVIDER_UOPS",
    "MEM_LOAD_UOPS_RETIRED.L1_MISS",
]


def test_tables_read_in_both_formats():
    t = read_event_tables([TABLES])
    assert t.counters_of("l1d_pend_miss.pending") == (2,) and t.fixed_of("INST_RETIRED.ANY") == 0
    assert t.fixed_of("cpu_core/inst_retired.any/") == 0 and t.counters_of("cpu_atom/topdown_be_bound.all/") == (
        0,
        1,
        2,
        3,
        4,
        5,
    )
    assert t.counters_of("cpu_core/cycle_activity.stalls_l1d_miss/") == (0, 1, 2, 3)
    assert t.counters_of("branches") is None and "haswell_subset.json" in t.where("L1D_PEND_MISS.PENDING")


def test_amd_tables_restrict_nothing():
    assert len(read_event_tables([AMD])) == 0


def test_restricted_and_fixed_events_become_constraints():
    counters, fixed = table_constraints(EVENTS, read_event_tables([TABLES]), 4)
    assert counters == {"L1D_PEND_MISS.PENDING": [2]} and fixed == ["INST_RETIRED.ANY"]
    with pytest.raises(InputError, match=r"'L1D_PEND_MISS.PENDING' may only use counter\(s\) 2 .*haswell.*pmcs 2"):
        table_constraints(EVENTS, read_event_tables([TABLES]), 2)


def test_bad_tables_are_named(tmp_path):
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(InputError, match=r"x.json: not a JSON event table"):
        read_event_tables([tmp_path / "x.json"])
    (tmp_path / "y.json").write_text('{"EventName": "a"}')
    with pytest.raises(InputError, match=r"y.json: not an event table"):
        read_event_tables([tmp_path / "y.json"])


def test_cli_plan_with_event_tables(tmp_path, cli):
    args = ["plan", *EVENTS, "--pmcs", "4", "--no-check-events", "--event-table", str(TABLES / "haswell_subset.json")]
    res = cli([*args, "-o", str(tmp_path / "p.toml")])
    assert res.exit_code == 0, res.stderr
    p = Plan.from_file(tmp_path / "p.toml")
    assert p.fixed_counters == ["INST_RETIRED.ANY"] and p.missing_pairs() == []
    assert all(len(g) - 1 <= 4 for g in p.groups)
    # two events that may only use counter 2 can never share a group: refused at plan time, with the reason
    both = ["L1D_PEND_MISS.PENDING", "L1D_PEND_MISS.PENDING_CYCLES", "BR_MISP_RETIRED.ALL_BRANCHES"]
    res = cli(
        [
            "plan",
            *both,
            "--pmcs",
            "4",
            "--no-check-events",
            "--event-table",
            str(TABLES),
            "-o",
            str(tmp_path / "q.toml"),
        ]
    )
    assert res.exit_code == 2 and not (tmp_path / "q.toml").exists()
    assert "'L1D_PEND_MISS.PENDING' and 'L1D_PEND_MISS.PENDING_CYCLES' can never be read together" in res.stderr
    res = cli(["plan", *EVENTS, "--pmcs", "2", "--no-check-events", "--event-table", str(TABLES)])
    assert res.exit_code == 2 and "may only use counter(s) 2" in res.stderr and "--pmcs" in res.stderr


def test_an_event_the_tables_lack_but_for_a_typo_is_named(tmp_path, cli):
    # L1D_PEND_MISS.PENDNG was planned on any counter without a word (the table has
    # L1D_PEND_MISS.PENDING, which may only use counter 2): with --no-check-events nothing else
    # knows the names, so the plan was wrong for the machine it was made for
    table = read_event_tables([TABLES])
    with pytest.warns(
        HemkitWarning, match=r"'L1D_PEND_MISS.PENDNG' is in none of the event tables.*'L1D_PEND_MISS.PENDING'"
    ):
        assert table_constraints(["L1D_PEND_MISS.PENDNG", "cycles"], table, 4) == ({}, [])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # names of no table (generic events, tracepoints) say nothing
        table_constraints([*EVENTS, "cycles", "task-clock", "syscalls:sys_enter_read"], table, 4)
    res = cli(
        ["plan", "L1D_PEND_MISS.PENDNG", "cycles", "--pmcs", "4", "--no-check-events", "--event-table", str(TABLES)]
    )
    assert res.exit_code == 0, res.stderr
    assert "hemkit: warning: event 'L1D_PEND_MISS.PENDNG' is in none of the event tables" in res.stderr
