"""``hemkit merge``: a thin wrapper over :mod:`hemkit.merge` (``hemkit evaluate`` is in :mod:`hemkit.cli.evaluate`).

Each command parses its options, checks every output place first, reads the input through
:func:`hemkit.io.read_readings` (or the bundled data), calls one library function, shows its
``summary()``, writes through :mod:`hemkit.io`, and ends with one line saying what was read,
written and dropped.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import click

from hemkit.cli._merging import MERGE_METHODS, MergeChoice, merge_options
from hemkit.cli._options import (
    LEVEL,
    TablePath,
    check_input_options,
    distinct_outputs,
    given,
    hosts_margin_option,
    output_option,
    plot_option,
    quiet_option,
    read_inputs,
    readings_inputs,
    seed_option,
    show_row,
    warnings_to_stderr,
)
from hemkit.core.numbers import plural


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


#: warnings of things dropped that the summary line names one by one (the rest it counts)
SHOW_DROPPED = 3
#: where a perf stat reading is (``run_2.csv: line 5 (interval 1.0 s, CPU0, event 'cycles')``): its event tells
_PERF_LINE = re.compile(r"\S+: line \d+ \((?:[^()']*, )*(event '[^']*')\)")
_LACKS = re.compile(
    r"(?P<where>.+?) lacks \d+ event\(s\) of the \w+: (?P<names>.+?); their (?P<n>\d+) pair\(s\) are dropped"
)
_DROPPED = re.compile(r"(?:(?P<where>.+?): )?dropped (?P<what>.+)")


def _first_clause(text: str, limit: int = 60) -> str:
    """``text`` up to its first aside (`` (``, ``; ``, ``: ``), and at most ``limit`` characters."""
    for sep in (" (", "; ", ": "):
        i = text.find(sep, 10)
        if i > 0:
            text = text[:i]
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _dropped_item(message: str) -> str:
    """A warning that something was dropped, in a few words for the summary line: what, where, and why.

    Examples
    --------
    >>> _dropped_item("raw.csv: group 2: dropped constant event(s) 'X3'")
    "constant event(s) 'X3' (raw.csv: group 2)"
    >>> _dropped_item("dropped run 'run_3': runs/run_3.csv: line 4 (event 'page-faults') was multiplexed (on a "
    ...              "counter 87% of the time; perf scaled its count)")
    "run 'run_3' (event 'page-faults' was multiplexed)"
    >>> _dropped_item("group 1: dropped event(s) 'cycles', printed in 1 of its 3 run(s): r/run_2.csv: line 2 "
    ...              "(event 'cycles') is <not supported> by perf")
    "event(s) 'cycles' (group 1; <not supported> by perf)"
    >>> _dropped_item("t.csv: dropped 2 constant events (no correlation): c (7), d (0)")
    'constant event(s) c (7), d (0) (t.csv)'
    >>> _dropped_item("the merged table lacks 1 event(s) of the reference: 'c'; their 2 pair(s) are dropped from "
    ...              "the comparison (not compared: (a, c), (b, c))")
    "2 pair(s) of 'c' (not in the merged table)"
    """
    text = _PERF_LINE.sub(r"\1", " ".join(message.split()))
    m = _LACKS.match(text)
    if m:
        return f"{m['n']} pair(s) of {m['names']} (not in {m['where']})"
    m = _DROPPED.match(text)
    if m is None:
        return _first_clause(text)
    where, (what, _, why) = m["where"] or "", m["what"].partition(": ")
    if "<not supported>" in why:
        what, why = what.split(", printed in ")[0], "<not supported> by perf"
    elif re.fullmatch(r"\d+ constant events? \(no correlation\)", what):  # truth tables: 'c (7), d (0)'
        what, why = f"constant event(s) {why}", ""
    why = _first_clause(why) if why else ""
    aside = "; ".join(x for x in (where, why) if x)
    what = what if len(what) <= 80 else what[:77].rstrip() + "..."
    return f"{what} ({aside})" if aside else what


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
    # without the readings (a reference read inside the library), their constant events are in the warnings
    other = [m for m in caught if "dropped" in m and (readings is None or "dropped constant event" not in m)]
    parts += [_dropped_item(m) for m in other[:SHOW_DROPPED]]
    if len(other) > SHOW_DROPPED:
        parts.append(f"{len(other) - SHOW_DROPPED} more (see warnings)")
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
@merge_options(
    anchor_help="HRM anchor event (read in every group). A collection of an HRM plan: its plan's. "
    "Bundled data: PROCESSOR_CYCLES."
)
@seed_option()
@output_option("Write the merged table (CSV, or Parquet by suffix).", table=True)
@click.option("--pair-intervals", type=TablePath(), help="Write per-pair intervals (CSV or Parquet).")
@click.option("--level", type=LEVEL, default=0.9, show_default=True, help="Level of --pair-intervals.")
@plot_option(help="Figure: merged vs observed correlation per pair (with intervals).")
@hosts_margin_option()
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
    hosts_margin: float | None,
    quiet: bool,
) -> None:
    """Merge readings from separate runs into complete vectors.

    \b
    hemkit merge                                   # bundled T2080 data, joint merge
    hemkit merge runs/*.csv -o merged.csv --pair-intervals pairs.csv
    hemkit merge raw.csv --pmcs 6 --codes code2name.csv -m much --mode paper
    hemkit merge collection.db -m hrm --anchor cycles

    Without INPUT the bundled NXP T2080 readings are merged (HRM data for -m hrm).
    Collection databases whose runs come from several hosts are checked first: a host that
    reads an event differently by more than --hosts-margin is warned about.
    """
    from hemkit.io import check_output, write_figure, write_table
    from hemkit.merge import merge as run_merge

    distinct_outputs(output=output, pair_intervals=pair_intervals, plot=plot)
    for path, what in ((output, "output"), (pair_intervals, "pair intervals"), (plot, "plot")):
        if path:
            check_output(path, inputs=inputs, what=what)
    merging.check(method)
    if method == "hrm" and not merging.anchor:
        if inputs:
            from hemkit.io import read_anchor

            anchor = read_anchor(inputs)  # a collection of an HRM plan names it
            if anchor is None:
                raise click.BadParameter(
                    "-m hrm needs the anchor event read in every group (the inputs' plan names none)",
                    param_hint="'--anchor'",
                )
        else:
            from hemkit.datasets import T2080_ANCHOR

            anchor = T2080_ANCHOR
        merging = replace(merging, anchor=anchor)
    options = merging.kwargs(method, progress=not quiet)
    messages: list[str] = []
    with warnings_to_stderr(messages):
        if not (pair_intervals or plot) and given("level"):
            import warnings

            from hemkit.core.errors import Fix, HemkitWarning

            warnings.warn(
                HemkitWarning("only --pair-intervals and --plot hold intervals", ignored=Fix("level", level)),
                stacklevel=1,
            )
        readings = _load(inputs, pmcs=pmcs, codes=codes, drop_constant=drop_constant, hrm=method == "hrm")
        if inputs:  # collection databases: warn when their hosts read differently (machines check)
            from hemkit.compare.machines import HOSTS_MARGIN, collection_machines

            margin = HOSTS_MARGIN if hosts_margin is None else hosts_margin
            collection_machines(inputs, readings, seed=seed, warn=True, margin=margin)
        level_ = level if pair_intervals or plot else None
        res = run_merge(readings, method, seed=seed, level=level_, jobs=merging.jobs, **options)
    show_row(res.method, res.row(), "Merged vs observed pairwise correlations", index="method")
    written = []
    if output:
        write_table(res.arrays, output, inputs=inputs, what="output")
        written.append(output)
    if pair_intervals and res.interval_arrays is not None:  # columns: written without pandas
        write_table(res.interval_arrays, pair_intervals, inputs=inputs, what="pair intervals")
        written.append(pair_intervals)
    if plot:
        write_figure(res.plot().figure, plot)
        written.append(plot)
    n_runs = sum(readings.run_counts.values())
    n_rows, n_events = res.shape
    rows_note = f"{n_rows} rows"
    if method != "hrm" and merging.rows is None:
        from hemkit.merge.reorder import reading_counts

        most = max(reading_counts(readings).values())
        if most == n_rows:
            rows_note += ": every reading of the most-read event"
        elif most < n_rows:  # JointOptions.min_rows: fewer rows would add arrangement noise to every correlation
            rows_note += f" (the most-read event has {most} readings, spread evenly over them; pass --rows to choose)"
        else:
            rows_note += f" (the most-read event has {most} readings; capped, pass --rows for more)"
    source = _inputs_label(inputs, "bundled T2080 " + ("HRM" if method == "hrm" else "MUCH") + " data")
    click.echo(
        f"{method}: read {plural(len(readings), 'group')} ({plural(n_runs, 'run')}, "
        f"{plural(len(readings.events), 'event')}) from {source}; "
        f"merged into {rows_note} x {plural(n_events, 'event')}; wrote {', '.join(written) or 'nothing'}; "
        f"{_dropped(messages, readings, res.diagnostics.get('imputed'))}"
    )
