"""The command line's one vocabulary, as reusable click options, and small rendering helpers.

Every command takes its common options from here, so a name means one thing everywhere:

==================  ===================================================================
option              meaning
==================  ===================================================================
``-o/--output F``   the file the command writes (CSV or Parquet by suffix, or its format)
``--plot F``        the figure it draws (``--plot-<what> F`` where there are several)
``--pmcs N``        counters per run (hardware counters available at once)
``--runs N``        executions of a measured program (probe, collect, derive, sampling)
``--reps N``        repetitions of a simulation
``--seed N``        seed of every random choice (same seed, same output)
``--quiet``         no progress display
==================  ===================================================================

Older spellings (``--out``, ``--png``, ``--repeats``, ``-c/--counters``) are hidden aliases
that still work for one release and print a deprecation warning: :data:`OLD_SPELLINGS` lists
them once and :func:`add_old_spellings` gives them to every command that has the new option.
Old spellings that belong to one command only (``--plots``, ``--R``, ``--db``) are made there
with :func:`alias`.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

# counters per run: the PMUs hemkit targets have 2..8; 64 leaves room for software events
PMCS = click.IntRange(1, 64)
POSITIVE = click.IntRange(min=1)
SEED = click.IntRange(min=0)
LEVEL = click.FloatRange(0, 1, min_open=True, max_open=True)


class _Fraction(click.FloatRange):
    """A fraction in [0, 1), also written as a percent (``0.01`` or ``1%``): what a user types for a margin."""

    name = "fraction"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and value.strip().endswith("%"):
            try:
                share = float(value.strip()[:-1].strip()) / 100
            except ValueError:
                self.fail(f"{value!r} is not a fraction (0.01) or a percent (1%)", param, ctx)
            if share >= 1:
                self.fail(f"{share * 100:g}% is not below 100%", param, ctx)
            return super().convert(share, param, ctx)
        try:
            number: float | None = float(value)
        except (TypeError, ValueError):
            number = None
        if number is not None and 1 <= number < 100:  # a percent without its sign, most likely
            self.fail(
                f"{number:g} is not a fraction below 1 (for {number:g} % write {number / 100:g} or {number:g}%)",
                param,
                ctx,
            )
        return super().convert(value, param, ctx)


# a relative change that matters, as a fraction (0.01 = 1 %, as --level is one) or a percent ("1%")
MARGIN = _Fraction(0, 1, max_open=True)


def _defaults(default: Any) -> dict[str, Any]:
    # click >= 8.3 treats an explicit default=None as a value: required=True is then never checked
    return {} if default is None else {"default": default, "show_default": True}


class OutputPath(click.Path):
    """A file to write: ``-`` (by convention standard output) is refused, not written as a file named ``-``.

    ``check``: the name of the :mod:`hemkit.io.formats` function that checks the name too ('' for none).
    """

    check = ""  # imported when used: the CLI starts light

    def __init__(self, *, dir_okay: bool = False) -> None:
        super().__init__(dir_okay=dir_okay)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from hemkit.core.errors import OutputError
        from hemkit.io import formats

        if str(value) == "-":
            self.fail("'-': hemkit writes no output to standard output; name a file", param, ctx)
        try:
            if self.check:
                getattr(formats, self.check)(value)
        except OutputError as exc:
            self.fail(str(exc), param, ctx)
        return super().convert(value, param, ctx)


class FigurePath(OutputPath):
    """A figure file to write (its suffix gives the format): a suffix of no figure format is refused at once."""

    check = "check_figure_name"


class TablePath(OutputPath):
    """A table file to write (CSV or Parquet by suffix): a name of another format is refused at once."""

    check = "check_table_name"


class PagePath(OutputPath):
    """An HTML page to write (``hemkit report``): a name of another format (.pdf, .png, .csv ...) is refused at once."""

    check = "check_page_name"


class PlanPath(OutputPath):
    """A plan file to write (``hemkit plan``): a name of another format (.csv, .yaml, .db ...) is refused at once."""

    check = "check_plan_name"


def output_option(
    help: str = "Write the result here.",
    *,
    required: bool = False,
    default: str | None = None,
    table: bool = False,
    page: bool = False,
    plan: bool = False,
) -> Callable[[F], F]:
    """``-o/--output FILE``; a ``table`` (CSV or Parquet), ``page`` (HTML) or ``plan`` named for no other format."""
    kind = TablePath() if table else PagePath() if page else PlanPath() if plan else OutputPath()
    return click.option("-o", "--output", type=kind, required=required, help=help, **_defaults(default))


def plot_option(what: str = "", help: str = "Write the figure here (PNG, SVG or PDF by suffix).") -> Callable[[F], F]:
    """``--plot FILE`` or ``--plot-<what> FILE``."""
    name = f"--plot-{what}" if what else "--plot"
    return click.option(name, type=FigurePath(), help=help)


def pmcs_option(
    help: str = "Counters per run.",
    *,
    required: bool = False,
    default: int | tuple[int, ...] | None = None,
    multiple: bool = False,
) -> Callable[[F], F]:
    """``--pmcs N`` (counters per run)."""
    return click.option("--pmcs", type=PMCS, required=required, multiple=multiple, help=help, **_defaults(default))


def runs_option(
    help: str = "Executions of the measured program.", *, default: int | None = None, minimum: int = 1
) -> Callable[[F], F]:
    """``--runs N`` (executions of a measured program; at least ``minimum``)."""
    kind = POSITIVE if minimum == 1 else click.IntRange(min=minimum)
    return click.option("--runs", type=kind, help=help, **_defaults(default))


def reps_option(help: str = "Simulation repetitions.", *, default: int | None = None) -> Callable[[F], F]:
    """``--reps N`` (simulation repetitions)."""
    return click.option("--reps", type=POSITIVE, help=help, **_defaults(default))


def seed_option(default: int = 0) -> Callable[[F], F]:
    """``--seed N``: a non-negative integer."""
    return click.option(
        "--seed",
        type=SEED,
        default=default,
        show_default=True,
        help="Seed of every random choice (same seed, same output).",
    )


def hosts_margin_option() -> Callable[[F], F]:
    """``--hosts-margin FRACTION``: the machines check's margin (not given: ``hemkit.compare.HOSTS_MARGIN``)."""
    return click.option(
        "--hosts-margin",
        type=MARGIN,
        default=None,
        metavar="FRACTION",
        help="The difference between hosts that counts in the check that they read alike (0.01 or 1%; "
        "default 0.005; 0: any the runs can see).",
    )


