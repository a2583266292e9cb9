"""The sections of a report, each from data the areas already computed.

Every figure has a title, axis labels (with units where there are units) and a legend where
more than one series is drawn. The readings' figures (plan, coverage, runs, variability,
correlations, per-pair intervals, comparison) are SVG drawn by :mod:`hemkit.report.svg`, made to
read at any number of events; those of traces and profiles are made on
:class:`matplotlib.figure.Figure` objects, never through ``pyplot``'s global state.

Events constant within a group (``context-switches`` reading 0 in every run of a group)
are shown as they are: in the plan, in a table with their values, and in the variability
figure; only the merge leaves them out (a constant carries no correlation information),
and its section says which it left out and which pairs that left unread.
"""

from __future__ import annotations

import os
import shlex
import warnings
from collections.abc import Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.numbers import format_count, format_percent, plural
from hemkit.core.readings import Readings
from hemkit.report.html import Figure, Section

#: (group, event, value) of an event constant within a group
Constant = tuple[Hashable, str, float]


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(figsize=(width, height))


def _short(name: str, n: int = 28) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def _q(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else str(value)


def constant_events(readings: Readings) -> tuple[Constant, ...]:
    """Every event constant within a group, as ``(group, event, value)``, in group order.

    Both those the readings keep (:attr:`Readings.constant`) and those dropped on reading
    (:attr:`Readings.dropped_constant`).

    Examples
    --------
    >>> r = Readings.from_arrays({1: (np.arange(3), ["a", "b"], np.array([[1.0, 4], [2, 4], [3, 4]]))})
    >>> constant_events(r)
    ((1, 'b', 4.0),)
    """
    both = [*readings.constant, *readings.dropped_constant]
    order = {g: i for i, g in enumerate(readings.group_ids)}
    both.sort(key=lambda c: order.get(c[0], len(order)))
    return tuple((g, str(e), float(v)) for g, e, v in both)


def without_constant(readings: Readings) -> Readings:
    """The readings without their constant events (a group left with none is left out), as a merge needs them."""
    from hemkit.core.errors import HemkitWarning

    groups = {gid: (g.runs, g.events, g.values) for gid, g in readings.arrays.items()}
    with warnings.catch_warnings():  # the merge section says what went, once
        warnings.simplefilter("ignore", HemkitWarning)
        return Readings.from_arrays(groups, source=readings.source, min_runs=readings.min_runs, drop_constant=True)


# ------------------------------------------------------------------ what was read
def overview(readings: Readings, source: str, constants: Sequence[Constant] = ()) -> Section:
    """What was read: groups, events, runs, constant events and pairs never read together."""
    runs = readings.n_runs
    events = len({e for _, e, _ in constants})
    rows = {
        "source": source,
        "groups": len(readings),
        "events": len(readings.events),
        "runs per group": f"{int(runs.min())}–{int(runs.max())}" if runs.min() != runs.max() else str(int(runs.min())),
        "runs in all": int(runs.sum()),
        # one event constant in three groups is one event (three readings), as the constant events section says;
        # one form whatever the counts (it was '1' for one reading, '1 (3 readings: ...)' for three)
        "events constant within a group": f"{events} ({plural(len(constants), 'reading')}: an event in a group)"
        if constants
        else "0",
        "pairs never read together": len(readings.missing_pairs()),
    }
    table = pd.DataFrame({"value": [str(v) for v in rows.values()]}, index=pd.Index(list(rows)))
    return Section("overview", "Overview", tables=(("", table),))


def _machine(meta: Mapping[str, Any]) -> dict[str, str]:
    """Host, CPU, kernel and perf of a collection, from what ``hemkit collect`` stored."""
    out: dict[str, str] = {}
    machine = meta.get("machine")
    if isinstance(machine, Mapping):
        uname = str(machine.get("uname") or "").split()
        if len(uname) >= 3:
            out["host"] = uname[1]
            out["kernel"] = f"{uname[0]} {uname[2]}" + (f" ({uname[-1]})" if len(uname) > 3 else "")
        if machine.get("cpu_model"):
            cpus = machine.get("cpus")
            out["CPU"] = str(machine["cpu_model"]) + (f" ({cpus} CPUs)" if cpus else "")
    elif machine:
        out["machine"] = str(machine)
    return out


def _described(meta: Mapping[str, Any]) -> pd.DataFrame:
    """The measured command and the machine, as a two-column table of what the database stores."""
    rows: dict[str, str] = {}
    for key, label in (("command", "command"), ("pin", "pinned to CPU"), ("corunner", "co-runner")):
        if meta.get(key) not in (None, "", []):
            value = meta[key]
            # a command's words as a shell takes them: sh -c 'ls /usr/lib; exit 3', not sh -c ls /usr/lib; exit 3
            words = " ".join(map(str, value)) if key == "pin" else shlex.join(map(str, value))
            rows[label] = words if isinstance(value, list | tuple) else str(value)
    if meta.get("runs"):
        rows["target runs per group"] = str(meta["runs"])
    rows.update(_machine(meta))
    for key, label in (("perf_version", "perf"), ("hemkit_version", "hemkit"), ("created", "created")):
        if meta.get(key):
            rows[label] = str(meta[key])
    return pd.DataFrame({"value": list(rows.values())}, index=pd.Index(list(rows)))


#: groups listed in full in the runs table; beyond this only those with invalid runs
RUN_ROWS = 40


def _runs_table(table: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    """The runs table with its caption; a long one keeps only the groups that had invalid runs."""
    if len(table) <= RUN_ROWS:
        return "Runs of each group.", table
    bad = table[table["invalid"] > 0]
    good = table[table["invalid"] == 0]
    if not len(good):
        return f"Runs of each group (the first {RUN_ROWS} of {len(table)}).", table.head(RUN_ROWS)
    first = f" (the first {RUN_ROWS})" if len(bad) > RUN_ROWS else ""
    valid = f"{int(good['valid'].min())}-{int(good['valid'].max())}"
    caption = (
        f"Runs of the {len(bad)} groups with invalid runs{first}; "
        f"the other {len(good)} groups had only valid runs ({valid} each)."
    )
    return caption, bad.head(RUN_ROWS)


def runs_of_collection(
    runs: pd.DataFrame,
    status: pd.DataFrame,
    meta: Mapping[str, Any],
    counted: pd.DataFrame | None = None,
    *,
    host: str | Sequence[str] | None = None,
) -> Section:
    """Per group of a collection: runs, valid, invalid and why, what was counted; the command and the machine.

    ``counted`` (:meth:`hemkit.io.collection.CollectionDB.counted`) adds, per group, how long
    its events were on counters, their lowest running percentage and any ``<not counted>``.
    ``host``: the runs given are those of this host (or these hosts) only, which the section says.
    """
    reasons = []
    for gid in status["group"]:
        bad = runs[(runs["gid"] == gid) & (runs["status"] != "valid")]
        counts = bad.groupby("reason", sort=False).size() if len(bad) else pd.Series(dtype=int)
        reasons.append("; ".join(f"{r or 'no reason stored'} ({n}x)" for r, n in counts.items()))
    table = pd.DataFrame(
        {
            "events": status["events"].to_numpy(),
            "runs": (status["valid"] + status["invalid"]).to_numpy(),
            "valid": status["valid"].to_numpy(),
            "invalid": status["invalid"].to_numpy(),
            "invalid because": reasons,
        },
        index=pd.Index(status["group"].to_numpy(), name="group"),
    )
    if counted is not None and len(counted):
        c = counted.set_index("group").reindex(table.index)
        table.insert(1, "counted (s)", c["counted_s"].round(4).to_numpy())
        table.insert(2, "running %", c["running_pct"].to_numpy())
        table["not counted"] = c["not_counted"].fillna("").to_numpy()
    from hemkit.report import svg

    target = int(status["target"].max()) if "target" in status and len(status) else 0
    groups = [str(g) for g in status["group"]]
    valid, invalid = status["valid"].to_numpy(), status["invalid"].to_numpy()
    fig = svg.bars(
        groups,
        np.column_stack([valid, invalid]),
        title="Runs per group: valid and invalid",
        xlabel=f"group (number in the plan; {len(groups)} groups)",
        ylabel="runs (count)",
        colours=(),
        hover=[f"group {g}: {a} valid, {b} invalid" for g, a, b in zip(groups, valid, invalid, strict=True)],
        series=[("#4e9a06", "valid"), ("#cc0000", "invalid (re-run)")],
        line=(target, "target runs") if target > 0 else None,
    )
    hosts = [host] if isinstance(host, str) else list(host or ())
    of_hosts = f" of host{'s' if len(hosts) > 1 else ''} {', '.join(map(repr, hosts))}" if hosts else ""
    paragraph = (
        f"{int(status['valid'].sum())} valid and {int(status['invalid'].sum())} invalid runs{of_hosts} over "
        f"{len(status)} groups{' (the runs of other hosts are not shown)' if hosts else ''}. Invalid runs stay in the "
        "database with their reason and are run again; only valid runs are read."
    )
    if counted is not None and len(counted):
        paragraph += " " + _counted_paragraph(counted)
    made_on = " the collection was made on" if hosts else ""  # not necessarily that of the hosts shown
    tables = [(f"The measured command and the machine{made_on}.", _described(meta))] if meta else []
    tables.append(_runs_table(table))
    return Section(
        "runs",
        "Runs",
        paragraphs=(paragraph,),
        tables=tuple(tables),
        figures=(Figure.drawn("Valid runs of each group with its invalid ones stacked on top (point at a bar).", fig),),
    )


def _counted_paragraph(counted: pd.DataFrame) -> str:
    """What perf says was counted, in words: time on counters, multiplexing, <not counted> and its likely cause."""
    said = []
    secs = counted["counted_s"].dropna()
    if len(secs):
        said.append(
            f"Per run, the events were on counters for {secs.min():.3g}-{secs.max():.3g} s (median per group, "
            "perf's running time: column 'counted (s)')"
        )
    pct = counted["running_pct"].dropna()
    if len(pct) and pct.min() < 100:
        said.append(f"some valid readings were multiplexed (running {pct.min():g}% of the time)")
    elif len(pct):
        said.append("every valid reading was on a counter the whole run (running 100%)")
    missed = counted[counted["not_counted_runs"] > 0]
    if len(missed):
        said.append(
            f"in {len(missed)} group(s) perf printed <not counted> for some events (column 'not counted'): "
            "they never got a counter in those runs (more events than free counters, e.g. the NMI watchdog holding "
            "one, or a hybrid CPU's core type the program did not run on); those runs were stored as invalid"
        )
    return "; ".join(said) + "." if said else ""


def runs_of_readings(readings: Readings) -> Section:
    """Per group of readings from files: the runs read (files hold valid runs only)."""
    counts = readings.run_counts
    table = pd.DataFrame(
        {"events": [len(g.events) for g in readings.arrays.values()], "runs": list(counts.values())},
        index=pd.Index([str(g) for g in counts], name="group"),
    )
    paragraph = (
        f"{sum(counts.values())} runs over {len(counts)} groups. Readings from files hold only the runs the reader "
        "accepted (a run perf could not vouch for is refused or dropped when read, with a warning); the measured "
        "command and the machine are known only for a collection database (hemkit collect)."
    )
    return Section("runs", "Runs", paragraphs=(paragraph,), tables=(("Runs of each group.", table),))


# ------------------------------------------------------------------ plan, coverage, constants
#: states of a (group, event) cell of the plan figure, with their colours and legend names
_PLAN_STATES = (
    ("#ffffff", "not in the group"),
    ("#3465a4", "read"),
    ("#f57900", "read, constant in the group (left out of the merge)"),
    ("#babdb6", "planned, not in the readings (no valid runs, or dropped when read)"),
)


def _plan_states(
    readings: Readings, constants: Sequence[Constant], planned: Sequence[Sequence[str]] | None
) -> pd.DataFrame:
    """Groups x events: 0 not in the group, 1 read, 2 constant, 3 planned but not read.

    The constants dropped on reading (``drop_constant``) are drawn too: an event constant in
    every group that read it, or a group of constants only, is gone from the readings.
    """
    dropped_events = [e for _, e, _ in constants]
    if planned:
        gids: list[Any] = list(range(len(planned)))
        events = list(dict.fromkeys([e for g in planned for e in g] + readings.events + dropped_events))
    else:
        gids, events = list(readings.group_ids), list(dict.fromkeys(readings.events + dropped_events))
    gids += [g for g in dict.fromkeys([*readings.group_ids, *(c[0] for c in constants)]) if g not in set(gids)]
    row = {g: i for i, g in enumerate(gids)}
    col = {e: j for j, e in enumerate(events)}
    states = np.zeros((len(gids), len(events)), dtype=np.int8)
    for number, group in enumerate(planned or ()):
        states[number, [col[e] for e in group]] = 3
    for gid, g in readings.arrays.items():
        states[row[gid], [col[e] for e in g.events]] = 1
    for cgid, event, _ in constants:
        states[row[cgid], col[event]] = 2
    return pd.DataFrame(states, index=pd.Index(gids, name="group"), columns=events)


#: a plan of at most this many groups (and MAX_GRID_EVENTS events) is drawn as its grid; a larger one as summaries
MAX_GRID_GROUPS = 40
MAX_GRID_EVENTS = 60


def _plan_figure(states: pd.DataFrame) -> Any:
    """The plan as a grid: a row per group, a column per event, each cell naming its state on hover."""
    from hemkit.report import svg

    colours = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c, _ in _PLAN_STATES], dtype=np.uint8)
    grid = states.to_numpy()
    events, groups = [str(e) for e in states.columns], [str(g) for g in states.index]

    def hover(i: int, j: int) -> str:
        return f"group {groups[i]}, {events[j]}: {_PLAN_STATES[grid[i, j]][1]}"

    shown = sorted(set(np.unique(grid).tolist()) | {1})
    keys = [(_PLAN_STATES[k][0], _PLAN_STATES[k][1].split(" (")[0]) for k in shown]
    return svg.heatmap(
        colours[grid],
        [f"group {g}" for g in groups],
        events,
        title="Plan: events read in each group",
        cell_hover=hover,
        legend=lambda s, x, y: svg.swatches(s, x, y, keys),
        key_width=40 + max(svg.text_width(name, 10) for _, name in keys),
    )


