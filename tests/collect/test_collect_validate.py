"""Validation of perf readings with recorded outputs (this VM's CSV/JSON, Zen 5-shaped multiplexed lines)."""

from pathlib import Path

import pandas as pd
import pytest

from hemkit import HemkitError
from hemkit.collect import check_reading, event_kind, perf_events
from hemkit.io.perf_stat import parse_perf_stat

DATA = Path(__file__).parent / "data"
SW = ["task-clock", "page-faults", "context-switches", "syscalls:sys_enter_write"]


@pytest.mark.parametrize("name", ["real_software.csv", "real_software.json"])
def test_real_output_software_events_valid(name):
    counts = parse_perf_stat((DATA / name).read_text())
    assert check_reading(counts, SW) == ""


@pytest.mark.parametrize("name", ["real_software.csv", "real_software.json"])
def test_not_supported_stops_with_group_and_event(name):
    counts = parse_perf_stat((DATA / name).read_text())
    with pytest.raises(HemkitError, match=r"group 3: event 'instructions' is <not supported>"):
        check_reading(counts, SW + ["instructions"], group=3)


@pytest.mark.parametrize("name", ["zen5_multiplexed.csv", "zen5_multiplexed.json"])
def test_multiplexed_is_invalid(name):
    counts = parse_perf_stat((DATA / name).read_text())
    assert check_reading(counts, ["instructions", "cycles"]) == "instructions multiplexed (counted 41% of the time)"
    assert check_reading(counts, ["branch-misses"]) == "branch-misses not counted"


def test_implausible_counts():
    counts = parse_perf_stat((DATA / "zen5_multiplexed.csv").read_text()).assign(percent=100.0)
    assert check_reading(counts, ["branches"]).startswith("branches implausible count 1.71e+14")
    counts = parse_perf_stat((DATA / "zen5_ipc_corrupt.csv").read_text())
    assert check_reading(counts, ["instructions", "cycles", "branches"]).startswith(
        "implausible: instructions 4e+09 > 8 x cycles"
    )
    assert check_reading(counts, ["cycles", "branches"]) == ""


def test_missing_event_and_failed_command():
    counts = pd.DataFrame({"event": ["a"], "value": [1.0], "percent": [100.0], "status": ["ok"]})
    assert check_reading(counts, ["a", "b"]) == "b missing from perf output"
    assert check_reading(counts, ["a"], returncode=3) == "command exit code 3"
    assert check_reading(counts, ["a"], returncode=-9) == "command killed by signal SIGKILL"


def test_event_kinds_and_perf_groups():
    assert event_kind("kmem:mm_page_alloc") == "tracepoint"
    assert event_kind("page-faults:u") == "software"
    assert event_kind("cpu/event=0xc0/") == "hardware"
    assert perf_events(["a", "b", "c"], [["a", "c"]]) == ["{a,c}", "b"]
    assert perf_events(["a", "b"], [["a", "z"]]) == ["a", "b"]
