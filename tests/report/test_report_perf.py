"""The workflow a perf user follows, with real perf: plan -> collect -> report, no extra flag."""

from __future__ import annotations

from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.perf
def test_plan_collect_report_of_software_events_shows_constants_runs_and_machine(software_perf, tmp_path, cli):
    from hemkit.io.collection import CollectionDB
    from hemkit.report import build_report

    plan, db, out = tmp_path / "plan.toml", tmp_path / "plan.db", tmp_path / "r.html"
    events = ["task-clock", "page-faults", "context-switches", "cpu-migrations"]
    assert cli(["plan", *events, "--pmcs", "2", "-o", plan]).exit_code == 0
    res = cli(["collect", plan, "--runs", "4", "-o", db, "-q", "--", "gzip", "-c", README])
    assert res.exit_code == 0, res.stderr
    res = cli(["report", db, "-o", out])
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert f"gzip -c {README}" in page and "perf version" in page and "<th>kernel</th>" in page
    # the constant events the page lists are exactly those of the database
    with CollectionDB(db) as c:
        tidy = c.tidy()
    spread = tidy.groupby(["group", "event"], sort=False)["value"].agg(["min", "max"])
    truth = sorted((int(g), e, float(v)) for (g, e), v in spread[spread["min"] == spread["max"]]["min"].items())
    rep = build_report(str(db), seed=0)
    section = next((s for s in rep.sections if s.key == "constant"), None)
    shown = [] if section is None else section.tables[0][1].reset_index().values.tolist()
    assert sorted((int(g), e, float(v)) for g, e, v, _, _ in shown) == truth
    assert ("Constant events" in page) == bool(truth)
    runs = next(s for s in rep.sections if s.key == "runs").tables[-1][1]
    assert runs["valid"].tolist() == [4] * 6 and runs["invalid"].sum() == 0
