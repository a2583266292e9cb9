"""Linux ``perf``: ``perf stat`` and ``perf record`` of a command, ``perf script`` on a ``perf.data`` file.

The one place hemkit starts ``perf``: the collector, the multiplexing traces, the metric
derivation and the sampling check all call these functions.  ``perf stat`` output goes to
a temporary file (``perf stat -o``) so that the program's own output cannot mix with it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from hemkit.core.errors import HemkitError, InputError, MeasurementError, SetupError
from hemkit.external.process import (
    Completed,
    Program,
    Writing,
    describe_status,
    find_tool,
    resolve_program,
    run,
    writing,
)
from hemkit.io.perf_script import FIELDS
from hemkit.io.perf_stat import parse_perf_stat


@dataclass(frozen=True)
class PerfStatResult:
    """One ``perf stat`` run: parsed counts, the command's exit code, wall time and stderr tail."""

    counts: pd.DataFrame
    returncode: int
    seconds: float
    stderr: str


def find_perf(perf: str | None = None) -> str:
    """Path of the ``perf`` binary (``$HEMKIT_PERF``, then PATH), or a clear error."""
    return find_tool(perf, env="HEMKIT_PERF", default="perf", install="Debian: apt-get install linux-perf")


@dataclass(frozen=True)
class PerfStatOptions:
    """How :func:`run_perf_stat` runs ``perf stat``.

    Attributes
    ----------
    interval_ms : int, optional
        Print counts every ``interval_ms`` milliseconds (``-I``).
    cpu : int, optional
        Pin the command to this CPU (``taskset -c``).
    fmt : {"csv", "json"}
    perf : str, optional
        perf binary; default ``$HEMKIT_PERF`` or ``perf`` on PATH.
    timeout : float, optional
        Seconds before the run is killed (then a :class:`MeasurementError`).
    extra_args : tuple of str
        More ``perf stat`` options (e.g. ``("-D", "-1", "--control", ...)``).
    start_new_session : bool
        Run perf in its own session so that a Ctrl-C at the terminal does not reach it
        (the collector then finishes the current run before it stops).
    """

    interval_ms: int | None = None
    cpu: int | None = None
    fmt: str = "csv"
    perf: str | None = None
    timeout: float | None = None
    extra_args: tuple[str, ...] = ()
    start_new_session: bool = False


_C_LOCALES = ("C", "POSIX")


def _numeric_locale() -> tuple[str, str | None]:
    """The variable that sets the user's number format, and its value (``LC_ALL`` wins)."""
    for name in ("LC_ALL", "LC_NUMERIC", "LANG"):
        value = os.environ.get(name)
        if value:
            return name, value
    return "LANG", None


def _in_c_numeric(command: list[str]) -> tuple[dict[str, str], list[str]]:
    """Perf must print numbers the C way (a decimal point), the program keeps the user's locale.

    Under e.g. ``de_DE.UTF-8`` perf writes ``1,5`` in its CSV.  When the user's locale may
    do that, perf gets ``LC_ALL=C`` and the program is started through ``env`` with the
    user's own locale variables put back, so it sees exactly the user's environment.
    """
    _, value = _numeric_locale()
    if value is None or value.split(".")[0] in _C_LOCALES or value.startswith("en_"):
        return {}, command
    env = shutil.which("env")
    if env is None:  # pragma: no cover - coreutils is everywhere perf is
        return {}, command
    restore = [env, "-u", "LC_ALL"]
    for name in ("LC_ALL", "LC_NUMERIC", "LANG"):
        if os.environ.get(name):
            restore.append(f"{name}={os.environ[name]}")
    return {"LC_ALL": "C"}, [*restore, *command]


