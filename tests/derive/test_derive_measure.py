"""Measurement with perf: a fake perf ($HEMKIT_PERF) replaying perf stat -x, lines, and the real perf here."""

import warnings

import numpy as np
import pytest

from hemkit.core.errors import HemkitWarning, InputError, MeasurementError, SetupError
from hemkit.derive import MeasureOptions, analyze, measure, run_family
from hemkit.derive.events import check_table_cpu, read_event_list, resolve_events
from hemkit.derive.families import branch_family
from hemkit.derive.kernels import CpuIdentity
from hemkit.derive.measure import choose_backend

ZEN5 = CpuIdentity("AuthenticAMD", 26, 2, "AMD EPYC 9005")
ZEN3 = CpuIdentity("AuthenticAMD", 25, 1, "AMD EPYC 7003")
#: enough loops for the five expectations (rank 5), few enough for quick fake-perf runs
LOOPS = ["nt/1", "nt/2", "tk/1", "jmp/1", "rnd/1", "rndx/1", "rnd2/4", "busy/1"]


def test_measure_one_event_per_run_and_analysis_end_to_end(fake_perf):
    fam = branch_family().restricted(LOOPS)
    assert np.linalg.matrix_rank(fam.basis.to_numpy()) == 5
    events = ["r00c2", "r00c3", "r10d1", "r20d1", "r0000", "cycles"]
    m = measure(fam, events, options=MeasureOptions(runs=2, iterations=1024))
    df = m.data
    calls = fake_perf.read_text().splitlines()
    assert len(calls) == 2 * len(fam.loops) * len(events)
    assert all("," not in c for c in calls)  # one event per perf run
    assert all(c.endswith(":u") for c in calls)  # user mode only by default
    assert set(df["run"]) == {0, 1} and len(df) == 2 * len(fam.loops) * len(events)
    assert set(df["family"]) == {"branch"} and set(df["backend"]) == {"perf"}
    row = df[(df["kernel"] == "rnd2") & (df["size"] == "4") & (df["event"] == "r00c2") & (df["run"] == 0)].iloc[0]
    assert row["iterations"] == 256 and row["value"] == 9 + 3  # CR + D of rnd2/4
    res = analyze(m)
    dropped = dict(zip(res.dropped["event"], res.dropped["step"]))
    assert dropped == {"r0000": "noise", "cycles": "noise"}
    t = res.definitions.set_index("metric")
    assert t.loc["Mispredicted Branches.", "rounded_coefficients"] == {"r00c3": 1.0}
    assert t.loc["Conditional Branches Not Taken.", "rounded_coefficients"] == {"r10d1": 1.0, "r20d1": -1.0}
    assert t.loc["Unconditional Branches.", "verdict"] == "defined"
    assert t.loc["Conditional Branches Executed.", "verdict"] == "not definable"


def test_measure_group_counts_several_events_in_one_run(fake_perf):
    fam = branch_family().restricted(LOOPS[:3])
    m = measure(
        fam, ["r00c2", "r00c3", "r10d1"], options=MeasureOptions(runs=2, iterations=64, group=2, user_only=False)
    )
    calls = fake_perf.read_text().splitlines()
    assert calls[:2] == ["r00c2,r00c3", "r10d1"] and len(calls) == 2 * 2 * len(fam.loops)
    assert len(m.data) == 3 * 2 * len(fam.loops)
    with pytest.raises(
        InputError, match=r"group \(events per run; a 6th counter reads 0 on Zen 5\) must be an integer from 1 to 5"
    ):
        measure(fam, ["r00c2"], options=MeasureOptions(group=6))


def test_measure_threads_keep_the_median(fake_perf):
    fam = branch_family().restricted(LOOPS[:2])
    m = measure(fam, ["cycles"], options=MeasureOptions(runs=2, iterations=1024, threads=3))
    assert len(fake_perf.read_text().splitlines()) == 3 * 2 * len(fam.loops)
    assert len(m.data) == 2 * len(fam.loops)


def test_not_supported_event_is_a_clear_error(fake_perf):
    with pytest.raises(
        MeasurementError,
        match=r"^perf cannot count event r0103 on this machine: <not supported>; pass backend='valgrind'$",
    ):
        measure(branch_family(), ["r0103"], options=MeasureOptions(iterations=16))


def test_multiplexed_event_is_refused(fake_perf):
    with pytest.raises(MeasurementError, match="r9999 was multiplexed"):
        measure(branch_family(), ["r9999"], options=MeasureOptions(iterations=16))


