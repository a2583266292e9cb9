"""Plain ``perf stat`` files as :class:`~hemkit.core.readings.Readings`: one run per file.

The most common thing a perf user has is a folder of files written one run at a time::

    for i in $(seq 24); do perf stat -x, -o runs/run_$i.csv -e "${GROUP[i % 3]}" -- ./prog; done

(or ``-j`` for JSON).  :func:`read_perf_runs` turns such files into one readings set.

Rules
-----
- **Runs.** A file is one run, named by the file name without its suffix (``run_7.csv`` and
  ``run_7.csv.gz`` -> run ``'run_7'``: files compressed with gzip, bzip2 or xz are read as the
  file they hold); when two files would get the same name, their paths relative to the folder
  they share are used).  A file written with ``perf stat --append`` holds one run per
  ``# started on`` line: ``all.csv`` -> runs ``'all#1'``, ``'all#2'``...
- **Groups.** Runs that read the same set of events form one group (the order of the events
  does not matter); groups are numbered 1, 2, ... in the order their first file comes, files
  being taken in natural order (``run_2`` before ``run_10``).  With ``unusable="drop"`` an
  event dropped as ``<not supported>`` is not read: a run that printed one more event than the
  others, ``<not supported>``, reads what they read and is one of their group.
- **Intervals** (``-I``): the run's count of an event is the sum of its interval counts, which
  is what perf prints without ``-I``; an interval printed ``<not counted>`` with zero running
  time (the task did not run) counts 0.  The sum is of the numbers as printed
  (:func:`hemkit.core.numbers.exact_sum`): whole counts give the whole number, ``msec`` values
  their decimals, never float noise (``13.370000000000001``).  If perf printed its own total
  (``--summary``), that total is used.  An interval without a line for an event the others
  print is refused: perf prints every event in every interval, so the file was cut short and
  its sum is not the run's.
- **Per CPU** (``-A``, ``--per-core``, ``--per-socket``, ``--per-die``, ``--per-node``,
  ``--per-thread``): the counts are summed over CPUs as intervals are (``per_cpu="sum"``, what
  perf prints without these options) or kept apart as events ``task-clock@CPU0``
  (``per_cpu="split"``).
- **Refused** (an :class:`~hemkit.core.errors.InputError` naming the file, line and event):
  ``perf stat -r N`` output (perf's mean of N runs; the single runs are lost), decimal commas
  (``LC_ALL=C perf stat ...``), an event printed twice, a line that is not perf's, one run in two
  files (a copy: every count and nanosecond running time alike), a file whose last line has no
  newline (perf ends every line: the file was cut short, maybe inside a percentage, ``100.00``
  -> ``10``).
- **Readings that cannot be trusted** are refused, naming the file, run, line and event,
  unless ``unusable="drop"``: ``<not supported>`` (the event cannot be counted here: it is
  dropped from its group), ``<not counted>``, a percentage below 100 (multiplexed: perf
  scaled an estimate, and on the project's VMs such counts are corrupt), a count of 2^47 or
  more (a counter wrap-around) and a negative count (each drops its run).  Every drop is
  reported as a :class:`~hemkit.core.errors.HemkitWarning`.  ``keep_multiplexed=True`` keeps
  perf's scaled estimates, with a warning.
- **Hybrid CPUs** (Intel P and E cores, Arm big.LITTLE): perf counts a hardware event once per
  core PMU, ``cpu_core/instructions/`` and ``cpu_atom/instructions/``, distinct events here.
  A PMU whose cores never ran the program prints ``<not counted>`` with no running time while
  another PMU counted: that is not a failed reading.  A PMU idle in every run of a group is
  left out of the readings with one warning naming it (a program pinned to P cores); idle in
  some runs but not others, the idle runs are refused (pin every run to one core type).  A run
  that moved between core types (two PMUs each counted part of the time) is refused: perf
  scaled each PMU's count up to the whole run, so neither is a count.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from hemkit.core.errors import Fix, HemkitWarning, InputError
from hemkit.core.numbers import exact_sum, format_count, plural
from hemkit.core.readings import Readings
from hemkit.core.strays import warn_strays
from hemkit.io.formats import check_last_line, input_stem, read_input
from hemkit.io.perf_stat import PerfLine, scan_perf_stat

#: counts at or above this are counter wrap-arounds or scaled garbage (48-bit counters)
MAX_COUNT = 2.0**47
#: a PMU-qualified event, ``cpu_core/instructions/`` or ``cpu_atom/event=0xc0,umask=0/u``
_PMU_EVENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)/([^/]+)/[A-Za-z]*$")
#: the core PMUs of hybrid CPUs: Intel P/E cores, Arm big.LITTLE, Apple silicon under Linux
_CORE_PMU = re.compile(r"^(cpu_[a-z]+|armv[0-9]+_[A-Za-z0-9_]+|apple_[a-z]+_pmu)$")
#: largest perf stat file read (a run's file is a few hundred bytes; -I files some MB)
MAX_BYTES = 256 * 2**20


@dataclass(frozen=True)
class PerfOptions:
    """How :func:`read_perf_runs` (and :func:`hemkit.io.read_readings`) treat perf stat files.

    Parameters
    ----------
    unusable : {"refuse", "drop"}, default "refuse"
        What to do with a reading that cannot be trusted (``<not counted>``,
        ``<not supported>``, multiplexed, >= 2^47, negative): an error naming it, or drop
        it with a warning (the event for ``<not supported>``, the run otherwise).
    keep_multiplexed : bool, default False
        Keep perf's scaled estimate of a multiplexed event (percentage below 100), with a
        warning, instead of treating it as unusable.
    per_cpu : {"sum", "split"}, default "sum"
        Per-CPU/core/socket/thread counts: summed, or kept as events ``event@CPU0``.

    Examples
    --------
    >>> PerfOptions(unusable="drop")
    PerfOptions(unusable='drop', keep_multiplexed=False, per_cpu='sum')
    """

    unusable: str = "refuse"
    keep_multiplexed: bool = False
    per_cpu: str = "sum"

    def __post_init__(self) -> None:
        if self.unusable not in ("refuse", "drop"):
            raise InputError(f"unusable must be 'refuse' or 'drop', got {self.unusable!r}")
        if self.per_cpu not in ("sum", "split"):
            raise InputError(f"per_cpu must be 'sum' or 'split', got {self.per_cpu!r}")
        if not isinstance(self.keep_multiplexed, bool):
            raise InputError(f"keep_multiplexed must be True or False, got {self.keep_multiplexed!r}")


@dataclass(frozen=True)
class PerfRun:
    """One run read from a perf stat file.

    Attributes
    ----------
    path : Path
        The file.
    block : int
        Which ``# started on`` block of the file (0 when the file holds one run).
    values : dict
        ``{event: count}`` of the usable readings, in perf's order.
    events : tuple of str
        Every event perf printed for the run (the group key), usable or not.
    unsupported : tuple of str
        Events perf printed as ``<not supported>``.
    unsupported_where : str
        The first of them, with its file and line (``""`` when there is none).
    problem : str
        Why the run cannot be trusted (``""`` when it can), naming line and event.
    idle : dict
        ``{event: where}`` of a hybrid CPU's PMU-qualified events printed ``<not counted>``
        with no running time while another core PMU counted: the program did not run on that
        PMU's cores (see the module docstring).
    run : str
        The run's name in the readings (set by :func:`read_perf_runs`).
    intervals : bool
        The counts are sums of ``perf stat -I`` interval counts (perf printed no total).
    fingerprint : tuple
        Every line's event, counts and nanosecond running times: two runs alike in all of them
        are one run read twice (``()`` when perf printed no running time to tell them by).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(p, "w").write("<not counted>,,page-faults,0,0.00,,\\n")
    >>> read_perf_file(p)[0].problem.endswith("(event 'page-faults') is <not counted>")
    True
    """

    path: Path
    block: int
    values: dict[str, float]
    events: tuple[str, ...]
    unsupported: tuple[str, ...] = ()
    unsupported_where: str = ""
    problem: str = ""
    idle: dict[str, str] = field(default_factory=dict)
    run: str = field(default="", compare=False)
    intervals: bool = False
    fingerprint: tuple = field(default=(), compare=False, repr=False)


def natural_key(path: Path) -> list:
    """Sort key putting ``run_2`` before ``run_10``.

    Examples
    --------
    >>> sorted(["r10", "r2", "r1"], key=lambda p: natural_key(Path(p)))
    ['r1', 'r2', 'r10']
    """
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(path))]


def read_text(path: Path, *, limit: int = MAX_BYTES) -> str:
    """A file's text (UTF-8, a BOM dropped; gzip, bzip2 or xz decompressed), or an :class:`InputError` naming the file.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "latin1.csv")
    >>> _ = open(p, "wb").write(b"caf\\xe9")
    >>> read_text(Path(p))
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: ...latin1.csv: not UTF-8 text (byte 3)
    """
    data = read_input(path, limit)
    if len(data) > limit:
        raise InputError(f"{path}: larger than {limit // 2**20} MiB; not a perf stat file of one run")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(f"{path}: binary data (a NUL byte at byte {nul}); not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def split_pmu(event: str) -> tuple[str, str]:
    """``(pmu, name)`` of a PMU-qualified event; ``("", event)`` for ``instructions``, ``sched:sched_switch``...

    Examples
    --------
    >>> split_pmu("cpu_atom/instructions/"), split_pmu("cpu/event=0x3c,umask=0/u"), split_pmu("cycles")
    (('cpu_atom', 'instructions'), ('cpu', 'event=0x3c,umask=0'), ('', 'cycles'))
    """
    m = _PMU_EVENT.match(event)
    return (m.group(1), m.group(2)) if m else ("", event)


def pmu_of(event: str) -> str:
    """The PMU of a PMU-qualified event (``""`` for ``instructions``, ``sched:sched_switch``...).

    Examples
    --------
    >>> pmu_of("cpu_atom/instructions/"), pmu_of("cpu/event=0x3c,umask=0/u"), pmu_of("cycles")
    ('cpu_atom', 'cpu', '')
    """
    return split_pmu(event)[0]


def is_core_pmu(pmu: str) -> bool:
    """A hybrid CPU's core PMU (``cpu_core``, ``cpu_atom``, ``armv8_cortex_a53``...), one per core type.

    Examples
    --------
    >>> is_core_pmu("cpu_atom"), is_core_pmu("cpu"), is_core_pmu("msr")
    (True, False, False)
    """
    return bool(_CORE_PMU.match(pmu))


def core_pmu_of(event: str) -> str:
    """The hybrid CPU core PMU of an event (``cpu_core``, ``cpu_atom``, ``armv8_cortex_a53``...), else "".

    Examples
    --------
    >>> core_pmu_of("cpu_atom/cycles/"), core_pmu_of("msr/tsc/"), core_pmu_of("cycles")
    ('cpu_atom', '', '')
    """
    pmu = pmu_of(event)
    return pmu if is_core_pmu(pmu) else ""


def _core_pmus(lines: list[PerfLine]) -> dict[str, tuple[float, float]]:
    """Per hybrid core PMU counted in a run: (longest running time, largest percentage)."""
    ran: dict[str, tuple[float, float]] = {}
    for p in lines:
        pmu = pmu_of(p.event)
        if is_core_pmu(pmu) and p.status == "ok" and p.run_time_ns > 0:
            t, pct = ran.get(pmu, (0.0, 0.0))
            ran[pmu] = (max(t, p.run_time_ns), max(pct, p.percent if math.isfinite(p.percent) else 100.0))
    return ran


def _migrated(path: Path, lines: list[PerfLine], ran: dict[str, tuple[float, float]]) -> str:
    """Why a run that moved between a hybrid CPU's core types cannot be trusted (``""`` if it did not)."""
    part = {pmu: pct for pmu, (_, pct) in ran.items() if pct < 100}
    if len(ran) < 2 or not part:
        return ""
    first = next(p for p in lines if pmu_of(p.event) in part and p.status == "ok" and p.percent < 100)
    shares = " and ".join(f"{pmu} ({ran[pmu][1]:g}%)" for pmu in sorted(ran, key=lambda k: -ran[k][1]))
    return (
        f"{_where(path, first)}: the program ran on the cores of {shares}; perf scaled each core type's count "
        "up to the whole run, so neither is a count (pin the program to one core type, e.g. "
        f"taskset -c $(cat /sys/bus/event_source/devices/{max(ran, key=lambda k: ran[k][1])}/cpus))"
    )


