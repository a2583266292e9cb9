"""Parse ``perf stat`` output: CSV (``-x,`` or another separator) and JSON (``-j``).

A table of the layouts perf writes (Linux perf 6.x), as pmu-tools keeps one; the reader
recognises each by content, once per file, from the first event line::

    value,unit,event,run_time_ns,percentage,metric,metric_unit          # perf stat -x,
    time,value,unit,event,run_time_ns,percentage,metric,metric_unit     # -I MS (time: "summary" with --summary)
    CPU0,value,unit,event,...                                            # -A (no aggregation)
    S0-D0-C0,1,value,unit,event,...                                      # --per-core (also --per-socket: S0,2;
                                                                         #   --per-die: S0-D0,2; --per-node: N0,2)
    comm-pid,value,unit,event,...                                        # --per-thread
    value,unit,event,variance%,run_time_ns,percentage,...                # -r N (perf's mean and its variance)

Any separator ``-x`` accepts is recognised if it is one of ``,`` ``;`` tab ``|`` or space.  An
event name holding the separator (``software/config=2,period=1/``) is put back together from
its balanced slashes.  JSON prints one object per event line with ``counter-value``, ``unit``,
``event``, ``event-runtime``, ``pcnt-running`` and, as they apply, ``interval``, ``variance``
and one of ``cpu``/``core``/``die``/``socket``/``node``/``thread``.

A value can be ``<not counted>`` (the event never got a counter, or the task did not run
during an interval) or ``<not supported>``; those come out as NaN with the reason in
``status``.  Numbers written with decimal commas (perf run under a locale such as
``de_DE``) are ambiguous and are refused with a hint (``LC_ALL=C perf stat ...``).

:func:`parse_perf_stat` is lenient (lines that are not event lines are skipped: it reads
what hemkit's own ``perf stat`` runs wrote); :func:`scan_perf_stat` is strict (any line that
is not perf's is an :class:`~hemkit.core.errors.InputError` naming the line) and is what the
file readers of :mod:`hemkit.io.perf_files` use.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hemkit.core.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["t", "event", "value", "unit", "run_time_ns", "percent", "status"]
#: further columns of :func:`parse_perf_stat`: the CPU/core/socket/thread a line counts
#: (``""`` when perf aggregated) and perf's variance in percent (``perf stat -r``; NaN otherwise)
EXTRA_COLUMNS = ["aggr", "variance"]
_STATUS = {"<not counted>": "not counted", "<not supported>": "not supported"}
SEPARATORS = (",", ";", "\t", "|", " ")

_NUM = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")
_TIME = re.compile(r"^\d+\.\d+$")
_CPU = re.compile(r"^CPU\d+$")
_THREAD = re.compile(r"^.+-\d+$")
_AGGR2 = re.compile(r"^(?:S\d+(?:-D\d+)?(?:-C\d+|-CLS\d+|-L\d+-ID\d+)?|N\d+)$")
_VARIANCE = re.compile(r"^\d+(?:\.\d+)?%$")
_STARTED = re.compile(r"^#\s*started on\b")
_PERF_NOTES = {"Events disabled", "Events enabled"}  # perf stat -D writes these
# decimal commas: the percentage "100,00" (one field, or two with -x,), a JSON number "100,00"
_DECIMAL_COMMA = (
    re.compile(r",\d+,\d{1,3},\d\d(?:,|$)"),
    re.compile(r"(?:^|[;\t| ])\d+,\d\d(?:[;\t| ]|$)"),
    re.compile(r'"(?:pcnt-running|counter-value|metric-value|event-runtime)"\s*:\s*"?-?\d+,\d'),
)
_JSON_AGGR = ("cpu", "core", "die", "socket", "node", "cluster", "cache", "thread", "cgroup")
DECIMAL_COMMA_HINT = (
    "numbers are written with decimal commas (perf ran under a locale such as de_DE), "
    "which cannot be told from the separators; record again with LC_ALL=C perf stat ..."
)


@dataclass(frozen=True)
class PerfLine:
    """One event line of ``perf stat`` output.

    Attributes
    ----------
    line : int
        Its line number in the text (1-based).
    block : int
        How many ``# started on`` comments came before it: ``perf stat --append`` writes one
        per run, so lines of different blocks belong to different runs.
    kind : str
        ``"interval"`` (an ``-I`` line), ``"total"`` (a line without a timestamp) or
        ``"summary"`` (the total ``perf stat -I --summary`` prints last).
    t : float
        Interval end time in seconds (NaN unless ``kind == "interval"``).
    aggr : str
        ``CPU0``, ``S0-D0-C0``, ``S0``, ``N0``, ``comm-pid``...; ``""`` when perf aggregated.
    event, unit : str
    value : float
        NaN when ``status`` is not ``"ok"``.
    status : str
        ``"ok"``, ``"not counted"`` or ``"not supported"``.
    variance : float
        perf's variance in percent with ``-r``; NaN otherwise.
    run_time_ns, percent : float
        Time the event was on a counter, and that time in percent of the time it was enabled
        (below 100: multiplexed).

    Examples
    --------
    >>> (p,) = scan_perf_stat("S0-D0-C1,1,339,,page-faults,83990370,100.00,4.036,K/sec\\n").lines
    >>> p.aggr, p.event, p.value, p.kind
    ('S0-D0-C1', 'page-faults', 339.0, 'total')
    """

    line: int
    block: int
    kind: str
    t: float
    aggr: str
    event: str
    value: float
    status: str
    unit: str
    variance: float
    run_time_ns: float
    percent: float


@dataclass(frozen=True)
class _Layout:
    sep: str  # "json" for perf stat -j
    interval: bool = False
    aggr: int = 0  # fields before the value that name the CPU/core/socket/thread
    variance: bool = False


def _number(text: str) -> float | None:
    text = text.strip()
    if not _NUM.match(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _value(text: str) -> tuple[float, str] | None:
    text = text.strip()
    if text in _STATUS:
        return math.nan, _STATUS[text]
    v = _number(text)
    return None if v is None else (v, "ok")


def _fit_csv(fields: list[str], lay: _Layout, line: int, block: int) -> PerfLine | None:
    """The event line ``fields`` in layout ``lay``, or None if it does not fit."""
    i, t, kind = 0, math.nan, "total"
    if lay.interval:
        if fields[0] == "summary":
            kind = "summary"
        elif _TIME.match(fields[0]):
            t, kind = float(fields[0]), "interval"
        else:
            return None
        i = 1
    aggr = ""
    if lay.aggr == 1:
        if len(fields) <= i or not (_CPU.match(fields[i]) or _THREAD.match(fields[i])):
            return None
        aggr, i = fields[i], i + 1
    elif lay.aggr == 2:
        if len(fields) <= i + 1 or not _AGGR2.match(fields[i]) or not fields[i + 1].isdigit():
            return None
        aggr, i = fields[i], i + 2
    if len(fields) < i + 3:
        return None
    parsed = _value(fields[i])
    unit, event, j = fields[i + 1], fields[i + 2], i + 3
    if parsed is None or _NUM.match(unit) or unit.startswith("<"):
        return None
    while event.count("/") % 2 and j < len(fields):  # pmu/a=1,b=2/ is printed unquoted
        event, j = event + lay.sep + fields[j], j + 1
    if not event or _NUM.match(event) or event.startswith("<") or event.count("/") % 2:
        return None
    variance = math.nan
    if lay.variance:
        if j >= len(fields) or not _VARIANCE.match(fields[j]):
            return None
        variance, j = float(fields[j][:-1]), j + 1
    if len(fields) < j + 2:
        return None
    run_time, percent = _number(fields[j]), _number(fields[j + 1])
    if run_time is None or percent is None:
        return None
    return PerfLine(line, block, kind, t, aggr, event, parsed[0], parsed[1], unit, variance, run_time, percent)


def _json_number(obj: dict, key: str) -> float | None:
    """A JSON field as a float: NaN when absent, None when it is not a number."""
    if key not in obj or obj[key] is None:
        return math.nan
    v = obj[key]
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v) if math.isfinite(v) else None
    return _number(str(v)) if isinstance(v, str) else None


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number perf writes")


def _fit_json(text: str, line: int, block: int) -> PerfLine | str | None:
    """A ``perf stat -j`` line: a PerfLine, ``"skip"`` for a metric-only line, None if not perf's."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    if "event" not in obj:
        return "skip" if "metric-value" in obj and "counter-value" not in obj else None
    event, raw = obj["event"], obj.get("counter-value")
    if not isinstance(event, str) or not event.strip() or isinstance(raw, bool):
        return None
    parsed = _value(str(raw)) if isinstance(raw, str | int | float) else None
    numbers = {k: _json_number(obj, k) for k in ("interval", "event-runtime", "pcnt-running", "variance")}
    if parsed is None or any(v is None for v in numbers.values()):
        return None
    t = numbers["interval"]
    kind = "interval" if "interval" in obj else "total"
    aggr = ""
    for key in _JSON_AGGR:
        if key in obj:
            aggr = f"CPU{obj[key]}" if key == "cpu" else str(obj[key])
            break
    unit = obj.get("unit", "")
    return PerfLine(
        line,
        block,
        kind,
        t if t is not None else math.nan,
        aggr,
        event.strip(),
        parsed[0],
        parsed[1],
        unit if isinstance(unit, str) else str(unit),
        numbers["variance"] if numbers["variance"] is not None else math.nan,
        numbers["event-runtime"] if numbers["event-runtime"] is not None else math.nan,
        numbers["pcnt-running"] if numbers["pcnt-running"] is not None else math.nan,
    )


