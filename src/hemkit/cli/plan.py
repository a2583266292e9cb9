"""``hemkit plan``: design the groups of events to read together and write the plan file.

Parses the options, checks the output place, calls :meth:`hemkit.plan.Planner.plan`,
shows the groups and writes the plan through :mod:`hemkit.io.planfile`.
"""

from __future__ import annotations

from typing import Any

import click

from hemkit.cli._options import (
    AliasOption,
    output_option,
    pmcs_option,
    quiet_option,
    seed_option,
    show_table,
    warnings_to_stderr,
)
from hemkit.core.checks import did_you_mean
from hemkit.core.numbers import plural


class _OldCounters(AliasOption):
    """``--counters``: plan's old spelling of --event-counters (EVENT=C1,C2), and -c/--counters N of --pmcs.

    Both old meanings still work for one release: a value with ``=`` goes to ``event_counters``,
    a number to ``pmcs``; each says which option replaces it.
    """

    def handle_parse_result(self, ctx: click.Context, opts: Any, args: list[str]) -> tuple[Any, list[str]]:
        values = opts.pop(self.name, None) or []
        specs = [v for v in values if "=" in v]
        numbers = [v for v in values if "=" not in v]
        for dest, new, given in (("event_counters", "--event-counters", specs), ("pmcs", "--pmcs", numbers[-1:])):
            if given:
                what = " EVENT=C1,C2" if dest == "event_counters" else ""
                click.echo(f"hemkit: warning: --counters{what} is deprecated; use {new}", err=True)
                self.dest = dest
                self.hand_over(opts, given if dest == "event_counters" else given[0])
        return click.Option.handle_parse_result(self, ctx, opts, args)


#: with -o, the groups are listed only up to this many
SHOW_GROUPS = 60


def split_events(values: tuple[str, ...] | list[str]) -> list[str]:
    """Event names from arguments separated by commas or white space.

    A comma inside a PMU term list (``cpu/event=0x3c,umask=0x0/``) belongs to the name.

    Examples
    --------
    >>> split_events(["cycles,instructions", "cpu/event=0x3c,umask=0x0/ branches"])
    ['cycles', 'instructions', 'cpu/event=0x3c,umask=0x0/', 'branches']
    """
    out: list[str] = []
    for value in values:
        name, inside = "", False
        for ch in value:
            if ch == "/":
                inside = not inside
            if not inside and (ch == "," or ch.isspace()):
                if name:
                    out.append(name)
                name = ""
            else:
                name += ch
        if name:
            out.append(name)
    return out


def parse_event_counters(specs: tuple[str, ...]) -> dict[str, list[int]]:
    """``EVENT=C1,C2`` (counters numbered from 0) for each spec; the last ``=`` separates.

    Examples
    --------
    >>> parse_event_counters(("cycles=0", "cpu/event=0x3c/=1,2"))
    {'cycles': [0], 'cpu/event=0x3c/': [1, 2]}
    """
    out: dict[str, list[int]] = {}
    for spec in specs:
        event, sep, cs = spec.rpartition("=")
        try:
            if not sep or not event:
                raise ValueError
            out[event] = [int(c) for c in cs.split(",") if c.strip() != ""]
        except ValueError:
            raise click.BadParameter(
                f"{spec!r}: expected EVENT=C1,C2,... (counter numbers from 0)", param_hint="'--event-counters'"
            ) from None
    return out


def _check_named(option: str, names: list[str], events: list[str]) -> None:
    """Every event an option names is one of EVENTS, else the option, the event and the closest of EVENTS.

    Examples
    --------
    >>> try:
    ...     _check_named("--anchor", ["page-falts"], ["cycles", "page-faults"])
    ... except click.BadParameter as exc:
    ...     print(exc.format_message())
    Invalid value for '--anchor': 'page-falts' is not among EVENTS (cycles, page-faults); did you mean 'page-faults'?
    """
    stray = next((e for e in names if e not in events), None)
    if stray is not None:
        shown = ", ".join(events[:8]) + (", ..." if len(events) > 8 else "")
        raise click.BadParameter(
            f"{stray!r} is not among EVENTS ({shown}){did_you_mean(stray, events)}", param_hint=f"'{option}'"
        )


