"""Run a plan with ``perf stat``: round-robin over groups, validated, resumable.

Order (issue 3): repetition 0 of every group, then repetition 1 of every group, ... so
that slow drift of the machine (thermal, other tenants) hits all groups alike.  Every
finished run is committed at once to the collection database
(:mod:`hemkit.collect.store`); a collection that was killed (even with SIGKILL) is
continued by calling :func:`collect` again with the same database: the (group,
repetition) pairs that already have a valid run are skipped.  Invalid runs
(:func:`hemkit.collect.validate.check_reading`) are stored with their reason and re-run
at once, up to ``max_attempts`` times in a row.  Ctrl-C (SIGINT) stops after the current
run: perf runs in its own session so the signal does not cut it short.
"""

from __future__ import annotations

import os
import platform
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from hemkit import __version__
from hemkit.collect.store import CollectionDB
from hemkit.collect.validate import check_reading
from hemkit.errors import HemkitError
from hemkit.perf import find_perf, run_perf_stat
from hemkit.plan import Plan


def machine_info() -> dict:
    """uname, CPU model and core count of this machine."""
    u = platform.uname()
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "uname": " ".join([u.system, u.node, u.release, u.version, u.machine]),
        "cpu_model": model,
        "cpus": os.cpu_count(),
    }


