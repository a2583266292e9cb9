"""``hemkit evaluate``: one subcommand per question, thin wrappers over :mod:`hemkit.evaluate`.

- ``evaluate pairs MERGED --truth TRUTH`` -- a merged table against a truth table or grouped readings;
- ``evaluate holdout [INPUT...]`` -- merge half of each group's runs, compare with the other half;
- ``evaluate study [--truth TABLE]`` -- a truth table split into MUCH designs, every method scored;
- ``evaluate diagnostics --plot-sims/--plot-runs/--plot-design`` -- MUCH's own curves.

The older flag forms (``hemkit evaluate --study ...``, ``--holdout``, ``--plot-sims ...`` and
``hemkit evaluate MERGED --truth TRUTH``) still work for one release and say which subcommand
replaces them.
"""

from __future__ import annotations

from typing import Any

import click

from hemkit.cli._options import (
    LEVEL,
    cluster_option,
    distinct_outputs,
    output_option,
    plot_option,
    pmcs_option,
    quiet_option,
    read_options,
    reading_trust_options,
    readings_input_options,
    reps_option,
    seed_option,
    show_table,
    warnings_to_stderr,
)
from hemkit.cli.merge import _dropped, _inputs_label, _load
from hemkit.core.numbers import plural

EVAL_METHODS = "joint, copula, much, much-paper, hrm"

#: old mode flag -> the subcommand that replaces it
LEGACY_MODES = {
    "--holdout": "holdout",
    "--study": "study",
    "--plot-sims": "diagnostics",
    "--plot-runs": "diagnostics",
    "--plot-design": "diagnostics",
}


def _legacy_mode(args: list[str]) -> tuple[str, str, list[str]]:
    """The subcommand an old flag form of ``hemkit evaluate`` means, its old spelling, and its arguments."""
    flags = [a.split("=", 1)[0] for a in args if a.split("=", 1)[0] in LEGACY_MODES]
    modes = list(dict.fromkeys(LEGACY_MODES[f] for f in flags))
    if len(modes) > 1:
        raise click.UsageError(
            f"choose one of --holdout, --study, --plot-sims/--plot-runs/--plot-design (got {', '.join(modes)}); "
            "better: hemkit evaluate holdout|study|diagnostics"
        )
    if not modes:
        return "pairs", "hemkit evaluate MERGED --truth TRUTH", args
    mode = modes[0]
    if mode == "diagnostics":  # its options keep their names
        return mode, f"hemkit evaluate {flags[0]}", args
    return mode, f"hemkit evaluate {flags[0]}", [a for a in args if a not in ("--holdout", "--study")]


