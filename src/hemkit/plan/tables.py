"""Plan constraints from perf's event tables (:mod:`hemkit.io.event_tables`): restricted and fixed counters."""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Sequence

from hemkit.core.errors import Fix, HemkitWarning, InputError
from hemkit.io.event_tables import EventTable
from hemkit.io.perf_files import split_pmu

#: how alike an event missing from the tables and a name they hold must be to be named as a likely typo
TYPO_CUTOFF = 0.85


def _warn_typos(events: Sequence[str], table: EventTable) -> None:
    """Say which events the tables lack while holding a name close to theirs (a typo is planned unrestricted)."""
    known = sorted({name for _, name in (*table.counters, *table.fixed)})
    for e in events:
        if table.counters_of(e) is not None or table.fixed_of(e) is not None:
            continue
        name = split_pmu(e)[1].split(":")[0]
        close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=TYPO_CUTOFF)
        if close and close[0] != name.lower():
            like = close[0].upper() if name.isupper() else close[0]
            warnings.warn(
                HemkitWarning(
                    f"event {e!r} is in none of the event tables, which list {like!r}; a typo? "
                    f"{e!r} is planned without counter restrictions"
                ),
                stacklevel=3,
            )


def table_constraints(events: Sequence[str], table: EventTable, pmcs: int) -> tuple[dict[str, list[int]], list[str]]:
    """The counter restrictions (``Constraints.counters``) and fixed-counter events the tables give ``events``.

    An event allowed on every one of the ``pmcs`` counters is not restricted; one allowed on
    none of them cannot be planned here.

    Raises
    ------
    InputError
        An event whose table allows only counters beyond ``pmcs``, naming the table.

    Warns
    -----
    HemkitWarning
        An event the tables lack while they hold a name close to it (``L1D_PEND_MISS.PENDNG``:
        a typo, planned on any counter where ``L1D_PEND_MISS.PENDING`` may use counter 2 only).

    Examples
    --------
    >>> restricted = {("", "cycle_activity.stalls_l1d_miss"): (2,), ("", "br_misp_retired.all_branches"): (0, 1, 2, 3)}
    >>> t = EventTable(counters=restricted, fixed={("", "inst_retired.any"): 0})
    >>> events = ["CYCLE_ACTIVITY.STALLS_L1D_MISS", "BR_MISP_RETIRED.ALL_BRANCHES", "INST_RETIRED.ANY"]
    >>> table_constraints(events, t, 4)
    ({'CYCLE_ACTIVITY.STALLS_L1D_MISS': [2]}, ['INST_RETIRED.ANY'])
    """
    _warn_typos(events, table)
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
