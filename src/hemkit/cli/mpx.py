"""``hemkit mpx``: interval traces, multiplexing emulation, estimators and scores (issues 4, 13).

Every command parses its options, checks its outputs before the work, calls one library
function, prints its result and ends with one line saying what was read, written and dropped.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click

from hemkit.cli._options import (
    LEVEL,
    PMCS,
    TablePath,
    distinct_outputs,
    given,
    naming_input,
    output_option,
    plot_option,
    quiet_option,
    runs_option,
    seed_option,
    show_table,
    warnings_to_stderr,
)
from hemkit.core.errors import InputError, OutputError

ESTIMATOR_HELP = (
    "fixed, fixed-cumulative, linear, growth, min, zero, local, phase, checked, or a model file (.pt) from 'mpx fit'"
)


def _finite_level(ctx: Any, param: Any, value: float | None) -> float | None:
    """Refuse NaN (click's range check lets it through)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number in (0, 1)")
    return value


def _events(spec: str) -> list[str]:
    ev = [e.strip() for e in spec.split(",") if e.strip()]
    if not ev:
        raise InputError(f"empty event set {spec!r}")
    return ev


def trace_inputs(f: Any) -> Any:
    """Options naming the workload of each trace file (runs of one workload stay together), and wrap-arounds."""
    f = click.option(
        "--wraps",
        type=click.Choice(["repair", "drop", "error"]),
        default="repair",
        show_default=True,
        help="Counts >= 2^47 (counter wrap-arounds): repair them when plausible (else drop them), drop them, or stop "
        "with an error. A dropped count of a multiplexed run is a gap of its event alone; of a run read without "
        "multiplexing, the whole interval.",
    )(f)
    f = click.option(
        "--workload-pattern",
        "pattern",
        default=None,
        help="Regular expression naming the workload from a file name (group 'workload' or the first group); "
        "default: the name without its run suffix (gzip_r3.csv -> gzip).",
    )(f)
    f = click.option(
        "-w",
        "--workload",
        default=None,
        help="The workload of every input file (when they carry no workload column); refused for files whose "
        "names say several workloads (gzip_r1.csv, bzip2_r1.csv), which it would pool as one.",
    )(f)
    return f


def pmcs_options(help: str, *, default: Any, multiple: bool = False) -> Any:
    """``--pmcs N`` (its deprecated spellings ``-c`` / ``--counters`` come from :data:`OLD_SPELLINGS`)."""
    return click.option("--pmcs", type=PMCS, multiple=multiple, default=default, show_default=True, help=help)


def _read(paths: Any, workload: str | None, pattern: str | None, wraps: str) -> Any:
    from hemkit.io.traces import read_trace

    return read_trace(list(paths), workload=workload, pattern=pattern, wraps=wraps)


def _describe(trace: Any) -> str:
    runs = trace.groupby("workload")["run"].nunique()
    shown = ", ".join(f"{w} ({n} runs)" for w, n in runs.items())
    return f"{int(runs.sum())} runs of {len(runs)} workload(s): {shown}"


@click.group()
def mpx() -> None:
    """Multiplexing estimation: traces, emulation, estimators (fixed, linear, growth, MLP, Bi-GRU), scores.

    The default estimator of 'mpx estimate' is 'checked': each series from phase-aware, min, zero,
    local and scaled phase interpolation, weighted by how well each predicts the series' own slices
    when some are hidden (and the same event's in the other runs of its workload), and each total
    by phase or linear interpolation, whichever does (see BENCHMARKS.md for how it compares with
    perf's scaling).
    """


# ------------------------------------------------------------------------------ trace
@mpx.command()
@click.option(
    "-e",
    "--events",
    "event_sets",
    multiple=True,
    required=True,
    help="Comma list of events read together in one run (repeat for more sets; <= 5 hardware events).",
)
@runs_option("Runs of the program per event set.", default=1)
@click.option(
    "-I",
    "--interval",
    "interval_ms",
    type=click.IntRange(1, 3_600_000),
    default=10,
    show_default=True,
    help="perf -I interval (ms).",
)
@click.option(
    "-w", "--workload", default=None, help="Workload name; files are WORKLOAD_r<k>.csv (default: the program's name)."
)
@click.option(
    "--timeout", type=click.FloatRange(0, min_open=True), default=None, help="Stop a run after this many seconds."
)
@click.option("--allow-failure", is_flag=True, help="Keep the traces of a program that exits non-zero or is killed.")
@click.option(
    "--same-order",
    is_flag=True,
    help="List the events as given in every run (default: run k lists them from the k-th on, so that "
    "multiplexed runs hide different parts of the program from each event).",
)
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False), help="Folder for the trace files.")
@quiet_option()
@click.argument("command", nargs=-1, required=True)
def trace(event_sets, runs, interval_ms, workload, timeout, allow_failure, same_order, output, quiet, command):
    """Record OCOE interval traces of COMMAND (give it after --), one perf stat -I file per run.

    The files are exactly what 'perf stat -I MS -x, -o FILE' writes. The program runs with
    your own environment (PATH, virtual environment, folder); one that exits non-zero or is
    killed is an error unless --allow-failure. A set of more hardware events than counters
    is multiplexed by perf (input for 'mpx estimate'): perf starts with the first events
    listed and rotates, so run k lists the set from its k-th event on, and pooled totals
    average out more of what each run's gaps hid (--same-order lists every run as given).
    Ctrl-C stops after the current run (twice: at once, dropping that run); the files of the
    finished runs stay and the command that records the rest is printed; exit code 130. A run
    that fails after others were recorded is an error (exit code 2) that keeps their files
    likewise and prints the command that records the rest.
    """
    from hemkit.core.errors import HemkitError
    from hemkit.mpx.record import TraceOptions, TracesInterrupted, record_traces, recorded_before

    options = TraceOptions(
        interval_ms=interval_ms, runs=runs, timeout=timeout, allow_failure=allow_failure, same_order=same_order
    )
    sets = [_events(s) for s in event_sets]
    try:
        with warnings_to_stderr():
            rec = record_traces(list(command), sets, output, workload=workload, options=options, progress=not quiet)
    except TracesInterrupted as exc:
        _trace_interrupted(exc.recording, sets, output, workload, list(command))
    except HemkitError as exc:
        kept = recorded_before(exc)
        if kept is not None:  # said before the error line, which the command line then writes (exit 2)
            _trace_line(kept, output)
            click.echo(
                f"hemkit: kept {len(kept.files)} of {kept.wanted} runs in {output} ({_span(kept)}); record the rest "
                "with: " + " && ".join(_rest_commands(kept, sets, output, workload, list(command))),
                err=True,
            )
        raise
    _trace_line(rec, output)


