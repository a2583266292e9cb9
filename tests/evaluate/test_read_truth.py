"""A truth table from any file that holds one: wide, tidy without groups, or readings of one group."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.readings import Readings
from hemkit.datasets import split_truth, zen5_br_64kb
from hemkit.evaluate import read_truth
from hemkit.io import PerfOptions


@pytest.fixture
def truth():
    return zen5_br_64kb().iloc[:40, :4].reset_index(drop=True)


def _long(table: pd.DataFrame) -> pd.DataFrame:
    return table.rename_axis("run").reset_index().melt(id_vars="run", var_name="event", value_name="value")


def test_a_tidy_truth_without_a_group_column_is_runs_by_events(tmp_path, truth):
    # what hemkit's benchmarks keep (benchmarks/data/truth/*.csv.gz) and a user gets from a tidy export
    p = tmp_path / "t.csv"
    _long(truth).sample(frac=1, random_state=0).to_csv(p, index=False)  # rows in any order
    got = read_truth(p).sort_index()  # the runs by their number
    assert sorted(got.columns) == sorted(truth.columns)
    np.testing.assert_array_equal(got[truth.columns].to_numpy(), truth.to_numpy(float))


def test_readings_of_one_group_are_a_truth_table(tmp_path, truth):
    # a collection of every event at once (one group), exported: the same numbers
    p = tmp_path / "g.csv"
    Readings({0: truth}).to_tidy().to_csv(p, index=False)
    got = read_truth(p)
    np.testing.assert_array_equal(got[truth.columns].to_numpy(), truth.to_numpy(float))


def test_readings_of_several_groups_are_refused(tmp_path, truth):
    p = tmp_path / "split.csv"
    split_truth(truth, 3, seed=0).to_tidy().to_csv(p, index=False)
    with pytest.raises(InputError, match=r"split\.csv: readings of \d+ groups; a truth table reads every event"):
        read_truth(p)


def test_a_constant_event_is_refused_naming_the_fix_or_dropped(tmp_path, truth):
    p = tmp_path / "c.csv"
    truth.assign(never=7).to_csv(p, index=False)
    with pytest.raises(InputError, match="column 'never' is constant .7.; it carries no correlation; pass drop_const"):
        read_truth(p)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = read_truth(p, drop_constant=True)
    assert list(got.columns) == list(truth.columns) and got.attrs["dropped_constant"] == ["never"]
    assert any(issubclass(x.category, HemkitWarning) and "never" in str(x.message) for x in w)


def test_dropping_constants_from_one_group_readings_is_said(tmp_path, truth):
    p = tmp_path / "g.csv"
    Readings({0: truth.assign(never=3)}).to_tidy().to_csv(p, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = read_truth(p, drop_constant=True)
    assert "never" not in got.columns and got.attrs["dropped_constant"] == ["never"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.drop(index=5), r"run 1 has no row for event"),
        (lambda t: pd.concat([t, t.iloc[[0]]]), r"run 0 has event '.+' twice"),
        (lambda t: t.assign(cpu=1), r"also 'cpu'"),
    ],
    ids=["hole", "twice", "other-column"],
)
def test_a_tidy_truth_with_a_hole_or_a_repeat_names_the_run_and_event(tmp_path, truth, edit, message):
    p = tmp_path / "t.csv"
    edit(_long(truth).sort_values(["run", "event"]).reset_index(drop=True)).to_csv(p, index=False)
    with pytest.raises(InputError, match=message):
        read_truth(p)


def test_too_few_runs_for_the_design_says_how_many_it_needs(truth):
    with pytest.raises(InputError, match=r"design of 4 events on 2 counters has 6 groups, which need 18 runs .+ has 5"):
        split_truth(truth.iloc[:5], 2)


UNSUPPORTED = Path(__file__).resolve().parents[1] / "io" / "data" / "unsupported"  # 3 runs, cycles <not supported>


def test_a_truth_of_perf_files_with_an_unsupported_event_is_read_with_unusable_drop(tmp_path, cli, bad_input):
    # evaluate pairs took --unusable and said 'pass --unusable drop', but never passed it on to the reference
    # (the same error again); evaluate study had no --unusable at all, and its error named no way out
    with pytest.raises(InputError, match=r"run_1.csv: line 5 \(event 'cycles'\) is <not supported>"):
        read_truth(UNSUPPORTED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        got = read_truth(UNSUPPORTED, perf=PerfOptions(unusable="drop"))
    assert list(got.columns) == ["task-clock", "page-faults"] and len(got) == 3
    merged = tmp_path / "merged.csv"
    got.to_csv(merged, index=False)
    for args in (["evaluate", "pairs", merged, "--truth", UNSUPPORTED], ["evaluate", "study", "--truth", UNSUPPORTED]):
        bad_input(args, names=["'cycles'", "<not supported>", "--unusable drop"], watch=[tmp_path])
    res = cli(["evaluate", "pairs", merged, "--truth", UNSUPPORTED, "--unusable", "drop"])
    assert res.exit_code == 0 and "1 pairs of" in res.stdout and "dropped event(s) 'cycles'" in res.stderr
    # a study needs more runs and events: perf files of 4 software events and cycles, 12 runs
    rng = np.random.default_rng(0)
    runs = tmp_path / "runs"
    runs.mkdir()
    for r in range(12):
        base = rng.normal(100, 10)
        lines = [f"{base * k + rng.normal(0, 5):.0f},,e{k},{1000 + r},100.00,," for k in range(1, 5)]
        (runs / f"run_{r}.csv").write_text("\n".join([*lines, "<not supported>,,cycles,0,100.00,,"]) + "\n")
    study = ["evaluate", "study", "--truth", runs, "--pmcs", "3", "--splits", "1", "--reps", "1", "-q"]
    bad_input(study, names=["'cycles'", "<not supported>", "--unusable drop"], watch=[tmp_path])
    res = cli([*study, "--unusable", "drop"])
    assert res.exit_code == 0, res.stderr
    assert "(12 runs, 4 events)" in res.stdout and "dropped event(s) 'cycles'" in res.stderr
