"""The kernel settings that cost counters or events, in probe and collect (issue 27 item 3).

No machine here has a PMU or a watchdog on: the kernel's files are given as a folder
($HEMKIT_SYSROOT) holding proc/sys/kernel/..., sys/bus/event_source/devices/... and dev/kmsg
in the kernel's own formats (/dev/kmsg records ``prio,seq,usec,flags;message``, the x86 PMU
lines as Linux prints them at boot); the PMU is tests/collect/fake_perf.py.
"""

import warnings

import pytest

from hemkit.collect import probe
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io.kernel import CounterSettings, counter_settings, cpu_list
from hemkit.plan import Plan

KMSG_AMD = [
    "6,140,148300,-;Performance Events: Fam17h+ 16-deep LBR, core perfctr, AMD PMU driver.",
    "6,141,148302,-;... version:                2",
    "6,142,148303,-;... bit width:              48",
    "6,143,148304,-;... generic registers:      5",
    "6,144,148305,-;... value mask:             0000ffffffffffff",
    "6,145,148306,-;... max period:             00007fffffffffff",
    "6,146,148307,-;... fixed-purpose events:   0",
    "6,147,148308,-;... event mask:             000000000000001f",
    "6,151,150023,-;NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.",
]


def make_root(tmp_path, *, watchdog=1, paranoid=2, kmsg=KMSG_AMD, hybrid=False):
    root = tmp_path / "sysroot"
    (root / "proc/sys/kernel").mkdir(parents=True)
    (root / "proc/sys/kernel/nmi_watchdog").write_text(f"{watchdog}\n")
    (root / "proc/sys/kernel/perf_event_paranoid").write_text(f"{paranoid}\n")
    (root / "dev").mkdir()
    (root / "dev/kmsg").write_text("\n".join(kmsg) + "\n")
    devices = root / "sys/bus/event_source/devices"
    for name, cpus in [("cpu_core", "0-1"), ("cpu_atom", "2-3")] if hybrid else [("cpu", "")]:
        (devices / name).mkdir(parents=True)
        if cpus:
            (devices / name / "cpus").write_text(cpus + "\n")
    for name in ("software", "tracepoint"):
        (devices / name).mkdir()
    return root


def caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(x.message) for x in w if issubclass(x.category, HemkitWarning)]


def test_settings_read_from_the_kernels_files(tmp_path):
    s = counter_settings(make_root(tmp_path, hybrid=True))
    assert (s.nmi_watchdog, s.paranoid, s.generic, s.fixed) == (1, 2, 5, 0)
    assert s.pmu_driver.startswith("Fam17h+") and not s.no_pmu
    assert s.core_pmus == {"cpu_core": "0-1", "cpu_atom": "2-3"} and s.pmu_of_cpu(3) == "cpu_atom"
    assert counter_settings(make_root(tmp_path / "b")).core_pmus == {}


def test_a_missing_or_unreadable_root_gives_nothing_not_an_error(tmp_path):
    s = counter_settings(tmp_path / "nowhere")
    assert s.nmi_watchdog is None and s.generic is None and s.lines() == []


def test_kernel_without_pmu_is_named():
    s = CounterSettings(pmu_driver="PMU not available due to virtualization, using software events only.")
    assert s.no_pmu.startswith("PMU not available due to virtualization")


def test_lines_say_the_cost_and_the_way_out():
    (w,) = CounterSettings(nmi_watchdog=1, paranoid=2, root=True).lines()
    assert "one hardware counter" in w and "sysctl kernel.nmi_watchdog=0" in w
    lines = CounterSettings(nmi_watchdog=0, paranoid=2, root=False).lines()
    assert len(lines) == 1 and "user space only" in lines[0] and "perf_event_paranoid=1" in lines[0]
    assert "no unprivileged user" in CounterSettings(paranoid=3, root=False).lines()[0]
    assert CounterSettings(nmi_watchdog=0, paranoid=-1, root=False).lines() == []


@pytest.mark.parametrize(("text", "cpus"), [("0-3", {0, 1, 2, 3}), ("0,2,4-5\n", {0, 2, 4, 5}), ("", set())])
def test_cpu_list(text, cpus):
    assert cpu_list(text) == cpus


HW = ["cycles", "instructions", "branches", "branch-misses", "L1-dcache-loads", "dTLB-loads"]


def test_probe_puts_the_budget_beside_the_nominal_with_the_watchdog_as_reason(fake_perf, monkeypatch, tmp_path):
    monkeypatch.setenv("HEMKIT_SYSROOT", str(make_root(tmp_path)))
    monkeypatch.setenv("FAKE_PERF_COUNTERS", "4")  # 5 general counters, the watchdog holds one
    res, warned = caught(lambda: probe(HW + ["task-clock"], ["true"], runs=1))
    assert res.budget == 4 and res.nominal == 5
    assert "nominal: 5 general counters (kernel log) and" not in res.note  # no fixed counters on this PMU
    assert "nominal: 5 general counters (kernel log); measured 4: the NMI watchdog holds one" in res.note
    assert len(warned) == 1 and warned[0].startswith("the NMI watchdog is on")


def test_probe_names_a_silent_failure_when_the_watchdog_is_off(fake_perf, monkeypatch, tmp_path):
    kmsg = [*KMSG_AMD[:3], "6,143,1,-;... generic registers:      6"]
    monkeypatch.setenv("HEMKIT_SYSROOT", str(make_root(tmp_path, watchdog=0, kmsg=kmsg)))
    res, warned = caught(lambda: probe(HW, ["true"], runs=1))  # fake PMU: 5 counters, the 6th reads 0
    assert res.budget == 5 and "measured 5: perf reported events as counted that read wrong" in res.note
    assert not warned


