"""The search budget of a plan: how long and how hard to look, and the progress line.

:class:`SearchOptions` holds the time budget, the effort (step budgets) and the seconds of
the exact program; :class:`Clock` keeps the deadline and reports ``N groups (bound B)``
through the progress protocol of :mod:`hemkit.core.progress` (the seconds of the budget
are the bar's total).

Examples
--------
>>> from hemkit.core.progress import RecordingProgress, as_progress
>>> rec = RecordingProgress()
>>> with as_progress(rec).task("plan", total=10) as task:
...     Clock(10.0, task, lb=8).report(12, "greedy")
>>> rec.events[-1][3]
'12 groups (bound 8); greedy'
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from hemkit.core.checks import check_scalar
from hemkit.core.progress import ProgressTask


@dataclass(frozen=True)
class SearchOptions:
    """How hard to look for a small MUCH design (and a tight HRM packing).

    Parameters
    ----------
    time_budget : float or None
        Seconds for the whole planning (constructions, search, exact program); None: no
        limit but the step budget.  The search stops early at the lower bound.
    effort : float
        Scales the step budget (at 1: ``100 v k`` tabu steps without a smaller design, between
        2000 and 20000, for ``v`` events in groups of ``k``; 0: constructions and greedy
        only, no search).
    exact_time : float
        Seconds for the exact integer program on small instances (at most 1500 candidate
        groups) when the search ends above the lower bound; 0 turns it off.

    Examples
    --------
    >>> SearchOptions(time_budget=30).effort
    1.0
    """

    time_budget: float | None = 10.0
    effort: float = 1.0
    exact_time: float = 3.0

    def __post_init__(self) -> None:
        for name in ("time_budget", "effort", "exact_time"):
            value = getattr(self, name)
            check_scalar(value, name, "real", min_val=0, allow_none=name == "time_budget")


class Clock:
    """The time budget and the progress line ``N groups (bound B)``.

    Parameters
    ----------
    budget : float or None
        Seconds from now until the deadline (None: no deadline).
    task : ProgressTask
        Where to report (``task.update(completed=seconds, info=...)``).
    lb : int
        The lower bound shown beside the best size so far.
    """

    def __init__(self, budget: float | None, task: ProgressTask, lb: int):
        self.t0 = time.monotonic()
        self.deadline = None if budget is None else self.t0 + budget
        self.task, self.lb = task, lb
        self.best: int | None = None

    def elapsed(self) -> float:
        """Seconds since the clock started."""
        return time.monotonic() - self.t0

    def over(self) -> bool:
        """Whether the deadline has passed."""
        return self.deadline is not None and time.monotonic() > self.deadline

    def remaining(self) -> float:
        """Seconds left (``inf`` without a deadline)."""
        return math.inf if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def report(self, size: int | None = None, what: str = "") -> None:
        """Show the best size so far (``size`` if smaller) and what is being done."""
        if size is not None and (self.best is None or size < self.best):
            self.best = size
        info = f"{self.best} groups (bound {self.lb})" if self.best is not None else f"bound {self.lb}"
        self.task.update(completed=round(self.elapsed(), 1), info=f"{info}{'; ' + what if what else ''}")


__all__ = ["Clock", "SearchOptions"]
