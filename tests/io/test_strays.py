"""A run of another program among a build's perf stat files is warned of, naming its file; real data never is."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import numpy as np
import pytest

from hemkit.core.errors import HemkitWarning
from hemkit.core.strays import stray_runs
from hemkit.io import read_readings

ROOT = Path(__file__).resolve().parents[2]
TRUTH = sorted((ROOT / "benchmarks" / "data" / "truth").glob("**/*.csv.gz"))


def _run_file(path: Path, task_ms: float, faults: int, switches: int) -> None:
    path.write_text(
        "# started on Sat Nov 28 09:27:53 2026\n\n"
        f"{task_ms:.2f},msec,task-clock,{int(task_ms * 1e6)},100.00,0.841,CPUs utilized\n"
        f"{faults},,page-faults,{int(task_ms * 1e6)},100.00,12.248,K/sec\n"
        f"{switches},,context-switches,{int(task_ms * 1e6)},100.00,86.513,/sec\n"
        f"0,,cpu-migrations,{int(task_ms * 1e6)},100.00,0.000,/sec\n"
    )


def _folder(tmp_path: Path, *, stray: bool) -> Path:
    """Twelve runs of one -O0 build; with ``stray``, the last is a run of ls -lR (measured on this machine)."""
    folder = tmp_path / "O0"
    folder.mkdir()
    rng = np.random.default_rng(3)
    for i in range(1, 13):
        _run_file(folder / f"run_{i}.csv", 318 * rng.uniform(0.97, 1.03), 2012 + int(rng.integers(-9, 9)), 20 + i)
    if stray:
        _run_file(folder / "run_12.csv", 98.84, 205, 887)
    return folder


def _strays(source) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_readings(source)
    said = [str(w.message) for w in caught if issubclass(w.category, HemkitWarning)]
    return [s for s in said if "far out of line" in s]


def test_a_run_of_another_program_in_a_folder_is_warned_of_naming_its_file(tmp_path):
    said = _strays(_folder(tmp_path, stray=True))
    assert len(said) == 1
    assert str(tmp_path / "O0" / "run_12.csv") in said[0]
    assert "page-faults 205 against a median of" in said[0]
    assert "another program" in said[0] and "leave the file out" in said[0]


def test_ordinary_runs_draw_no_warning(tmp_path):
    assert _strays(_folder(tmp_path, stray=False)) == []


def test_compare_warns_and_still_compares(cli, tmp_path):
    a = _folder(tmp_path, stray=True)
    b = tmp_path / "O2"
    b.mkdir()
    for i in range(1, 13):
        _run_file(b / f"run_{i}.csv", 90 + i / 10, 2012 + i, 10 + i)
    out = cli(["compare", str(a), str(b)])
    assert out.exit_code == 0
    assert "run_12.csv is far out of line" in out.stderr


def test_a_table_names_the_run(tmp_path):
    rows = ["group,run,event,value"]
    for run in range(10):
        faults, clock = (205, 98) if run == 7 else (2012 + run, 318 + run)
        rows += [f"1,{run},page-faults,{faults}", f"1,{run},task-clock,{clock}"]
    table = tmp_path / "t.csv"
    table.write_text("\n".join(rows) + "\n")
    said = _strays(table)
    assert len(said) == 1 and f"{table}: run 7 is far out of line" in said[0]


def test_an_odd_run_of_the_same_program_is_not_a_stray():
    # a burst of context switches in one run, every other event in line: the same program
    v = np.array([[2012.0, 30, 318]] * 9 + [[2010, 900, 320]])
    v[:, 0] += np.arange(10)
    assert stray_runs(v, ["page-faults", "context-switches", "task-clock"]) == []


@pytest.mark.skipif(not TRUTH, reason="no truth tables in benchmarks/data/truth")
def test_no_run_of_the_real_truth_tables_is_a_stray():
    """300 runs each of real programs, some run a varied number of times (counts 20x apart): no warning."""
    import pandas as pd

    fired = []
    for path in TRUTH:
        with gzip.open(path, "rt") as f:
            table = pd.read_csv(f)
        wide = table.pivot_table(index="run", columns="event", values="value", aggfunc="first").dropna(axis=1)
        fired += [(path.name, s.row) for s in stray_runs(wide.to_numpy(), list(wide.columns))]
    assert fired == []
