"""``hemkit report``: one self-contained HTML page about a collection or a set of readings."""

from __future__ import annotations

import click

from hemkit.cli._merging import MERGE_METHODS, MergeChoice, merge_options
from hemkit.cli._options import (
    LEVEL,
    check_input_options,
    hosts_margin_option,
    output_option,
    quiet_option,
    read_options,
    readings_inputs,
    seed_option,
    warnings_to_stderr,
)


@click.command("report")
@readings_inputs()
@click.option(
    "--method",
    "-m",
    type=click.Choice([*MERGE_METHODS, "none"]),
    default="joint",
    show_default=True,
    help="Merge method of the merged-correlation section ('none': no merge).",
)
@merge_options()
@click.option(
    "--level", type=LEVEL, default=0.9, show_default=True, help="Level of the per-pair and --mpx totals' intervals."
)
@click.option("--title", default="hemkit report", show_default=True, help="Title of the page.")
@click.option(
    "--mpx",
    "traces",
    multiple=True,
    type=click.Path(dir_okay=True),
    metavar="TRACE",
    help="A perf stat -I interval trace, or a folder of them (one section for all its runs): add its "
    "multiplexing section (repeatable).",
)
@click.option(
    "--profile",
    "profiles",
    multiple=True,
    type=click.Path(dir_okay=False),
    metavar="PERF_DATA",
    help=(
        "A perf record file (perf.data or perf script text): add its sampling profile "
        "(repeatable; each later one is also compared with the first)."
    ),
)
@click.option(
    "--compare",
    "compare_with",
    multiple=True,
    type=click.Path(dir_okay=True),
    metavar="B",
    help="Readings B (read as INPUT is): add what changed from INPUT to B (repeat for several files of B).",
)
@seed_option()
@output_option("The HTML page to write (report.html; a .pdf, .png or .csv name is refused).", required=True, page=True)
@hosts_margin_option()
@quiet_option()
def report(
    inputs: tuple[str, ...],
    pmcs: int | None,
    codes: str | None,
    drop_constant: bool,
    method: str,
    merging: MergeChoice,
    level: float,
    title: str,
    traces: tuple[str, ...],
    profiles: tuple[str, ...],
    compare_with: tuple[str, ...],
    seed: int,
    output: str,
    hosts_margin: float | None,
    quiet: bool,
) -> None:
    """Write one self-contained HTML report of a collection database or readings.

    \b
    hemkit report plan.db -o report.html
    hemkit report runs/*.csv -o report.html    (or runs/, or monday.db tuesday.db)
    hemkit report -o report.html              (the bundled NXP T2080 readings)
    hemkit report much_raw.csv --pmcs 6 --codes code2name.csv -o report.html
    hemkit report plan.db --mpx trace_r1.csv --profile perf.data -o report.html
    hemkit report --mpx trace_r1.csv -o report.html      (only the trace's section)
    hemkit report isolation.db --compare contention.db -o report.html

    The page (no network needed, figures inline) shows the runs of each group (for a
    collection database also the invalid ones and why, the measured command and the
    machine), the plan and its coverage, the events constant within a group with their
    values, the variability of every event and the merged correlations with per-pair
    intervals (the merge takes the options of 'hemkit merge' and leaves constant events
    out; a merge the data do not allow is a warning and a note in the page); with --mpx, each trace's counted slices,
    perf's scaling and hemkit's multiplexing estimate per event (a trace recorded without
    multiplexing is multiplexed in emulation on 2 counters and compared with its exact
    counts); with --profile, the sampling profile by DSO and by symbol with confidence
    intervals; with --compare B, what changed from INPUT to B ('hemkit compare INPUT B').
    """
    from hemkit.cli import render_error
    from hemkit.core.readings import Readings
    from hemkit.io import check_output, write_text
    from hemkit.report import ReportOptions, build_report

    merging.check(method)
    if method == "hrm" and not merging.anchor:
        from dataclasses import replace

        from hemkit.io import read_anchor

        anchor = read_anchor(list(inputs)) if inputs else None  # an HRM plan's collection names it
        if anchor is None:
            raise click.BadParameter("--method hrm needs --anchor EVENT", param_hint="'--anchor'")
        merging = replace(merging, anchor=anchor)
    if compare_with and not inputs:
        raise click.BadParameter("needs INPUT: the readings B is compared with", param_hint="'--compare'")
    check_output(output, inputs=[*inputs, *traces, *profiles, *compare_with], what="report")
    paths = list(inputs)
    source: Readings | list[str] | None
    if not paths and (traces or profiles):
        source, paths = None, [*traces, *profiles]  # only the traces' and profiles' sections
    elif not paths:
        from hemkit.datasets import t2080_much

        source, paths = t2080_much(), ["bundled T2080 MUCH data"]
    else:
        check_input_options(pmcs, codes)
        source = paths  # one collection database also gets its runs table, command and machine
    merge_kwargs = merging.kwargs(method, progress=False) if method != "none" else {}
    merge_kwargs.pop("anchor", None)
    options = ReportOptions(
        method="" if method == "none" else method,
        anchor=merging.anchor,
        level=level,
        title=title,
        mpx=tuple(traces),
        profiles=tuple(profiles),
        merge_options={k: v for k, v in merge_kwargs.items() if k != "progress"},
        jobs=merging.jobs,
        explain=lambda exc: render_error(exc, report),  # a fix named as this command's option
        compare=list(compare_with) or None,
        hosts_margin=hosts_margin,
    )
    read = {"pmcs": pmcs, "codes": codes, "drop_constant": drop_constant, **read_options()}
    with warnings_to_stderr():  # a failed section among them: "report section 'merge' failed: ..."
        rep = build_report(source, source=" ".join(paths), options=options, seed=seed, read_options=read)
    write_text(output, rep.html, inputs=[*inputs, *traces, *profiles], what="report")
    failed = f"; {len(rep.failed)} failed ({', '.join(rep.failed)}: see the warnings)" if rep.failed else ""
    click.echo(
        f"report: {len(rep.sections)} sections, {rep.n_figures} figures from {rep.source}{failed}; wrote {output}"
    )