def _groups_per_event(states: pd.DataFrame) -> Any:
    from hemkit.report import svg

    read = (states.to_numpy() == 1) | (states.to_numpy() == 2)
    per = read.sum(axis=0)
    names = [str(e) for e in states.columns]
    return svg.dot_plot(
        per.astype(float),
        names,
        title="Groups that read each event",
        ylabel="groups (count)",
        xlabel=f"{len(names)} events, sorted by the groups that read them (most and fewest named)",
        hover=[f"{e}: read in {k} of {len(states)} groups" for e, k in zip(names, per, strict=True)],
    )


def _pair_counts_figure(pairs: pd.DataFrame) -> Any:
    """How many pairs of events were read together in 0, 1, 2 ... groups."""
    from hemkit.report import svg

    values = pairs.to_numpy()
    upper = values[np.triu_indices(len(values), 1)].astype(int)
    counts = np.bincount(upper, minlength=2) if len(upper) else np.zeros(2, dtype=int)
    cats = [str(i) for i in range(len(counts))]
    colours = ["#cc0000" if i == 0 else "#3465a4" for i in range(len(counts))]
    hover = [
        f"{k} pair(s) read together in {i} group(s)" + (": no merge can know their correlation" if i == 0 else "")
        for i, k in enumerate(counts)
    ]
    return svg.bars(
        cats,
        counts.tolist(),
        title="Pair coverage: how many groups read each pair together",
        xlabel="groups that read both events of a pair (0, in red: never read together)",
        ylabel="pairs of events (count)",
        colours=colours,
        hover=hover,
    )