def cluster_option(what: str = "Run the work as Dask tasks") -> Callable[[F], F]:
    """``--cluster ADDRESS|local:N``: a running Dask scheduler, or N worker processes started here."""
    return click.option(
        "--cluster",
        metavar="ADDRESS|local:N",
        help=f"{what} on a Dask cluster: a running scheduler's address (tcp://node0:8786) "
        "or local:N (N worker processes on this machine); needs pip install 'hemkit[cluster]'.",
    )


def quiet_option(*, shows_none: bool = False) -> Callable[[F], F]:
    """``-q/--quiet``: no progress display.

    Every command takes it, so that a script can pass ``-q`` to any; ``shows_none``: the command
    has no progress display to hide (its help says so).
    """
    text = "No progress display (this command shows none)." if shows_none else "No progress display."
    return click.option("-q", "--quiet", is_flag=True, help=text)


class AliasOption(click.Option):
    """A hidden, deprecated spelling of another option (see :func:`alias`).

    It is eager, so it is read before every other option: given on the command line, it
    warns once and hands its raw value to the new option as if that had been given (unless
    it was given too), so the new option converts, checks and requires it as usual.
    """

    def __init__(self, *args: Any, dest: str = "", new: str = "", **kwargs: Any):
        kwargs.update(hidden=True, expose_value=not dest, is_eager=True)
        super().__init__(*args, **kwargs)
        self.dest, self.new = dest, new

    def handle_parse_result(self, ctx: click.Context, opts: Any, args: list[str]) -> tuple[Any, list[str]]:
        """When given on the command line: warn once and hand the value to the new option's parameter."""
        if self.name in opts:
            click.echo(f"hemkit: warning: {self.opts[0]} is deprecated; use {self.new}", err=True)
            self.hand_over(opts, opts[self.name])
        return super().handle_parse_result(ctx, opts, args)

    def hand_over(self, opts: dict[str, Any], raw: Any) -> None:
        """Give the raw command-line value to the new option (a repeatable one gets the values of both)."""
        if not self.dest:
            return
        if self.dest not in opts:
            opts[self.dest] = raw
        elif isinstance(opts[self.dest], list) and isinstance(raw, list):
            opts[self.dest] = opts[self.dest] + raw