def _split(text: str, sep: str) -> list[str]:
    return [f.strip() for f in text.split(sep)]


def _layouts(fmt: str | None, interval: bool | None) -> Iterator[_Layout]:
    if fmt in (None, "json"):
        yield _Layout("json")
    if fmt == "json":
        return
    for sep in SEPARATORS:
        for iv in (False, True) if interval is None else (interval,):
            for aggr in (0, 1, 2):
                for var in (False, True):
                    yield _Layout(sep, iv, aggr, var)


def _fit(text: str, lay: _Layout, line: int, block: int) -> PerfLine | str | None:
    if lay.sep == "json":
        return _fit_json(text, line, block) if text.startswith("{") else None
    if text.startswith("{"):
        return None
    fields = _split(text, lay.sep)
    got = _fit_csv(fields, lay, line, block)
    if got is None and lay.interval:  # perf stat -I --summary --no-csv-summary: a total without a time
        got = _fit_csv(fields, _Layout(lay.sep, False, lay.aggr, lay.variance), line, block)
    return got


def decimal_commas(text: str) -> bool:
    """Whether a line of perf output has numbers written with decimal commas (``100,00``).

    Examples
    --------
    >>> decimal_commas("0,89,msec,task-clock,889733,100,00,0,CPUs utilized")
    True
    >>> decimal_commas("0.89,msec,task-clock,889733,100.00,0.191,CPUs utilized")
    False
    """
    return any(p.search(text) for p in _DECIMAL_COMMA)


