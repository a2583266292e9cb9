"""The multiplexing trace sets kept for BENCHMARKS.md (``benchmarks/data/mpx``) are whole and readable.

They are the data behind every multiplexing figure of BENCHMARKS.md; an earlier recording lived
outside the repository and was lost.  Each archive must hold its set's folder, three event sets
x 4 runs per workload, and every trace must read with hemkit's own reader.  The newest set,
recorded for a later check, is only listed here, not read.
"""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

import pytest

from hemkit.io.traces import read_trace

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "mpx"
#: set -> workloads (``benchmarks/mpx_collect.py``); the newest, unread, is only listed
SETS = {
    "traces": 18,
    "fresh": 10,
    "fresh2": 8,
    "fresh3": 8,
    "fresh4": 8,
    "fresh5": 8,
    "fresh6": 8,
    "fresh7": 8,
    "fresh8": 8,
    "fresh9": 8,
    "fresh10": 8,
    "fresh11": 8,
    "fresh12": 8,
    "fresh13": 8,
    "fresh14": 8,
    "fresh15": 8,
    "fresh16": 8,
    "fresh17": 8,
    "fresh18": 8,
    "fresh19": 8,
    "fresh20": 8,
    "fresh21": 8,
    "fresh22": 8,
    "fresh23": 8,
    "fresh24": 8,
    "fresh25": 8,
    "fresh26": 8,
    "fresh27": 8,
}
UNREAD = {"fresh28": 8}
NAME = re.compile(r"^(?P<workload>.+)_s(?P<set>[123])_r(?P<run>[1-4])\.csv$")


def _members(name: str) -> list[tarfile.TarInfo]:
    with tarfile.open(DATA / f"{name}.tar.xz") as tar:
        return [m for m in tar.getmembers() if m.isfile()]


@pytest.mark.parametrize("name", [*SETS, *UNREAD])
def test_each_set_holds_three_event_sets_of_four_runs_per_workload(name):
    members = _members(name)
    assert all(m.name.startswith(f"{name}/") for m in members)
    names = [NAME.match(Path(m.name).name) for m in members]
    assert all(names), [m.name for m, ok in zip(members, names) if not ok]
    workloads = {n["workload"] for n in names if n}
    assert len(workloads) == {**SETS, **UNREAD}[name]
    assert len(members) == 12 * len(workloads)


def test_every_kept_trace_reads(tmp_path):
    for name in SETS:
        with tarfile.open(DATA / f"{name}.tar.xz") as tar:
            tar.extractall(tmp_path, filter="data")
        traces = read_trace(tmp_path / name)
        assert traces["run"].nunique() == 12 * SETS[name]
        assert (traces["value"] >= 0).all()
