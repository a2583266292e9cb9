"""The readings sections of ``hemkit report``: runs, plan, constant events, variability, the merge, and their figures.

Figures are checked on the SVG the page shows (``Figure.svg``, read back by ``svgcheck``):
the texts drawn, and the hover titles of the marks (what a reader pointing at a cell or a dot is told).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hemkit.core.readings import Readings
from hemkit.io import read_readings
from hemkit.io.collection import CollectionDB, StoredRun, WriterLock
from hemkit.report import ReportOptions, build_report
from hemkit.report import sections as sec
from hemkit.report.html import Figure

from . import svgcheck

TESTS = Path(__file__).resolve().parents[1]
MACHINE = {"uname": "Linux node7 6.18.44-fc #1 SMP PREEMPT_DYNAMIC @0 x86_64", "cpu_model": "AMD EPYC 9655", "cpus": 2}


def _counts(events, values, status="ok"):
    return pd.DataFrame(
        {"event": events, "value": values, "percent": 100.0, "run_time_ns": 1e6, "status": status},
    )


def make_db(path, groups, *, runs=6, constant=None, invalid=None, unread=(), command=("gzip", "-c", "big.txt")):
    """A collection database made without perf.

    ``constant``: (group, event) -> the value read in every run; ``invalid``: (group, rep) ->
    reason of an invalid run stored before the valid one; ``unread``: groups with invalid runs only.
    """
    constant, invalid = constant or {}, invalid or {}
    rng = np.random.default_rng(7)
    meta = {"runs": runs, "command": list(command), "perf_version": "perf version 6.1.187"}
    meta["machine"] = MACHINE
    with WriterLock(path) as lock, CollectionDB.create(path, groups, meta, lock=lock) as db:
        for rep in range(runs):
            for gid, events in enumerate(groups):
                if (gid, rep) in invalid or gid in unread:
                    reason = invalid.get((gid, rep), f"{events[-1]}: not counted")
                    db.record_run(StoredRun(gid, rep, "invalid", reason), _counts(events, np.nan, "not counted"))
                if gid in unread:
                    continue
                base = rng.normal(1000, 50)
                values = [constant.get((gid, e), abs(base * (i + 1) + rng.normal(0, 30))) for i, e in enumerate(events)]
                db.record_run(StoredRun(gid, rep), _counts(events, values))
    return str(path)


def _section(rep, key):
    return next(s for s in rep.sections if s.key == key)


def _table(section, caption_start):
    return next(t for c, t in section.tables if c.startswith(caption_start))


def _grid(plan, events):
    """The plan figure's states as rows of groups x ``events`` (0 where a cell is not drawn)."""
    cells = svgcheck.plan_states(plan, sec._PLAN_STATES)
    groups = list(dict.fromkeys(g for g, _ in cells))
    assert [e for g, e in cells if g == groups[0]] == events  # the columns, in order
    return [[cells.get((g, e), 0) for e in events] for g in groups]


# ------------------------------------------------------------------ runs
def test_runs_section_of_a_database_lists_groups_reasons_command_and_machine(tmp_path):
    invalid = {(1, 2): "c: not counted", (1, 4): "c: not counted", (2, 0): "b: multiplexed (87% running)"}
    db = make_db(tmp_path / "c.db", [["a", "b"], ["a", "c"], ["b", "c"]], invalid=invalid)
    runs = _section(build_report(db, options=ReportOptions(method="")), "runs")
    described = _table(runs, "The measured command")["value"]
    assert described["command"] == "gzip -c big.txt"
    assert described["host"] == "node7" and described["kernel"] == "Linux 6.18.44-fc (x86_64)"
    assert described["CPU"] == "AMD EPYC 9655 (2 CPUs)" and described["perf"] == "perf version 6.1.187"
    table = _table(runs, "Runs of each group")
    assert list(table.index) == [0, 1, 2]
    assert table["runs"].tolist() == [6, 8, 7] and table["valid"].tolist() == [6, 6, 6]
    assert table["invalid"].tolist() == [0, 2, 1]
    assert table["invalid because"].tolist() == ["", "c: not counted (2x)", "b: multiplexed (87% running) (1x)"]
    assert "6 invalid" not in runs.paragraphs[0] and "3 invalid runs" in runs.paragraphs[0]