def _coverage_figure(readings: Readings) -> Any:
    """Pair coverage as a grid of the events (small plans): each cell names its pair and count on hover."""
    from hemkit.report import svg

    pairs = readings.coverage()
    names = [str(e) for e in pairs.columns]
    values = pairs.to_numpy(dtype=float)
    off = values[~np.eye(len(values), dtype=bool)]
    top = max(1.0, float(off.max()) if len(off) else 1.0)
    shown = values.copy()
    np.fill_diagonal(shown, np.nan)  # an event with itself: grey, its groups named on hover

    def hover(i: int, j: int) -> str:
        if i == j:
            return f"{names[i]}: read in {int(values[i, i])} group(s)"
        return f"{names[i]} / {names[j]}: read together in {int(values[i, j])} group(s)"

    return svg.heatmap(
        svg.sequential(shown, 0, top),
        names,
        names,
        title="Pair coverage: groups that read both events",
        cell_hover=hover,
        legend=lambda s, x, y: svg.colour_key(
            s,
            x,
            y,
            lo=0,
            hi=top,
            colour=lambda v: svg.sequential(v, 0, top),
            label="groups (count)",
            ticks=sorted({0.0, top, *[t for t in svg.nice_ticks(0, top, 4) if t == int(t)]}),
        ),
        matrix=values,
        value_name="groups",
    )


def _groups_table(readings: Readings, states: pd.DataFrame) -> pd.DataFrame:
    """One row per group: its runs, the events it read, those constant in it and those planned but unread."""
    grid = states.to_numpy()
    events = np.array([str(e) for e in states.columns], dtype=object)
    runs = readings.run_counts
    table = pd.DataFrame(
        {
            "runs": [runs.get(g, 0) for g in states.index],
            "events": [", ".join(events[(row == 1) | (row == 2)]) for row in grid],
            "constant": [", ".join(events[row == 2]) for row in grid],
            "planned, not read": [", ".join(events[row == 3]) for row in grid],
        },
        index=pd.Index([str(g) for g in states.index], name="group"),
    )
    empty = [c for c in ("constant", "planned, not read") if not table[c].str.len().any()]
    return table.drop(columns=empty)


