"""Plain perf stat files, one run each, into one readings set (issue 14 point 2).

Fixtures: tests/io/data/runs_csv and runs_json (real perf, 3 event groups x 8 runs, made by
make_fixtures.sh), tests/io/data/perf (one perf option each) and tests/io/data/zen5 (slices of
the real Zen 5 interval traces).  Where a test edits a copy of real output, it says what it
changed (perf cannot multiplex software events on these VMs).
"""

import json
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io import PerfOptions, read_perf_runs, read_readings
from hemkit.io.perf_files import read_perf_file

DATA = Path(__file__).parent / "data"
PERF = DATA / "perf"
GROUPS = [
    ["task-clock", "page-faults", "context-switches"],
    ["task-clock", "page-faults", "syscalls:sys_enter_read"],
    ["task-clock", "context-switches", "syscalls:sys_enter_read"],
]


def csv_value(path, event):
    """The value perf printed for ``event`` in a plain -x, file."""
    for s in path.read_text().splitlines():
        f = s.split(",")
        if len(f) > 2 and f[2] == event:
            return float(f[0])
    raise KeyError(event)


def json_value(path, event):
    for s in path.read_text().splitlines():
        if s.startswith("{") and json.loads(s)["event"] == event:
            return float(json.loads(s)["counter-value"])
    raise KeyError(event)


def caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(x.message) for x in w if issubclass(x.category, HemkitWarning)]


@pytest.mark.parametrize(("folder", "value"), [("runs_csv", csv_value), ("runs_json", json_value)])
def test_folder_of_single_runs_gives_three_groups_of_eight(folder, value):
    r = read_readings(DATA / folder)
    assert r.group_ids == [1, 2, 3] and r.n_runs.tolist() == [8, 8, 8]
    assert [list(r[g].columns) for g in r.group_ids] == GROUPS
    # runs are named by their files; group g holds run_g, run_g+3, ... (the loop cycled the groups)
    assert list(r[2].index) == [f"run_{i:02d}" for i in range(2, 25, 3)]
    suffix = ".csv" if folder == "runs_csv" else ".json"
    for g in r.group_ids:
        for run in r[g].index:
            for event in r[g].columns:
                assert r[g].loc[run, event] == value(DATA / folder / f"{run}{suffix}", event)


@pytest.mark.parametrize("folder", ["runs_csv", "runs_json"])
def test_list_of_files_same_as_folder(folder):
    files = sorted((DATA / folder).iterdir(), reverse=True)  # the order given does not matter
    a, b = read_readings(files), read_readings(DATA / folder)
    assert a.group_ids == b.group_ids
    for g in a.group_ids:
        assert a[g].equals(b[g])


@pytest.mark.parametrize("folder", ["runs_csv", "runs_json"])
def test_merge_copula_on_perf_files(folder):
    from hemkit.merge import merge_copula

    files = sorted((DATA / folder).iterdir())
    merged = merge_copula(read_readings(files), seed=0)
    assert list(merged.columns) == ["task-clock", "page-faults", "context-switches", "syscalls:sys_enter_read"]
    corr = merged.data.corr().to_numpy()
    assert np.isfinite(corr).all() and (np.abs(corr) <= 1 + 1e-12).all()


def test_csv_and_json_files_mixed(tmp_path):
    files = sorted((DATA / "runs_csv").iterdir())[:12] + sorted((DATA / "runs_json").iterdir())[12:]
    r = read_readings(files)
    assert r.n_runs.tolist() == [8, 8, 8]
    assert "run_13" in r[1].index and r[1].loc["run_13", "page-faults"] == json_value(
        DATA / "runs_json" / "run_13.json", "page-faults"
    )


def test_same_names_in_two_folders_get_their_paths(tmp_path):
    # two folders of other runs with the same file stems (the -j runs were recorded apart from the -x, ones)
    shutil.copytree(DATA / "runs_csv", tmp_path / "a")
    shutil.copytree(DATA / "runs_json", tmp_path / "b")
    for f in (tmp_path / "b").iterdir():
        f.rename(f.with_suffix(".csv"))
    r = read_readings(sorted((tmp_path / "a").iterdir()) + sorted((tmp_path / "b").iterdir()))
    assert r.n_runs.tolist() == [16, 16, 16]
    assert list(r[1].index[:2]) == ["a/run_01.csv", "a/run_04.csv"]
    assert "b/run_01.csv" in r[1].index


