"""``hemkit probe``, ``hemkit collect`` and ``hemkit export``: counter probe, resumable collection, tidy export.

Each command parses, checks its outputs, calls one library function (:func:`hemkit.collect.probe`,
:func:`hemkit.collect.collect`, :func:`hemkit.collect.export`) and ends with one line saying what
was read, added and written.  Exit codes: 0 done, 2 a user error (one line on stderr), 130
interrupted by Ctrl-C or SIGTERM (``collect`` keeps what it stored and prints how to continue).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from hemkit.cli._options import (
    POSITIVE,
    alias,
    check_input_options,
    hosts_margin_option,
    output_option,
    quiet_option,
    read_options,
    readings_inputs,
    runs_option,
    show_table,
    warnings_to_stderr,
)
from hemkit.core.errors import HemkitError, InputError, MeasurementError

_WORKLOAD_HELP = "Bundled microbenchmark OP:LEVEL:ITERS[:JITTER] (e.g. iadd:L3:2000000:0.5) instead of COMMAND."
#: a CPU of this machine (the library also checks the CPUs hemkit may use)
PIN = click.IntRange(0, max((os.cpu_count() or 1) - 1, 0))
TIMEOUT = click.FloatRange(min=0, min_open=True, max=1e9)
TOL = click.FloatRange(min=0, max=1e6)


def _shard(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    from hemkit.collect.collector import parse_shard

    try:
        return parse_shard(value)
    except InputError as exc:
        raise click.BadParameter(str(exc).removeprefix("shard "), param_hint="'--shard'") from None


def _command(command: tuple[str, ...], workload: str | None) -> list[str]:
    from hemkit.collect import ubench_command

    if workload and command:
        raise click.UsageError("give either --workload or a COMMAND after --, not both")
    if workload:
        parts = workload.split(":")
        if len(parts) not in (3, 4):
            raise click.BadParameter(f"{workload!r}: expected OP:LEVEL:ITERS[:JITTER]", param_hint="'--workload'")
        try:
            iters = int(parts[2])
            jitter = float(parts[3]) if len(parts) == 4 else 0.0
        except ValueError:
            raise click.BadParameter(
                f"{workload!r}: ITERS must be an integer and JITTER a number", param_hint="'--workload'"
            ) from None
        try:
            return ubench_command(parts[0], parts[1], iters, jitter=jitter)
        except InputError as exc:
            raise click.BadParameter(f"{workload!r}: {exc}", param_hint="'--workload'") from None
    if not command:
        raise click.UsageError("no command to measure: give it after -- (or use --workload)")
    return list(command)


class _DashDash(click.Command):
    """A command whose arguments after ``--`` are the measured program, untouched by click."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            i = args.index("--")
            ctx.meta["hemkit_command"] = args[i + 1 :]
            self._warn_misplaced(ctx, args[i + 1 :])
            args = args[:i]
            return super().parse_args(ctx, args)
        # no --: words left over are a command given without it ('hemkit collect plan.toml ./prog 1000'),
        # which click would call 'Got unexpected extra arguments (./prog 1000)'
        ctx.allow_extra_args = True
        try:
            rest = super().parse_args(ctx, args)
        except click.NoSuchOption as exc:  # 'hemkit collect plan.toml sort -n data': the program's option
            if exc.possibilities:  # a typo of one of ours: click names it
                raise
            hint = f"No such option {exc.option_name!r}; if it is the measured program's, give the command after --"
            raise click.NoSuchOption(exc.option_name, hint, ctx=exc.ctx) from None
        if ctx.args:
            extra = shlex.join(ctx.args)
            raise click.UsageError(
                f"unexpected argument(s) {extra}: the command to measure goes after --, as in "
                f"'{ctx.command_path} [OPTIONS] {self._usage_args()}-- {extra}'",
                ctx,
            )
        return rest

    def _warn_misplaced(self, ctx: click.Context, command: list[str]) -> None:
        """Say so when the command's arguments hold a long option of this command (``-- ./prog 1000 --runs 3``).

        It goes to the program, as after -- it must, but the program most likely ignores it and the
        collection runs with the default instead (50 runs a group where 3 were meant).  Short options
        (``sort -o out``, ``-n``) are the programs' own too often to be worth a word.
        """
        ours = {o for p in self.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)}
        found = [w for w in command[1:] if w.startswith("--") and w.split("=", 1)[0] in ours]
        if found and not getattr(ctx, "resilient_parsing", False):
            names = list(dict.fromkeys(w.split("=", 1)[0] for w in found))
            one = len(names) == 1
            what = f"{names[0]} after -- is an argument" if one else f"{', '.join(names)} after -- are arguments"
            click.echo(
                f"hemkit: warning: {what} of {command[0]}, not {'an option' if one else 'options'} of "
                f"hemkit {ctx.info_name}, whose options go before --",
                err=True,
            )

    def _usage_args(self) -> str:
        """The positional arguments as the usage line names them (``PLAN_FILE `` for collect)."""
        names = [p.human_readable_name.upper() for p in self.params if isinstance(p, click.Argument)]
        return "".join(f"{n} " for n in names)


