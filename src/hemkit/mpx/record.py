"""Recording OCOE interval traces with ``perf stat -I`` (``hemkit mpx trace``).

Each run of the measured program is one ``perf stat -I MS -x, -e EVENTS -o FILE -- PROGRAM``
(run ``k`` listing ``EVENTS`` from the ``k``-th on, :func:`run_order`, unless ``same_order``)
and its file is exactly what perf wrote (the format of ``shared/data/zen5/traces/*.csv``):
a ``# started on`` line, a blank line, then ``time,value,unit,event,run_time_ns,percent,
metric,metric_unit`` lines.  Files are named ``<workload>_r<k>.csv`` (``<workload>_s<i>_r<k>.csv``
with several event sets), numbered after the runs already in the folder, and each is
written atomically as soon as its run ends, so an interrupted recording keeps every
finished run.

**Ctrl-C** (or SIGTERM), as in ``hemkit collect`` (:mod:`hemkit.core.stops`): the first stops
after the run in progress (perf and the program run in their own session, so the signal does
not cut the run short), a second stops at once, dropping the run in progress.  Either way the
files of the finished runs stay, no file is half written, and :class:`TracesInterrupted` (a
:class:`KeyboardInterrupt`) carries them and the runs of each set not recorded; a folder this
call made is removed when no run finished.

**The program sees the user's environment.**  perf itself changes the environment of the
program it starts: it prepends its own folders to ``PATH`` (``/usr/lib/perf-core`` and,
when perf is started by its full path as hemkit does, ``/usr/bin``) and adds
``PERF_BUILDID_DIR`` and ``PREFIX``.  So ``python3`` ran ``/usr/bin/python3`` instead of the
user's virtual environment.  The program is therefore started through ``env`` with the
user's own ``PATH``, ``PREFIX`` and ``PERF_BUILDID_DIR`` put back (``env -u VAR`` where the
user had none), which also holds for every program it starts in turn.

**A failing program is a failed measurement**: a non-zero exit, or death by a signal (perf
exits 0 then, printing ``PROGRAM: Killed``), is a :class:`MeasurementError` naming the
program and its status, unless ``allow_failure`` is set.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import Fix, HemkitError, InputError, MeasurementError, SetupError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.core.stops import StopRequests
from hemkit.external.perf import check_perf_events, find_perf
from hemkit.external.process import Program, describe_status, run
from hemkit.io.atomic import check_output_dir
from hemkit.io.traces import parse_trace, write_perf_text

PERF_ENV = ("PATH", "PREFIX", "PERF_BUILDID_DIR")
"""Variables perf changes in the environment of the program it starts."""
RUN_COLUMNS = ["file", "workload", "set", "events", "intervals", "seconds", "status"]
"""The columns of :attr:`TraceRecording.runs`."""


@dataclass(frozen=True)
class TraceOptions:
    """How to record: ``perf stat -I interval_ms``, ``runs`` runs per event set.

    Attributes
    ----------
    interval_ms : int
        perf's ``-I`` interval, milliseconds (perf's minimum is 1).
    runs : int
        Runs of the program per event set.
    timeout : float or None
        Seconds before a run is stopped (a :class:`MeasurementError`).
    allow_failure : bool
        Keep the trace of a program that exits non-zero or is killed (else an error).
    same_order : bool
        List the events in the order given in every run.  By default run ``k`` of a set (``_r<k>``)
        lists them from event ``(k - 1) mod n``: when they are more than the counters, perf puts
        the first listed on the counters and rotates the list from there, so runs listed alike hide
        the same parts of the program from the same events, and pooling their totals averages
        less of that error out (13-15 % closer listed from a different event each, BENCHMARKS.md).
        Counted without multiplexing, the order changes nothing.

    Examples
    --------
    >>> opts = TraceOptions(interval_ms=20, runs=3)
    >>> [run_order(["cycles", "instructions", "branches"], k)[0] for k in range(1, opts.runs + 1)]
    ['cycles', 'instructions', 'branches']
    >>> TraceOptions(interval_ms=0)
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: interval_ms (milliseconds) must be an integer of at least 1, got 0

    Recording needs perf, so this line is not run here:

    >>> rec = record_traces(["sleep", "0.1"], [["task-clock", "page-faults"]], "traces", options=opts)  # doctest: +SKIP
    """

    interval_ms: int = 10
    runs: int = 1
    timeout: float | None = None
    allow_failure: bool = False
    same_order: bool = False

    def __post_init__(self) -> None:
        check_scalar(self.interval_ms, "interval_ms", min_val=1, what="milliseconds")
        check_scalar(self.runs, "runs", min_val=1)
        if self.timeout is not None and not self.timeout > 0:
            raise InputError(f"timeout must be positive, got {self.timeout!r}", param="timeout")


@result
class TraceRecording(Result):
    """What ``record_traces`` recorded.

    Attributes
    ----------
    files : tuple of Path
        The trace files written, one per run.
    runs : DataFrame
        One row per run: ``file, workload, set, events, intervals, seconds, status``.
    missing : Mapping[int, int]
        Interrupted: event set (1, 2, ...) -> its runs not recorded (empty when every run was).

    Examples
    --------
    Recording needs perf, so these lines are not run here.  Two runs of ``sleep 0.1`` with
    two software events, every 20 ms:

    >>> from hemkit.io.traces import read_trace
    >>> rec = record_traces(["sleep", "0.1"], [["task-clock", "page-faults"]], "traces",
    ...                     options=TraceOptions(interval_ms=20, runs=2))  # doctest: +SKIP
    >>> [f.name for f in rec.files]  # doctest: +SKIP
    ['sleep_r1.csv', 'sleep_r2.csv']
    >>> rec.runs[["events", "intervals", "status"]].values.tolist()  # doctest: +SKIP
    [['task-clock,page-faults', 6, 'ok'], ['page-faults,task-clock', 6, 'ok']]
    >>> read_trace(rec.files)["run"].unique().tolist()  # doctest: +SKIP
    ['sleep_r1', 'sleep_r2']
    """

    files: tuple[Path, ...]
    runs: pd.DataFrame
    missing: Mapping[int, int] = field(default_factory=dict)

    def summary(self) -> pd.DataFrame:
        """One row per run."""
        return self.runs.set_index("file")

    @property
    def wanted(self) -> int:
        """Runs asked for: those recorded and those missing."""
        return len(self.files) + sum(self.missing.values())


def recorded_before(exc: BaseException) -> TraceRecording | None:
    """The runs :func:`record_traces` wrote before the error ``exc`` stopped it (None when it wrote none).

    Their files stay; ``missing`` maps each event set to the runs not recorded (the failed one
    among them).

    Examples
    --------
    >>> recorded_before(ValueError("x")) is None
    True
    """
    return getattr(exc, "_recorded", None)


class TracesInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped :func:`record_traces`; ``recording`` holds the runs written.

    ``recording.missing`` maps each event set (1, 2, ...) to its runs not recorded.

    Examples
    --------
    >>> issubclass(TracesInterrupted, KeyboardInterrupt)
    True
    """

    def __init__(self, recording: TraceRecording, signum: int):
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.recording = recording
        self.signum = signum


