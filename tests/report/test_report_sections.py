"""The multiplexing and sampling sections of ``hemkit report`` (``--mpx``, ``--profile``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import InputError
from hemkit.datasets import t2080_much, t2080_path
from hemkit.report import ReportOptions, build_report
from hemkit.report import sections as sec

TESTS = Path(__file__).resolve().parents[1]
MPX_DATA = TESTS / "mpx" / "data"
PHASES = MPX_DATA / "zen5_phases_r1.csv"  # real Zen 5 perf stat -I, 5 events on 5 counters
PY_R3 = MPX_DATA / "zen5_py_r3.csv"  # holds dTLB-load-misses = 2^47 + 6122
SCRIPT = TESTS / "sampling" / "data" / "libc_kernel.script.txt"  # real perf script output
NO_MERGE = ReportOptions(method="")

SPIN_C = r"""
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void spin_here(long n)
{
    unsigned long x = 0;
    for (long i = 0; i < n; i++)
        x = x * 2654435761u + (unsigned long)i;
    sink = x;
}
int main(int argc, char **argv) { spin_here(argc > 1 ? atol(argv[1]) : 200000000L); return 0; }
"""


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """``perf record -e cpu-clock`` of a small C program compiled here: (perf.data, binary); skipped without perf."""
    from hemkit.core.errors import HemkitError
    from hemkit.external.compiler import compile_c
    from hemkit.external.perf import perf_record

    folder = tmp_path_factory.mktemp("profile")
    source = folder / "spin_report.c"
    source.write_text(SPIN_C)
    try:
        exe = compile_c(source, flags=("-O1",))
    except HemkitError as exc:
        pytest.skip(f"no C compiler here: {exc}")
    data = folder / "perf.data"
    try:
        perf_record([str(exe), "150000000"], data, event="cpu-clock", period=250_000, timeout=120)
    except HemkitError as exc:
        pytest.skip(f"perf cannot record here: {exc}")
    return data, exe


@pytest.fixture(scope="module")
def multiplexed(tmp_path_factory):
    """A multiplexed trace as 'hemkit mpx emulate' writes it (without the truth): the zen5 run on 2 counters."""
    from hemkit.io.traces import read_trace, write_trace
    from hemkit.mpx import emulate

    m = emulate(read_trace(PHASES), 2)
    path = tmp_path_factory.mktemp("mpx") / "phases_mpx.csv"
    write_trace(m.to_tidy().drop(columns="truth"), path)
    return path


def _table(section, caption_part):
    hits = [t for c, t in section.tables if caption_part in c]
    assert len(hits) == 1, [c for c, _ in section.tables]
    return hits[0]


# ------------------------------------------------------------------ multiplexing
def test_mpx_section_of_an_exact_zen5_trace_shows_hemkit_against_perf_and_the_truth():
    """An OCOE trace is multiplexed in emulation on 2 counters; the table holds what hemkit.mpx computes."""
    from hemkit.io.traces import read_trace
    from hemkit.mpx import DEFAULT_ESTIMATOR, emulate, make_estimator

    s = sec.multiplexing(PHASES)
    assert s.key == "mpx" and s.title == "Multiplexing: zen5_phases_r1.csv"
    assert len(s.figures) == 2 and all(f.png.startswith(b"\x89PNG") for f in s.figures)
    assert any("multiplexed in emulation on 2 counters" in p for p in s.paragraphs)
    table = _table(s, "Per series")

    trace = read_trace(PHASES)
    m = emulate(trace, 2)
    est = make_estimator(DEFAULT_ESTIMATOR).estimate(m.without_truth())
    events = list(m.keys["event"])
    assert list(table.index) == events
    np.testing.assert_allclose(table[f"total, hemkit {DEFAULT_ESTIMATOR}"], est.totals(), rtol=1e-12)
    np.testing.assert_allclose(table["total, perf scaled"], m.perf_totals(), rtol=1e-12)
    truth = trace.groupby("event", sort=False)["value"].sum().reindex(events)
    np.testing.assert_allclose(table["true total"], truth.to_numpy(), rtol=1e-12)
    # 5 events on 2 counters: each on a counter about 2/5 of the time, and never all of it
    assert table["time on a counter (fraction)"].between(0.3, 0.5).all()
    assert (table["on a counter (intervals)"] < table["intervals"]).all()
    # hemkit's estimate is not perf's (else the section would show nothing)
    assert not np.allclose(table[f"total, hemkit {DEFAULT_ESTIMATOR}"], table["total, perf scaled"])


def test_mpx_section_of_a_multiplexed_trace_estimates_without_emulation(multiplexed):
    from hemkit.mpx import DEFAULT_ESTIMATOR, make_estimator, read_multiplexed

    s = sec.multiplexing(multiplexed)
    table = _table(s, "Per series")
    assert "true total" not in table.columns  # nothing known beyond the slices
    assert not any("emulation" in p for p in s.paragraphs)
    m = read_multiplexed(multiplexed)
    est = make_estimator(DEFAULT_ESTIMATOR).estimate(m.without_truth())
    np.testing.assert_allclose(table[f"total, hemkit {DEFAULT_ESTIMATOR}"], est.totals(), rtol=1e-12)
    np.testing.assert_allclose(table["total, perf scaled"], est.perf_totals, rtol=1e-12)
    assert len(s.figures) == 2


def test_mpx_section_of_an_exact_trace_without_emulation_says_counts_are_exact():
    s = sec.multiplexing(PHASES, pmcs=None)
    table = _table(s, "Per series")
    assert (table["time on a counter (fraction)"] == 1).all()
    np.testing.assert_allclose(table["hemkit / perf"], 1.0)
    assert any("nothing needed estimating" in p for p in s.paragraphs)


def test_mpx_wrap_around_is_a_section_warning_or_a_one_line_error():
    """py_r3's 2^47 count: the reader repairs it and says so (a warning of the section), or refuses it."""
    from hemkit.core.errors import InputError

    s = sec.multiplexing(PY_R3)
    assert len(s.warnings) == 1 and "wrap-around" in s.warnings[0] and "dTLB-load-misses" in s.warnings[0]
    table = _table(s, "Per series")
    assert table["true total"].max() < 2**47  # the corrupt count never reaches the estimator
    with pytest.raises(InputError, match=re.escape(str(PY_R3))) as err:
        sec.multiplexing(PY_R3, wraps="error")
    assert "\n" not in str(err.value) and "2^47" in str(err.value)


