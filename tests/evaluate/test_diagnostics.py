"""MUCH's diagnostics (hemkit.evaluate.diagnostics) that need no merging: the runs each design needs."""

from __future__ import annotations

import pytest

from hemkit.core.errors import InputError
from hemkit.evaluate.diagnostics import design_runs, schonheim
from hemkit.plan.bounds import schonheim_bound


def test_schonheim_is_the_plan_bound():
    """One implementation: the value of hemkit.plan.bounds.schonheim_bound everywhere, 0 for no events (was 1)."""
    for v in range(0, 40):
        for k in range(2, 12):
            assert schonheim(v, k) == schonheim_bound(v, k), (v, k)
    assert schonheim(0, 6) == 0
    assert [schonheim(v, 3) for v in (4, 5, 6, 7)] == [3, 4, 6, 7]  # = C(v, 3, 2)
    assert schonheim(16, 6) == 8 and schonheim(50, 6) == 84


def test_schonheim_refuses_groups_that_cover_no_pair():
    with pytest.raises(InputError, match="at least 2 counters"):  # was a ZeroDivisionError
        schonheim(5, 1)


def test_design_runs_bound_column_is_schonheims():
    t = design_runs((6, 16, 50), pmcs=6, runs_per_group=10).table
    assert t["much_bound"].tolist() == [10, 80, 840]


def test_the_summary_line_says_what_each_figure_was_drawn_from(cli, tmp_path):
    # said "diagnostics: design on raw.csv": the design curve reads no data, whatever INPUT is
    raw = tmp_path / "raw.csv"
    raw.write_text(
        "group,run,event,value\n"
        + "".join(f"1,{r},{e},{r * k + 1}\n" for r in range(3) for k, e in ((1, "a"), (2, "b")))
    )
    res = cli(["evaluate", "diagnostics", str(raw), "--plot-design", str(tmp_path / "d.png"), "--pmcs", "4", "-q"])
    assert res.exit_code == 0, res.stderr
    line = res.stdout.strip().splitlines()[-1]
    assert line.startswith("diagnostics: design (6-60 events on 4 counters); wrote") and "raw.csv" not in line
