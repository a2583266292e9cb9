"""The machines section of ``hemkit report``: runs per host, events that differ by host and by how much."""

from __future__ import annotations

import numpy as np
import pandas as pd

from hemkit import Readings
from hemkit.compare import machines_check
from hemkit.report import sections as sec


def _check(shift: float, hosts=("n1", "n2", "n3"), runs=40, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.repeat(list(hosts), runs)
    x = rng.lognormal(np.log(1e6), 0.01, len(labels)) * np.where(labels == hosts[-1], shift, 1.0)
    r = Readings({1: pd.DataFrame({"cycles": x, "faults": rng.poisson(300, len(labels)).astype(float)})})
    frame = pd.DataFrame({"group": 1, "run": range(len(labels)), "host": labels, "cpu_model": "EPYC"})
    return machines_check(r, frame, seed=seed)


def test_machines_section_names_the_host_that_differs_and_by_how_much():
    s = sec.machines(_check(1.03))
    assert s.key == "machines" and not s.error
    assert s.paragraphs[0] == "120 runs on 3 hosts: n1 40, n2 40, n3 40."
    assert "1 of 2 events differ by host" in s.paragraphs[1] and "cycles on n3 x1.03" in s.paragraphs[1]
    runs, differing = (t for _, t in s.tables)
    assert runs["runs"].to_dict() == {"n1": 40, "n2": 40, "n3": 40} and (runs["cpu_model"] == "EPYC").all()
    assert differing.index[0] == "cycles" and differing.iloc[0]["host"] == "n3"
    assert abs(differing.iloc[0]["ratio"] - 1.03) < 0.01
    moved = differing[differing["host"] != "n3"]
    assert (moved["moved_by"] == "n3").all()
    if len(moved):
        assert any("flagged only because a host that differs more" in p for p in s.paragraphs)


def test_machines_section_of_alike_hosts_says_they_can_be_pooled():
    s = sec.machines(_check(1.0, hosts=("a", "b")))
    assert "No event differs by host" in s.paragraphs[1]
    assert len(s.tables) == 1  # runs per host only
