"""``hemkit merge`` and ``hemkit evaluate``: thin wrappers over :mod:`hemkit.merge` and :mod:`hemkit.evaluate`.

Each command parses its options, checks every output place first, reads the input through
:func:`hemkit.io.read_readings` (or the bundled data), calls one library function, shows its
``summary()``, writes through :mod:`hemkit.io`, and ends with one line saying what was read,
written and dropped.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import click

from hemkit.cli._merging import MERGE_METHODS, MergeChoice, merge_options
from hemkit.cli._options import (
    LEVEL,
    check_input_options,
    output_option,
    plot_option,
    quiet_option,
    read_inputs,
    readings_input_options,
    readings_inputs,
    reps_option,
    seed_option,
    show_row,
    show_table,
    wrote,
)

EVAL_METHODS = "joint, copula, much, much-paper, hrm"


@contextmanager
def warnings_to_stderr(messages: list[str]) -> Iterator[None]:
    """Show each :class:`hemkit.HemkitWarning` raised inside as ``hemkit: warning: ...``; keep their texts."""
    from hemkit.core.errors import HemkitWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HemkitWarning)
        try:
            yield
        finally:
            for w in caught:
                text = " ".join(str(w.message).split())
                if issubclass(w.category, HemkitWarning) and text not in messages:
                    messages.append(text)
                    click.echo(f"hemkit: warning: {text}", err=True)


def _inputs_label(inputs: tuple[str, ...], bundled: str) -> str:
    from pathlib import Path

    if not inputs:
        return bundled
    if len(inputs) <= 3:
        return " ".join(inputs)
    return f"{len(inputs)} files ({Path(inputs[0]).name} ... {Path(inputs[-1]).name})"


def _load(inputs: tuple[str, ...], *, pmcs: int | None, codes: str | None, drop_constant: bool, hrm: bool) -> Any:
    """Readings from INPUT (the reading door, :func:`hemkit.cli._options.read_inputs`) or the bundled T2080 data."""
    from hemkit import datasets

    if not inputs:
        check_input_options(pmcs, codes)
        return datasets.t2080_hrm() if hrm else datasets.t2080_much()
    return read_inputs(inputs, pmcs=pmcs, codes=codes, drop_constant=drop_constant)


def _distinct_outputs(**paths: str | None) -> None:
    import os

    from hemkit.core.errors import OutputError

    seen: dict[str, str] = {}
    for name, p in paths.items():
        if not p:
            continue
        key = os.path.realpath(p)
        if key in seen:
            raise OutputError(f"{p}: given for both {seen[key]} and {name}; give two different files")
        seen[key] = name


def _dropped(caught: list[str], readings: Any = None, imputed: Any = ()) -> str:
    """What the command left out or filled in, counted and named (the end of its one summary line)."""
    parts = []
    const = list(getattr(readings, "dropped_constant", ()))
    if const:
        events = list(dict.fromkeys(e for _, e, _ in const))
        gone = [e for e in events if e not in readings.events]
        groups = len({g for g, _, _ in const})
        what = f"{len(const)} constant event(s) in {groups} group(s) ({', '.join(map(repr, events))})"
        if gone:
            what += f", leaving out {', '.join(map(repr, gone))} entirely (constant in every run)"
        parts.append(what)
    other = [m for m in caught if "dropped" in m and "dropped constant event" not in m]
    if other:
        parts.append(f"{len(other)} more (see warnings)")
    text = f"dropped: {'; '.join(parts)}" if parts else "dropped: nothing"
    imputed = list(imputed or ())
    if imputed:
        shown = ", ".join(f"{a!r}/{b!r}" for a, b in imputed[:5]) + (" ..." if len(imputed) > 5 else "")
        text += f"; imputed {len(imputed)} pair(s) never read together ({shown}): their correlations are not data"
    return text


@click.command()
@readings_inputs()
@click.option(
    "--method", "-m", type=click.Choice(MERGE_METHODS), default="joint", show_default=True, help="Merge method."
)
@merge_options(anchor_help="HRM anchor event (read in every group). Bundled data: PROCESSOR_CYCLES.")
@seed_option()
@output_option("Write the merged table (CSV, or Parquet by suffix).")
@click.option("--pair-intervals", type=click.Path(dir_okay=False), help="Write per-pair intervals (CSV or Parquet).")
@click.option("--level", type=LEVEL, default=0.9, show_default=True, help="Level of --pair-intervals.")
@plot_option(help="Figure: merged vs observed correlation per pair (with intervals).")
@quiet_option()
def merge(
    inputs: tuple[str, ...],
    method: str,
    pmcs: int | None,
    codes: str | None,
    drop_constant: bool,
    merging: MergeChoice,
    seed: int,
    output: str | None,
    pair_intervals: str | None,
    level: float,
    plot: str | None,
    quiet: bool,
) -> None:
    """Merge readings from separate runs into complete vectors.

    \b
    hemkit merge                                   # bundled T2080 data, joint merge
    hemkit merge runs/*.csv -o merged.csv --pair-intervals pairs.csv
    hemkit merge raw.csv --pmcs 6 --codes code2name.csv -m much --mode paper
    hemkit merge collection.db -m hrm --anchor cycles

    Without INPUT the bundled NXP T2080 readings are merged (HRM data for -m hrm).
    """
    from hemkit.io import check_output, write_figure, write_table
    from hemkit.merge import merge as run_merge

    _distinct_outputs(output=output, pair_intervals=pair_intervals, plot=plot)
    for path, what in ((output, "output"), (pair_intervals, "pair intervals"), (plot, "plot")):
        if path:
            check_output(path, inputs=inputs, what=what)
    if method == "hrm" and not merging.anchor:
        if inputs:
            raise click.BadParameter("-m hrm needs the anchor event read in every group", param_hint="'--anchor'")
        from hemkit.datasets import T2080_ANCHOR

        merging = replace(merging, anchor=T2080_ANCHOR)
    options = merging.kwargs(method, progress=not quiet)
    messages: list[str] = []
    with warnings_to_stderr(messages):
        readings = _load(inputs, pmcs=pmcs, codes=codes, drop_constant=drop_constant, hrm=method == "hrm")
        level_ = level if pair_intervals or plot else None
        res = run_merge(readings, method, seed=seed, level=level_, jobs=merging.jobs, **options)
    show_row(res.method, res.row(), "Merged vs observed pairwise correlations", index="method")
    written = []
    if output:
        write_table(res.arrays, output, inputs=inputs, what="output")
        written.append(output)
    if pair_intervals and res.pair_intervals is not None:
        write_table(res.pair_intervals, pair_intervals, inputs=inputs, what="pair intervals")
        written.append(pair_intervals)
    if plot:
        write_figure(res.plot().figure, plot)
        written.append(plot)
    for p in written:
        wrote(p)
    n_runs = sum(readings.run_counts.values())
    n_rows, n_events = res.shape
    rows_note = f"{n_rows} rows"
    if method != "hrm" and merging.rows is None:
        from hemkit.merge.reorder import reading_counts

        most = max(reading_counts(readings).values())
        rows_note += (
            ": every reading of the most-read event"
            if most == n_rows
            else f" (the most-read event has {most} readings; capped, pass --rows for more)"
        )
    source = _inputs_label(inputs, "bundled T2080 " + ("HRM" if method == "hrm" else "MUCH") + " data")
    click.echo(
        f"{method}: read {len(readings)} groups ({n_runs} runs, {len(readings.events)} events) from {source}; "
        f"merged into {rows_note} x {n_events} events; wrote {', '.join(written) or 'nothing'}; "
        f"{_dropped(messages, readings, res.diagnostics.get('imputed'))}"
    )


@click.command()
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=True))
@click.option(
    "--truth",
    "truth",
    multiple=True,
    type=click.Path(dir_okay=True),
    help="Reference: a truth table (all events read in the same runs) or grouped readings.",
)
@click.option(
    "--holdout", is_flag=True, help="Split INPUT's runs (default: bundled T2080), merge half, compare with the rest."
)
@click.option(
    "--study", is_flag=True, help="Split --truth (default: bundled Zen 5 br_64kb) into MUCH designs and score methods."
)
@readings_input_options
@click.option(
    "--methods", default="much,joint", show_default=True, help=f"Methods for --holdout/--study ({EVAL_METHODS})."
)
@click.option("--anchor", help="Anchor for hrm in --holdout.")
@click.option("--impute", type=click.Choice(["maxdet"]), help="--holdout/--study: fill pairs never read together.")
@click.option("--splits", type=click.IntRange(min=1), default=5, show_default=True, help="--study: splits per --pmcs.")
@reps_option("--study: merges per split; diagnostics: merges per point.", default=3)
@click.option("--level", type=LEVEL, help="--study: also score per-pair intervals at this level.")
@seed_option()
@output_option("Write the per-pair (or per-split) table (CSV or Parquet).")
@plot_option(help="Figure: sorted per-pair differences per method (MUCH paper, Fig. 5).")
@plot_option("sims", help="Figure: MUCH's MSE against the number of simulations (held-out runs).")
@plot_option("runs", help="Figure: HRM and MUCH MSE against the number of runs (MUCH paper, Fig. 6).")
@plot_option("design", help="Figure: runs MUCH and HRM need against the number of events (MUCH paper, Fig. 7).")
@quiet_option()
def evaluate(
    inputs: tuple[str, ...],
    truth: tuple[str, ...],
    holdout: bool,
    study: bool,
    pmcs: int | None,
    codes: str | None,
    drop_constant: bool,
    methods: str,
    anchor: str | None,
    impute: str | None,
    splits: int,
    reps: int,
    level: float | None,
    seed: int,
    output: str | None,
    plot: str | None,
    plot_sims: str | None,
    plot_runs: str | None,
    plot_design: str | None,
    quiet: bool,
) -> None:
    """How well MERGED keeps the pairwise correlations of TRUTH (Pearson and Spearman).

    \b
    hemkit evaluate merged.csv --truth truth.csv --plot pairs.png -o pairs.csv
    hemkit evaluate --holdout runs.csv --methods much,joint --seed 3
    hemkit evaluate --study --methods much-paper,much,joint --level 0.9
    hemkit evaluate --plot-sims sims.png --plot-runs runs.png --plot-design design.png

    TRUTH is a truth table read all at once (columns = events) or grouped readings, whose
    observed pairwise correlations are then the reference.  --holdout needs no truth;
    --study splits a truth table into MUCH designs (3 and 4 counters, or --pmcs) and compares
    the methods with the MUCH paper as written; --plot-sims/--plot-runs/--plot-design draw
    MUCH's own diagnostics on INPUT (default: the bundled T2080 data).
    """
    from hemkit.io import check_output, write_figure, write_table

    diagnostics = {"sims": plot_sims, "runs": plot_runs, "design": plot_design}
    modes = [m for m, on in (("holdout", holdout), ("study", study), ("diagnostics", any(diagnostics.values()))) if on]
    if len(modes) > 1:
        raise click.UsageError(
            f"choose one of --holdout, --study, --plot-sims/--plot-runs/--plot-design (got {', '.join(modes)})"
        )
    mode = modes[0] if modes else "evaluate"
    _distinct_outputs(output=output, plot=plot, **{f"plot-{k}": v for k, v in diagnostics.items()})
    inputs_all = (*inputs, *truth)
    for path, what in ((output, "output"), (plot, "plot"), *((v, f"plot-{k}") for k, v in diagnostics.items())):
        if path:
            check_output(path, inputs=inputs_all, what=what)
    messages: list[str] = []
    written: list[str] = []
    if mode == "evaluate":
        from hemkit.evaluate import evaluate_files

        if len(inputs) != 1 or not truth:
            raise click.UsageError("give one MERGED table and --truth FILE (or --holdout, --study, --plot-sims ...)")
        with warnings_to_stderr(messages):
            ev = evaluate_files(inputs[0], list(truth), pmcs=pmcs, codes=codes, drop_constant=drop_constant)
        show_table(ev.summary(), f"{inputs[0]} vs {' '.join(truth)}")
        if output:
            write_table(ev.pairs.reset_index(), output, inputs=inputs_all, what="output")
            written.append(output)
        if plot:
            write_figure(ev.plot().figure, plot)
            written.append(plot)
        summary = f"evaluate: {ev.row()['pairs']} pairs of {inputs[0]} compared with {' '.join(truth)}"
    elif mode == "holdout":
        from hemkit.evaluate import holdout as run_holdout
        from hemkit.evaluate import parse_methods

        names = parse_methods(methods)
        options = {m: {"impute": impute} for m in names if m != "hrm" and impute}
        if anchor and "hrm" in names:
            options["hrm"] = {"anchor": anchor}
        with warnings_to_stderr(messages):
            readings = _load(inputs, pmcs=pmcs, codes=codes, drop_constant=drop_constant, hrm=False)
            res = run_holdout(readings, names, seed=seed, options=options)
        show_table(res.summary(), "Held-out pairwise correlation differences")
        if output:
            write_table(res.to_frame().reset_index(), output, inputs=inputs_all, what="output")
            written.append(output)
        if plot:
            write_figure(res.plot().figure, plot)
            written.append(plot)
        summary = (
            f"holdout: {len(readings)} groups of {_inputs_label(inputs, 'bundled T2080 MUCH data')} split in halves "
            f"(seed {seed}); {', '.join(res.evaluations)} merged one half, compared with the other"
        )
    elif mode == "study":
        import pandas as pd

        from hemkit.evaluate import StudyOptions, read_reference, truth_study

        if inputs:
            raise click.UsageError("--study reads its truth table from --truth, not INPUT")
        with warnings_to_stderr(messages):
            if truth:
                ref = read_reference(list(truth))
                if not isinstance(ref, pd.DataFrame):
                    raise click.UsageError("--study needs a truth table (one column per event), not grouped readings")
                table = ref
            else:
                from hemkit.datasets import zen5_br_64kb

                table = zen5_br_64kb()
            opts = StudyOptions(pmcs=(pmcs,) if pmcs else (3, 4), splits=splits, reps=reps, level=level)
            mopts = {m: {"impute": impute} for m in methods.split(",") if impute and m.strip() != "hrm"}
            st = truth_study(table, methods, seed=seed, options=opts, merge_options=mopts, progress=not quiet)
        show_table(st.summary(), "Merged vs truth correlations (ratios: MSE over the MUCH paper's)")
        if output:
            write_table(st.to_frame(), output, inputs=inputs_all, what="output")
            written.append(output)
        summary = (
            f"study: {' '.join(truth) or 'bundled Zen 5 br_64kb truth'} ({len(table)} runs, {table.shape[1]} events) "
            f"split {splits}x into MUCH designs on {', '.join(map(str, opts.pmcs))} counters"
        )
    else:
        from hemkit.evaluate import CurveOptions, design_runs, runs_curve, sims_curve

        shown = []
        with warnings_to_stderr(messages):
            if plot_design:
                d = design_runs(pmcs=pmcs or 6)
                write_figure(d.plot().figure, plot_design)
                written.append(plot_design)
                shown.append("design")
            if plot_sims:
                readings = _load(inputs, pmcs=pmcs, codes=codes, drop_constant=drop_constant, hrm=False)
                sc = sims_curve(readings, seed=seed, options=CurveOptions((1, 3, 10, 30, 100, 300), reps=reps))
                show_table(sc.summary(), "MUCH: MSE against the number of simulations")
                write_figure(sc.plot().figure, plot_sims)
                written.append(plot_sims)
                shown.append("simulations")
            if plot_runs:
                if inputs:
                    raise click.UsageError("--plot-runs uses the bundled T2080 HRM and MUCH data (no INPUT)")
                from hemkit.datasets import t2080_hrm, t2080_much

                rc = runs_curve(
                    t2080_much(), t2080_hrm(), seed=seed, options=CurveOptions((50, 100, 200, 400), reps=reps)
                )
                show_table(rc.summary(), "MSE against the number of runs (MUCH paper, Fig. 6)")
                write_figure(rc.plot().figure, plot_runs)
                written.append(plot_runs)
                shown.append("runs")
        summary = f"diagnostics: {', '.join(shown)} on {_inputs_label(inputs, 'bundled T2080 data')}"
    for p in written:
        wrote(p)
    click.echo(f"{summary}; wrote {', '.join(written) or 'nothing'}; {_dropped(messages)}")