def _given_command() -> tuple[str, ...]:
    return tuple(click.get_current_context().meta.get("hemkit_command", ()))


@click.command("probe", cls=_DashDash)
@click.argument("events", nargs=-1, required=True)
@click.option("--workload", help=_WORKLOAD_HELP)
@runs_option(help="Runs per measurement (medians are compared).", default=3)
@click.option("--tol", type=TOL, default=0.3, show_default=True, help="Accepted in-group vs alone difference.")
@click.option("--pin", type=PIN, help="CPU to run on.")
@click.option("--timeout", type=TIMEOUT, help="Seconds per run before it is killed.")
@click.option("--allow-failure", is_flag=True, help="Accept runs whose program exits non-zero or is killed.")
@quiet_option()
def probe(events, workload, runs, tol, pin, timeout, allow_failure, quiet):
    """Find which EVENTS count here and how many hardware events count correctly at once.

    \b
    hemkit probe cycles instructions branches ... -- COMMAND ARGS...
    hemkit probe cycles instructions ... --workload iadd:L2:20000000

    Each event is measured alone, then hardware events in growing groups; an event whose
    count in the group differs from its count alone marks the end of the budget.
    """
    from hemkit.cli.plan import split_events
    from hemkit.collect import ProbeOptions
    from hemkit.collect import probe as run_probe

    command = _command(_given_command(), workload)
    options = ProbeOptions(tol=tol, pin=pin, timeout=timeout, allow_failure=allow_failure)
    with warnings_to_stderr():
        res = run_probe(split_events(events), command, runs=runs, options=options, progress=not quiet)
    show_table(res.summary(), "hemkit probe")
    if len(res.steps):
        show_table(res.steps.set_index("size"), "growing groups")
    click.echo(res.line())


def _resume_hint(plan_file: str, db: str, default_db: str, cluster: str | None = None) -> str:
    hint = f"hemkit collect {shlex.quote(plan_file)}"
    if os.path.abspath(db) != os.path.abspath(default_db):
        hint += f" -o {shlex.quote(db)}"
    if cluster:
        hint += f" --cluster {shlex.quote(cluster)}"
    return hint


def _interrupted(db: str, hint: str, result: Any = None) -> None:
    """Say what was kept and how to continue; exit 130."""
    if not Path(db).exists():
        click.echo("hemkit: interrupted: nothing was stored; run the same command again to start", err=True)
        sys.exit(130)
    if result is not None:
        click.echo(result.line())
        kept = f"{result.valid} of {result.wanted} runs are stored in {db}"
    else:
        kept = f"the runs stored so far stay in {db}"
    click.echo(f"hemkit: interrupted: {kept}; continue with: {hint}", err=True)
    sys.exit(130)


