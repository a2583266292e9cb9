"""A Dask cluster to run on: a running scheduler's address, or ``local:N`` worker processes here.

Dask distributed is the engine (the ``cluster`` extra: ``pip install 'hemkit[cluster]'``);
hemkit adds no scheduler of its own.  ``cluster`` is either the address of a running
scheduler (``tcp://node0:8786``, or ``node0:8786``: start one with ``dask scheduler`` and one
``dask worker ADDRESS --nworkers 1 --nthreads 1`` per node), or ``local:N``: a
:class:`distributed.LocalCluster` of ``N`` single-threaded worker processes on this machine,
started here and stopped at the end (for trying it, and for tests).

Functions sent to the workers must be importable module-level functions of hemkit (workers
are separate processes).

Examples
--------
>>> parse_cluster("local:2")
ClusterSpec(address=None, local_workers=2)
>>> parse_cluster("tcp://node0:8786")
ClusterSpec(address='tcp://node0:8786', local_workers=None)
>>> parse_cluster("node0:8786").address
'tcp://node0:8786'
>>> with dask_client("local:1") as client:  # doctest: +SKIP
...     client.submit(sum, [1, 2]).result()
3
"""

from __future__ import annotations

import contextlib
import logging
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from hemkit.core.errors import HemkitError, InputError, MeasurementError, SetupError

#: seconds to wait for a remote scheduler to answer before giving up
CONNECT_TIMEOUT = 20.0
#: most worker processes ``local:N`` starts
MAX_LOCAL_WORKERS = 256

_LOCAL = re.compile(r"local:(\d+)")
_ADDRESS = re.compile(r"(?:(tcp|tls|inproc|ucx|ws|wss)://)?([A-Za-z0-9_.\-\[\]:]+?)(?::(\d{1,5}))?/?")


@dataclass(frozen=True)
class ClusterSpec:
    """Where to run: ``address`` of a running scheduler, or ``local_workers`` processes here."""

    address: str | None = None
    local_workers: int | None = None

    @property
    def local(self) -> bool:
        """True for ``local:N``."""
        return self.local_workers is not None

    def __str__(self) -> str:
        return f"local:{self.local_workers}" if self.local else str(self.address)


def parse_cluster(cluster: str) -> ClusterSpec:
    """``local:N`` or a scheduler address as a :class:`ClusterSpec`; anything else is refused.

    Raises
    ------
    InputError
        Naming the value and the two forms it may take.
    """
    text = str(cluster).strip()
    m = _LOCAL.fullmatch(text)
    if m:
        n = int(m.group(1))
        if not 1 <= n <= MAX_LOCAL_WORKERS:
            raise InputError(
                f"cluster {text!r}: local:N needs 1 <= N <= {MAX_LOCAL_WORKERS} worker processes", param="cluster"
            )
        return ClusterSpec(local_workers=n)
    m = _ADDRESS.fullmatch(text)
    if not text or text.startswith("local") or m is None or m.group(3) is None and m.group(1) is None:
        raise InputError(
            f"cluster {text!r} is neither 'local:N' (N worker processes here) nor a scheduler address "
            "such as 'tcp://node0:8786' (start one with 'dask scheduler')",
            param="cluster",
        )
    scheme = m.group(1) or "tcp"
    port = f":{m.group(3)}" if m.group(3) else ""
    return ClusterSpec(address=f"{scheme}://{m.group(2)}{port}")


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise SetupError(
            "running on a Dask cluster needs Dask distributed, which is not installed: pip install 'hemkit[cluster]'"
        ) from None
    return distributed


def _ignore(signum: int, frame: Any) -> None:
    """A Ctrl-C at the terminal, on a local worker: the client decides what stops."""


def _leave_ctrl_c_to_the_client(distributed: Any) -> Any:
    """A worker plugin: local workers share the terminal's process group, so a Ctrl-C there reaches them too.

    It must stop the client only (which then cancels its tasks and closes the local cluster).
    A handler that does nothing, not ``SIG_IGN``, so that the programs a worker starts get the
    default again.  The class is made here (Dask sends it by value) because distributed is optional.
    """

    class LeaveCtrlCToTheClient(distributed.WorkerPlugin):
        name = "hemkit-leave-ctrl-c-to-the-client"

        def setup(self, worker: Any) -> None:
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, _ignore)

    return LeaveCtrlCToTheClient()