def test_a_copy_of_a_run_file_is_refused_not_read_as_a_second_run(tmp_path):
    # a file manager's copy (run_02 (copy).csv) or the same folder given twice under two names: the one run
    # was read as two runs agreeing exactly, which pulls every correlation of its group its way
    for folder in ("runs_csv", "runs_json"):
        runs = tmp_path / folder
        shutil.copytree(DATA / folder, runs)
        original = sorted(runs.iterdir())[1]
        shutil.copy(original, runs / f"{original.stem} (copy){original.suffix}")
        with pytest.raises(InputError) as e:
            read_readings(runs)
        msg = str(e.value)
        assert f"{original.name}: hold the same run" in msg and f"{original.stem} (copy){original.suffix}" in msg
        assert "copy of the other" in msg
    for sub in ("a", "b"):
        shutil.copytree(DATA / "runs_csv", tmp_path / sub)
    with pytest.raises(InputError, match=r"a/run_01.csv and .*b/run_01.csv: hold the same run"):
        read_readings([tmp_path / "a", tmp_path / "b"])
    # a run alike in its counts but not its running time is another run
    runs = tmp_path / "runs_csv"
    copy = next(runs.glob("* (copy).csv"))
    copy.write_text(re.sub(r"task-clock,(\d+)", lambda m: f"task-clock,{int(m[1]) + 1}", copy.read_text(), count=1))
    assert read_readings(runs).n_runs.tolist() == [8, 9, 8]  # run_02 is of group 2


def test_event_order_does_not_split_a_group(tmp_path):
    # a copy of run_04.csv with its event lines in another order (as perf prints for -e in another order)
    for f in (DATA / "runs_csv").iterdir():
        shutil.copy(f, tmp_path / f.name)
    lines = (tmp_path / "run_04.csv").read_text().splitlines()
    (tmp_path / "run_04.csv").write_text("\n".join(lines[:2] + lines[2:][::-1]) + "\n")
    r = read_readings(tmp_path)
    assert r.n_runs.tolist() == [8, 8, 8] and list(r[1].columns) == GROUPS[0]


def test_natural_order_of_runs(tmp_path):
    src = sorted((DATA / "runs_csv").iterdir())
    for i, f in enumerate(src[::3][:4], start=1):  # four runs of group 1 as r1, r2, r9, r10
        shutil.copy(f, tmp_path / f"r{[1, 2, 9, 10][i - 1]}.csv")
    assert list(read_readings(tmp_path)[1].index) == ["r1", "r2", "r9", "r10"]


def test_append_file_holds_one_run_per_block():
    r = read_readings(PERF / "append.csv")
    assert list(r[1].index) == ["append#1", "append#2", "append#3"]
    values = [float(s.split(",")[0]) for s in (PERF / "append.csv").read_text().splitlines() if "page-faults" in s]
    assert r[1]["page-faults"].tolist() == values
    assert read_readings(PERF / "append.json").n_runs.tolist() == [3]


def test_single_run_file_says_give_all_runs():
    with pytest.raises(InputError, match=r"software.csv: a perf stat file holds one run; give the files of all runs"):
        read_readings(PERF / "software.csv")


def test_a_run_that_never_finished_is_named_as_such(tmp_path, bad_input):
    """perf stat -o writes its '# started on' line first: a program perf could not start (or a perf
    stopped before it wrote) leaves that line alone, which was 'no event lines (... expected)'."""
    folder = tmp_path / "runs"
    shutil.copytree(DATA / "runs_csv", folder)
    (folder / "run_99.csv").write_text("# started on Sat Nov 28 08:33:10 2026\n\n")
    bad_input(
        ["merge", folder, "-o", tmp_path / "m.csv"],
        names=["run_99.csv: perf stat's '# started on' line but no counts: that run did not finish", "record it again"],
        watch=[tmp_path],
    )
    # a file of no perf lines at all is still not perf stat output
    (tmp_path / "x.csv").write_text("\n\n")
    with pytest.raises(InputError, match="no event lines"):
        read_perf_file(tmp_path / "x.csv")


