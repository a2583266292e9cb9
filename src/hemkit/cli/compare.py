"""``hemkit compare A B``: a thin wrapper over :func:`hemkit.compare.compare`.

Reads each side through :func:`hemkit.io.read_readings` (an error names the side: ``A: ...``),
compares, shows the per-event table, writes what was asked, and ends with one summary line.
"""

from __future__ import annotations

import os
from typing import Any

import click

from hemkit.cli._options import (
    LEVEL,
    MARGIN,
    TablePath,
    distinct_outputs,
    output_option,
    plot_option,
    quiet_option,
    read_options,
    readings_input_options,
    seed_option,
    show_rows,
    warnings_to_stderr,
)
from hemkit.core.numbers import format_percent

# q_value beside p_value: changed is decided on it (Benjamini-Hochberg), as the report and sampling diff show it;
# verdict: changed, alike or unclear at --margin
SHOWN = ["event", "median_a", "median_b", "ratio", "lower", "upper", "p_value", "q_value", "changed", "verdict", "note"]


def _read(path: str, side: str, flag: str, **options: Any) -> tuple[Any, Any]:
    """The readings of one side, and the host of each of its runs (None where the input names none).

    ``flag``: the option that chose the side's host (``--host-a``), named where an error is about it.
    """
    from hemkit.core.errors import HemkitError
    from hemkit.io import read_machines, read_readings

    try:
        return read_readings(path, min_runs=1, **options), read_machines(path, host=options.get("host"))
    except HemkitError as exc:
        if exc.param == "host" and flag != "--host":  # the side's own option, not --host
            exc = type(exc)(exc.message.replace("host", flag, 1), fix=exc.fixes, details=exc.details)
        elif exc.param == "host" and "read it without a host" in exc.message:
            # --host is both sides': the other side's own option selects its runs alone
            other, mine = ("B", "--host-b") if side == "A" else ("A", "--host-a")
            hosts = " ".join(f"{mine} {h}" for h in options.get("host") or ())
            message = exc.message.replace(
                "read it without a host", f"to select the runs of {other} alone, pass {hosts} instead of --host"
            )
            exc = exc.reworded(message)
        raise exc.reworded(f"{side}: {exc.message}") from exc


def _side_hosts(host: tuple[str, ...], own: tuple[str, ...], side: str) -> tuple[tuple[str, ...], str]:
    """The hosts whose runs a side reads (its own --host-a/--host-b, else --host) and the option that chose them."""
    if own:
        return own, f"--host-{side.lower()}"
    return host, "--host"


def _runs(readings: Any, per_event: Any, on: str) -> str:
    """``12 runs``, or ``12 runs, 6 per event`` / ``12 runs, 6-12 per event`` where events were read in fewer.

    '6+ runs' (the fewest runs of an event) read as if 6 files were read where 12 were.
    """
    total = sum(readings.run_counts.values())
    lo, hi = (int(per_event.min()), int(per_event.max())) if len(per_event) else (total, total)
    if lo == hi == total:
        return f"{total} runs{on}"
    return f"{total} runs{on}, " + (f"{lo} per event" if lo == hi else f"{lo}-{hi} per event")


