"""``hemkit derive``: measure raw events on CAT-style kernels, analyse, report metric definitions."""

from __future__ import annotations

import click

from hemkit.cli._options import (
    alias,
    output_option,
    plot_option,
    quiet_option,
    runs_option,
    seed_option,
    show_table,
    warnings_to_stderr,
    wrote,
)

FAMILIES = click.Choice(["flops", "branch", "dcache"])


class _FiniteFloat(click.FloatRange):
    """A float range that also refuses nan and inf (click's FloatRange lets nan through)."""

    def convert(self, value, param, ctx):
        out = super().convert(value, param, ctx)
        if out != out or out in (float("inf"), float("-inf")):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return out


class _Greedy(click.Option):
    """An option that also takes the words after it, up to the next option: ``--cache L1=... LL=...``.

    (Relies on click's option parser; where that changes, the option still takes one value.)
    """

    def add_to_parser(self, parser, ctx):
        super().add_to_parser(parser, ctx)
        for name in self.opts:
            opt = getattr(parser, "_long_opt", {}).get(name) or getattr(parser, "_short_opt", {}).get(name)
            if opt is None or not hasattr(opt, "process"):
                continue
            original = opt.process

            def process(value, state, _original=original):
                words = [value]
                while getattr(state, "rargs", None) and not state.rargs[0].startswith("-"):
                    words.append(state.rargs.pop(0))
                _original(" ".join(words), state)

            opt.process = process


NON_NEGATIVE = _FiniteFloat(min=0)
STRICTLY_POSITIVE = _FiniteFloat(min=0, min_open=True)


def _check_plot(path: str | None) -> None:
    """Refuse, before any work, a figure file whose suffix matplotlib cannot write."""
    if not path:
        return
    import os

    from hemkit.core.errors import InputError

    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    if suffix not in ("png", "svg", "pdf", "jpg", "jpeg", "eps", "ps", "tif", "tiff", "webp"):
        raise InputError(f"plot {path}: unknown figure format {suffix or '(no suffix)'!r}; use .png, .svg or .pdf")


@click.group()
def derive() -> None:
    """Define metrics (FLOPs, branches, cache hits) from raw events (Barry, Danalis, Dongarra)."""


@derive.command()
@click.option("--family", type=FAMILIES, required=True, help="Kernel family to run.")
@click.option(
    "--backend",
    type=click.Choice(["perf", "valgrind"]),
    help="perf (hardware counters) or valgrind (cachegrind's simulated caches and branch predictor); "
    "default: perf where it counts hardware events, valgrind otherwise.",
)
@click.option(
    "--events",
    help="Events: a file (one per line, 'name' or 'name code'), 'generic' (perf's generic events) or a "
    "bundled table (amdzen5, this CPU only); default: this CPU's table + generic events (perf), all "
    "cachegrind events (valgrind).",
)
@runs_option("Executions of every kernel loop (the noise filter compares them).", default=3, minimum=2)
@alias("--reps", "runs", "--runs", type=click.IntRange(min=2))
@click.option(
    "--iterations",
    type=click.IntRange(min=1),
    help="Loop iterations (dcache: loads; branch: random bytes read per loop, a power of two); default per "
    "backend and family.",
)
@click.option(
    "--cache",
    cls=_Greedy,
    multiple=True,
    help="valgrind: simulated caches, e.g. --cache L1=32k,8,64 LL=32M,16,64 (I1=, D1=, L1=, LL=; "
    "size,ways,line); default from sysfs.",
)
@click.option("--jobs", type=click.IntRange(min=1), help="valgrind: kernel runs in parallel (default: all CPUs).")
@click.option(
    "--group",
    type=click.IntRange(1, 5),
    default=1,
    show_default=True,
    help="perf: events per perf run (1..5; >1 only for combinations checked against single runs).",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="perf: concurrent copies per run; the median is kept.",
)
@click.option("--kernel-mode", is_flag=True, help="perf: also count kernel mode (default: user mode only, :u).")
@seed_option()
@output_option(
    "Write the measurements here (CSV, or Parquet by suffix).", default="derive-measurements.csv", table=True
)
@quiet_option()
def run(
    family, backend, events, runs, iterations, cache, jobs, group, threads, kernel_mode, seed, output, quiet,
):  # fmt: skip
    """Measure every event on every kernel loop of a family, several runs each."""
    from hemkit.derive.measure import MeasureOptions, cache_geometry, run_family
    from hemkit.io.atomic import check_output
    from hemkit.io.derive import write_measurements

    with warnings_to_stderr():
        check_output(output)
        options = MeasureOptions(
            runs=runs,
            iterations=iterations,
            group=group,
            threads=threads,
            jobs=jobs,
            user_only=not kernel_mode,
            cache=cache_geometry(cache) if cache else None,
            seed=seed,
        )
        m = run_family(family, backend=backend, events=events, options=options, progress=not quiet)
        write_measurements(m, output)
    show_table(m.summary(), f"{family}: counts per iteration ({m.backend})")
    geometry = f", caches {m.params['cache']}" if m.backend == "valgrind" else ""
    reason = m.params.get("backend_reason", "")
    click.echo(f"{m.line()}{geometry}; backend {m.backend}: {reason}{wrote([output])} ({len(m.data)} measurements)")