def test_a_folder_of_one_interval_file_is_not_told_to_give_a_folder(tmp_path, bad_input):
    """A folder holding one perf stat -I file was told 'give the files of all runs (several files or a folder)'."""
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(PERF / "interval.csv", folder / "interval.csv")
    line = bad_input(
        ["export", folder, "-o", tmp_path / "out.csv"],
        names=[f"{folder}: holds one perf stat file, interval.csv", "perf stat -I", "put the files of all runs in"],
        watch=[tmp_path],
    )
    assert "or a folder)" not in line
    # the file given alone is still told to give a folder, and that its intervals are one run
    with pytest.raises(InputError, match=r"interval.csv: a perf stat file holds one run \(perf stat -I: its interval"):
        read_readings(folder / "interval.csv")


def test_intervals_are_summed_and_idle_intervals_count_zero():
    (run,) = read_perf_file(PERF / "interval.csv")
    # 1.14 + 0.18 msec as printed: 1.32 (adding the floats gives 1.3199999999999998)
    assert run.values == {"task-clock": 1.32, "page-faults": 74.0, "context-switches": 7.0}
    (jrun,) = read_perf_file(PERF / "interval.json")
    lines = [json.loads(s) for s in (PERF / "interval.json").read_text().splitlines() if s.startswith("{")]
    want = sum(float(o["counter-value"]) for o in lines if o["event"] == "page-faults" and o["event-runtime"])
    assert jrun.values["page-faults"] == want


def test_interval_sums_are_the_printed_numbers_summed_without_float_noise():
    """Summing -I intervals in floats gave a run's task-clock 96.14999999999999 msec for the 96.15 perf printed."""
    from decimal import Decimal

    from hemkit.core.numbers import exact_sum

    real = Path(__file__).parents[1] / "mpx" / "data" / "ocoe_interval.csv"  # real perf -I output, 20 intervals
    fields = [s.split(",") for s in real.read_text().splitlines() if s.strip() and not s.startswith("#")]
    (run,) = read_perf_file(real)
    clock = [f[1] for f in fields if f[3] == "task-clock"]
    assert sum(map(float, clock)) != 96.15 and run.values["task-clock"] == 96.15 == float(sum(map(Decimal, clock)))
    faults = sum(int(f[1]) for f in fields if f[3] == "page-faults")
    assert run.values["page-faults"] == faults and run.values["page-faults"].is_integer()
    # whole numbers of any size sum as integers; decimals as the decimals they are
    assert exact_sum([2.0**53, 1.0, 1.0]) == 2.0**53 + 2 and exact_sum([0.1, 0.2]) == 0.3
    assert exact_sum([0.1, float("inf")]) == float("inf")


@pytest.mark.parametrize("name", ["interval.csv", "interval.json"])
def test_an_interval_file_cut_short_is_refused_not_summed_short(tmp_path, name):
    # edited copy: the file ends after the last interval's task-clock line (a copy or a disk cut short);
    # summing what is left gave that run a page-faults count of its first intervals only, silently
    lines = (PERF / name).read_text().splitlines(keepends=True)
    last = max(i for i, s in enumerate(lines) if "task-clock" in s)
    cut = tmp_path / name
    cut.write_text("".join(lines[: last + 1]))
    with pytest.raises(InputError) as e:
        read_perf_file(cut)
    msg = str(e.value)
    assert f"{name}: line {last + 1} (interval " in msg and "'page-faults', 'context-switches'" in msg
    assert "cut short" in msg
    # the whole file is read as before
    assert read_perf_file(PERF / name)[0].values


def test_perf_summary_wins_over_the_sum():
    (run,) = read_perf_file(PERF / "summary.csv")
    assert run.values == {"task-clock": 0.97, "page-faults": 74.0, "context-switches": 1.0}
    (run,) = read_perf_file(PERF / "no_csv_summary.csv")
    assert run.values == {"task-clock": 1.19, "page-faults": 75.0, "context-switches": 1.0}