def test_bad_arguments():
    with pytest.raises(InputError, match=r"runs \(the noise filter compares runs\) must be an integer of at least 2"):
        measure(branch_family(), ["x"], options=MeasureOptions(runs=1))
    with pytest.raises(InputError, match="no events"):
        measure(branch_family(), [])
    with pytest.raises(InputError, match="listed twice"):
        measure(branch_family(), ["a", "a"])
    with pytest.raises(InputError, match="unknown backend"):
        measure(branch_family(), ["a"], backend="papi")


# ---------------------------------------------------------------- backend choice and the CPU of an event table
def test_default_backend_is_valgrind_without_a_pmu(fake_perf):
    """The fake perf, like this machine's, cannot count 'instructions': valgrind, said in one warning."""
    with pytest.warns(HemkitWarning, match=r"no hardware counters here .*measuring with the valgrind backend"):
        assert choose_backend()[0] == "valgrind"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert choose_backend("perf") == ("perf", "asked for")
        with pytest.raises(SetupError, match=r"^no hardware counters here .*simulates no floating-point events"):
            run_family("flops")


def test_bundled_table_refused_on_another_cpu_by_name():
    assert check_table_cpu("amdzen5", ZEN5).name == "amdzen5"
    with pytest.raises(SetupError, match=r"event table amdzen5 is for AMD Zen 5 .*this CPU is AuthenticAMD family 25"):
        check_table_cpu("amdzen5", ZEN3)
    with pytest.raises(SetupError, match="event table amdzen5 is for AMD Zen 5"):
        resolve_events("branch", "perf", "amdzen5", cpu=ZEN3)
    with pytest.raises(SetupError, match="no bundled event table for this CPU .AuthenticAMD family 25"):
        resolve_events("branch", "perf", cpu=ZEN3)
    assert resolve_events("branch", "perf", cpu=ZEN5)["code"].str.startswith("r").sum() > 20
    assert resolve_events("branch", "perf", "generic", cpu=ZEN3)["name"].tolist()[0] == "instructions"
    with pytest.raises(InputError, match="valgrind backend counts cachegrind's events"):
        resolve_events("branch", "valgrind", "amdzen5")


def test_event_lists(tmp_path):
    p = tmp_path / "ev.txt"
    p.write_text("# comment\nex_ret_brn r00c2\n\ncond,r10d1\ncpu/event=0xc2,umask=0/\n")
    assert read_event_list(p)["code"].tolist() == ["r00c2", "r10d1", "cpu/event=0xc2,umask=0/"]
    for text, msg in [
        ("a\na\n", "listed twice"),
        ("a r1\nb r1\n", "code 'r1' is listed twice"),
        (", r00c2\n", "blank event name"),
        ("a b c\n", "expected 'event' or 'name code'"),
        ("# nothing\n\n", "no events listed"),
    ]:
        p.write_text(text)
        with pytest.raises(InputError, match=msg):
            read_event_list(p)
    p.write_text("Bc\nBranches\n")
    with pytest.raises(InputError, match="cachegrind has no event 'Branches'"):
        resolve_events("branch", "valgrind", p)


def test_real_perf_raw_event_fails_clearly_without_pmu(software_perf):
    from hemkit.external.perf import hardware_events_work

    if hardware_events_work()[0]:
        pytest.skip("this machine counts hardware events")
    with pytest.raises(MeasurementError, match=r"perf cannot count event r0103 on this machine: <not supported>"):
        measure(branch_family(), ["r0103"], options=MeasureOptions(iterations=128))


def test_real_perf_counts_only_inside_the_kernel_loop(software_perf):
    """The control FIFO window: no page faults inside the loop, though the process has dozens."""
    fam = branch_family().restricted(LOOPS)
    m = measure(fam, ["page-faults", "task-clock"], options=MeasureOptions(runs=2, iterations=1 << 16))
    df = m.data
    pf = df[df["event"] == "page-faults"]["count"].to_numpy()
    tc = df[df["event"] == "task-clock"]["count"].to_numpy()
    assert np.all(pf <= 2) and np.all(tc > 0)


def test_run_family_perf_with_a_file_of_events(fake_perf, tmp_path):
    ev = tmp_path / "ev.txt"
    ev.write_text("misp r00c3\ncond r10d1\n")
    m = run_family("branch", backend="perf", events=ev, options=MeasureOptions(runs=2, iterations=64))
    assert m.backend == "perf" and sorted(m.data["event"].unique()) == ["cond", "misp"]
    assert m.summary().loc["misp", "max_per_iteration"] == 2.0
