"""Event lists for the metric derivation: AMD Zen 5 core events (Linux perf tables) and user lists.

perf 6.1 has no Zen 5 event names, so each table entry is turned into a raw code
``r<UU><EE>`` (EventCode <= 0xff) or ``r<H>0000<UU><EE>`` (EventCode > 0xff, upper nibble in
config bits 32-35).  Each family measures the tables that concern it plus generic perf events.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pandas as pd

from hemkit.errors import HemkitError

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


def raw_code(event_code: int | str, umask: int | str | None = None) -> str:
    """Perf raw event for a core EventCode/UMask.

    Examples
    --------
    >>> raw_code("0xc2"), raw_code("0x08", "0x10"), raw_code("0x1c9"), raw_code("0x28f", "0x04")
    ('r00c2', 'r1008', 'r1000000c9', 'r20000048f')
    """
    code = int(event_code, 16) if isinstance(event_code, str) else int(event_code)
    um = 0 if umask in (None, "") else (int(umask, 16) if isinstance(umask, str) else int(umask))
    if not (0 <= code <= 0xFFF and 0 <= um <= 0xFF):
        raise HemkitError(f"event code {event_code} / umask {umask} out of range for the core PMU")
    if code <= 0xFF:
        return f"r{um:02x}{code:02x}"
    return f"r{code >> 8:x}0000{um:02x}{code & 0xFF:02x}"


def zen5_events(tables: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Core events of the shipped Zen 5 tables: ``name, code, topic, description``.

    Examples
    --------
    >>> ev = zen5_events(("execution",))
    >>> ev.set_index("name").loc["ex_ret_brn", "code"]
    'r00c2'
    """
    base = resources.files("hemkit.derive").joinpath("data")
    names = tables or tuple(sorted({t for ts in FAMILY_TABLES.values() for t in ts}))
    rows = []
    for t in names:
        f = base.joinpath(f"{t}.json")
        if not f.is_file():
            raise HemkitError(f"no Zen 5 event table {t!r} shipped with hemkit.derive")
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
    return pd.DataFrame(rows, columns=["name", "code", "topic", "description"]).drop_duplicates("code")


def family_events(family: str, *, generic: bool = True) -> pd.DataFrame:
    """Default event list of a family on Zen 5: its tables' raw events plus generic perf events."""
    if family not in FAMILY_TABLES:
        raise HemkitError(f"unknown kernel family {family!r}; choose from flops, branch, dcache")
    ev = zen5_events(FAMILY_TABLES[family])
    if generic:
        g = pd.DataFrame({"name": GENERIC[family], "code": GENERIC[family], "topic": "generic", "description": ""})
        ev = pd.concat([ev, g], ignore_index=True)
    return ev


def read_event_list(path: str | Path) -> pd.DataFrame:
    """A user's event list: one perf event (name or raw code) per line, ``#`` comments.

    A line ``name code`` (or ``name,code``) names a raw code; otherwise the event is both.
    """
    path = Path(path)
    if not path.exists():
        raise HemkitError(f"{path}: no such event list")
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        if len(parts) > 2:
            raise HemkitError(f"{path}:{n}: expected 'event' or 'name code', got {line!r}")
        name, code = (parts[0], parts[-1])
        rows.append({"name": name, "code": code, "topic": "user", "description": ""})
    if not rows:
        raise HemkitError(f"{path}: no events listed")
    df = pd.DataFrame(rows)
    dup = df[df["name"].duplicated()]
    if not dup.empty:
        raise HemkitError(f"{path}: event {dup['name'].iloc[0]!r} listed twice")
    return df