def coverage(
    readings: Readings, constants: Sequence[Constant] = (), planned: Sequence[Sequence[str]] | None = None
) -> Section:
    """The plan (which group read which event, constant and unread events marked) and the pair coverage.

    A plan of at most :data:`MAX_GRID_GROUPS` groups and :data:`MAX_GRID_EVENTS` events is
    drawn as its grid, with the pair coverage as a grid of the events; a larger one as what
    a reader needs of it at any size: the groups that read each event (sorted, the extremes
    named) and how many pairs were read together how often.  The groups are always listed
    in a table (searchable in the page).

    Parameters
    ----------
    readings : Readings
    constants : sequence of (group, event, value)
        Events constant within a group (:func:`constant_events`), marked in the plan.
    planned : sequence of sequences of str, optional
        The planned groups (a collection's plan): events planned in a group but absent from
        the readings are marked as such.
    """
    states = _plan_states(readings, constants, planned)
    small = len(states) <= MAX_GRID_GROUPS and states.shape[1] <= MAX_GRID_EVENTS
    if small:
        figures = (
            Figure.drawn(
                "Each row is a group of events read together in the same runs; each cell says whether the group "
                "read the event, read it as a constant, or planned it without readings (point at a cell).",
                _plan_figure(states),
            ),
            Figure.drawn(
                "Colour: in how many groups each pair of events was read together, from 0. A 0 off the diagonal "
                "is a pair never read together: no merge can know its correlation.",
                _coverage_figure(readings),
            ),
        )
    else:
        figures = (
            Figure.drawn(
                f"{len(states)} groups of {states.shape[1]} events: how many groups read each event (point at a "
                "dot to name it; every group is listed in the table below).",
                _groups_per_event(states),
            ),
            Figure.drawn(
                "How often each pair of events was read together. A pair read in 0 groups (red) is never read "
                "together: no merge can know its correlation.",
                _pair_counts_figure(readings.coverage()),
            ),
        )
    notes = []
    missing = readings.missing_pairs()
    if missing:
        shown = ", ".join(f"{a} / {b}" for a, b in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        notes.append(f"{len(missing)} pair(s) of events never read together: {shown}{more}")
    gone = {e for _, e, _ in constants}  # constant in every group that read it: dropped on reading
    unread = [e for e in states.columns if e not in readings.events and e not in gone]
    if unread:
        notes.append(f"planned but not in the readings: {', '.join(map(str, unread))}")
    dropped = [e for e in states.columns if e not in readings.events and e in gone]
    if dropped:
        notes.append(f"constant in every group that read it, dropped when read: {', '.join(map(str, dropped))}")
    tables = (
        (
            "The groups: runs, the events each read, those constant in it and those planned but not read.",
            _groups_table(readings, states),
        ),
    )
    return Section("coverage", "Plan and coverage", figures=figures, tables=tables, warnings=tuple(notes))


def constants_section(constants: Sequence[Constant], readings: Readings) -> Section:
    """The events constant within a group, with their values, and why the merge leaves them out."""
    dropped = {(g, e) for g, e, _ in readings.dropped_constant}
    table = pd.DataFrame(
        {
            "group": [str(g) for g, _, _ in constants],
            "event": [e for _, e, _ in constants],
            "value": [format_count(v) for _, _, v in constants],
            "runs": [readings.run_counts.get(g) for g, _, _ in constants],
            "kept": ["no: dropped when read" if (g, e) in dropped else "yes" for g, e, _ in constants],
        }
    ).set_index(["group", "event"])
    events = list(dict.fromkeys(e for _, e, _ in constants))
    paragraph = (
        f"{plural(len(constants), 'reading')} of {plural(len(events), 'event')} did not change over the runs of "
        "their group "
        f"({', '.join(events)}). They are shown everywhere else as they were read, but a value that never changes "
        "carries no correlation information, so no merge can use it: the merge section leaves these readings "
        "out, as reading with drop_constant=True does."
    )
    return Section(
        "constant",
        "Constant events",
        paragraphs=(paragraph,),
        tables=(("Events constant within a group: the value read in every run.", table),),
    )


# ------------------------------------------------------------------ variability
def variability(readings: Readings) -> Section:
    """Run-to-run spread of every event: a sorted dot plot of coefficients of variation, and a table of all.

    The dot plot names the most and least variable events; every dot names its event on
    hover.  The table (every event, sortable and searchable in the page) gives the median,
    the coefficient of variation and the 5th and 95th percentiles relative to the median.
    Events whose mean is 0 have no coefficient of variation (the table gives their counts).
    """
    from hemkit.report import svg

    rows = []
    for e in readings.events:
        # float64: a float32 std of counts near 1e19 overflows (squares reach 1e38), and its mean rounds
        values = readings.pooled(e, dtype=np.float64)
        med = float(np.median(values))
        mean = float(values.mean())
        cv = float(values.std(ddof=1) / mean) if mean > 0 and len(values) > 1 else float("nan")
        p5, p95 = np.percentile(values, [5, 95])
        rel = (p5 / med, p95 / med) if med > 0 else (float("nan"), float("nan"))
        rows.append((e, med, cv, rel[0], rel[1], float(p5), float(p95), len(values)))
    table = pd.DataFrame(
        rows,
        columns=[
            "event",
            "median (count)",
            "coefficient of variation",
            "p5 / median",
            "p95 / median",
            "p5 (count)",
            "p95 (count)",
            "runs",
        ],
    ).set_index("event")
    cv = table["coefficient of variation"]
    drawn = cv[np.isfinite(cv.to_numpy()) & (cv.to_numpy() > 0)]
    paragraphs = [
        "The noise the merge methods exist for: each event's standard deviation over its runs (all groups), "
        "relative to its mean."
    ]
    left_out = [str(e) for e in cv.index if e not in drawn.index]
    if left_out:
        paragraphs.append(
            f"Not drawn ({len(left_out)}): {', '.join(left_out[:20])}{' ...' if len(left_out) > 20 else ''} -- "
            "a mean of 0 (no coefficient of variation) or the same value in every run; the table gives their counts."
        )
    figures: tuple[Figure, ...] = ()
    if len(drawn):
        med = table["median (count)"]
        hover = [f"{e}: coefficient of variation {v:.3g}, median {format_count(med[e])}" for e, v in drawn.items()]
        plot = svg.dot_plot(
            drawn.to_numpy(),
            [str(e) for e in drawn.index],
            title="Run-to-run variability per event (all groups)",
            ylabel="coefficient of variation (std / mean)",
            xlabel=f"{len(drawn)} events, most variable first (the extremes named; point at a dot for any)",
            hover=hover,
            log=True,
        )
        figures = (Figure.drawn("Each event's coefficient of variation over all its runs, sorted.", plot),)
    return Section(
        "variability",
        "Variability of the readings",
        paragraphs=tuple(paragraphs),
        tables=(("Every event's spread over its runs (all groups).", table),),
        figures=figures,
    )


# ------------------------------------------------------------------ the merge
def _heatmap(corr: pd.DataFrame, title: str) -> Any:
    """The correlations as a heatmap, events ordered by clustering (related events side by side)."""
    from hemkit.report import svg

    values = corr.to_numpy(dtype=float)
    order = svg.cluster_order(values)
    values = values[np.ix_(order, order)]
    names = [str(corr.columns[i]) for i in order]

    def hover(i: int, j: int) -> str:
        return f"{names[i]} / {names[j]}: r = {values[i, j]:.3f}"

    return svg.heatmap(
        svg.diverging(values),
        names,
        names,
        title=title,
        cell_hover=hover,
        legend=lambda s, x, y: svg.colour_key(
            s, x, y, lo=-1, hi=1, colour=svg.diverging, label="Pearson r", ticks=[-1, -0.5, 0, 0.5, 1]
        ),
        matrix=values,
        value_name="r =",
    )


#: pairs drawn in the per-pair figure when there are more: the strongest, the widest and those never read together
NOTABLE = 10
_KINDS = {"strongest": "#3465a4", "widest": "#cc0000", "never read together": "#f57900"}


def _notable(iv: pd.DataFrame) -> pd.DataFrame:
    """The pairs that matter: every pair up to 3 x NOTABLE, else the strongest, the widest and the imputed."""
    kinds = pd.Series("", index=iv.index)
    if len(iv) > 3 * NOTABLE:
        strong = iv["estimate"].abs().sort_values(ascending=False, kind="stable").index[:NOTABLE]
        wide = iv["width"].sort_values(ascending=False, kind="stable").index[:NOTABLE]
        kinds[strong] = "strongest"
        kinds[wide] = "widest"
    never = iv.index[iv["groups"].to_numpy() == 0][:NOTABLE]
    kinds[never] = "never read together"
    keep = iv if len(iv) <= 3 * NOTABLE else iv[kinds != ""]
    return keep.assign(kind=kinds[keep.index]).sort_values("estimate", kind="stable")


def _pairs_figure(iv: pd.DataFrame, level: float, method: str, total: int) -> Any:
    """The pairs that matter (:func:`_notable`) with their estimates and intervals, each named."""
    from hemkit.report import svg

    pick = _notable(iv)
    labels = [
        f"{svg.short(str(a), 30)} / {svg.short(str(b), 30)}"
        for a, b in zip(pick["event_a"], pick["event_b"], strict=True)
    ]
    colours = [_KINDS.get(k, "#3465a4") for k in pick["kind"]]
    hover = [
        f"{a} / {b}: r = {e:.3f}, {format_percent(level)} interval [{lo:.3f}, {hi:.3f}], read together in {g} group(s)"
        + (f" ({k})" if k else "")
        for a, b, e, lo, hi, g, k in zip(
            pick["event_a"],
            pick["event_b"],
            pick["estimate"],
            pick["lower"],
            pick["upper"],
            pick["groups"],
            pick["kind"],
            strict=True,
        )
    ]
    shown = "every pair" if len(pick) == total else f"{len(pick)} of {total} pairs"
    legend = [(c, k) for k, c in _KINDS.items() if k in set(pick["kind"])]
    return svg.forest(
        labels,
        pick["estimate"].tolist(),
        pick["lower"].tolist(),
        pick["upper"].tolist(),
        title=f"Per-pair merged correlations ({method}) with {format_percent(level)} intervals: {shown}",
        xlabel="Pearson correlation (unitless), sorted by estimate",
        colours=colours,
        hover=hover,
        legend=legend,
    )


#: fewest runs a group may have for the merge section (as :func:`hemkit.io.read_readings` asks by default)
MERGE_MIN_RUNS = 3


def merged(readings: Readings, options: Any, seed: Any, constants: Sequence[Constant] = ()) -> Section:
    """Merged correlations as a heatmap, and each pair's estimate with its interval.

    Constant readings (``constants``) are left out first (the section says which, and which
    events that leaves out entirely).  A merge the data do not allow (pairs never read
    together without ``impute``, naming those only dropping a constant left unread) is the
    section's ``error``, worded by ``options.explain`` (default ``str``), as is a group of fewer
    than :data:`MERGE_MIN_RUNS` runs (the report reads every run, however few).
    """
    from hemkit.core.errors import HemkitError
    from hemkit.merge import merge

    title = "Merged correlations"
    method = options.method
    kwargs: dict[str, Any] = dict(getattr(options, "merge_options", {}) or {})
    if method == "hrm" and options.anchor:
        kwargs["anchor"] = options.anchor
    explain = getattr(options, "explain", None) or str
    paragraphs: list[str] = []
    notes: list[str] = []
    use = readings
    few = readings.n_runs[readings.n_runs < MERGE_MIN_RUNS]
    if len(few):  # the report shows every run read; a merge of correlations needs a few runs a group
        more = f" (and {plural(len(few) - 1, 'more group')} under {MERGE_MIN_RUNS})" if len(few) > 1 else ""
        return Section(
            "merge",
            title,
            error=f"no {method} merge: group {few.index[0]} has {plural(int(few.iloc[0]), 'run')}{more}; a merge needs "
            f"at least {MERGE_MIN_RUNS} runs in every group: collect more (an unfinished collection: continue it)",
        )
    if constants:
        use = without_constant(readings)
        gone = [e for e in readings.events if e not in use.events]
        paragraphs.append(
            f"Left out of the merge: {len(constants)} constant reading(s) (see Constant events); a value that never "
            "changes carries no correlation information."
            + (f" Constant in every group that read it, so not merged at all: {', '.join(gone)}." if gone else "")
        )
    try:
        with _warnings_into(notes):
            res = merge(use, method, seed=seed, level=options.level, jobs=getattr(options, "jobs", 1), **kwargs)
    except HemkitError as exc:  # e.g. pairs never read together: the rest of the report still helps
        reason = " ".join(explain(exc).split())
        return Section("merge", title, paragraphs=tuple(paragraphs), error=f"no {method} merge: {reason}")
    data = res.data
    corr = data.corr()
    k = len(corr)
    figures = [
        Figure.drawn(
            f"Correlations of the {len(data)} merged runs, events ordered by clustering so that related events sit "
            "together (point at a cell to name its pair).",
            _heatmap(corr, f"Merged Pearson correlations ({method})"),
        )
    ]
    tables: list[tuple[str, Any]] = []
    intervals = getattr(res, "pair_intervals", None)
    if intervals is not None and len(intervals):
        cover = use.coverage()
        iv = intervals.reset_index(drop=True)
        iv = iv.assign(
            width=iv["upper"] - iv["lower"],
            groups=cover.to_numpy(dtype=np.int64)[
                cover.index.get_indexer(iv["event_a"]), cover.columns.get_indexer(iv["event_b"])
            ],
        )
        figures.append(
            Figure.drawn(
                "Each pair's merged correlation and how far it can be trusted: "
                + (
                    "every pair."
                    if len(iv) <= 3 * NOTABLE
                    else f"the {NOTABLE} strongest, the {NOTABLE} widest intervals and pairs never read together; "
                    "every pair is in the table below."
                ),
                _pairs_figure(iv, options.level, method, len(iv)),
            )
        )
        every = iv.sort_values("width", ascending=False, kind="stable").set_index(["event_a", "event_b"])
        cols = [c for c in ("estimate", "lower", "upper", "width", "groups") if c in every]
        tables.append(
            (
                f"Every pair ({len(every)}), widest interval first (the pairs to trust least); groups: how many "
                "groups read the pair together.",
                every[cols],
            )
        )
    paragraphs.insert(
        0, f"{method} merge of {plural(len(use), 'group')} into {plural(len(data), 'run')} x {plural(k, 'event')}."
    )
    imputed = list(res.diagnostics.get("imputed") or ())
    if imputed:
        shown = ", ".join(f"{a} / {b}" for a, b in imputed[:10]) + (
            f" and {len(imputed) - 10} more" if len(imputed) > 10 else ""
        )
        paragraphs.append(
            f"{len(imputed)} pair(s) never read together were imputed (maximum determinant): {shown}. Their "
            "correlations come from the other pairs, not from readings; their intervals span what those allow."
        )
    return Section(
        "merge",
        title,
        paragraphs=tuple(paragraphs),
        tables=tuple(tables),
        figures=tuple(figures),
        warnings=tuple(notes),
    )


# ------------------------------------------------------------------ comparison
def comparison(
    readings: Readings, other: tuple[Readings, str], options: Any, seed: Any, *, hosts: Any = (None, None)
) -> Section:
    """The comparison of the readings (A) with ``other`` (B): changed events, ratios with intervals, changed pairs.

    ``hosts`` (the host of each run of A and of B, :func:`hemkit.io.read_machines`) adds a
    paragraph naming each side that pools runs of hosts that read differently.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> a = Readings({1: pd.DataFrame({"x": rng.poisson(900, 40), "y": rng.poisson(90, 40)})})
    >>> b = Readings({1: pd.DataFrame({"x": rng.poisson(1000, 40), "y": rng.poisson(90, 40)})})
    >>> comparison(a, (b, "after"), None, 0).paragraphs[0]
    '1 of 2 events changed from A (these readings) to B (after) at a false discovery rate of 5 %: x.'
    """
    from hemkit.compare import compare

    b, name = other
    notes: list[str] = []
    with _warnings_into(notes):
        res = compare(readings, b, level=0.95, seed=seed, pairs=True, hosts=hosts)
    table = res.to_frame().set_index("event")
    changed = res.changed
    shown = ", ".join(changed[:20]) + (f" ... ({len(changed)} in all)" if len(changed) > 20 else "")
    paragraphs = [
        f"{len(changed)} of {len(table)} events changed from A (these readings) to B ({name}) at a false "
        f"discovery rate of 5 %" + (f": {shown}." if changed else ".")
    ]
    for side, found in res.mixed_hosts.items():
        check = res.machines[0 if side == "A" else 1]
        said = ", ".join(f"{e} on {h} x{r:.4g}" for e, h, r in found[:5]) + (" ..." if len(found) > 5 else "")
        paragraphs.append(
            f"{side} pools runs of {len(check.runs)} hosts ({', '.join(check.hosts)}) that read differently: "
            f"{said}. As one sample its spread is inflated, so a change can be missed or found where there is "
            "none: compare the runs of one host per side (hemkit report --host NAME reads one host's runs on both "
            "sides; hemkit compare --host-a and --host-b one per side)."
        )
    if res.only_a or res.only_b:
        paragraphs.append(
            f"Not compared: read in A only {', '.join(map(str, res.only_a)) or 'none'}; "
            f"in B only {', '.join(map(str, res.only_b)) or 'none'}."
        )
    cols = ["median_a", "median_b", "ratio", "lower", "upper", "q_value", "changed", "note"]
    order = table.assign(_c=~table["changed"]).sort_values(["_c", "q_value"]).index
    tables: list[tuple[str, Any]] = [
        (
            "Per event: medians, the ratio B / A with its 95 % interval, the FDR-adjusted p-value.",
            table.loc[order, cols],
        )
    ]
    if res.pairs is not None and len(res.pairs):
        pairs = res.pairs
        moved = pairs[pairs["changed"]] if "changed" in pairs else pairs.iloc[:0]
        if len(moved):
            keep = [c for c in ("event_a", "event_b", "r_a", "r_b", "difference", "lower", "upper") if c in moved]
            tables.append(("Pairs whose correlation changed (Benjamini-Hochberg across pairs).", moved[keep]))
        else:
            paragraphs.append(f"No pair's correlation changed ({len(pairs)} pairs compared).")
    figures = (Figure.drawn("Ratio B / A per event with its interval; changed events in red.", _ratios_figure(res)),)
    return Section("compare", "Compared with B", tuple(paragraphs), tuple(tables), figures, tuple(notes))


def _ratios_figure(res: Any) -> Any:
    """Ratio B / A of every event with its interval on a log scale, changed events in red, each named on hover."""
    from hemkit.report import svg

    t = res.to_frame()
    ratio, lower, upper = (t[c].to_numpy(dtype=float) for c in ("ratio", "lower", "upper"))
    drawn = np.isfinite(ratio) & (ratio > 0)
    t = t[drawn]
    ratio, lower, upper = ratio[drawn], np.clip(lower[drawn], 1e-300, None), upper[drawn]
    changed = t["changed"].to_numpy(dtype=bool)
    ends = np.concatenate([lower[np.isfinite(lower)], upper[np.isfinite(upper)], ratio, [1.0]])
    lo, hi = float(ends.min()) / 1.05, float(ends.max()) * 1.05
    hover = [
        f"{e}: B / A = {r:.4g} [{a:.4g}, {b:.4g}]" + (", changed" if c else "")
        for e, r, a, b, c in zip(t["event"], ratio, lower, upper, changed, strict=True)
    ]
    level = f"{100 * res.level:.3g} %"
    return svg.forest(
        [svg.short(str(e), 40) for e in t["event"]],
        ratio.tolist(),
        lower.tolist(),
        upper.tolist(),
        title=f"Ratio of medians B / A per event with its {level} interval",
        xlabel="ratio of medians B / A (log scale; 1: no change)",
        colours=["#c0392b" if c else "#555555" for c in changed],
        hover=hover,
        legend=[("#c0392b", "changed"), ("#555555", "unchanged")],
        xlim=(lo, hi),
        zero=1.0,
        log=True,
    )


def machines(check: Any) -> Section:
    """Whether the hosts of a collection read alike: runs per host, events that differ by host and by how much.

    ``check`` is a :class:`hemkit.compare.MachinesCheck` of two or more hosts.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hemkit.compare import machines_check
    >>> rng = np.random.default_rng(0)
    >>> r = Readings({1: pd.DataFrame({"x": rng.poisson(1000, 60) * np.repeat([1.0, 1.1], 30)})})
    >>> hosts = pd.DataFrame({"group": 1, "run": range(60), "host": np.repeat(["n1", "n2"], 30)})
    >>> machines(machines_check(r, hosts)).paragraphs[0]
    '60 runs on 2 hosts: n1 30, n2 30.'
    """
    runs = check.runs
    paragraphs = [f"{sum(runs.values())} runs on {len(runs)} hosts: {', '.join(f'{h} {n}' for h, n in runs.items())}."]
    t = check.to_frame()
    own = check.differing(moved=False)
    fdr = f"{100 * (1 - check.level):.3g} %"
    margin = check.margin
    if margin:  # a host differs only where its ratio interval also lies wholly outside the margin's band
        fdr += f" and by more than {100 * margin:.3g} %"
    if own:
        events = list(dict.fromkeys(e for e, _, _ in own))
        shown = ", ".join(f"{e} on {h} x{r:.4g}" for e, h, r in own[:10]) + (" ..." if len(own) > 10 else "")
        paragraphs.append(
            f"{len(events)} of {t['event'].nunique()} events differ by host at a false discovery rate of {fdr} "
            f"(each host's readings against the others', Brunner-Munzel; {check.tests} tests): {shown}. "
            "Merging pools every run as one distribution: these readings are not that."
        )
    else:
        paragraphs.append(
            f"No event differs by host at a false discovery rate of {fdr} ({check.tests} tests of each host's "
            "readings against the others', Brunner-Munzel): the runs can be pooled as far as these runs can tell."
        )
    moved = len(check.differing()) - len(own)
    if moved:
        paragraphs.append(
            f"{moved} more (event, host) pairs are flagged only because a host that differs more is among the "
            "others they are compared with (marked in the table)."
        )
    if check.untested:
        paragraphs.append(
            f"Not tested ({len(check.untested)} (event, host) pairs): fewer than 5 runs of the event on a side."
        )
    tables: list[tuple[str, Any]] = [("Runs and machine of each host.", check.runs_per_host())]
    flagged = t[t["differs"].to_numpy(dtype=bool)]
    if len(flagged):
        cols = ["event", "host", "against", "runs", "median", "other_median", "ratio", "lower", "upper", "q_value"]
        shown_t = flagged.assign(_size=np.abs(np.log(flagged["ratio"].astype(float).clip(1e-300, 1e300))))
        shown_t = shown_t.sort_values("_size", ascending=False)[[*cols, "moved_by", "note"]].set_index("event")
        level = f"{100 * check.level:.3g} %"
        tables.append(
            (
                f"Events that differ by host: the host's median over the others' (ratio) with its {level} interval, "
                "the FDR-adjusted p-value.",
                shown_t,
            )
        )
    return Section("machines", "Machines", tuple(paragraphs), tuple(tables))


# ------------------------------------------------------------------ multiplexing and sampling
@contextmanager
def _warnings_into(notes: list[str]) -> Iterator[None]:
    """Collect every :class:`HemkitWarning` raised inside into ``notes`` (once each): they become section warnings."""
    from hemkit.core.errors import HemkitWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HemkitWarning)
        try:
            yield
        finally:
            others = []
            for w in caught:
                if issubclass(w.category, HemkitWarning):
                    text = " ".join(str(w.message).split())
                    if text not in notes:
                        notes.append(text)
                else:
                    others.append(w)
    for w in others:  # not ours to judge: let them through as they came
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _file_name(where: str) -> str:
    """The last part of a path for a title, also of a folder given with a trailing slash (``traces/``).

    >>> _file_name("runs/traces/"), _file_name("a/b.csv"), _file_name("data")
    ('traces', 'b.csv', 'data')
    """
    return os.path.basename(os.path.normpath(where)) or where


