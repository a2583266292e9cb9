"""Parse ``perf stat`` output: CSV (``-x,``) and JSON (``-j``), with or without ``-I``.

CSV fields per event line (Linux perf 6.x)::

    value,unit,event,run_time_ns,percentage,metric,metric_unit          # perf stat -x,
    time,value,unit,event,run_time_ns,percentage,metric,metric_unit     # perf stat -x, -I MS

JSON prints one object per event line with ``counter-value``, ``unit``, ``event``,
``event-runtime``, ``pcnt-running`` and, with ``-I``, ``interval``.  A value can be
``<not counted>`` (the event never got a counter) or ``<not supported>``; those come out
as NaN with the reason in ``status``.

Returns a table with columns ``t, event, value, unit, run_time_ns, percent, status``
(``t`` is the interval end time in seconds, NaN without ``-I``).
"""

from __future__ import annotations

import json
import math

import pandas as pd

from hemkit.core.errors import HemkitError

COLUMNS = ["t", "event", "value", "unit", "run_time_ns", "percent", "status"]
_STATUS = {"<not counted>": "not counted", "<not supported>": "not supported"}


def _number(text: str) -> float:
    text = text.strip()
    if not text:
        return math.nan
    try:
        return float(text)
    except ValueError:
        return math.nan


def _value(text: str) -> tuple[float, str]:
    text = text.strip()
    if text in _STATUS:
        return math.nan, _STATUS[text]
    v = _number(text)
    return v, ("ok" if not math.isnan(v) else f"unreadable value {text!r}")


def _parse_csv_line(fields: list[str], interval: bool) -> dict:
    off = 1 if interval else 0
    value, status = _value(fields[off])
    return {
        "t": _number(fields[0]) if interval else math.nan,
        "event": fields[off + 2].strip(),
        "value": value,
        "unit": fields[off + 1].strip(),
        "run_time_ns": _number(fields[off + 3]) if len(fields) > off + 3 else math.nan,
        "percent": _number(fields[off + 4]) if len(fields) > off + 4 else math.nan,
        "status": status,
    }


def _parse_json_line(obj: dict) -> dict:
    raw = obj.get("counter-value", "")
    value, status = _value(str(raw))
    return {
        "t": float(obj["interval"]) if "interval" in obj else math.nan,
        "event": str(obj.get("event", "")).strip(),
        "value": value,
        "unit": str(obj.get("unit", "")),
        "run_time_ns": float(obj.get("event-runtime", math.nan) or 0),
        "percent": float(obj.get("pcnt-running", math.nan)),
        "status": status,
    }


def parse_perf_stat(text: str, *, fmt: str | None = None, interval: bool | None = None) -> pd.DataFrame:
    """Parse the text ``perf stat -x,`` or ``perf stat -j`` wrote (its ``-o`` file or stderr).

    Parameters
    ----------
    text : str
        The output.  Comment lines (``#``), blank lines and lines that are not event lines
        (e.g. the program's own output mixed in) are skipped.
    fmt : {"csv", "json"}, optional
        Detected from the first event line when not given.
    interval : bool, optional
        Whether the CSV was written with ``-I`` (a leading timestamp field).  Detected
        from the number of fields when not given (8 with ``-I``, 7 without).

    Examples
    --------
    >>> out = "1234,,instructions,1000,100.00,,\\n<not counted>,,cycles,0,0.00,,\\n"
    >>> parse_perf_stat(out)[["event", "value", "status"]]
              event   value       status
    0  instructions  1234.0           ok
    1        cycles     NaN  not counted
    """
    rows = []
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        kind = fmt or ("json" if s.startswith("{") else "csv")
        if kind == "json":
            if not s.startswith("{"):
                continue
            try:
                rows.append(_parse_json_line(json.loads(s)))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue
        else:
            fields = s.split(",")
            if len(fields) < 3:
                continue
            iv = interval if interval is not None else len(fields) >= 8
            if len(fields) < (4 if iv else 3):
                continue
            row = _parse_csv_line(fields, iv)
            if not row["event"] or (math.isnan(row["value"]) and row["status"].startswith("unreadable")):
                continue
            rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def check_events_supported(table: pd.DataFrame, source: str = "perf stat") -> None:
    """Raise :class:`HemkitError` naming the first event perf reported ``<not supported>``."""
    bad = table[table["status"] == "not supported"]
    if len(bad):
        raise HemkitError(f"{source}: event {bad['event'].iloc[0]!r} is not supported by perf on this machine")
