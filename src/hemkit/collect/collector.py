"""Run a plan with ``perf stat``: round-robin over groups, validated, resumable, interruptible.

Order (issue 3): repetition 0 of every group, then repetition 1 of every group, ... so
that slow drift of the machine (thermal, other tenants) hits all groups alike.  Every
finished run is committed at once to the collection database
(:mod:`hemkit.io.collection`); a collection that was killed (even with SIGKILL) is
continued by calling :func:`collect` again with the same database: the (group,
repetition) pairs that already have a valid run are skipped.  Invalid runs
(:func:`hemkit.collect.validate.check_reading`) are stored with their reason and re-run
at once, up to ``max_attempts`` times in a row.

Resuming (the policy lives here, not in the command line): a collection's plan, command,
folder, pin, co-runner and perf output format are fixed when it is created.  Continuing it,
``plan=None`` and ``command=None`` mean the stored ones, an option left at ``None`` means
the stored value, and a different plan, command, pin, co-runner or format is refused (use
another database: CSV and JSON readings are not stored alike, perf truncating a CSV's
running percentage).  The folder is the working directory the command runs in (here, or
on a cluster's workers): ``sort data.txt`` continued from another folder would quietly
measure another file, so continuing from another folder (compared as resolved paths: a
symlink to the same folder is the same folder) is refused unless ``allow_other_folder``.
Databases made before the folder was stored are continued as before, with a warning that
the folder cannot be checked.  The target number of runs only grows; ``max_attempts``,
``timeout``, ``perf``, ``allow_failure`` and ``allow_other_folder`` apply to the call that
gives them.

Signals: the first Ctrl-C (SIGINT) or SIGTERM stops the collection after the current run
(perf runs in its own session, so the signal does not cut the run short); a second one
stops at once, killing the current run, which is not stored.  On a cluster
(``CollectOptions(cluster=...)``, :mod:`hemkit.collect.cluster`) the first one cancels the
runs in flight on the workers, none of which is stored.  Either way the co-runner is
stopped, temporary files are removed, the runs stored so far stay, and
:class:`CollectionInterrupted` (a :class:`KeyboardInterrupt`) carries the result.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shlex
import shutil
import signal
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hemkit import __version__
from hemkit.collect.kinds import event_kind, warn_settings
from hemkit.collect.validate import check_reading
from hemkit.core.checks import check_scalar
from hemkit.core.errors import Fix, HemkitWarning, InputError, MeasurementError
from hemkit.core.progress import ProgressLike, ProgressTask, as_progress
from hemkit.core.results import Result, result
from hemkit.core.stops import StopRequests
from hemkit.external.cluster import dask_client, parse_cluster
from hemkit.external.perf import (
    PerfStatOptions,
    PerfStatResult,
    check_perf_events,
    find_perf,
    perf_version,
    run_perf_stat,
)
from hemkit.external.process import describe_status, resolve_program, start, stop
from hemkit.io.collection import CollectionDB, Machine, StoredRun, collection_status, open_for_writing, shard_reps
from hemkit.io.kernel import counter_settings
from hemkit.io.perf_files import core_pmu_of, pmu_of
from hemkit.plan import Plan

#: valid runs per group of a new collection when none are asked for
DEFAULT_RUNS = 50


def machine_info() -> dict[str, Any]:
    """uname, CPU model and core count of this machine.

    Examples
    --------
    >>> sorted(machine_info())
    ['cpu_model', 'cpus', 'uname']
    """
    u = platform.uname()
    model = ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
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


def local_machine(perf: str, version: str | None = None) -> Machine:
    """The machine this process runs on, as a run stores it: host, CPU model, kernel release, ``perf``'s version.

    ``version``: perf's version when already known (else perf is asked).

    Examples
    --------
    >>> local_machine("perf").host == platform.node()  # doctest: +SKIP
    True
    """
    known = version if version is not None else perf_version(perf)
    return Machine(platform.node(), str(machine_info()["cpu_model"]), platform.release(), known)


def parse_shard(shard: str | Sequence[int] | None) -> tuple[int, int] | None:
    """``"K/N"`` (or ``(K, N)``) as ``(K, N)`` with ``1 <= K <= N``; None stays None.

    Examples
    --------
    >>> parse_shard("2/3"), parse_shard((1, 2)), parse_shard(None)
    ((2, 3), (1, 2), None)
    >>> parse_shard("3/2")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: shard must be K/N with 1 <= K <= N (shard 3 of 2?), got '3/2'
    """
    if shard is None:
        return None
    parts: list[Any]
    if isinstance(shard, str):
        parts = shard.strip().split("/")
    else:
        parts = list(shard)
    try:
        k, n = (int(str(x).strip()) for x in parts) if len(parts) == 2 else (None, None)
    except ValueError:
        k = n = None
    if k is None or n is None:
        raise InputError(f"shard must be K/N, e.g. 1/4 for the first of four parts, got {shard!r}", param="shard")
    if not 1 <= k <= n:
        raise InputError(f"shard must be K/N with 1 <= K <= N (shard {k} of {n}?), got {shard!r}", param="shard")
    return k, n


def perf_events(group: Sequence[str], perf_groups: Sequence[Sequence[str]]) -> list[str]:
    """The ``-e`` list for a group: must-share sets of the plan wrapped in ``{...}``.

    Parameters
    ----------
    group : sequence of str
        The events of one group of a plan, in order.
    perf_groups : sequence of sequences of str
        The plan's must-share sets (:attr:`hemkit.plan.Plan.perf_groups`); a set is wrapped
        only where all its events are in ``group``, at the place of its first one.

    Returns
    -------
    list of str
        The events and wrapped sets, each event once.

    Examples
    --------
    >>> perf_events(["cycles", "a", "b", "c"], [["a", "b"]])
    ['cycles', '{a,b}', 'c']
    """
    out: list[str] = []
    used: set[str] = set()
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


def available_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity mask).

    Examples
    --------
    >>> 0 < len(available_cpus()) <= (os.cpu_count() or 1)
    True
    """
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return list(range(os.cpu_count() or 1))


