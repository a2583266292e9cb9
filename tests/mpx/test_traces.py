"""Reading interval traces: perf's own lines, wrap-arounds, workload identity, cleaning against the median."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io.traces import WRAP, handle_wraps, parse_trace, read_trace, workload_name, write_trace
from hemkit.mpx.traces import clean_runs, split_workloads, to_wide

DATA = Path(__file__).parent / "data"
ZEN5 = sorted(DATA.glob("zen5_*.csv"))


def read_quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        return read_trace(*args, **kwargs)


def test_recorded_software_events_line_by_line():
    tr = read_trace(DATA / "ocoe_interval.csv", workload="w")
    assert list(tr.columns[:8]) == ["workload", "run", "t", "step", "event", "value", "time_running", "percent"]
    assert tr["event"].nunique() == 5 and (tr.groupby("step").size() == 5).all()
    # first recorded line: 0.012315594,5.82,msec,task-clock,5816611,100.00,...
    first = tr[(tr["step"] == 0) & (tr["event"] == "task-clock")].iloc[0]
    assert first["value"] == pytest.approx(5.82) and first["time_running"] == 5816611
    assert first["t"] == pytest.approx(0.012315594)
    assert tr[(tr["step"] == 0) & (tr["event"] == "page-faults")]["value"].iloc[0] == 3928


def test_json_not_counted_is_zero_for_a_ground_truth_and_missing_when_multiplexed():
    text = (DATA / "ocoe_sleep.json").read_text()
    tr = parse_trace(text, run="s")
    first = tr[(tr["step"] == 0) & (tr["event"] == "page-faults")].iloc[0]
    assert first["value"] == 0 and first["time_running"] == 0
    assert tr[(tr["step"] == 1) & (tr["event"] == "page-faults")]["value"].iloc[0] == 74
    assert parse_trace(text, run="s", ocoe=False)["value"].isna().any()


def test_zen5_fixtures_are_the_shared_lines():
    tr = read_quiet(DATA / "zen5_phases_r1.csv")
    assert set(tr["event"]) == {"cycles", "instructions", "branch-misses", "L1-dcache-load-misses", "dTLB-load-misses"}
    row = tr[(tr["step"] == 0) & (tr["event"] == "instructions")].iloc[0]
    assert row["value"] == 41744077 and row["time_running"] == 13827871


def test_wrap_around_is_repaired_and_said():
    """The known 2^47 reading of py_r3 (fails before issue 13: the reader took 140737488361450 as a count)."""
    with pytest.warns(HemkitWarning, match=r"dTLB-load-misses.*2\^47.*repaired to 6122"):
        tr = read_trace(DATA / "zen5_py_r3.csv")
    assert tr["value"].max() < WRAP
    last = tr[(tr["event"] == "dTLB-load-misses") & (tr["t"] > 4.178)]
    assert last["value"].tolist() == [6122]


def test_wrap_around_drop_and_error_modes():
    with pytest.warns(HemkitWarning, match="interval dropped"):
        tr = read_trace(DATA / "zen5_py_r3.csv", wraps="drop")
    assert tr["step"].max() == 58 and tr["value"].max() < WRAP  # 60 intervals, one dropped, steps renumbered
    with pytest.raises(InputError, match=r"zen5_py_r3.csv.*dTLB-load-misses.*2\^47"):
        read_trace(DATA / "zen5_py_r3.csv", wraps="error")


def test_implausible_repair_drops_the_interval_and_renumbers():
    tr = pd.DataFrame(
        {
            "run": "r",
            "step": np.repeat(np.arange(4), 2),
            "event": ["a", "b"] * 4,
            "value": [10.0, 1, 12, 1, 2**47 + 10**9, 1, 11, 1],
        }
    )
    with pytest.warns(HemkitWarning, match="interval dropped"):
        out = handle_wraps(tr)
    assert out["step"].tolist() == [0, 0, 1, 1, 2, 2] and out["value"].max() == 12


def test_workload_identity_not_the_file_stem():
    """phases_r1..r3 are one workload (fails before issue 13: each file was its own workload)."""
    tr = read_quiet(ZEN5)
    assert tr.groupby("workload")["run"].nunique().to_dict() == {"zen5_phases": 3, "zen5_py": 2}
    assert workload_name("x/gzip_s2_r10.csv") == "gzip" and workload_name("sort-run3.json") == "sort"
    named = read_quiet(ZEN5[:2], workload="mine")
    assert set(named["workload"]) == {"mine"}
    pat = read_quiet(ZEN5, pattern=r"zen5_([a-z]+)_r\d")
    assert set(pat["workload"]) == {"phases", "py"}
    with pytest.raises(InputError, match="does not match"):
        read_quiet(ZEN5, pattern=r"^nomatch(\d)")
    with pytest.raises(InputError, match="not a regular expression"):
        read_quiet(ZEN5, pattern="(")


def test_workload_column_wins_and_round_trip(tmp_path):
    tr = read_quiet(ZEN5[:2])
    tr["workload"] = "from-column"
    p = write_trace(tr, tmp_path / "t.parquet")
    back = read_quiet(p, workload="ignored")
    assert set(back["workload"]) == {"from-column"}
    pd.testing.assert_frame_equal(back[tr.columns], tr)
    assert to_wide(back, tr["run"].iloc[0]).shape == (60, 5)


def test_folder_and_unique_runs(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    for d in (a, b):
        (d / "w_r1.csv").write_text((DATA / "zen5_phases_r1.csv").read_text())
    assert read_quiet(a)["run"].nunique() == 1
    with pytest.raises(InputError, match="run 'w_r1' is also in"):
        read_quiet([a, b])


def test_clean_runs_compares_with_the_median():
    """One absurd run (e.g. an unrepaired wrap) must not make the others 'broken' (fails before issue 13)."""
    rows = []
    for run, scale in [("a", 1.0), ("b", 0.9), ("c", 1.1), ("huge", 1e9), ("broken", 0.05)]:
        rows.append(
            pd.DataFrame({"workload": "w", "run": run, "step": np.arange(100), "event": "e", "value": scale * 10.0})
        )
    with pytest.warns(HemkitWarning, match="dropped 1 run.*broken"):
        out = clean_runs(pd.concat(rows))
    assert set(out["run"]) == {"a", "b", "c", "huge"}
    assert out["step"].max() == 100 - 2 - 5 - 1


def test_split_workloads_keeps_runs_together_and_is_seeded():
    names = [f"w{k}" for k in range(20)]
    train, val, test = split_workloads(names, seed=3)
    assert (len(train), len(val), len(test)) == (14, 2, 4)
    assert not set(train) & set(val) | set(train) & set(test) | set(val) & set(test)
    assert split_workloads(names, seed=3) == (train, val, test)
    assert split_workloads(["a", "b", "c"], seed=0)[0]  # training always keeps a workload
    with pytest.raises(InputError, match="training part"):
        split_workloads(names, (0, 1, 1))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1234,,instructions,1000,100.00,,\n", "no interval lines"),
        ("0.01,<not supported>,,instructions,0,100.00,,\n", "not supported"),
        ("0.01,5,,a,10,100.00,,\n0.01,6,,a,10,100.00,,\n", "printed twice"),
        ("0.01,5,,a,10,100.00,,\n0.01,5,,b,10,100.00,,\n0.02,5,,a,10,100.00,,\n", "'b' has no count"),
        ("0.01,-5,,a,10,100.00,,\n", "negative count"),
        ("0.01,inf,,a,10,100.00,,\n0.01,5,,b,10,100.00,,\n", "line 1"),
        ("0.01,5,,a,10,100.00,,\nhello from the program\n", "line 2"),
        ("0.01,5,,a,10,40.00,,\n", "multiplexed"),
    ],
)
def test_bad_perf_lines_name_the_culprit(text, match):
    with pytest.raises(InputError, match=match):
        parse_trace(text, run="x")


def test_a_wrapped_count_in_a_multiplexed_run_drops_that_events_reading_alone():
    """A multiplexed run's events already miss intervals: the wrapped one's becomes a gap, the others' stay
    (fails before: the interval was dropped for every event, so cycles and branches lost its counts)."""
    from hemkit.mpx.traces import read_multiplexed

    path = DATA / "mpx_wrap_r1.csv"
    with pytest.warns(HemkitWarning, match=r"'instructions' at step 3 .*its reading of the interval dropped"):
        tr = read_trace(path, ocoe=False)
    assert tr["step"].max() == 5 and len(tr) == 18  # every interval kept
    at = tr[tr["step"] == 3].set_index("event")
    assert at.loc["cycles", "value"] == 30_300_000 and at.loc["branches", "value"] == 9_302_000
    assert np.isnan(at.loc["instructions", "value"]) and at.loc["instructions", "time_running"] == 0
    with pytest.warns(HemkitWarning):
        m = read_multiplexed(path)
    events = m.keys["event"].tolist()
    raw = m.raw[events.index("instructions")]
    assert np.isnan(raw[[1, 3]]).all() and np.isfinite(raw[[0, 2, 4, 5]]).all()  # a gap, as at <not counted>
    assert np.isfinite(m.raw[events.index("cycles")]).all() and m.length.tolist() == [6, 6, 6]
    assert m.enabled[events.index("instructions"), 3] == pytest.approx(10_012_345, rel=1e-3)  # the interval's time
    # read as a ground truth (not multiplexed), the interval is still dropped for all: the emulation needs them aligned
    with pytest.warns(HemkitWarning, match="interval dropped"):
        truth = read_trace(DATA / "zen5_py_r3.csv", wraps="drop", ocoe=False)
    assert truth["step"].max() == 58


def test_mpx_estimate_keeps_the_other_events_totals_of_a_wrapped_interval(cli, tmp_path):
    out, totals = tmp_path / "e.csv", tmp_path / "t.csv"
    res = cli(["mpx", "estimate", DATA / "mpx_wrap_r1.csv", "-o", out, "--totals", totals, "-m", "fixed"])
    assert res.exit_code == 0, res.stderr
    assert "its reading of the interval dropped" in res.stderr
    est = pd.read_csv(out)
    assert est.groupby("event")["step"].nunique().to_dict() == {"branches": 6, "cycles": 6, "instructions": 6}


def test_one_workload_named_for_files_of_several_workloads_is_refused(bad_input, tmp_path):
    """-w NAME on a folder of runs of two programs pooled them as one workload (their totals pooled, one split):
    refused, naming both workloads; files of one workload, or names the pattern does not match, are named."""
    with pytest.raises(InputError, match=r"workload 'mine' would pool the runs of 2 workloads.*'zen5_phases' \(3 runs"):
        read_quiet(ZEN5, workload="mine")
    with pytest.raises(InputError, match=r"'phases' .*'py'"):
        read_quiet(ZEN5, workload="mine", pattern=r"zen5_([a-z]+)_r\d")
    assert set(read_quiet(ZEN5[:3], workload="mine")["workload"]) == {"mine"}  # the three runs of phases
    folder = tmp_path / "runs"
    folder.mkdir()
    for k, src in enumerate(ZEN5[2:4]):  # names that say no workload: -w names them
        (folder / f"run{k}.csv").write_bytes(src.read_bytes())
    assert set(read_quiet(folder, workload="mine")["workload"]) == {"mine"}
    for sub in ("estimate", "score"):
        extra = ["--pmcs", "2"] if sub == "score" else ["-o", tmp_path / "e.csv"]
        bad_input(["mpx", sub, *ZEN5, "-w", "mine", *extra], names=["--workload 'mine'", "'zen5_py'"], watch=[tmp_path])