@dataclass(frozen=True)
class PerfScan:
    """What :func:`scan_perf_stat` found: the event lines and the layout of the text.

    Attributes
    ----------
    lines : tuple of PerfLine
    fmt : str
        ``"csv"``, ``"json"`` or ``""`` (no event line).
    sep : str
        The CSV separator (``""`` for JSON).
    started : int
        perf's ``# started on`` lines: one per run ``perf stat -o`` wrote (``--append`` adds
        one a run); a file with one and no event line is a run that never got to its counts.

    Examples
    --------
    >>> scan = scan_perf_stat("48;;page-faults;696075;100.00;68.958;K/sec\\n")
    >>> scan.fmt, scan.sep, len(scan.lines), scan.started
    ('csv', ';', 1, 0)
    >>> scan_perf_stat("# started on Mon\\n\\n").started
    1
    """

    lines: tuple[PerfLine, ...]
    fmt: str
    sep: str
    started: int = 0


def scan_perf_stat(
    text: str,
    *,
    source: str = "perf stat output",
    strict: bool = True,
    fmt: str | None = None,
    interval: bool | None = None,
) -> PerfScan:
    """Every event line of ``perf stat -x,``/``-j`` output, in one layout for the whole text.

    Parameters
    ----------
    text : str
        The output (an ``-o`` file).
    source : str
        How to name the text in messages (its file name).
    strict : bool, default True
        A line that is not a comment, a blank, a metric-only line or an event line in the
        layout of the first event line is an error; with False such lines are skipped.
    fmt : {"csv", "json"}, optional
        Restrict the layouts tried.
    interval : bool, optional
        Restrict to CSV written with (True) or without (False) ``-I``.

    Raises
    ------
    InputError
        Decimal commas (always), or in strict mode a line that is not perf's, naming it.

    Examples
    --------
    >>> scan = scan_perf_stat("# started on Mon\\n\\n0.72,msec,task-clock,719410,100.00,0.191,CPUs utilized\\n")
    >>> scan.fmt, scan.lines[0].event, scan.lines[0].value, scan.lines[0].line
    ('csv', 'task-clock', 0.72, 3)
    """
    if fmt not in (None, "csv", "json"):
        raise InputError(f"fmt must be 'csv' or 'json', got {fmt!r}")
    layout: _Layout | None = None
    block = 0
    out: list[PerfLine] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip().lstrip("\ufeff").strip() if n == 1 else raw.strip()
        if not s:
            continue
        if s.startswith("#"):
            block += bool(_STARTED.match(s))
            continue
        if s in _PERF_NOTES:
            continue
        got: PerfLine | str | None = None
        if layout is None:
            for lay in _layouts(fmt, interval):
                got = _fit(s, lay, n, block)
                if got is not None:
                    layout = lay if isinstance(got, PerfLine) else None
                    break
        else:
            got = _fit(s, layout, n, block)
        if _misread_commas(s, got, layout):
            raise InputError(f"{source}: line {n}: {DECIMAL_COMMA_HINT}")
        if isinstance(got, PerfLine):
            out.append(got)
        elif got is None and strict:
            raise InputError(f"{source}: line {n}: {_why(s, layout)}: {s[:60]!r}")
    fmt_found = "" if layout is None else ("json" if layout.sep == "json" else "csv")
    return PerfScan(tuple(out), fmt_found, "" if layout is None or layout.sep == "json" else layout.sep, block)


