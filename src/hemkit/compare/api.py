"""``compare(a, b)``: did each event change between two sets of runs, and by how much.

Per event read on both sides (every group's readings of an event pooled, per side): the
medians, their ratio ``B / A`` with a percentile-bootstrap interval, the Brunner-Munzel test
(unequal spreads, tied counts; its permutation p-value for few runs or heavily tied counts)
and Benjamini-Hochberg across events at ``1 - level``
(:mod:`hemkit.core.stats`; why these, by calibration: ``benchmarks/compare_calibration.py`` and
BENCHMARKS.md).  With ``pairs=True`` also every pair's correlation on each side and its change
(:mod:`hemkit.compare.pairs`).  Given the host of each run (``hosts``), each side whose runs come
from several hosts is checked with :func:`hemkit.compare.machines_check`: hosts that read an
event differently, pooled as one sample, inflate its spread, so the side is named in a warning
(the verdict is computed as before; :attr:`CompareResult.machines` keeps the checks).

With ``margin`` (a relative change, 0.01 for 1 %) each event also gets a verdict at a size that
matters (:func:`hemkit.compare.limits.verdicts`): ``changed`` where it is flagged and its ratio
interval lies wholly outside ``[1 / (1 + margin), 1 + margin]``, ``alike`` where the interval lies
wholly inside (equivalence by two one-sided tests at ``(1 - level) / 2`` each), ``unclear``
otherwise: with many runs a difference of 0.2 % is flagged, and is ``alike`` at a 1 % margin.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from hemkit.compare.limits import FEW_RUNS, MIN_RUNS, check_level, check_margin, mostly_zero_note, verdicts
from hemkit.compare.result import CompareResult, EventTable
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.numbers import format_percent, plural
from hemkit.core.readings import Readings
from hemkit.core.rng import SeedLike, child
from hemkit.core.stats import brunner_munzel, fdr_bh, median_ratio, null_placements, sort_samples

if TYPE_CHECKING:
    import pandas as pd

    from hemkit.compare.machines import MachinesCheck

#: readings of side A kept per event for the power computation
POWER_SAMPLE = 2000


def _name(readings: Readings, side: str) -> str:
    return f"{side}: {readings.source}" if readings.source else side


def _shown(events: list, n: int = 8) -> str:
    return ", ".join(map(repr, events[:n])) + (f" ... ({len(events)} in all)" if len(events) > n else "")


def _common_events(a: Readings, b: Readings) -> tuple[list[str], list[str], list[str]]:
    in_b = set(b.events)
    in_a = set(a.events)
    common = [e for e in a.events if e in in_b]
    only_a = [e for e in a.events if e not in in_b]
    only_b = [e for e in b.events if e not in in_a]
    if not common:
        raise InputError(
            f"{_name(a, 'A')} and {_name(b, 'B')} share no event: A has {_shown(a.events)}; B has {_shown(b.events)}"
            " (the same events spelt differently? compare needs the same names on both sides)"
        )
    if only_a or only_b:
        parts = [f"only in A: {_shown(only_a)}" if only_a else "", f"only in B: {_shown(only_b)}" if only_b else ""]
        warnings.warn(
            f"{'; '.join(p for p in parts if p)} (not compared)",
            HemkitWarning,
            stacklevel=3,
        )
    return common, only_a, only_b


def _samples(readings: Readings, events: list[str], side: str) -> list[np.ndarray]:
    """Each event's readings of one side, pooled over groups and sorted; refuses too few runs."""
    out, few = [], []
    for e in events:
        parts = [g.values[:, g.events.index(e)] for g in readings.arrays.values() if e in g.events]
        x = parts[0] if len(parts) == 1 else np.concatenate(parts)
        if len(x) < MIN_RUNS:
            raise InputError(
                f"{_name(readings, side)}: event {e!r} has {plural(len(x), 'run')}; a comparison "
                f"needs at least {MIN_RUNS} on each side (and warns under {FEW_RUNS}): record more runs of it "
                "(a collection stopped early: continue it with hemkit collect)"
            )
        if len(x) < FEW_RUNS:
            few.append((e, len(x)))
        out.append(x)
    if few:
        counts = {n for _, n in few}
        if len(few) == len(events) and len(counts) == 1:  # every event read in the same few runs: say it once
            which = f"every event has {plural(counts.pop(), 'run')}, fewer than {FEW_RUNS}"
        else:
            listed = ", ".join(f"{e!r}: {n}" for e, n in few[:5]) + (" ..." if len(few) > 5 else "")
            verb = "has" if len(few) == 1 else "have"
            which = f"{plural(len(few), 'event')} {verb} fewer than {FEW_RUNS} runs ({listed})"
        warnings.warn(
            f"{_name(readings, side)}: {which}: only large changes can be seen (see the detectable change)",
            HemkitWarning,
            stacklevel=3,
        )
    return sort_samples(out)