def _where(source: Any) -> str:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    attrs = getattr(source, "attrs", None)
    return str(attrs.get("source", "data")) if isinstance(attrs, dict) else "data"


@contextmanager
def _naming(where: str) -> Iterator[None]:
    """An :class:`InputError` inside names ``where`` (the file at fault), in one line."""
    from hemkit.core.errors import InputError

    try:
        yield
    except InputError as exc:
        text = " ".join(str(exc).split())
        raise InputError(text if where in text else f"{where}: {text}") from None


def _interval_ms(trace: pd.DataFrame | None) -> float | None:
    """The interval length of a trace in milliseconds (median step of ``t``), when the trace says."""
    if trace is None or "t" not in trace.columns or trace["t"].isna().all():
        return None
    dt = trace.drop_duplicates(["run", "step"]).sort_values(["run", "step"]).groupby("run")["t"].diff()
    dt = dt[dt > 0]
    return float(np.median(dt)) * 1e3 if len(dt) else None


def _mpx_table(data: Any, est: Any, name: str, totals: Any = None) -> pd.DataFrame:
    """One row per series: intervals, time on a counter, perf's and hemkit's totals, its interval (and the truth)."""
    valid = data.valid
    enabled = np.where(valid, np.nan_to_num(data.enabled), 0.0).sum(axis=1)
    running = np.where(valid, np.nan_to_num(data.running), 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        time_share = np.where(enabled > 0, running / enabled, np.nan)
    keys = data.keys.reset_index(drop=True)
    index = (
        pd.Index(keys["event"], name="event")
        if keys["run"].nunique() == 1
        else pd.MultiIndex.from_frame(keys[["run", "event"]])
    )
    perf = np.asarray(est.perf_totals, float)
    # with intervals: their totals (pooled over the runs of a workload where it had several)
    mine = est.totals() if totals is None else totals.table["total"].to_numpy(float)
    table = pd.DataFrame(
        {
            "intervals": data.length,
            "on a counter (intervals)": data.observed.sum(axis=1),
            "time on a counter (fraction)": time_share,
            "total, perf scaled": perf,
            f"total, hemkit {name}": mine,
        },
        index=index,
    )
    if totals is not None:
        pct = format_percent(totals.level)
        table[f"lower ({pct})"] = totals.table["lower"].to_numpy()
        table[f"upper ({pct})"] = totals.table["upper"].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        table["hemkit / perf"] = mine / perf
        if data.truth is not None:
            truth = np.nansum(np.where(valid, data.truth, np.nan), axis=1)
            table["true total"] = truth
            if totals is not None:
                inside = (truth >= totals.table["lower"].to_numpy()) & (truth <= totals.table["upper"].to_numpy())
                table["truth in interval"] = np.where(inside, "yes", "no")
            table["perf error (%)"] = 100 * (perf - truth) / truth
            table["hemkit error (%)"] = 100 * (mine - truth) / truth
    return table


def _mpx_series_figure(
    data: Any, values: Mapping[str, np.ndarray], events: list[str], run: str, ms: float | None
) -> Any:
    from hemkit.mpx.plots import plot_series

    fig = _figure(9.5, 2.7 * len(events) + 0.7)
    axes = fig.subplots(len(events), 1, squeeze=False)
    for ax, event in zip(axes[:, 0], events, strict=True):
        plot_series(data, values, run, event, ax=ax)
        ax.set_xlabel(f"interval ({ms:.3g} ms each)" if ms else "interval (index)")
    fig.suptitle(f"{run}: counted slices, perf's scaling and hemkit's estimate over time")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    return fig


def _mpx_totals_figure(table: pd.DataFrame, name: str, run_count: int, totals: Any = None) -> Any:
    labels = [_short(" ".join(map(str, i)) if isinstance(i, tuple) else str(i), 36) for i in table.index]
    fig = _figure(max(6.0, 0.45 * len(table) + 3), 4)
    ax = fig.subplots()
    x = np.arange(len(table))
    series = [(f"hemkit {name}", table["hemkit / perf"])]
    if "true total" in table.columns:
        series.append(("true total (exact counts)", table["true total"] / table["total, perf scaled"]))
    width = 0.8 / len(series)
    for k, (label, ratio) in enumerate(series):
        ratio = ratio.where(np.isfinite(ratio))  # perf's total 0 (never counted while on a counter): no bar
        ax.bar(x + (k - (len(series) - 1) / 2) * width, ratio, width, label=label)
    if totals is not None:
        _interval_bars(ax, x - (len(series) - 1) / 2 * width, table, totals)
    ax.axhline(1.0, color="black", lw=1, ls="--", label="perf's scaled total")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.set_title(f"Totals relative to perf's scaled total ({len(table)} series of {run_count} run(s))")
    ax.set_xlabel("event" if run_count == 1 else "run and event")
    ax.set_ylabel("total / perf's scaled total (ratio)")
    ax.legend(fontsize="small")
    return fig


def _interval_paragraph(totals: Any, table: pd.DataFrame) -> str:
    """What the intervals on the totals say, in a few sentences."""
    t = totals.table
    exact = int((t["lower"] == t["upper"]).sum())
    unbounded = int(np.isinf(t["upper"]).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        half = ((t["upper"] - t["lower"]) / 2 / t["total"].where(t["total"] > 0)).replace(np.inf, np.nan)
    text = (
        f"How far to trust each total: hemkit's {format_percent(totals.level)} interval (lower, upper) comes from "
        "how much the "
        "event's rate moved between its slices, how much of the run it was off its counter and how far hemkit's "
        "total is from perf's, scaled by a multiplier chosen on traces whose exact totals are known "
        "(BENCHMARKS.md: how often they held the true totals on workloads left out of that choice). "
        f"Median half-width {np.nanmedian(half):.1%} of the total"
        f"; {exact} of {len(t)} totals are exact (the event was on a counter the whole run)"
    )
    if unbounded:
        text += (
            f"; {unbounded} have no upper bound: every slice of the event read 0, and counts that fell only while "
            "it was off its counter (a burst at the program's start) are invisible to any estimate"
        )
    pooled = int((t["runs_pooled"] > 1).sum())
    if pooled:
        text += (
            f"; {pooled} totals are pooled with the other runs of their workload and event (a program counts about "
            "the same from run to run, while which bursts fall in a run's gaps is chance), as far as the runs' "
            "true totals agree (read from their totals against perf's end-of-run totals)"
        )
        alike = totals.alike_workloads()
        if alike:
            text += (
                f"; the runs of {', '.join(alike[:5])}{' and more' if len(alike) > 5 else ''} list their events in "
                "one order, so their gaps fall at the same places of the program and pooling cannot average out "
                "what those hide: listed from a different event in each run (perf stat -e b,c,a after -e a,b,c, as "
                "hemkit mpx trace records them), each run's first intervals come from the runs that counted them, "
                "and on 8 sets of traces pooled totals came to 0.50-0.52x perf's scaling's error against "
                "0.66-0.68x listed alike (BENCHMARKS.md)"
            )
    if totals.not_pooled:
        text += f"; not pooled with other runs: {totals.not_pooled}"
    by_runs = int((t["scale_from"] == "runs").sum()) if "scale_from" in t.columns else 0
    if by_runs:
        text += (
            f"; the intervals of {by_runs} totals left on their own also read how far the other runs of their "
            "workload put the event's total"
        )
    if "truth in interval" in table.columns:
        inside = int((table["truth in interval"] == "yes").sum())
        text += f". The exact total is inside the interval for {inside} of {len(t)}"
    return text + "."


def _interval_bars(ax: Any, x: np.ndarray, table: pd.DataFrame, totals: Any) -> None:
    """The interval of each hemkit total as an error bar (a triangle where it has no upper bound)."""
    perf = table["total, perf scaled"].to_numpy(float)
    upper = totals.table["upper"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mid = table["hemkit / perf"].to_numpy(float)
        lo = totals.table["lower"].to_numpy(float) / perf
        hi = upper / perf
        # no ratio where perf's total is 0 (the event read 0 in every slice it had): no bar there
        shown = (perf > 0) & np.isfinite(mid)
        bounded = shown & np.isfinite(upper)
        below = np.where(bounded, np.clip(mid - lo, 0, None), 0.0)
        above = np.where(bounded, np.clip(hi - mid, 0, None), 0.0)
    ax.errorbar(
        x[bounded],
        mid[bounded],
        yerr=[below[bounded], above[bounded]],
        fmt="none",
        ecolor="black",
        capsize=3,
        lw=1,
        label=f"hemkit's {format_percent(totals.level)} interval",
    )
    unbounded = ~np.isfinite(upper)  # every slice read 0: perf's total is 0 too, drawn at the top
    if unbounded.any():
        top = float(np.nanmax(np.where(shown, mid, np.nan))) if shown.any() else 1.0
        ax.plot(x[unbounded], np.full(unbounded.sum(), top), "^", color="black", label="no upper bound (never counted)")


def multiplexing(
    source: Any,
    *,
    estimator: str | None = None,
    pmcs: int | None = 2,
    shown: int = 3,
    wraps: str = "repair",
    level: float = 0.9,
) -> Section:
    """Multiplexing figures of a ``perf stat -I`` interval trace: perf's scaling against hemkit's estimate.

    Parameters
    ----------
    source : path, DataFrame or MpxData
        A multiplexed ``perf stat -I MS -x,`` file (or ``-j``), ``hemkit mpx emulate`` output,
        a tidy trace (:func:`hemkit.io.traces.read_trace`) or :class:`hemkit.mpx.MpxData`.
    estimator : str, optional
        hemkit's estimator (default :data:`hemkit.mpx.DEFAULT_ESTIMATOR`); perf's own scaling
        (``fixed``) is always shown beside it.
    pmcs : int or None
        A trace recorded without multiplexing (every event on a counter all the time: its
        counts are exact) is multiplexed in emulation on this many counters, so the page
        shows what perf's scaling and hemkit's estimate would make of it against the exact
        counts; ``None`` shows it as it is.
    shown : int
        Events drawn over time (those whose estimated total differs most from perf's).
    wraps : {"repair", "drop", "error"}
        Counter wrap-arounds (counts >= 2^47): as :func:`hemkit.io.traces.read_trace`; a
        repair or a drop is a warning of the section.
    level : float
        Level of the interval on each total (:func:`hemkit.mpx.totals.total_intervals`).

    Raises
    ------
    InputError
        The trace cannot be read or estimated (one line naming the file).
    """
    from hemkit.io.traces import read_trace
    from hemkit.mpx.emulate import MpxData, emulate
    from hemkit.mpx.registry import DEFAULT_ESTIMATOR, load_estimator, make_estimator
    from hemkit.mpx.totals import total_intervals

    name = estimator or DEFAULT_ESTIMATOR
    where = _where(source)
    notes: list[str] = []
    paragraphs: list[str] = []
    with _naming(where), _warnings_into(notes):
        trace = None
        if isinstance(source, MpxData):
            data = source
        else:
            trace = source if isinstance(source, pd.DataFrame) else read_trace(source, ocoe=False, wraps=wraps)
            data = MpxData.from_tidy(trace, source=where)
        exact = bool((data.known | ~data.valid).all())
        per_run = int(data.keys.groupby("run")["event"].size().max())
        emulated = exact and pmcs is not None and pmcs < per_run and trace is not None and "value" in trace.columns
        if emulated:
            assert trace is not None and pmcs is not None
            data = emulate(trace.assign(value=trace["value"].fillna(0.0)), pmcs)
            paragraphs.append(
                f"{where} was recorded without multiplexing: every event was on its own counter all the time, "
                f"so its counts are exact. To show what multiplexing would cost, its {per_run} events per run were "
                f"multiplexed in emulation on {pmcs} counters (perf's round-robin rotation, one step per interval); "
                "perf's scaling and hemkit's estimate were computed from the emulated slices only and are compared "
                "with the exact counts."
            )
        elif exact:
            paragraphs.append(
                f"Every event of {where} was on a counter all the time: perf's totals are exact and nothing "
                "needed estimating."
            )
        blind = data.without_truth()
        est = load_estimator(name).estimate(blind)
        perf = make_estimator("fixed").estimate_array(blind)
        totals = total_intervals(blind, est, level=level)
    table = _mpx_table(data, est, est.estimator, totals)
    runs = list(dict.fromkeys(data.keys["run"].astype(str)))
    paragraphs.append(
        f"{len(data.keys)} series ({data.keys['event'].nunique()} events of {len(runs)} run(s)); on average each "
        f"event was on a counter {np.nanmean(table['time on a counter (fraction)']):.0%} of the time. perf scales "
        "each counted slice by enabled / running time and holds it where the event had no counter (its "
        f"<not counted> intervals); hemkit's {est.estimator} estimator fills those gaps from what the other "
        "events show (see hemkit mpx estimate). hemkit's series tell when the counts happened (its relative "
        "accuracy is the better one on held-out workloads); the default estimator's totals are estimated apart "
        "from its series; on the held-out trace sets of BENCHMARKS.md their median error was 0.30-0.91x that of "
        "perf's scaling pooled over the runs of a workload (as here when the traces hold several runs of one "
        "workload) and 0.30-1.00x for a run alone, though for a few bursty sparse events (kmem_cache_alloc, brk, "
        "openat; branch misses on Zen 5) perf's total is still the closer one.",
    )
    paragraphs.append(_interval_paragraph(totals, table))
    first = data.keys["run"].astype(str) == runs[0]
    sub = table[first.to_numpy()]
    gap = (sub["hemkit / perf"] - 1).abs().fillna(0).to_numpy()
    order = np.argsort(-gap, kind="stable")[: max(1, shown)]
    events = [str(data.keys.loc[first, "event"].iloc[i]) for i in sorted(order)]
    values = {"perf scaling": perf, f"hemkit {est.estimator}": est.values}
    ms = _interval_ms(trace)
    figures = (
        Figure.of(
            f"{runs[0]}: the slices on a counter (dots), perf's scaled values and hemkit's {est.estimator} "
            f"estimate{' against the exact counts' if data.truth is not None else ''} for {len(events)} events.",
            _mpx_series_figure(data, values, events, runs[0], ms),
        ),
        Figure.of(
            "Each series' total by hemkit (and the exact total where known) divided by perf's scaled total, "
            f"with hemkit's {format_percent(level)} interval on its total.",
            _mpx_totals_figure(table, est.estimator, len(runs), totals),
        ),
    )
    caption = (
        "Per series: intervals, how many and how much of the time it was on a counter, its total as perf scales "
        f"it and as hemkit's {est.estimator} estimates it, with a {format_percent(level)} interval on hemkit's total"
        + (" and its exact total, with both errors." if data.truth is not None else ".")
    )
    return Section(
        "mpx",
        f"Multiplexing: {_file_name(where)}",
        paragraphs=tuple(paragraphs),
        tables=((caption, table),),
        figures=figures,
        warnings=tuple(notes),
    )


def _share_table(profile: Any, top: int) -> pd.DataFrame:
    cols = [c for c in ("dso", "samples", "share", "low", "high") if c in profile.table.columns]
    out = profile.table.head(top)[cols].copy()
    out.index = pd.Index([str(i) for i in out.index], name=profile.table.index.name)
    return out


def _shares_figure(profile: Any, top: int) -> Any:
    from hemkit.sampling.plots import plot_shares

    fig = _figure(8.5, 0.3 * min(top, len(profile.table)) + 1.8)
    plot_shares(profile, ax=fig.subplots(), top=top)
    return fig


def sampling_diff(a: Any, b: Any, *, top: int = 15, level: float = 0.95) -> Section:
    """Two ``perf record`` profiles compared by symbol: which shares changed from A to B, with intervals.

    Parameters
    ----------
    a, b : path or DataFrame
        As :func:`sampling`'s ``source``.
    top : int
        Rows of the table and bars of the figure (largest changes first).
    level : float
        Level of the difference intervals; the false discovery rate is ``1 - level``.

    Raises
    ------
    InputError
        A file that cannot be read or holds no samples (naming it).
    """
    from hemkit.sampling.diff import profile_diff
    from hemkit.sampling.plots import plot_diff
    from hemkit.sampling.profile import read_samples

    names = [_where(x) for x in (a, b)]
    notes: list[str] = []
    sides = []
    for where, x in zip(names, (a, b)):
        with _naming(where), _warnings_into(notes):
            sides.append(x if isinstance(x, pd.DataFrame) else read_samples(x))
    with _warnings_into(notes):
        d = profile_diff(sides[0], sides[1], by="sym", level=level)
    changed = d.changed
    shown = ", ".join(changed[:10]) + (f" ... ({len(changed)} in all)" if len(changed) > 10 else "")
    paragraphs = [
        f"{len(changed)} of {len(d.table)} symbols changed share from A ({_file_name(names[0])}, "
        f"{d.samples_a} samples) to B ({_file_name(names[1])}, {d.samples_b} samples) at a false "
        f"discovery rate of {format_percent(1 - level)}" + (f": {shown}." if changed else "."),
        "Each difference's interval comes from both profiles' own errors of each share (estimated from "
        "the samples in time order); perf diff prints the same differences without them.",
    ]
    cols = ["share_a", "share_b", "difference", "lower", "upper", "q_value", "changed", "note"]
    pct = format_percent(level)
    table = d.table.head(top)[cols].copy()
    table.index = pd.Index([str(i) for i in table.index], name="sym")
    fig = _figure(8.5, 0.3 * min(top, len(d.table)) + 2.0)
    plot_diff(d, ax=fig.subplots(), top=top)
    return Section(
        "profile-diff",
        f"Sampling profiles compared: {_file_name(names[1])} vs {_file_name(names[0])}",
        paragraphs=tuple(paragraphs),
        tables=((f"The {len(table)} largest share changes (B - A, fractions 0-1) with {pct} intervals.", table),),
        figures=(Figure.of("Share changes by symbol with their intervals; changed ones in red.", fig),),
        warnings=tuple(notes),
    )


def sampling(
    source: Any, *, top: int = 15, level: float = 0.95, method: str = "systematic", event: str | None = None
) -> Section:
    """A ``perf record`` profile by DSO and by symbol: the ``top`` shares with confidence intervals.

    Parameters
    ----------
    source : path or DataFrame
        A ``perf.data`` file (decoded with ``perf script``), ``perf script`` text, or samples
        from :func:`hemkit.sampling.read_samples`.
    top : int
        Rows of each table and bars of each figure.
    level, method :
        The intervals (see :func:`hemkit.sampling.profile_shares`).
    event : str, optional
        The sampling event when the file holds several (default: the most sampled one, and
        a section warning naming the others).

    Raises
    ------
    InputError
        The file cannot be read or holds no samples (one line naming the file).
    """
    from hemkit.sampling.profile import profile_shares, read_samples

    where = _where(source)
    notes: list[str] = []
    profiles = []
    with _naming(where), _warnings_into(notes):
        samples = source if isinstance(source, pd.DataFrame) else read_samples(source)
        if event is None and "event" in samples.columns:
            counts = samples["event"].value_counts()  # categorical: unsampled categories count 0
            counts = counts[counts > 0]
            if len(counts) > 1:
                event = str(counts.index[0])
                notes.append(f"{where}: samples of {len(counts)} events; shown: {event} (the most sampled)")
        if "dso" in samples.columns and (samples["dso"] != "").any():
            profiles.append(profile_shares(samples, by="dso", level=level, method=method, event=event))
        else:
            notes.append(f"{where}: the samples carry no DSO names: no profile by DSO")
        profiles.append(profile_shares(samples, by="sym", level=level, method=method, event=event))
    p = profiles[-1]
    what = f" of {p.event}" if p.event else ""
    tables, figures = [], []
    for prof in profiles:
        kind = "DSO" if prof.by == "dso" else "symbol"
        rows = min(top, len(prof.table))
        tables.append(
            (
                f"The {rows} largest of {len(prof.table)} {kind}s, with {format_percent(prof.level)} {prof.method} "
                "intervals "
                "(share: fraction of the sampled events, 0-1).",
                _share_table(prof, top),
            )
        )
        fig = _shares_figure(prof, top)
        figures.append(Figure.of(f"Shares by {kind}: bars with their {format_percent(prof.level)} intervals.", fig))
    paragraph = (
        f"{p.n_samples} samples{what} (effective sample size {p.n_eff:.0f}). Each sample stands for its period "
        "of events; a share's interval says how far the true share may be from the profiled one."
    )
    return Section(
        "profile",
        f"Sampling profile: {_file_name(where)}",
        paragraphs=(paragraph,),
        tables=tuple(tables),
        figures=tuple(figures),
        warnings=tuple(notes),
    )
