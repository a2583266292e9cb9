"""Plans on hybrid CPUs: each core PMU has its own counters (issue 27 item 1)."""

import itertools

import pytest

from hemkit.core.errors import InputError
from hemkit.io.perf_files import core_pmu_of
from hemkit.plan import Plan, make_plan

CORE = [f"cpu_core/{e}/" for e in ["instructions", "cycles", "branches", "branch-misses", "cache-misses", "ref-cycles"]]
ATOM = [f"cpu_atom/{e}/" for e in ["instructions", "cycles", "branches", "branch-misses"]]


def test_each_core_pmu_is_planned_on_its_own_counters():
    p = make_plan([*CORE, *ATOM, "task-clock"], 3)
    for g in p.groups:
        per = {pmu: sum(core_pmu_of(e) == pmu for e in g) for pmu in ("cpu_core", "cpu_atom")}
        assert per["cpu_core"] + sum(e == "task-clock" for e in g) <= 3 and per["cpu_atom"] <= 3
    assert max(len(g) for g in p.groups) > 3  # a group holds events of both PMUs beyond one PMU's 3
    covered = {frozenset(pair) for g in p.groups for pair in itertools.combinations(g, 2)}
    for pmu_events in ([*CORE, "task-clock"], ATOM):  # every pair within a PMU is read together
        assert all(frozenset(pair) in covered for pair in itertools.combinations(pmu_events, 2))
    assert p.size == max(p.diagnostics["per_pmu"].values())
    assert Plan.from_dict(p.to_dict()) == p


def test_a_group_over_one_pmus_counters_is_refused():
    with pytest.raises(InputError, match=r"group 0 has 3 events of cpu_atom but pmcs is 2"):
        Plan([[*CORE[:2], *ATOM[:3]]], pmcs=2)