def _span(rec: Any) -> str:
    """``a_r1.csv`` or ``a_r1.csv .. a_r4.csv``: the files of a recording."""
    names = [Path(f).name for f in rec.files]
    return names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]}"


def _trace_line(rec: Any, output: str) -> None:
    """The one line of a recording: the files written, their intervals, and failing runs kept."""
    failed = int((rec.runs["status"] != "ok").sum())
    click.echo(
        f"wrote {len(rec.files)} trace file(s) in {output} ({_span(rec)}): {int(rec.runs['intervals'].sum())} intervals"
        + (f"; kept {failed} run(s) of a failing program ({rec.runs['status'].iloc[-1]})" if failed else "")
    )


def _trace_interrupted(rec: Any, sets: list[list[str]], output: str, workload: str | None, command: list[str]) -> None:
    """Ctrl-C or SIGTERM: say which runs were kept and the command that records the rest; exit 130."""
    import sys

    if not rec.files:
        click.echo("hemkit: interrupted: no run finished, so nothing was written; run the same command again", err=True)
        sys.exit(130)
    _trace_line(rec, output)
    rest = _rest_commands(rec, sets, output, workload, command)
    click.echo(
        f"hemkit: interrupted: kept {len(rec.files)} of {rec.wanted} runs in {output}; record the rest with: "
        + " && ".join(rest),
        err=True,
    )
    sys.exit(130)


