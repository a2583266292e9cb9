"""Parsing recorded perf -I lines into traces, cleaning, Parquet round trip."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hemkit.errors import HemkitError
from hemkit.mpx.traces import clean_runs, parse_trace, read_trace, to_wide, write_trace

DATA = Path(__file__).parent / "data"


def test_parse_recorded_csv_interval_lines():
    tr = read_trace(DATA / "ocoe_interval.csv", run="r0")
    assert list(tr.columns) == ["run", "t", "step", "event", "value", "time_running", "percent"]
    assert tr["event"].nunique() == 5
    assert (tr.groupby("step").size() == 5).all()
    # first recorded line: 0.012315594,5.82,msec,task-clock,5816611,100.00,...
    first = tr[(tr["step"] == 0) & (tr["event"] == "task-clock")].iloc[0]
    assert first["value"] == pytest.approx(5.82)
    assert first["time_running"] == 5816611
    assert first["t"] == pytest.approx(0.012315594)
    pf = tr[(tr["step"] == 0) & (tr["event"] == "page-faults")]["value"].iloc[0]
    assert pf == 3928
    assert (tr["percent"] == 100).all()


def test_parse_recorded_json_not_counted_is_zero_for_ocoe():
    text = (DATA / "ocoe_sleep.json").read_text()
    tr = parse_trace(text, run="s")
    assert tr["value"].notna().all()
    first = tr[(tr["step"] == 0) & (tr["event"] == "page-faults")].iloc[0]
    assert first["value"] == 0 and first["time_running"] == 0
    assert tr[(tr["step"] == 1) & (tr["event"] == "page-faults")]["value"].iloc[0] == 74
    # multiplexed reading keeps <not counted> as missing
    assert parse_trace(text, run="s", ocoe=False)["value"].isna().any()


def test_parse_errors_name_the_culprit():
    with pytest.raises(HemkitError, match="no interval lines"):
        parse_trace("1234,,instructions,1000,100.00,,\n", run="x")
    with pytest.raises(HemkitError, match="instructions"):
        parse_trace("0.01,<not supported>,,instructions,0,100.00,,\n", run="x")
    with pytest.raises(HemkitError, match="no such file"):
        read_trace("/nonexistent/trace.parquet")


def test_parquet_round_trip(tmp_path):
    tr = read_trace(DATA / "ocoe_interval.csv", run="r0")
    p = write_trace(tr, tmp_path / "t.parquet")
    back = read_trace(p)
    pd.testing.assert_frame_equal(back, tr)
    wide = to_wide(back, "r0")
    assert wide.shape == (tr["step"].nunique(), 5)


def test_clean_runs_drops_broken_runs_and_cuts_tail():
    rows = []
    for run, scale in [("a", 1.0), ("b", 0.9), ("c", 0.1)]:
        rows.append(
            pd.DataFrame({"workload": "w", "run": run, "step": np.arange(100), "event": "e", "value": scale * 10.0})
        )
    tr = pd.concat(rows)
    out = clean_runs(tr)
    assert set(out["run"]) == {"a", "b"}  # c's total is 0.1 x the largest < 0.2
    assert out["step"].max() == 100 - 2 - 5 - 1


def test_parse_recorded_json_interval_lines():
    tr = read_trace(DATA / "ocoe_interval.json", run="j")
    assert set(tr["event"]) == {"page-faults", "syscalls:sys_enter_write"}
    assert tr["value"].notna().all() and (tr["value"] >= 0).all()
    assert (tr.groupby("step").size() == 2).all()
    assert tr["t"].is_monotonic_increasing
