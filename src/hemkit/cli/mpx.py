"""``hemkit mpx``: interval traces, multiplexing emulation, estimators and scores (issue 4)."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np
import pandas as pd

from hemkit.errors import HemkitError

MODEL_SUFFIXES = (".pt", ".pth")


def _events(spec: str) -> list[str]:
    ev = [e.strip() for e in spec.split(",") if e.strip()]
    if not ev:
        raise HemkitError(f"empty event set {spec!r}")
    return ev


def _load_traces(paths) -> pd.DataFrame:
    from hemkit.mpx.traces import read_trace

    parts = []
    for p in paths:
        tr = read_trace(p)
        if "workload" not in tr.columns:
            tr["workload"] = Path(p).stem
        parts.append(tr)
    return pd.concat(parts, ignore_index=True)


def _estimator(spec: str):
    from hemkit.mpx.estimators import make_estimator

    if spec.endswith(MODEL_SUFFIXES):
        from hemkit.mpx.learned import _TorchEstimator

        if not Path(spec).exists():
            raise HemkitError(f"{spec}: no such model file")
        return Path(spec).stem, _TorchEstimator.load(spec)
    return spec, make_estimator(spec)


def _print_table(frame: pd.DataFrame, title: str, digits: int = 3) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    table.add_column(frame.index.name or "")
    for c in frame.columns:
        table.add_column(str(c), justify="right")
    for idx, row in frame.iterrows():
        table.add_row(str(idx), *[f"{v:.{digits}f}" if isinstance(v, float | np.floating) else str(v) for v in row])
    Console().print(table)


@click.group()
def mpx() -> None:
    """Multiplexing estimation: traces, emulation, estimators (fixed, linear, growth, MLP, Bi-GRU), scores."""


@mpx.command()
@click.option(
    "-e",
    "--events",
    "event_sets",
    multiple=True,
    required=True,
    help="Comma list of events read together in one run (repeat for more sets; <= 5 hardware events).",
)
@click.option("--runs", default=3, show_default=True, help="Runs per event set.")
@click.option("-I", "--interval", "interval_ms", default=10, show_default=True, help="perf -I interval (ms).")
@click.option("-w", "--workload", default=None, help="Workload name (default: the command's name).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Trace file (.parquet or .csv).")
@click.argument("command", nargs=-1, required=True)
def trace(event_sets, runs, interval_ms, workload, output, command):
    """Record OCOE interval traces of COMMAND (give it after --)."""
    from hemkit.mpx.traces import collect_traces, write_trace

    name = workload or Path(command[0]).name
    tr = collect_traces(
        {name: list(command)},
        [_events(s) for s in event_sets],
        runs=runs,
        interval_ms=interval_ms,
        progress=lambda m: click.echo(m, err=True),
    )
    write_trace(tr, output)
    click.echo(f"wrote {output}: {tr['run'].nunique()} runs, {tr['event'].nunique()} events")


@mpx.command()
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("-c", "--counters", default=2, show_default=True, help="Counters available (C).")
@click.option("--period", default=1, show_default=True, help="Trace intervals per rotation tick.")
@click.option("--shift", default=1, show_default=True, help="List positions rotated per tick (1 = Linux).")
@click.option("--offset", default=0, show_default=True, help="Starting rotation position.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
def emulate(trace_file, counters, period, shift, offset, output):
    """Emulate multiplexing of an OCOE trace; writes run, step, event, raw, enabled, running, truth."""
    from hemkit.mpx.emulate import emulate as _emulate
    from hemkit.mpx.traces import write_trace

    m = _emulate(_load_traces([trace_file]), counters, period=period, shift=shift, offset=offset)
    write_trace(m.to_tidy(), output)
    seen = m.observed.sum() / m.valid.sum()
    click.echo(f"wrote {output}: {len(m.keys)} series, events on a counter {seen:.0%} of the time")


@mpx.command()
@click.argument("trace_files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-m", "--estimator", "name", type=click.Choice(["mlp", "bigru"]), default="mlp", show_default=True)
@click.option("-c", "--counters", multiple=True, type=int, default=(2, 3), show_default=True)
@click.option("--epochs", type=int, default=None, help="Training epochs (default: the estimator's).")
@click.option("--seed", default=0, show_default=True)
@click.option("--no-clean", is_flag=True, help="Skip the paper's data cleaning.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Model file (.pt).")
def fit(trace_files, name, counters, epochs, seed, no_clean, output):
    """Train a learned estimator on OCOE traces (emulated at every rotation offset)."""
    from hemkit.mpx.emulate import emulate_many
    from hemkit.mpx.estimators import make_estimator
    from hemkit.mpx.traces import clean_runs

    if not output.endswith(MODEL_SUFFIXES):
        raise HemkitError(f"{output}: model files end in .pt")
    tr = _load_traces(trace_files)
    if not no_clean:
        tr = clean_runs(tr)
    n_ev = int(tr.groupby("run")["event"].nunique().max())
    data = emulate_many(tr, counters, range(n_ev))
    params = {"seed": seed} | ({"epochs": epochs} if epochs else {})
    est = make_estimator(name, **params).fit(data)
    est.save(output)
    click.echo(
        f"wrote {output}: {name} trained on {len(data.keys)} series in {est.fit_seconds_:.1f} s "
        f"(final loss {est.loss_[-1]:.4f})"
    )


@mpx.command()
@click.argument("mpx_file", type=click.Path(dir_okay=False))
@click.option(
    "-m",
    "--estimator",
    "spec",
    default="fixed",
    show_default=True,
    help="fixed, fixed-cumulative, linear, growth or a model file (.pt) from 'mpx fit'.",
)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
def estimate(mpx_file, spec, output):
    """Estimate full series from multiplexed data (from 'mpx emulate' or a multiplexed perf stat -I file)."""
    from hemkit.mpx.emulate import MpxData
    from hemkit.mpx.traces import read_trace, write_trace

    table = read_trace(mpx_file, ocoe=False)
    m = MpxData.from_tidy(table, source=mpx_file).without_truth()
    if spec in ("mlp", "bigru"):
        raise HemkitError(f"estimator {spec!r} must be trained first: hemkit mpx fit ... -o {spec}.pt")
    name, est = _estimator(spec)
    write_trace(est.estimate(m), output)
    click.echo(f"wrote {output}: {name} estimates for {len(m.keys)} series")


@mpx.command()
@click.argument("trace_files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "-m",
    "--estimator",
    "specs",
    multiple=True,
    default=("fixed", "linear", "growth"),
    show_default=True,
    help="Estimator name or model file (.pt); repeat.",
)
@click.option("-c", "--counters", default=2, show_default=True)
@click.option("--by", type=click.Choice(["event", "workload", "run"]), default="event", show_default=True)
@click.option("--clean/--no-clean", default=True, show_default=True, help="Apply the paper's data cleaning.")
@click.option("--plot-ra", type=click.Path(dir_okay=False), help="Write RA bars per event and estimator here.")
@click.option(
    "--plot-series",
    nargs=3,
    type=(str, str, click.Path(dir_okay=False)),
    default=None,
    help="RUN EVENT FILE: plot true vs estimated series.",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the per-series scores here.")
def score(trace_files, specs, counters, by, clean, plot_ra, plot_series, output):
    """Emulate OCOE traces with C counters, run the estimators and score them (RA, DTW-cost, total error)."""
    from hemkit.mpx.emulate import emulate as _emulate
    from hemkit.mpx.scores import ScoreResult
    from hemkit.mpx.scores import score as _score
    from hemkit.mpx.traces import clean_runs, write_trace

    tr = _load_traces(trace_files)
    if clean:
        tr = clean_runs(tr)
    m = _emulate(tr, counters)
    blind = m.without_truth()
    ests = {}
    for spec in specs:
        name, est = _estimator(spec)
        if spec in ("mlp", "bigru"):
            raise HemkitError(f"estimator {spec!r} must be trained first: hemkit mpx fit ... -o {spec}.pt")
        ests[name] = est.fit(blind).estimate_array(blind) if not hasattr(est, "model_") else est.estimate_array(blind)
    res = ScoreResult(_score(m, ests), baseline=list(ests)[0])
    _print_table(res.overall(), f"MPX estimators, {counters} counters (baseline {res.baseline})", 4)
    _print_table(res.by(by, "ra"), f"RA per {by}")
    _print_table(res.by(by, "dtw"), f"DTW-cost per {by} (log10 counts)")
    if output:
        write_trace(res.table, output)
    if plot_ra or plot_series:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from hemkit.mpx.plots import plot_ra as _plot_ra
        from hemkit.mpx.plots import plot_series as _plot_series

        if plot_ra:
            ax = _plot_ra(res.table)
            ax.figure.tight_layout()
            ax.figure.savefig(plot_ra)
            plt.close(ax.figure)
        if plot_series:
            run, event, path = plot_series
            ax = _plot_series(m, ests, run, event)
            ax.figure.tight_layout()
            ax.figure.savefig(path)
            plt.close(ax.figure)