def test_the_measured_command_is_shown_as_a_shell_takes_it(tmp_path):
    # it was shown as its words joined by spaces: sh -c ls /usr/lib > /dev/null; exit 3, another command
    command = ["sh", "-c", "ls /usr/lib > /dev/null; exit 3", "my file.txt"]
    db = make_db(tmp_path / "c.db", [["a", "b"], ["a", "c"], ["b", "c"]], command=command)
    runs = _section(build_report(db, options=ReportOptions(method="")), "runs")
    shown = _table(runs, "The measured command")["value"]["command"]
    assert shown == "sh -c 'ls /usr/lib > /dev/null; exit 3' 'my file.txt'"
    assert shlex.split(shown) == command


def test_runs_section_of_files_counts_the_runs_of_each_group(tmp_path):
    rows = [
        (g, r, e, float(10 + r * (i + 1) + g))
        for g, evs in ((1, "ab"), (2, "bc"))
        for r in range(4 + g)
        for i, e in enumerate(evs)
    ]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["group", "run", "event", "value"]).to_csv(path, index=False)
    runs = _section(build_report(str(path), options=ReportOptions(method="")), "runs")
    table = _table(runs, "Runs of each group")
    assert table["runs"].tolist() == [5, 6] and table["events"].tolist() == [2, 2]
    assert "only for a collection database" in runs.paragraphs[0]


# ------------------------------------------------------------------ constant events
def test_constant_events_are_listed_from_the_arrays():
    g = {
        1: (np.arange(4), ["a", "b"], np.array([[1.0, 7], [2, 7], [3, 7], [4, 7]])),
        2: (np.arange(4), ["a", "c"], np.array([[1.0, 0], [2, 1], [3, 0], [4, 0]])),
    }
    from hemkit.core.errors import HemkitWarning

    assert sec.constant_events(Readings.from_arrays(g)) == ((1, "b", 7.0),)
    with pytest.warns(HemkitWarning):
        dropped = Readings.from_arrays(g, drop_constant=True)
    assert sec.constant_events(dropped) == ((1, "b", 7.0),) and "b" not in dropped.events


def test_a_collection_with_a_constant_event_is_reported_as_it_is(tmp_path):
    db = make_db(tmp_path / "c.db", [["a", "b"], ["a", "b", "c"], ["b", "c"]], constant={(0, "b"): 7.0})
    rep = build_report(db, seed=0)
    assert not rep.failed
    assert sec.constant_events(Readings.from_arrays({0: (np.arange(3), ["x"], np.zeros((3, 1)))})) == ((0, "x", 0.0),)
    table = _table(_section(rep, "constant"), "Events constant within a group")
    assert table.reset_index().values.tolist() == [["0", "b", "7", 6, "yes"]]
    merge = _section(rep, "merge")
    assert not merge.error and len(merge.figures) == 2
    assert "1 constant reading(s)" in " ".join(merge.paragraphs)
    assert "3 groups into" in merge.paragraphs[0]  # group 0 keeps a: it is still merged
    plan = _section(rep, "coverage").figures[0]
    assert _grid(plan, ["a", "b", "c"]) == [[1, 2, 0], [1, 1, 1], [0, 1, 1]]
    assert "read, constant in the group" in svgcheck.label_texts(plan)  # the key
    # one form for any counts: it said '1' here and '1 (3 readings: an event in a group)' for three readings
    shown = _section(rep, "overview").tables[0][1].loc["events constant within a group", "value"]
    assert shown == "1 (1 reading: an event in a group)"


def test_files_with_an_event_constant_in_every_group_dropped_when_read(tmp_path):
    """hemkit report runs/ --drop-constant of a tracepoint constant in both groups that read it: a KeyError.

    Without a plan the plan figure's columns were the events left, and the dropped tracepoint was
    no longer one of them; then the page called it 'planned but not in the readings'.
    """
    from hemkit.core.errors import HemkitWarning

    rows = [(1, r, e, v) for r in range(5) for e, v in (("a", r + 1.0), ("b", r * r + 1.0), ("t", 13.0))]
    rows += [(2, r, e, v) for r in range(5) for e, v in (("a", r + 2.0), ("t", 13.0))]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["group", "run", "event", "value"]).to_csv(path, index=False)
    with pytest.warns(HemkitWarning, match="dropped constant"):
        rep = build_report(str(path), options=ReportOptions(method=""), read_options={"drop_constant": True})
    assert not rep.failed
    coverage = _section(rep, "coverage")
    assert _grid(coverage.figures[0], ["a", "b", "t"]) == [[1, 1, 2], [1, 0, 2]]
    assert coverage.warnings == ("constant in every group that read it, dropped when read: t",)