def perf_version(perf: str | None = None) -> str:
    """``perf --version`` output, or "unknown"."""
    try:
        out = subprocess.run([find_perf(perf), "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired, HemkitError):
        return "unknown"


def perf_events(group: Sequence[str], perf_groups: Sequence[Sequence[str]]) -> list[str]:
    """The ``-e`` list for a group: must-share sets of the plan wrapped in ``{...}``.

    Examples
    --------
    >>> perf_events(["cycles", "a", "b", "c"], [["a", "b"]])
    ['cycles', '{a,b}', 'c']
    """
    out, used = [], set()
    for e in group:
        if e in used:
            continue
        pg = next((s for s in perf_groups if e in s and all(x in group for x in s)), None)
        if pg is not None and len(pg) > 1:
            out.append("{" + ",".join(pg) + "}")
            used.update(pg)
        else:
            out.append(e)
            used.add(e)
    return out


@dataclass(frozen=True)
class CollectResult:
    """What one :func:`collect` call did."""

    db: Path
    added_valid: int
    added_invalid: int
    interrupted: bool
    status: pd.DataFrame
    invalid_reasons: pd.Series

    @property
    def complete(self) -> bool:
        return bool((self.status["valid"] >= self.status["target"]).all())

    def summary(self) -> str:
        s = self.status
        lines = [
            f"{self.db}: {int(s['valid'].sum())} of {int(s['target'].sum())} runs valid "
            f"({self.added_valid} added now, {self.added_invalid} invalid and re-run)"
        ]
        if self.added_invalid:
            lines += [f"  {n} x {reason}" for reason, n in self.invalid_reasons.items()]
        if self.interrupted:
            lines.append("interrupted: run the same command again to continue")
        elif self.complete:
            lines.append("complete")
        return "\n".join(lines)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: the co-runner gets SIGTERM when the collector dies (even by SIGKILL)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def _start_corunner(corunner: str | Sequence[str], pin: int | None) -> subprocess.Popen:
    args = corunner.split() if isinstance(corunner, str) else list(corunner)
    if not args:
        raise HemkitError("--corunner is empty")
    if pin is not None and (os.cpu_count() or 1) > 1 and shutil.which("taskset"):
        args = ["taskset", "-c", str((pin + 1) % (os.cpu_count() or 1)), *args]
    try:
        return subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
    except OSError as exc:
        raise HemkitError(f"cannot start co-runner {args[0]!r}: {exc.strerror}") from None


def collect(
    plan: Plan,
    command: Sequence[str],
    db_path: str | Path,
    *,
    runs: int = 50,
    pin: int | None = None,
    corunner: str | Sequence[str] | None = None,
    fmt: str = "csv",
    max_attempts: int = 5,
    timeout: float | None = None,
    perf: str | None = None,
    progress: bool = True,
) -> CollectResult:
    """Collect ``runs`` valid runs of every group of ``plan`` on ``command`` into ``db_path``.

    Parameters
    ----------
    plan : Plan
    command : sequence of str
        The measured program and its arguments.
    db_path : str or Path
        The collection database; an existing one is continued (same plan and command).
    runs : int
        Valid runs wanted per group; a larger value than before extends a collection.
    pin : int, optional
        CPU to run the command on (``taskset``); the co-runner goes to the next CPU.
    corunner : str or sequence of str, optional
        A program run in the background during the whole collection (interference).
    fmt : {"csv", "json"}
        perf's output format.
    max_attempts : int
        Invalid runs in a row of one (group, repetition) before the collection stops.
    timeout : float, optional
        Seconds per run before it is killed.
    perf : str, optional
        perf binary (default ``$HEMKIT_PERF`` or ``perf``).
    progress : bool
        Show a rich progress bar with ETA.

    Returns
    -------
    CollectResult

    Examples
    --------
    >>> from hemkit.plan import make_plan
    >>> from hemkit.collect import collect, ubench_command
    >>> plan = make_plan(["task-clock", "page-faults", "context-switches"], 2)
    >>> res = collect(plan, ubench_command("iadd", "L2", 200000, jitter=0.5), "c.db", runs=5)  # doctest: +SKIP
    """
    if runs < 1:
        raise HemkitError(f"--runs must be at least 1, got {runs}")
    if max_attempts < 1:
        raise HemkitError("max_attempts must be at least 1")
    if fmt not in ("csv", "json"):
        raise HemkitError(f"unknown perf output format {fmt!r}; use csv or json")
    command = [str(c) for c in command]
    if not command:
        raise HemkitError("no command to measure (give it after --)")
    exe = find_perf(perf)
    db = CollectionDB(db_path, create=True)
    stored = db.meta()
    if stored:
        if db.groups() != [list(g) for g in plan.groups]:
            raise HemkitError(f"{db_path}: was collected with a different plan; use another database file")
        if stored.get("command") != command:
            raise HemkitError(
                f"{db_path}: was collected with command {' '.join(stored.get('command', []))!r}; "
                "use another database file for a different command"
            )
    db.init(
        plan.groups,
        {
            "plan": plan.to_dict(),
            "command": command,
            "pin": pin,
            "corunner": corunner if corunner is None or isinstance(corunner, str) else list(corunner),
            "format": fmt,
            "perf": exe,
            "perf_version": perf_version(exe),
            "machine": machine_info(),
            "hemkit_version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
    db.set_meta("runs", max(runs, int(stored.get("runs", 0))) if stored else runs)
    target = int(db.meta()["runs"])
    done = db.done()
    todo = [(gid, rep) for rep in range(target) for gid in range(len(plan.groups)) if (gid, rep) not in done]

    stop = threading.Event()
    old_handler = None
    if threading.current_thread() is threading.main_thread():
        old_handler = signal.signal(signal.SIGINT, lambda *_: stop.set())
    proc = _start_corunner(corunner, pin) if corunner else None
    added_valid = added_invalid = 0
    reasons: list[str] = []
    try:
        with Progress(
            TextColumn("[bold]collect"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("runs  ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.description}"),
            disable=not progress,
            transient=False,
        ) as bar:
            task = bar.add_task("", total=len(todo))
            for gid, rep in todo:
                if stop.is_set():
                    break
                events = plan.groups[gid]
                for attempt in range(max_attempts):
                    t0 = time.time()
                    res = run_perf_stat(
                        perf_events(events, plan.perf_groups),
                        command,
                        cpu=pin,
                        fmt=fmt,
                        perf=exe,
                        timeout=timeout,
                        start_new_session=True,
                    )
                    reason = check_reading(res.counts, events, group=gid, returncode=res.returncode)
                    db.record_run(
                        gid,
                        rep,
                        "invalid" if reason else "valid",
                        reason,
                        res.counts,
                        started=t0,
                        seconds=res.seconds,
                        returncode=res.returncode,
                    )
                    if not reason:
                        added_valid += 1
                        break
                    added_invalid += 1
                    reasons.append(reason)
                    bar.update(task, description=f"[yellow]{added_invalid} invalid, re-run")
                    if stop.is_set():
                        break
                else:
                    raise HemkitError(
                        f"group {gid} ({', '.join(events)}): {max_attempts} invalid runs in a row, "
                        f"last: {reason}; reduce the group (see 'hemkit probe') or check the command"
                    )
                bar.advance(task)
    finally:
        if old_handler is not None:
            signal.signal(signal.SIGINT, old_handler)
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                proc.kill()
    return CollectResult(
        Path(db_path),
        added_valid,
        added_invalid,
        stop.is_set(),
        db.status(),
        pd.Series(reasons, dtype=object).value_counts(),
    )


def status(db_path: str | Path) -> pd.DataFrame:
    """Per group: valid and invalid runs so far, the target and the last invalid reason."""
    return CollectionDB(db_path).status()