@click.command("collect", cls=_DashDash)
@click.argument("plan_file", required=False, type=click.Path(dir_okay=False))
@runs_option(help="Valid runs wanted per group [default: the stored target, or 50 for a new collection].")
@output_option(help="The collection database [default: PLAN_FILE with .db].")
@alias("--db", "output", "-o/--output", type=click.Path(dir_okay=False))
@click.option("--workload", help=_WORKLOAD_HELP)
@click.option("--pin", type=PIN, help="CPU to run the command on (the co-runner takes the next one).")
@click.option("--corunner", help="Background program for interference ('bundled' = hemkit's co-runner).")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), help="perf's output format [default: csv].")
@click.option("--max-attempts", type=POSITIVE, default=5, show_default=True, help="Invalid runs in a row to stop at.")
@click.option("--timeout", type=TIMEOUT, help="Seconds per run before it is killed.")
@click.option(
    "--allow-failure", is_flag=True, help="Keep runs whose program exits non-zero or is killed (measured on purpose)."
)
@click.option(
    "--cluster",
    metavar="ADDRESS|local:N",
    help="Measure on the workers of a Dask scheduler (tcp://node0:8786), or of N worker processes here.",
)
@click.option(
    "--shard",
    metavar="K/N",
    callback=_shard,
    help="Collect only part K of N of the plan's runs (e.g. one job of a Slurm array, -o part_K.db); "
    "the N databases read together are the whole collection.",
)
@click.option(
    "--allow-other-folder",
    is_flag=True,
    help="Continue a collection from a folder other than the one it was made in (the command runs here).",
)
@click.option("--status", "status_db", type=click.Path(dir_okay=False), help="Report progress of DB and exit.")
@hosts_margin_option()
@alias("--export", "export_to", "'hemkit export DB -o OUT'", separate=True, nargs=2, type=click.Path())
@quiet_option()
def collect(
    plan_file,
    runs,
    output,
    workload,
    pin,
    corunner,
    fmt,
    max_attempts,
    timeout,
    allow_failure,
    cluster,
    shard,
    allow_other_folder,
    status_db,
    hosts_margin,
    export_to,
    quiet,
):
    """Collect --runs valid perf runs of every group of PLAN_FILE into an SQLite database.

    \b
    hemkit collect PLAN --runs N [--pin CPU] [--corunner CMD] -- COMMAND ARGS...
    hemkit collect PLAN --runs N --workload iadd:L3:3000000:0.5
    hemkit collect PLAN --runs N --cluster tcp://node0:8786 -- COMMAND ARGS...
    hemkit collect PLAN            (continue, in the same folder: the stored command, pin and co-runner apply)
    hemkit collect PLAN --runs N --shard 2/4 -o part_2.db -- COMMAND   (part 2 of 4)
    hemkit collect --status PLAN.db

    Runs are interleaved round-robin over the groups, validated (not counted, multiplexed,
    implausible counts are kept as invalid and re-run; unsupported events stop the
    collection) and committed one by one, so a killed collection loses nothing.  A program
    that exits non-zero or is killed stops the collection (unless --allow-failure).
    The database stores the folder the command runs in: continuing it from another
    folder is refused (unless --allow-other-folder), since 'sort data.txt' there would
    measure another file.
    With --cluster, Dask workers (one thread each) measure the runs with this environment
    and folder, and this process stores them (no --corunner then).  Ctrl-C
    stops after the current run (twice: at once; on a cluster it cancels the runs in flight)
    and prints how to continue; exit code 130.
    """
    if status_db:
        _only_with_status(click.get_current_context())
        return _show_status(status_db, hosts_margin)
    if hosts_margin is not None:
        raise click.UsageError("--hosts-margin is the margin of --status's machines check; give it with --status DB")
    if export_to:
        return _export(export_to[0], export_to[1])
    from hemkit.collect import CollectionInterrupted, CollectOptions, corunner_command
    from hemkit.collect import collect as run_collect
    from hemkit.external.perf import UnknownEventsError
    from hemkit.io.collection import check_database_output
    from hemkit.plan import Plan

    if not plan_file:
        raise click.UsageError("no plan file given (make one with 'hemkit plan ... -o plan.toml')")
    default_db = str(Path(plan_file).with_suffix(".db"))
    db = output or default_db
    hint = _resume_hint(plan_file, db, default_db, cluster)
    try:
        plan = Plan.from_file(plan_file)
        check_database_output(db, inputs=[plan_file])
        given = _given_command()
        command = _command(given, workload) if given or workload or not Path(db).exists() else None
        if corunner == "bundled":
            corunner = corunner_command()
        options = CollectOptions(
            pin=pin,
            corunner=corunner,
            fmt=fmt,
            max_attempts=max_attempts,
            timeout=timeout,
            allow_failure=allow_failure,
            cluster=cluster,
            shard=shard,
            allow_other_folder=allow_other_folder,
        )
        with warnings_to_stderr():
            res = run_collect(plan, command, db, runs=runs, options=options, progress=not quiet)
    except CollectionInterrupted as exc:
        _interrupted(db, hint, exc.result)
    except KeyboardInterrupt:
        _interrupted(db, hint)
    except UnknownEventsError as exc:  # events of the plan: the plan file is what to fix
        raise exc.reworded(f"{plan_file}: {exc.message}") from None
    except MeasurementError as exc:
        if not Path(db).exists():  # made by this call and holding no valid run: removed, nothing to continue
            raise exc.reworded(f"{exc.message} (no valid run was stored, so {db} was not kept)") from None
        raise exc.reworded(f"{exc.message} (the runs stored so far stay in {db}; continue with: {hint})") from None
    except HemkitError as exc:
        if "no space left" in str(exc) and Path(db).exists():
            raise type(exc)(f"{exc}; the runs stored so far stay; free space and continue with: {hint}") from None
        raise
    if res.resumed:
        click.echo(f"continued {db}: {shlex.join(res.command)} (in {res.settings.get('folder')})")
    click.echo(res.line())
    if res.per_worker:
        click.echo("runs per worker: " + ", ".join(f"{w} {n}" for w, n in sorted(res.per_worker.items())))


