"""Linux ``perf``: ``perf stat`` on a command, ``perf script`` on a ``perf.data`` file.

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
from dataclasses import dataclass

import pandas as pd

from hemkit.core.errors import HemkitError, InputError, MeasurementError, SetupError
from hemkit.external.process import Program, resolve_program, run
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
    name = perf or os.environ.get("HEMKIT_PERF", "perf")
    path = shutil.which(name)
    if path is None:
        raise SetupError(f"perf not found ({name!r}); install linux-perf (Debian: apt-get install linux-perf)")
    return path


def run_perf_stat(
    events: Sequence[str],
    command: Sequence[str],
    *,
    interval_ms: int | None = None,
    cpu: int | None = None,
    fmt: str = "csv",
    perf: str | None = None,
    timeout: float | None = None,
    extra_args: Sequence[str] = (),
    start_new_session: bool = False,
) -> PerfStatResult:
    """Run ``perf stat -e EVENTS [-I MS] -- COMMAND`` and parse what it counted.

    Parameters
    ----------
    events : sequence of str
        perf event names or raw codes (``cycles``, ``r00c0``, ``syscalls:sys_enter_read``).
        Put events that must share a counter group inside ``{a,b}`` yourself.
    command : sequence of str
        The program and its arguments.
    interval_ms : int, optional
        Print counts every ``interval_ms`` milliseconds (``-I``).
    cpu : int, optional
        Pin the command to this CPU (``taskset -c``).
    fmt : {"csv", "json"}
    perf : str, optional
        perf binary; default ``$HEMKIT_PERF`` or ``perf`` on PATH.
    timeout : float, optional
        Seconds before the run is killed (then a :class:`HemkitError`).
    start_new_session : bool
        Run perf in its own session so that a Ctrl-C at the terminal does not reach it
        (the collector then finishes the current run before it stops).

    Returns
    -------
    PerfStatResult
        ``returncode`` is the measured program's exit code, or minus the signal number
        when it was killed (perf itself exits 0 then and only says so on stderr); see
        :func:`hemkit.external.process.describe_status`.

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
    if not events:
        raise InputError("no events to count")
    if not command:
        raise InputError("no command to run")
    exe = find_perf(perf)
    program = resolve_program(os.fspath(command[0]))
    command = [program, *map(os.fspath, command[1:])]
    with tempfile.TemporaryDirectory(prefix="hemkit-perf-") as tmp:
        out = os.path.join(tmp, "stat.out")
        args = ["perf", "stat", "-o", out, "-x,"] if fmt == "csv" else ["perf", "stat", "-o", out, "-j"]
        args += ["-e", ",".join(events)]
        if interval_ms is not None:
            args += ["-I", str(int(interval_ms))]
        args += list(extra_args)
        args += ["--"]
        workload = program  # the name perf uses when it reports that the workload was killed
        if cpu is not None:
            taskset = shutil.which("taskset")
            if taskset is None:
                raise SetupError("pinning to a CPU needs taskset (util-linux)")
            args += [taskset, "-c", str(cpu)]
            workload = taskset
        args += list(command)
        t0 = time.perf_counter()
        try:
            proc = run(
                Program(tuple(args), executable=exe, die_with_parent=True),
                capture=False,
                timeout=timeout,
                start_new_session=start_new_session,
                what="perf stat",
            )
        except MeasurementError as exc:
            raise MeasurementError(f"perf stat timed out after {timeout:g} s running {' '.join(command)}") from exc
        seconds = time.perf_counter() - t0
        text = open(out).read() if os.path.exists(out) else ""
    err = proc.stderr or ""
    m = re.search(r"event syntax error: '([^']*)'", err)
    if m:
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
        res = run_perf_stat(["instructions"], ["true"], perf=perf, timeout=30)
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