def test_per_cpu_summed_or_split():
    lines = [s.split(",") for s in (PERF / "per_cpu.csv").read_text().splitlines() if s.startswith("CPU")]
    (run,) = read_perf_file(PERF / "per_cpu.csv")
    assert run.values["page-faults"] == sum(float(f[1]) for f in lines if f[3] == "page-faults")
    (split,) = read_perf_file(PERF / "per_cpu.csv", PerfOptions(per_cpu="split"))
    assert sorted(split.values) == sorted(f"{e}@CPU{c}" for e in GROUPS[0] for c in (0, 1))
    assert split.values["page-faults@CPU1"] == next(
        float(f[1]) for f in lines if f[0] == "CPU1" and f[3] == "page-faults"
    )
    (core,) = read_perf_file(PERF / "per_core.json")
    assert set(core.values) == set(GROUPS[0])
    (iv,) = read_perf_file(PERF / "interval_per_cpu.csv", PerfOptions(per_cpu="split"))
    assert iv.values["context-switches@CPU1"] == 117 + 157


@pytest.mark.parametrize("name", ["repeat.csv", "repeat.json"])
def test_repeat_output_refused(name):
    with pytest.raises(InputError, match=rf"{name}: line 3: holds perf stat -r averages.*own file"):
        read_readings([PERF / name, PERF / "software.csv"])


def test_not_supported_refused_or_dropped():
    folder = DATA / "unsupported"  # perf stat -e task-clock,page-faults,cycles on a machine without a PMU
    with pytest.raises(InputError, match=r"run_1.csv: line 5 \(event 'cycles'\) is <not supported>.*run 'run_1'"):
        read_readings(folder)
    r, warned = caught(lambda: read_readings(folder, perf=PerfOptions(unusable="drop")))
    assert r.events == ["task-clock", "page-faults"] and r.n_runs.tolist() == [3]
    assert r[1].loc["run_2", "page-faults"] == csv_value(folder / "run_2.csv", "page-faults")
    assert warned == [
        f"group 1: dropped event(s) 'cycles', printed in 3 of its 3 run(s): {folder / 'run_1.csv'}: line 5 "
        "(event 'cycles') is <not supported> by perf and in 2 more run(s)"
    ]


def _runs_one_with_an_extra_unsupported_event(folder: Path) -> Path:
    """Three runs of task-clock,page-faults, the second also printing cycles <not supported>."""
    folder.mkdir()
    for i in range(1, 4):
        extra = "<not supported>,,cycles,0,100.00,,\n" if i == 2 else ""
        (folder / f"run_{i}.csv").write_text(
            f"1.{i},msec,task-clock,1000,100.00,,\n{extra}{40 + i * i},,page-faults,1000,100.00,,\n"
        )
    return folder


def test_a_dropped_unsupported_event_does_not_split_its_run_from_the_group(tmp_path):
    """The run that printed cycles <not supported> made a group of its own ('reading task-clock, cycles, ...')."""
    folder = _runs_one_with_an_extra_unsupported_event(tmp_path / "runs")
    with pytest.raises(InputError, match=r"run_2.csv: line 2 \(event 'cycles'\) is <not supported>"):
        read_readings(folder)
    r, warned = caught(lambda: read_readings(folder, perf=PerfOptions(unusable="drop")))
    assert r.group_ids == [1] and list(r[1].index) == ["run_1", "run_2", "run_3"]
    assert r.events == ["task-clock", "page-faults"]
    assert warned == [
        f"group 1: dropped event(s) 'cycles', printed in 1 of its 3 run(s): {folder / 'run_2.csv'}: line 2 "
        "(event 'cycles') is <not supported> by perf"
    ]


def test_a_group_is_described_by_the_events_it_reads_not_those_dropped(tmp_path):
    folder = tmp_path / "runs"
    shutil.copytree(DATA / "unsupported", folder)
    (folder / "run_3.csv").unlink()
    with pytest.raises(InputError) as e:
        caught(lambda: read_readings(folder, perf=PerfOptions(unusable="drop")))
    assert "group 1 is the 2 run(s) reading task-clock, page-faults (run_1, run_2)" in str(e.value)


def test_export_names_the_file_of_a_dropped_unsupported_event(cli, tmp_path):
    folder = _runs_one_with_an_extra_unsupported_event(tmp_path / "runs")
    res = cli(["export", folder, "--unusable", "drop", "-o", tmp_path / "r.csv"])
    assert res.exit_code == 0, res.stderr
    assert "read " in res.stdout and "1 group, 2 events, 3 runs" in res.stdout
    assert res.stderr.strip() == (
        f"hemkit: warning: group 1: dropped event(s) 'cycles', printed in 1 of its 3 run(s): {folder / 'run_2.csv'}: "
        "line 2 (event 'cycles') is <not supported> by perf"
    )


