"""Where the cases of a sweep run: one after another in this process, or as Dask tasks on a cluster.

A sweep (:func:`~hemkit.evaluate.truth_study`, :func:`~hemkit.evaluate.holdout`) writes each
of its cases as a call of a module-level function with picklable arguments, its random
streams derived beforehand (:func:`hemkit.core.rng.child`, in the same order as ever), and
hands the calls to a runner from :func:`sweep_runner`:

- ``cluster=None``: every call runs here at once, as a plain loop would (same speed);
- ``cluster="local:N"`` or a scheduler's address (:mod:`hemkit.external.cluster`): shared
  inputs are sent once (as a task that returns them, so a lost copy is made again), every call
  is a Dask task (a call may take another's result, which then stays on the workers), and the
  results come back in the order of the calls.

The functions and their inputs are the same either way, so a sweep gives the same numbers
here and on a cluster for the same seed.  Warnings a :meth:`Runner.submit` call raises on a
worker are raised again here, so the caller sees (or records) them as in a local run; a worker's
error is raised here as itself.  A task whose worker dies is run again elsewhere by Dask, with
the same arguments, hence the same numbers.

Examples
--------
>>> from hemkit.core.progress import as_progress
>>> with as_progress(None).task("sums", total=2) as task, sweep_runner(None, task) as run:
...     data = run.share([1, 2, 3])
...     handles = [run.submit(sum, data), run.submit(max, data)]
...     run.results(handles)
[6, 3]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from hemkit.core.progress import ProgressTask


class Runner(Protocol):
    """Runs the calls of a sweep; what a handle is depends on where (a value here, a Dask future there)."""

    def share(self, value: Any) -> Any:
        """A handle of ``value`` for the calls that read it (sent to the workers once)."""
        ...  # pragma: no cover

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A handle of ``fn(*args)``, an intermediate result that later calls take as an argument.

        On a cluster its value stays on the workers, and so do its warnings: ``fn`` should silence
        what it expects (as :func:`~hemkit.evaluate.study.study_split` does).
        """
        ...  # pragma: no cover

    def submit(self, fn: Callable[..., Any], *args: Any, info: str = "") -> Any:
        """A handle of ``fn(*args)``, one case of the sweep: progress advances by one when it is done."""
        ...  # pragma: no cover

    def results(self, handles: Sequence[Any]) -> list[Any]:
        """The values of :meth:`submit` handles, in their order."""
        ...  # pragma: no cover


class _Here:
    """Every call at once, in this process."""

    def __init__(self, task: ProgressTask):
        self.task = task

    def share(self, value: Any) -> Any:
        return value

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return fn(*args)

    def submit(self, fn: Callable[..., Any], *args: Any, info: str = "") -> Any:
        value = fn(*args)
        self.task.advance(info=info)
        return value

    def results(self, handles: Sequence[Any]) -> list[Any]:
        return list(handles)


def recording_warnings(fn: Callable[..., Any], *args: Any) -> tuple[Any, list[tuple[type[Warning], str]]]:
    """``fn(*args)`` and the warnings it raised, as (category, message) pairs (run on a worker)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(*args)
    return value, [(w.category, str(w.message)) for w in caught]


def _shared(value: Any) -> Any:
    """``value`` itself: a task whose result is a sweep's shared input (run on a worker)."""
    return value


class _OnCluster:
    """Every call a Dask task of ``client``; results gathered in order, warnings raised again here."""

    def __init__(self, client: Any, task: ProgressTask):
        self.client = client
        self.task = task
        self.info: dict[str, str] = {}

    def share(self, value: Any) -> Any:
        # a task that returns the value, not scattered data: scattered data whose worker dies is gone
        # for good (every case reading it is cancelled), and broadcasting does not keep copies, since
        # Dask's active memory manager drops all but one; a lost task result is computed again from
        # its spec, which the scheduler keeps.  The value is sent once, in that spec: a large graph is
        # what is meant here, so Dask's warning about it is not the caller's business.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            return self.client.submit(_shared, value, pure=False)

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)

    def submit(self, fn: Callable[..., Any], *args: Any, info: str = "") -> Any:
        future = self.client.submit(recording_warnings, fn, *args, pure=False)
        self.info[future.key] = info
        return future

    def results(self, handles: Sequence[Any]) -> list[Any]:
        out = []
        try:
            for future in handles:  # in order: a worker's error is raised here as itself
                value, caught = future.result()
                for category, message in caught:
                    warnings.warn(message, category, stacklevel=2)
                out.append(value)
                self.task.advance(info=self.info.get(future.key, ""))
        except BaseException:
            self.client.cancel(list(handles))
            raise
        return out


@contextmanager
def sweep_runner(cluster: str | None, task: ProgressTask) -> Iterator[Runner]:
    """A runner of a sweep's calls: here (``cluster=None``) or on a Dask cluster (see the module docstring).

    Parameters
    ----------
    cluster : str, optional
        ``"local:N"`` (N worker processes started here and stopped at the end) or the address
        of a running Dask scheduler (``"tcp://node0:8786"``).
    task : ProgressTask
        Advanced by one per finished :meth:`Runner.submit` call.

    Raises
    ------
    InputError
        ``cluster`` is not a cluster.
    SetupError
        Dask distributed is not installed, or no scheduler answers.
    """
    if cluster is None:
        yield _Here(task)
        return
    from hemkit.external.cluster import dask_client

    with dask_client(cluster) as client:
        yield _OnCluster(client, task)


__all__ = ["Runner", "recording_warnings", "sweep_runner"]
