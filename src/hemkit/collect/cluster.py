"""A collection's runs measured by the workers of a Dask cluster, stored here by the one writer.

:func:`hemkit.collect.collect` with ``CollectOptions(cluster=...)`` comes here (``cluster`` is a
scheduler's address or ``local:N``, see :mod:`hemkit.external.cluster`).  Each task is one
perf run, measured on a worker by :func:`_measure` with the collection's command and pin, the
caller's environment variables and folder (the one the collection stores: continuing from
another folder is refused before any worker runs anything), and returns the counts with the worker's
:class:`~hemkit.io.collection.Machine`.  This process stays the only writer of the database:
it stores each run the moment it returns, with the machine that measured it.

- **Order**: two runs per worker thread are in flight (one measured, one waiting in the
  worker's queue, so that the next starts without a round trip); the next one submitted is the
  next (group, repetition) of the local round-robin order, so drift hits all groups alike.
  Workers must have one thread (``dask worker --nthreads 1``): one run per worker at a time,
  since two runs on one node would disturb each other's counts.
- **Invalid runs** are re-queued first in line, up to ``max_attempts`` in a row per (group,
  repetition), then :class:`~hemkit.core.errors.MeasurementError` as in a local collection.
- **A worker lost mid-run** (killed, node down): Dask runs the task again on another worker;
  a task whose workers keep dying (``KilledWorker``) is submitted again, up to
  ``max_attempts`` times.  Only a finished run is stored, once: the database's unique index on
  valid (group, repetition) pairs is the last guard.
- **Ctrl-C / SIGTERM**: nothing more is submitted, the runs in flight are cancelled (not
  stored), and :class:`~hemkit.collect.collector.CollectionInterrupted` carries what was stored;
  the same command continues.  (Local workers ignore the terminal's Ctrl-C: the client stops
  them.  A remote worker finishes a cancelled run, whose result is dropped.)
- **Checked before anything is stored**: a worker joined; every worker has one thread and
  the same hemkit; the program and every event are known on a worker (whose machine the
  collection's metadata names).
- A co-runner is refused: it would run beside the program on every node, which this does not
  do; so is a pin with ``local:N`` for N > 1 (N runs at once on one CPU).
"""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import queue
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hemkit.core.errors import HemkitError, MeasurementError, SetupError
from hemkit.external.perf import (
    PerfStatOptions,
    PerfStatResult,
    check_perf_events,
    find_perf,
    perf_version,
    run_perf_stat,
)
from hemkit.external.process import resolve_program
from hemkit.io.collection import Machine

if TYPE_CHECKING:
    from hemkit.core.progress import ProgressTask

#: seconds to wait for the first worker of a scheduler that has none yet
WORKER_TIMEOUT = 60.0
#: seconds between two looks at the stop requests while runs are in flight
POLL = 0.1
#: runs sent to a worker beside the one it measures: they wait in its queue (one thread: one run at a
#: time), so that the next run starts without the round trip to the client
AHEAD = 1


@dataclass(frozen=True)
class Measured:
    """One run measured on a worker: perf's result, when it started, and where it ran."""

    result: PerfStatResult
    started: float
    machine: Machine
    worker: str


@contextlib.contextmanager
def _as_caller(env: Mapping[str, str], cwd: str) -> Iterator[None]:
    """On a worker: the caller's environment variables and folder, for one run (workers have one thread)."""
    if not os.path.isdir(cwd):
        raise MeasurementError(
            f"folder {cwd} does not exist on {platform.node()}; run hemkit from a folder every node has "
            "(e.g. on a shared file system)"
        )
    old_env, old_cwd = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(old_env)
        os.chdir(old_cwd)


@functools.lru_cache(maxsize=8)
def _machine(machine_of: Callable[[str], Machine], exe: str) -> Machine:
    return machine_of(exe)


def _worker_name() -> str:
    try:
        from distributed import get_worker

        address = str(get_worker().address)
    except (ImportError, ValueError):  # not on a worker (called directly)
        return platform.node()
    return address.split("://")[-1]


def _measure(events: Sequence[str], jobs: Jobs) -> Measured:
    """On a worker: one ``perf stat`` run of the jobs' command with the caller's environment and folder."""
    command, options = jobs.command, jobs.options
    try:
        with _as_caller(jobs.env, jobs.cwd):
            exe = find_perf(options.perf)
            started = time.time()
            res = run_perf_stat(events, command, options)
            return Measured(res, started, _machine(jobs.machine_of, exe), _worker_name())
    except HemkitError as exc:
        raise exc.reworded(f"on {platform.node()}: {exc.message}") from None
    except OSError as exc:  # e.g. the folder cannot be entered there
        raise MeasurementError(f"on {platform.node()}: {exc}") from None