def run_perf_stat(
    events: Sequence[str], command: Sequence[str], options: PerfStatOptions | None = None
) -> PerfStatResult:
    """Run ``perf stat -e EVENTS [-I MS] -- COMMAND`` and parse what it counted.

    Parameters
    ----------
    events : sequence of str
        perf event names or raw codes (``cycles``, ``r00c0``, ``syscalls:sys_enter_read``).
        Put events that must share a counter group inside ``{a,b}`` yourself.
    command : sequence of str
        The program and its arguments.
    options : PerfStatOptions, optional
        Interval, pinning, format, perf binary, time limit, extra perf options, session.

    Returns
    -------
    PerfStatResult
        ``returncode`` is the measured program's exit code, or minus the signal number
        when it was killed (perf itself exits 0 then and only says so on stderr); see
        :func:`hemkit.external.process.describe_status`.  A program killed before perf
        waits for it (at once, on a loaded machine) is reported as exit 0: perf's SIGCHLD
        handler then forgets the child, so perf neither waits for it nor says so.

    Raises
    ------
    HemkitError
        perf missing, an event perf does not know, or the command could not start.

    Notes
    -----
    The program runs with the user's environment and current folder.  Its name is looked
    up on the user's ``PATH`` here, and perf is started under the name ``perf``: started by
    its full path (``/usr/bin/perf``) perf would put that folder first on the program's
    ``PATH`` and a ``python3`` command would run the system Python instead of the user's
    virtual environment.  perf still puts its own helper folder (``/usr/lib/perf-core``,
    which holds only ``perf-*`` tools) in front.
    """
    o = options or PerfStatOptions()
    interval_ms, cpu, fmt, timeout = o.interval_ms, o.cpu, o.fmt, o.timeout
    if not events:
        raise InputError("no events to count")
    if not command:
        raise InputError("no command to run")
    exe = find_perf(o.perf)
    program = resolve_program(os.fspath(command[0]))
    command = [program, *map(os.fspath, command[1:])]
    with tempfile.TemporaryDirectory(prefix="hemkit-perf-") as tmp:
        out = os.path.join(tmp, "stat.out")
        args = ["perf", "stat", "-o", out, "-x,"] if fmt == "csv" else ["perf", "stat", "-o", out, "-j"]
        args += ["-e", ",".join(events)]
        if interval_ms is not None:
            args += ["-I", str(int(interval_ms))]
        args += list(o.extra_args)
        args += ["--"]
        workload = program  # the name perf uses when it reports that the workload was killed
        if cpu is not None:
            taskset = shutil.which("taskset")
            if taskset is None:
                raise SetupError("pinning to a CPU needs taskset (util-linux)")
            args += [taskset, "-c", str(cpu)]
            workload = taskset
        perf_env, wrapped = _in_c_numeric(list(command))
        if cpu is None:
            workload = wrapped[0]  # env, when the program's locale is put back
        args += wrapped
        t0 = time.perf_counter()
        try:
            proc = run(
                Program(tuple(args), executable=exe, die_with_parent=True),
                env=perf_env,
                capture=False,
                timeout=timeout,
                start_new_session=o.start_new_session,
                what="perf stat",
            )
        except MeasurementError as exc:
            raise MeasurementError(
                f"perf stat timed out after {timeout:g} s running {' '.join(command)}; give a larger timeout",
                param="timeout",
            ) from exc
        seconds = time.perf_counter() - t0
        text = Path(out).read_text(errors="replace") if os.path.exists(out) else ""
    err = proc.stderr or ""
    m = re.search(r"event syntax error: '([^']*)'", err)
    if m:  # perf shows a cut piece of the list: name every event it refuses, in full
        check_perf_events([e.strip("{}") for e in events], perf=exe)
        raise InputError(f"perf does not know the event {m.group(1)!r} (see 'perf list')")
    if ("failed to execute" in err.lower() or "no such file or directory" in err.lower()) and not text.strip():
        raise MeasurementError(f"could not run {command[0]!r}: {err.strip().splitlines()[-1]}")
    counts = parse_perf_stat(text, fmt=fmt, interval=interval_ms is not None)
    if counts.empty and proc.returncode != 0:
        tail = err.strip().splitlines()[-1] if err.strip() else f"exit code {proc.returncode}"
        raise MeasurementError(f"perf stat failed: {tail}")
    returncode = proc.returncode
    killed = _killed_by(err, workload)
    if returncode == 0 and killed:
        returncode = -killed
    return PerfStatResult(counts=counts, returncode=returncode, seconds=seconds, stderr=err[-2000:])