def alias(old: str, dest: str, new: str, *, separate: bool = False, **kwargs: Any) -> Callable[[F], F]:
    """A hidden, deprecated spelling ``old`` of the option whose parameter is ``dest``.

    When ``old`` is given, its value lands in ``dest`` (it wins over the new option's
    default) and one line ``hemkit: warning: OLD is deprecated; use NEW`` goes to stderr.
    (click's own ``deprecated=`` would also warn for the new spelling sharing ``dest``.)
    With ``separate=True`` the old option keeps its own parameter ``dest`` (for an old
    spelling whose meaning differs, e.g. a folder of figures), still hidden and warned about.
    """
    if separate:
        return click.option(old, dest, cls=AliasOption, new=new, **kwargs)
    name = "alias_" + old.lstrip("-").replace("-", "_")
    return click.option(old, name, cls=AliasOption, dest=dest, new=new, **kwargs)


INPUTS_HELP = (
    "INPUT is one or several readings: a tidy group,run,event,value table (CSV or Parquet), a mergingTools "
    "raw CSV (with --pmcs), 'hemkit collect' databases (several of one plan and command, or a folder of "
    "them, are one set of readings), perf stat -x, or -j files, or folders of them (one run per file)."
)


#: old spelling -> the options it stands for, by long name (the first one a command has)
OLD_SPELLINGS: dict[str, tuple[str, ...]] = {
    "--out": ("--output",),
    "--png": ("--plot",),
    "--repeats": ("--runs", "--reps"),
    "--counters": ("--pmcs",),
    "-c": ("--pmcs",),
}

C = TypeVar("C", bound=click.Command)


def add_old_spellings(command: C) -> C:
    """Give ``command`` (and each subcommand of a group) every :data:`OLD_SPELLINGS` alias of an option it has.

    An old spelling a command already defines (its own alias, or an option of that name) is left alone.
    """
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_old_spellings(sub)
        return command
    taken = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    shown = [p for p in command.params if isinstance(p, click.Option) and not p.hidden]
    for old, news in OLD_SPELLINGS.items():
        target = next((p for new in news for p in shown if new in p.opts), None)
        if old in taken or target is None or target.name is None:
            continue
        name = "alias_" + old.lstrip("-").replace("-", "_")
        new = "/".join(sorted(target.opts, key=len))
        command.params.append(
            AliasOption(
                [old, name],
                dest=target.name,
                new=new,
                type=target.type,
                multiple=target.multiple,
                nargs=target.nargs,
                metavar=target.metavar,
            )
        )
        taken.add(old)
    return command


#: where ``--allow-mixed-machines`` is kept for :func:`read_options` (in the click context's ``meta``)
_MIXED = "hemkit.allow_mixed_machines"