def _only_with_status(ctx: click.Context) -> None:
    """``--status`` only reads the database: a plan, a command or another option given with it would do nothing."""
    from click.core import ParameterSource

    given = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    for p in ctx.command.params:
        if (
            p.name in ("status_db", "quiet", "hosts_margin")
            or p.name is None
            or ctx.get_parameter_source(p.name) not in given
        ):
            continue
        if isinstance(p, click.Argument):
            what = p.human_readable_name
        else:  # the long spelling; an old one (hidden) as typed
            what = min(p.opts, key=len) if getattr(p, "hidden", False) else max(p.opts, key=len)
        raise click.UsageError(f"{what} does nothing with --status, which only reads the database; leave it out")
    if _given_command():
        raise click.UsageError(
            "a command after -- does nothing with --status, which only reads the database; leave it out"
        )


def _show_status(db: str, hosts_margin: float | None = None) -> None:
    """Runs per group, runs per host and the events whose readings differ by host: all read at one moment."""
    from hemkit.compare.machines import HOSTS_MARGIN, collection_check

    margin = HOSTS_MARGIN if hosts_margin is None else hosts_margin
    with warnings_to_stderr():  # a database changed outside hemkit is refused (collect refuses it too)
        res = collection_check(db, margin=margin)
    where = f"in {res.folder}" if res.folder else "its folder not stored (made by an older hemkit)"
    show_table(res.groups.set_index("group"), f"{db}: {shlex.join(res.command)} ({where})")
    if res.not_checked:
        click.echo(f"{db}: machines not checked: {res.not_checked}")
    check = res.machines
    if check is not None:
        show_table(check.runs_per_host(), "runs per host")
        flagged = check.to_frame().query("differs")
        if len(flagged):
            cols = ["event", "host", "against", "ratio", "lower", "upper", "q_value", "moved_by"]
            show_table(flagged[cols].set_index("event"), "events whose readings differ by host")
        click.echo(check.line())
    click.echo(res.line())


def _export(source: str | list[str], output: str, **options: Any) -> None:
    from hemkit.collect import export as run_export

    with warnings_to_stderr():
        res = run_export(source, output, **options)
    click.echo(res.line())


@click.command("export")
@readings_inputs(required=True)
@output_option(help="The tidy file to write: .parquet/.pq for Parquet, else CSV.", required=True, table=True)
@quiet_option(shows_none=True)
def export(inputs, output, pmcs, codes, drop_constant, quiet):
    """Write readings INPUT (collection databases, perf stat files or folders, a table) as one tidy file.

    CSV, or Parquet for a .parquet/.pq name.

    \b
    hemkit export collection.db -o readings.csv
    hemkit export monday.db tuesday.db -o readings.csv     (one plan and command)
    hemkit export runs/ -o readings.parquet                (a folder of perf stat files)
    hemkit export raw.csv --pmcs 6 --codes code2name.csv -o readings.parquet --drop-constant

    The file has the columns group, run, event, value; it is written only if INPUT reads
    cleanly (no holes, no NaN). Events constant within a group are written as read, unless
    --drop-constant. Collection databases are written with every run stored, however few (an
    unfinished collection); other inputs need 3 runs a group.
    """
    check_input_options(pmcs, codes)
    _export(list(inputs), output, pmcs=pmcs, codes=codes, drop_constant=drop_constant, **read_options())


__all__ = ["collect", "export", "probe"]
