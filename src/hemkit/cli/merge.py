"""``hemkit merge``: a thin wrapper over :mod:`hemkit.merge` (``hemkit evaluate`` is in :mod:`hemkit.cli.evaluate`).

Each command parses its options, checks every output place first, reads the input through
:func:`hemkit.io.read_readings` (or the bundled data), calls one library function, shows its
``summary()``, writes through :mod:`hemkit.io`, and ends with one line saying what was read,
written and dropped.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from hemkit.cli._options import (
    LEVEL,
    output_option,
    plot_option,
    quiet_option,
    readings_input_options,
    seed_option,
    show_row,
    wrote,
)

METHODS = ["joint", "copula", "much", "hrm"]


class _Weight(click.ParamType):
    """``auto`` or a number in [0, 1]."""

    name = "auto|W"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, float) or value == "auto":
            return value
        try:
            w = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is neither 'auto' nor a number in [0, 1]", param, ctx)
        if not 0 <= w <= 1:
            self.fail(f"{w:g} is not in [0, 1]", param, ctx)
        return w


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
    """Readings from INPUT files (one or several, any format read_readings knows) or the bundled T2080 data."""
    from hemkit import datasets
    from hemkit.io import read_readings

    if not inputs:
        return datasets.t2080_hrm() if hrm else datasets.t2080_much()
    return read_readings(
        list(inputs) if len(inputs) > 1 else inputs[0], pmcs=pmcs, codes=codes, drop_constant=drop_constant
    )


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


def _dropped(caught: list[str]) -> str:
    drops = [m for m in caught if "dropped" in m]
    return f"dropped: {len(drops)} (see warnings)" if drops else "dropped: nothing"


@click.command()
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=True))
@click.option("--method", "-m", type=click.Choice(METHODS), default="joint", show_default=True, help="Merge method.")
@readings_input_options
@click.option("--anchor", help="HRM anchor event (read in every group). Bundled data: PROCESSOR_CYCLES.")
@click.option(
    "--impute", type=click.Choice(["maxdet"]), help="Fill pairs never read together (else an error naming them)."
)
@click.option(
    "--n-sims", type=click.IntRange(min=1), default=100, show_default=True, help="MUCH: draws tried (warns under 30)."
)
@click.option(
    "--mode",
    type=click.Choice(["hemkit", "paper"]),
    default="hemkit",
    show_default=True,
    help="MUCH: 'paper' follows the SAC 2021 paper as written.",
)
@click.option(
    "--criterion",
    type=click.Choice(["arranged", "sample"]),
    help="MUCH: judge draws by the arranged readings or the sample.",
)
@click.option(
    "--dep-lvl", type=click.FloatRange(0, 1, min_open=True), help="MUCH: mergingTools' dropping of dependent events."
)
@click.option(
    "--outliers", type=click.Choice(["keep", "zscore"]), default="keep", show_default=True, help="MUCH, copula."
)
@click.option(
    "--z", "z", type=click.FloatRange(0, min_open=True), default=3.0, show_default=True, help="z of --outliers zscore."
)
@click.option(
    "--pearson-weight", type=_Weight(), default="auto", show_default=True, help="copula: 0 ranks .. 1 Pearson."
)
@click.option(
    "--tails",
    type=click.FloatRange(0),
    default=6.0,
    show_default=True,
    help="joint: robust z above which readings are placed to match Pearson (0: off).",
)
@click.option("--rows", type=click.IntRange(min=3), help="Rows of the merged table (default: every reading).")
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Threads for sorts and ranks; the result is the same for any number.",
)
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
    anchor: str | None,
    impute: str | None,
    n_sims: int,
    mode: str,
    criterion: str | None,
    dep_lvl: float | None,
    outliers: str,
    z: float,
    pearson_weight: Any,
    tails: float,
    rows: int | None,
    jobs: int,
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

    INPUT is one or several files of readings (tidy group,run,event,value CSV or Parquet,
    a mergingTools raw CSV with --pmcs, a 'hemkit collect' database, perf stat output).
    Without INPUT the bundled NXP T2080 readings are merged (HRM data for -m hrm).
    """
    from hemkit.io import check_output, write_figure, write_table
    from hemkit.merge import merge as run_merge

    _distinct_outputs(output=output, pair_intervals=pair_intervals, plot=plot)
    for path, what in ((output, "output"), (pair_intervals, "pair intervals"), (plot, "plot")):
        if path:
            check_output(path, inputs=inputs, what=what)
    if method == "hrm" and not anchor:
        if inputs:
            raise click.BadParameter("-m hrm needs the anchor event read in every group", param_hint="'--anchor'")
        from hemkit.datasets import T2080_ANCHOR

        anchor = T2080_ANCHOR
    options: dict[str, Any] = {}
    if method == "hrm":
        options = {"anchor": anchor, "rows": rows}
    elif method == "much":
        options = {"n_sims": n_sims, "mode": mode, "rows": rows, "impute": impute, "criterion": criterion}
        options.update(dep_lvl=dep_lvl, outliers=outliers, z=z, progress=not quiet)
    elif method == "copula":
        options = {"pearson_weight": pearson_weight, "rows": rows, "impute": impute, "outliers": outliers, "z": z}
    else:
        options = {"rows": rows, "impute": impute, "tails": tails or None, "progress": not quiet}
    messages: list[str] = []
    with warnings_to_stderr(messages):
        readings = _load(inputs, pmcs=pmcs, codes=codes, drop_constant=drop_constant, hrm=method == "hrm")
        level_ = level if pair_intervals or plot else None
        res = run_merge(readings, method, seed=seed, level=level_, jobs=jobs, **options)
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
    if method != "hrm" and rows is None:
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
        f"{_dropped(messages)}"
    )