@click.command()
@click.argument("a", type=click.Path(dir_okay=True))
@click.argument("b", type=click.Path(dir_okay=True))
@click.option("--level", type=LEVEL, default=0.95, show_default=True, help="Interval level; FDR is 1 - level.")
@click.option(
    "--margin",
    type=MARGIN,
    default=0.0,
    show_default=True,
    metavar="FRACTION",
    help="The change that matters (0.01 or 1%): changed only beyond it, alike within it, else unclear.",
)
@seed_option()
@output_option("Write the per-event table (CSV, or Parquet by suffix).", table=True)
@click.option("--pairs", type=TablePath(), help="Write the per-pair correlation changes here.")
@plot_option(help="Figure: ratio B / A per event with intervals, changed events marked.")
@plot_option("power", help="Figure: smallest detectable change per event, and runs a 1 % change needs.")
@click.option(
    "--host-a",
    multiple=True,
    metavar="NAME",
    help="Read only the runs of this host on side A (repeat for several; instead of --host for A).",
)
@click.option(
    "--host-b",
    multiple=True,
    metavar="NAME",
    help="Read only the runs of this host on side B (repeat for several; instead of --host for B): "
    "the same build on two machines is --host-a n1 --host-b n2.",
)
@readings_input_options
@quiet_option(shows_none=True)
def compare(
    a: str,
    b: str,
    level: float,
    margin: float,
    seed: int,
    output: str | None,
    pairs: str | None,
    plot: str | None,
    plot_power: str | None,
    host_a: tuple[str, ...],
    host_b: tuple[str, ...],
    pmcs: int | None,
    codes: str | None,
    drop_constant: bool,
    quiet: bool,
) -> None:
    """Which events changed from A to B, by how much, with a controlled false discovery rate.

    \b
    hemkit compare isolation.db contention.db
    hemkit compare before/ after/ -o changes.csv --plot ratios.png --plot-power power.png
    hemkit compare a.db b.db --pairs pairs.csv
    hemkit compare a.db b.db --margin 0.01     (changed by more than 1 %, alike within 1 %, or unclear)

    A and B are readings of any kind (a collection database, a folder of perf stat files, a
    tidy table, a mergingTools raw file with --pmcs).  Per event read on both sides: medians,
    ratio B / A with its interval at --level, Brunner-Munzel p-value, and changed with
    Benjamini-Hochberg false discovery rate control at 1 - level.  With --margin M the verdict
    is at a size that matters: changed where the ratio's interval also lies wholly outside
    [1/(1+M), 1+M], alike where it lies wholly inside, unclear otherwise.  A side of collection
    databases whose runs come from several hosts is checked for hosts that read differently
    (as hemkit merge does): such a side is named in a warning.  --host NAME reads only the
    runs of that host on both sides; --host-a and --host-b choose each side's own (collection
    databases store each run's host; perf stat files and tables name none and are refused).
    """
    import warnings

    from hemkit.compare import compare as run_compare
    from hemkit.core.errors import HemkitWarning
    from hemkit.io import check_output, write_figure, write_table

    distinct_outputs(**{"output": output, "pairs": pairs, "plot": plot, "plot-power": plot_power})
    for path, what in ((output, "output"), (pairs, "pairs"), (plot, "plot"), (plot_power, "power plot")):
        if path:
            check_output(path, inputs=[a, b], what=what)
    options = {"pmcs": pmcs, "codes": codes, "drop_constant": drop_constant, **read_options()}
    both = tuple(options.pop("host", ()))
    (chosen_a, flag_a), (chosen_b, flag_b) = _side_hosts(both, host_a, "A"), _side_hosts(both, host_b, "B")
    same = os.path.realpath(a) == os.path.realpath(b) and chosen_a == chosen_b
    with warnings_to_stderr():
        ra, hosts_a = _read(a, "A", flag_a, **options, **({"host": chosen_a} if chosen_a else {}))
        if same:
            rb, hosts_b = ra, hosts_a
            warnings.warn(f"A and B are the same ({a}): nothing can change", HemkitWarning, stacklevel=1)
        else:
            rb, hosts_b = _read(b, "B", flag_b, **options, **({"host": chosen_b} if chosen_b else {}))
        res = run_compare(ra, rb, level=level, seed=seed, pairs=bool(pairs), hosts=(hosts_a, hosts_b), margin=margin)
    t = res.table
    numbers = [getattr(t, c) for c in SHOWN[1:-3]]
    cells = [
        [float(col[i]) for col in numbers] + [bool(t.changed[i]), t.verdict[i], t.note[i]] for i in range(len(t.events))
    ]
    title = f"B / A per event ({format_percent(level)} intervals)"
    show_rows(list(zip(map(str, t.events), cells)), SHOWN[1:], "event", title)
    written = []
    if output:
        write_table(res.to_frame(), output, inputs=[a, b], what="output")
        written.append(output)
    if pairs and res.pairs is not None:
        write_table(res.pairs, pairs, inputs=[a, b], what="pairs")
        written.append(pairs)
    if plot:
        write_figure(res.plot().figure, plot)
        written.append(plot)
    if plot_power:
        write_figure(res.plot_power().figure, plot_power)
        written.append(plot_power)
    row = res.row()
    one_side = []
    if res.only_a:
        one_side.append(f"{len(res.only_a)} only in A")
    if res.only_b:
        one_side.append(f"{len(res.only_b)} only in B")
    pair_note = f"; {row['pairs_changed']} of {row['pairs']} pairs' correlations changed" if pairs else ""
    mixed = res.mixed_hosts
    host_note = f"; hosts read differently within {' and '.join(mixed)} (warned)" if mixed else ""
    on_a = f" of host {', '.join(chosen_a)}" if chosen_a else ""
    on_b = f" of host {', '.join(chosen_b)}" if chosen_b else ""
    at = f"margin {format_percent(margin)}" if margin else "margin 0"
    click.echo(
        f"compare: {row['changed']} of {row['events']} events changed at FDR {format_percent(1 - level)}, "
        f"{row['alike']} alike, {row['unclear']} unclear at {at} "
        f"(largest: {row['largest_change']}){pair_note}{host_note}; A {a} ({_runs(ra, t.runs_a, on_a)}), "
        f"B {b} ({_runs(rb, t.runs_b, on_b)}){'; ' + ', '.join(one_side) + ' (not compared)' if one_side else ''}; "
        f"wrote {', '.join(written) or 'nothing'}"
    )