def _rest_commands(rec: Any, sets: list[list[str]], output: str, workload: str | None, command: list[str]) -> list[str]:
    """The commands that record the runs ``rec`` misses, per event set, numbered on after the files written."""
    import shlex

    ctx = click.get_current_context()
    name = workload or Path(command[0]).name
    rest = []
    for number, runs in rec.missing.items():  # each set's missing runs, numbered on after the files written
        args = ["hemkit", "mpx", "trace", "-e", ",".join(sets[number - 1]), "--runs", str(runs)]
        if given("interval_ms", ctx):
            args += ["-I", str(ctx.params["interval_ms"])]
        if len(sets) > 1:  # alone, a set's files would lose their _s<k>: the workload name keeps it
            args += ["-w", f"{name}_s{number}"]
        elif workload:
            args += ["-w", workload]
        if ctx.params.get("timeout") is not None:
            args += ["--timeout", f"{ctx.params['timeout']:g}"]
        args += [
            flag
            for flag, on in (("--allow-failure", "allow_failure"), ("--same-order", "same_order"))
            if ctx.params.get(on)
        ]
        rest.append(shlex.join([*args, "-o", output, "--", *command]))
    return rest


# ------------------------------------------------------------------------------ emulate
@mpx.command()
@click.argument("trace_files", nargs=-1, required=True, type=click.Path(dir_okay=True))
@pmcs_options("Counters available (C).", default=2)
@click.option("--period", type=click.IntRange(1, 10_000), default=1, show_default=True, help="Intervals per rotation.")
@click.option("--shift", type=click.IntRange(1, 64), default=1, show_default=True, help="Positions per rotation.")
@click.option("--offset", type=click.IntRange(0, 64), default=0, show_default=True, help="Starting rotation position.")
@trace_inputs
@output_option(
    "Multiplexed series (CSV or Parquet): run, step, event, raw, enabled, running, truth.", required=True, table=True
)
@quiet_option(shows_none=True)
def emulate(trace_files, pmcs, period, shift, offset, workload, pattern, wraps, output, quiet):
    """Emulate multiplexing of OCOE traces on --pmcs counters (the truth is kept beside)."""
    from hemkit.io.atomic import check_output
    from hemkit.io.traces import write_trace
    from hemkit.mpx.emulate import Rotation
    from hemkit.mpx.emulate import emulate as _emulate

    check_output(output, inputs=trace_files)
    with warnings_to_stderr():
        tr = _read(trace_files, workload, pattern, wraps)
        m = _emulate(tr, pmcs, rotation=Rotation(period=period, shift=shift, offset=offset))
    write_trace(m.to_tidy(), output, inputs=trace_files)
    click.echo(f"read {_describe(tr)}; wrote {output}: {len(m.keys)} series, {m.counted_line()}")