def test_the_overview_counts_an_event_constant_in_several_groups_once(tmp_path):
    """It said '3' events constant for one tracepoint constant in three groups (the section below: 1 event)."""
    groups = [["a", "b"], ["a", "b", "c"], ["b", "c"]]
    db = make_db(tmp_path / "c.db", groups, constant={(0, "b"): 7.0, (1, "b"): 7.0, (2, "b"): 7.0})
    rep = build_report(db, seed=0)
    constant = {e for _, e, _ in sec.constant_events(read_readings(db))}
    shown = _section(rep, "overview").tables[0][1].loc["events constant within a group", "value"]
    assert shown == "1 (3 readings: an event in a group)" and len(constant) == 1


def test_plan_figure_shows_planned_events_without_readings(tmp_path):
    groups = [["a", "b"], ["a", "b", "c"], ["b", "c"], ["a", "d"]]
    db = make_db(tmp_path / "c.db", groups, constant={(0, "b"): 7.0}, unread=(3,))
    rep = build_report(db, options=ReportOptions(method=""))
    coverage = _section(rep, "coverage")
    plan = coverage.figures[0]
    assert _grid(plan, ["a", "b", "c", "d"]) == [[1, 2, 0, 0], [1, 1, 1, 0], [0, 1, 1, 0], [3, 0, 0, 3]]
    assert "planned, not in the readings" in svgcheck.label_texts(plan)
    assert "group 3, a: planned, not in the readings (no valid runs, or dropped when read)" in svgcheck.titles(plan)
    groups = _table(coverage, "The groups")
    assert groups.loc["3", "planned, not read"] == "a, d" and groups.loc["0", "constant"] == "b"
    assert "planned but not in the readings: d" in coverage.warnings
    assert _section(rep, "runs").tables[-1][1].loc[3, "valid"] == 0


def test_coverage_colour_key_starts_at_zero_and_each_cell_names_its_pair():
    groups = {g: pd.DataFrame({a: [1.0, 2, 4, 3], b: [5.0, 3, 4, 9]}) for g, (a, b) in enumerate(("ab", "ac", "bc"))}
    section = sec.coverage(Readings(groups))
    fig = section.figures[1]
    labels = svgcheck.label_texts(fig)
    assert "groups (count)" in labels and "0" in labels and "1" in labels  # the key runs from 0
    titles = svgcheck.titles(fig, "rect")
    assert "a / b: read together in 1 group(s)" in titles and "a: read in 2 group(s)" in titles
    assert "from 0" in fig.caption and "A 0" in fig.caption


def test_pairs_never_read_together_are_named_in_full_up_to_ten():
    groups = {
        1: pd.DataFrame({"a": [1.0, 2, 3], "b": [2.0, 1, 3]}),
        2: pd.DataFrame({"c": [1.0, 2, 4], "d": [3.0, 1, 2]}),
    }
    note = sec.coverage(Readings(groups)).warnings[0]
    assert note == "4 pair(s) of events never read together: a / c, a / d, b / c, b / d"


# ------------------------------------------------------------------ variability
def test_variability_is_a_sorted_dot_plot_of_every_event_with_a_dash_where_a_ratio_means_nothing():
    rng = np.random.default_rng(3)
    groups = {
        g: pd.DataFrame(
            {
                "cycles": rng.normal(1000, 30, 12),
                "migrations": [0.0] * 9 + [1.0, 0.0, 2.0],  # median 0: a coefficient of variation, no ratio
                "zero": 0.0,  # mean 0: nothing to draw
            }
        )
        for g in (1, 2)
    }
    section = sec.variability(Readings(groups))
    table = section.tables[0][1]
    cv = table["coefficient of variation"]
    assert cv["migrations"] == pytest.approx(np.std([0.0] * 9 + [1, 0, 2] * 1, ddof=1) / 0.25, rel=0.5)
    assert np.isnan(table.loc["migrations", "p5 / median"]) and np.isnan(cv["zero"])
    dots = svgcheck.titles(section.figures[0], "circle")[1:]
    assert [d.split(":")[0] for d in dots] == ["migrations", "cycles"]  # most variable first
    assert "zero" in section.paragraphs[1] and "Not drawn (1)" in section.paragraphs[1]
    assert svgcheck.label_texts(section.figures[0]).count("cycles") == 1  # named, not only on hover