def check_event_counters(specs: tuple[str, ...], events: list[str], pmcs: int) -> None:
    """Each ``--event-counters`` value names an event to plan and counters below ``--pmcs``, else the option and value.

    Examples
    --------
    >>> check_event_counters(("a=0,1",), ["a", "b"], 2)
    >>> try:
    ...     check_event_counters(("a=2",), ["a", "b"], 2)
    ... except click.BadParameter as exc:
    ...     print(exc.format_message())
    Invalid value for '--event-counters': 'a=2': counter 2 is beyond --pmcs 2 (counters are numbered from 0 to 1)
    """
    for spec in specs:
        event, _, cs = spec.rpartition("=")
        if event not in events:
            shown = ", ".join(events[:8]) + (", ..." if len(events) > 8 else "")
            raise click.BadParameter(
                f"{spec!r}: event {event!r} is not among the events to plan ({shown}){did_you_mean(event, events)}",
                param_hint="'--event-counters'",
            )
        for c in (int(x) for x in cs.split(",") if x.strip() != ""):
            if not 0 <= c < pmcs:
                where = f"is beyond --pmcs {pmcs}" if c >= pmcs else f"is not a counter of --pmcs {pmcs}"
                raise click.BadParameter(
                    f"{spec!r}: counter {c} {where} (counters are numbered from 0 to {pmcs - 1})",
                    param_hint="'--event-counters'",
                )


def _check_with_perf(events: list[str]) -> None:
    """Events this machine's perf does not know are refused (no perf here: nothing is checked)."""
    from hemkit.external.perf import UnknownEventsError, check_perf_events
    from hemkit.plan.problem import check_events

    try:
        check_perf_events(check_events(events), optional=True)
    except UnknownEventsError as exc:
        hint = "to plan another machine's events, pass --no-check-events"
        raise UnknownEventsError(f"{exc}; {hint}", exc.events) from None


def _from_tables(paths: tuple[str, ...], events: list[str], pmcs: int) -> tuple[dict[str, list[int]], list[str]]:
    """``--event-table``: the counter restrictions and fixed-counter events perf's tables give EVENTS."""
    if not paths:
        return {}, []
    from hemkit.io.event_tables import read_event_tables
    from hemkit.plan.tables import table_constraints

    return table_constraints(events, read_event_tables(paths), pmcs)


def _fixed(fixed: str, events: list[str], this_machine: bool) -> list[str]:
    """``--fixed``: the events given, none, or (auto) those this CPU counts on fixed counters."""
    from hemkit.io.kernel import counter_settings, fixed_counter_events

    if fixed == "none":
        return []
    if fixed == "auto":
        return fixed_counter_events(events, counter_settings()) if this_machine else []
    given = split_events([fixed])
    _check_named("--fixed", given, events)
    return given


def _group_size(p: Any) -> str:
    """``3 counters``, or ``2 of the 3 counters (--budget 2)`` when the budget capped the groups."""
    budget = p.diagnostics.get("budget")
    if budget is None:
        return f"{p.pmcs} counters"
    return f"{budget} of the {p.pmcs} counters (--budget {budget})"