def corunner_args(corunner: str | Sequence[str]) -> list[str]:
    """A co-runner given as one string (split like a shell does) or as arguments.

    Examples
    --------
    >>> corunner_args("stress --cpu 1")
    ['stress', '--cpu', '1']
    """
    if isinstance(corunner, str):
        try:
            args = shlex.split(corunner)
        except ValueError as exc:
            raise InputError(f"corunner {corunner!r}: {exc}") from None
    else:
        args = [str(a) for a in corunner]
    if not args or not args[0]:
        raise InputError("corunner is empty")
    return args


@dataclass(frozen=True)
class CollectOptions:
    """How :func:`collect` runs the plan (everything but the plan, the command and the runs).

    Parameters
    ----------
    pin : int, optional
        CPU to run the command on (``taskset``); the co-runner goes to the next CPU.
        Continuing a collection, None means the stored value.
    corunner : str or sequence of str, optional
        A program run in the background during the whole collection (interference).
        Continuing a collection, None means the stored value.
    fmt : {"csv", "json"}, optional
        perf's output format (default csv).  Continuing a collection, None means the stored
        one, and another is refused.
    max_attempts : int
        Invalid runs in a row of one (group, repetition) before the collection stops.
    timeout : float, optional
        Seconds per run before it is killed (then the collection stops).
    perf : str, optional
        perf binary (default ``$HEMKIT_PERF`` or ``perf``).
    allow_failure : bool
        Accept runs whose program exits non-zero or is killed (to measure failing programs
        on purpose); otherwise such a run stops the collection with a MeasurementError.
    cluster : str, optional
        Measure the runs on the workers of a Dask cluster: a scheduler's address
        (``tcp://node0:8786``) or ``local:N`` worker processes here
        (:mod:`hemkit.collect.cluster`); this process stores them.  No co-runner then.
    shard : str or (int, int), optional
        ``"K/N"``: collect only part K of N of the plan's (group, repetition) set
        (:func:`hemkit.io.collection.shard_reps`), e.g. one job of a Slurm array; the N
        databases read together are the whole collection.  Continuing, None means the
        stored value.
    allow_other_folder : bool
        Continue a collection from a folder other than the one it was made in (the command
        then runs in this one, e.g. the same files moved or mounted elsewhere), with a
        warning; otherwise that is refused, since a command such as ``sort data.txt`` would
        quietly measure another workload.

    Raises
    ------
    InputError
        A value out of range, naming the parameter.

    Examples
    --------
    >>> CollectOptions(max_attempts=3, timeout=60).max_attempts
    3
    >>> CollectOptions(timeout=-1)
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: timeout (seconds) must be a positive number, got -1.0
    """

    pin: int | None = None
    corunner: str | Sequence[str] | None = None
    fmt: str | None = None
    max_attempts: int = 5
    timeout: float | None = None
    perf: str | None = None
    allow_failure: bool = False
    cluster: str | None = None
    shard: str | tuple[int, int] | None = None
    allow_other_folder: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "shard", parse_shard(self.shard))
        if self.pin is not None:
            cpus = available_cpus()
            if isinstance(self.pin, bool) or not isinstance(self.pin, int) or self.pin not in cpus:
                raise InputError(
                    f"pin must be one of the CPUs hemkit may use ({_ranges(cpus)}), got {self.pin}", param="pin"
                )
        check_scalar(self.max_attempts, "max_attempts", min_val=1)
        check_scalar(self.timeout, "timeout", "real", min_val=0, closed="right", allow_none=True, what="seconds")
        if self.fmt is not None and self.fmt not in ("csv", "json"):
            raise InputError(f"fmt must be 'csv' or 'json', got {self.fmt!r}", param="fmt")
        if self.corunner is not None:
            corunner_args(self.corunner)
        if self.cluster is not None:
            parse_cluster(self.cluster)
            if self.corunner is not None:
                raise InputError(f"a co-runner {_NO_CORUNNER}", param="cluster")