# ------------------------------------------------------------------ per-pair intervals
def _intervals(n_events):
    events = [f"event_{i:02d}" for i in range(n_events)]
    i, j = np.triu_indices(n_events, 1)
    est = np.linspace(-0.5, 0.9, len(i))
    width = np.full(len(i), 0.1)
    width[min(7, len(i) - 1)] = 1.5  # the widest pair
    return pd.DataFrame(
        {
            "event_a": np.array(events)[i],
            "event_b": np.array(events)[j],
            "estimate": est,
            "lower": est - width / 2,
            "upper": est + width / 2,
            "runs_together": 10,
        }
    )


def _with_groups(iv, never=()):
    groups = np.ones(len(iv), dtype=int)
    groups[list(never)] = 0
    return iv.assign(width=iv["upper"] - iv["lower"], groups=groups)


def _rows(fig):
    """The pairs the per-pair figure draws, top to bottom (the label of each row)."""
    return [t.split(": r = ")[0] for t in svgcheck.titles(fig, "circle")[1:]]


def test_per_pair_figure_names_every_pair_when_they_are_few():
    iv = _with_groups(_intervals(4))
    fig = Figure.drawn("", sec._pairs_figure(iv, 0.9, "joint", len(iv)))
    assert _rows(fig) == [f"{a} / {b}" for a, b in zip(iv["event_a"], iv["event_b"], strict=True)]  # by estimate
    labels = svgcheck.label_texts(fig)
    assert all(f"{a} / {b}" in labels for a, b in zip(iv["event_a"], iv["event_b"], strict=True))
    assert "every pair" in svgcheck.titles(fig)[0] and "Pearson correlation (unitless), sorted by estimate" in labels


def test_per_pair_figure_of_many_pairs_shows_the_strongest_the_widest_and_those_never_read_together():
    iv = _with_groups(_intervals(16), never=(40,))  # 120 pairs: too many to draw; pair 40 imputed
    fig = Figure.drawn("", sec._pairs_figure(iv, 0.9, "joint", len(iv)))
    rows = _rows(fig)
    name = [f"{a} / {b}" for a, b in zip(iv["event_a"], iv["event_b"], strict=True)]
    assert name[7] in rows and name[119] in rows and name[40] in rows  # the widest, the strongest, never read
    assert len(rows) == len(set(rows)) <= 3 * sec.NOTABLE
    hover = {t.split(": r = ")[0]: t for t in svgcheck.titles(fig, "circle")[1:]}
    assert hover[name[7]].endswith("(widest)") and hover[name[119]].endswith("(strongest)")
    assert hover[name[40]].endswith("read together in 0 group(s) (never read together)")
    assert {"strongest", "widest", "never read together"} <= set(svgcheck.label_texts(fig))  # the key
    assert f"{len(rows)} of 120 pairs" in svgcheck.titles(fig)[0]


# ------------------------------------------------------------------ the merge section and the command line
def _option_names(command):
    return {o for p in command.params for o in p.opts}


def _options_for(line, command):
    """The options a line names for ``command``: bare ones, and those in '(hemkit COMMAND ...)' advice."""
    named = set()
    for advice in re.findall(r"\(hemkit (\w+)([^)]*)\)", line):
        if advice[0] == command:
            named |= set(re.findall(r"--[a-z][a-z-]*", advice[1]))
    bare = re.sub(r"\(hemkit \w+[^)]*\)", "", line)
    return named | set(re.findall(r"--[a-z][a-z-]*", bare))


