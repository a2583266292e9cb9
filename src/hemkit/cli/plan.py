"""``hemkit plan``: design the groups of events to read together and write the plan file."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from hemkit.errors import HemkitError


def _split(values: tuple[str, ...]) -> list[str]:
    out = []
    for v in values:
        out += [e for e in v.replace(" ", ",").split(",") if e]
    return out


def _counters(specs: tuple[str, ...]) -> dict[str, list[int]]:
    out = {}
    for spec in specs:
        event, sep, cs = spec.rpartition("=")
        try:
            if not sep or not event:
                raise ValueError
            out[event] = [int(c) for c in cs.split(",") if c != ""]
        except ValueError:
            raise HemkitError(f"--counters {spec!r}: expected EVENT=C1,C2,... (counter numbers)") from None
    return out


@click.command("plan")
@click.argument("events", nargs=-1, required=True)
@click.option("--pmcs", type=int, required=True, help="Counters per run (use what 'hemkit probe' found).")
@click.option("--design", type=click.Choice(["much", "hrm"]), default="much", show_default=True)
@click.option("--anchor", help="HRM anchor (default: first event); for MUCH an event read in every group.")
@click.option("--must-share", multiple=True, metavar="E1,E2,...", help="Events that must share a group.")
@click.option("--counters", multiple=True, metavar="EVENT=C1,C2", help="Counters an event may use (0-based).")
@click.option("--budget", type=int, help="Most events per group when below --pmcs.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Plan file to write (.toml or .json).")
def plan(events, pmcs, design, anchor, must_share, counters, budget, seed, output):
    """Design groups for EVENTS on --pmcs counters (MUCH pair covering or HRM anchor groups).

    Example: hemkit plan task-clock page-faults context-switches kmem:kmalloc --pmcs 3 -o plan.toml
    """
    from hemkit.plan import Constraints, make_plan

    cons = Constraints(must_share=[_split((s,)) for s in must_share], counters=_counters(counters), budget=budget)
    p = make_plan(_split(events), pmcs, design=design, anchor=anchor, constraints=cons, seed=seed)
    console = Console()
    table = Table(title=f"{p.design.upper()} plan: {len(p.events)} events, {len(p.groups)} groups, {p.pmcs} counters")
    table.add_column("group", justify="right")
    table.add_column("events")
    for i, g in enumerate(p.groups):
        table.add_row(str(i), ", ".join(g))
    console.print(table)
    if p.lower_bound is not None:
        known = p.best_known if p.best_known is not None else "unknown"
        console.print(
            f"size {len(p.groups)}{' (proven optimal)' if p.optimal else ''}; "
            f"Schönheim lower bound {p.lower_bound}; best published {known}"
        )
    if output:
        p.to_file(output)
        console.print(f"wrote {output}")