def _check_host(spec: ClusterSpec, given: str) -> None:
    """Refuse at once an address whose host name does not resolve (a typo such as ``lcal:2``)."""
    import socket

    m = re.fullmatch(r"(?:\w+://)?(\[[^\]]*\]|[^:/]+)(?::\d+)?/?", str(spec.address))
    host = m.group(1).strip("[]") if m else ""
    if not host or spec.address is None or not spec.address.startswith(("tcp://", "tls://", "ws://", "wss://")):
        return
    try:
        socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        hint = " (did you mean 'local:N', N worker processes here?)" if host.lower().startswith(("l", "loc")) else ""
        raise InputError(f"cluster {given!r}: no host named {host!r} is known here{hint}", param="cluster") from None


@contextmanager
def dask_client(cluster: str | ClusterSpec) -> Iterator[Any]:
    """A :class:`distributed.Client` of ``cluster``, closed (and a local cluster stopped) on exit.

    Raises
    ------
    InputError
        A value that is not a cluster (:func:`parse_cluster`).
    SetupError
        Dask distributed not installed, or no scheduler answering at the address.
    """
    spec = cluster if isinstance(cluster, ClusterSpec) else parse_cluster(cluster)
    distributed = _distributed()
    with contextlib.ExitStack() as stack:
        if spec.local:  # local workers share the cores of the runs they measure: no sampling profiler
            import dask

            stack.enter_context(dask.config.set(LOCAL_WORKER_CONFIG))
        yield from _client(distributed, spec, str(cluster))


#: Dask settings of ``local:N`` workers: they share this machine's cores with the programs they
#: measure, so Dask's statistical profiler (a stack sample every 10 ms) and its 0.1-0.5 s
#: monitors are turned off or slowed
LOCAL_WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "2s",
    "distributed.admin.system-monitor.interval": "2s",
}