_NO_CORUNNER = (
    "cannot be used with cluster: it runs beside the program on this machine only, "
    "not on every worker; collect on this machine to measure with a co-runner"
)


def _ranges(cpus: Sequence[int]) -> str:
    """``0-3, 6`` for a list of CPU numbers."""
    out: list[str] = []
    for c in sorted(cpus):
        if out and out[-1].split("-")[-1] == str(c - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{c}"
        else:
            out.append(str(c))
    return ", ".join(out)


@result
class CollectResult(Result):
    """What one :func:`collect` call did, and where the collection stands.

    Attributes
    ----------
    db : Path
        The collection database.
    status : DataFrame
        Per group: ``events``, ``valid``, ``invalid``, ``target``, ``last_invalid_reason``.
    target : int
        Valid runs wanted per group.
    added_valid, added_invalid : int
        Runs stored by this call: valid ones, and invalid ones (re-run).
    invalid_reasons : Mapping[str, int]
        How often each reason made a run of this call invalid.
    interrupted : bool
        Stopped early by Ctrl-C or SIGTERM.
    resumed : bool
        Continued an existing collection.
    command : tuple of str
        The measured program and its arguments.
    settings : Mapping[str, Any]
        ``pin``, ``corunner``, ``format`` used, and ``folder``: the folder the command ran in.
    per_worker : Mapping[str, int]
        On a cluster: valid runs this call stored per Dask worker.

    Examples
    --------
    Collecting needs perf, so these lines are not run here.  Five runs of each group of a
    plan of three software events, measuring ``true``:

    >>> from hemkit.plan import make_plan
    >>> from hemkit.collect import collect
    >>> plan = make_plan(["task-clock", "page-faults", "context-switches"], pmcs=2, design="much")
    >>> res = collect(plan, ["true"], "c.db", runs=5)  # doctest: +SKIP
    >>> res.line()  # doctest: +SKIP
    'c.db: 15 of 15 runs valid (15 added now); complete'
    >>> res.complete, res.added_invalid, res.summary()["valid"].tolist()  # doctest: +SKIP
    (True, 0, [5, 5, 5])

    A collection that was interrupted (``complete`` False) continues with the same call;
    :func:`hemkit.io.read_readings` reads the database.
    """

    db: Path
    status: pd.DataFrame
    target: int
    added_valid: int = 0
    added_invalid: int = 0
    invalid_reasons: Mapping[str, int] = field(default_factory=dict)
    interrupted: bool = False
    resumed: bool = False
    command: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    per_worker: Mapping[str, int] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Whether every group has its target of valid runs."""
        return bool(len(self.status)) and bool((self.status["valid"] >= self.status["target"]).all())

    @property
    def valid(self) -> int:
        """Valid runs stored, counted up to the target of each group."""
        return int(self.status["valid"].clip(upper=self.status["target"]).sum())

    @property
    def wanted(self) -> int:
        """Valid runs the collection wants in all."""
        return int(self.status["target"].sum())

    def summary(self) -> pd.DataFrame:
        """Per group: events, valid and invalid runs, target and the last invalid reason."""
        return self.status.set_index("group")

    def line(self) -> str:
        """One line: runs valid of wanted, added now, invalid and why, and what comes next.

        Examples
        --------
        >>> s = pd.DataFrame({"group": [0], "events": [2], "valid": [3], "invalid": [1], "target": [3],
        ...                   "last_invalid_reason": ["a multiplexed"]})
        >>> CollectResult(Path("c.db"), s, 3, added_valid=3, added_invalid=1,
        ...               invalid_reasons={"a multiplexed": 1}).line()
        'c.db: 3 of 3 runs valid (3 added now; 1 invalid and re-run: 1 x a multiplexed); complete'
        """
        parts = [f"{self.added_valid} added now"]
        if self.added_invalid:
            why = ", ".join(f"{n} x {reason}" for reason, n in self.invalid_reasons.items())
            parts.append(f"{self.added_invalid} invalid and re-run: {why}")
        state = "complete" if self.complete else ("interrupted" if self.interrupted else "incomplete")
        return f"{self.db}: {self.valid} of {self.wanted} runs valid ({'; '.join(parts)}); {state}"


class CollectionInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped :func:`collect`; ``result`` holds what was stored.

    Examples
    --------
    >>> issubclass(CollectionInterrupted, KeyboardInterrupt)
    True
    """

    def __init__(self, result: CollectResult, signum: int):
        super().__init__(f"{result.db}: interrupted by {signal.Signals(signum).name}")
        self.result = result
        self.signum = signum


@dataclass
class _Settings:
    plan: Plan
    command: list[str]
    pin: int | None
    corunner: list[str] | None
    fmt: str
    target: int
    resumed: bool
    shard: tuple[int, int] | None = None
    folder: str = ""  # where the command runs: this process's folder (on a cluster, the workers')


def _here() -> str:
    """The folder of this process (the command runs there), or InputError if it was removed."""
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise InputError(
            "the current folder no longer exists, so the command would run nowhere; cd to an existing folder"
        ) from None


def _check_folder(db: CollectionDB, command: Sequence[str], here: str, allow: bool) -> None:
    """Refuse to continue ``db`` from a folder other than the one it was made in (unless ``allow``: a warning)."""
    stored = db.folder()
    where, cmd = db.path, shlex.join(command)
    if stored is None:
        warnings.warn(
            f"{where}: made before hemkit stored the folder a collection's command runs in, so this folder ({here}) "
            f"cannot be checked against the one of its first runs; run {cmd!r} where they ran",
            HemkitWarning,
            stacklevel=4,
        )
        return
    if os.path.realpath(stored) == os.path.realpath(here):
        return
    if allow:
        warnings.warn(
            f"{where}: continued in folder {here}, not in {stored} where it was made, as asked; {cmd!r} runs here and "
            "its runs are read with the first ones as one experiment",
            HemkitWarning,
            stacklevel=4,
        )
        return
    gone = "" if os.path.isdir(stored) else f" ({stored} does not exist on this machine)"
    raise InputError(
        f"{where}: was collected in folder {stored}, not in this folder {here}: {cmd!r} would run here and could "
        f"measure another workload (another file, or none); run hemkit from {stored}{gone}, or use another database "
        "file",
        fix=Fix("allow_other_folder", True),
    )


def _resolve(
    db: CollectionDB | None, plan: Plan | None, command: Sequence[str] | None, runs: int | None, opts: CollectOptions
) -> _Settings:
    """The plan, command and settings of this call: the resume policy (see the module docstring)."""
    corunner = corunner_args(opts.corunner) if opts.corunner is not None else None
    if db is None:
        if plan is None:
            raise InputError("no plan given and no collection to continue")
        if not command:
            raise InputError("no command to measure and no collection to continue")
        shard = opts.shard if isinstance(opts.shard, tuple) else None
        target = runs or DEFAULT_RUNS
        if shard is not None and shard[0] > target:
            raise InputError(
                f"runs {target} per group split into {shard[1]} shards leave shard {shard[0]}/{shard[1]} no runs "
                "to measure (use fewer shards or more runs)",
                param="runs",
            )
        return _Settings(
            plan, [str(c) for c in command], opts.pin, corunner, opts.fmt or "csv", target, False, shard, _here()
        )
    meta = db.meta()
    where = db.path
    stored_plan = _stored_plan(db, meta)
    if plan is not None and [list(g) for g in plan.groups] != stored_plan.groups:
        raise InputError(f"{where}: was collected with a different plan; use another database file")
    stored_cmd = [str(c) for c in meta.get("command") or []]
    if command and [str(c) for c in command] != stored_cmd:
        raise InputError(
            f"{where}: was collected with command {shlex.join(stored_cmd)!r}; "
            "use another database file for a different command"
        )
    stored_pin = meta.get("pin")
    if opts.pin is not None and opts.pin != stored_pin:
        raise InputError(
            f"{where}: pin {opts.pin} would mix two kinds of runs: it was collected "
            + (f"pinned to CPU {stored_pin}" if stored_pin is not None else "unpinned")
            + " (use another database file)",
            param="pin",
        )
    stored_co = meta.get("corunner")
    stored_co = corunner_args(stored_co) if stored_co else None
    if corunner is not None and corunner != stored_co:
        was = f"with co-runner {shlex.join(stored_co)!r}" if stored_co else "without a co-runner"
        raise InputError(
            f"{where}: was collected {was}, so runs with co-runner {shlex.join(corunner)!r} would mix two kinds of "
            "runs; use another database file",
            param="corunner",
        )
    try:
        stored_target = int(meta.get("runs", 0))
    except (TypeError, ValueError):
        raise InputError(f"{where}: damaged collection database (the target number of runs)") from None
    stored_fmt = str(meta.get("format", "csv"))
    if opts.fmt is not None and opts.fmt != stored_fmt:
        raise InputError(
            f"{where}: was collected with perf's {stored_fmt} output, not {opts.fmt}; its runs are all read one way "
            f"(use another database file for {opts.fmt})",
            fix=Fix("fmt", stored_fmt),
        )
    stored_shard = db.shard()
    if opts.shard is not None and opts.shard != stored_shard:
        was = f"shard {stored_shard[0]}/{stored_shard[1]}" if stored_shard else "the whole plan (no shard)"
        raise InputError(
            f"{where}: was collected as {was}; continue it with the same shard, or use another database file"
        )
    here = _here()
    _check_folder(db, stored_cmd, here, opts.allow_other_folder)
    return _Settings(
        stored_plan,
        stored_cmd,
        stored_pin,
        stored_co,
        stored_fmt,
        max(stored_target, runs or 0),
        True,
        stored_shard,
        here,
    )


def _stored_plan(db: CollectionDB, meta: Mapping[str, Any]) -> Plan:
    groups = db.groups()
    stored = meta.get("plan")
    try:
        plan = Plan.from_dict(stored, source=str(db.path)) if isinstance(stored, dict) else Plan(groups)
    except (InputError, ValueError, TypeError):
        raise InputError(f"{db.path}: damaged collection database (its plan cannot be read)") from None
    if [list(g) for g in plan.groups] != groups:
        raise InputError(f"{db.path}: damaged collection database (plan and groups differ)")
    return plan


def collect(
    plan: Plan | None,
    command: Sequence[str] | None,
    db_path: str | os.PathLike[str],
    *,
    runs: int | None = None,
    options: CollectOptions | None = None,
    progress: ProgressLike = None,
) -> CollectResult:
    """Collect ``runs`` valid runs of every group of ``plan`` on ``command`` into ``db_path``.

    Parameters
    ----------
    plan : Plan or None
        The groups to read; None continues the collection stored in ``db_path``.
    command : sequence of str or None
        The measured program and its arguments; None continues with the stored one.
    db_path : path
        The collection database; an existing one is continued (see the module docstring).
    runs : int, optional
        Valid runs wanted per group (default: the stored target, or 50 for a new
        collection); a larger value than before extends a collection.
    options : CollectOptions, optional
        Pin, co-runner, perf format, attempts, timeout, perf binary, allow_failure.
    progress : bool or Progress, optional
        Progress display (see :mod:`hemkit.core.progress`).

    Returns
    -------
    CollectResult

    Raises
    ------
    CollectionInterrupted
        Ctrl-C or SIGTERM (``.result`` holds what was stored).
    InputError
        Bad parameter, a database of another plan or command, a foreign or damaged file,
        events perf does not know (all named, with the closest names perf knows, before
        anything is run or stored).
    OutputError
        The database cannot be written (missing folder, read-only, full disk) or another
        collector writes it ("in use by pid N").
    MeasurementError
        The program failed (unless ``allow_failure``), perf failed, an event is not
        supported, a run timed out, the co-runner ended, or too many invalid runs in a row.

    Examples
    --------
    >>> from hemkit.plan import make_plan
    >>> from hemkit.collect import collect, ubench_command
    >>> plan = make_plan(["task-clock", "page-faults", "context-switches"], 2)
    >>> res = collect(plan, ubench_command("iadd", "L2", 200000, jitter=0.5), "c.db", runs=5)  # doctest: +SKIP
    >>> res.line()  # doctest: +SKIP
    'c.db: 15 of 15 runs valid (15 added now); complete'
    """
    opts = options or CollectOptions()
    check_scalar(runs, "runs", min_val=1, allow_none=True)
    if command is not None and len(command) == 0:
        command = None
    exe = find_perf(opts.perf) if opts.cluster is None else ""  # on a cluster: the workers' perf
    path = Path(os.fspath(db_path))
    # everything that needs no worker is checked before a cluster is started or reached: a refusal is
    # immediate, and no worker process is started for nothing (local:N took seconds to refuse a typo)
    with open_for_writing(path) as (lock, existing):
        if existing is not None:
            existing.verify()  # a run changed outside hemkit: refused now, not when the collection is read
        s = _resolve(existing, plan, command, runs, opts)
        if opts.cluster is not None:
            _check_for_cluster(path, s, opts)
        with _client(opts) as client:
            return _collect_here_or_on(client, path, lock, existing, s, opts, exe, progress)


def _check_for_cluster(path: Path, s: _Settings, opts: CollectOptions) -> None:
    """Refuse what a collection on ``opts.cluster`` cannot do, before any worker is started or asked."""
    if s.corunner:
        raise InputError(f"{path}: was collected with a co-runner, which {_NO_CORUNNER}", param="cluster")
    spec = parse_cluster(str(opts.cluster))
    if s.pin is not None and (spec.local_workers or 0) > 1:
        raise InputError(
            f"pin {s.pin} with {spec.local_workers} local workers would measure {spec.local_workers} runs "
            "at once on one CPU of this machine, each disturbing the others; measure unpinned, or with one "
            "worker",
            param="pin",
            fix=Fix("cluster", "local:1"),
        )


def _collect_here_or_on(  # noqa: PLR0913 - the checked call: where (client), the database (path, lock), what
    client: Any,
    path: Path,
    lock: Any,
    existing: CollectionDB | None,
    s: _Settings,
    opts: CollectOptions,
    exe: str,
    progress: ProgressLike,
) -> CollectResult:
    """Check the program and events (on a worker or here), make or continue the database, and collect."""
    if client is not None:
        from hemkit.collect.cluster import preflight

        exe, version, info = preflight(
            client, str(opts.cluster), s.command[0], s.plan.events, opts.perf, machine_info, cwd=s.folder
        )
    else:
        info = machine_info()
        resolve_program(s.command[0])
        check_perf_events(s.plan.events, perf=exe)  # every unknown event named before the first run
        say_counter_settings(s.plan.events, s.pin)
        if s.corunner:
            resolve_program(s.corunner[0], what="co-runner")
        version = perf_version(exe)
    if existing is not None:
        existing.prepare_for_writing()
        before = existing.meta().get("perf_version")
        if before and before != version:
            warnings.warn(
                f"{path}: this perf ({version}) is not the one the collection began with ({before})",
                HemkitWarning,
                stacklevel=2,
            )
        db = existing
    else:
        db = CollectionDB.create(
            path,
            s.plan.groups,
            {
                "plan": s.plan.to_dict(),
                "command": s.command,
                "folder": s.folder,  # where the command runs: a continuation from another folder is refused
                "pin": s.pin,
                "corunner": s.corunner,
                "format": s.fmt,
                "perf": exe,
                "perf_version": version,
                "machine": info,  # on a cluster: a worker's
                "hemkit_version": __version__,
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "runs": s.target,
                **({"shard": list(s.shard)} if s.shard else {}),
            },
            lock=lock,
        )
    try:
        return _run_collection(db, s, opts, exe, local_machine(exe, version), progress, client)
    except BaseException:
        if db is not existing and not _has_valid_runs(db):
            # made by this call and holding no valid run: nothing to continue, and keeping it
            # would tie the database to a command that failed (e.g. a typo) -- remove it
            db.close()
            with contextlib.suppress(OSError):
                path.unlink()
        raise
    finally:
        if db is not existing:
            db.close()


def say_counter_settings(events: Sequence[str], pin: int | None) -> list[str]:
    """Warn, one line each, about the kernel settings that cost this collection counters or events.

    The NMI watchdog (with hardware events), ``perf_event_paranoid``, and on a hybrid CPU
    the core type ``pin`` runs the program on (or that unpinned runs move between core
    types).  Returns the lines warned.
    """
    settings = counter_settings()
    hardware = any(event_kind(e) == "hardware" for e in events)
    said = warn_settings(settings, hardware=hardware)
    if settings.core_pmus and hardware:
        types = ", ".join(f"{pmu}: CPUs {cpus}" for pmu, cpus in settings.core_pmus.items())
        plain = [e for e in events if event_kind(e) == "hardware" and not pmu_of(e)]
        if plain:
            pmu = (settings.pmu_of_cpu(pin) if pin is not None else "") or next(iter(settings.core_pmus))
            raise InputError(
                f"this CPU is hybrid ({types}): perf counts {plain[0]!r} once per core type, so the plan must say "
                f"which: {pmu}/{plain[0]}/"
                + (f" (pin {pin} is a {pmu} core)" if pin is not None else "")
                + (f" ({len(plain) - 1} more such event(s))" if len(plain) > 1 else ""),
                param="pin",
            )
        if pin is None:
            line = (
                f"this CPU is hybrid ({types}): an unpinned program moves between core types, and perf scales each "
                "core type's count up to the whole run (such runs are invalid); give pin (a CPU) to keep it on one "
                "core type"
            )
        else:
            pmu = settings.pmu_of_cpu(pin) or "no core PMU"
            others = [p for p in settings.core_pmus if p != pmu]
            elsewhere = [e for e in events if core_pmu_of(e) in others]
            if elsewhere:
                raise InputError(
                    f"pin {pin} runs the program on a {pmu} core of this hybrid CPU ({types}), so "
                    f"{elsewhere[0]!r} would never be counted (<not counted> in every run); plan {pmu}/.../ events, "
                    f"or pin to a {core_pmu_of(elsewhere[0])} core",
                    param="pin",
                )
            line = (
                f"pin {pin} runs the program on a {pmu} core of this hybrid CPU ({types}): plan {pmu}/.../ events; "
                f"{', '.join(others)} events would read <not counted>"
            )
        warnings.warn(HemkitWarning(line, param="pin"), stacklevel=3)
        said.append(line)
    return said


@contextlib.contextmanager
def _client(opts: CollectOptions) -> Iterator[Any]:
    """The Dask client of ``opts.cluster``, or None for a collection on this machine."""
    if opts.cluster is None:
        yield None
        return
    with dask_client(opts.cluster) as client:
        yield client


def _has_valid_runs(db: CollectionDB) -> bool:
    try:
        return bool(db.done())
    except Exception:  # cannot tell (e.g. a disk error): keep the file
        return True


@dataclass
class _Context:
    """What every run of one collect call shares."""

    db: CollectionDB
    s: _Settings
    opts: CollectOptions
    exe: str
    stops: StopRequests
    machine: Machine
    client: Any = None
    per_worker: Counter[str] = field(default_factory=Counter)


@dataclass
class _Tally:
    valid: int = 0
    invalid: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def bad(self, reason: str) -> None:
        self.invalid += 1
        self.reasons[reason] = self.reasons.get(reason, 0) + 1


def _run_collection(  # noqa: PLR0913 - what to run, and where: here (exe, machine) or on a cluster (client)
    db: CollectionDB,
    s: _Settings,
    opts: CollectOptions,
    exe: str,
    machine: Machine,
    progress: ProgressLike,
    client: Any = None,
) -> CollectResult:
    if int(db.meta().get("runs", 0)) != s.target:
        db.set_meta("runs", s.target)
    done = db.done()
    n_groups = len(s.plan.groups)
    reps = shard_reps(s.target, s.shard)
    todo = [(gid, rep) for rep in reps for gid in range(n_groups) if (gid, rep) not in done]
    tally = _Tally()
    stops = StopRequests()
    ctx = _Context(db, s, opts, exe, stops, machine, client)

    def outcome() -> CollectResult:
        return CollectResult(
            db.path,
            db.status(),
            s.target,
            tally.valid,
            tally.invalid,
            dict(tally.reasons),
            stops.requested,
            s.resumed,
            tuple(s.command),
            {"pin": s.pin, "corunner": s.corunner, "format": s.fmt, "folder": s.folder},
            dict(ctx.per_worker),
        )

    with stops:
        proc = None
        try:
            proc = _start_corunner(s.corunner, s.pin) if s.corunner else None
            with as_progress(progress).task("collect", total=len(todo)) as task:
                if client is not None:
                    _on_cluster(ctx, todo, tally, task)
                for gid, rep in todo if client is None else ():
                    if stops.requested:
                        break
                    _check_corunner(proc, s.corunner)
                    _one_run(ctx, gid, rep, tally)
                    info = f"group {gid}, run {rep}" + (f"; {tally.invalid} invalid, re-run" if tally.invalid else "")
                    task.advance(info=info)
        except KeyboardInterrupt:  # the second signal: stop at once
            stops.wind_up()
            stops.count = max(stops.count, 1)
            if proc is not None:
                stop(proc)
                proc = None
            raise CollectionInterrupted(outcome(), stops.signum) from None
        finally:
            if proc is not None:
                stop(proc)
        stops.wind_up()  # another Ctrl-C now would lose the count of runs stored
        res = outcome()
    if stops.requested:
        raise CollectionInterrupted(res, stops.signum)
    return res


def _one_run(ctx: _Context, gid: int, rep: int, tally: _Tally) -> None:
    """Measure (group, repetition) until a valid run is stored, or raise."""
    s, opts, stops = ctx.s, ctx.opts, ctx.stops
    events = s.plan.groups[gid]
    reason = ""
    for _ in range(opts.max_attempts):
        t0 = time.time()
        try:
            res = run_perf_stat(
                perf_events(events, s.plan.perf_groups),
                s.command,
                PerfStatOptions(cpu=s.pin, fmt=s.fmt, perf=ctx.exe, timeout=opts.timeout, start_new_session=True),
            )
        except MeasurementError as exc:
            raise exc.reworded(f"group {gid}, run {rep}: {exc.message}") from None
        reason = _store_run(ctx, (gid, rep), res, t0, ctx.machine, tally)
        if not reason:
            return
        if stops.requested:
            return
    raise MeasurementError(
        f"group {gid} ({', '.join(events)}): {opts.max_attempts} invalid runs in a row, "
        f"last: {reason}; reduce the group (see 'hemkit probe') or check the command"
    )


def _on_cluster(ctx: _Context, todo: Sequence[tuple[int, int]], tally: _Tally, task: ProgressTask) -> None:
    """Measure ``todo`` on the workers of ``ctx.client`` (:mod:`hemkit.collect.cluster`), storing here."""
    from hemkit.collect.cluster import ClusterCollection, Jobs

    s, opts = ctx.s, ctx.opts
    perf = PerfStatOptions(cpu=s.pin, fmt=s.fmt, perf=opts.perf, timeout=opts.timeout, start_new_session=True)
    jobs = Jobs(tuple(s.command), perf, dict(os.environ), s.folder, local_machine)
    ClusterCollection(
        ctx.client,
        str(opts.cluster),
        jobs,
        lambda gid: perf_events(s.plan.groups[gid], s.plan.perf_groups),
        lambda key, m: _store_run(ctx, key, m.result, m.started, m.machine, tally),
        opts.max_attempts,
        lambda: ctx.stops.requested,
        ctx.per_worker,
    ).run(todo, task, lambda gid: ", ".join(s.plan.groups[gid]))


def _store_run(
    ctx: _Context, key: tuple[int, int], res: PerfStatResult, started: float, machine: Machine, tally: _Tally
) -> str:
    """Judge one finished run of ``key`` = (group, repetition), store it and count it; its invalid reason ("" if valid).

    Raises
    ------
    MeasurementError
        The program exited non-zero or was killed (unless ``allow_failure``); the run is stored first.
    """
    s, opts = ctx.s, ctx.opts
    gid, rep = key
    events = s.plan.groups[gid]
    failed = res.returncode != 0 and not opts.allow_failure
    if failed:
        reason = f"{os.path.basename(s.command[0])} {describe_status(res.returncode)}"
    else:
        reason = check_reading(res.counts, events, group=gid)
    with ctx.stops.storing():
        ctx.db.record_run(
            StoredRun(
                gid, rep, "invalid" if reason else "valid", reason, started, res.seconds, res.returncode, machine
            ),
            res.counts,
        )
    if failed:
        raise MeasurementError(
            f"{shlex.join(s.command)}: {describe_status(res.returncode)} in group {gid}, run {rep}"
            f"{_said(res.stderr)}; fix the program, or keep its failing runs to measure it on purpose",
            fix=Fix("allow_failure", True),
        )
    if reason:
        tally.bad(reason)
    else:
        tally.valid += 1
    return reason


def _said(stderr: str) -> str:
    """``" (it said: ...)"`` with the program's last line on stderr, if any (perf's own lines left out).

    Examples
    --------
    >>> _said("Traceback ...\\nValueError: bad input\\n/usr/bin/python3: Killed\\n")
    ' (it said: ValueError: bad input)'
    """
    endings = tuple(f": {signal.strsignal(s)}" for s in signal.Signals)
    lines = [
        line.strip()
        for line in (stderr or "").splitlines()
        if line.strip() and not line.startswith("#") and not line.rstrip().endswith(endings)
    ]
    if not lines:
        return ""
    last = lines[-1]
    return f" (it said: {last[:160]}{'...' if len(last) > 160 else ''})"


def _start_corunner(corunner: Sequence[str], pin: int | None) -> Any:
    args = list(corunner)
    args[0] = resolve_program(args[0], what="co-runner")
    cpus = available_cpus()
    taskset = shutil.which("taskset")
    if pin is not None and len(cpus) > 1 and taskset:
        other = cpus[(cpus.index(pin) + 1) % len(cpus)] if pin in cpus else cpus[0]
        args = [taskset, "-c", str(other), *args]
    return start(args, die_with_parent=True, what=f"co-runner {os.path.basename(corunner[0])}")


def _check_corunner(proc: Any, corunner: Sequence[str] | None) -> None:
    if proc is not None and proc.poll() is not None:
        raise MeasurementError(
            f"co-runner {shlex.join(corunner or [])!r} ended ({describe_status(proc.returncode)}) during the "
            "collection; the runs stored so far had it, the next would not (give a co-runner that runs until stopped)"
        )


def status(db_path: str | os.PathLike[str]) -> pd.DataFrame:
    """Per group: valid and invalid runs so far, the target and the last invalid reason.

    Examples
    --------
    >>> status("c.db")  # doctest: +SKIP
    """
    return collection_status(db_path)


__all__ = [
    "DEFAULT_RUNS",
    "CollectOptions",
    "CollectResult",
    "CollectionInterrupted",
    "available_cpus",
    "collect",
    "corunner_args",
    "local_machine",
    "machine_info",
    "parse_shard",
    "perf_events",
    "status",
]
