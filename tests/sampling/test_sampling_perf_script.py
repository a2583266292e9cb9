"""perf script parser and per-symbol shares on recorded fixtures."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit import HemkitError
from hemkit.io.perf_script import parse_perf_script, read_perf_script
from hemkit.sampling.profile import profile_shares

DATA = Path(__file__).parent / "data"


def test_known_share_fixture_parses():
    df = read_perf_script(DATA / "known_shares.script.txt")
    assert list(df.columns) == ["comm", "tid", "time", "event", "period", "ip", "sym", "dso"]
    assert len(df) == 226 and (df["period"] == 4_000_000).all()
    assert set(df["event"]) == {"cpu-clock"} and df["comm"].iloc[0] == "shares-bf5cd7b8"
    assert df["sym"].value_counts()[["work_0", "work_1", "work_2", "work_3"]].tolist() == [31, 39, 74, 80]
    assert df["time"].is_monotonic_increasing


def test_known_share_fixture_intervals_cover_truth():
    df = read_perf_script(DATA / "known_shares.script.txt")
    truth = pd.read_csv(DATA / "known_shares.truth.csv", index_col="function")["truth"]
    p = profile_shares(df, keys=truth.index)
    t = p.table.loc[truth.index]
    assert p.n_samples == 224 and np.isclose(t["share"].sum(), 1)
    assert ((t["low"] <= truth) & (truth <= t["high"])).all()
    assert t.loc["work_0", "share"] == pytest.approx(31 / 224)


def test_callchain_keeps_leaf_frame():
    df = read_perf_script(DATA / "callchain.script.txt")
    assert df["sym"].tolist()[:3] == ["fb", "fa", "fb"]
    assert df["ip"].iloc[0] == "118b" and df["period"].iloc[0] == 1_000_000


def test_dso_symoff_pid_tid():
    df = read_perf_script(DATA / "dso_symoff.script.txt")
    assert df["sym"].iloc[0] == "_raw_spin_trylock" and df["dso"].iloc[0] == "[kernel.kallsyms]"
    assert df["tid"].iloc[0] == 4574 and df["sym"].iloc[1] == "init_cpu_features.constprop.0"


def test_minimal_fields_and_comm_with_spaces():
    with pytest.raises(HemkitError, match="line 1"):
        parse_perf_script("garbage line\n")
    df = parse_perf_script("my prog 12 5.5: 1000 400123 main\nmy prog 12 5.6: 1000 400124 [unknown]\n")
    assert df["comm"].tolist() == ["my prog"] * 2 and df["period"].tolist() == [1000, 1000]
    assert df["sym"].tolist() == ["main", "[unknown]"]
    df = parse_perf_script("x 1 2.0: 4011a6 f\n")  # no period printed: each sample counts 1
    assert df["period"].iloc[0] == 1 and df["ip"].iloc[0] == "4011a6"


@pytest.mark.parametrize("text, match", [("", "no samples"), ("\n\n", "no samples"), ("hello world\n", "line 1")])
def test_bad_text_raises(text, match):
    with pytest.raises(HemkitError, match=match):
        parse_perf_script(text, source="x.txt")


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(HemkitError, match="no such file"):
        read_perf_script(tmp_path / "nope.txt")
    bad = tmp_path / "bin.dat"
    bad.write_bytes(b"\xff\xfe\x00\x81" * 10)
    with pytest.raises(HemkitError, match="neither perf.data"):
        read_perf_script(bad)


def test_weighted_shares_use_periods_and_effective_n():
    df = pd.DataFrame(
        {
            "sym": ["a", "b", "b"],
            "period": [2000, 1000, 1000],
            "comm": "x",
            "event": "e",
            "tid": 1,
            "time": [1.0, 2.0, 3.0],
        }
    )
    p = profile_shares(df)
    assert p.table.loc["a", "share"] == pytest.approx(0.5)
    assert p.n_eff == pytest.approx(16 / 6)
    assert p.table.loc["b", "runs"] == 1 and p.table.loc["b", "R_est"] == 2


def test_profile_errors():
    df = read_perf_script(DATA / "known_shares.script.txt")
    with pytest.raises(HemkitError, match="command 'nope'"):
        profile_shares(df, comm="nope")
    with pytest.raises(HemkitError, match="group"):
        profile_shares(df, by="colour")
    with pytest.raises(HemkitError, match="method"):
        profile_shares(df, method="bayes")
    two = pd.concat([df, df.assign(event="cycles")])
    with pytest.raises(HemkitError, match="several events"):
        profile_shares(two)
    assert profile_shares(two, event="cycles").n_samples == len(df)


@settings(max_examples=200, deadline=None)
@given(
    comm=st.from_regex(r"[A-Za-z_][A-Za-z0-9_ .:-]{0,13}[A-Za-z0-9_]", fullmatch=True),
    tid=st.integers(1, 4_000_000),
    time=st.floats(0, 1e6, allow_nan=False).map(lambda x: round(x, 6)),
    period=st.integers(1, 10**10),
    ip=st.integers(1, 2**64 - 1).map(lambda x: f"{x:x}"),
    sym=st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,30}", fullmatch=True),
    event=st.sampled_from(["cpu-clock", "cycles", "cycles:u", "r00c0", "sched:sched_switch"]),
)
def test_parser_round_trip(comm, tid, time, period, ip, sym, event):
    """Lines in perf script's layout parse back to their fields."""
    line = f"{comm:>16} {tid:>6} {time:12.6f}: {period:>10} {event}: {ip:>16} {sym}+0x1f (/usr/bin/x)"
    df = parse_perf_script(line + "\n")
    row = df.iloc[0]
    assert (row["comm"], int(row["tid"]), int(row["period"]), row["event"], row["ip"], row["sym"], row["dso"]) == (
        comm,
        tid,
        period,
        event,
        ip,
        sym,
        "/usr/bin/x",
    )
    assert row["time"] == pytest.approx(time, abs=1e-6)
