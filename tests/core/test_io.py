"""Readers and writers: mergingTools raw layout, tidy CSV/Parquet, perf stat output."""

import warnings

import numpy as np
import pandas as pd
import pytest

from hemkit import HemkitError, HemkitWarning
from hemkit.datasets import t2080_code_names, t2080_hrm, t2080_much, t2080_path
from hemkit.io import from_mergingtools, parse_perf_stat, read_readings, write_table


def test_t2080_bundled_data():
    hrm, much = t2080_hrm(), t2080_much()
    assert len(hrm) == 3 and len(much) == 24
    assert len(hrm.events) == 16 and set(hrm.events) == set(much.events)
    assert hrm.events[0] == "PROCESSOR_CYCLES"
    assert much.missing_pairs() == []
    assert t2080_code_names()[1] == "PROCESSOR_CYCLES"
    # rows of each block are the block's runs, in file order
    raw = pd.read_csv(t2080_path("hrm_raw.csv"))
    np.testing.assert_array_equal(hrm[2]["PROCESSOR_CYCLES"].to_numpy(), raw["X1.1"].to_numpy())


def test_raw_without_code_table_keeps_codes():
    r = from_mergingtools(t2080_path("hrm_raw.csv"), 6)
    assert r.events[:3] == ["X1", "X24", "X110"]


def test_raw_shorter_group_and_bad_layouts():
    raw = pd.DataFrame(
        {"X1": [1.0, 2, 3, 4], "X2": [2.0, 1, 4, 3], "X1.1": [5.0, 6, 7, np.nan], "X3": [1.0, 3, 2, np.nan]}
    )
    r = from_mergingtools(raw, 2)
    assert r.n_runs.tolist() == [4, 3]
    with pytest.raises(HemkitError, match="4 columns is not a multiple of 3"):
        from_mergingtools(raw, 3)
    holey = raw.copy()
    holey.loc[1, ["X1.1", "X3"]] = np.nan
    with pytest.raises(HemkitError, match="group 2 has an empty row 2 followed by readings"):
        from_mergingtools(holey, 2)
    partial = raw.copy()
    partial.loc[0, "X3"] = np.nan
    with pytest.raises(HemkitError, match="event 'X3' has NaN in run 1"):
        from_mergingtools(partial, 2)


def test_raw_unknown_code():
    raw = pd.DataFrame({"X1": [1.0, 2, 3], "X99999": [2.0, 1, 3]})
    with pytest.raises(HemkitError, match="event code 99999"):
        from_mergingtools(raw, 2, code_names={1: "CYCLES"})


def test_drop_low_mean_compatibility_warns():
    raw = pd.DataFrame({"X1": [1000.0, 2000, 3000], "X2": [1.0, 2, 3]})
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = from_mergingtools(raw, 2, drop_low_mean=True)
    assert r.events == ["X1"]
    assert any(issubclass(x.category, HemkitWarning) and "X2" in str(x.message) for x in w)
    assert from_mergingtools(raw, 2).events == ["X1", "X2"]  # off by default


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_tidy_file_round_trip(tmp_path, suffix):
    r = t2080_hrm()
    path = write_table(r.to_tidy(), tmp_path / f"r{suffix}")
    back = read_readings(path)
    assert back.events == r.events
    np.testing.assert_array_equal(back[3].to_numpy(), r[3].to_numpy())


def test_read_missing_file():
    with pytest.raises(HemkitError, match="no such file"):
        read_readings("/nonexistent/x.csv")


CSV = """# started on Sun Nov 22
1234567,,instructions,1000000,100.00,1.2,insn per cycle
<not counted>,,cycles,0,0.00,,
<not supported>,,r0103,0,100.00,,
0.88,msec,task-clock,881257,100.00,0.085,CPUs utilized
"""
CSV_I = """     0.010093526,1200,,page-faults,1118265,100.00,,
     0.010093526,<not counted>,,cycles,0,0.00,,
     0.020223131,45,,page-faults,9353773,62.50,,
"""
TAIL = '"pcnt-running" : 100.00, "metric-value" : 0.0, "metric-unit" : ""}'
JSON = (
    '{"counter-value" : "815", "unit" : "", "event" : "page-faults", "event-runtime" : 823621, ' + TAIL + "\n"
    '{"counter-value" : "<not supported>", "unit" : "", "event" : "cycles", "event-runtime" : 0, ' + TAIL + "\n"
)
JSON_I = (
    '{"interval" : 0.010092908, "counter-value" : "12", "unit" : "", "event" : "context-switches", '
    '"event-runtime" : 1000, ' + TAIL.replace("100.00", "50.00") + "\n"
)


def test_parse_perf_stat_csv():
    t = parse_perf_stat(CSV)
    assert t["event"].tolist() == ["instructions", "cycles", "r0103", "task-clock"]
    assert t["value"].iloc[0] == 1234567 and t["value"].iloc[3] == 0.88
    assert t["status"].tolist() == ["ok", "not counted", "not supported", "ok"]
    assert t["percent"].tolist() == [100.0, 0.0, 100.0, 100.0]
    assert t["t"].isna().all()


def test_parse_perf_stat_intervals_and_json():
    t = parse_perf_stat(CSV_I)
    assert t["t"].tolist() == [0.010093526, 0.010093526, 0.020223131]
    assert t["value"].iloc[2] == 45 and t["percent"].iloc[2] == 62.5
    j = parse_perf_stat(JSON)
    assert j["value"].iloc[0] == 815 and j["status"].iloc[1] == "not supported"
    ji = parse_perf_stat(JSON_I)
    assert ji["t"].iloc[0] == pytest.approx(0.010092908) and ji["percent"].iloc[0] == 50.0