@derive.command()
@click.argument("measurements", required=False, type=click.Path(dir_okay=False))
@click.option("--family", type=FAMILIES, help="Kernel family (default: the measurements' family column).")
@click.option(
    "--signatures",
    type=click.Choice(["hemkit", "paper"]),
    default="hemkit",
    show_default=True,
    help="Metric signatures: hemkit's, or the paper's Tables I/III/IV as printed (without MEASUREMENTS: "
    "the paper's own data, reproducing its Tables V and VII).",
)
@click.option("--tau", type=NON_NEGATIVE, help="Noise threshold on max RNMSE (Eq. 4).")
@click.option("--alpha", type=STRICTLY_POSITIVE, help="Rounding tolerance of the pivoted QR (Algorithm 2).")
@click.option("--proj-tol", type=NON_NEGATIVE, help="Largest relative residual of the projection onto the basis.")
@click.option("--define-tol", type=NON_NEGATIVE, help="Largest backward error (Eq. 5) of a defined metric.")
@click.option("--quantum", type=NON_NEGATIVE, help="Round counts per iteration to multiples of this (branch: 0.25).")
@output_option("Write the analysis here (JSON).", default="derive-result.json")
@plot_option(help="Write the variability figure (the paper's Fig. 2) here.")
@quiet_option(shows_none=True)
def analyze(measurements, family, signatures, tau, alpha, proj_tol, define_tol, quantum, output, plot, quiet):
    """Noise filter, projection, pivoted QR and least squares; print and save the definitions.

    Without MEASUREMENTS: the bundled example measured with valgrind (--family branch or dcache),
    or with --signatures paper the paper's own data (--family flops or branch).
    """
    from hemkit.derive.analysis import analyze as run_analysis
    from hemkit.derive.families import AnalysisOptions
    from hemkit.derive.inputs import analysis_input
    from hemkit.io.atomic import check_output, write_figure
    from hemkit.io.derive import write_analysis

    _check_plot(plot)
    check_output(output, inputs=[measurements])
    if plot:
        check_output(plot, inputs=[measurements, output], what="plot")
    options = AnalysisOptions(tau=tau, alpha=alpha, proj_tol=proj_tol, define_tol=define_tol, quantum=quantum)
    data, fam, source = analysis_input(measurements, family, signatures)
    with warnings_to_stderr():
        res = run_analysis(data, fam, options=options, signatures=signatures)
        write_analysis(res, output, inputs=[measurements])
        if plot:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            ax = res.plot()
            write_figure(ax.figure, plot)
            plt.close(ax.figure)
    show_table(res.summary(), f"{res.family}: metric definitions ({res.signatures} signatures)")
    click.echo(f"read {source}: {res.line()}{wrote([output, plot])}")


@derive.command()
@click.argument("result", required=False, default="derive-result.json", type=click.Path(dir_okay=False))
@output_option("Write the definition table here (.md, .csv or .json).")
@plot_option(help="Write the variability figure (the paper's Fig. 2) here.")
@click.option(
    "--presets",
    type=click.Path(dir_okay=False),
    help="CSV preset,definition to compare with (e.g. PAPI's presets on that machine); valgrind results are "
    "compared with the presets cachegrind's events define.",
)
@quiet_option(shows_none=True)
def report(result, output, plot, presets, quiet):
    """Metric-definition table (Tables V-VIII style): combination, error, verdict, PAPI preset."""
    from hemkit.derive.inputs import load_analysis, read_presets
    from hemkit.derive.report import define
    from hemkit.io.atomic import check_output, write_figure
    from hemkit.io.derive import check_table_suffix, write_definitions

    if output:
        check_table_suffix(output)
        check_output(output, inputs=[result, presets])
    _check_plot(plot)
    if plot:
        check_output(plot, inputs=[result, presets, output], what="plot")
    res = load_analysis(result)
    table = read_presets(presets) if presets else None
    defs = define(res, table, source=presets or "")
    with warnings_to_stderr():
        if output:
            write_definitions(defs, output, inputs=[result, presets])
        if plot:
            import matplotlib
            import matplotlib.pyplot as plt

            matplotlib.use("Agg")
            figure = res.plot().figure
            write_figure(figure, plot)
            plt.close(figure)
    show_table(defs.summary(), f"{res.family}: metric definitions")
    click.echo(f"read {result}: {defs.line()}{wrote([output, plot])}")
