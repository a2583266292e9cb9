"""Plan constraints from perf's event tables (:mod:`hemkit.io.event_tables`): restricted and fixed counters."""

from __future__ import annotations

from collections.abc import Sequence

from hemkit.core.errors import Fix, InputError
from hemkit.io.event_tables import EventTable


def table_constraints(events: Sequence[str], table: EventTable, pmcs: int) -> tuple[dict[str, list[int]], list[str]]:
    """The counter restrictions (``Constraints.counters``) and fixed-counter events the tables give ``events``.

    An event allowed on every one of the ``pmcs`` counters is not restricted; one allowed on
    none of them cannot be planned here.

    Raises
    ------
    InputError
        An event whose table allows only counters beyond ``pmcs``, naming the table.

    Examples
    --------
    >>> restricted = {("", "cycle_activity.stalls_l1d_miss"): (2,), ("", "br_misp_retired.all_branches"): (0, 1, 2, 3)}
    >>> t = EventTable(counters=restricted, fixed={("", "inst_retired.any"): 0})
    >>> events = ["CYCLE_ACTIVITY.STALLS_L1D_MISS", "BR_MISP_RETIRED.ALL_BRANCHES", "INST_RETIRED.ANY"]
    >>> table_constraints(events, t, 4)
    ({'CYCLE_ACTIVITY.STALLS_L1D_MISS': [2]}, ['INST_RETIRED.ANY'])
    """
    counters: dict[str, list[int]] = {}
    fixed: list[str] = []
    for e in events:
        if table.fixed_of(e) is not None:
            fixed.append(e)
            continue
        allowed = table.counters_of(e)
        if allowed is None:
            continue
        usable = [c for c in allowed if c < pmcs]
        if not usable:
            raise InputError(
                f"event {e!r} may only use counter(s) {','.join(map(str, allowed))} ({table.where(e)}), "
                f"but pmcs {pmcs} plans counters 0-{pmcs - 1}",
                fix=Fix("pmcs", max(allowed) + 1),
                param="pmcs",
            )
        if len(usable) < pmcs:
            counters[e] = usable
    return counters, fixed


__all__ = ["table_constraints"]
