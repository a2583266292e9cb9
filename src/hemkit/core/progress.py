"""One progress protocol for every long-running library function.

A function that may take more than a couple of seconds takes ``progress: ProgressLike =
None`` and reports through it::

    from hemkit.core.progress import as_progress

    def long_job(items, *, progress=None):
        progress = as_progress(progress)
        with progress.task("measuring kernels", total=len(items)) as task:
            for item in items:
                ...
                task.advance(info=f"kernel {item}")

``None`` or ``False`` is silent; ``True`` shows a rich progress bar on stderr when stderr is
a terminal (silent otherwise, e.g. in CI or a pipe); any object with a ``task`` method
(:class:`Progress`) is used as is, e.g. :class:`RecordingProgress` in tests or a user's own
adapter.  The command line passes ``True`` unless ``--quiet``.

Examples
--------
>>> rec = RecordingProgress()
>>> with as_progress(rec).task("demo", total=2) as t:
...     t.advance(info="first")
...     t.advance(info="second")
>>> rec.events[-1]
('demo', 2, 2, 'second')
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ProgressTask(Protocol):
    """One running task: advance it, or set how far it is."""

    def advance(self, n: float = 1, *, info: str = "") -> None:
        """Count ``n`` more steps done; ``info`` is a short note shown beside the bar."""

    def update(self, *, completed: float | None = None, total: float | None = None, info: str = "") -> None:
        """Set how many steps are done and how many there are."""


@runtime_checkable
class Progress(Protocol):
    """Something that can show tasks: ``with progress.task("name", total=N) as t: t.advance()``."""

    def task(self, description: str, total: float | None = None) -> AbstractContextManager[ProgressTask]:
        """A context manager for one task of ``total`` steps (``None``: unknown)."""


ProgressLike = Progress | bool | None
"""What every ``progress`` argument accepts."""


class _Task:
    """A task that counts and forwards to a callback (shared by the implementations below)."""

    def __init__(self, owner: _CallbackProgress, description: str, total: float | None):
        self.owner, self.description, self.total, self.completed = owner, description, total, 0.0

    def advance(self, n: float = 1, *, info: str = "") -> None:
        self.completed += n
        self.owner.report(self, info)

    def update(self, *, completed: float | None = None, total: float | None = None, info: str = "") -> None:
        if completed is not None:
            self.completed = completed
        if total is not None:
            self.total = total
        self.owner.report(self, info)

    def __enter__(self) -> _Task:
        self.owner.started(self)
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.owner.finished(self)


class _CallbackProgress:
    """Base of the progress implementations: tasks report to ``started``/``report``/``finished``."""

    def task(self, description: str, total: float | None = None) -> _Task:
        return _Task(self, description, total)

    def started(self, task: _Task) -> None:
        """A task began."""

    def report(self, task: _Task, info: str) -> None:
        """A task advanced."""

    def finished(self, task: _Task) -> None:
        """A task ended."""


class NullProgress(_CallbackProgress):
    """Shows nothing."""


@dataclass
class RecordingProgress(_CallbackProgress):
    """Records ``(description, completed, total, info)`` for every report (for tests)."""

    events: list[tuple[str, float, float | None, str]] = field(default_factory=list)

    def report(self, task: _Task, info: str) -> None:
        """Record the report."""
        done = int(task.completed) if float(task.completed).is_integer() else task.completed
        self.events.append((task.description, done, task.total, info))


class RichProgress(_CallbackProgress):
    """A rich progress bar on stderr (one line per task, removed when the task ends)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import (
            Progress as _RichProgress,
        )

        self._bar = _RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[info]}"),
            console=Console(stderr=True),
            transient=True,
        )
        self._ids: dict[int, Any] = {}
        self._open = 0

    def started(self, task: _Task) -> None:
        """Show a bar for the task."""
        if self._open == 0:
            self._bar.start()
        self._open += 1
        self._ids[id(task)] = self._bar.add_task(task.description, total=task.total, info="")

    def report(self, task: _Task, info: str) -> None:
        """Move the task's bar."""
        tid = self._ids.get(id(task))
        if tid is not None:
            self._bar.update(tid, completed=task.completed, total=task.total, info=info)

    def finished(self, task: _Task) -> None:
        """Remove the task's bar."""
        tid = self._ids.pop(id(task), None)
        if tid is not None:
            self._bar.remove_task(tid)
        self._open -= 1
        if self._open == 0:
            self._bar.stop()


def as_progress(progress: ProgressLike) -> Progress:
    """The :class:`Progress` for a ``progress`` argument (see the module docstring).

    Parameters
    ----------
    progress : Progress, bool or None
        ``None`` or ``False``: silent; ``True``: a rich bar on stderr when it is a terminal
        (else silent); a :class:`Progress`: used as is.

    Returns
    -------
    Progress

    Raises
    ------
    TypeError
        Anything else.

    Examples
    --------
    A long-running function turns its ``progress`` argument into a :class:`Progress` once and
    reports through it:

    >>> def measure(kernels, progress=None):
    ...     with as_progress(progress).task("measuring", total=len(kernels)) as task:
    ...         for k in kernels:
    ...             task.advance(info=k)
    >>> measure(["axpy", "dot"])  # silent
    >>> rec = RecordingProgress()
    >>> measure(["axpy", "dot"], progress=rec)
    >>> rec.events
    [('measuring', 1, 2, 'axpy'), ('measuring', 2, 2, 'dot')]
    >>> type(as_progress(None)).__name__, as_progress(rec) is rec
    ('NullProgress', True)
    """
    if progress is None or progress is False:
        return NullProgress()
    if progress is True:
        return RichProgress() if sys.stderr.isatty() else NullProgress()
    if isinstance(progress, Progress):
        return progress
    raise TypeError(f"progress must be True, False, None or a Progress, got {type(progress).__name__}")


__all__ = [
    "NullProgress",
    "Progress",
    "ProgressLike",
    "ProgressTask",
    "RecordingProgress",
    "RichProgress",
    "as_progress",
]