# ------------------------------------------------------------------------------ fit
@mpx.command()
@click.argument("trace_files", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option("-m", "--estimator", "name", type=click.Choice(["mlp", "bigru"]), default="mlp", show_default=True)
@pmcs_options("Counter counts to train on (repeat).", default=(2, 3), multiple=True)
@click.option("--epochs", type=click.IntRange(1, 100_000), default=None, help="Most epochs (default: the model's).")
@click.option(
    "--patience",
    type=click.IntRange(0, 100_000),
    default=5,
    show_default=True,
    help="Stop after this many epochs without a better validation loss (0: never).",
)
@click.option(
    "--split",
    default="7:1:2",
    show_default=True,
    help="Training:validation:test shares of the workloads (runs of a workload stay together).",
)
@seed_option()
@click.option("--clean/--no-clean", default=True, show_default=True, help="Apply the paper's data cleaning.")
@trace_inputs
@output_option("Model file (.pt).", required=True)
@quiet_option()
def fit(trace_files, name, pmcs, epochs, patience, split, seed, clean, workload, pattern, wraps, output, quiet):
    """Train a learned estimator (MLP or Bi-GRU) on OCOE traces, split by workload 7:1:2 as the paper does.

    Shows the epochs with their training and validation loss and ends with the scores on the
    validation (and test) workloads.
    """
    from hemkit.io.atomic import check_output
    from hemkit.mpx.fitting import FitOptions, fit_estimator
    from hemkit.mpx.learned import TrainOptions
    from hemkit.mpx.registry import is_model_file, make_estimator

    if not is_model_file(output):
        raise click.BadParameter("model files end in .pt", param_hint="'-o' / '--output'")
    shares = _split(split)
    check_output(output, inputs=trace_files, what="model")
    train = TrainOptions(seed=seed, patience=patience, **({"epochs": epochs} if epochs else {}))
    if name == "bigru":
        train = TrainOptions(seed=seed, patience=patience, epochs=epochs or 25)
    options = FitOptions(pmcs=tuple(pmcs), split=shares, clean=clean, seed=seed)
    with warnings_to_stderr():
        tr = _read(trace_files, workload, pattern, wraps)
        res = fit_estimator(tr, make_estimator(name, train=train), options, progress=not quiet)
    res.estimator.save(output)
    show_table(res.split.set_index("workload"), "workloads")
    hist = res.history.set_index("epoch")
    if len(hist) > 12:
        hist = hist.iloc[list(range(5)) + list(range(len(hist) - 5, len(hist)))]
    show_table(hist, "training (loss per epoch; the best validation epoch is kept)")
    summ = _short(res.summary())
    if len(summ):  # --split T:0:0 leaves no part to score
        summ.index = [f"{part}: {est}" for part, est in summ.index]
        summ.index.name = "part: estimator"
        show_table(summ, "scores on the validation (and test) part, which training did not see")
    best = getattr(res.estimator, "best_epoch_", len(res.history))
    click.echo(
        f"read {_describe(tr)}; trained {name} for {len(res.history)} epochs (kept epoch {best}); wrote {output}"
    )


SHORT = {
    "ra": "RA",
    "error_cut": "err cut",
    "dtw": "DTW",
    "total_error": "tot err",
    "worst_event_ra": "worst ev",
    "rank": "rank",
}


def _short(summary: Any) -> Any:
    """The ranking's main columns under short names (RA, error cut vs fixed, DTW, median |total error|, ...)."""
    cols = [c for c in SHORT if c in summary.columns]
    return summary[cols].rename(columns=SHORT)


def _split(text: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(x) for x in text.split(":"))
    except ValueError:
        parts = ()
    if len(parts) != 3 or any(p < 0 for p in parts) or parts[0] <= 0:
        raise click.BadParameter(
            f"{text!r}: give TRAIN:VALIDATION:TEST shares such as 7:1:2 (training > 0)", param_hint="'--split'"
        )
    return (parts[0], parts[1], parts[2])


# ------------------------------------------------------------------------------ estimate
@mpx.command()
@click.argument("mpx_files", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option("-m", "--estimator", "spec", default=None, help=f"{ESTIMATOR_HELP}; default checked.")
@trace_inputs
@output_option("Estimates (CSV or Parquet): run, step, event, estimate.", required=True, table=True)
@click.option(
    "--totals",
    "totals_path",
    default=None,
    metavar="FILE",
    type=TablePath(dir_okay=True),  # a folder: refused by the output checks, naming --totals
    help="Also write each (run, event) total with an interval (CSV or Parquet): run, event, total, lower, "
    "upper, perf_total (perf's scaled total), counted, ...",
)
@click.option(
    "--level",
    type=LEVEL,
    default=0.9,
    show_default=True,
    callback=_finite_level,
    help="Level of the --totals intervals (the share of true totals they should hold).",
)
@click.option(
    "--per-run",
    is_flag=True,
    help="--totals of each run on its own (default: pooled with the other runs of the same workload and event "
    "as far as they agree; run_total keeps each run's own). With 3 or more runs of a workload each run's "
    "interval still reads how far the runs spread.",
)
@quiet_option(shows_none=True)
def estimate(mpx_files, spec, workload, pattern, wraps, output, totals_path, level, per_run, quiet):
    """Estimate full series from multiplexed counts: 'mpx emulate' output or multiplexed perf stat -I files.

    --totals adds how far each total can be trusted: an interval from how much the event's
    rate moved between its slices, how much of the run it was off its counter and how far the
    estimate is from perf's scaling, with a multiplier chosen on traces whose truth is known
    (BENCHMARKS.md).  An event on a counter the whole run has an exact total (lower = upper);
    one whose slices all read 0 has no upper bound (inf): the run says nothing about it
    (pooled, it takes its workload's other runs' total where two or more have a bounded one).

    Runs of one workload mostly count about the same, while which bursts fall in a run's gaps
    is chance: so each total is pooled with the other runs' totals of its workload and event,
    as far as their true totals agree, read from their totals against perf's end-of-run
    totals (empirical Bayes; runs that differ keep their own).
    --per-run turns this off; a total left on its own, with 3 or more runs of its workload, has
    an interval that also reads how far the runs put the event's total (unless the runs truly
    differ).  Pooling gains more when each run lists its events from a different one (perf stat
    -e a,b,c then -e b,c,a ...): perf's rotation then hides other parts of the program in each
    run.
    """
    from hemkit.io.atomic import check_output
    from hemkit.io.mpx import write_estimates, write_totals
    from hemkit.mpx.registry import DEFAULT_ESTIMATOR, load_estimator
    from hemkit.mpx.totals import total_intervals
    from hemkit.mpx.traces import read_multiplexed

    if totals_path is None:  # --level and --per-run shape the totals only
        ctx = click.get_current_context()
        stray = [f"--{n.replace('_', '-')}" for n in ("level", "per_run") if given(n, ctx)]
        if stray:
            verb = "is" if len(stray) == 1 else "are"
            raise click.UsageError(f"{' and '.join(stray)} {verb} for the --totals file: give --totals FILE too")
    check_output(output, inputs=mpx_files)
    if totals_path is not None:
        check_output(totals_path, inputs=mpx_files, what="totals")
        if Path(totals_path).resolve() == Path(output).resolve():
            raise OutputError(f"totals {totals_path}: is also the estimates file (-o); give --totals another name")
    name = spec or DEFAULT_ESTIMATOR
    with warnings_to_stderr():
        est = load_estimator(name)
        m = read_multiplexed(list(mpx_files), workload=workload, pattern=pattern, wraps=wraps)
        blind = m.without_truth()
        with naming_input(mpx_files):  # the data's own faults (an event never on a counter) name the input
            res = est.estimate(blind)
            tot = total_intervals(blind, res, level=level, pool=not per_run) if totals_path is not None else None
    write_estimates(res.to_frame(), output, inputs=mpx_files)
    written = [f"{output}: {res.estimator} estimates"]
    if tot is not None:
        write_totals(tot.to_frame(), totals_path, inputs=mpx_files)
        show_table(tot.summary(), f"totals with {level:g} intervals ({tot.estimator}), per event")
        written.append(f"{totals_path}: {tot.line()}")
    click.echo(
        f"read {len(m.keys)} series of {m.keys['run'].nunique()} run(s), {m.counted_line()}; wrote {'; '.join(written)}"
    )


# ------------------------------------------------------------------------------ score
def _check_plot_run(run: str | None, trace: Any) -> None:
    """A --plot-run that is no run of the traces, refused before the scoring (not after it)."""
    runs = sorted(trace["run"].astype(str).unique())
    if run is not None and run not in runs:
        shown = ", ".join(runs[:6]) + (" ..." if len(runs) > 6 else "")
        raise click.BadParameter(f"no run {run!r} in the traces (runs: {shown})", param_hint="'--plot-run'")


@mpx.command()
@click.argument("trace_files", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option(
    "-m",
    "--estimator",
    "specs",
    multiple=True,
    default=("fixed", "phase", "checked"),
    show_default=True,
    help=f"Repeat: {ESTIMATOR_HELP}. The first 'fixed' is the baseline.",
)
@pmcs_options("Counters (repeat for several).", default=(2,), multiple=True)
@click.option("--by", type=click.Choice(["event", "workload", "run"]), default="event", show_default=True)
@click.option("--clean/--no-clean", default=True, show_default=True, help="Apply the paper's data cleaning.")
@click.option("--no-dtw", is_flag=True, help="Skip the DTW-cost (the slowest score).")
@trace_inputs
@plot_option(
    help="Per event: truth, fixed and the best-ranked estimator over time, and a DTW alignment (PNG, SVG, PDF)."
)
@plot_option("ra", help="RA per event and estimator, as bars.")
@click.option("--plot-run", default=None, help="The run the --plot figure shows (default: the first).")
@output_option("Per-series scores (CSV or Parquet).", table=True)
@quiet_option()
def score(
    trace_files,
    specs,
    pmcs,
    by,
    clean,
    no_dtw,
    workload,
    pattern,
    wraps,
    plot,
    plot_ra,
    plot_run,
    output,
    quiet,
):
    """Emulate multiplexing of OCOE traces, run the estimators and score them: RA, DTW-cost, total error.

    Estimators are ranked on the three together; the run-to-run correlation of each
    workload's repeated runs (the paper's section 2.4) shows how stable the truth itself is.
    """
    from hemkit.io.atomic import check_output
    from hemkit.io.mpx import write_scores
    from hemkit.mpx.evaluation import ScoreOptions, score_traces
    from hemkit.mpx.registry import is_model_file, load_estimator

    if plot_run is not None and not plot:
        raise click.BadParameter("chooses the run of the --plot figure: give --plot FILE", param_hint="'--plot-run'")
    distinct_outputs(**{"-o": output, "--plot": plot, "--plot-ra": plot_ra})
    for path, what in ((output, ""), (plot, "plot"), (plot_ra, "plot")):
        if path:
            check_output(path, inputs=trace_files, what=what)
    ests = {}
    for spec in specs:
        est = load_estimator(spec)
        label = Path(spec).stem if is_model_file(spec) else spec
        ests[label] = est
    with warnings_to_stderr():
        tr = _read(trace_files, workload, pattern, wraps)
        _check_plot_run(plot_run, tr)
        options = ScoreOptions(pmcs=tuple(pmcs), clean=clean, dtw=not no_dtw)
        res = score_traces(tr, ests, options, progress=not quiet)
    show_table(
        _short(res.summary()), f"MPX estimators on {', '.join(map(str, options.pmcs))} counter(s), ranked on all three"
    )
    show_table(res.by(by, "ra"), f"RA per {by} (higher is better)", float_format="{:.3f}")
    show_table(res.by(by, "total_error"), f"median |total error| per {by}", float_format="{:.3f}")
    compared = res.run_to_run[res.run_to_run["pairs"] > 0] if res.run_to_run is not None else None
    if compared is not None and len(compared):  # a workload of one run (or constant events) has no pair to compare
        r2r = compared.pivot_table(index="event", columns="workload", values="r")
        show_table(r2r, "run-to-run Pearson r of the truth (paper section 2.4)", float_format="{:.2f}")
    written = []
    if output:
        write_scores(res.to_frame(), output, inputs=trace_files)
        written.append(str(output))
    if plot or plot_ra:
        from hemkit.io.atomic import write_figure
        from hemkit.mpx.plots import estimate_figure
        from hemkit.mpx.plots import plot_ra as _plot_ra

        if plot:
            from hemkit.mpx.traces import clean_runs

            ranked = [n for n in res.summary().index if n != res.baseline]
            shown = {n: ests[n] for n in [res.baseline, *ranked[:1]] if n in ests}
            fig = estimate_figure(clean_runs(tr) if clean else tr, shown, options.pmcs[0], run=plot_run)
            write_figure(fig, plot)
            written.append(str(plot))
        if plot_ra:
            ax = _plot_ra(res.table)
            write_figure(ax.figure, plot_ra)
            written.append(str(plot_ra))
    best = res.summary().index[0]
    click.echo(
        f"read {_describe(tr)}; scored {len(ests)} estimator(s), best ranked: {best}"
        + (f"; wrote {', '.join(written)}" if written else "")
    )