def _where(path: Path, p: PerfLine) -> str:
    at = f"interval {p.t:.9f} s, " if p.kind == "interval" else ""
    cpu = f"{p.aggr}, " if p.aggr else ""
    return f"{path}: line {p.line} ({at}{cpu}event {p.event!r})"


def _problem(path: Path, p: PerfLine) -> tuple[str, bool]:
    """Why one line's reading cannot be trusted (``""`` if it can), and whether it was multiplexed."""
    if p.status == "not counted":
        if p.kind == "interval" and not p.run_time_ns > 0:
            return "", False  # the task did not run during the interval: a count of 0
        return f"{_where(path, p)} is <not counted>", False
    if p.status != "ok":
        return "", False
    if p.value < 0:
        return f"{_where(path, p)} has a negative count {p.value:g}", False
    if p.value >= MAX_COUNT:
        count = format_count(p.value)
        return f"{_where(path, p)} has an implausible count {count} (>= 2^47: a counter wrap-around)", False
    if math.isfinite(p.percent) and p.percent < 100:
        why = f"{_where(path, p)} was multiplexed (on a counter {p.percent:g}% of the time; perf scaled its count)"
        return why, True
    return "", False


def _check_intervals(path: Path, lines: list[PerfLine]) -> None:
    """Refuse a ``perf stat -I`` run in which an interval lacks an event the others print.

    perf prints every event in every interval, so such an interval is a file cut short (or
    damaged); summing it would give a count short of the run's own, with nothing to show it.
    """
    events = list(dict.fromkeys(p.event for p in lines))
    seen: dict[float, set[str]] = {}
    first: dict[float, PerfLine] = {}
    for p in lines:
        seen.setdefault(p.t, set()).add(p.event)
        first.setdefault(p.t, p)
    for t, printed in seen.items():
        missing = [e for e in events if e not in printed]
        if missing:
            names = ", ".join(repr(e) for e in missing)
            raise InputError(
                f"{path}: line {first[t].line} (interval {t:.9f} s): has no line for event(s) {names}, which "
                "the other intervals print; the file is cut short or damaged: its intervals do not sum to the "
                "run's counts"
            )