@pytest.mark.parametrize("name", ["not_counted.csv", "not_counted.json"])
def test_not_counted_refused_or_dropped(tmp_path, name):
    files = sorted((DATA / "runs_csv").iterdir())[::3]  # the 8 runs of group 1
    bad = tmp_path / name
    shutil.copy(PERF / name, bad)  # perf stat -D 500 ... -- true: the events never got enabled
    with pytest.raises(InputError, match=rf"{name}: line 3 \(event 'task-clock'\) is <not counted> in run "):
        read_readings(files + [bad])
    r, warned = caught(lambda: read_readings(files + [bad], perf=PerfOptions(unusable="drop")))
    assert r.n_runs.tolist() == [8] and any("dropped run 'not_counted'" in w for w in warned)


def test_a_group_whose_every_run_is_dropped_says_what_goes_with_it(tmp_path):
    """Every run of a group <not counted> with --unusable drop: six 'dropped run' lines, then compare said
    'only in B: page-faults, ...' of events A had read, as if A had never read them."""
    folder = tmp_path / "runs"
    shutil.copytree(DATA / "runs_csv", folder)
    group = sorted(folder.iterdir())[::3]  # the 8 runs of group 1
    for f in group:
        lines = f.read_text().splitlines()
        i = next(k for k, line in enumerate(lines) if "task-clock" in line)
        lines[i] = "<not counted>,msec,task-clock,0,0.00,,"
        f.write_text("\n".join(lines) + "\n")
    r, warned = caught(lambda: read_readings(folder, perf=PerfOptions(unusable="drop")))
    assert r.n_runs.tolist() == [8, 8]
    said = [w for w in warned if "group 1" in w]
    assert len(said) == 1, warned
    assert said[0].startswith("group 1: dropped all 8 of its runs, and with them its readings of 'task-clock'"), said
    assert "(and 7 more runs)" in said[0] and not any("dropped run" in w for w in warned)


def multiplexed_copy(tmp_path):
    """A copy of run_07.csv whose page-faults line says 62.50% (as perf prints a multiplexed event)."""
    folder = tmp_path / "runs"
    shutil.copytree(DATA / "runs_csv", folder)
    f = folder / "run_07.csv"
    lines = f.read_text().splitlines()
    i = next(k for k, s in enumerate(lines) if ",page-faults," in s)
    fields = lines[i].split(",")
    fields[4] = "62.50"
    lines[i] = ",".join(fields)
    f.write_text("\n".join(lines) + "\n")
    return folder, float(fields[0])


def test_multiplexed_refused_dropped_or_kept(tmp_path):
    folder, printed = multiplexed_copy(tmp_path)
    with pytest.raises(InputError, match=r"run_07.csv: line 4 \(event 'page-faults'\) was multiplexed.*62.5%"):
        read_readings(folder)
    r, warned = caught(lambda: read_readings(folder, perf=PerfOptions(unusable="drop")))
    assert r.n_runs.tolist() == [7, 8, 8] and "run_07" not in r[1].index
    assert any("dropped run 'run_07'" in w and "multiplexed" in w for w in warned)
    r, warned = caught(lambda: read_readings(folder, perf=PerfOptions(keep_multiplexed=True)))
    assert r[1].loc["run_07", "page-faults"] == printed and any("kept perf's estimate" in w for w in warned)


def test_zen5_wrap_around_refused_or_dropped():
    with pytest.raises(InputError) as e:
        read_readings(DATA / "zen5")
    msg = str(e.value)
    for part in ("py_r3.csv", "line 38", "4.178216369", "dTLB-load-misses", str(2**47 + 6122), "2^47"):
        assert part in msg
    r, warned = caught(lambda: read_readings(DATA / "zen5", perf=PerfOptions(unusable="drop")))
    assert r.n_runs.tolist() == [7] and "py_r3" not in r[1].index and len(warned) == 1
    # every other run is the sum of the intervals perf printed
    lines = [s.split(",") for s in (DATA / "zen5" / "py_r1.csv").read_text().splitlines() if s.startswith(" ")]
    assert r[1].loc["py_r1", "cycles"] == sum(float(f[1]) for f in lines if f[3] == "cycles")