def _notes(
    ratios: Any, sa: list[np.ndarray], sb: list[np.ndarray], flagged: np.ndarray, verdict: np.ndarray, margin: float
) -> list[str]:
    changed = verdict == "changed"
    notes = []
    for i, basis in enumerate(ratios.basis):
        a0, a1, b0, b1 = sa[i][0], sa[i][-1], sb[i][0], sb[i][-1]
        if basis == "constant":
            if a0 == b0:
                notes.append(f"constant ({a0:g}) on both sides: unchanged")
            else:
                said = "changed" if changed[i] else f"a difference within the {format_percent(margin)} margin"
                notes.append(f"constant on each side ({a0:g} in A, {b0:g} in B): {said}, without noise")
        elif basis == "mean":
            notes.append(mostly_zero_note(sa[i], sb[i], ratios.lower[i], ratios.upper[i]))
        elif basis == "zero":
            side = "A" if ratios.mean_a[i] == 0 else "B"
            notes.append(f"0 in every run of {side}: ratio {'infinite' if side == 'A' else '0'}; see difference")
        elif a0 == a1 or b0 == b1:
            notes.append(f"constant ({a0 if a0 == a1 else b0:g}) in {'A' if a0 == a1 else 'B'}")
        else:
            notes.append("")
        r = ratios.ratio[i]
        if changed[i] and basis == "median" and ratios.lower[i] <= 1.0 <= ratios.upper[i]:
            shape = "changed in spread or shape: the medians' ratio interval holds 1"
            notes[-1] = f"{notes[-1]}; {shape}" if notes[-1] else shape
        if basis in ("median", "mean") and (r > 10 or r < 0.1) and "too few non-zero" not in notes[-1]:
            far = f"B is {r:.3g} x A: another program, unit or scale?"
            notes[-1] = f"{notes[-1]}; {far}" if notes[-1] else far
        # the test sees a difference the margin does not count
        if flagged[i] and not changed[i] and basis != "constant":
            said = "within" if verdict[i] == "alike" else "not shown to reach"
            within = f"the test sees a difference, {said} the {format_percent(margin)} margin"
            notes[-1] = f"{notes[-1]}; {within}" if notes[-1] else within
    return notes


def _check_hosts(hosts: Any) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    if hosts is None:
        return None, None
    if isinstance(hosts, str | bytes) or not isinstance(hosts, Sequence) or len(hosts) != 2:
        raise InputError(
            "hosts must be a pair (hosts of A, hosts of B), each a DataFrame with columns group, run, host "
            f"(hemkit.io.read_machines) or None, got {type(hosts).__name__}",
            param="hosts",
        )
    return hosts[0], hosts[1]


def _side_machines(
    readings: Readings, hosts: pd.DataFrame | None, side: str, level: float, margin: float, seed: SeedLike
) -> MachinesCheck | None:
    """The machines check of one side whose runs name their host (None where they do not).

    At the hosts check's own margin (:data:`hemkit.compare.machines.HOSTS_MARGIN`), or the
    comparison's where that is larger: a difference between hosts below the margin the
    comparison judges at is not what its warning is for.
    """
    if hosts is None:
        return None
    from hemkit.compare.machines import HOSTS_MARGIN, machines_check

    try:
        return machines_check(
            readings, hosts, level=level, seed=child(seed, f"hosts-{side}"), margin=max(margin, HOSTS_MARGIN)
        )
    except InputError as exc:
        raise exc.reworded(f"{_name(readings, side)}: {exc.message}") from exc