def _run(path: Path, block: int, lines: list[PerfLine], options: PerfOptions) -> PerfRun:
    totals = [p for p in lines if p.kind != "interval"]
    if not totals:
        _check_intervals(path, lines)
    use = totals or lines  # perf's own total (no -I, or --summary) wins over summing intervals
    seen: dict[tuple[str, str, float], int] = {}  # (event, aggr, interval time or -1): line
    counts: dict[str, list[float]] = {}  # event -> its counts: one, or one per interval or CPU
    unsupported: dict[str, str] = {}
    ran = _core_pmus(use)
    problem, kept = _migrated(path, use, ran), []
    idle: dict[str, str] = {}
    for p in use:
        key = (p.event, p.aggr, p.t if p.kind == "interval" else -1.0)
        if key in seen:
            raise InputError(f"{_where(path, p)} is printed twice (also line {seen[key]}); one run per file")
        seen[key] = p.line
        event = f"{p.event}@{p.aggr}" if p.aggr and options.per_cpu == "split" else p.event
        counts.setdefault(event, [])
        if p.status == "not supported":
            unsupported.setdefault(event, _where(path, p))
            continue
        pmu = pmu_of(p.event)
        if p.status == "not counted" and not p.run_time_ns > 0 and is_core_pmu(pmu) and pmu not in ran and ran:
            idle.setdefault(event, _where(path, p))  # a hybrid CPU's PMU whose cores did not run the program
            continue
        why, multiplexed = _problem(path, p)
        if multiplexed and options.keep_multiplexed:
            kept.append(why)
        else:
            problem = problem or why
        if p.status == "ok":
            counts[event].append(p.value)
    if kept:
        more = f" and {len(kept) - 1} more reading(s)" if len(kept) > 1 else ""
        warnings.warn(f"{kept[0]}{more}: kept perf's estimate", HemkitWarning, stacklevel=4)
    # summed as the numbers perf printed: whole counts stay whole, 3.14 + 5.9 + 4.33 msec is 13.37 (not ...0001)
    values = {e: exact_sum(c) for e, c in counts.items()}
    events = tuple(values)
    for e in [*unsupported, *idle]:
        del values[e]
    where = next(iter(unsupported.values()), "")
    timed = any(p.run_time_ns > 0 for p in lines)
    fingerprint = tuple(_line_key(p) for p in lines) if timed else ()
    return PerfRun(
        path,
        block,
        values,
        events,
        tuple(unsupported),
        where,
        problem,
        idle,
        intervals=not totals,
        fingerprint=fingerprint,
    )