def _preflight(
    program: str,
    events: Sequence[str],
    perf: str | None,
    env: Mapping[str, str],
    cwd: str,
    info: Callable[[], dict[str, Any]],
) -> tuple[str, str, dict[str, Any]]:
    """On a worker: the program and every event known there; perf's path and version, ``info()`` there."""
    try:
        with _as_caller(env, cwd):
            exe = find_perf(perf)
            resolve_program(program)
            check_perf_events(events, perf=exe)
            return exe, perf_version(exe), info()
    except HemkitError as exc:
        raise exc.reworded(f"on {platform.node()}: {exc.message}") from None
    except OSError as exc:
        raise MeasurementError(f"on {platform.node()}: {exc}") from None


def _hemkit_version() -> str:
    from hemkit import __version__ as version

    return str(version)


def _workers(client: Any, where: str) -> dict[str, int]:
    """Threads per worker; refuses workers of several threads (they would run several runs at once)."""
    threads = {str(w): int(n) for w, n in client.nthreads().items()}
    crowded = sorted(w for w, n in threads.items() if n > 1)
    if crowded:
        raise SetupError(
            f"cluster {where!r}: worker {crowded[0]} has {threads[crowded[0]]} threads, so it would measure "
            "several runs at once, disturbing each other; start workers with "
            f"'dask worker {where} --nworkers 1 --nthreads 1'",
            param="cluster",
        )
    return threads