class _EvaluateGroup(click.Group):
    """The evaluate subcommands; an old flag form is rewritten to its subcommand with a warning."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not set(args) & set(ctx.help_option_names):
            mode, old, rest = _legacy_mode(list(args))
            click.echo(f"hemkit: warning: {old} is deprecated; use hemkit evaluate {mode}", err=True)
            args = [mode, *rest]
        return super().parse_args(ctx, args)


@click.group(cls=_EvaluateGroup)
def evaluate() -> None:
    """How well MERGED keeps the pairwise correlations of TRUTH (Pearson and Spearman).

    \b
    hemkit evaluate pairs merged.csv --truth truth.csv --plot pairs.png -o pairs.csv
    hemkit evaluate holdout runs.csv --methods much,joint --seed 3
    hemkit evaluate study --methods much-paper,much,joint --level 0.9
    hemkit evaluate study --splits 20 --cluster local:2     # as Dask tasks, the same numbers
    hemkit evaluate diagnostics --plot-sims sims.png --plot-runs runs.png --plot-design design.png
    """


def _check_outputs(inputs: tuple[str, ...], **paths: str | None) -> None:
    """Every output place is fine and distinct before any work."""
    from hemkit.io import check_output

    named = {what.replace("_", "-"): path for what, path in paths.items()}
    distinct_outputs(**named)
    for what, path in named.items():
        if path:
            check_output(path, inputs=inputs, what=what)


def _finish(
    summary: str, written: list[str], messages: list[str], readings: Any = None, dropped: str | None = None
) -> None:
    """The one summary line, naming the outputs; ``dropped``: what was dropped, when the readings cannot say it."""
    click.echo(f"{summary}; wrote {', '.join(written) or 'nothing'}; {dropped or _dropped(messages, readings)}")


def _method_options(names: list[str], impute: str | None, anchor: str | None = None) -> dict[str, dict[str, Any]]:
    """Per-method keyword arguments of :func:`hemkit.merge.merge` from the shared options."""
    options: dict[str, dict[str, Any]] = {m: {"impute": impute} for m in names if m != "hrm" and impute}
    if anchor and "hrm" in names:
        options["hrm"] = {"anchor": anchor}
    return options


@evaluate.command("pairs")
@click.argument("merged", type=click.Path(dir_okay=False))
@click.option(
    "--truth",
    "truth",
    multiple=True,
    required=True,
    type=click.Path(dir_okay=True),
    help="Reference: a truth table (all events read in the same runs) or grouped readings.",
)
@readings_input_options
@output_option("Write the per-pair table (CSV or Parquet).", table=True)
@plot_option(help="Figure: sorted per-pair differences (MUCH paper, Fig. 5).")
@quiet_option(shows_none=True)
def pairs(
    merged: str,
    truth: tuple[str, ...],
    pmcs: int | None,
    codes: str | None,
    drop_constant: bool,
    output: str | None,
    plot: str | None,
    quiet: bool,
) -> None:
    """MERGED against --truth, pair by pair (Pearson and Spearman).

    \b
    hemkit evaluate pairs merged.csv --truth truth.csv --plot pairs.png -o pairs.csv
    hemkit evaluate pairs merged.csv --truth collection.db     # observed correlations as the reference

    TRUTH is a truth table read all at once (columns = events) or grouped readings (the
    input options say how to read them), whose observed pairwise correlations are then the
    reference.
    """
    from hemkit.evaluate import evaluate_files
    from hemkit.io import write_figure, write_table

    inputs = (merged, *truth)
    _check_outputs(inputs, output=output, plot=plot)
    messages: list[str] = []
    written: list[str] = []
    with warnings_to_stderr(messages):
        ev = evaluate_files(merged, list(truth), pmcs=pmcs, codes=codes, drop_constant=drop_constant, **read_options())
    show_table(ev.summary(), f"{merged} vs {' '.join(truth)}")
    if output:
        write_table(ev.pairs.reset_index(), output, inputs=inputs, what="output")
        written.append(output)
    if plot:
        write_figure(ev.plot().figure, plot)
        written.append(plot)
    _finish(f"evaluate: {ev.row()['pairs']} pairs of {merged} compared with {' '.join(truth)}", written, messages)


@evaluate.command("holdout")
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=True))
@readings_input_options
@click.option("--methods", default="much,joint", show_default=True, help=f"Methods to compare ({EVAL_METHODS}).")
@click.option("--anchor", help="Anchor event of hrm.")
@click.option("--impute", type=click.Choice(["maxdet"]), help="Fill pairs never read together.")
@seed_option()
@cluster_option("Merge each method as a task")
@output_option("Write the per-pair table (CSV or Parquet).", table=True)
@plot_option(help="Figure: sorted per-pair differences per method (MUCH paper, Fig. 5).")
@quiet_option()
def holdout(
    inputs: tuple[str, ...],
    pmcs: int | None,
    codes: str | None,
    drop_constant: bool,
    methods: str,
    anchor: str | None,
    impute: str | None,
    seed: int,
    cluster: str | None,
    output: str | None,
    plot: str | None,
    quiet: bool,
) -> None:
    """Merge half of each group's runs of INPUT, compare with the other half (no truth needed).

    \b
    hemkit evaluate holdout                        # bundled T2080 readings
    hemkit evaluate holdout runs.csv --methods much,joint --seed 3
    hemkit evaluate holdout runs.csv --methods much,copula,joint --cluster local:3

    INPUT is one or several files of readings, as for 'hemkit merge' (default: the bundled
    T2080 MUCH data).
    """
    from hemkit.evaluate import holdout as run_holdout
    from hemkit.evaluate import parse_methods
    from hemkit.io import write_figure, write_table

    _check_outputs(inputs, output=output, plot=plot)
    names = parse_methods(methods)
    messages: list[str] = []
    written: list[str] = []
    with warnings_to_stderr(messages):
        readings = _load(inputs, pmcs=pmcs, codes=codes, drop_constant=drop_constant, hrm=False)
        res = run_holdout(readings, names, seed=seed, options=_method_options(names, impute, anchor), cluster=cluster)
    show_table(res.summary(), "Held-out pairwise correlation differences")
    if output:
        write_table(res.to_frame().reset_index(), output, inputs=inputs, what="output")
        written.append(output)
    if plot:
        write_figure(res.plot().figure, plot)
        written.append(plot)
    summary = (
        f"holdout: {plural(len(readings), 'group')} of {_inputs_label(inputs, 'bundled T2080 MUCH data')} split in "
        "halves "
        f"(seed {seed}); {', '.join(res.evaluations)} merged one half, compared with the other"
        + (f" (Dask tasks on {cluster})" if cluster else "")
    )
    _finish(summary, written, messages, readings)


@evaluate.command("study")
@click.option(
    "--truth",
    "truth",
    multiple=True,
    type=click.Path(dir_okay=True),
    help="Truth: every event read in the same runs, as a table of runs x events, a tidy run,event,value table, or "
    "readings of one group (a collection database, its export, perf stat files), compressed or not (default: "
    "bundled Zen 5 br_64kb).",
)
@click.option(
    "--drop-constant",
    is_flag=True,
    help="Drop events constant in the truth (no correlation; else an error naming them).",
)
@reading_trust_options
@click.option("--methods", default="much,joint", show_default=True, help=f"Methods to score ({EVAL_METHODS}).")
@pmcs_option(
    "Counters per run of the MUCH designs, each below the truth's number of events (repeatable).",
    multiple=True,
    default=(3, 4),
)
@click.option("--impute", type=click.Choice(["maxdet"]), help="Fill pairs never read together.")
@click.option("--splits", type=click.IntRange(min=1), default=5, show_default=True, help="Splits per --pmcs.")
@reps_option("Merges per split.", default=3)
@click.option("--level", type=LEVEL, help="Also score per-pair intervals at this level.")
@seed_option()
@cluster_option("Run the splits and merges as tasks")
@output_option("Write the per-split table (CSV or Parquet).", table=True)
@quiet_option()
def study(
    truth: tuple[str, ...],
    drop_constant: bool,
    methods: str,
    pmcs: tuple[int, ...],
    impute: str | None,
    splits: int,
    reps: int,
    level: float | None,
    seed: int,
    cluster: str | None,
    output: str | None,
    quiet: bool,
) -> None:
    """Split a truth table into MUCH designs and score every method against the MUCH paper as written.

    \b
    hemkit evaluate study --methods much-paper,much,joint --level 0.9     # bundled Zen 5 truth
    hemkit evaluate study --truth truth.csv --pmcs 4 --splits 2
    hemkit evaluate study --truth c.db --drop-constant    # a collection of every event at once
    hemkit evaluate study --splits 20 --cluster tcp://node0:8786    # on a running Dask scheduler

    The truth reads every event in every run (one group): of the input options of the other
    subcommands only --unusable and --allow-mixed-machines apply, and --pmcs is the counters of
    the designs it is split into.
    """
    from hemkit.evaluate import StudyOptions, read_truth, truth_study
    from hemkit.io import write_table

    _check_outputs(truth, output=output)
    messages: list[str] = []
    with warnings_to_stderr(messages):
        if truth:
            table = read_truth(list(truth), drop_constant=drop_constant, **read_options())
        else:
            from hemkit.datasets import zen5_br_64kb

            table = zen5_br_64kb()
        opts = StudyOptions(pmcs=tuple(pmcs), splits=splits, reps=reps, level=level)
        # the reference (added when not listed) merges the same splits: it needs the same filling
        names = [m.strip() for m in methods.split(",")] + [opts.reference]
        mopts = _method_options(list(dict.fromkeys(names)), impute)
        st = truth_study(
            table, methods, seed=seed, options=opts, merge_options=mopts, progress=not quiet, cluster=cluster
        )
    show_table(st.summary(), "Merged vs truth correlations (ratios: MSE over the MUCH paper's)")
    written: list[str] = []
    if output:
        write_table(st.to_frame(), output, inputs=truth, what="output")
        written.append(output)
    summary = (
        f"study: {' '.join(truth) or 'bundled Zen 5 br_64kb truth'} ({len(table)} runs, {table.shape[1]} events) "
        f"split {splits}x into MUCH designs on {', '.join(map(str, opts.pmcs))} counters"
        + (f" (Dask tasks on {cluster})" if cluster else "")
    )
    gone = table.attrs.get("dropped_constant", [])
    said = f"dropped: {len(gone)} constant event(s) ({', '.join(map(repr, gone))})" if gone else None
    _finish(summary, written, messages, dropped=said)


@evaluate.command("diagnostics")
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=True))
@readings_input_options
@plot_option("sims", help="Figure: MUCH's MSE against the number of simulations (held-out runs of INPUT).")
@plot_option("runs", help="Figure: HRM and MUCH MSE against the number of runs (bundled T2080; MUCH paper, Fig. 6).")
@plot_option("design", help="Figure: runs MUCH and HRM need against the number of events (MUCH paper, Fig. 7).")
@reps_option("Merges per point of --plot-sims and --plot-runs.", default=3)
@seed_option()
@quiet_option()
def diagnostics(
    inputs: tuple[str, ...],
    pmcs: int | None,
    codes: str | None,
    drop_constant: bool,
    plot_sims: str | None,
    plot_runs: str | None,
    plot_design: str | None,
    reps: int,
    seed: int,
    quiet: bool,
) -> None:
    """MUCH's own diagnostics: the curves of the MUCH paper on INPUT or the bundled T2080 data.

    \b
    hemkit evaluate diagnostics --plot-sims sims.png --plot-runs fig6.png --plot-design fig7.png
    hemkit evaluate diagnostics raw.csv --pmcs 6 --codes code2name.csv --plot-sims sims.png

    --plot-design draws designs on --pmcs counters (default 6).
    """
    from hemkit.evaluate import CurveOptions, design_runs, runs_curve, sims_curve
    from hemkit.io import write_figure

    if not (plot_sims or plot_runs or plot_design):
        raise click.UsageError("give at least one of --plot-sims, --plot-runs, --plot-design")
    if plot_runs and inputs:
        raise click.BadParameter("uses the bundled T2080 HRM and MUCH data (no INPUT)", param_hint="'--plot-runs'")
    _check_outputs(inputs, plot_sims=plot_sims, plot_runs=plot_runs, plot_design=plot_design)
    messages: list[str] = []
    written: list[str] = []
    shown = []
    with warnings_to_stderr(messages):
        if plot_design:
            d = design_runs(pmcs=pmcs or 6)
            write_figure(d.plot().figure, plot_design)
            written.append(plot_design)
            shown.append(f"design ({d.table.index.min()}-{d.table.index.max()} events on {d.params['pmcs']} counters)")
        if plot_sims:
            readings = _load(inputs, pmcs=pmcs, codes=codes, drop_constant=drop_constant, hrm=False)
            sc = sims_curve(readings, seed=seed, options=CurveOptions((1, 3, 10, 30, 100, 300), reps=reps))
            show_table(sc.summary(), "MUCH: MSE against the number of simulations")
            write_figure(sc.plot().figure, plot_sims)
            written.append(plot_sims)
            shown.append(f"simulations on {_inputs_label(inputs, 'bundled T2080 MUCH data')}")
        if plot_runs:
            from hemkit.datasets import t2080_hrm, t2080_much

            rc = runs_curve(t2080_much(), t2080_hrm(), seed=seed, options=CurveOptions((50, 100, 200, 400), reps=reps))
            show_table(rc.summary(), "MSE against the number of runs (MUCH paper, Fig. 6)")
            write_figure(rc.plot().figure, plot_runs)
            written.append(plot_runs)
            shown.append("runs on bundled T2080 HRM and MUCH data")
    # each figure says what it was drawn from: the design curve reads no data, --plot-runs only the bundled data
    _finish(f"diagnostics: {'; '.join(shown)}", written, messages)
