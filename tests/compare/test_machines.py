"""hemkit.compare.machines_check: hosts of one collection tested against each other, event by event."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hemkit import Readings
from hemkit.compare import MIN_RUNS, MachinesCheck, machines_check
from hemkit.compare.machines import COLUMNS, UNKNOWN
from hemkit.core.errors import InputError


def _data(n_per_host, factors=None, seed=0, groups=1):
    """Readings of 3 events over hosts (runs of each host interleaved over ``groups`` groups) and their hosts frame.

    ``factors``: host -> (event -> factor) applied to that host's readings.
    """
    rng = np.random.default_rng(seed)
    factors = factors or {}
    labels = np.concatenate([[h] * n for h, n in n_per_host.items()])
    rng.shuffle(labels)
    n = len(labels)
    cols = {
        "cycles": rng.lognormal(np.log(1e6), 0.01, n),
        "faults": rng.poisson(400, n).astype(float),
        "switches": rng.poisson(3, n).astype(float),
    }
    for host, by_event in factors.items():
        for event, f in by_event.items():
            on = labels == host
            x = cols[event][on] * f
            cols[event][on] = np.round(x) if event != "cycles" else x
    gid = np.arange(n) % groups
    readings = Readings(
        {
            g: pd.DataFrame({e: v[gid == g] for e, v in cols.items()}, index=np.flatnonzero(gid == g))
            for g in range(groups)
        },
        min_runs=1,
    )
    hosts = pd.DataFrame({"group": gid, "run": np.arange(n), "host": labels})
    return readings, hosts


def test_two_hosts_a_shifted_event_is_flagged_with_its_size_and_nothing_else():
    r, hosts = _data({"node1": 80, "node2": 60}, {"node2": {"cycles": 1.02}})
    res = machines_check(r, hosts, seed=0)
    t = res.to_frame()
    assert list(t.columns) == list(COLUMNS)
    assert len(t) == 3 and res.tests == 3  # two hosts: one test per event
    assert set(t["host"]) == {"node2"} and set(t["against"]) == {"node1"}  # fewer runs against more
    assert [(e, h) for e, h, _ in res.differing()] == [("cycles", "node2")]
    row = t.set_index("event").loc["cycles"]
    assert row["lower"] < 1.02 < row["upper"]
    assert row["runs"] == 60 and row["other_runs"] == 80
    assert res.runs == {"node1": 80, "node2": 60}
    assert res.summary().loc["machines", "differ"] == 1
    assert "cycles on node2 x1.02" in res.line()
    assert "host 'node2' reads 'cycles' x1.02" in res.messages()[0]


def test_aa_hosts_of_one_distribution_are_not_flagged():
    for seed in range(5):
        r, hosts = _data({"a": 50, "b": 50, "c": 50}, seed=seed, groups=3)
        res = machines_check(r, hosts, seed=seed)
        assert res.differing() == [], seed
        assert res.tests == 9
        assert "no host differs" in res.line()


def test_aa_share_flagged_stays_near_the_level_over_many_splits():
    # 20 random splits of one set of tied counts into 2 and 3 fake hosts: flagged in at most 3 (expected <= 1)
    rng = np.random.default_rng(7)
    x = rng.poisson(30, 120).astype(float)
    y = np.round(rng.lognormal(np.log(5000), 0.05, 120))
    r = Readings({1: pd.DataFrame({"x": x, "y": y})})
    flagged = 0
    for s in range(20):
        k = 2 + s % 2
        labels = np.array([f"h{i % k}" for i in range(120)])
        np.random.default_rng(s).shuffle(labels)
        res = machines_check(r, pd.DataFrame({"group": 1, "run": range(120), "host": labels}), seed=s)
        flagged += bool(res.differing())
    assert flagged <= 3


def test_three_hosts_the_shifted_host_is_named_first():
    r, hosts = _data({"a": 60, "b": 60, "c": 60}, {"b": {"faults": 1.05}}, groups=2)
    res = machines_check(r, hosts, seed=1)
    t = res.to_frame()
    assert res.tests == 9 and set(t["against"]) == {"others"}
    found = res.differing()
    assert found[0][:2] == ("faults", "b")
    assert abs(found[0][2] - 1.05) < 0.01
    assert {e for e, _, _ in found} == {"faults"}  # other hosts may be flagged on it too (smaller, opposite)
    assert all(r < 1 for e, h, r in found if h != "b")
    assert [(e, h) for e, h, _ in res.differing(moved=False)] == [("faults", "b")]
    moved = t[t["differs"] & (t["host"] != "b")]
    assert len(moved) and (moved["moved_by"] == "b").all() and moved["note"].str.contains("moved by host 'b'").all()
    assert res.summary().loc["machines", "hosts_differing"] == 1
    assert "1 differ" in res.line() and "faults on b x1.05" in res.line()
    assert res.runs_per_host()["runs"].to_dict() == {"a": 60, "b": 60, "c": 60}


def test_one_host_is_said_not_tested():
    r, hosts = _data({"only": 40})
    res = machines_check(r, hosts)
    assert isinstance(res, MachinesCheck)
    assert res.one_host and res.tests == 0 and res.differing() == [] and len(res.to_frame()) == 0
    assert res.line() == "machines check: one host (only 40 runs): nothing to compare"
    assert res.summary().loc["machines", "largest_difference"] == "one host: nothing to compare"
    assert res.messages() == []


def test_a_host_with_too_few_runs_is_said_and_not_tested():
    r, hosts = _data({"a": 50, "b": 50, "tiny": MIN_RUNS - 2}, {"tiny": {"cycles": 2.0}})
    res = machines_check(r, hosts)
    t = res.to_frame().set_index(["event", "host"])
    tiny = t.xs("tiny", level="host")
    assert tiny["p_value"].isna().all() and not tiny["differs"].any()
    assert tiny["note"].str.contains(f"{MIN_RUNS - 2} run\\(s\\) of the event on this host").all()
    assert res.tests == 6 and len(res.untested) == 3
    assert "3 (event, host) pairs with too few runs not tested" in res.line()
    # two hosts, one of them too small: nothing tested, said
    r2, hosts2 = _data({"a": 50, "tiny": 2})
    res2 = machines_check(r2, hosts2)
    assert res2.tests == 0 and len(res2.untested) == 3 and res2.differing() == []


def test_an_event_read_in_several_groups_pools_them_per_host():
    r, hosts = _data({"a": 30, "b": 30}, groups=3)
    t = machines_check(r, hosts).to_frame()
    assert (t["runs"] == 30).all() and (t["other_runs"] == 30).all()
    assert sum(machines_check(r, hosts).runs.values()) == 60


def test_each_host_one_different_value_differs_without_noise():
    r = Readings({1: pd.DataFrame({"x": np.r_[np.full(10, 3.0), np.full(10, 4.0)], "y": np.arange(20.0) % 5})})
    hosts = pd.DataFrame({"group": 1, "run": range(20), "host": ["a"] * 10 + ["b"] * 10})
    res = machines_check(r, hosts)
    t = res.to_frame().set_index("event")
    assert bool(t.loc["x", "differs"]) and "without noise" in t.loc["x", "note"]
    assert not t.loc["y", "differs"]


def test_same_seed_same_numbers_and_ids_of_any_type_meet():
    r, hosts = _data({"a": 30, "b": 25}, {"b": {"faults": 1.1}})
    as_text = hosts.assign(group=hosts["group"].astype(str), run=hosts["run"].astype(str))
    pd.testing.assert_frame_equal(machines_check(r, hosts, seed=4).table, machines_check(r, as_text, seed=4).table)


def test_a_missing_host_is_unknown_and_extra_rows_are_ignored():
    r, hosts = _data({"a": 30, "b": 30})
    hosts.loc[:9, "host"] = None
    extra = pd.DataFrame({"group": [0], "run": [999], "host": ["elsewhere"]})
    res = machines_check(r, pd.concat([hosts, extra], ignore_index=True))
    assert res.runs[UNKNOWN] == 10 and "elsewhere" not in res.runs


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda h: h.iloc[1:], "hosts has no row for run 0 of group 1;"),
        (lambda h: pd.concat([h, h.iloc[:1].assign(host="z")]), "two hosts for run 0 of group 1"),
        (lambda h: h.drop(columns="host"), "hosts has no column 'host'"),
        (lambda h: h.to_dict(), "hosts must be a DataFrame"),
    ],
)
def test_bad_hosts_are_refused_naming_the_run(change, match):
    r = Readings({1: pd.DataFrame({"x": np.arange(10.0)})})
    hosts = pd.DataFrame({"group": 1, "run": range(10), "host": ["a", "b"] * 5})
    with pytest.raises(InputError, match=match):
        machines_check(r, change(hosts))


def test_level_and_readings_are_checked():
    r, hosts = _data({"a": 10, "b": 10})
    with pytest.raises(InputError, match="level must be a number in"):
        machines_check(r, hosts, level=1.5)
    with pytest.raises(InputError, match="readings must be Readings"):
        machines_check(hosts, hosts)


def test_runs_per_host_carry_what_the_hosts_frame_says_of_each_machine():
    r, hosts = _data({"a": 20, "b": 20})
    hosts = hosts.assign(
        cpu_model=np.where(hosts["host"] == "a", "EPYC 7B13", "Xeon 8375C"),
        kernel="6.1.0",
        perf_version=np.where(np.arange(len(hosts)) % 2, "6.1", "6.2"),
    )
    table = machines_check(r, hosts).runs_per_host()
    assert table.loc["a", "cpu_model"] == "EPYC 7B13" and table.loc["b", "cpu_model"] == "Xeon 8375C"
    assert table.loc["a", "kernel"] == "6.1.0"
    assert set(table.loc["a", "perf_version"].split(" | ")) == {"6.1", "6.2"}
    assert list(machines_check(r, hosts[["group", "run", "host"]]).runs_per_host().columns) == ["runs"]
