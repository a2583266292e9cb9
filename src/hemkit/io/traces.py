"""Interval traces: ``perf stat -I MS`` output as a tidy time series, read and checked.

A trace is a table with one row per (run, interval, event)::

    workload, run, t, step, event, value, time_running, percent

``value`` is the count perf printed for the interval (already scaled by perf when the run was
multiplexed), ``t`` the end of the interval in seconds, ``step`` its index in the run
(0, 1, ...), ``time_running`` the nanoseconds the event was on a counter during the interval
and ``percent`` perf's running percentage.  An OCOE trace (every event of a run on its own
counter, ``percent`` 100) is the ground truth the multiplexing emulation starts from.

:func:`read_trace` reads

* the raw files ``perf stat -I MS -x, -o FILE`` (or ``-j``) writes, one run per file, exactly
  what ``hemkit mpx trace`` records and what ``shared/data/zen5/traces/*.csv`` hold;
* hemkit's tidy traces (CSV or Parquet with the columns above, ``t``, ``time_running``,
  ``percent`` and ``workload`` optional);
* a list of such files, or a folder of them;

each file gzip, bzip2 or xz compressed or not (``gzip_r3.csv.gz``: told by its first bytes,
read as the file it holds, the run and workload named as for ``gzip_r3.csv``)

and refuses, naming the file, run, event and interval, everything an estimator must never
see: a file cut short inside its last line (no newline at its end), an event printed twice
for one interval, a missing interval, negative, infinite or
unreadable counts, negative or fractional steps, steps that jump (a huge step would ask for
all the memory), ``<not supported>`` events, and, for a ground-truth trace, a run that was
multiplexed (``percent`` < 100).  Counts of 2^47 and more are counter wrap-arounds (the
Zen 5 VMs add 2^47 or 2^48 to a plausible count; ``py_r3.csv`` has one): they are repaired
(the wrap removed) when the repaired count is plausible for the event, else the interval is
dropped, and a :class:`hemkit.core.errors.HemkitWarning` says which.

**Which workload a run belongs to** matters to every split that holds workloads out (the runs
of one workload must stay together): a ``workload`` column wins; else the ``workload``
argument names them all; else the ``pattern`` regular expression (its group ``workload``, or
its first group) is matched against the file name without its suffix; the default pattern
takes ``gzip`` from ``gzip_r3``, ``gzip-run3`` or ``gzip_s1_r3``.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.core.errors import Fix, HemkitWarning, InputError
from hemkit.core.numbers import COUNTER_LIMIT, format_count, plural
from hemkit.io.atomic import write_text
from hemkit.io.formats import (
    PARQUET_MAGIC,
    PARQUET_SUFFIXES,
    check_last_line,
    open_input,
    read_head,
    strip_compression_suffix,
)
from hemkit.io.perf_stat import scan_perf_stat
from hemkit.io.table import read_table, write_table

PathLike = str | os.PathLike[str]

TRACE_COLUMNS = ["workload", "run", "t", "step", "event", "value", "time_running", "percent"]
WRAP = 2**47
"""Counts at or above this are counter wrap-arounds (2^47 or 2^48 added to the true count)."""
MAX_INTERVALS = 2_000_000
"""Most intervals one run may have (about 5.5 hours at 10 ms): a larger step is refused."""
DEFAULT_PATTERN = r"^(?P<workload>.+?)(?:[_-]s(?:et)?\d+)?[_-]r(?:un)?\d+$"
"""How a workload is named from a file name when nothing else says: ``gzip_r3`` -> ``gzip``."""
WRAPS = ("repair", "drop", "error")
_TRACE_SUFFIXES = (*PARQUET_SUFFIXES, ".csv", ".json", ".txt", ".out", ".stat")


# --------------------------------------------------------------------------- file level
def _trace_suffix(name: str) -> str:
    """The suffix of a file name under a compression suffix (``a.csv.gz`` -> ``.csv``), lower case."""
    return os.path.splitext(strip_compression_suffix(name))[1].lower()


def _files(source: PathLike | Sequence[PathLike]) -> list[Path]:
    items = [source] if isinstance(source, str | os.PathLike) else list(source)
    if not items:
        raise InputError("no trace files given")
    out: list[Path] = []
    for item in items:
        p = Path(os.fspath(item))
        if p.is_dir():
            inside = sorted(x for x in p.iterdir() if x.is_file() and _trace_suffix(x.name) in _TRACE_SUFFIXES)
            if not inside:
                raise InputError(f"{p}: folder holds no trace files (.csv, .json, .parquet; .gz, .bz2, .xz of them)")
            out += inside
        elif not p.exists():
            raise InputError(f"{p}: no such file")
        else:
            out.append(p)
    return out


def workload_name(path: PathLike, pattern: str | None = None) -> str:
    """The workload a trace file belongs to, from its name (see the module docstring).

    Examples
    --------
    >>> workload_name("traces/phases_r3.csv"), workload_name("gzip-run2.csv"), workload_name("odd.csv")
    ('phases', 'gzip', 'odd')
    >>> workload_name("a/x-17.csv", pattern=r"(.+)-\\d+")
    'x'
    """
    stem = strip_compression_suffix(Path(os.fspath(path)).name)
    for suffix in _TRACE_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    try:
        rx = re.compile(pattern or DEFAULT_PATTERN)
    except re.error as exc:
        raise InputError(f"workload pattern {pattern!r} is not a regular expression ({exc})") from None
    m = rx.search(stem)
    if m is None:
        if pattern is not None:
            raise InputError(f"{path}: the workload pattern {pattern!r} does not match {stem!r}")
        return stem
    name = m.groupdict().get("workload") or (m.group(1) if rx.groups else m.group(0))
    if not name:
        raise InputError(f"{path}: the workload pattern {pattern!r} gives an empty name for {stem!r}")
    return name


def _named_workload(path: Path, pattern: str | None) -> str | None:
    """The workload the name of ``path`` gives by ``pattern`` (default :data:`DEFAULT_PATTERN`), else None."""
    try:
        rx = re.compile(pattern or DEFAULT_PATTERN)
    except re.error:
        return None  # said by workload_name where the pattern is used
    stem = strip_compression_suffix(path.name)
    suffix = _trace_suffix(path.name)
    stem = stem[: -len(suffix)] if suffix and stem.lower().endswith(suffix) else stem
    m = rx.search(stem)
    if m is None:
        return None
    return m.groupdict().get("workload") or (m.group(1) if rx.groups else m.group(0)) or None


def _refuse_pooling(files: list[Path], workload: str, pattern: str | None) -> None:
    """``workload`` names every run's workload: refused where the files' names say they are of several workloads."""
    named: dict[str, list[Path]] = {}
    for path in files:
        name = _named_workload(path, pattern)
        if name is not None:
            named.setdefault(name, []).append(path)
    if len(named) < 2:
        return
    shown = ", ".join(
        f"{n!r} ({plural(len(p), 'run')}: {p[0].name}{' ...' if len(p) > 1 else ''})"
        for n, p in list(named.items())[:5]
    )
    more = f" ... ({len(named)} in all)" if len(named) > 5 else ""
    raise InputError(
        f"workload {workload!r} would pool the runs of {len(named)} workloads as one: their file names say {shown}"
        f"{more}; runs of one workload are pooled and kept together, so give the files of one workload, or leave "
        "the workload out and let each file's name give its run's workload",
        param="workload",
    )


def _is_tidy(path: Path) -> bool:
    """A table (Parquet, by content, or CSV with ``event`` and ``value`` columns), not raw perf output."""
    head = read_head(path, 4096)  # decompressed
    if head.startswith(PARQUET_MAGIC):
        return True
    for line in head.decode("utf-8", "replace").splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            cols = [c.strip() for c in s.split(",")]
            return "event" in cols and ("value" in cols or "raw" in cols)
    return False


# --------------------------------------------------------------------------- raw perf output
def parse_trace(text: str, run: str = "0", *, ocoe: bool = True, source: str = "") -> pd.DataFrame:
    """Turn the text ``perf stat -I MS -x,`` (or ``-j``) wrote into a tidy trace of one run.

    Parameters
    ----------
    text : str
        What perf wrote (its ``-o`` file).
    run : str
        Run id written into the ``run`` column.
    ocoe : bool
        The run was recorded without multiplexing (a ground truth).  Then ``<not counted>``
        with zero running time (the task did not run in the interval, e.g. it slept) is a
        count of 0, and a percentage below 100 is an error.  With ``ocoe=False`` (a
        multiplexed run) such intervals stay NaN: the event had no counter.
    source : str
        How to name the text in messages (a file name); default the run id.

    Returns
    -------
    DataFrame
        Columns ``run, t, step, event, value, time_running, percent``.

    Raises
    ------
    InputError
        No interval lines, an event ``<not supported>``, an event printed twice or missing
        for an interval, a negative or infinite count, a multiplexed ground truth.

    Examples
    --------
    >>> text = "0.010,120,,page-faults,9990000,100.00,,\\n0.020,<not counted>,,page-faults,0,100.00,,\\n"
    >>> parse_trace(text, run="r0")[["run", "step", "event", "value"]]
      run  step        event  value
    0  r0     0  page-faults  120.0
    1  r0     1  page-faults    0.0
    """
    where = source or f"run {run}"
    scan = scan_perf_stat(text, source=where, strict=True)  # a line that is not perf's is named, never skipped
    lines = [p for p in scan.lines if p.kind != "summary"]
    if any(p.aggr for p in lines):
        raise InputError(f"{where}: per-CPU lines (perf stat -A / --per-core); record a trace without them")
    if len({p.block for p in lines}) > 1:
        raise InputError(f"{where}: holds several runs (perf stat --append); give one run per file")
    table = pd.DataFrame(
        [(p.t, p.event, p.value, p.run_time_ns, p.percent, p.status) for p in lines if p.kind == "interval"],
        columns=["t", "event", "value", "run_time_ns", "percent", "status"],
    )
    if table.empty:
        raise InputError(f"{where}: no interval lines (record it with 'perf stat -I MS -x,')")
    bad = table[table["status"] == "not supported"]
    if len(bad):
        raise InputError(f"{where}: event {bad['event'].iloc[0]!r} is <not supported> by perf (no PMU here?)")
    dup = table.duplicated(["t", "event"])
    if dup.any():
        row = table[dup].iloc[0]
        raise InputError(f"{where}: event {row['event']!r} is printed twice for the interval ending at {row['t']:g} s")
    value = table["value"].to_numpy(float).copy()
    running = table["run_time_ns"].to_numpy(float).copy()
    percent = table["percent"].to_numpy(float).copy()
    not_counted = (table["status"] == "not counted").to_numpy()
    idle = not_counted & ~(running > 0)
    if ocoe:
        value[idle] = 0.0
        running[idle] = 0.0
    percent[np.isnan(percent)] = 100.0
    steps = pd.Index(np.sort(table["t"].unique()))
    out = pd.DataFrame(
        {
            "run": str(run),
            "t": table["t"].to_numpy(float),
            "step": steps.get_indexer(table["t"]),
            "event": table["event"].to_numpy(),
            "value": value,
            "time_running": running,
            "percent": percent,
        }
    )
    out = out.sort_values(["step"], kind="stable").reset_index(drop=True)
    _check_grid(out, where)
    _check_counts(out, where, ocoe=ocoe)
    return out


def _check_grid(trace: pd.DataFrame, where: str) -> None:
    """Every event of a run has exactly one line per interval."""
    for run, sub in trace.groupby("run", sort=False):
        n_steps = int(sub["step"].max()) + 1
        per_event = sub.groupby("event", sort=False)["step"]
        counts = per_event.size()
        if (counts != n_steps).any():
            ev = counts.index[int(np.argmax(counts.to_numpy() != n_steps))]
            have = set(sub.loc[sub["event"] == ev, "step"])
            miss = next(s for s in range(n_steps) if s not in have)
            t = sub.loc[sub["step"] == miss, "t"]
            when = f"the interval ending at {t.iloc[0]:g} s" if len(t) and np.isfinite(t.iloc[0]) else f"step {miss}"
            raise InputError(f"{where}: run {run!r}: event {ev!r} has no count for {when}")


def _interval(row: pd.Series) -> str:
    """``step 7 (t = 0.0833 s)``: an interval as a message names it."""
    t = row.get("t", np.nan)
    try:
        return f"step {row['step']}" + (f" (t = {float(t):g} s)" if np.isfinite(float(t)) else "")
    except (TypeError, ValueError):
        return f"step {row['step']}"


def _check_counts(trace: pd.DataFrame, where: str, *, ocoe: bool) -> None:
    value = trace["value"].to_numpy(float)
    bad = np.isinf(value) | (value < 0)
    if ocoe:
        bad |= np.isnan(value)
    if bad.any():
        row = trace.iloc[int(np.argmax(bad))]
        what = "an infinite" if np.isinf(row["value"]) else ("no" if np.isnan(row["value"]) else "a negative")
        shown = "" if np.isnan(row["value"]) else f" ({row['value']:g})"
        raise InputError(
            f"{where}: run {row['run']!r}: event {row['event']!r} has {what} count{shown} at step {row['step']}"
        )
    huge = value >= COUNTER_LIMIT  # no counter holds it: not a wrap-around either, and no estimator can use it
    if huge.any():
        row = trace.iloc[int(np.argmax(huge))]
        raise InputError(
            f"{where}: run {row['run']!r}: event {row['event']!r} has a count of {format_count(row['value'])} "
            f"at {_interval(row)}, more than any 64-bit counter holds (2^64); the file is damaged"
        )
    running = trace["time_running"].to_numpy(float)
    badr = ~np.isnan(running) & ((running < 0) | ~(running < COUNTER_LIMIT))
    if badr.any():
        row = trace.iloc[int(np.argmax(badr))]
        raise InputError(
            f"{where}: run {row['run']!r}: event {row['event']!r} has a bad running time {row['time_running']:g} ns"
            f" at {_interval(row)}"
        )
    pct = trace["percent"].to_numpy(float)
    badp = ~np.isnan(pct) & ((pct < 0) | (pct > 100.5))
    if badp.any():
        row = trace.iloc[int(np.argmax(badp))]
        raise InputError(
            f"{where}: run {row['run']!r}: event {row['event']!r} has a running percentage {row['percent']:g}"
            f" at step {row['step']} (must be 0..100)"
        )
    if ocoe:
        multiplexed = ~np.isnan(pct) & (pct < 99.5) & (value > 0)
        if multiplexed.any():
            row = trace.iloc[int(np.argmax(multiplexed))]
            raise InputError(
                f"{where}: run {row['run']!r}: event {row['event']!r} was on a counter only {row['percent']:g}% "
                f"of step {row['step']}: the run was multiplexed, so it is no ground truth "
                "(record fewer events per run)"
            )


# --------------------------------------------------------------------------- tidy tables
def _tidy_from_table(table: pd.DataFrame, where: str, *, ocoe: bool) -> pd.DataFrame:
    value_col = "value" if "value" in table.columns else ("raw" if "raw" in table.columns else None)
    missing = [c for c in ("run", "step", "event") if c not in table.columns] + ([] if value_col else ["value"])
    if missing:
        raise InputError(f"{where}: not a trace, missing column(s) {', '.join(missing)}")
    if table.empty:
        raise InputError(f"{where}: the trace has no rows")
    for c in ("run", "event"):
        if table[c].isna().any():
            raise InputError(f"{where}: column {c!r} has an empty value in row {int(np.argmax(table[c].isna()))}")
    out = table.copy()
    out["run"] = out["run"].astype(str)
    out["event"] = out["event"].astype(str)
    steps = pd.to_numeric(out["step"], errors="coerce").to_numpy(float)
    bad = ~np.isfinite(steps) | (steps < 0) | (steps != np.round(steps))
    if bad.any():
        row = out.iloc[int(np.argmax(bad))]
        raise InputError(
            f"{where}: run {row['run']!r}: event {row['event']!r} has step {row['step']!r}; "
            "steps are whole numbers 0, 1, 2, ..."
        )
    if steps.max() >= MAX_INTERVALS:
        row = out.iloc[int(np.argmax(steps))]
        raise InputError(
            f"{where}: run {row['run']!r}: step {int(steps.max())} is beyond the {MAX_INTERVALS} intervals "
            "a run may have"
        )
    out["step"] = steps.astype(np.int64)
    for c in ("value", "raw", "enabled", "running", "time_running", "percent", "t", "truth"):
        if c in out.columns:
            num = pd.to_numeric(out[c], errors="coerce")
            nonnum = num.isna() & out[c].notna()
            if nonnum.any():
                row = out[nonnum].iloc[0]
                raise InputError(
                    f"{where}: run {row['run']!r}: event {row['event']!r} has a non-numeric {c} {row[c]!r}"
                    f" at step {row['step']}"
                )
            out[c] = num.astype(float)
    dup = out.duplicated(["run", "step", "event"])
    if dup.any():
        row = out[dup].iloc[0]
        raise InputError(f"{where}: run {row['run']!r}: event {row['event']!r} has two rows for step {row['step']}")
    n = out.groupby(["run", "event"], sort=False)["step"].agg(["size", "max"])
    gap = n["max"] + 1 != n["size"]
    if gap.any():
        run, ev = n.index[int(np.argmax(gap.to_numpy()))]
        have = np.sort(out.loc[(out["run"] == run) & (out["event"] == ev), "step"].to_numpy())
        holes = np.setdiff1d(np.arange(have[-1] + 1), have) if have[-1] < 10 * len(have) + 10 else None
        what = f"step {int(holes[0])} is missing" if holes is not None and len(holes) else "its steps jump"
        raise InputError(
            f"{where}: run {run!r}: event {ev!r}: {what} (steps run 0..{int(have[-1])} over {len(have)} rows)"
        )
    if value_col == "value":
        if "time_running" not in out.columns:
            out["time_running"] = np.nan
        if "percent" not in out.columns:
            out["percent"] = 100.0
        if "t" not in out.columns:
            out["t"] = np.nan
        _check_counts(out, where, ocoe=ocoe)
    # perf prints every event in every interval and 'hemkit mpx emulate' writes them all: an event with fewer
    # intervals than its run's others is a file cut short (or edited), whose total would lack the rest
    lengths = out.groupby("run")["step"].max()
    per_event = out.groupby(["run", "event"])["step"].max()
    uneven = per_event.to_numpy() != lengths.loc[per_event.index.get_level_values(0)].to_numpy()
    if uneven.any():
        run, ev = per_event.index[int(np.argmax(uneven))]
        raise InputError(
            f"{where}: run {run!r}: event {ev!r} has {per_event.iloc[int(np.argmax(uneven))] + 1} intervals, "
            f"other events of the run {lengths.loc[run] + 1}: the events of a run are read together "
            "(was the file cut short?)"
        )
    _check_last_run(out, where)
    return out


def _check_last_run(table: pd.DataFrame, where: str) -> None:
    """Refuse a table whose last run reads fewer events than another run of its workload: a file cut short.

    ``hemkit mpx emulate`` writes a run's events one after the other, so a file cut at
    an event boundary leaves its last run without its last events, each remaining one whole: every
    interval check passes, and the run's missing events would simply be left out.
    """
    runs = table["run"].to_numpy()
    last = runs[-1]
    same = runs != last
    if "workload" in table.columns and not table["workload"].isna().any():
        workload = table["workload"].to_numpy()
        same &= workload == workload[-1]
    if not same.any():
        return  # the only run (of its workload): nothing to tell a cut by
    have = set(table.loc[runs == last, "event"])
    for run, events in table[same].groupby("run", sort=False)["event"]:
        read = list(dict.fromkeys(events))
        if have < set(read):
            missing = [e for e in read if e not in have]
            names = ", ".join(repr(e) for e in missing[:5]) + (" ..." if len(missing) > 5 else "")
            raise InputError(
                f"{where}: run {last!r}, the file's last, has {len(have)} events, run {run!r} of its workload "
                f"{len(read)}: it has no rows for {names}; the file ends inside that run (was it cut short?); "
                "a run that read fewer events on purpose goes in a file of its own"
            )


def read_trace(
    source: PathLike | Sequence[PathLike],
    *,
    workload: str | None = None,
    pattern: str | None = None,
    wraps: str = "repair",
    ocoe: bool = True,
) -> pd.DataFrame:
    """Read interval traces: raw ``perf stat -I`` files, hemkit's tidy traces, lists, folders.

    Parameters
    ----------
    source : path or sequence of paths
        Files, or folders of files (see the module docstring).
    workload : str, optional
        Name every run's workload (when the files carry no ``workload`` column).  Refused
        where the file names (by ``pattern``) say the runs are of several workloads
        (``gzip_r1.csv``, ``bzip2_r1.csv``): runs of one workload are pooled and kept together.
    pattern : str, optional
        Regular expression naming the workload from a file name (group ``workload`` or the
        first group); default :data:`DEFAULT_PATTERN`.
    wraps : {"repair", "drop", "error"}
        What to do with counts of 2^47 and more (counter wrap-arounds): repair them when the
        repaired count is plausible (else drop them), drop them, or refuse (see :func:`handle_wraps`).
    ocoe : bool
        The traces are ground truth (not multiplexed); see :func:`parse_trace`.

    Returns
    -------
    DataFrame
        :data:`TRACE_COLUMNS` (plus ``set`` and any other columns of a tidy file); ``run``
        ids are unique across the files (a raw file's run is its name without suffix).

    Raises
    ------
    InputError
        Anything wrong with the files, naming the file, run, event and interval.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> lines = "0.010,120,,page-faults,9990000,100.00,,\\n0.020,80,,page-faults,9990000,100.00,,\\n"
    >>> for k in (1, 2):
    ...     _ = open(os.path.join(folder, f"gzip_r{k}.csv"), "w").write("# started on Mon\\n\\n" + lines)
    >>> tr = read_trace(folder)
    >>> sorted(tr["run"].unique()), tr["workload"].unique().tolist()
    (['gzip_r1', 'gzip_r2'], ['gzip'])
    """
    if wraps not in WRAPS:
        raise InputError(f"wraps must be one of {', '.join(WRAPS)}, got {wraps!r}")
    parts = []
    seen: dict[str, Path] = {}
    own: list[str] = []  # files whose workload column wins over the workload or pattern given
    files = _files(source)
    if workload is not None and len(files) > 1:
        _refuse_pooling([p for p in files if not _is_tidy(p)], workload, pattern)
    for path in files:
        if _is_tidy(path):
            table = _tidy_from_table(read_table(path, comment="#"), str(path), ocoe=ocoe)
            if "workload" not in table.columns or table["workload"].isna().any():
                name = workload or workload_name(path, pattern)
                table["workload"] = table["workload"].fillna(name) if "workload" in table.columns else name
            elif workload is not None or pattern is not None:
                own.append(str(path))
            table["workload"] = table["workload"].astype(str)
        else:
            try:
                with open_input(path, "r", encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError as exc:
                raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
            check_last_line(path, text)  # perf ends every line: a file without its last newline was cut short
            name = strip_compression_suffix(path.name)  # gzip_r1.csv.gz is run gzip_r1, as gzip_r1.csv
            run = name.rsplit(".", 1)[0] if "." in name else name
            table = parse_trace(text, run=run, ocoe=ocoe, source=str(path))
            table.insert(0, "workload", workload or workload_name(path, pattern))
        for run in pd.unique(table["run"]):
            if run in seen:
                raise InputError(
                    f"{path}: run {run!r} is also in {seen[run]}; give each run its own id (rename the file)"
                )
            seen[run] = path
        parts.append(handle_wraps(table, wraps, source=str(path), ocoe=ocoe))
    if own:
        given = f"the workload {workload!r}" if workload is not None else f"the workload pattern {pattern!r}"
        warnings.warn(
            f"{', '.join(own[:3])}{' ...' if len(own) > 3 else ''}: {given} is not used: the "
            f"{'files name their' if len(own) > 1 else 'file names its'} runs' workloads in a workload column",
            HemkitWarning,
            stacklevel=2,
        )
    out = pd.concat(parts, ignore_index=True)
    front = [c for c in TRACE_COLUMNS if c in out.columns]
    return out[front + [c for c in out.columns if c not in front]]


# --------------------------------------------------------------------------- wrap-arounds
def _multiplexed_runs(trace: pd.DataFrame) -> set[str]:
    """The runs of a trace some event of which was off a counter in some interval (a multiplexed run)."""
    if "running" in trace.columns and "enabled" in trace.columns:  # hemkit's emulated or estimated tables
        run = trace["running"].to_numpy(float)
        off = np.nan_to_num(run) < trace["enabled"].to_numpy(float) * (1 - 1e-6)
    elif "percent" in trace.columns:  # perf stat -I: its running percentage, or <not counted> (NaN)
        off = (trace["percent"].to_numpy(float) < 99.5) | trace["value"].isna().to_numpy()
    else:
        return set()
    return set(trace.loc[off, "run"].astype(str))


def _gap(out: pd.DataFrame, i: int, col: str) -> None:
    """Row ``i``'s event had no counter in its interval: what a multiplexed run says of such an interval."""
    out.iloc[i, out.columns.get_loc(col)] = np.nan
    for c, v in (("running", 0.0), ("time_running", 0.0), ("percent", 0.0)):
        if c in out.columns:
            out.iloc[i, out.columns.get_loc(c)] = v


def handle_wraps(
    trace: pd.DataFrame, wraps: str = "repair", *, source: str = "trace", ocoe: bool = True
) -> pd.DataFrame:
    """Repair or drop counts of 2^47 and more (counter wrap-arounds), with a warning for each.

    A wrapped count ``v`` is repaired to ``v mod 2^47`` when that is at most 4 x the largest
    unwrapped count of the event in the run (a plausible count); otherwise, or with
    ``wraps="drop"``, the count is dropped.  In a run read without multiplexing (``ocoe``, or
    every event on a counter all the time, or a table with the true counts) the interval is
    dropped: the run loses that step for all its events, whose readings the multiplexing
    emulation takes together, and later steps move up by one.  In a multiplexed run
    (``ocoe=False`` and some event off a counter somewhere) an event already misses
    intervals, so only that event's reading of the interval is dropped: it becomes a gap,
    as where the event had no counter, and the other events keep theirs (their totals
    would otherwise lose that interval's counts).

    Examples
    --------
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 1, 2], "event": "e", "value": [5000.0, 2**47 + 6122, 7000.0]})
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     handle_wraps(tr)["value"].tolist()
    [5000.0, 6122.0, 7000.0]
    """
    col = "value" if "value" in trace.columns else "raw"
    value = trace[col].to_numpy(float)
    wrapped = np.isfinite(value) & (value >= WRAP)  # an infinite count is an error, not a wrap-around
    if "truth" in trace.columns:
        truth = trace["truth"].to_numpy(float)
        wrapped |= np.isfinite(truth) & (truth >= WRAP)
    if not wrapped.any():
        return trace
    if wraps == "error":
        row = trace.iloc[int(np.argmax(wrapped))]
        raise InputError(
            f"{source}: run {row['run']!r}: event {row['event']!r} has a count of {format_count(row[col])} >= 2^47 "
            f"at step {row['step']} (a counter wrap-around)",
            fix=Fix("wraps", "repair"),
        )
    out = trace.copy()
    drop: set[tuple[str, int]] = set()
    gaps = set() if ocoe or "truth" in out.columns else _multiplexed_runs(out)
    for i in np.flatnonzero(wrapped):
        row = out.iloc[i]
        run, ev, step = row["run"], row["event"], int(row["step"])
        when = f"step {step}" + (f" (t = {row['t']:g} s)" if "t" in out.columns and np.isfinite(row["t"]) else "")
        fixed = float(np.mod(row[col], WRAP)) if np.isfinite(row[col]) else np.nan
        same = (out["run"] == run).to_numpy() & (out["event"] == ev).to_numpy() & ~wrapped
        others = out.loc[same, col].to_numpy(float)
        others = others[np.isfinite(others)]
        plausible = wraps == "repair" and len(others) > 0 and fixed <= 4 * max(float(others.max()), 1.0)
        if plausible and "truth" not in out.columns:
            out.iloc[i, out.columns.get_loc(col)] = fixed
            warnings.warn(
                f"{source}: run {run!r}: event {ev!r} at {when}: count {format_count(row[col])} >= 2^47 is a counter "
                f"wrap-around; repaired to {format_count(fixed)}",
                HemkitWarning,
                stacklevel=3,
            )
        elif str(run) in gaps:
            _gap(out, int(i), col)
            warnings.warn(
                f"{source}: run {run!r}: event {ev!r} at {when}: count {format_count(row[col])} >= 2^47 is a counter "
                "wrap-around; its reading of the interval dropped (a gap, as where it had no counter; the other "
                "events keep theirs)",
                HemkitWarning,
                stacklevel=3,
            )
        else:
            drop.add((str(run), step))
            warnings.warn(
                f"{source}: run {run!r}: event {ev!r} at {when}: count {format_count(row[col])} >= 2^47 is a counter "
                "wrap-around; interval dropped",
                HemkitWarning,
                stacklevel=3,
            )
    if drop:
        key = list(zip(out["run"].astype(str), out["step"].astype(int)))
        gone = np.array([k in drop for k in key])
        out = out[~gone].copy()
        # later steps of each run move up by one per dropped interval before them
        for run in {r for r, _ in drop}:
            rows = (out["run"] == run).to_numpy()
            dropped = np.sort([s for r, s in drop if r == run])
            steps = out.loc[rows, "step"].to_numpy()
            out.loc[rows, "step"] = steps - np.searchsorted(dropped, steps)
        out = out.reset_index(drop=True)
    return out


# --------------------------------------------------------------------------- writing
def write_trace(table: pd.DataFrame, path: PathLike, *, inputs: Sequence[PathLike] = ()) -> Path:
    """Write a tidy trace as Parquet (``.parquet``/``.pq``) or CSV, atomically (:func:`hemkit.io.table.write_table`)."""
    return write_table(table, path, inputs=inputs, what="trace")


def write_perf_text(text: str, path: PathLike) -> Path:
    """Write the text ``perf stat -I -x,`` produced, byte for byte, atomically."""
    return write_text(path, text)


__all__ = [
    "DEFAULT_PATTERN",
    "MAX_INTERVALS",
    "TRACE_COLUMNS",
    "WRAP",
    "handle_wraps",
    "parse_trace",
    "read_trace",
    "workload_name",
    "write_perf_text",
    "write_trace",
]
