"""Event lists of the metric derivation: bundled CPU tables, generic perf events, cachegrind, user files.

- **perf backend**: raw codes of a bundled table for *this* CPU (AMD Zen 5 today: the Linux perf
  tables, each entry turned into ``r<UU><EE>`` or, for EventCode > 0xff, ``r<H>0000<UU><EE>``),
  plus generic perf events.  A raw code counts a different event on another CPU, so the table
  is used only where the CPU's vendor and family match it (:func:`check_table_cpu`); elsewhere
  give your own list, or ``generic``.
- **valgrind backend**: cachegrind's thirteen simulated events (all counted in one run).
- **a file**: one event per line (``name`` or ``name code``), ``#`` comments.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pandas as pd

from hemkit.core.checks import unknown_choice
from hemkit.core.errors import Fix, InputError, SetupError
from hemkit.derive.kernels import CpuIdentity, cpu_identity
from hemkit.external.valgrind import CACHEGRIND_EVENTS
from hemkit.io.derive import read_text_file

FAMILY_TABLES = {
    "flops": ("floating-point", "execution"),
    "branch": ("execution", "branch-prediction"),
    "dcache": ("load-store", "l2-cache"),
}
GENERIC = {
    "flops": ("instructions",),
    "branch": ("instructions", "branches", "branch-misses", "branch-loads", "branch-load-misses"),
    "dcache": ("L1-dcache-loads", "L1-dcache-load-misses", "cache-references", "cache-misses", "dTLB-loads"),
}
EVENT_COLUMNS = ["name", "code", "topic", "description"]


@dataclass(frozen=True)
class EventTable:
    """A bundled table of raw event codes and the CPUs it is valid for.

    Examples
    --------
    >>> EVENT_TABLES["amdzen5"].matches(CpuIdentity("AuthenticAMD", 26, 2))
    True
    """

    name: str
    title: str
    vendor: str
    cpu_families: tuple[int, ...]

    def matches(self, cpu: CpuIdentity) -> bool:
        """Whether ``cpu`` is one this table's raw codes are valid for."""
        return cpu.vendor == self.vendor and cpu.family in self.cpu_families

    def line(self) -> str:
        """``AMD Zen 5 (AuthenticAMD family 26 / 0x1a)``."""
        fams = ", ".join(f"{f} / {f:#x}" for f in self.cpu_families)
        return f"{self.title} ({self.vendor} family {fams})"


#: bundled raw-event tables, by name
EVENT_TABLES = {"amdzen5": EventTable("amdzen5", "AMD Zen 5", "AuthenticAMD", (0x1A,))}


def raw_code(event_code: int | str, umask: int | str | None = None) -> str:
    """Perf raw event for a core EventCode/UMask.

    Examples
    --------
    >>> raw_code("0xc2"), raw_code("0x08", "0x10"), raw_code("0x1c9"), raw_code("0x28f", "0x04")
    ('r00c2', 'r1008', 'r1000000c9', 'r20000048f')
    """
    try:
        code = int(event_code, 16) if isinstance(event_code, str) else int(event_code)
        um = 0 if umask in (None, "") else (int(umask, 16) if isinstance(umask, str) else int(umask))
    except ValueError:
        raise InputError(f"event code {event_code!r} / umask {umask!r} is not hexadecimal") from None
    if not (0 <= code <= 0xFFF and 0 <= um <= 0xFF):
        raise InputError(f"event code {event_code} / umask {umask} out of range for the core PMU")
    if code <= 0xFF:
        return f"r{um:02x}{code:02x}"
    return f"r{code >> 8:x}0000{um:02x}{code & 0xFF:02x}"