def test_a_merge_that_loses_a_pair_to_a_constant_warns_and_names_a_real_option(tmp_path, cli):
    from hemkit.cli.report import report

    db = make_db(tmp_path / "c.db", [["a", "b"], ["a", "c"], ["b", "c"]], constant={(0, "b"): 7.0})
    out = tmp_path / "r.html"
    res = cli(["report", db, "-o", out])
    assert res.exit_code == 0, res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hemkit: warning: report section 'merge' failed: no joint merge: ")
    assert "(dropping constant 'b' in group 0 removed the only reading of 'a' with 'b')" in lines[0]
    assert lines[0].endswith("; pass --impute maxdet")  # the library's fix, named as this command's option
    options = _options_for(lines[0], "report")
    assert options and options <= _option_names(report), options
    assert "1 failed (merge" in res.stdout
    page = out.read_text()
    assert "This section failed:" in page and "removed the only reading of &#x27;a&#x27; with &#x27;b&#x27;" in page
    assert "pass --impute maxdet" in page
    # the option the warning names does what it says
    res = cli(["report", db, "--impute", "maxdet", "-o", out])
    assert res.exit_code == 0 and res.stderr == "", res.stderr
    page = out.read_text()
    assert "This section failed" not in page and "failed" not in res.stdout
    assert "1 pair(s) never read together were imputed (maximum determinant): a / b." in page


def test_report_takes_the_merge_options_of_hemkit_merge():
    from hemkit.cli._merging import NAMES
    from hemkit.cli.merge import merge
    from hemkit.cli.report import report

    shared = {p.name for p in merge.params} & {p.name for p in report.params}
    assert set(NAMES) | {"method", "level", "seed"} <= shared
    for name in NAMES:
        mine = next(p for p in report.params if p.name == name)
        theirs = next(p for p in merge.params if p.name == name)
        assert (mine.opts, mine.default, type(mine.type)) == (theirs.opts, theirs.default, type(theirs.type))


def test_report_merges_with_the_options_given(tmp_path, cli):
    db = make_db(tmp_path / "c.db", [["a", "b"], ["a", "c"], ["b", "c"]])
    out = tmp_path / "r.html"
    res = cli(["report", db, "-m", "much", "--n-sims", "5", "--rows", "4", "--mode", "paper", "-o", out])
    assert res.exit_code == 0, res.stderr
    assert "much merge of 3 groups into 4 runs x 3 events." in out.read_text()
    res = cli(["report", db, "-m", "hrm", "--anchor", "a", "-o", out])
    assert res.exit_code == 0 and "This section failed" in out.read_text()  # a is not in group 2
    assert res.stderr.startswith("hemkit: warning: report section 'merge' failed: no hrm merge: ")


def test_report_refuses_a_merge_option_of_another_method(tmp_path, bad_input):
    db = make_db(tmp_path / "c.db", [["a", "b"], ["a", "c"], ["b", "c"]])
    args = ["report", db, "--n-sims", "5", "-o", tmp_path / "r.html"]
    bad_input(args, names=["'--n-sims'", "applies to -m much, not -m joint"], watch=[tmp_path])


def test_report_refuses_a_mistyped_anchor_and_keeps_the_page(tmp_path, cli, bad_input):
    """An anchor that is no event is the user's typo, as 'hemkit merge' says: not a section the data do not allow."""
    db = make_db(tmp_path / "c.db", [["task-clock", "b"], ["task-clock", "c"], ["b", "c"]])
    out = tmp_path / "r.html"
    assert cli(["report", db, "-o", out]).exit_code == 0
    args = ["report", db, "-m", "hrm", "--anchor", "task-clok", "-o", out]
    bad_input(args, names=["c.db", "'task-clok'", "did you mean 'task-clock'"], watch=[tmp_path])
    merged = cli(["merge", db, "-m", "hrm", "--anchor", "task-clok"])
    assert merged.exit_code == 2 and "unknown anchor 'task-clok'" in merged.stderr
    # as the report says it: the file, and the event meant (merge named neither)
    assert f"{db}: unknown anchor" in merged.stderr and "did you mean 'task-clock'?" in merged.stderr


# ------------------------------------------------------------------ every figure
def _numeric(labels):
    texts = [t.replace("−", "-") for t in labels if t]
    try:
        [float(t) for t in texts]
    except ValueError:
        return False
    return bool(texts)