def _line_key(p: PerfLine) -> tuple:
    """What a line says, NaN as None (so that two reads of one line compare equal)."""
    numbers = tuple(None if math.isnan(x) else x for x in (p.t, p.value, p.run_time_ns, p.percent))
    return (p.event, p.aggr, p.status, *numbers)


def _check_copies(runs: list[PerfRun]) -> None:
    """Refuse a run read twice: a copy of a file (``run_2 (copy).csv``) holds the same counts and running times.

    Two real runs never have the same nanosecond running times for every event; the same run
    twice would be taken for two runs that agree exactly, and pull every correlation its way.
    """
    first: dict[tuple, PerfRun] = {}
    for r in runs:
        if not r.fingerprint:
            continue
        twin = first.setdefault(r.fingerprint, r)
        if twin is not r:
            raise InputError(
                f"{twin.path} and {r.path}: hold the same run ({twin.run!r} and {r.run!r}: every count and "
                "running time alike, to the nanosecond), so one is a copy of the other; each run is read once: "
                "leave the copy out"
            )


def read_perf_file(path: str | os.PathLike[str], options: PerfOptions | None = None) -> list[PerfRun]:
    """The runs of one perf stat file (one, or one per ``# started on`` block of ``--append``).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "run_1.csv")
    >>> _ = open(p, "w").write("# started on Mon\\n\\n0.72,msec,task-clock,719410,100.00,0.191,CPUs utilized\\n")
    >>> read_perf_file(p)[0].values
    {'task-clock': 0.72}
    """
    options = options or PerfOptions()
    path = Path(os.fspath(path))
    text = read_text(path)
    check_last_line(path, text)  # cut inside its last line: perf ends every line, the last one too
    scan = scan_perf_stat(text, source=str(path))
    if not scan.lines:
        if scan.started:
            # what perf -o writes before the program starts: the run never got to its counts
            raise InputError(
                f"{path}: perf stat's '# started on' line but no counts: that run did not finish (perf could not "
                "start the program, or was stopped before it wrote); record it again, or leave the file out"
            )
        raise InputError(f"{path}: no event lines (perf stat -x, or -j output expected)")
    var = next((p for p in scan.lines if math.isfinite(p.variance)), None)
    if var is not None:
        raise InputError(
            f"{path}: line {var.line}: holds perf stat -r averages (a variance column), not single runs; "
            "write each run to its own file (perf stat -x, -o run_$i.csv ...)"
        )
    blocks: dict[int, list[PerfLine]] = {}
    for p in scan.lines:
        blocks.setdefault(p.block, []).append(p)
    return [_run(path, b, lines, options) for b, lines in blocks.items()]


