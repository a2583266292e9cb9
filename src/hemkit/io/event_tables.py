"""perf's event tables: which counters an event may use (issue 27 item 2).

Two formats, both JSON arrays of objects with ``EventName``:

- the kernel's ``tools/perf/pmu-events/arch/<arch>/<cpu>/*.json`` tables (as bundled in
  ``shared/data/amdzen5`` and ``hemkit/derive/data``);
- ``perf list -j`` output (one object per event, with ``Unit`` naming the PMU on hybrid CPUs).

An entry's ``Counter`` says where the event may be counted: ``"0,1,2,3"`` (general counters),
``"2"`` (a restricted event, e.g. Intel's ``CYCLE_ACTIVITY.*``) or ``"Fixed counter 1"``.
Tables without ``Counter`` (AMD's: every core event on any counter) restrict nothing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hemkit.core.errors import InputError
from hemkit.io.formats import read_input
from hemkit.io.perf_files import split_pmu

_FIXED = re.compile(r"^\s*fixed counter\s*(\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class EventTable:
    """Counter restrictions from perf's event tables.

    Attributes
    ----------
    counters : dict
        ``(unit, event name in lower case) -> counters`` it may use (``unit`` is "" when the
        table names none).
    fixed : dict
        ``(unit, event name) -> fixed counter number``.
    source : dict
        ``(unit, event name) -> the file that said so``.
    """

    counters: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict)
    fixed: dict[tuple[str, str], int] = field(default_factory=dict)
    source: dict[tuple[str, str], str] = field(default_factory=dict)

    def _key(self, event: str) -> tuple[str, str] | None:
        unit, name = split_pmu(event)
        name = name.split(":")[0].lower()
        for key in ((unit, name), ("", name)) if unit else ((unit, name),):
            if key in self.counters or key in self.fixed:
                return key
        if not unit:  # a plain name a hybrid table lists per unit: only when every unit agrees
            keys = [k for k in (*self.counters, *self.fixed) if k[1] == name]
            if keys and len({self.counters.get(k, ("fixed", self.fixed.get(k))) for k in keys}) == 1:
                return keys[0]
        return None

    def counters_of(self, event: str) -> tuple[int, ...] | None:
        """The general counters ``event`` may use (None: no restriction known, or a fixed counter)."""
        key = self._key(event)
        return self.counters.get(key) if key is not None else None

    def fixed_of(self, event: str) -> int | None:
        """The fixed counter ``event`` is counted on (None: not a fixed-counter event)."""
        key = self._key(event)
        return self.fixed.get(key) if key is not None else None

    def where(self, event: str) -> str:
        """The table that restricts ``event`` ("" when none does)."""
        key = self._key(event)
        return self.source.get(key, "") if key is not None else ""

    def __len__(self) -> int:
        return len(self.counters) + len(self.fixed)


def _counter_list(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError:
        return None


def read_event_tables(paths: Sequence[str | os.PathLike[str]]) -> EventTable:
    """Read perf's event tables (files, or folders of ``*.json``) into one :class:`EventTable`.

    Raises
    ------
    InputError
        A path that does not exist, a file that is not JSON or not a list of events,
        naming the file.

    Examples
    --------
    >>> import os, tempfile, json
    >>> p = os.path.join(tempfile.mkdtemp(), "pipeline.json")
    >>> _ = open(p, "w").write(json.dumps([
    ...     {"EventName": "CYCLE_ACTIVITY.STALLS_L1D_MISS", "Counter": "2"},
    ...     {"EventName": "INST_RETIRED.ANY", "Counter": "Fixed counter 0"},
    ...     {"EventName": "BR_MISP_RETIRED.ALL_BRANCHES", "Counter": "0,1,2,3"}]))
    >>> t = read_event_tables([p])
    >>> t.counters_of("cycle_activity.stalls_l1d_miss"), t.fixed_of("inst_retired.any"), len(t)
    ((2,), 0, 3)
    """
    files: list[Path] = []
    for p in paths:
        path = Path(os.fspath(p))
        if path.is_dir():
            files.extend(sorted(path.rglob("*.json")))
        elif path.exists():
            files.append(path)
        else:
            raise InputError(
                f"{path}: no such event table (a perf pmu-events JSON file, a folder of them, or perf list -j output)"
            )
    table = EventTable()
    for f in files:
        try:
            data = json.loads(read_input(f).decode("utf-8"))  # gzip, bzip2 or xz decompressed
        except InputError:
            raise
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{f}: not a JSON event table ({type(exc).__name__})") from None
        if not isinstance(data, list):
            raise InputError(f"{f}: not an event table (expected a JSON list of events)")
        for entry in data:
            if not isinstance(entry, dict) or not isinstance(entry.get("EventName"), str):
                continue  # metrics and other entries
            counter = entry.get("Counter")
            if not isinstance(counter, str):
                continue
            unit = entry.get("Unit")
            key = (unit if isinstance(unit, str) else "", str(entry["EventName"]).lower())
            fixed = _FIXED.match(counter)
            if fixed:
                table.fixed[key] = int(fixed.group(1))
            else:
                listed = _counter_list(counter)
                if not listed:
                    continue
                table.counters[key] = listed
            table.source[key] = str(f)
    return table


__all__ = ["EventTable", "read_event_tables"]