def test_mpx_figures_are_titled_labelled_and_have_legends():
    from hemkit.io.traces import read_trace
    from hemkit.mpx import emulate, make_estimator

    m = emulate(read_trace(PHASES), 2)
    blind = m.without_truth()
    values = {n: make_estimator(n).estimate_array(blind) for n in ("fixed", "phase")}
    fig = sec._mpx_series_figure(m, values, ["cycles", "instructions"], "zen5_phases_r1", 10.0)
    table = _table(sec.multiplexing(PHASES), "Per series")
    figs = [fig, sec._mpx_totals_figure(table, "phase", 1)]
    for f in figs:
        for ax in f.axes:
            assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
            assert "(" in ax.get_ylabel()  # the values' unit (the totals' x axis names events: no unit)
            assert ax.get_legend() is not None and len(ax.get_legend().get_texts()) >= 2
    assert figs[0].axes[0].get_xlabel() == "interval (10 ms each)"


# ------------------------------------------------------------------ sampling
def test_profile_section_of_perf_script_text_by_dso_and_symbol():
    from hemkit.sampling import profile_shares

    s = sec.sampling(SCRIPT)
    assert s.key == "profile" and s.title == "Sampling profile: libc_kernel.script.txt"
    assert len(s.figures) == 2 and not s.warnings
    dso = _table(s, "DSOs")
    sym = _table(s, "symbols")
    assert {"libc_kernel", "libc.so.6", "[kernel.kallsyms]"} <= set(dso.index)
    assert {"spin", "read_zero"} <= set(sym.index) and len(sym) <= 15
    want = profile_shares(SCRIPT, by="dso").table
    np.testing.assert_allclose(dso["share"], want["share"].to_numpy())
    np.testing.assert_allclose(dso[["low", "high"]], want[["low", "high"]].to_numpy())
    assert (dso["low"] <= dso["share"]).all() and (dso["share"] <= dso["high"]).all()
    assert s.paragraphs[0].startswith("325 samples of cpu-clock")


def test_profile_figure_is_titled_and_labelled():
    from hemkit.sampling import profile_shares

    fig = sec._shares_figure(profile_shares(SCRIPT, by="dso"), 15)
    ax = fig.axes[0]
    assert "shares by DSO" in ax.get_title() and "fraction" in ax.get_xlabel() and ax.get_ylabel()


def test_profile_section_of_a_recorded_perf_data_names_the_binary(recorded):
    data, exe = recorded
    s = sec.sampling(data)
    dso = _table(s, "DSOs")
    assert exe.name in dso.index
    assert dso.loc[exe.name, "share"] > 0.5  # the program spins in its own code
    assert "spin_here" in _table(s, "symbols").index


