"""``hemkit sampling``: accuracy of sampling profiles (Wen et al. 2021), a thin layer over :mod:`hemkit.sampling`.

Each command parses its options, checks every output before the work, calls the library,
prints the result's summary, writes through :mod:`hemkit.io` and ends with one line saying
what was read and written.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from hemkit.cli._options import (
    LEVEL,
    POSITIVE,
    alias,
    distinct_outputs,
    given,
    output_option,
    plot_option,
    quiet_option,
    reps_option,
    runs_option,
    seed_option,
    warnings_to_stderr,
    wrote,
)
from hemkit.core.numbers import format_percent

DISTRIBUTION = click.Choice(["constant", "exponential", "uniform"])
METHOD = click.Choice(["systematic", "wilson", "bound"])
SHARE = click.FloatRange(0, 1)
POSITIVE_FLOAT = click.FloatRange(min=0, min_open=True)
NON_NEGATIVE = click.FloatRange(min=0)
#: the rows of a profile (and of a profile diff)
BY_OPTION = click.option(
    "--by",
    type=click.Choice(["sym", "dso", "comm", "tid"]),
    default="sym",
    show_default=True,
    help="Rows: symbol (with its DSO), DSO, command or thread.",
)


def _show(frame: Any, title: str) -> None:
    """Print a table in full width (titles above, every column, 4 significant digits)."""
    click.echo(title)
    click.echo(frame.to_string(float_format=lambda v: f"{v:.4g}"))
    click.echo("")


def _check_outputs(outputs: dict[str, str | None], inputs: Iterable[str] = ()) -> None:
    from hemkit.io import check_output

    distinct_outputs(**outputs)  # -o x --plot x: the figure would overwrite the table
    for what, path in outputs.items():
        if path:
            check_output(path, inputs=list(inputs), what=what)


def _write_figures(figures: dict[str, tuple[str | None, Any]]) -> list[str]:
    """Draw and write each wanted figure: ``{what: (path, draw)}`` -> the paths written."""
    if not any(path for path, _ in figures.values()):
        return []  # no figure wanted: matplotlib (0.8 s to import) is not needed
    import matplotlib.pyplot as plt

    from hemkit.io import write_figure

    written = []
    for what, (path, draw) in figures.items():
        if not path:
            continue
        ax = draw()
        try:
            write_figure(ax.figure, path, what=what)
        finally:
            plt.close(ax.figure)
        written.append(str(path))
    return written


@click.group()
def sampling() -> None:
    """Accuracy of sampling profiles: simulate, model, and intervals for perf record profiles."""


@sampling.command()
@click.option(
    "--paper",
    type=click.Choice(["2", "3", "4", "5", "6", "all"]),
    help="Re-run the paper's Table N (beside its figures), or all of Tables 2-6.",
)
@click.option(
    "--task",
    "tasks",
    multiple=True,
    metavar="NAME:SHARE:GRAN[:DIST[:RATE]]",
    help="A task (repeatable): its share of the units, mean run length in units, "
    "DIST constant|exponential|uniform, base events per unit.",
)
@click.option(
    "--idle-granularity", type=click.FloatRange(min=1), default=1.0, show_default=True, help="Mean idle run (units)."
)
@click.option("--idle-distribution", type=DISTRIBUTION, default="constant", show_default=True)
@click.option(
    "--units", type=click.IntRange(1, 10**8), default=1_000_000, show_default=True, help="Units of the running states."
)
@click.option(
    "--interval", type=POSITIVE_FLOAT, default=100.0, show_default=True, help="Sampling interval in units (or events)."
)
@reps_option("Profiles simulated on the same running states.", default=1000)
@click.option("--mode", type=click.Choice(["time", "event"]), default="time", show_default=True)
@click.option("--jitter", type=NON_NEGATIVE, default=0.0, show_default=True, help="SD of noise on each interval.")
@click.option(
    "--noise", type=NON_NEGATIVE, default=0.0, show_default=True, help="SD s of noise on the unit of events (Eq. 10)."
)
@seed_option()
@output_option("Write the table(s) here (CSV, or Parquet by suffix).", table=True)
@plot_option("sd", "Figure: SD of the profiled shares against R (simulated, model, exact).")
@plot_option("means", "Figure: mean profiled share against the true share.")
@plot_option("histogram", "Figure: histogram of profiled shares (the paper's Fig. 11 with --paper).")
@quiet_option()
@alias("--plots", "plots", "--plot-sd, --plot-means, --plot-histogram", separate=True, type=click.Path(file_okay=False))
def simulate(
    paper,
    tasks,
    idle_granularity,
    idle_distribution,
    units,
    interval,
    reps,
    mode,
    jitter,
    noise,
    seed,
    output,
    plot_sd,
    plot_means,
    plot_histogram,
    quiet,
    plots,
):
    """Simulate profiles of known running states; print the mean and SD of the profiles.

    \b
    hemkit sampling simulate --paper all --plot-sd sd.png        # Wen et al. 2021, Tables 2-6
    hemkit sampling simulate --task a:0.3:150 --task b:0.2:30:exponential --reps 1000 -o t.csv
    """
    from hemkit.io import write_table
    from hemkit.io.atomic import check_output_dir

    if bool(paper) == bool(tasks):
        raise click.UsageError("give --paper N or at least one --task NAME:SHARE:GRANULARITY (not both)")
    if paper:  # the paper fixes its set-ups: an option that would be ignored is an error
        for name in ("idle_granularity", "idle_distribution", "units", "interval", "mode", "jitter", "noise"):
            if given(name):
                flag = "--" + name.replace("_", "-")
                raise click.UsageError(f"{flag} does not apply to --paper (the paper fixes its set-ups); use --task")
    with warnings_to_stderr():
        _check_outputs({"table": output, "plot": plot_sd, "means plot": plot_means, "histogram": plot_histogram})
        if plots:  # the deprecated --plots DIR: the three figures under their old names, folder made at the end
            check_output_dir(plots, what="plots folder")
            plot_sd = plot_sd or os.path.join(plots, "sd_vs_R.png")
            plot_means = plot_means or os.path.join(plots, "profiled_vs_true.png")
            plot_histogram = plot_histogram or os.path.join(plots, "histogram.png")
        res: Any
        if paper:
            from hemkit.sampling.paper import reproduce

            res = reproduce(paper, reps=reps, seed=seed, progress=not quiet)
            for name, table in res.tables.items():
                _show(table, f"Table {name} (Wen et al. 2021), hemkit beside the paper:")
            frame = res.to_frame()
            read = f"paper Table(s) {', '.join(res.tables)} re-run, {reps} profiles per set-up"
            sd_plot, hist_plot = res.plot, res.plot_histogram
        else:
            from hemkit.sampling import Sampler, Task, Workload, simulate_workload

            workload = Workload(
                tuple(Task.from_spec(s) for s in tasks), units, idle_granularity, idle_distribution, 0.0
            )
            res = simulate_workload(
                workload, Sampler(interval, mode, jitter, noise), reps, seed=seed, progress=not quiet
            )
            frame = res.summary()
            _show(frame, f"{reps} profiles, interval {interval:g}, {int(res.n_samples[0])} samples each:")
            frame = frame.reset_index()
            read = f"{len(tasks)} task(s) + idle on {units} units, {reps} profiles"
            sd_plot, hist_plot = res.plot_sd, res.plot_histogram
        if plots:
            Path(plots).mkdir(exist_ok=True)
        written = []
        if output:
            write_table(frame, output, what="table")
            written.append(output)
        written += _write_figures(
            {
                "plot": (plot_sd, sd_plot),
                "means plot": (plot_means, res.plot_means if paper else res.plot),
                "histogram": (plot_histogram, hist_plot),
            }
        )
    click.echo(f"sampling simulate: {read}{wrote(written)}")


@sampling.command()
@click.argument("source", type=click.Path())
@BY_OPTION
@click.option("--comm", help="Only samples of this command.")
@click.option("--event", help="Only samples of this event (default: the most sampled one of several).")
@click.option("--level", type=LEVEL, default=0.95, show_default=True, help="Confidence level of the intervals.")
@click.option(
    "--method",
    type=METHOD,
    default="systematic",
    show_default=True,
    help="systematic: each share's error estimated from the samples in time order (calibrated on "
    "periodic sampling); wilson: binomial (too wide for long runs); bound: Poisson bound valid for any run length.",
)
@click.option("--top", type=POSITIVE, default=20, show_default=True, help="Rows to show (and to plot).")
@output_option("Write the full table here (CSV, or Parquet by suffix).", table=True)
@plot_option(help="Figure: bars of the largest shares with their intervals.")
@quiet_option()
def profile(source, by, comm, event, level, method, top, output, plot, quiet):
    """Shares with confidence intervals of a perf.data file or `perf script` text.

    \b
    perf record -e cpu-clock -c 250000 -- ./prog      (-e cycles on a machine with a PMU)
    hemkit sampling profile perf.data --by dso --plot dso.png -o dso.csv

    Text input should come from `perf script -F comm,tid,time,event,ip,sym,dso,period`.
    """
    from hemkit.io import write_table
    from hemkit.sampling import profile_shares, read_samples

    with warnings_to_stderr():
        _check_outputs({"table": output, "plot": plot}, inputs=[source])
        samples = read_samples(source, progress=not quiet)
        p = profile_shares(samples, by=by, level=level, method=method, comm=comm, event=event)
        _show(
            p.summary(top),
            f"{source}: {p.n_samples} samples{' of ' + p.event if p.event else ''} (effective {p.n_eff:.0f}), "
            f"{format_percent(level)} intervals ({method}), by {by}:",
        )
        written = []
        if output:
            write_table(p.to_frame(), output, inputs=[source], what="table")
            written.append(output)
        written += _write_figures({"plot": (plot, lambda: p.plot(top=top))})
    left = len(samples) - p.n_samples
    dropped = f", {left} of other commands/events left out" if left else ""
    click.echo(
        f"sampling profile: read {len(samples)} samples from {source}{dropped}; {len(p.table)} rows{wrote(written)}"
    )


@sampling.command()
@click.option("--share", "shares", type=SHARE, multiple=True, required=True, help="True share of a task (repeatable).")
@click.option(
    "--ratio",
    "ratios",
    type=POSITIVE_FLOAT,
    multiple=True,
    help="Run ratio R = granularity / interval of each task, one per --share (default: unknown, bound p/n).",
)
@click.option("--samples", type=POSITIVE, default=10_000, show_default=True, help="Samples per profile.")
@click.option(
    "--half-width",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Also give the samples needed for an interval of +- this width.",
)
@click.option("--level", type=LEVEL, default=0.95, show_default=True, help="Confidence level.")
@output_option("Write the table here (CSV, or Parquet by suffix).", table=True)
@plot_option(help="Figure: expected shares with their intervals.")
@alias("--R", "ratios", "--ratio", type=POSITIVE_FLOAT, multiple=True)
@quiet_option(shows_none=True)
def model(shares, ratios, samples, half_width, level, output, plot, quiet):
    """Model SD and interval of shares, and samples needed (Wen et al. 2021, Eqs. 5-9).

    \b
    hemkit sampling model --share 0.3 --ratio 1.5 --samples 1000 --half-width 0.01
    """
    from hemkit.io import write_table
    from hemkit.sampling import share_model

    with warnings_to_stderr():
        _check_outputs({"table": output, "plot": plot})
        m = share_model(shares, ratios, samples, level=level, half_width=half_width)
        kind = "R unknown: the bound p/n" if m.bound else "given R"
        _show(m.summary(), f"model for {samples} samples ({kind}), {format_percent(level)} intervals:")
        written = []
        if output:
            write_table(m.to_frame().reset_index(), output, what="table")
            written.append(output)
        written += _write_figures({"plot": (plot, m.plot)})
    click.echo(f"sampling model: {len(shares)} share(s), {samples} samples{wrote(written)}")


@sampling.command()
@click.option(
    "--period", "periods", type=POSITIVE, multiple=True, help="perf record -c N (ns for cpu-clock); repeatable."
)
@click.option("--freq", "freqs", type=POSITIVE, multiple=True, help="perf record -F HZ; repeatable.")
@click.option(
    "--granularity", "granularities", type=POSITIVE, multiple=True, help="Units (~1.5 us) per call; repeatable."
)
@click.option(
    "--threads", "threads", type=click.IntRange(1, 64), multiple=True, help="Threads of the workload; repeatable."
)
@runs_option("perf record runs of the workload per setting, granularity and threads.", default=3)
@click.option("--event", help="Sampling event (default: cycles with a PMU, else cpu-clock).")
@click.option("--level", type=LEVEL, default=0.95, show_default=True, help="Confidence level.")
@click.option("--method", "methods", type=METHOD, multiple=True, help="Interval method(s); default all three.")
@seed_option()
@output_option("Write every case here (CSV, or Parquet by suffix).", table=True)
@plot_option(help="Figure: coverage per setting and method against the nominal level.")
@quiet_option()
def check(periods, freqs, granularities, threads, runs, event, level, methods, seed, output, plot, quiet):
    """Record the known-share workload with perf and report how often intervals cover the truth.

    Per cell: coverage of the intervals and width/ideal, their median half-width over
    z x the RMS error of the shares (1: as narrow as the actual error allows).

    \b
    hemkit sampling check --period 100000 --period 1000000 --freq 997 --runs 5 --plot coverage.png
    hemkit sampling check --freq 997 --granularity 500 --threads 1 --threads 2 --method systematic
    """
    from hemkit.io import write_table
    from hemkit.sampling import CheckOptions, validate_coverage

    with warnings_to_stderr():
        _check_outputs({"cases": output, "plot": plot})
        options = CheckOptions(
            periods=periods or (() if freqs else (100_000, 1_000_000)),
            freqs=freqs,
            granularities=granularities or (50,),
            threads=threads or (1,),
            runs=runs,
            event=event,
        )
        res = validate_coverage(
            options, level=level, methods=methods or ("systematic", "wilson", "bound"), seed=seed, progress=not quiet
        )
        table = res.summary()
        table.index = [f"{s} g{g} t{t} {m}" if s != "all" else f"all {m}" for s, g, t, m in table.index]
        _show(table, f"coverage of {format_percent(level)} intervals on the known-share workload:")
        written = []
        if output:
            write_table(res.to_frame(), output, what="cases")
            written.append(output)
        written += _write_figures({"plot": (plot, res.plot)})
    overall = res.summary().xs("all", level="setting")["coverage"]
    cover = ", ".join(f"{key[-1]} {v:.3f}" for key, v in overall.items())
    click.echo(f"sampling check: {options.n_runs} perf record runs of {res.event}, coverage {cover}{wrote(written)}")


@sampling.command()
@click.argument("a", type=click.Path())
@click.argument("b", type=click.Path())
@BY_OPTION
@click.option("--comm", help="Only samples of this command (both sides).")
@click.option("--event", help="Only samples of this event (default: the most sampled one of several).")
@click.option("--level", type=LEVEL, default=0.95, show_default=True, help="Interval level; FDR is 1 - level.")
@click.option("--top", type=POSITIVE, default=20, show_default=True, help="Rows to show (and to plot).")
@output_option("Write the full table here (CSV, or Parquet by suffix).", table=True)
@plot_option(help="Figure: the largest share changes with their intervals, changed ones marked.")
@quiet_option()
def diff(a, b, by, comm, event, level, top, output, plot, quiet):
    """Which functions' shares changed from A to B, with a controlled false discovery rate.

    \b
    perf record -e cpu-clock -F 997 -o before.data -- ./prog    # the build before the change
    perf record -e cpu-clock -F 997 -o after.data -- ./prog     # ... and after, under the same name
    hemkit sampling diff before.data after.data --plot diff.png -o diff.csv
    for i in 1 2 3; do perf record -e cpu-clock -F 997 -o before/$i.data -- ./prog; done   # and after/
    hemkit sampling diff before/ after/ -o diff.csv             # several executions a side

    A and B are each a perf.data file (or perf script text) or a folder of them, one execution
    per file.  Per key: share in A and B, the difference with its interval, and changed with
    Benjamini-Hochberg at 1 - level.  With one recording a side each share's error between
    executions is modelled (se_exec of sampling profile); with several a side (a folder on both
    sides) each share is measured per execution and the test is a moderated t: the measured
    spread between executions shrunk toward the modelled one (columns recordings_a/_b,
    spread_a/_b).  --by tid needs one recording a side (thread ids of two executions never
    match): compare executions --by comm.
    """
    from hemkit.io import write_table
    from hemkit.sampling.diff import DiffOptions, diff_recordings

    with warnings_to_stderr():
        _check_outputs({"table": output, "plot": plot}, inputs=[a, b])
        d = diff_recordings(a, b, by=by, level=level, options=DiffOptions(comm=comm, event=event), progress=not quiet)
        _show(d.summary(top), f"share B - A by {by} ({format_percent(level)} intervals), largest changes first:")
        written = []
        if output:
            write_table(d.to_frame(), output, inputs=[a, b], what="table")
            written.append(output)
        written += _write_figures({"plot": (plot, lambda: d.plot(top=top))})
    click.echo(f"sampling diff: {d.line()}{wrote(written)}")
