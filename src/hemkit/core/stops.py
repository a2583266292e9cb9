"""Ctrl-C and SIGTERM during a series of runs: the first stops after the current run, the second at once.

One policy for every command that measures a program several times (``hemkit collect``,
``hemkit mpx trace``): the runs already finished are kept, so the first Ctrl-C (or SIGTERM)
only asks to stop, and the loop ends after the run in progress (the measured program runs in
its own session, so the signal does not cut it short).  A second one raises
:class:`KeyboardInterrupt` at once, held back while a finished run is being stored
(:meth:`StopRequests.storing`), so a run is either stored whole or not at all; once the loop
has stopped (:meth:`StopRequests.wind_up`) no signal raises while it says what was kept.

Examples
--------
>>> with StopRequests() as stops:
...     for run in range(3):
...         if stops.requested:
...             break
...         with stops.storing():
...             pass  # write the run
>>> stops.requested
False
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any


class StopRequests:
    """Ctrl-C / SIGTERM while in the block: the first is a request (``requested``), the second stops at once.

    The handlers are set in the main thread only (elsewhere the block changes nothing), and the
    old ones are put back on leaving.  On a terminal the first signal says what happens next.

    Attributes
    ----------
    count : int
        Signals received so far.
    signum : int
        The last signal received (SIGINT before any).

    Examples
    --------
    >>> import os
    >>> with StopRequests() as stops:
    ...     os.kill(os.getpid(), signal.SIGINT)  # the first: a request, nothing raised
    ...     stops.requested, stops.signum == signal.SIGINT
    (True, True)
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, message: str = "stopping after the current run") -> None:
        self.count = 0
        self.signum: int = signal.SIGINT
        self.message = message
        self._storing = False
        self._pending = False
        self._winding_up = False
        self._old: dict[int, Any] = {}

    def __enter__(self) -> StopRequests:
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                self._old[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for s, old in self._old.items():
            signal.signal(s, old)
        self._old.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        self.signum = signum
        if self.count == 1:
            if sys.stderr is not None and sys.stderr.isatty():
                sys.stderr.write(f"\nhemkit: {self.message} (press Ctrl-C again to stop at once)\n")
            return
        if self._winding_up:  # stopping already: what is left is saying what was done
            return
        if self._storing:
            self._pending = True
            return
        raise KeyboardInterrupt

    @property
    def requested(self) -> bool:
        """Whether a stop was asked for."""
        return self.count > 0

    def wind_up(self) -> None:
        """The loop has stopped: from now on in the block a signal raises nothing (it is counted).

        Call it before saying what was done (reading back what was stored), so that a Ctrl-C
        pressed again meanwhile does not replace that with a bare interruption.
        """
        self._winding_up = True

    @contextlib.contextmanager
    def storing(self) -> Iterator[None]:
        """A run being written is finished before a second signal stops everything."""
        self._storing = True
        try:
            yield
        finally:
            self._storing = False
            if self._pending:
                self._pending = False
                raise KeyboardInterrupt


__all__ = ["StopRequests"]