def test_every_figure_has_a_title_labelled_axes_with_units_and_a_legend(tmp_path):
    groups = [["a", "b"], ["a", "b", "c"], ["b", "c"], ["a", "d"], ["c", "d"], ["b", "d"]]
    invalid = {(1, 2): "c: not counted"}
    db = make_db(tmp_path / "c.db", groups, constant={(0, "b"): 7.0}, invalid=invalid)
    options = ReportOptions(
        mpx=(TESTS / "mpx" / "data" / "zen5_phases_r1.csv",),
        profiles=(TESTS / "sampling" / "data" / "libc_kernel.script.txt",),
    )
    rep = build_report(db, options=options, seed=0)
    assert not rep.failed
    figures = [f for s in rep.sections for f in s.figures]
    assert len(figures) == rep.n_figures >= 10
    for f in figures:
        assert f.caption
        if f.svg:  # the readings' figures: a title, text no smaller than 10 units, marks that name themselves
            titles = svgcheck.titles(f)
            assert titles[0], f.caption
            assert min(svgcheck.font_sizes(f)) >= 10, f.caption
            assert len(titles) > 1, f"{f.caption!r}: no mark names itself on hover"
            continue
        assert f.figure is not None
        fig = f.figure
        fig.canvas.draw()
        suptitle = fig._suptitle.get_text() if fig._suptitle is not None else ""
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                assert ax.get_ylabel() or ax.get_xlabel(), f.caption
                continue
            where = f"{f.caption!r}: axes {ax.get_title()!r}"
            assert ax.get_title() or suptitle, where
            assert ax.get_xlabel() and ax.get_ylabel(), where
            for label, ticks in ((ax.get_xlabel(), _ticks(ax)), (ax.get_ylabel(), _ticks(ax, "y"))):
                if _numeric(ticks):
                    assert "(" in label, f"{where}: numeric axis {label!r} has no unit"
            labelled = [h for h in ax.get_legend_handles_labels()[1] if not h.startswith("_")]
            if len(labelled) > 1:
                assert ax.get_legend() is not None, where
            for text in ax.get_xticklabels() + ax.get_yticklabels():
                assert text.get_fontsize() >= 6, where


def _ticks(ax, axis="x"):
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    return [t.get_text() for t in labels]


def test_reading_warnings_reach_the_caller_and_many_become_one_table(tmp_path):
    from hemkit.core.errors import HemkitWarning

    groups = [["a", "b"], ["a", "c"], ["b", "c"], ["a", "b", "c"]]
    constant = {(0, "b"): 1.0, (1, "c"): 2.0, (2, "c"): 3.0, (3, "a"): 4.0}
    db = make_db(tmp_path / "c.db", groups, constant=constant)
    with pytest.warns(HemkitWarning, match="dropped constant") as caught:
        rep = build_report(db, options=ReportOptions(method=""), read_options={"drop_constant": True})
    assert len([w for w in caught if "dropped constant" in str(w.message)]) == 4
    overview = _section(rep, "overview")
    assert overview.warnings == ("reading the input gave 4 warnings (listed below)",)
    listed = _table(overview, "What reading the input said")["warning"].tolist()
    assert listed[0].endswith("group 0: dropped constant event(s) 'b'") and len(listed) == 4
    # dropped when read: still shown as the constants they were, in the plan and the table
    assert _grid(_section(rep, "coverage").figures[0], ["a", "b", "c"]) == [[1, 2, 0], [1, 0, 2], [0, 1, 2], [2, 1, 1]]
    table = _table(_section(rep, "constant"), "Events constant within a group").reset_index()
    assert table["event"].tolist() == ["b", "c", "c", "a"] and set(table["kept"]) == {"no: dropped when read"}


def test_runs_table_of_a_large_plan_lists_the_groups_with_invalid_runs():
    status = pd.DataFrame(
        {"group": range(60), "events": 2, "valid": 5, "invalid": [1 if g in (3, 41) else 0 for g in range(60)]}
    )
    status["target"] = 5
    runs = pd.DataFrame(
        {"gid": [3, 41], "status": "invalid", "reason": ["a: not counted", "b: multiplexed (80% running)"]}
    )
    section = sec.runs_of_collection(runs, status, {})
    caption, table = section.tables[-1]
    assert list(table.index) == [3, 41] and table["invalid because"].tolist()[1] == "b: multiplexed (80% running) (1x)"
    assert caption == "Runs of the 2 groups with invalid runs; the other 58 groups had only valid runs (5-5 each)."