def _warn_mixed_hosts(check: MachinesCheck | None, name: str, events: list[str]) -> None:
    """One warning for a side pooling runs of hosts that read one of the events compared differently."""
    if check is None or check.one_host:
        return
    compared = set(events)
    found = [(e, h, r) for e, h, r in check.differing(moved=False) if e in compared]
    if not found:
        return
    table = check.table.set_index(["event", "host"])
    shown = []
    for event, host, ratio in found[:3]:
        row = table.loc[(event, host)]
        against = f"host {row['against']!r}" if row["against"] != "others" else "the other hosts"
        shown.append(
            f"host {host!r} reads {event!r} x{ratio:.4g} [{row['lower']:.4g}, {row['upper']:.4g}] of {against}"
        )
    n_events = len({e for e, _, _ in found})
    more = f" ... ({n_events} of the {len(events)} events compared differ)" if len(found) > 3 else ""
    hosts = ", ".join(f"{h!r} {n}" for h, n in check.runs.items())
    warnings.warn(
        f"{name}: pools runs of {len(check.runs)} hosts that read differently (runs: {hosts}): "
        f"{'; '.join(shown)}{more}; "
        "as one sample its spread is inflated, so a change can be missed or found where there is none: compare "
        "the runs of one host per side (hemkit compare --host NAME, or --host-a and --host-b; --shard parts are one "
        "host each); hemkit collect --status DB shows "
        "each database's readings by host",
        HemkitWarning,
        stacklevel=3,
    )


