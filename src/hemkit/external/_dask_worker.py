"""Worker plugins of :mod:`hemkit.external.cluster` (imported only where Dask distributed is installed)."""

from __future__ import annotations

import signal
import threading
from typing import Any

from distributed import WorkerPlugin


def _ignore(signum: int, frame: Any) -> None:
    """Ctrl-C at the terminal reaches a local worker too: the client decides what stops."""


class LeaveCtrlCToTheClient(WorkerPlugin):
    """Local workers share the terminal's process group: a Ctrl-C there must stop the client, not them.

    The client then cancels the tasks and closes the local cluster.  A handler that does
    nothing (not ``SIG_IGN``) is reset to the default for the programs the worker starts.
    """

    name = "hemkit-leave-ctrl-c-to-the-client"

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, _ignore)