def zen5_events(tables: Sequence[str] | None = None) -> pd.DataFrame:
    """Core events of the shipped Zen 5 tables: ``name, code, topic, description``.

    Examples
    --------
    >>> ev = zen5_events(("execution",))
    >>> ev.set_index("name").loc["ex_ret_brn", "code"]
    'r00c2'
    """
    base = resources.files("hemkit.derive").joinpath("data")
    names = tuple(tables) if tables else tuple(sorted({t for ts in FAMILY_TABLES.values() for t in ts}))
    rows = []
    for t in names:
        f = base.joinpath(f"{t}.json")
        if not f.is_file():
            raise InputError(f"no Zen 5 event table {t!r} shipped with hemkit.derive")
        for e in json.loads(f.read_text()):
            if "EventCode" not in e or "Unit" in e or e.get("Deprecated") == "1":
                continue
            rows.append(
                {
                    "name": e["EventName"],
                    "code": raw_code(e["EventCode"], e.get("UMask")),
                    "topic": t,
                    "description": e.get("BriefDescription", e.get("BriefDescript6ion", "")),
                }
            )
    return pd.DataFrame(rows, columns=EVENT_COLUMNS).drop_duplicates("code").reset_index(drop=True)


def generic_events(family: str) -> pd.DataFrame:
    """Perf's generic events that concern a family (valid on any CPU with a PMU).

    Examples
    --------
    >>> generic_events("branch")["name"].tolist()[:2]
    ['instructions', 'branches']
    """
    names = GENERIC[family]
    return pd.DataFrame({"name": names, "code": names, "topic": "generic", "description": ""}, columns=EVENT_COLUMNS)


def check_table_cpu(table: str, cpu: CpuIdentity | None = None) -> EventTable:
    """The bundled table ``table``, if this CPU is one it is made for; else a :class:`SetupError` naming both.

    Examples
    --------
    >>> check_table_cpu("amdzen5", CpuIdentity("AuthenticAMD", 25, 1, "AMD EPYC"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hemkit.core.errors.SetupError: the event table amdzen5 is for AMD Zen 5 (AuthenticAMD family 26 / 0x1a), ...
    """
    if table not in EVENT_TABLES:
        raise InputError(f"no bundled event table {table!r}; bundled: {', '.join(EVENT_TABLES)}")
    t = EVENT_TABLES[table]
    cpu = cpu or cpu_identity()
    if not t.matches(cpu):
        raise SetupError(
            f"the event table {table} is for {t.line()}, but this CPU is {cpu.line()}: its raw codes would "
            "count other events here; list this CPU's events in a file, or use perf's generic events",
            fix=Fix("events", "generic"),
        )
    return t


def family_events(family: str, *, generic: bool = True, table: str = "amdzen5") -> pd.DataFrame:
    """A bundled table's raw events for a family, plus generic perf events (no CPU check).

    Examples
    --------
    >>> family_events("branch").set_index("name").loc["ex_ret_brn_misp", "code"]
    'r00c3'
    """
    if family not in FAMILY_TABLES:
        raise unknown_choice("kernel family", family, FAMILY_TABLES)
    if table != "amdzen5":
        raise InputError(f"no bundled event table {table!r}; bundled: {', '.join(EVENT_TABLES)}")
    ev = zen5_events(FAMILY_TABLES[family])
    if generic:
        ev = pd.concat([ev, generic_events(family)], ignore_index=True)
    return ev


def cachegrind_events(names: Sequence[str] | None = None, *, source: str = "event list") -> pd.DataFrame:
    """Cachegrind's events (all, or ``names`` checked against them).

    Examples
    --------
    >>> cachegrind_events(["Bc", "Bcm"])["code"].tolist()
    ['Bc', 'Bcm']
    """
    chosen = list(CACHEGRIND_EVENTS) if names is None else list(names)
    unknown = [n for n in chosen if n not in CACHEGRIND_EVENTS]
    if unknown:
        raise InputError(
            f"{source}: valgrind's cachegrind has no event {unknown[0]!r}; it counts {', '.join(CACHEGRIND_EVENTS)}"
        )
    return pd.DataFrame(
        {"name": chosen, "code": chosen, "topic": "cachegrind", "description": ""}, columns=EVENT_COLUMNS
    )