def compare(  # noqa: PLR0913 - level and margin say what a verdict is; pairs and hosts what else is checked
    a: Readings,
    b: Readings,
    *,
    level: float = 0.95,
    seed: SeedLike = 0,
    pairs: bool = False,
    hosts: Sequence[pd.DataFrame | None] | None = None,
    margin: float = 0.0,
) -> CompareResult:
    """Compare two sets of readings event by event (and pair by pair): what changed, by how much.

    Parameters
    ----------
    a, b : Readings
        The two sides (e.g. a task in isolation and under contention; before and after a
        change).  An event read in several groups of one side pools its readings.
    level : float in (0, 1), default 0.95
        Level of the ratio intervals; ``changed`` controls the false discovery rate across
        events (and across pairs) at ``1 - level`` (Benjamini-Hochberg).
    seed : int, Generator or None, default 0
        Randomness of the bootstrap intervals (and of the merges ``pairs`` may need).
    pairs : bool, default False
        Also compare every pair's correlation (:attr:`CompareResult.pairs`).
    hosts : pair of (DataFrame or None), optional
        ``(hosts of A, hosts of B)``: the host of every run of a side, columns ``group, run,
        host`` (:func:`hemkit.io.read_machines` of what the side was read from), None for a
        side whose runs name no host.  A side whose runs come from two or more hosts is
        checked with :func:`hemkit.compare.machines_check` (:attr:`CompareResult.machines`);
        where its hosts read an event compared differently, a :class:`HemkitWarning` names the
        side, the hosts and those events, once per side.  The comparison itself is unchanged.
        The hosts are checked at the larger of ``margin`` and the hosts check's own margin
        (:data:`hemkit.compare.machines.HOSTS_MARGIN`).
    margin : float in [0, 1), default 0
        The relative change that matters (0.01: 1 %).  At 0, ``changed`` is the test's finding
        (any difference the runs can see).  With a margin ``m``, an event is ``changed`` only
        where it is also flagged at 0 and its ratio interval lies wholly outside
        ``[1 / (1 + m), 1 + m]``; the ``verdict`` column says ``changed``, ``alike`` (the
        interval wholly inside: the same within the margin) or ``unclear`` (these runs cannot
        tell at this margin).  At margin 0 only an event of one value on both sides is ``alike``.

    Returns
    -------
    CompareResult

    Raises
    ------
    InputError
        No event on both sides; an event with fewer than 5 runs on a side (naming side and
        event); ``level`` or ``margin`` out of range; ``hosts`` that do not name the host of every run of
        its side.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hemkit import Readings
    >>> rng = np.random.default_rng(0)
    >>> a = Readings({1: pd.DataFrame({"x": rng.poisson(1000, 60), "y": rng.poisson(50, 60)})})
    >>> b = Readings({1: pd.DataFrame({"x": rng.poisson(1100, 60), "y": rng.poisson(50, 60)})})
    >>> res = compare(a, b, seed=0)
    >>> res.to_frame().set_index("event")["changed"].to_dict()
    {'x': True, 'y': False}

    At a 2 % margin ``x`` (+10 %) is still changed, and ``y``'s 60 runs cannot tell:

    >>> compare(a, b, seed=0, margin=0.02).to_frame().set_index("event")["verdict"].to_dict()
    {'x': 'changed', 'y': 'unclear'}
    """
    level = check_level(level)
    margin = check_margin(margin)
    for side, r in (("A", a), ("B", b)):
        if not isinstance(r, Readings):
            raise InputError(
                f"{side} must be Readings (hemkit.io.read_readings reads any file), got {type(r).__name__}"
            )
    hosts_a, hosts_b = _check_hosts(hosts)
    events, only_a, only_b = _common_events(a, b)
    sa = _samples(a, events, "A")
    sb = _samples(b, events, "B")
    alpha = 1.0 - level
    pvals, pl = brunner_munzel(sa, sb, method="auto", resolution=alpha / len(events), seed=child(seed, "test"))
    ratios = median_ratio(sa, sb, level=level, seed=child(seed, "ratios"))
    q = fdr_bh(pvals)
    constant = ratios.basis == "constant"
    flagged = (q <= 1.0 - level) | (constant & (ratios.median_a != ratios.median_b))  # one value a side: no noise
    changed, verdict = verdicts(
        flagged, ratios.lower, ratios.upper, margin, same=constant & (ratios.median_a == ratios.median_b)
    )
    rng = np.random.default_rng(child(seed, "power-sample"))
    refs = tuple(x if len(x) <= POWER_SAMPLE else np.sort(rng.choice(x, POWER_SAMPLE, replace=False)) for x in sa)
    table = EventTable(
        events=tuple(events),
        median_a=ratios.median_a,
        median_b=ratios.median_b,
        ratio=ratios.ratio,
        lower=ratios.lower,
        upper=ratios.upper,
        p_value=pvals,
        q_value=q,
        changed=changed,
        verdict=tuple(verdict),
        superiority=pl.superiority,
        difference=ratios.median_b - ratios.median_a,
        runs_a=pl.n_a.astype(np.int64),
        runs_b=pl.n_b.astype(np.int64),
        note=tuple(_notes(ratios, sa, sb, flagged, verdict, margin)),
        basis=tuple(ratios.basis),
    )
    pair_table = None
    if pairs:
        from hemkit.compare.pairs import correlation_changes

        pair_table = correlation_changes(a, b, events, level=level, seed=child(seed, "pairs"))
    machines = (
        _side_machines(a, hosts_a, "A", level, margin, seed),
        _side_machines(b, hosts_b, "B", level, margin, seed),
    )
    for check, side, r in zip(machines, "AB", (a, b)):
        _warn_mixed_hosts(check, _name(r, side), events)
    return CompareResult(
        table=table,
        level=level,
        only_a=tuple(only_a),
        only_b=tuple(only_b),
        source_a=a.source,
        source_b=b.source,
        pairs=pair_table,
        placements=null_placements(sa, sb),
        power_sample=refs,
        machines=machines,
        margin=margin,
    )


__all__ = ["FEW_RUNS", "MIN_RUNS", "compare"]