class UnknownEventsError(InputError):
    """Events perf refuses (see :func:`check_perf_events`); ``events`` maps each to perf's reason.

    Examples
    --------
    >>> UnknownEventsError("perf does not know ...", {"cyclse": ""}).events
    {'cyclse': ''}
    """

    def __init__(self, message: str, events: dict[str, str] | None = None, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.events = dict(events or {})


_CARET = re.compile(r"\\___\s*(.*)")
#: what ``perf list`` prints that can be given to ``-e``: names, ``sys:event`` tracepoints, ``pmu/name/``
_LISTED = re.compile(r"[A-Za-z_][\w.\-]*(?::[\w.\-]+)?|[\w\-]+/[\w.\-=,]+/")


_SYNTAX_LEAD = "event syntax error: '"


def _pointed_at(err: str, events: Sequence[str]) -> str | None:
    """The event under perf's caret (``\\___``) in its ``event syntax error: '...'`` message, if it can be told."""
    lines = err.splitlines()
    for i, line in enumerate(lines[:-1]):
        at = line.find(_SYNTAX_LEAD)
        caret = lines[i + 1].find("\\___")
        if at < 0 or caret < 0:
            continue
        shown = line[at + len(_SYNTAX_LEAD) :].rsplit("'", 1)[0]
        offset = caret - at - len(_SYNTAX_LEAD)
        if shown.startswith(".."):  # perf cuts long lists around the error
            shown, offset = shown[2:], offset - 2
        shown = shown.removesuffix("..")
        joined = ",".join(events)
        start = joined.find(shown)
        if start < 0 or not 0 <= offset < len(shown):
            return None
        pos, end = start + offset, 0
        for event in events:
            end += len(event) + 1
            if pos < end - 1:
                return event
        return None
    return None


def _refusal(exe: str, events: Sequence[str]) -> tuple[str | None, str | None]:
    """Why perf refuses ``-e EVENTS`` ('': a name it does not know; None: it takes them), and the event it names."""
    true = resolve_program("true")
    # the counts are not wanted, only perf's verdict on stderr: no temporary file, so a Ctrl-C
    # at any moment of this check (before a collection defers signals) leaves nothing behind
    proc = run(
        Program(("perf", "stat", "-o", os.devnull, "-x,", "-e", ",".join(events), "--", true), executable=exe),
        timeout=60,
        what="perf stat",
    )
    err = proc.stderr or ""
    if "event syntax error" not in err:
        return None, None  # known to perf (whether it can count them here is the collection's business)
    caret = _CARET.search(err)
    why = caret.group(1).strip() if caret else ""
    detail = next((ln.split(":", 1)[1].strip() for ln in err.splitlines() if ln.startswith("Error:")), "")
    if why == "parser error" or (why == "unknown tracepoint" and detail.endswith("not found.")):
        why, detail = "", ""
    return "; ".join(x for x in (why, detail) if x), _pointed_at(err, events)


#: Unknown events an error names one by one (:func:`check_perf_events`); the rest are counted.
SHOW_UNKNOWN = 10
#: perf calls :func:`unknown_perf_events` makes before it judges the rest by ``perf list`` alone
MAX_PERF_CALLS = 60


def unknown_perf_events(events: Sequence[str], *, perf: str | None = None) -> dict[str, str]:
    """The events this machine's perf refuses to parse, each with perf's reason ('' for a name it does not know).

    One ``perf stat -e ALL -- true`` when perf takes them all (the usual case).  Otherwise
    the event perf points at (or, when it cannot be told, one found by halving the list) is
    checked alone and set aside, until perf takes the rest; so every refused event is named
    in full.  After :data:`MAX_PERF_CALLS` calls (a list of names of another machine), the
    events left are judged by ``perf list``: those it does not print are refused.

    Raises
    ------
    SetupError
        perf is missing.

    Examples
    --------
    >>> unknown_perf_events(["task-clock", "context-swtiches"])  # doctest: +SKIP
    {'context-swtiches': ''}
    """
    exe = find_perf(perf)
    todo = list(dict.fromkeys(events))
    refused: dict[str, str] = {}
    calls = 0

    def refusal(batch: list[str]) -> tuple[str | None, str | None]:
        nonlocal calls
        calls += 1
        return _refusal(exe, batch)

    def one_refused(batch: list[str], why: str) -> tuple[str, str]:
        while len(batch) > 1:  # perf refuses batch: one of its halves holds a refused event
            half = len(batch) // 2
            left, _ = refusal(batch[:half])
            if left is not None:
                batch, why = batch[:half], left
            else:
                batch = batch[half:]
                if len(batch) == 1:
                    why = refusal(batch)[0] or ""
        return batch[0], why

    while todo and calls < MAX_PERF_CALLS:
        why, hint = refusal(todo)
        if why is None:
            return refused
        found: tuple[str, str] | None = None
        if len(todo) == 1:
            found = (todo[0], why)
        elif hint is not None:
            alone, _ = refusal([hint])
            found = (hint, alone) if alone is not None else None
        if found is None:
            found = one_refused(todo, why)
        refused[found[0]] = found[1]
        todo.remove(found[0])
    if todo:
        listed = set(perf_event_names(perf=perf))
        refused.update({e: "" for e in todo if e not in listed})
    return refused


def perf_event_names(*, perf: str | None = None) -> list[str]:
    """The event names ``perf list`` prints (aliases and ``sys:event`` tracepoints included); [] if it fails.

    Examples
    --------
    >>> "context-switches" in perf_event_names()  # doctest: +SKIP
    True
    """
    try:
        proc = run([find_perf(perf), "list"], timeout=120, what="perf list")
    except HemkitError:
        return []
    names: list[str] = []
    for line in proc.stdout.splitlines():
        text = line.strip()
        if not text or text.startswith("[") or text.endswith(":"):
            continue  # descriptions and section headers
        for name in re.split(r"\s+OR\s+", re.split(r"\s{2,}\[|\s+\[", text)[0]):
            if _LISTED.fullmatch(name.strip()) and "NNN" not in name:  # not the rNNN template
                names.append(name.strip())
    return list(dict.fromkeys(names))


def check_perf_events(events: Sequence[str], *, perf: str | None = None, optional: bool = False) -> None:
    """Refuse, before anything is measured, every event this machine's perf does not know.

    Parameters
    ----------
    events : sequence of str
        perf event names (``cycles``, ``r00c0``, ``sched:sched_switch``, ``cpu/event=0x3c/``).
    perf : str, optional
        perf binary; default ``$HEMKIT_PERF`` or ``perf`` on PATH.
    optional : bool
        No perf here: check nothing (``hemkit plan`` plans for machines it does not run on).

    Raises
    ------
    UnknownEventsError
        Naming every refused event in full, each with the closest names ``perf list``
        prints (or perf's own reason when it knows the name but cannot use it).
    SetupError
        perf is missing (unless ``optional``).

    Examples
    --------
    >>> check_perf_events(["task-clock", "context-swtiches"])  # doctest: +SKIP
    Traceback (most recent call last):
    ...
    hemkit.external.perf.UnknownEventsError: perf does not know the event 'context-swtiches' (closest: ...
    """
    try:
        refused = unknown_perf_events(events, perf=perf)
    except SetupError:
        if optional:
            return
        raise
    if not refused:
        return
    import difflib

    known = perf_event_names(perf=perf) if any(why == "" for why in refused.values()) else []
    parts = []
    for event, why in refused.items():
        if why:
            parts.append(f"{event!r} (perf: {why})")
            continue
        close = difflib.get_close_matches(event, known, n=3, cutoff=0.6)
        parts.append(f"{event!r} (closest: {', '.join(close)})" if close else f"{event!r} (no close name)")
    what = "the event" if len(refused) == 1 else f"{len(refused)} events"
    # one line a reader can take in: the first SHOW_UNKNOWN named (the exception keeps every one)
    more = f" and {len(parts) - SHOW_UNKNOWN} more" if len(parts) > SHOW_UNKNOWN else ""
    named = ", ".join(parts[:SHOW_UNKNOWN]) + more
    raise UnknownEventsError(f"perf does not know {what} {named}; see 'perf list'", refused)


def _killed_by(stderr: str, program: str) -> int:
    """The signal that killed ``program``, from perf's ``PROGRAM: Killed`` line (psignal), or 0.

    Examples
    --------
    >>> _killed_by("some output\\n/bin/sh: Segmentation fault\\n", "/bin/sh") == signal.SIGSEGV
    True
    >>> _killed_by("/bin/sh: Segmentation fault\\n", "/bin/bash")
    0
    """
    lines = [line for line in stderr.splitlines() if line.strip()]
    if not lines:
        return 0
    prefix = f"{program}: "
    for line in reversed(lines[-3:]):
        if line.startswith(prefix):
            text = line[len(prefix) :].strip()
            for sig in signal.Signals:
                if signal.strsignal(sig) == text:
                    return int(sig)
    return 0


def hardware_events_work(perf: str | None = None) -> tuple[bool, str]:
    """Whether perf counts hardware events here; ``(False, reason)`` otherwise.

    Used by tests and commands to skip or explain, e.g. on VMs without a PMU.
    """
    try:
        res = run_perf_stat(["instructions"], ["true"], PerfStatOptions(perf=perf, timeout=30))
    except HemkitError as exc:
        return False, str(exc)
    row = res.counts[res.counts["event"] == "instructions"]
    if row.empty or row["status"].iloc[0] != "ok" or not row["value"].iloc[0] > 0:
        status = row["status"].iloc[0] if not row.empty else "no output"
        return False, f"perf cannot count hardware events here (instructions: {status}; no PMU driver?)"
    return True, "ok"


def perf_version(perf: str | None = None) -> str:
    """``perf --version`` output, or ``"unknown"``."""
    try:
        return run([find_perf(perf), "--version"], timeout=10).stdout.strip() or "unknown"
    except HemkitError:
        return "unknown"


def perf_script_text(path: str | os.PathLike[str], *, perf: str | None = None) -> str:
    """Decode a ``perf.data`` file with ``perf script -F comm,tid,time,event,ip,sym,period``."""
    exe = find_perf(perf)
    proc = run([exe, "script", "-i", os.fspath(path), "-F", FIELDS], what="perf script")
    if proc.returncode != 0 or not proc.stdout.strip():
        err = proc.stderr.strip().splitlines()
        raise InputError(f"{path}: perf script failed: {err[-1] if err else f'exit code {proc.returncode}'}")
    return proc.stdout


def run_perf_script(
    path: str | os.PathLike[str],
    *,
    fields: str = FIELDS,
    perf: str | None = None,
    timeout: float | None = 600,
) -> Completed:
    """Run ``perf script -i PATH -F FIELDS`` and return what happened, without judging it.

    The caller decides what a non-zero exit or a message on stderr means;
    :func:`perf_script_text` is the strict variant, :func:`perf_script_to_file` the one
    for large files (:func:`hemkit.sampling.read_samples`).

    Examples
    --------
    >>> out = run_perf_script("perf.data")  # doctest: +SKIP
    >>> out.returncode, out.stdout.splitlines()[0]  # doctest: +SKIP
    (0, '  spin  4574   334.871279:     100000 cpu-clock:  4011a6 f1 (/tmp/spin)')
    """
    exe = find_perf(perf)
    return run([exe, "script", "-i", os.fspath(path), "-F", fields], timeout=timeout, what="perf script")


def perf_script_records(
    path: str | os.PathLike[str],
    dlfilter: str | os.PathLike[str],
    records: str | os.PathLike[str],
    names: str | os.PathLike[str],
    *,
    perf: str | None = None,
    timeout: float | None = 600,
) -> Completed:
    """Run ``perf script -i PATH --dlfilter DLFILTER --dlarg RECORDS --dlarg NAMES`` (perf 5.14+).

    The filter (``hemkit/sampling/c/samples_dlfilter.c``, compiled) writes the samples as
    binary records to ``records`` and their names to ``names``, and perf prints nothing:
    read them with :func:`hemkit.io.perf_script.read_dlfilter_output`.  What happened is
    returned without judging it (an older perf refuses ``--dlfilter``).

    Examples
    --------
    >>> done = perf_script_records("perf.data", "samples_dlfilter.so", "rec.bin", "names.bin")  # doctest: +SKIP
    """
    exe = find_perf(perf)
    args = [exe, "script", "-i", os.fspath(path), "--dlfilter", os.fspath(dlfilter)]
    args += ["--dlarg", os.fspath(records), "--dlarg", os.fspath(names)]
    return run(args, timeout=timeout, what="perf script")


def perf_script_to_file(
    path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    fields: str = FIELDS,
    perf: str | None = None,
    timeout: float | None = 600,
) -> AbstractContextManager[Writing]:
    """Run ``perf script -G -i PATH -F FIELDS`` with its output written to ``output`` (see :func:`writing`).

    ``-G`` prints each sample on one line, without its call chain (of a ``perf record -g``
    file): the leaf, where the sample hit, is the sample's IP.  The caller reads
    ``output`` while perf writes it and judges ``completed`` (exit status, stderr) after.

    Examples
    --------
    >>> with perf_script_to_file("perf.data", "script.txt") as job:  # doctest: +SKIP
    ...     while job.running():
    ...         time.sleep(0.1)
    >>> job.completed.returncode  # doctest: +SKIP
    0
    """
    exe = find_perf(perf)
    args = [exe, "script", "-G", "-i", os.fspath(path), "-F", fields]
    return writing(args, output, timeout=timeout, what="perf script")


def perf_record(
    command: Sequence[str],
    output: str | os.PathLike[str],
    *,
    event: str = "cpu-clock",
    period: int | None = None,
    freq: int | None = None,
    timeout: float | None = None,
) -> Completed:
    """Sample ``command`` with ``perf record -q -e EVENT (-c PERIOD | -F FREQ) -o OUTPUT``.

    Parameters
    ----------
    command : sequence of str
        The program and its arguments; it gets the user's environment unchanged.
    output : path
        The ``perf.data`` file to write.
    event : str
        The sampling event (``cycles`` with a PMU, ``cpu-clock`` without one).
    period, freq : int, optional
        At most one: a sample every ``period`` events (``-c``; nanoseconds for
        ``cpu-clock``) or ``freq`` samples per second (``-F``); neither: perf's default.
    timeout : float, optional
        Seconds before perf and the program are stopped (then a :class:`MeasurementError`).

    Returns
    -------
    Completed
        perf's exit status and the program's own output (``stdout``).

    Raises
    ------
    InputError
        An event perf does not know, or both ``period`` and ``freq``.
    SetupError
        perf missing, or not allowed to sample here.
    MeasurementError
        The program exited non-zero or was killed, or perf wrote no data.

    Examples
    --------
    >>> done = perf_record(["./prog"], "perf.data", event="cpu-clock", period=250_000)  # doctest: +SKIP
    """
    if not command:
        raise InputError("no command to record")
    if period is not None and freq is not None:
        raise InputError("give at most one of period (-c) and freq (-F)")
    for name, value in (("period", period), ("freq", freq)):
        if value is not None and value < 1:
            raise InputError(f"{name} must be at least 1, got {value}")
    exe = find_perf()
    rate = ["-c", str(int(period))] if period is not None else ["-F", str(int(freq))] if freq is not None else []
    program = resolve_program(os.fspath(command[0]))
    args = ["perf", "record", "-q", "-e", event, *rate, "-o", os.fspath(output), "--", program, *command[1:]]
    name = os.path.basename(os.fspath(command[0]))
    try:  # started as 'perf', not by its path: see run_perf_stat (the program's PATH)
        proc = run(
            Program(tuple(map(os.fspath, args)), executable=exe, die_with_parent=True),
            timeout=timeout,
            what="perf record",
        )
    except MeasurementError:
        raise MeasurementError(f"perf record of {name} still running after {timeout:g} s; stopped") from None
    err = proc.stderr or ""
    m = re.search(r"event syntax error: '([^']*)'", err)
    if m:  # perf shows a cut piece of the event: name it in full, with the closest names
        check_perf_events([event], perf=exe)
        raise InputError(f"perf does not know the event {m.group(1)!r} (see 'perf list')")
    if "perf_event_paranoid" in err or "No permission" in err or "Permission denied" in err:
        raise SetupError(f"perf may not sample {event} here (see /proc/sys/kernel/perf_event_paranoid)")
    if proc.returncode != 0:
        tail = err.strip().splitlines()[-1] if err.strip() else ""
        raise MeasurementError(
            f"{name} under perf record: {describe_status(proc.returncode)}{': ' + tail if tail else ''}"
        )
    if not os.path.exists(output) or os.path.getsize(output) == 0:
        raise MeasurementError(f"perf record of {name} wrote no data ({os.fspath(output)})")
    return proc
