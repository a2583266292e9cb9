"""What kind of event a name is (software, tracepoint, hardware), and the kernel settings said about them.

Shared by :mod:`hemkit.collect.probe` and :mod:`hemkit.collect.collector`.
"""

from __future__ import annotations

import re
import warnings

from hemkit.core.errors import HemkitWarning
from hemkit.io.kernel import CounterSettings

#: perf's software events (``perf list sw``); they use no hardware counter
SOFTWARE_EVENTS = frozenset(
    {
        "cpu-clock",
        "task-clock",
        "page-faults",
        "faults",
        "context-switches",
        "cs",
        "cpu-migrations",
        "migrations",
        "minor-faults",
        "major-faults",
        "alignment-faults",
        "emulation-faults",
        "dummy",
        "bpf-output",
        "cgroup-switches",
    }
)
_MODIFIERS = re.compile(r"^[ukhIGHpPSDWe]{1,6}$")


def event_kind(event: str) -> str:
    """``"software"``, ``"tracepoint"`` or ``"hardware"`` (anything that may take a counter).

    Examples
    --------
    >>> [event_kind(e) for e in ["task-clock", "sched:sched_switch", "cycles:u", "r00c0"]]
    ['software', 'tracepoint', 'hardware', 'hardware']
    """
    name, _, suffix = event.partition(":")
    if name in SOFTWARE_EVENTS and (not suffix or _MODIFIERS.match(suffix)):
        return "software"
    if suffix and "/" not in event and not _MODIFIERS.match(suffix):
        return "tracepoint"
    return "hardware"


def warn_settings(settings: CounterSettings, *, hardware: bool) -> list[str]:
    """One :class:`HemkitWarning` per kernel setting that costs counters (only with ``hardware`` events) or events.

    Returns the lines warned.
    """
    lines = settings.lines(hardware=hardware)
    for line in lines:
        warnings.warn(line, HemkitWarning, stacklevel=3)
    return lines


__all__ = ["SOFTWARE_EVENTS", "event_kind", "warn_settings"]