def user_command(command: Sequence[str], status_file: str | os.PathLike[str]) -> list[str]:
    """``command`` wrapped to run with the user's environment under perf and leave its exit status.

    perf 6.1 in interval mode (``-I``) exits 0 whatever the program did and prints nothing
    when it is killed, so a small ``sh`` runs the program, puts back the variables perf
    changed (:data:`PERF_ENV`) and writes the program's exit status (``$?``: 128 + N when a
    signal N killed it) to ``status_file``.  The shell costs a few hundred microseconds and
    page faults in the first interval.

    Examples
    --------
    >>> cmd = user_command(["python3", "-c", "pass"], "/tmp/status")
    >>> cmd[-3:]
    ['python3', '-c', 'pass']
    """
    if not command:
        raise InputError("no program to run")
    prog = command[0]
    if os.sep not in prog and shutil.which(prog) is None:
        raise InputError(f"program {prog!r} not found on PATH")
    if os.sep in prog and not os.path.exists(prog):
        raise InputError(f"program {prog!r}: no such file")
    sh = shutil.which("sh") or "/bin/sh"
    script, values = 'f="$1"; shift; ', []
    for var in PERF_ENV:
        if var in os.environ:
            script += f'export {var}="$1"; shift; '
            values.append(os.environ[var])
        else:
            script += f"unset {var}; "
    script += '"$@"; echo "$?" > "$f"'
    return [sh, "-c", script, "hemkit-trace", os.fspath(status_file), *values, *command]


def _status(status_file: str) -> int | None:
    try:
        with open(status_file) as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None