def _misread_commas(s: str, got: PerfLine | str | None, layout: _Layout | None) -> bool:
    """Decimal commas: a line that fits only by splitting ``100,00`` in two, or does not fit but has them."""
    if isinstance(got, PerfLine):
        return layout is not None and layout.sep == "," and bool(_DECIMAL_COMMA[0].search(s))
    return got is None and decimal_commas(s) and re.search("[A-Za-z]", s) is not None


def _why(s: str, layout: _Layout | None) -> str:
    if "Performance counter stats for" in s or re.match(r"^[\d.,]+\s+(?:msec\s+)?[\w:-]+\s+#", s):
        return "perf stat's text output cannot be read; record with perf stat -x, (CSV) or -j (JSON)"
    if layout is None:
        return "not a perf stat -x, or -j event line"
    if layout.sep == "json":
        return "not a perf stat -j event line"
    sep = {"\t": "tab", " ": "space"}.get(layout.sep, repr(layout.sep))
    return f"not a perf stat event line in the layout of the first one (separator {sep})"


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
        Whether the CSV was written with ``-I`` (a leading timestamp field).  Detected when
        not given.

    Returns
    -------
    DataFrame
        Columns ``t, event, value, unit, run_time_ns, percent, status, aggr, variance``
        (``t`` is the interval end time in seconds, NaN without ``-I`` and for the
        ``--summary`` total).

    Raises
    ------
    InputError
        The numbers are written with decimal commas (see the module docstring).

    Examples
    --------
    >>> out = "1234,,instructions,1000,100.00,,\\n<not counted>,,cycles,0,0.00,,\\n"
    >>> parse_perf_stat(out)[["event", "value", "status"]]
              event   value       status
    0  instructions  1234.0           ok
    1        cycles     NaN  not counted
    """
    scan = scan_perf_stat(text, strict=False, fmt=fmt, interval=interval)
    rows = [(p.t, p.event, p.value, p.unit, p.run_time_ns, p.percent, p.status, p.aggr, p.variance) for p in scan.lines]
    import pandas as pd

    table = pd.DataFrame(rows, columns=COLUMNS + EXTRA_COLUMNS)
    return table.astype({"t": float, "value": float, "run_time_ns": float, "percent": float, "variance": float})


def check_events_supported(table: pd.DataFrame, source: str = "perf stat") -> None:
    """Raise :class:`InputError` naming the first event perf reported ``<not supported>``.

    Parameters
    ----------
    table : DataFrame
        Parsed ``perf stat`` output (:func:`parse_perf_stat`), with ``event`` and ``status``.
    source : str, default "perf stat"
        Where the output came from, for the message (usually the file name).

    Raises
    ------
    InputError
        An event whose ``status`` is ``"not supported"``.

    Examples
    --------
    >>> check_events_supported(parse_perf_stat("<not supported>,,cycles,0,100.00,,\\n"))
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: perf stat: event 'cycles' is not supported by perf on this machine
    """
    bad = table[table["status"] == "not supported"]
    if len(bad):
        raise InputError(f"{source}: event {bad['event'].iloc[0]!r} is not supported by perf on this machine")


__all__ = [
    "COLUMNS",
    "EXTRA_COLUMNS",
    "PerfLine",
    "PerfScan",
    "check_events_supported",
    "decimal_commas",
    "parse_perf_stat",
    "scan_perf_stat",
]
