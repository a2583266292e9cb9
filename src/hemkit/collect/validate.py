"""Validate one ``perf stat`` reading before it enters the collection.

Rules (issue 3 and ``notes/perf.md``: multiplexed counts on these VMs come back corrupt,
e.g. 1.9e15 instructions for a program retiring 4.0e8):

- ``<not supported>``: the event cannot be counted here -> the collection **stops**
  (:class:`hemkit.MeasurementError` naming the group and event); re-running cannot help.
- ``<not counted>``: the event never got a counter -> invalid, re-run.
- percentage below 100: the event was multiplexed (scaled) -> invalid, re-run.
- implausible values: a count at or above 2**47 (counters are 48 bits; scaled garbage
  lands there), or instructions more than 8 x cycles -> invalid, re-run.
- an event of the group missing from perf's output, or the command failing -> invalid.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from hemkit.core.errors import MeasurementError
from hemkit.external.process import describe_status

#: counts at or above this are treated as corrupt (48-bit counters; scaled garbage)
MAX_COUNT = 2.0**47
#: most instructions per cycle considered plausible
MAX_IPC = 8.0
_INSTRUCTIONS = ("instructions", "r00c0", "instructions:u", "instructions:k")
_CYCLES = ("cycles", "cpu-cycles", "r0076", "cycles:u", "cycles:k")


def _base(event: str) -> str:
    return event.strip().strip("{}")


def check_reading(counts: pd.DataFrame, events: Sequence[str], *, group: object = None, returncode: int = 0) -> str:
    """Return ``""`` for a valid reading, else the reason it is invalid.

    Parameters
    ----------
    counts : DataFrame
        :func:`hemkit.io.perf_stat.parse_perf_stat` output of one run.
    events : sequence of str
        The events the group asked for.
    group : optional
        Group id, for the error message.
    returncode : int
        The measured command's exit code.

    Raises
    ------
    MeasurementError
        An event is ``<not supported>``: the collection cannot go on.

    Examples
    --------
    >>> t = pd.DataFrame({"event": ["task-clock"], "value": [1.5], "percent": [100.0], "status": ["ok"]})
    >>> check_reading(t, ["task-clock"])
    ''
    >>> check_reading(t.assign(percent=[62.0]), ["task-clock"])
    'task-clock multiplexed (counted 62% of the time)'
    """
    where = f"group {group!r}" if group is not None else "the group"
    by_event = {_base(e): row for e, row in zip(counts["event"], counts.itertuples(index=False))}
    unsupported = [e for e in events if e in by_event and by_event[e].status == "not supported"]
    if unsupported:
        raise MeasurementError(
            f"{where}: event {unsupported[0]!r} is <not supported> by perf on this machine; "
            "drop it from the plan (see 'hemkit probe')"
        )
    if returncode != 0:
        return f"command {describe_status(returncode)}"
    missing = [e for e in events if e not in by_event]
    if missing:
        return f"{missing[0]} missing from perf output"
    for e in events:
        r = by_event[e]
        if r.status != "ok":
            return f"{e} {r.status}"
        if not np.isfinite(r.value):
            return f"{e} unreadable"
        if np.isfinite(r.percent) and r.percent < 100:
            return f"{e} multiplexed (counted {r.percent:g}% of the time)"
        if r.value >= MAX_COUNT:
            return f"{e} implausible count {r.value:.3g} (>= 2^47)"
        if r.value < 0:
            return f"{e} negative count {r.value:g}"
    ins = next((by_event[e].value for e in _INSTRUCTIONS if e in by_event and e in events), None)
    cyc = next((by_event[e].value for e in _CYCLES if e in by_event and e in events), None)
    if ins is not None and cyc is not None and cyc > 0 and ins > MAX_IPC * cyc:
        return f"implausible: instructions {ins:.3g} > {MAX_IPC:g} x cycles {cyc:.3g}"
    return ""