def _run_ids(runs: list[PerfRun]) -> list[str]:
    paths = list(dict.fromkeys(r.path for r in runs))
    names = {p: input_stem(p) for p in paths}  # run_7.csv.gz is run_7, as run_7.csv
    if len(set(names.values())) < len(paths):
        full = {p: Path(os.path.abspath(p)) for p in paths}
        common = Path(os.path.commonpath([str(f.parent) for f in full.values()]))
        names = {p: f.relative_to(common).as_posix() for p, f in full.items()}
    per_file: dict[Path, int] = {}
    for r in runs:
        per_file[r.path] = per_file.get(r.path, 0) + 1
    return [names[r.path] + (f"#{r.block}" if per_file[r.path] > 1 else "") for r in runs]


def _describe_group(gid: int, events: list[str], ids: list[str]) -> str:
    files = ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")
    return f"group {gid} is the {len(ids)} run(s) reading {', '.join(events)} ({files})"


def _groups(runs: list[PerfRun], options: PerfOptions) -> list[list[PerfRun]]:
    """The runs of each group, in the order of their first run: runs of one set of events read.

    The events perf printed make the set; with ``unusable="drop"`` those printed ``<not
    supported>`` in a run of the set are dropped from it first, so a run with one more such
    event than the others joins their group instead of making a group of its own.
    """
    by_set: dict[frozenset[str], list[int]] = {}
    for i, r in enumerate(runs):
        by_set.setdefault(frozenset(r.events), []).append(i)
    if options.unusable == "drop":
        merged: dict[frozenset[str], list[int]] = {}
        for key, members in by_set.items():
            dropped = {e for i in members for e in runs[i].unsupported}
            merged.setdefault(key - dropped, []).extend(members)
        by_set = merged
    return [[runs[i] for i in sorted(members)] for members in by_set.values()]