@click.command("plan")
@click.argument("events", nargs=-1, required=True)
@pmcs_option("Counters per run (what 'hemkit probe' found).", required=True)
@click.option(
    "--design",
    type=click.Choice(["much", "hrm"]),
    default="much",
    show_default=True,
    help="much: every pair of events shares a group; hrm: an anchor in every group.",
)
@click.option("--anchor", help="HRM anchor (default: the first event); for MUCH an event read in every group.")
@click.option("--must-share", multiple=True, metavar="E1,E2,...", help="Events that must share a group (repeatable).")
@click.option(
    "--event-counters",
    "event_counters",
    multiple=True,
    metavar="EVENT=C1,C2",
    help="Counters an event may use, numbered from 0 (repeatable).",
)
@click.option(
    "--counters", "alias_counters", cls=_OldCounters, dest="event_counters", multiple=True, metavar="N|EVENT=C1,C2"
)
@click.option(
    "--fixed",
    default="auto",
    show_default=True,
    metavar="E1,E2,...|auto|none",
    help="Events on the CPU's fixed counters (Intel: instructions, cycles, ref-cycles): read in every group, "
    "outside the --pmcs general counters. auto: those of EVENTS this CPU has fixed counters for (its kernel log "
    "says how many; none when planning for another machine).",
)
@click.option(
    "--event-table",
    "event_tables",
    multiple=True,
    type=click.Path(exists=True),
    help="perf's event tables (pmu-events JSON files or folders, or 'perf list -j' output): events they restrict to "
    "some counters get those counters, events on fixed counters go to --fixed auto (repeatable).",
)
@click.option("--budget", type=click.IntRange(1, 64), help="Most events per group, when below --pmcs.")
@click.option(
    "--time-budget",
    type=click.FloatRange(0, 86400),
    default=10.0,
    show_default=True,
    help="Seconds to search for a smaller plan (0: constructions only).",
)
@click.option(
    "--check-events/--no-check-events",
    default=True,
    show_default=True,
    help="Check EVENTS with this machine's perf, where it has one (--no-check-events: planning for another machine).",
)
@seed_option()
@output_option("Plan file to write (TOML, or JSON for a .json name).", plan=True)
@quiet_option()
def plan(  # noqa: PLR0913 - one parameter per option
    events,
    pmcs,
    design,
    anchor,
    must_share,
    event_counters,
    fixed,
    event_tables,
    budget,
    time_budget,
    check_events,
    seed,
    output,
    quiet,
):
    """Design groups for EVENTS on --pmcs counters (MUCH pair covering or HRM anchor groups).

    Example: hemkit plan task-clock page-faults context-switches kmem:kmalloc --pmcs 3 -o plan.toml

    Where perf is installed, every event is checked with it first: events it does not
    know are refused, each named with the closest names 'perf list' prints.
    """
    from hemkit.io.atomic import check_output
    from hemkit.io.planfile import write_plan_file
    from hemkit.plan import Constraints, Planner, SearchOptions

    if pmcs is None:  # click 8.3 does not enforce required=True when the option's default is None
        raise click.MissingParameter(ctx=click.get_current_context(), param_hint="'--pmcs'", param_type="option")
    if output:
        check_output(output)
    if check_events:
        _check_with_perf(split_events(events))
    wanted = split_events(events)
    with warnings_to_stderr():  # an event the tables lack but for a typo
        from_tables, table_fixed = _from_tables(event_tables, wanted, pmcs)
    sets = [split_events([s]) for s in must_share]
    for given, names in zip(must_share, sets):
        if len(set(names)) < 2:  # the library refuses it too, as a 'must-share set': here, the option
            raise click.BadParameter(
                f"{given!r} names one event, which shares a group with nothing; give two or more (E1,E2)",
                param_hint="'--must-share'",
            )
    given_counters = parse_event_counters(event_counters)
    check_event_counters(event_counters, wanted, pmcs)  # the library's words would not name the option
    for option, names in (("--anchor", [anchor] if anchor else []), *(("--must-share", n) for n in sets)):
        _check_named(option, names, wanted)
    constraints = Constraints(
        must_share=sets,
        counters={**from_tables, **given_counters},  # given on the command line wins
        budget=budget,
    )
    on_fixed = _fixed(fixed, wanted, check_events)
    if fixed == "auto":
        on_fixed = [e for e in wanted if e in on_fixed or e in table_fixed]
    planner = Planner(design, anchor, constraints, SearchOptions(time_budget=time_budget), fixed_counters=on_fixed)
    with warnings_to_stderr():
        p = planner.plan(wanted, pmcs, seed=seed, progress=not quiet)
    click.echo(p.line())
    if not output or p.size <= SHOW_GROUPS:  # thousands of rows belong in the file, not the terminal
        show_table(p.to_frame())
    if output:
        write_plan_file(output, p.to_dict(), header=f"hemkit {p.line()}")
    seconds = p.diagnostics.get("seconds", 0.0)
    how = p.diagnostics.get("construction")
    end = f"; wrote {output}" if output else ""
    click.echo(
        f"planned {plural(len(p.events), 'event')} into {plural(p.size, 'group')} of at most {_group_size(p)}"
        f"{f' + {len(p.fixed_counters)} fixed' if p.fixed_counters else ''}"
        f"{f' ({how})' if how and p.design == 'much' else ''} in {seconds:.1f} s{end}"
    )