def test_profile_of_several_events_shows_the_most_sampled_and_says_so():
    from hemkit.io.perf_script import read_perf_script

    samples = read_perf_script(SCRIPT)
    other = samples.head(20).assign(event="page-faults")
    both = pd.concat([samples, other], ignore_index=True)
    both.attrs["source"] = "two-events"
    s = sec.sampling(both)
    assert len(s.warnings) == 1 and "cpu-clock" in s.warnings[0] and "2 events" in s.warnings[0]
    assert int(_table(s, "DSOs")["samples"].sum()) == len(samples)


# ------------------------------------------------------------------ the report and the command line
def test_report_with_trace_and_profile_lists_their_sections_with_figures():
    options = ReportOptions(method="", mpx=(PHASES, PY_R3), profiles=(SCRIPT,))
    rep = build_report(t2080_much(), source="T2080", options=options)
    s = rep.summary()
    assert list(s.index) == ["overview", "runs", "coverage", "variability", "mpx", "mpx-2", "profile"]
    assert (s.loc[["mpx", "mpx-2", "profile"], "figures"] == 2).all()
    assert s.loc["mpx-2", "warnings"] == 1 and s.loc["mpx", "warnings"] == 0
    assert rep.html.count("<figure ") == rep.n_figures == int(s["figures"].sum())
    assert rep.html.count("<img ") == 6  # mpx and profile figures: PNG; the readings' figures: SVG
    assert "id='mpx-2'" in rep.html and "Multiplexing: zen5_py_r3.csv" in rep.html
    assert "<th>libc_kernel</th>" in rep.html and "<th>[kernel.kallsyms]</th>" in rep.html


def test_cli_report_with_mpx_and_profile(tmp_path, cli, recorded):
    from hemkit.mpx import DEFAULT_ESTIMATOR

    data, exe = recorded
    out = tmp_path / "report.html"
    raw = [t2080_path("much_raw.csv"), "--pmcs", "6", "--codes", t2080_path("code2name.csv")]
    res = cli(["report", *raw, "--method", "none", "--mpx", PHASES, "--profile", data, "-o", out])
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert "Multiplexing: zen5_phases_r1.csv" in page and "Sampling profile: perf.data" in page
    assert page.count("<svg ") == 3 and page.count("<img ") == 2 + 2  # coverage (2), variability; mpx; profile
    assert f"<th>{exe.name}</th>" in page
    total = _table(sec.multiplexing(PHASES), "Per series")[f"total, hemkit {DEFAULT_ESTIMATOR}"].iloc[0]
    assert f"<td>{total:.4g}</td>" in page
    assert "report: 6 sections, 7 figures" in res.stdout


def test_cli_report_of_a_trace_and_a_profile_alone_has_only_their_sections(tmp_path, cli):
    out = tmp_path / "report.html"
    res = cli(["report", "--mpx", PHASES, "--profile", SCRIPT, "-o", out])
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert "Multiplexing: zen5_phases_r1.csv" in page and "Sampling profile: libc_kernel.script.txt" in page
    assert "T2080" not in page and "Plan and coverage" not in page  # no bundled readings slipped in
    assert "report: 2 sections, 4 figures" in res.stdout


def test_build_report_of_nothing_is_an_input_error():
    with pytest.raises(InputError, match="nothing to report"):
        build_report(None)


def test_cli_report_refuses_bad_mpx_and_profile_files(tmp_path, bad_input):
    garbage = tmp_path / "garbage.csv"
    garbage.write_text("this is not perf output\n1,2,3\n")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    out = tmp_path / "r.html"
    watch = [tmp_path]
    base = ["report", "--method", "none"]
    bad_input([*base, "--mpx", tmp_path / "nope.csv", "-o", out], names=["nope.csv"], watch=watch)
    bad_input([*base, "--mpx", garbage, "-o", out], names=[str(garbage)], watch=watch)
    bad_input([*base, "--mpx", empty, "-o", out], names=[str(empty)], watch=watch)
    # a folder is read as its runs (one section for all): here its first file at fault is named
    beside = tmp_path.parent / f"{tmp_path.name}-r.html"  # not inside the folder read: that is refused first
    bad_input([*base, "--mpx", tmp_path, "-o", beside], names=["empty.csv", "no interval lines"], watch=watch)
    assert not beside.exists()
    bad_input([*base, "--mpx", tmp_path, "-o", out], names=["r.html", "inside the input folder"], watch=watch)
    bad_input([*base, "--mpx", PHASES, "--mpx", garbage, "-o", out], names=[str(garbage)], watch=watch)
    bad_input([*base, "--profile", tmp_path / "nope.data", "-o", out], names=["nope.data"], watch=watch)
    bad_input([*base, "--profile", garbage, "-o", out], names=[str(garbage)], watch=watch)
    bad_input([*base, "--profile", empty, "-o", out], names=[str(empty)], watch=watch)
    bad_input([*base, "--profile", tmp_path, "-o", out], names=[str(tmp_path), "--profile"], watch=watch)
    # an existing page stays as it was
    out.write_text("old page")
    bad_input([*base, "--profile", garbage, "-o", out], names=[str(garbage)], watch=watch)
    assert out.read_text() == "old page"
    # the page may not overwrite a trace it reads
    copy = tmp_path / "trace.csv"
    copy.write_bytes(PHASES.read_bytes())
    bad_input([*base, "--mpx", copy, "-o", copy], names=[str(copy)], watch=watch)