def read_perf_runs(
    paths: Sequence[str | os.PathLike[str]],
    options: PerfOptions | None = None,
    *,
    min_runs: int = 3,
    drop_constant: bool = False,
    source: str = "",
) -> Readings:
    """Read perf stat files, one run each, into one readings set (see the module docstring).

    Parameters
    ----------
    paths : sequence of paths
        ``perf stat -x,`` (any separator) or ``-j`` files, mixed as you like.
    options : PerfOptions, optional
        What to do with untrusted readings and per-CPU counts.
    min_runs : int, default 3
        Fewest runs a group may have.
    drop_constant : bool, default False
        Drop events constant within a group (with a warning) instead of raising.
    source : str
        How to name the input in messages (default: the folder the files share).

    Raises
    ------
    InputError
        A file is not perf stat output, holds ``-r`` averages, an untrusted reading (unless
        dropped), or a group ends up invalid (too few runs, a constant event), naming the
        group's events and files.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for i in range(6):
    ...     ev = "page-faults" if i % 2 else "context-switches"
    ...     _ = open(os.path.join(d, f"run_{i}.csv"), "w").write(
    ...         f"{1 + i / 10:.2f},msec,task-clock,1000,100.00,,\\n{40 + i * i},,{ev},1000,100.00,,\\n")
    >>> r = read_perf_runs([os.path.join(d, f) for f in sorted(os.listdir(d))])
    >>> r, r.group_ids, list(r[1].index)
    (Readings(2 groups, 3 events, 3-3 runs per group), [1, 2], ['run_0', 'run_2', 'run_4'])
    """
    options = options or PerfOptions()
    files = sorted((Path(os.fspath(p)) for p in paths), key=natural_key)
    if not files:
        raise InputError("no perf stat files given")
    seen: dict[Path, Path] = {}
    for f in files:
        real = Path(os.path.realpath(f))
        if real in seen:
            raise InputError(f"{f}: given twice (also as {seen[real]})")
        seen[real] = f
    if not source:
        parents = {str(f.parent) for f in files}
        source = f"{next(iter(parents))}/" if len(parents) == 1 else f"{len(files)} perf stat files"
    runs = [r for f in files for r in read_perf_file(f, options)]
    ids = _run_ids(runs)
    runs = [dataclasses.replace(r, run=i) for r, i in zip(runs, ids)]
    _check_copies(runs)
    groups: dict[Hashable, pd.DataFrame] = {}
    described: dict[int, str] = {}
    printed: dict[int, list[str]] = {}  # the events of each group, in the order perf printed them
    idle_warned: dict[str, list[str]] = {}
    for gid, members in enumerate(_groups(runs, options), start=1):
        dropped = {e for r in members for e in r.unsupported} if options.unusable == "drop" else set()
        read = [e for e in members[0].events if e not in dropped]
        described[gid] = _describe_group(gid, read, [r.run for r in members])
        printed[gid] = list(members[0].events)
        members = _idle_pmus(members, idle_warned)
        keep = _usable(gid, members, options)
        if not keep:
            continue
        columns = [e for e in read if all(e in r.values for r in keep)]
        groups[gid] = pd.DataFrame(
            [[r.values[e] for e in columns] for r in keep],
            index=pd.Index([r.run for r in keep], name="run"),
            columns=columns,
        )
    _warn_idle(idle_warned)
    if not groups:
        raise InputError(f"{source}: no usable runs left")
    try:
        readings = Readings(groups, source=source, min_runs=min_runs, drop_constant=drop_constant)
    except InputError as exc:
        culprit = next((g for g in described if f"group {g}:" in str(exc)), None)
        if culprit is None:
            raise
        if len(files) == 1 and len(runs) == 1:
            raise _one_run(files[0], runs[0], source) from None
        raise exc.reworded(f"{exc.message}; {described[culprit]}{_cut_short(culprit, printed)}") from None
    _warn_strays(readings, runs)
    return readings