def describe_exit(code: int | None) -> str:
    """A shell's ``$?`` as a user reads it: ``exit code 3``, ``killed by signal SIGKILL``.

    Examples
    --------
    >>> describe_exit(0), describe_exit(1), describe_exit(137)
    ('ok', 'exit code 1', 'killed by signal SIGKILL')
    """
    if code is None:
        return "killed (no exit status)"
    if code == 0:
        return "ok"
    if 128 < code < 128 + 65:
        return describe_status(-(code - 128))
    return describe_status(code)


def _next_index(folder: Path, stem: str) -> int:
    taken = [
        int(m.group(1))
        for p in folder.glob(f"{stem}_r*.csv")
        if (m := re.fullmatch(rf"{re.escape(stem)}_r(\d+)\.csv", p.name))
    ]
    return max(taken, default=0) + 1


def record_traces(
    command: Sequence[str],
    event_sets: Sequence[Sequence[str]],
    output: str | os.PathLike[str],
    *,
    workload: str | None = None,
    options: TraceOptions = TraceOptions(),
    progress: ProgressLike = None,
) -> TraceRecording:
    """Record OCOE interval traces of ``command``: every event set x ``options.runs`` runs.

    Parameters
    ----------
    command : sequence of str
        The program and its arguments.
    event_sets : sequence of event lists
        Events read together in one run (OCOE: an event set fits the counters, at most 5
        hardware events on the Zen 5 machines; software events and tracepoints need none).
        A set of more hardware events than counters is multiplexed by perf, and its files are
        input for ``hemkit mpx estimate``; that is where listing each run from a different
        event (the default) pays.
    output : path
        Folder the trace files go to (created when its parent exists).
    workload : str, optional
        Workload name (file names start with it); default the program's name.
    options : TraceOptions
        Interval, runs, time limit, whether a failing program is kept.
    progress : ProgressLike
        Progress display (one step per run).

    Returns
    -------
    TraceRecording

    Raises
    ------
    InputError
        No events, an unknown event, a program that cannot be found.
    MeasurementError
        The program exited non-zero or was killed (without ``allow_failure``), perf failed,
        or a run overran the time limit.
    TracesInterrupted
        Ctrl-C or SIGTERM: the first stops after the run in progress, a second at once;
        ``.recording`` holds the files written and the runs missing.

    A run that fails after others were recorded leaves their files in ``output``;
    :func:`recorded_before` of the error gives them and the runs missing.

    Examples
    --------
    >>> import tempfile
    >>> rec = record_traces(["true"], [["task-clock"]], tempfile.mkdtemp())  # doctest: +SKIP
    """
    sets = [[e.strip() for e in s if e.strip()] for s in event_sets]
    if not sets or any(not s for s in sets):
        raise InputError("every event set needs at least one event")
    for s in sets:
        dup = {e for e in s if s.count(e) > 1}
        if dup:
            raise InputError(f"event {sorted(dup)[0]!r} appears twice in one event set")
    folder = check_output_dir(output, what="trace folder")
    if not command:
        raise InputError("no program to run")
    name = workload or Path(command[0]).name
    if not name or "/" in name or name.startswith("."):
        raise InputError(f"workload name {name!r} cannot name a file")
    user_command(command, "-")  # the program exists, before anything is recorded
    perf = find_perf()
    # every event perf refuses, named in full with the closest names, before a folder or a run (perf itself
    # shows a cut piece of the -e list: 'page-fault' came out as '..-clock,page-fault')
    check_perf_events([e for s in sets for e in s], perf=perf)
    created = not folder.exists()
    folder.mkdir(exist_ok=True)
    files: list[Path] = []
    rows: list[dict[str, object]] = []
    done = [0] * len(sets)
    stops = StopRequests()
    try:
        with stops:
            try:
                with as_progress(progress).task(
                    f"recording {Path(command[0]).name}", total=len(sets) * options.runs
                ) as task:
                    for si, events in enumerate(sets):
                        stem = name if len(sets) == 1 else f"{name}_s{si + 1}"
                        first = _next_index(folder, stem)
                        for k in range(first, first + options.runs):
                            if stops.requested:
                                break
                            target = folder / f"{stem}_r{k}.csv"
                            listed = events if options.same_order else run_order(events, k)
                            text, status, seconds = _one_run(perf, listed, list(command), options)
                            trace = parse_trace(text, run=target.stem, source=str(target))
                            n = int(trace["step"].max()) + 1
                            with stops.storing():  # a second Ctrl-C waits for the file and its row
                                write_perf_text(text, target)
                                files.append(target)
                                done[si] += 1
                                rows.append(
                                    {
                                        "file": str(target),
                                        "workload": name,
                                        "set": si + 1,
                                        "events": ",".join(listed),
                                        "intervals": n,
                                        "seconds": round(seconds, 3),
                                        "status": status,
                                    }
                                )
                            task.advance(info=f"{target.name}: {n} intervals, {seconds:.1f} s")
            except KeyboardInterrupt:  # the second signal (or one from elsewhere): at once, the run in progress dropped
                stops.count = max(stops.count, 1)
            except HemkitError as exc:  # a run failed: the files of the runs before it stay, and the error says so
                if files:
                    exc._recorded = _recording(files, rows, done, options.runs, True)  # type: ignore[attr-defined]
                raise
            stops.wind_up()  # another Ctrl-C now would lose what was kept
            rec = _recording(files, rows, done, options.runs, stops.requested)
    except BaseException:
        if created and not files:  # nothing recorded: leave no empty folder behind
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    if stops.requested:
        if created and not files:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise TracesInterrupted(rec, stops.signum)
    return rec


