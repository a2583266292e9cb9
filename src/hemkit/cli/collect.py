"""``hemkit probe`` and ``hemkit collect``: counter probe and resumable, validated collection."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from hemkit.errors import HemkitError

_WORKLOAD_HELP = "Bundled microbenchmark OP:LEVEL:ITERS[:JITTER] (e.g. iadd:L3:2000000:0.5) instead of COMMAND."


def _command(command: tuple[str, ...], workload: str | None) -> list[str]:
    from hemkit.collect import ubench_command

    if workload and command:
        raise HemkitError("give either --workload or a COMMAND after --, not both")
    if workload:
        parts = workload.split(":")
        if len(parts) not in (3, 4):
            raise HemkitError(f"--workload {workload!r}: expected OP:LEVEL:ITERS[:JITTER]")
        try:
            iters = int(parts[2])
            jitter = float(parts[3]) if len(parts) == 4 else 0.0
        except ValueError:
            raise HemkitError(f"--workload {workload!r}: ITERS must be an integer and JITTER a number") from None
        return ubench_command(parts[0], parts[1], iters, jitter=jitter)
    if not command:
        raise HemkitError("no command to measure: give it after -- (or use --workload)")
    return list(command)


class _DashDash(click.Command):
    """A command whose arguments after ``--`` are the measured program, untouched by click."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            i = args.index("--")
            ctx.meta["hemkit_command"] = args[i + 1 :]
            args = args[:i]
        return super().parse_args(ctx, args)


def _status_table(df, title: str) -> Table:
    t = Table(title=title)
    for c in df.columns:
        t.add_column(str(c), justify="right" if c not in ("last_invalid_reason",) else "left")
    for row in df.itertuples(index=False):
        t.add_row(*[str(x) for x in row])
    return t


@click.command("probe", cls=_DashDash)
@click.argument("events", nargs=-1, required=True)
@click.option("--workload", help=_WORKLOAD_HELP)
@click.option("--repeats", type=int, default=3, show_default=True, help="Runs per measurement.")
@click.option("--tol", type=float, default=0.3, show_default=True, help="Accepted in-group vs alone difference.")
@click.option("--pin", type=int, help="CPU to run on.")
def probe(events, workload, repeats, tol, pin):
    """Find which EVENTS count here and how many hardware events count correctly at once.

    \b
    hemkit probe cycles instructions branches ... -- COMMAND ARGS...
    hemkit probe cycles instructions ... --workload iadd:L2:20000000

    Each event is measured alone, then hardware events in growing groups; an event whose
    count in the group differs from its count alone marks the end of the budget.
    """
    from hemkit.collect import probe as run_probe

    events = list(events)
    command = tuple(click.get_current_context().meta.get("hemkit_command", ()))
    if not events:
        raise HemkitError("no events to probe")
    res = run_probe(events, _command(command, workload), repeats=repeats, tol=tol, cpu=pin)
    console = Console()
    t = Table(title="hemkit probe")
    for c in ("event", "kind", "alone (median)", "cv", "verdict"):
        t.add_column(c)
    for r in res.events.itertuples():
        t.add_row(r.event, r.kind, f"{r.alone:.4g}", f"{r.cv:.2%}", r.verdict)
    console.print(t)
    if len(res.steps):
        s = Table(title="growing groups")
        for c in ("size", "added", "ok", "note"):
            s.add_column(c)
        for r in res.steps.itertuples():
            s.add_row(str(r.size), r.added, "yes" if r.ok else "no", r.note)
        console.print(s)
    console.print(res.note)


@click.command("collect", cls=_DashDash)
@click.argument("plan_file", required=False, type=click.Path(dir_okay=False))
@click.option("--runs", type=int, default=50, show_default=True, help="Valid runs wanted per group.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Collection database (default PLAN.db).")
@click.option("--workload", help=_WORKLOAD_HELP)
@click.option("--pin", type=int, help="CPU to run the command on (the co-runner takes the next one).")
@click.option("--corunner", help="Background program for interference ('bundled' = hemkit's co-runner).")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("--max-attempts", type=int, default=5, show_default=True, help="Invalid runs in a row before stopping.")
@click.option("--timeout", type=float, help="Seconds per run before it is killed.")
@click.option("--status", "status_db", type=click.Path(dir_okay=False), help="Report progress of DB and exit.")
@click.option(
    "--export",
    "export_to",
    nargs=2,
    type=click.Path(dir_okay=False),
    metavar="DB OUT",
    help="Write DB's valid runs to OUT (tidy .csv or .parquet) and exit.",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def collect(plan_file, runs, db_path, workload, pin, corunner, fmt, max_attempts, timeout, status_db, export_to, quiet):
    """Collect --runs valid perf runs of every group of PLAN_FILE into an SQLite database.

    \b
    hemkit collect PLAN --runs N [--pin CPU] [--corunner CMD] -- COMMAND ARGS...
    hemkit collect PLAN --runs N --workload iadd:L3:3000000:0.5
    hemkit collect PLAN --runs N            (continue: the stored command is used)
    hemkit collect --status PLAN.db
    hemkit collect --export PLAN.db readings.csv

    Runs are interleaved round-robin over the groups, validated (not counted, multiplexed,
    implausible counts are kept as invalid and re-run; unsupported events stop the
    collection) and committed one by one, so a killed collection loses nothing.
    """
    from hemkit.collect import CollectionDB, corunner_command, export, status
    from hemkit.collect import collect as run_collect
    from hemkit.plan import Plan

    console = Console()
    if status_db:
        db = CollectionDB(status_db)
        meta = db.meta()
        df = status(status_db)
        console.print(_status_table(df, f"{status_db}: {' '.join(meta.get('command', []))}"))
        done, total = int(df["valid"].clip(upper=df["target"]).sum()), int(df["target"].sum())
        console.print(f"{done} of {total} runs valid ({done / total:.0%})" if total else "no runs planned")
        return
    if export_to:
        out = export(export_to[0], export_to[1])
        console.print(f"wrote {out}")
        return
    if not plan_file:
        raise HemkitError("no plan file given (make one with 'hemkit plan ... -o plan.toml')")
    plan = Plan.from_file(plan_file)
    db_path = db_path or str(Path(plan_file).with_suffix(".db"))
    given = tuple(click.get_current_context().meta.get("hemkit_command", ()))
    if not given and not workload and Path(db_path).exists():
        # continuing a collection: the stored command, co-runner and pin apply again
        meta = CollectionDB(db_path).meta()
        cmd = list(meta.get("command", []))
        corunner = corunner or meta.get("corunner")
        pin = pin if pin is not None else meta.get("pin")
        fmt = meta.get("format", fmt)
        console.print(f"continuing {db_path}: {' '.join(cmd)}")
    else:
        cmd = _command(given, workload)
    if corunner == "bundled":
        corunner = corunner_command()
    res = run_collect(
        plan,
        cmd,
        db_path,
        runs=runs,
        pin=pin,
        corunner=corunner,
        fmt=fmt,
        max_attempts=max_attempts,
        timeout=timeout,
        progress=not quiet,
    )
    console.print(res.summary())