def test_cli_report_refuses_truncated_perf_data(tmp_path, bad_input, recorded):
    import struct

    data, _ = recorded
    blob = data.read_bytes()
    offset, size = struct.unpack_from("<QQ", blob, 40)
    cut = tmp_path / "cut.data"
    cut.write_bytes(blob[: offset + size // 2])
    bad_input(
        ["report", "--method", "none", "--profile", cut, "-o", tmp_path / "r.html"], names=[str(cut)], watch=[tmp_path]
    )


def test_cli_report_help_lists_the_new_options(cli):
    res = cli(["report", "--help"])
    assert res.exit_code == 0
    assert "--mpx TRACE" in res.stdout and "--profile PERF_DATA" in res.stdout and "with --mpx" in res.stdout


def test_report_module_keeps_heavy_imports_lazy():
    import subprocess

    code = "import sys, hemkit.cli.report; print(any(m in sys.modules for m in ('matplotlib', 'pandas')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_mpx_section_shows_each_total_with_its_interval():
    """The lower/upper columns are hemkit.mpx.totals intervals at the report level; exact totals are shown exact."""
    from hemkit.io.traces import read_trace
    from hemkit.mpx import DEFAULT_ESTIMATOR, emulate, make_estimator
    from hemkit.mpx.totals import total_intervals

    s = sec.multiplexing(PHASES, level=0.8)
    table = _table(s, "Per series")
    m = emulate(read_trace(PHASES), 2).without_truth()
    tot = total_intervals(m, make_estimator(DEFAULT_ESTIMATOR).estimate(m), level=0.8).table
    np.testing.assert_allclose(table["lower (80%)"], tot["lower"], rtol=1e-12)
    np.testing.assert_allclose(table["upper (80%)"], tot["upper"], rtol=1e-12)
    assert (table["lower (80%)"] <= table[f"total, hemkit {DEFAULT_ESTIMATOR}"]).all()
    assert set(table["truth in interval"]) <= {"yes", "no"}
    assert any("How far to trust each total" in p for p in s.paragraphs)
    exact = sec.multiplexing(PHASES, pmcs=None)
    assert not any("emulation" in p for p in exact.paragraphs)
    t = _table(exact, "Per series")
    np.testing.assert_array_equal(t["lower (90%)"], t["upper (90%)"])  # on a counter all the time: exact


def test_mpx_section_of_several_runs_shows_the_pooled_totals_inside_their_intervals():
    """Three runs of one workload: the table's hemkit total is the pooled one, inside its interval, and the
    paragraph says how many were pooled."""
    from hemkit.io.traces import read_trace
    from hemkit.mpx import DEFAULT_ESTIMATOR, emulate, make_estimator
    from hemkit.mpx.totals import total_intervals

    runs = [MPX_DATA / f"zen5_phases_r{k}.csv" for k in (1, 2, 3)]
    trace = read_trace(runs)
    s = sec.multiplexing(trace, level=0.9)
    table = _table(s, "Per series")
    m = emulate(trace, 2).without_truth()
    tot = total_intervals(m, make_estimator(DEFAULT_ESTIMATOR).estimate(m), level=0.9).table
    assert (tot["runs_pooled"] > 1).any()
    mine = table[f"total, hemkit {DEFAULT_ESTIMATOR}"].to_numpy()
    np.testing.assert_allclose(mine, tot["total"], rtol=1e-12)
    assert ((table["lower (90%)"] <= mine) & (mine <= table["upper (90%)"])).all()
    assert any("pooled with the other runs" in p for p in s.paragraphs)


def test_mpx_interval_paragraph_says_when_pooled_runs_list_their_events_in_one_order():
    """Runs of one workload listed alike (as recorded) get the advice; the same runs listed from a different
    event each do not."""
    from hemkit.mpx import emulate, make_estimator, synthetic_trace
    from hemkit.mpx.totals import total_intervals

    tr = synthetic_trace(runs=4, steps=80, events=5, seed=1)
    k = tr["run"].map({r: i for i, r in enumerate(tr["run"].unique())})
    rank = tr["event"].str[2:].astype(int)
    varied = tr.assign(_o=(rank - k) % 5).sort_values(["run", "step", "_o"], kind="stable").drop(columns="_o")
    said = {}
    for name, trace in (("alike", tr), ("varied", varied)):
        m = emulate(trace, 2).without_truth()
        totals = total_intervals(m, make_estimator("checked").estimate(m))
        assert (totals.table["runs_pooled"] > 1).any()
        said[name] = sec._interval_paragraph(totals, pd.DataFrame())
    assert "the runs of synthetic list their events in one order" in said["alike"]
    assert "one order" not in said["varied"]


def test_mpx_section_of_a_folder_of_runs_listed_apart_whose_event_bursts_only_at_the_start(tmp_path, recwarn):
    """An event that counts only in the first interval reads 0 in every slice of the runs that list it late
    (perf's total 0: no ratio to draw), while its total comes from the runs that counted it there: the
    section of the folder draws what has a ratio, with no warning, and the table holds the filled total."""
    from hemkit.mpx import DEFAULT_ESTIMATOR

    events = ["a", "b", "c"]
    for r in range(3):
        order = events[r:] + events[:r]  # run r lists its events from the r-th, as perf stat -e would read them
        lines = ["# started on Fri Nov 27 16:00:00 2026", ""]
        for t in range(40):
            for e in order:
                value = {"a": 50 + t % 3, "b": 20, "c": 100 if t == 0 else 0}[e]
                lines.append(f"{(t + 1) * 0.01:.9f},{value},,{e},10000000,100.00,,")
        (tmp_path / f"w_r{r + 1}.csv").write_text("\n".join(lines) + "\n")
    s = sec.multiplexing(tmp_path, pmcs=1, level=0.9)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    table = _table(s, "Per series")
    c = table[table.index.get_level_values("event") == "c"]
    blind = c["total, perf scaled"] == 0  # the runs that had c on a counter only after its burst
    assert len(c) == 3 and blind.sum() == 2
    np.testing.assert_allclose(c.loc[blind, f"total, hemkit {DEFAULT_ESTIMATOR}"], 100.0)  # from the run that saw it


def test_mpx_section_of_a_folder_given_with_a_trailing_slash_is_titled_by_the_folder(tmp_path):
    """``hemkit report --mpx traces/`` (as a shell completes a folder) titled the section 'Multiplexing: '."""
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "phases_r1.csv").write_bytes(PHASES.read_bytes())
    s = sec.multiplexing(f"{folder}/")
    assert s.title == "Multiplexing: traces"


def test_mpx_section_of_one_run_says_its_totals_are_not_pooled():
    """The totals are pooled over a workload's runs by default; with one run the page said nothing of it."""
    s = sec.multiplexing(PHASES)
    assert any("not pooled with other runs: workload zen5_phases has one run" in p for p in s.paragraphs)


def test_mpx_section_quotes_the_held_out_ranges_the_readme_gives():
    """The paragraph said 0.44-0.91x pooled and 0.42-1.00x each run alone after BENCHMARKS.md (and the README)
    had moved to 0.41-0.91x and 0.30-1.00x: the page quotes the README's ranges, C = 2 and 3 together."""
    readme = (TESTS.parent / "README.md").read_text()
    m = re.search(
        r"median error (\d\.\d\d)-(\d\.\d\d)x / (\d\.\d\d)-(\d\.\d\d)x perf's\s+scaling's \(the goal, 0\.8x, met in "
        r"\d+ of \d+ cells; each run alone (\d\.\d\d)-(\d\.\d\d)x / (\d\.\d\d)-(\d\.\d\d)x",
        readme,
    )
    assert m, "the README's sentence on pooled totals changed: update this test"
    v = [float(x) for x in m.groups()]
    pooled = f"{min(v[0], v[2]):.2f}-{max(v[1], v[3]):.2f}x"
    alone = f"{min(v[4], v[6]):.2f}-{max(v[5], v[7]):.2f}x"
    text = " ".join(sec.multiplexing(PHASES).paragraphs)
    assert f"their median error was {pooled} that of perf's scaling pooled" in text
    assert f"and {alone} for a run alone" in text
