"""``hemkit report``: a self-contained HTML page that a real browser renders with every figure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from hemkit.datasets import t2080_much
from hemkit.io.collection import CollectionDB, StoredRun, WriterLock
from hemkit.report import ReportOptions, build_report

from .browser import render


def _render(html_path, tmp_path) -> str:
    """Load the page in headless Chromium: its images and SVG figures, and the errors its script raised."""
    seen = render(html_path, tmp_path)
    return f"images={seen['images']} decoded={seen['decoded']} svg={len(seen['figures'])} errors={len(seen['errors'])}"


def _expected(page: str) -> str:
    n, m = page.count("<img "), page.count("<svg ")
    return f"images={n} decoded={n} svg={m} errors=0"


def _collection(tmp_path) -> str:
    """A small collection database made without perf: 3 groups, valid and invalid runs."""
    rng = np.random.default_rng(0)
    path = tmp_path / "c.db"
    groups = [["task-clock", "page-faults", "a"], ["task-clock", "b", "c"], ["page-faults", "a", "c", "b"]]
    meta = {"runs": 12, "command": ["./prog", "--size", "3"], "perf_version": "perf version 6.1"}
    with WriterLock(path) as lock, CollectionDB.create(path, groups, meta, lock=lock) as db:
        for rep in range(12):
            for gid, events in enumerate(groups):
                if rep == 3 and gid == 1:  # one invalid run, kept with its reason
                    counts = pd.DataFrame(
                        {
                            "event": events,
                            "value": [np.nan] * len(events),
                            "percent": 0.0,
                            "run_time_ns": 0.0,
                            "status": "not counted",
                        }
                    )
                    db.record_run(StoredRun(gid, rep, "invalid", "c: not counted"), counts)
                base = rng.normal(1000, 50)
                counts = pd.DataFrame(
                    {
                        "event": events,
                        "value": [abs(base * (i + 1) + rng.normal(0, 30)) for i in range(len(events))],
                        "percent": 100.0,
                        "run_time_ns": 1e6,
                        "status": "ok",
                    }
                )
                db.record_run(StoredRun(gid, rep), counts)
    return str(path)


def test_report_of_readings_has_every_section():
    rep = build_report(t2080_much(), source="T2080", options=ReportOptions(method="joint"), seed=0)
    s = rep.summary()
    assert list(s.index) == ["overview", "runs", "coverage", "variability", "merge"]
    assert rep.n_figures == int(s["figures"].sum()) >= 5  # the merge section: heatmap and per-pair intervals
    assert s.loc["merge", "figures"] == 2 and s.loc["merge", "tables"] == 1
    assert rep.html.count("<figure ") == rep.n_figures == rep.html.count("<svg ")  # the readings' figures: SVG
    page = rep.html.replace("xmlns='http://www.w3.org/2000/svg'", "")  # a name, not an address fetched
    assert "http://" not in page and "https://" not in page  # nothing fetched from the network


def test_report_of_a_collection_shows_runs_and_invalid_reasons(tmp_path, cli):
    db = _collection(tmp_path)
    out = tmp_path / "report.html"
    res = cli(["report", db, "-o", out])
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert "<h2>Runs</h2>" in page and "c: not counted" in page and "./prog --size 3" in page


def test_report_of_an_unfinished_collection_shows_its_runs(tmp_path, cli):
    """A collection stopped early (Ctrl-C, invalid runs in a row) is what a report is for: its page is made,
    with every run stored; only the merge, which needs 3 runs a group, says it cannot be made and why."""
    path = tmp_path / "c.db"
    groups = [["task-clock", "page-faults"], ["task-clock", "b"], ["page-faults", "b"]]
    meta = {"runs": 10, "command": ["./prog"], "perf_version": "perf version 6.1"}
    rng = np.random.default_rng(1)
    with WriterLock(path) as lock, CollectionDB.create(path, groups, meta, lock=lock) as db:
        for rep, gid in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]:  # stopped in the second round
            values = rng.normal(1000, 50, len(groups[gid]))
            counts = pd.DataFrame(
                {"event": groups[gid], "value": values, "percent": 100.0, "run_time_ns": 1e6, "status": "ok"}
            )
            db.record_run(StoredRun(gid, rep), counts)
    out = tmp_path / "report.html"
    res = cli(["report", path, "-o", out])
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert "<h2>Runs</h2>" in page and "5 valid and 0 invalid runs over 3 groups" in page
    assert "no joint merge: group 0 has 2 runs (and 2 more groups under 3)" in page
    assert "hemkit: warning: report section 'merge' failed: no joint merge: group 0 has 2 runs" in res.stderr
    assert "unfinished collection" in res.stderr
    assert "1 failed (merge" in res.stdout
    # one perf stat file given alone is still the mistake its error explains, not a page of one run
    from pathlib import Path

    one = sorted((Path(__file__).resolve().parents[1] / "merge" / "data" / "perf_runs").iterdir())[0]
    res = cli(["report", one, "-o", tmp_path / "one.html"])
    assert res.exit_code == 2 and "give the files of all runs" in res.stderr, res.stderr


def test_report_renders_in_chromium_with_every_figure(tmp_path, cli):
    db = _collection(tmp_path)
    out = tmp_path / "report.html"
    assert cli(["report", db, "-o", out]).exit_code == 0
    page = out.read_text()
    assert page.count("<figure ") >= 6
    assert _render(out, tmp_path) == _expected(page)


def test_report_with_mpx_and_profile_sections_renders_in_chromium(tmp_path, cli):
    """The multiplexing and sampling figures decode in a real browser too."""
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    trace = tests / "mpx" / "data" / "zen5_py_r3.csv"
    script = tests / "sampling" / "data" / "libc_kernel.script.txt"
    db = _collection(tmp_path)
    out = tmp_path / "report.html"
    res = cli(["report", db, "--mpx", trace, "--profile", script, "-o", out])
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert "Multiplexing: zen5_py_r3.csv" in page and "Sampling profile: libc_kernel.script.txt" in page
    assert "wrap-around" in page  # the trace's 2^47 count, repaired and said so in the page
    assert page.count("<img ") >= 4 and page.count("<figure ") >= 6 + 4
    assert _render(out, tmp_path) == _expected(page)


def test_report_refuses_bad_output_before_any_work(tmp_path, bad_input):
    db = _collection(tmp_path)
    bad_input(["report", db, "-o", tmp_path / "missing" / "r.html"], names=["missing"], watch=[tmp_path])
    bad_input(["report", db, "-o", db], names=[db], watch=[tmp_path])  # a .db name is no page's, let alone the input
    bad_input(["report", db, "-o", tmp_path / "r.pdf"], names=["r.pdf", "name it .html"], watch=[tmp_path])
    bad_input(["report", db, "-o", tmp_path], names=[str(tmp_path)], watch=[tmp_path])
    bad_input(["report", tmp_path / "nope.db", "-o", tmp_path / "r.html"], names=["nope.db"], watch=[tmp_path])
    bad_input(["report", db, "--method", "hrm", "-o", tmp_path / "r.html"], names=["--anchor"], watch=[tmp_path])


def test_report_of_plain_perf_stat_files_renders(tmp_path, cli):
    """A perf user's path: a folder of perf stat -x, files (real perf output) -> one page."""
    from pathlib import Path

    runs = Path(__file__).resolve().parents[1] / "merge" / "data" / "perf_runs"
    out = tmp_path / "report.html"
    res = cli(["report", runs, "-o", out])
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert page.count("<figure ") >= 4
    assert _render(out, tmp_path) == _expected(page)


def test_report_without_a_merge_still_shows_coverage(tmp_path, cli):
    """Pairs never read together: the merge section says why, the rest of the page is there."""
    from hemkit.io.table import write_table

    rows = [
        (g, r, e, float(v))
        for g, evs in ((1, ("a", "b")), (2, ("c", "d")))
        for r in range(6)
        for i, e in enumerate(evs)
        for v in [(r * (i + 2)) % 5 + i]
    ]
    table = tmp_path / "r.csv"
    write_table(pd.DataFrame(rows, columns=["group", "run", "event", "value"]), table)
    out = tmp_path / "report.html"
    res = cli(["report", table, "-o", out])
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert "no joint merge" in page and "never read together" in page and "Plan and coverage" in page
    # the terminal says so too, in one line, and its advice is an option of hemkit report
    assert res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith("hemkit: warning: report section 'merge' failed: no joint merge: ")
    assert "never read together: 'a' and 'c'; 'a' and 'd'" in res.stderr
    assert res.stderr.endswith("; pass --impute maxdet\n")
    assert "1 failed (merge" in res.stdout
    assert cli(["report", table, "-o", out]).stderr == res.stderr  # every time, not once per process
    assert cli(["report", table, "--impute", "maxdet", "-o", out]).stderr == ""