def test_negative_and_twice_printed(tmp_path):
    folder = tmp_path / "runs"
    shutil.copytree(DATA / "runs_csv", folder)
    f = folder / "run_10.csv"  # edited copy: a minus sign before the page-faults count
    f.write_text(f.read_text().replace("\n484,,page-faults", "\n-484,,page-faults"))
    with pytest.raises(InputError, match=r"run_10.csv: line 4 \(event 'page-faults'\) has a negative count -484"):
        read_readings(folder)
    lines = (folder / "run_13.csv").read_text().splitlines()
    (folder / "run_10.csv").write_text("\n".join(lines + [lines[-1]]) + "\n")
    with pytest.raises(InputError, match=r"run_10.csv: line 6 \(event 'context-switches'\) is printed twice"):
        read_readings(folder)


def test_groups_too_small_name_their_files():
    files = sorted((DATA / "runs_csv").iterdir())[:6]  # 2 runs of each group
    with pytest.raises(
        InputError,
        match=r"group 1: has 2 runs; at least 3.*group 1 is the 2 run\(s\) reading "
        r"task-clock, page-faults, context-switches \(run_01, run_04\)",
    ):
        read_readings(files)
    assert read_readings(files, min_runs=2).n_runs.tolist() == [2, 2, 2]


def test_a_run_file_cut_short_at_a_line_end_is_named_as_maybe_cut_short(tmp_path):
    # the file of a run lost its last lines (a copy cut short): its run reads the first events of its group
    # and made a group of its own, refused as too small with no word of why
    runs = tmp_path / "runs"
    shutil.copytree(DATA / "runs_csv", runs)
    f = runs / "run_04.csv"
    f.write_text("".join(f.read_text().splitlines(keepends=True)[:3]))  # the comment, a blank, task-clock
    with pytest.raises(InputError) as e:
        read_readings(runs)
    msg = str(e.value)
    assert "has 1 run;" in msg and "reading task-clock (run_04)" in msg
    assert "the first 1 of the 3 events group 1 reads (task-clock, page-faults, context-switches)" in msg
    assert "cut short?" in msg
    # a small group of other events is not told so
    files = sorted((DATA / "runs_csv").iterdir())[:6]
    with pytest.raises(InputError) as e:
        read_readings(files)
    assert "cut short" not in str(e.value)


def test_folder_rules(tmp_path):
    with pytest.raises(InputError, match="no files in the folder"):
        read_readings(tmp_path)
    shutil.copytree(DATA / "runs_csv", tmp_path / "runs")
    (tmp_path / "runs" / ".hidden").write_text("ignored")
    assert read_readings(tmp_path / "runs").n_runs.tolist() == [8, 8, 8]
    (tmp_path / "runs" / "sub").mkdir()
    with pytest.raises(InputError, match="holds a folder 'sub'"):
        read_readings(tmp_path / "runs")
    (tmp_path / "runs" / "sub").rmdir()
    (tmp_path / "runs" / "notes.csv").write_text("group,run,event,value\n1,1,a,1\n")
    with pytest.raises(InputError, match=r"notes.csv: is not perf stat output \(it reads as a CSV table\)"):
        read_readings(tmp_path / "runs")
    # one unrelated file in the folder: the message says what to do with it, and calls text no table
    (tmp_path / "runs" / "notes.csv").unlink()
    (tmp_path / "runs" / "notes.txt").write_text("measured on monday, before the patch\n")
    with pytest.raises(InputError) as e:
        read_readings(tmp_path / "runs")
    message = str(e.value)
    assert "notes.txt: is not perf stat output;" in message, message
    assert f"move it out of {tmp_path / 'runs'}, or give the run files themselves" in message, message
    with pytest.raises(InputError, match="notes.txt: is not perf stat output; .*: leave it out, or read it alone"):
        read_readings([DATA / "runs_csv" / "run_01.csv", tmp_path / "runs" / "notes.txt"])
    (tmp_path / "runs" / "notes.txt").unlink()
    with pytest.raises(InputError, match="given twice"):
        read_readings([DATA / "runs_csv" / "run_01.csv", DATA / "runs_csv" / "run_01.csv", DATA / "runs_csv"])


