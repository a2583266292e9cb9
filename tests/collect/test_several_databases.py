"""The reading door for several collection databases: one plan and command, one set of readings.

Two collections of one plan (made with the fake perf, its counts random) read together hold
exactly the runs of both: each group's readings are the two databases' readings of the group
with the same events, whatever the order of the groups in each plan; run ids stay unique
(prefixed by the file's stem).  Collections of another plan or command are refused naming
both files, and every command that reads readings takes them (merge, export, report).
"""

import numpy as np
import pytest

from hemkit import InputError
from hemkit.collect import CollectOptions, collect
from hemkit.io import read_readings
from hemkit.io.collection import load_readings as load_one
from hemkit.plan import Plan

from ..conftest import run_cli


@pytest.fixture
def two(tmp_path, fake_perf, plan):
    """Two collections of ``plan``: the second with its groups in the opposite order."""
    a, b = tmp_path / "monday.db", tmp_path / "tuesday.db"
    collect(plan, ["true"], a, runs=3)
    collect(Plan([list(g) for g in reversed(plan.groups)]), ["true"], b, runs=4)
    return a, b


def _by_events(readings):
    return {frozenset(readings.arrays[g].events): g for g in readings.group_ids}


def test_two_collections_are_one_set_of_readings(two):
    a, b = two
    both, ra, rb = read_readings([a, b]), load_one(a), load_one(b)
    assert both.group_ids == ra.group_ids  # numbered as in the first database
    assert both.run_counts == {g: 3 + 4 for g in ra.group_ids}
    groups_b = _by_events(rb)
    for g in both.group_ids:
        grp = both.arrays[g]
        same = groups_b[frozenset(grp.events)]  # the group of the same events in the second plan
        for event in grp.events:
            want = np.concatenate([ra[g][event].to_numpy(), rb[same][event].to_numpy()])
            np.testing.assert_array_equal(np.sort(both[g][event].to_numpy()), np.sort(want))
        assert len(set(grp.runs.tolist())) == 7
        assert sorted(grp.runs.tolist()) == sorted(
            [f"monday:{r}" for r in range(3)] + [f"tuesday:{r}" for r in range(4)]
        )


def test_another_command_or_plan_refused_naming_both(tmp_path, fake_perf, plan, two):
    a, _ = two
    other_cmd = tmp_path / "other.db"
    collect(plan, ["sh", "-c", "true"], other_cmd, runs=3)
    with pytest.raises(InputError, match="different commands") as exc:
        read_readings([a, other_cmd])
    assert str(a) in str(exc.value) and str(other_cmd) in str(exc.value)
    # two builds given together where a comparison was meant: the message says how to compare them
    assert str(exc.value).endswith(
        "(to compare two such collections: hemkit compare A B, or hemkit report A --compare B)"
    )
    pinned = tmp_path / "pinned.db"
    collect(plan, ["true"], pinned, runs=3, options=CollectOptions(pin=0))
    with pytest.raises(InputError, match="different pins") as exc:
        read_readings([a, pinned])
    assert "('0' and no pin)" in str(exc.value) and "None" not in str(exc.value)  # not Python's words
    other_plan = tmp_path / "plan2.db"
    collect(Plan([["task-clock", "page-faults"], ["task-clock", "minor-faults"]]), ["true"], other_plan, runs=3)
    with pytest.raises(InputError, match="different plans") as exc:
        read_readings([a, other_plan])
    assert str(a) in str(exc.value) and str(other_plan) in str(exc.value)


def test_a_database_and_a_perf_file_refused(two, tmp_path):
    a, _ = two
    perf = tmp_path / "run.csv"
    perf.write_text("48,,page-faults,649355,100.00,,\n")
    with pytest.raises(InputError, match="not a collection database"):
        read_readings([a, perf])


def test_every_command_takes_several_databases(two, tmp_path):
    a, b = two
    out = tmp_path / "x.csv"
    res = run_cli(["export", a, b, "-o", out])
    assert res.exit_code == 0, res.stderr
    assert f"read {a} {b}: 6 groups" in res.stdout
    import pandas as pd

    table = pd.read_csv(out)
    assert len(table) == 6 * 7 * 2 and table["run"].str.startswith(("monday:", "tuesday:")).all()
    res = run_cli(["merge", a, b, "-m", "much", "--n-sims", "5", "-q"])
    assert res.exit_code == 0, res.stderr
    assert "read 6 groups (42 runs, 4 events)" in res.stdout
    res = run_cli(["report", a, b, "--method", "none", "-o", tmp_path / "r.html", "-q"])
    assert res.exit_code == 0, res.stderr


def test_export_takes_a_folder_and_several_perf_files(tmp_path):
    from pathlib import Path

    runs = Path(__file__).parents[1] / "io" / "data" / "runs_csv"
    files = sorted(runs.iterdir())
    want = read_readings(runs).to_tidy()
    for args in ([runs], files):
        out = tmp_path / "x.csv"
        res = run_cli(["export", *args, "-o", out])
        assert res.exit_code == 0, res.stderr
        import pandas as pd

        got = pd.read_csv(out)
        assert len(got) == len(want) and np.allclose(np.sort(got["value"]), np.sort(want["value"]))
        out.unlink()


def test_one_collection_given_twice_or_copied_is_refused(two, tmp_path, bad_input):
    """export a.db a.db said "event 'task-clock' is read twice in run 'a:0'"; a link or a copy of a.db exited 0
    with every run twice; each is now refused, naming both files."""
    import os
    import shutil

    a, _ = two
    link, copy = tmp_path / "link.db", tmp_path / "copy.db"
    os.symlink(a, link)
    shutil.copyfile(a, copy)
    out = tmp_path / "x.csv"
    bad_input(["export", a, a, "-o", out], names=[f"{a}: given twice"], watch=[tmp_path])
    bad_input(["export", a, link, "-o", out], names=[f"{link}: given twice (also as {a})"], watch=[tmp_path])
    bad_input(["export", a, copy, "-o", out], names=[f"{copy}: holds 18 run(s) also stored in {a}"], watch=[tmp_path])