def _recording(
    files: list[Path], rows: list[dict[str, object]], done: list[int], runs: int, interrupted: bool
) -> TraceRecording:
    """What was recorded; interrupted, with each set's runs missing."""
    missing = {si + 1: runs - n for si, n in enumerate(done) if n < runs} if interrupted else {}
    return TraceRecording(tuple(files), pd.DataFrame(rows, columns=RUN_COLUMNS), missing)


def run_order(events: Sequence[str], k: int) -> list[str]:
    """The events as run ``k`` (1, 2, ...) lists them: from event ``(k - 1) mod n`` on, wrapping round.

    Examples
    --------
    >>> [",".join(run_order(["a", "b", "c"], k)) for k in (1, 2, 3, 4)]
    ['a,b,c', 'b,c,a', 'c,a,b', 'a,b,c']
    """
    i = (k - 1) % len(events)
    return [*events[i:], *events[:i]]


def _one_run(perf: str, events: list[str], command: list[str], options: TraceOptions) -> tuple[str, str, float]:
    prog = command[0]
    with tempfile.TemporaryDirectory(prefix="hemkit-trace-") as tmp:
        out, status_file = os.path.join(tmp, "stat.csv"), os.path.join(tmp, "status")
        args = [perf, "stat", "-I", str(options.interval_ms), "-x,", "-o", out, "-e", ",".join(events), "--"]
        t0 = time.perf_counter()
        try:
            proc = run(  # own session: a time limit or Ctrl-C stops perf, the program and all it started
                Program((*args, *user_command(command, status_file)), die_with_parent=True),
                capture=False,
                timeout=options.timeout,
                start_new_session=True,
                what=f"perf stat of {prog}",
            )
        except MeasurementError as exc:  # past the time limit: the limit is what to change
            raise MeasurementError(f"{exc.message}; give a larger timeout", param="timeout") from None
        seconds = time.perf_counter() - t0
        text = open(out, encoding="utf-8", errors="replace").read() if os.path.exists(out) else ""
        code = _status(status_file)
    err = proc.stderr or ""
    m = re.search(r"event syntax error: '([^']*)'", err)
    if m:
        raise InputError(f"perf does not know the event {m.group(1)!r} (see 'perf list')")
    if "<not supported>" in text:
        bad = next(line.split(",")[3] for line in text.splitlines() if "<not supported>" in line)
        raise SetupError(f"perf cannot count {bad!r} here (<not supported>: no PMU, or not this CPU's event)")
    has_lines = any(line.strip() and not line.startswith("#") for line in text.splitlines())
    if code is None and not has_lines:  # the program never ran, or perf failed before it
        tail = (err.strip().splitlines() or [f"perf {describe_status(proc.returncode)}"])[-1]
        raise MeasurementError(f"perf stat recorded nothing for {prog!r}: {tail}")
    status = describe_exit(code)
    if status != "ok" and not options.allow_failure:
        raise MeasurementError(
            f"the measured program {prog!r} failed: {status}; fix it, or keep such runs", fix=Fix("allow_failure", True)
        )
    if not has_lines:
        raise MeasurementError(
            f"perf stat printed no interval for {prog!r}: it ended before the first {options.interval_ms} ms "
            f"interval (perf and the program took {seconds:.3f} s in all); use a shorter interval_ms or a longer run",
            param="interval_ms",
        )
    return text, status, seconds


__all__ = [
    "TraceOptions",
    "TraceRecording",
    "TracesInterrupted",
    "describe_exit",
    "record_traces",
    "recorded_before",
    "run_order",
    "user_command",
]