@pytest.mark.parametrize("folder", ["runs_csv", "runs_json"])
def test_program_output_mixed_into_perf_output_is_named_as_such(tmp_path, folder):
    # perf stat -x, -e ... prog 2> run.csv (no -o): perf's lines come after what the program wrote to stderr,
    # and the file was called "not perf stat output (it reads as a CSV table)" or "not a readings file"
    runs = tmp_path / "runs"
    shutil.copytree(DATA / folder, runs)
    f = sorted(runs.iterdir())[4]
    perf_lines = [s for s in f.read_text().splitlines() if s and not s.startswith("#")]
    f.write_text("warning: cache is cold, retrying\nstill warming up\n" + "\n".join(perf_lines) + "\n")
    want = (
        rf"{f.name}: line 1 \('warning: cache is cold, retrying'\) is not perf's, but the lines from line 3 on are "
        r"perf stat output: the measured program's own output is mixed in .*perf stat -o FILE"
    )
    with pytest.raises(InputError, match=want):
        read_readings(runs)
    with pytest.raises(InputError, match=want):
        read_readings(f)
    # a file that is not perf's at all is still told so
    (f.parent / "notes.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match=r"notes.csv: not a readings file"):
        read_readings(f.parent / "notes.csv")


def test_options_are_checked():
    with pytest.raises(InputError, match="unusable must be"):
        PerfOptions(unusable="maybe")
    with pytest.raises(InputError, match="per_cpu must be"):
        PerfOptions(per_cpu="mean")
    with pytest.raises(InputError, match="perf must be a PerfOptions"):
        read_readings(DATA / "runs_csv", perf="drop")
    with pytest.raises(InputError, match="no perf stat files given"):
        read_perf_runs([])


def test_pmcs_and_codes_ignored_with_a_warning():
    r, warned = caught(lambda: read_readings(DATA / "runs_csv", pmcs=2, codes="codes.csv"))
    assert r.n_runs.tolist() == [8, 8, 8]
    assert any(w.startswith("pmcs ignored") for w in warned) and any(w.startswith("codes ignored") for w in warned)


def test_pmcs_and_codes_ignored_are_named_as_options_on_the_command_line(tmp_path, cli):
    """The command line said 'pmcs ignored: ...' and 'codes ignored: ...' (the library's words) to a user of --pmcs."""
    codes = tmp_path / "codes.csv"
    codes.write_text("hems,code\na,1\n")
    res = cli(["export", DATA / "runs_csv", "--pmcs", "2", "--codes", codes, "-o", tmp_path / "out.csv"])
    assert res.exit_code == 0, res.stderr
    warned = [line for line in res.stderr.splitlines() if line.startswith("hemkit: warning: ")]
    assert (
        f"hemkit: warning: --pmcs 2 ignored: {DATA / 'runs_csv'} is perf stat output, whose groups are in the file"
        in warned
    )
    assert any(w.startswith(f"hemkit: warning: --codes {codes} ignored: ") for w in warned), warned
    assert not any("pmcs ignored" in w and "--pmcs" not in w for w in warned)


# ----------------------------------------------------------------- with the real perf, here and now
def perf_stat(args, out):
    subprocess.run(["perf", "stat", *args, "-o", str(out), "--", "bash", "-c", WORK], check=True, env=ENV)


WORK = "head -c $(( (RANDOM % 50 + 1) * 20000 )) /dev/urandom | gzip -1 > /dev/null"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


@pytest.mark.perf
@pytest.mark.parametrize("fmt", ["-x,", "-j"])
def test_live_perf_folder(software_perf, tmp_path, fmt):
    for i in range(9):
        perf_stat([fmt, "-e", ",".join(GROUPS[i % 3])], tmp_path / f"run_{i}.out")
    r = read_readings(tmp_path)
    assert r.n_runs.tolist() == [3, 3, 3] and [list(r[g].columns) for g in r.group_ids] == GROUPS
    value = csv_value if fmt == "-x," else json_value
    assert r[3].loc["run_8", "syscalls:sys_enter_read"] == value(tmp_path / "run_8.out", "syscalls:sys_enter_read")
