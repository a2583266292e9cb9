"""Measurement path: a fake perf ($HEMKIT_PERF) replaying perf stat -x, lines, and the real perf here."""

import numpy as np
import pytest

from hemkit.derive.analysis import analyze
from hemkit.derive.families import branch_family
from hemkit.derive.measure import measure
from hemkit.errors import HemkitError


def test_measure_one_event_per_run_and_analysis_end_to_end(fake_perf):
    fam = branch_family()
    events = ["r00c2", "r00c3", "r10d1", "r20d1", "r00c4", "r0000", "cycles"]
    df = measure(fam, events, reps=3, iterations=1000)
    calls = fake_perf.read_text().splitlines()
    assert len(calls) == 3 * len(fam.loops) * len(events)
    assert all("," not in c for c in calls)  # one event per perf run
    assert all(c.endswith(":u") for c in calls)  # user mode only by default
    assert set(df["rep"]) == {0, 1, 2} and len(df) == 3 * len(fam.loops) * len(events)
    row = df[(df["kernel"] == "rnd2") & (df["size"] == "4") & (df["event"] == "r00c2") & (df["rep"] == 0)].iloc[0]
    assert row["count"] == 11000 and row["value"] == 11.0
    res = analyze(df, fam)
    dropped = dict(zip(res.dropped["event"], res.dropped["step"]))
    assert dropped == {"r0000": "noise", "cycles": "noise"}
    t = res.definitions.set_index("metric")
    assert t.loc["Mispredicted Branches.", "rounded_coefficients"] == {"r00c3": 1.0}
    assert t.loc["Conditional Branches Not Taken.", "rounded_coefficients"] == {"r10d1": 1.0, "r20d1": -1.0}
    assert t.loc["Unconditional Branches.", "verdict"] == "defined"
    assert t.loc["Conditional Branches Executed.", "verdict"] == "not definable"


def test_measure_group_counts_all_events_in_one_run(fake_perf):
    fam = branch_family()
    df = measure(fam, ["r00c2", "r00c3", "r10d1"], reps=2, iterations=100, group=2, user_only=False)
    calls = fake_perf.read_text().splitlines()
    assert calls[:2] == ["r00c2,r00c3", "r10d1"] and len(calls) == 2 * 2 * len(fam.loops)
    assert len(df) == 3 * 2 * len(fam.loops)
    with pytest.raises(HemkitError, match="group must be 1..5"):
        measure(fam, ["r00c2"], reps=2, group=6)


def test_measure_threads_keep_the_median(fake_perf):
    fam = branch_family()
    df = measure(fam, ["cycles"], reps=2, iterations=1000, threads=3)
    assert len(fake_perf.read_text().splitlines()) == 3 * 2 * len(fam.loops)
    assert len(df) == 2 * len(fam.loops)


def test_not_supported_event_is_a_clear_error(fake_perf):
    with pytest.raises(HemkitError, match=r"^perf cannot count event r0103 on this machine: <not supported>$"):
        measure(branch_family(), ["r0103"], reps=3, iterations=10)


def test_multiplexed_event_is_refused(fake_perf):
    with pytest.raises(HemkitError, match="r9999 was multiplexed"):
        measure(branch_family(), ["r9999"], reps=3, iterations=10)


def test_bad_arguments():
    with pytest.raises(HemkitError, match="at least 2 repetitions"):
        measure(branch_family(), ["x"], reps=1)
    with pytest.raises(HemkitError, match="no events"):
        measure(branch_family(), [], reps=3)


def test_real_perf_raw_event_fails_clearly_without_pmu(software_perf):
    from hemkit.external.perf import hardware_events_work

    ok, _ = hardware_events_work()
    if ok:
        pytest.skip("this machine counts hardware events")
    with pytest.raises(HemkitError, match=r"perf cannot count event r0103 on this machine: <not supported>"):
        measure(branch_family(), ["r0103"], reps=3, iterations=100)


def test_real_perf_counts_only_inside_the_kernel_loop(software_perf):
    """The control FIFO window: no page faults inside the loop, though the process has dozens."""
    fam = branch_family()
    df = measure(fam, ["page-faults", "task-clock"], reps=2, iterations=200_000)
    pf = df[df["event"] == "page-faults"]["count"].to_numpy()
    tc = df[df["event"] == "task-clock"]["count"].to_numpy()
    assert np.all(pf <= 2) and np.all(tc > 0)