def wait_for_workers(client: Any, where: str, timeout: float = WORKER_TIMEOUT) -> None:
    """Wait until the scheduler has a worker; a clear error after ``timeout`` seconds."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise SetupError(
            f"cluster {where!r}: no Dask worker joined the scheduler within {timeout:g} s; start one per node "
            f"with 'dask worker {where} --nworkers 1 --nthreads 1'",
            param="cluster",
        ) from None
    _workers(client, where)


def preflight(  # noqa: PLR0913 - what to check (program, events, perf), where (client, cwd), and how to say it
    client: Any,
    where: str,
    program: str,
    events: Sequence[str],
    perf: str | None,
    info: Callable[[], dict[str, Any]],
    *,
    cwd: str | None = None,
) -> tuple[str, str, dict[str, Any]]:
    """Check the program and the events on a worker, in folder ``cwd``, before anything is stored.

    ``cwd``: the folder the collection's command runs in (default: this process's).  Returns
    perf's path and version there, and ``info()`` run there (an importable function: the
    machine a collection's metadata names).
    """
    wait_for_workers(client, where)
    here = _hemkit_version()
    for worker, version in sorted(client.run(_hemkit_version).items()):
        if version != here:
            raise SetupError(
                f"cluster {where!r}: worker {worker} runs hemkit {version}, this process hemkit {here}; "
                "install the same hemkit on every node",
                param="cluster",
            )
    folder = os.getcwd() if cwd is None else cwd
    future = client.submit(_preflight, program, list(events), perf, dict(os.environ), folder, info, pure=False)
    exe, version, machine = future.result()
    return str(exe), str(version), dict(machine)


@dataclass(frozen=True)
class Jobs:
    """What every run of a collection on a cluster shares (sent with each task).

    Attributes
    ----------
    command : tuple of str
        The measured program and its arguments.
    options : PerfStatOptions
        pin, perf format, perf binary (None: the worker's), timeout.
    env : Mapping[str, str]
        The caller's environment variables, for the program on the worker.
    cwd : str
        The caller's folder (must exist on the workers).
    machine_of : callable
        ``machine_of(perf)``: the worker's :class:`~hemkit.io.collection.Machine` (importable function).
    """

    command: tuple[str, ...]
    options: PerfStatOptions
    env: Mapping[str, str]
    cwd: str
    machine_of: Callable[[str], Machine]


@dataclass
class ClusterCollection:
    """The client's side of a collection on a cluster: submit in order, store as runs return.

    Attributes
    ----------
    client : distributed.Client
    where : str
        The cluster as given (for messages).
    jobs : Jobs
    events_of : callable
        ``events_of(gid)``: the ``-e`` list of group ``gid``.
    store : callable
        ``store((gid, rep), measured)``: judges and stores one run, returns its invalid
        reason ("" if valid), raises to stop the collection.
    max_attempts : int
        Invalid runs in a row (and lost workers) per (group, repetition) before stopping.
    stopped : callable
        ``stopped()``: a stop was requested (Ctrl-C, SIGTERM).
    per_worker : Counter
        Valid runs stored per worker so far.
    """

    client: Any
    where: str
    jobs: Jobs
    events_of: Callable[[int], Sequence[str]]
    store: Callable[[tuple[int, int], Measured], str]
    max_attempts: int
    stopped: Callable[[], bool]
    per_worker: Counter[str]

    def run(self, todo: Sequence[tuple[int, int]], task: ProgressTask, describe: Callable[[int], str]) -> None:
        """Measure every (group, repetition) of ``todo`` on the workers; store each run as it returns.

        Returns when done or when a stop was requested (the runs in flight cancelled, not stored);
        raises what ``store`` raises, a run's error (program, perf, timeout) or too many invalid
        runs in a row (``describe(gid)`` names the group).
        """
        from distributed import CancelledError
        from distributed.scheduler import KilledWorker

        client, where = self.client, self.where
        line: deque[tuple[int, int]] = deque(todo)
        invalid: Counter[tuple[int, int]] = Counter()
        lost: Counter[tuple[int, int]] = Counter()
        n_invalid = 0
        flying: dict[Any, tuple[int, int]] = {}
        done: queue.Queue[Any] = queue.Queue()
        slots = [0.0, 0.0]  # worker threads, and when they were counted (asked again at most once a second)

        def submit_more() -> None:
            if time.monotonic() - slots[1] > 1.0:
                slots[:] = [sum(_workers(client, where).values()), time.monotonic()]
            while line and len(flying) < max(int(slots[0]), 1) * (1 + AHEAD) and not self.stopped():
                gid, rep = line.popleft()
                future = client.submit(_measure, list(self.events_of(gid)), self.jobs, pure=False)
                flying[future] = (gid, rep)
                future.add_done_callback(done.put)

        try:
            wait_for_workers(client, where)
            submit_more()
            while flying:
                try:
                    future = done.get(timeout=POLL)
                except queue.Empty:
                    if self.stopped():
                        return
                    continue
                if self.stopped():
                    return
                key = flying.pop(future)
                gid, rep = key
                try:
                    measured: Measured = future.result()
                except (KilledWorker, CancelledError) as exc:  # its workers died under it: again, elsewhere
                    lost[key] += 1
                    if lost[key] >= self.max_attempts:
                        raise MeasurementError(
                            f"group {gid}, run {rep}: {lost[key]} Dask workers were lost while measuring it "
                            f"({type(exc).__name__}); check the nodes of cluster {where!r}",
                            param="cluster",
                        ) from None
                    line.appendleft(key)
                    submit_more()
                    continue
                except HemkitError as exc:
                    raise exc.reworded(f"group {gid}, run {rep}: {exc.message}") from None
                reason = self.store(key, measured)
                if reason:
                    n_invalid += 1
                    invalid[key] += 1
                    if invalid[key] >= self.max_attempts:
                        raise MeasurementError(
                            f"group {gid} ({describe(gid)}): {self.max_attempts} invalid runs in a row, "
                            f"last: {reason}; reduce the group (see 'hemkit probe') or check the command"
                        )
                    line.appendleft(key)
                else:
                    invalid.pop(key, None)
                    self.per_worker[measured.worker] += 1
                    task.advance(info=_info(gid, rep, self.per_worker, n_invalid))
                submit_more()
        finally:
            if flying:  # stopped, or failed: the runs in flight are not stored
                with contextlib.suppress(Exception):
                    client.cancel(list(flying), force=True)


def _info(gid: int, rep: int, per_worker: Mapping[str, int], invalid: int) -> str:
    """``group 2, run 5; runs per worker: 127.0.0.1:4001 6, 127.0.0.1:4002 5``.

    Examples
    --------
    >>> _info(2, 5, {"a:1": 6, "b:2": 5}, 1)
    'group 2, run 5; runs per worker: a:1 6, b:2 5; 1 invalid, re-run'
    """
    text = f"group {gid}, run {rep}; runs per worker: " + ", ".join(f"{w} {n}" for w, n in per_worker.items())
    return text + (f"; {invalid} invalid, re-run" if invalid else "")


__all__ = ["ClusterCollection", "Jobs", "Measured", "preflight", "wait_for_workers"]