def test_a_plan_of_hundreds_of_groups_is_summarised_with_every_event_and_group_reachable():
    rng = np.random.default_rng(0)
    events = [f"e{i:03d}" for i in range(80)]
    picks = [rng.choice(events, 4, replace=False) for _ in range(150)]
    groups = {g: pd.DataFrame({e: rng.normal(100, 5, 3) for e in pick}) for g, pick in enumerate(picks)}
    section = sec.coverage(Readings(groups))
    per_event, pairs = section.figures
    dots = svgcheck.titles(per_event, "circle")[1:]
    assert sorted(d.split(":")[0] for d in dots) == events  # every event, on hover
    read = {e: sum(e in p for p in picks) for e in events}
    assert all(d.endswith(f"read in {read[d.split(':')[0]]} of 150 groups") for d in dots)
    named = [t for t in svgcheck.label_texts(per_event) if t in events]
    assert 0 < len(named) <= 8 and max(read, key=read.get) in named  # the extremes, not all 80
    bars = svgcheck.titles(pairs, "rect")[1:]
    cover = Readings(groups).coverage().to_numpy()
    never = int((cover[np.triu_indices(80, 1)] == 0).sum())
    assert bars[0] == f"{never} pair(s) read together in 0 group(s): no merge can know their correlation"
    for f in section.figures:
        assert min(svgcheck.font_sizes(f)) >= 10 and float(svgcheck.tree(f).get("width")) <= 1000
    table = _table(section, "The groups")
    assert len(table) == 150 and table.loc["0", "events"] == ", ".join(
        sorted(picks[0], key=Readings(groups).events.index)
    )


def test_a_value_that_does_not_exist_is_a_dash_not_nan():
    import pandas as pd

    from hemkit.report.html import _table

    page = _table("", pd.DataFrame({"median": [0.0, 2.0], "cv": [float("nan"), 0.5]}, index=["zero", "b"]))
    assert "NaN" not in page and "\u2014" in page


def test_report_ratio_figure_of_half_a_decade_has_ticks_on_both_sides_of_1():
    """Two builds: task-clock x0.69, context-switches x1.2 [0.9, 1.6]. The figure's axis (0.64-1.7) was ticked
    at 1 and 1.5 only: nothing below 1, where the one change was."""
    import warnings

    from hemkit.core.errors import HemkitWarning
    from hemkit.report import ReportOptions
    from hemkit.report import sections as sec

    rng = np.random.default_rng(4)

    def switches():
        return rng.poisson(24, 30) * rng.uniform(0.5, 1.5, 30)

    a = Readings({1: pd.DataFrame({"task": rng.normal(210, 3, 30), "switches": switches()})})
    b = Readings({1: pd.DataFrame({"task": rng.normal(146, 3, 30), "switches": 1.2 * switches()})})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        section = sec.comparison(a, (b, "b"), ReportOptions(), 0)
    (figure,) = section.figures
    labels = [float(x) for x in re.findall(r">([0-9.]+)</text>", figure.svg)]
    assert [x for x in labels if 0.6 < x < 1] and [x for x in labels if 1 < x < 2], labels


def test_report_compare_section_names_what_changed_and_survives_bad_b(cli, tmp_path):
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data" / "compare"
    a, b = data / "kernel_a.db", data / "kernel_b.db"  # the kernel touching 1.05x the pages, looping 1.3x
    out = tmp_path / "r.html"
    res = cli(["report", a, "--compare", b, "-o", out, "-q", "-m", "none"])
    assert res.exit_code == 0, res.stderr
    page = out.read_text(encoding="utf-8")
    assert "Compared with B" in page and "page-faults" in page
    assert "events changed from A (these readings) to B" in page
    same = cli(["report", a, "--compare", a, "-o", tmp_path / "same.html", "-q", "-m", "none"])
    assert same.exit_code == 0, same.stderr
    assert "0 of 3 events changed" in (tmp_path / "same.html").read_text(encoding="utf-8")
    before = out.read_bytes()
    bad = cli(["report", a, "--compare", tmp_path / "missing.db", "-o", out, "-q"])
    assert bad.exit_code == 2 and "compare (B)" in bad.stderr and "missing.db" in bad.stderr
    assert out.read_bytes() == before
    usage = cli(["report", "--compare", b, "-o", out])
    assert usage.exit_code == 2 and "--compare" in usage.stderr