def _warn_strays(readings: Readings, runs: list[PerfRun]) -> None:
    """Warn of a run far out of line with its group (:mod:`hemkit.core.strays`), naming its file.

    perf stat files do not name the measured program: one run of another program recorded
    into the folder of a build's runs reads as one more run of it.
    """
    of = {r.run: r for r in runs}

    def name(gid: Hashable, run: Hashable) -> str:
        r = of[str(run)]
        return f"{r.path}" if runs_in[r.path] == 1 else f"{r.path} (run {run!r})"

    runs_in: dict[Path, int] = {}
    for r in runs:
        runs_in[r.path] = runs_in.get(r.path, 0) + 1
    warn_strays(readings.arrays, name, " (perf stat files do not name it); if so, leave the file out")


def _cut_short(gid: int, printed: dict[int, list[str]]) -> str:
    """A hint when group ``gid`` reads the first events of a larger group, as a file cut short does."""
    mine = printed[gid]
    for other, events in printed.items():
        if other != gid and len(events) > len(mine) and events[: len(mine)] == mine:
            return (
                f", the first {len(mine)} of the {len(events)} events group {other} reads "
                f"({', '.join(events)}): are its files cut short?"
            )
    return ""


def _one_run(file: Path, run: PerfRun, source: str) -> InputError:
    """The error for one perf stat file of one run, given alone or as the only file of a folder."""
    summed = " (perf stat -I: its intervals are summed into the run's counts)" if run.intervals else ""
    folder = Path(source.rstrip("/")) if source else None
    if folder is not None and folder.is_dir() and file.parent.resolve() == folder.resolve():
        return InputError(
            f"{source}: holds one perf stat file, {file.name}, and so one run{summed}; put the files of all runs "
            "in the folder (one run per file), or give several files or folders"
        )
    return InputError(
        f"{file}: a perf stat file holds one run{summed}; give the files of all runs (several files or a folder)"
    )