def _keep_mixed(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.meta[_MIXED] = bool(value)
    return value


#: where ``--unusable`` is kept for :func:`read_options`
_UNUSABLE = "hemkit.unusable"


def _keep_unusable(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        ctx.meta[_UNUSABLE] = value
    return value


#: where ``--host`` is kept for :func:`read_options`
_HOST = "hemkit.host"


def _keep_host(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    if value:
        ctx.meta[_HOST] = tuple(value)
    return value


def read_options() -> dict[str, Any]:
    """The reading options every command takes without naming them in its signature.

    ``--allow-mixed-machines``, ``--unusable`` and ``--host``; spread into
    :func:`hemkit.io.read_readings` by every command that reads readings (``host`` only when given).
    """
    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    out: dict[str, Any] = {"allow_mixed_machines": bool(meta.get(_MIXED, False))}
    if meta.get(_HOST):
        out["host"] = meta[_HOST]
    if meta.get(_UNUSABLE):
        from hemkit.io import PerfOptions

        out["perf"] = PerfOptions(unusable=meta[_UNUSABLE])
    return out


HOST_HELP = (
    "Read only the runs measured on this host (repeat for several). Collection databases store each run's host; "
    "perf stat files and tables name none, and are refused with --host."
)


def reading_trust_options(f: F) -> F:
    """``--allow-mixed-machines``, ``--unusable``, ``--host``: which runs to read, what to do with untrusted ones.

    Part of :func:`readings_input_options`; alone on a command that reads readings with no other
    input option (``evaluate study --truth``).  :func:`read_options` returns them.
    """
    f = click.option(
        "--host",
        "host",
        multiple=True,
        metavar="NAME",
        expose_value=False,
        callback=_keep_host,
        help=HOST_HELP,
    )(f)
    f = click.option(
        "--allow-mixed-machines",
        is_flag=True,
        expose_value=False,
        callback=_keep_mixed,
        help="Read collection databases measured on machines of different CPU models or kernels as one "
        "(else an error naming them).",
    )(f)
    f = click.option(
        "--unusable",
        type=click.Choice(["refuse", "drop"]),
        expose_value=False,
        callback=_keep_unusable,
        help="perf stat files: a reading that cannot be trusted (<not counted>, multiplexed, >= 2^47, a run that "
        "moved between core types) is an error naming it, or its run is dropped with a warning "
        "(<not supported>: its event)  [default: refuse]",
    )(f)
    return f


def readings_input_options(f: F) -> F:
    """The input options of every command that reads readings (see :func:`hemkit.io.read_readings`)."""
    f = reading_trust_options(f)
    f = click.option(
        "--drop-constant",
        is_flag=True,
        # 'a merge refuses them' was untrue of the report, whose merge section leaves them out and says so
        help="Drop events constant within a group when reading (else they are kept as read; no merge can use them, "
        "and each command that merges names them).",
    )(f)
    f = click.option(
        "--codes",
        type=click.Path(dir_okay=False),
        help="hems,code table naming the event codes of a mergingTools raw file (with --pmcs).",
    )(f)
    f = click.option(
        "--pmcs", type=PMCS, help="INPUT is a mergingTools raw file with this many counters (columns) per group."
    )(f)
    return f


def readings_inputs(*, required: bool = False, name: str = "inputs") -> Callable[[F], F]:
    """The reading door of every command that reads readings: ``INPUT...`` and :func:`readings_input_options`.

    INPUT is any number of files or folders (``required``: at least one); the command
    reads them with :func:`read_inputs`, so files, folders of perf stat files, several
    files and several collection databases work the same everywhere, with ``--pmcs``,
    ``--codes`` and ``--drop-constant``; the command's help ends with ``INPUTS_HELP``.
    """

    def decorate(f: F) -> F:
        f = readings_input_options(f)
        if f.__doc__ and INPUTS_HELP not in f.__doc__:  # click.command, applied after, reads the docstring
            f.__doc__ = f"{inspect.cleandoc(f.__doc__)}\n\n{INPUTS_HELP}"
        return click.argument(
            name,
            nargs=-1,
            required=required,
            metavar="INPUT..." if required else "[INPUT]...",
            type=click.Path(dir_okay=True),
        )(f)

    return decorate


def check_input_options(pmcs: int | None, codes: str | None) -> None:
    """``--codes`` needs ``--pmcs``: codes name the columns of a mergingTools raw file, which only ``--pmcs`` reads."""
    if codes is not None and pmcs is None:
        raise click.BadParameter("needs --pmcs (it names the codes of a mergingTools raw file)", param_hint="'--codes'")


def read_inputs(
    inputs: Sequence[str], *, pmcs: int | None = None, codes: str | None = None, drop_constant: bool = False
) -> Any:
    """The readings of a command's INPUTs (see :func:`readings_inputs`) through :func:`hemkit.io.read_readings`.

    ``--codes`` without ``--pmcs`` is a usage error naming ``--codes`` (:func:`check_input_options`).
    """
    from hemkit.io import read_readings

    check_input_options(pmcs, codes)
    return read_readings(list(inputs), pmcs=pmcs, codes=codes, drop_constant=drop_constant, **read_options())


def distinct_outputs(**paths: str | None) -> None:
    """Refuse one file given for two outputs of a command (``-o x.csv --pairs x.csv``), naming both."""
    import os

    from hemkit.core.errors import OutputError

    seen: dict[str, str] = {}
    for name, p in paths.items():
        if not p:
            continue
        key = os.path.realpath(p)
        if key in seen:
            raise OutputError(f"{p}: given for both {_flag(seen[key])} and {_flag(name)}; give two different files")
        seen[key] = name


def _flag(name: str) -> str:
    """The running command's option for parameter ``name`` (``-o/--output``), else ``name`` itself."""
    ctx = click.get_current_context(silent=True)
    for p in ctx.command.params if ctx is not None else ():
        if isinstance(p, click.Option) and p.name == name.replace("-", "_") and not p.hidden:
            return "/".join(sorted(p.opts, key=len))
    return name


@contextmanager
def naming_input(paths: Sequence[Any]) -> Iterator[None]:
    """An :class:`hemkit.core.errors.InputError` raised inside names the input ``paths`` (the files at fault)."""
    from hemkit.core.errors import InputError

    where = ", ".join(map(str, paths))
    try:
        yield
    except InputError as exc:
        text = str(exc)
        raise InputError(text if text.startswith(where) else f"{where}: {text}") from None


def given(name: str, ctx: click.Context | None = None) -> bool:
    """Whether option ``name`` (its parameter name) was given on the command line, not left at its default."""
    ctx = ctx if ctx is not None else click.get_current_context()
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


@contextmanager
def warnings_to_stderr(messages: list[str] | None = None) -> Iterator[None]:
    """Show every :class:`hemkit.HemkitWarning` raised inside as one line ``hemkit: warning: ...`` on stderr.

    Each text is shown once; with ``messages``, the texts are also kept there (and one already
    in it is not shown again), for the command's summary line.
    """
    from hemkit.cli._render import render_warning
    from hemkit.core.errors import HemkitWarning

    seen = messages if messages is not None else []
    ctx = click.get_current_context(silent=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HemkitWarning)
        try:
            yield
        finally:
            for w in caught:
                text = render_warning(w.message, ctx.command if ctx is not None else None)
                if issubclass(w.category, HemkitWarning) and text not in seen:
                    seen.append(text)
                    click.echo(f"hemkit: warning: {text}", err=True)


def show_row(
    label: str, row: dict[str, Any], title: str = "", *, index: str = "", float_format: str = "{:.4g}"
) -> None:
    """Print one labelled row of numbers (a result's ``row()``) as :func:`show_table` prints a one-row summary.

    Needs no pandas: a command that shows only this (``hemkit merge``) never imports it.
    """
    import math
    import numbers
    import sys

    def cell(v: Any) -> str:
        if isinstance(v, numbers.Integral) and not isinstance(v, bool):
            return f" {v}"  # pandas keeps a place for the sign of integers
        if isinstance(v, numbers.Real) and not isinstance(v, bool):
            return "NaN" if math.isnan(v) else float_format.format(v)
        return str(v)

    if sys.stdout.isatty():  # as show_table's rich table formats a frame's cells
        rich = [float_format.format(v) if isinstance(v, float) else str(v) for v in row.values()]
        _rich_table(title, index, list(row), [(label, rich)])
        return
    cells = [cell(v) for v in row.values()]
    # pandas' plain layout (DataFrame.to_string): numeric column names led by a space, columns
    # one space apart, the index name on a line of its own
    numeric = [isinstance(v, numbers.Real) and not isinstance(v, bool) for v in row.values()]
    heads = [(" " if num else "") + str(c) for c, num in zip(row, numeric)]
    widths = [max(len(h), len(v)) for h, v in zip(heads, cells)]
    lead = max(len(index), len(label))
    if title:
        click.echo(title)
    click.echo(" " * lead + "".join(" " + h.rjust(w) for h, w in zip(heads, widths)))
    if index:
        click.echo(index.ljust(lead + sum(w + 1 for w in widths)))
    click.echo(label.ljust(lead) + "".join(" " + v.rjust(w) for v, w in zip(cells, widths)))


def show_table(frame: Any, title: str = "", *, float_format: str = "{:.4g}") -> None:
    """Print a DataFrame on stdout: a rich table on a terminal, plain full-width text otherwise.

    (Piped or captured output must not be cut to the terminal's width.)
    """
    import sys

    if not sys.stdout.isatty():
        if title:
            click.echo(title)
        click.echo(frame.to_string(float_format=lambda v: float_format.format(v)))
        return
    index_name = frame.index.name if frame.index.name is not None else ""
    rows = [
        (str(idx), [float_format.format(v) if isinstance(v, float) else str(v) for v in row])
        for idx, row in frame.iterrows()
    ]
    _rich_table(title, str(index_name), list(frame.columns), rows)


def show_rows(
    rows: list[tuple[str, list[Any]]], columns: list[str], index: str, title: str = "", *, float_format: str = "{:.4g}"
) -> None:
    """Print a table given as ``(label, cells)`` rows, without pandas (as :func:`show_table` prints a DataFrame).

    For a command whose table is all it shows and whose time is counted (``compare``: no
    pandas import for the table alone).  Floats are formatted with ``float_format``.
    """
    import sys

    text = [(label, [float_format.format(v) if isinstance(v, float) else str(v) for v in row]) for label, row in rows]
    if sys.stdout.isatty():
        _rich_table(title, index, columns, text)
        return
    if title:
        click.echo(title)
    width0 = max([len(index)] + [len(label) for label, _ in text])
    widths = [max([len(c)] + [len(cells[j]) for _, cells in text]) for j, c in enumerate(columns)]
    click.echo("  ".join([index.ljust(width0)] + [c.rjust(w) for c, w in zip(columns, widths)]).rstrip())
    for label, cells in text:
        click.echo("  ".join([label.ljust(width0)] + [v.rjust(w) for v, w in zip(cells, widths)]).rstrip())


def _rich_table(title: str, index: str, columns: list, rows: list[tuple[str, list[str]]]) -> None:
    """A table on the terminal (rich): the index left, every column right-aligned."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title or None)
    table.add_column(index)
    for c in columns:
        table.add_column(str(c), justify="right")
    for label, cells in rows:
        table.add_row(label, *cells)
    Console().print(table)


def wrote(paths: Iterable[Any]) -> str:
    """``; wrote a.csv, b.png``: the part of a command's one summary line naming the files it wrote ("" for none).

    Every command names each file it wrote once, in the line that ends it, never on a line of its own.

    Examples
    --------
    >>> wrote(["r.json", "fig.png"]), wrote([])
    ('; wrote r.json, fig.png', '')
    """
    names = [str(p) for p in paths if p]
    return f"; wrote {', '.join(names)}" if names else ""