def read_event_list(path: str | Path) -> pd.DataFrame:
    """A user's event list: one perf event (name or raw code) per line, ``#`` comments.

    A line ``name code`` (or ``name,code``) names a raw code; otherwise the event is both.
    Events with ``/`` (``cpu/event=0xc2,umask=0/``) keep their commas.

    Raises
    ------
    InputError
        A missing or unreadable file, a line with a blank name or more than two fields, an
        event or code listed twice, or no event at all (each named with the file and line).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "ev.txt")
    >>> _ = open(p, "w").write("# branches\\nex_ret_brn r00c2\\nbranch-misses\\n")
    >>> read_event_list(p)[["name", "code"]].values.tolist()
    [['ex_ret_brn', 'r00c2'], ['branch-misses', 'branch-misses']]
    """
    path = Path(path)
    text = read_text_file(path, "event list")
    rows = []
    names: dict[str, int] = {}
    codes: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if "," in line and "/" not in line:
            parts = [p.strip() for p in line.split(",")]
        else:
            parts = line.split()
        if any(not p for p in parts):
            raise InputError(f"{path}:{n}: blank event name in {line!r}")
        if len(parts) > 2:
            raise InputError(f"{path}:{n}: expected 'event' or 'name code', got {line!r}")
        name, code = parts[0], parts[-1]
        if name in names:
            raise InputError(f"{path}:{n}: event {name!r} is listed twice (first on line {names[name]})")
        if code in codes:
            raise InputError(f"{path}:{n}: event code {code!r} is listed twice (first on line {codes[code]})")
        names[name], codes[code] = n, n
        rows.append({"name": name, "code": code, "topic": "user", "description": ""})
    if not rows:
        raise InputError(f"{path}: no events listed")
    return pd.DataFrame(rows, columns=EVENT_COLUMNS)


def resolve_events(
    family: str, backend: str, spec: str | Path | None = None, cpu: CpuIdentity | None = None
) -> pd.DataFrame:
    """The events to measure: ``spec`` is None (the default), ``generic``, a bundled table name, or a file.

    Raises
    ------
    SetupError
        The bundled table is for another CPU (named, with this CPU), or no table fits this CPU.
    InputError
        A bad file, or events cachegrind does not count.

    Examples
    --------
    >>> resolve_events("branch", "valgrind")["name"].tolist()[-4:]
    ['Bc', 'Bcm', 'Bi', 'Bim']
    """
    if backend == "valgrind":
        if spec is None:
            return cachegrind_events()
        if str(spec) in EVENT_TABLES or str(spec) == "generic":
            raise InputError(f"the valgrind backend counts cachegrind's events, not the {spec} events")
        listed = read_event_list(spec)
        bad = [c for c in listed["code"] if c not in CACHEGRIND_EVENTS]
        if bad:
            cachegrind_events(bad, source=str(spec))
        return cachegrind_events(listed["code"].tolist(), source=str(spec))
    if spec is not None and str(spec) == "generic":
        return generic_events(family)
    if spec is not None and str(spec) in EVENT_TABLES:
        check_table_cpu(str(spec), cpu)
        return family_events(family, table=str(spec))
    if spec is not None:
        return read_event_list(spec)
    cpu = cpu or cpu_identity()
    for name, table in EVENT_TABLES.items():
        if table.matches(cpu):
            return family_events(family, table=name)
    bundled = "; ".join(t.line() for t in EVENT_TABLES.values())
    raise SetupError(
        f"no bundled event table for this CPU ({cpu.line()}; bundled: {bundled}); list this CPU's raw events "
        "in a file, or use perf's generic events",
        fix=Fix("events", "generic"),
    )


__all__ = [
    "EVENT_TABLES",
    "EventTable",
    "cachegrind_events",
    "check_table_cpu",
    "family_events",
    "generic_events",
    "raw_code",
    "read_event_list",
    "resolve_events",
    "zen5_events",
]