def test_probe_without_a_pmu_quotes_the_kernel(fake_perf, monkeypatch, tmp_path):
    kmsg = ["6,145,148317,-;Performance Events: PMU not available due to virtualization, using software events only."]
    monkeypatch.setenv("HEMKIT_SYSROOT", str(make_root(tmp_path, watchdog=0, kmsg=kmsg)))
    monkeypatch.setenv("FAKE_PERF_UNSUPPORTED", "cycles,instructions")
    res = probe(["cycles", "instructions", "task-clock"], ["true"], runs=1)
    assert "the kernel says: PMU not available due to virtualization" in res.note


def test_probe_and_collect_print_the_watchdog_line(fake_perf, monkeypatch, tmp_path, cli):
    monkeypatch.setenv("HEMKIT_SYSROOT", str(make_root(tmp_path)))
    res = cli(["probe", "cycles", "instructions", "task-clock", "--runs", "1", "-q", "--", "true"])
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "hemkit: warning: the NMI watchdog is on (/proc/sys/kernel/nmi_watchdog = 1)" in (res.stdout + res.stderr)
    assert "measured" in (res.stdout + res.stderr) or "nominal: 5" in (res.stdout + res.stderr)
    monkeypatch.chdir(tmp_path)
    assert cli(["plan", "cycles", "instructions", "task-clock", "--pmcs", "2", "-o", "p.toml"]).exit_code == 0
    res = cli(["collect", "p.toml", "--runs", "2", "-q", "--", "true"])
    assert res.exit_code == 0, res.stdout + res.stderr
    assert (res.stdout + res.stderr).count("the NMI watchdog is on") == 1
    # software events only: the watchdog costs them nothing, so nothing is said
    assert cli(["plan", "task-clock", "page-faults", "--pmcs", "2", "-o", "s.toml"]).exit_code == 0
    res = cli(["collect", "s.toml", "--runs", "2", "-q", "--", "true"])
    assert res.exit_code == 0 and "watchdog" not in (res.stdout + res.stderr)


def test_collect_on_a_hybrid_cpu_names_the_core_type(fake_perf, monkeypatch, tmp_path, cli):
    monkeypatch.setenv("HEMKIT_SYSROOT", str(make_root(tmp_path, watchdog=0, hybrid=True)))
    monkeypatch.chdir(tmp_path)
    assert cli(["plan", "cycles", "instructions", "task-clock", "--pmcs", "3", "-o", "p.toml"]).exit_code == 0
    res = cli(["collect", "p.toml", "--runs", "1", "--pin", "0", "-q", "--", "true"])
    assert res.exit_code == 2 and not (tmp_path / "p.db").exists()
    said = res.stdout + res.stderr
    assert "perf counts 'cycles' once per core type" in said and "cpu_core/cycles/" in said
    events = ["cpu_core/cycles/", "cpu_core/instructions/", "task-clock"]
    assert cli(["plan", *events, "--pmcs", "3", "-o", "q.toml", "--no-check-events"]).exit_code == 0
    res = cli(["collect", "q.toml", "--runs", "1", "--pin", "0", "-q", "--", "true"])
    said = res.stdout + res.stderr
    assert "pin 0 runs the program on a cpu_core core" in said and "cpu_atom events" in said
    from hemkit.collect.collector import say_counter_settings

    with pytest.raises(InputError, match="hybrid"):
        say_counter_settings(["branch-misses"], None)
    with pytest.raises(InputError, match=r"pin 0 runs the program on a cpu_core core .*'cpu_atom/cycles/' would never"):
        say_counter_settings(["cpu_core/cycles/", "cpu_atom/cycles/"], 0)


def test_report_runs_section_shows_counted_time_and_not_counted(fake_perf, monkeypatch, tmp_path, cli):
    """Issue 27 item 4: per group, how long its events were counted, and <not counted> with its cause."""
    monkeypatch.setenv("HEMKIT_SYSROOT", str(tmp_path / "no-such-root"))
    monkeypatch.setenv("FAKE_PERF_NOT_COUNTED", str(tmp_path / "calls"))
    monkeypatch.chdir(tmp_path)
    assert cli(["plan", "cycles", "instructions", "task-clock", "--pmcs", "2", "-o", "p.toml"]).exit_code == 0
    res = cli(["collect", "p.toml", "--runs", "4", "-q", "--", "true"])
    assert res.exit_code == 0, res.stdout + res.stderr
    from hemkit.io.collection import CollectionDB

    with CollectionDB(tmp_path / "p.db") as db:
        counted = db.counted().set_index("group")
        runs = db.runs()
    assert (counted["counted_s"] == 0.001).all() and (counted["running_pct"] == 100).all()
    invalid = runs[runs["status"] == "invalid"].groupby("gid").size()
    groups = Plan.from_file(tmp_path / "p.toml").groups
    hardware = [g for g, events in enumerate(groups) if set(events) - {"task-clock"}]
    assert set(invalid.index) <= set(hardware) and invalid.sum() >= 3
    for g, n in invalid.items():
        assert counted.loc[g, "not_counted_runs"] == n and f"({n} run" in counted.loc[g, "not_counted"]
    res = cli(["report", "p.db", "-o", "r.html", "-m", "none"])
    assert res.exit_code == 0, res.stdout + res.stderr
    page = (tmp_path / "r.html").read_text()
    assert "counted (s)" in page and "running %" in page and ">not counted</th>" in page
    assert "perf printed &lt;not counted&gt; for some events" in page