def _idle_pmus(members: list[PerfRun], idle_warned: dict[str, list[str]]) -> list[PerfRun]:
    """A hybrid CPU's PMUs idle in every run of a group are left out; idle in some, those runs are marked.

    ``idle_warned`` collects ``{pmu: [events]}`` left out, for one warning per PMU.
    """
    counted = {e for r in members if not r.problem for e in r.values}
    out = []
    for r in members:
        bad = next((e for e in r.idle if e in counted), None)
        if bad is not None and not r.problem:
            other = next(m.run for m in members if bad in m.values)
            why = (
                f"{r.idle[bad]} is <not counted>: the program did not run on {pmu_of(bad)} cores in this run, "
                f"but it did in run {other!r}; pin every run to one core type"
            )
            r = dataclasses.replace(r, problem=why)
        out.append(r)
    for e in dict.fromkeys(e for r in members for e in r.idle):
        if e not in counted:
            idle_warned.setdefault(pmu_of(e), [])
            if e not in idle_warned[pmu_of(e)]:
                idle_warned[pmu_of(e)].append(e)
    return out


def _warn_idle(idle_warned: dict[str, list[str]]) -> None:
    for pmu, events in idle_warned.items():
        shown = ", ".join(events[:4]) + (f" and {len(events) - 4} more" if len(events) > 4 else "")
        warnings.warn(
            f"{pmu}: the program never ran on its cores (every {pmu}/.../ reading is <not counted> with no "
            f"running time while another core type counted): left out {shown}",
            HemkitWarning,
            stacklevel=4,
        )


def _usable(gid: int, members: list[PerfRun], options: PerfOptions) -> list[PerfRun]:
    """The runs of one group left after untrusted readings are refused or dropped."""
    for r in members:
        if r.unsupported and options.unusable == "refuse":
            raise InputError(
                f"{r.unsupported_where} is <not supported> by perf in run {r.run!r}; such events can be dropped",
                fix=Fix("unusable", "drop"),
            )
        if r.problem and options.unusable == "refuse":
            raise InputError(f"{r.problem} in run {r.run!r}; such runs can be dropped", fix=Fix("unusable", "drop"))
    unsupported = list(dict.fromkeys(e for r in members for e in r.unsupported))
    if unsupported:
        said = [r for r in members if r.unsupported]
        printed = sum(1 for r in members if set(unsupported) & set(r.events))
        more = f" and in {len(said) - 1} more run(s)" if len(said) > 1 else ""
        warnings.warn(
            f"group {gid}: dropped event(s) {', '.join(map(repr, unsupported))}, printed in {printed} of its "
            f"{len(members)} run(s): {said[0].unsupported_where} is <not supported> by perf{more}",
            HemkitWarning,
            stacklevel=4,
        )
    keep = [r for r in members if not r.problem]
    if not keep and len(members) > 1:  # the whole group: one warning that says what goes with it
        gone = ", ".join(map(repr, [e for e in members[0].events if e not in unsupported]))
        warnings.warn(
            f"group {gid}: dropped all {len(members)} of its runs, and with them its readings of {gone}: "
            f"{members[0].problem} in run {members[0].run!r} (and {plural(len(members) - 1, 'more run')})",
            HemkitWarning,
            stacklevel=4,
        )
        return keep
    for r in members:
        if r.problem:
            warnings.warn(f"dropped run {r.run!r}: {r.problem}", HemkitWarning, stacklevel=4)
    return keep


__all__ = [
    "MAX_COUNT",
    "PerfOptions",
    "PerfRun",
    "core_pmu_of",
    "is_core_pmu",
    "natural_key",
    "pmu_of",
    "read_perf_file",
    "read_perf_runs",
    "read_text",
    "split_pmu",
]