def _client(distributed: Any, spec: ClusterSpec, given: str) -> Iterator[Any]:
    local = None
    stack = contextlib.ExitStack()
    try:
        if spec.local:
            # a Ctrl-C while the workers start: a traceback from each; a SIGTERM: a half-made cluster
            with _born_ignoring_ctrl_c(), _sigterm_after_the_start() as termed:
                local = distributed.LocalCluster(
                    n_workers=spec.local_workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # the scheduler's HTTP server (no dashboard) on a free port: 8787 may be another cluster's
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    # CRITICAL, not ERROR: at a Ctrl-C the client closes the scheduler before the workers, and a
                    # worker whose heartbeat then fails logs an ERROR with a traceback on the user's terminal
                    silence_logs=logging.CRITICAL,
                )
                client = distributed.Client(local)
                client.register_plugin(_leave_ctrl_c_to_the_client(distributed))
            if termed:  # the cluster is whole now: SIGTERM does what it does here (the CLI: KeyboardInterrupt)
                try:
                    signal.raise_signal(signal.SIGTERM)
                except BaseException:
                    client.close()  # and the cluster below
                    raise
        else:
            _check_host(spec, given)
            stack.enter_context(_dask_logs_quiet())
            try:
                client = distributed.Client(spec.address, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as exc:
                raise SetupError(
                    f"cluster {spec.address!r}: no Dask scheduler answered within {CONNECT_TIMEOUT:g} s "
                    f"({type(exc).__name__}); start one with 'dask scheduler' and workers with "
                    f"'dask worker {spec.address} --nworkers 1 --nthreads 1'",
                    param="cluster",
                ) from None
        try:
            yield client
        except BaseException as exc:  # the collection stopped or failed: that is what the caller hears
            lost = _scheduler_lost(client, given, exc)
            _close_whole(client, local)
            local = None
            if lost is not None:
                raise lost from None
            raise
        came = _close_whole(client, local)
        local = None
        if came:  # closed now: the stop asked for during the close
            signal.raise_signal(came[0])
    finally:
        if local is not None:  # the start failed after the cluster was made
            local.close()
        stack.close()


@contextmanager
def _dask_logs_quiet() -> Iterator[None]:
    """Dask's client logs nothing on the user's terminal (hemkit says what went wrong, in one line).

    A scheduler that stopped answering printed 'distributed.client - ERROR - Failed to reconnect
    to scheduler after 20.00 seconds, closing client' above hemkit's own error.  (``local:N``
    clusters are quiet already: ``silence_logs``.)
    """
    loggers = [
        logging.getLogger(name) for name in list(logging.root.manager.loggerDict) if name.startswith("distributed")
    ]
    loggers.append(logging.getLogger("distributed"))
    before = [(lg, lg.level) for lg in loggers]
    for lg, _ in before:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in before:
            lg.setLevel(level)


def _scheduler_lost(client: Any, given: str, exc: BaseException) -> MeasurementError | None:
    """The error to raise for ``exc`` if it is Dask's word for a scheduler that stopped answering, else None.

    A scheduler killed or unreachable mid-collection surfaced as Dask's own ``OSError: Timed out
    trying to connect`` or ``RuntimeError: ConnectionPool is closed`` (after the client gave up
    reconnecting): an internal error, exit 1.  It is a failed measurement of the cluster's: the
    runs stored so far stay, and the same command continues once the scheduler is back.
    """
    if isinstance(exc, HemkitError) or not isinstance(exc, OSError | RuntimeError):
        return None
    if getattr(client, "status", "running") == "running":  # the client still has its scheduler: not this
        return None
    detail = " ".join(str(exc).split())[:200] or type(exc).__name__
    return MeasurementError(
        f"cluster {given!r}: the Dask scheduler stopped answering ({detail}); check the scheduler and its nodes",
        param="cluster",
    )


def _close_whole(client: Any, local: Any) -> list[int]:
    """Close the client and a local cluster, with Ctrl-C and SIGTERM held back; returns the signals that came.

    A collection stopped by a first Ctrl-C closes its local cluster (about half a second); the
    second Ctrl-C the terminal invites ("press Ctrl-C again to stop at once") then cut the
    close short.  The half-closed cluster made Dask's exit hook wait ~10 s for its workers, so
    stopping "at once" took ten times as long as not pressing it, and the interrupt replaced
    the collection's own (the command no longer said how many runs were stored).  The
    collection has stopped by then; only the close is left, quicker than anything a signal
    can cut short.
    """
    with _signals_held() as came:
        try:
            client.close()
        finally:
            if local is not None:
                local.close()
    return came


@contextmanager
def _signals_held() -> Iterator[list[int]]:
    """Hold Ctrl-C and SIGTERM back (in the main thread); the list says which came."""
    came: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield came
        return
    signals = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.signal(s, lambda signum, frame: came.append(signum)) for s in signals}
    try:
        yield came
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


@contextmanager
def _sigterm_after_the_start() -> Iterator[list[int]]:
    """Hold a SIGTERM back while ``local:N`` workers start; the list says whether one came.

    A SIGTERM (which the command line turns into a KeyboardInterrupt) inside the cluster's
    start left a half-made cluster: Dask's exit hook failed to close it (a traceback, an
    ``AssertionError: Status.init``) and Python's resource tracker warned of a leaked
    semaphore.  Held back, the start finishes (a second or two) and the caller raises the
    signal again, which then does what it did before (and the whole cluster is closed).  SIGTERM
    is sent to this process, not to its process group as a Ctrl-C is, so the workers need
    nothing (a handler set here is not inherited by the processes they spawn).
    """
    came: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield came
        return
    before = signal.signal(signal.SIGTERM, lambda signum, frame: came.append(signum))
    try:
        yield came
    finally:
        signal.signal(signal.SIGTERM, before)


@contextmanager
def _born_ignoring_ctrl_c() -> Iterator[None]:
    """Start ``local:N`` workers with Ctrl-C ignored: they share the terminal's process group.

    A Ctrl-C while they started reached each worker process as it imported Dask (a traceback
    from every one) and this process inside the cluster's start (a half-made cluster, which
    Dask's exit hook then failed to close: another traceback).  A process started with SIGINT
    ignored keeps it ignored, until :func:`_leave_ctrl_c_to_the_client` gives the workers a
    handler (so that the programs they measure get the default again).  The disposition is the
    whole process's, so this process ignores a Ctrl-C too while they start (a second or two;
    blocking SIGINT instead does not reach the workers); from then on Ctrl-C stops it as before.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


__all__ = ["CONNECT_TIMEOUT", "ClusterSpec", "dask_client", "parse_cluster"]
