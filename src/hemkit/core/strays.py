"""Runs far out of line with the other runs of their group: perhaps runs of another program.

``perf stat -o FILE`` does not record the measured program, so a folder of one build's runs
with one run of something else in it (``ls -lR`` recorded into the same folder) reads as one
more run.  Such a run moves every statistic a little and a comparison's verdict a lot (a
changed event read as unchanged), while nothing in the data is invalid.  :func:`stray_runs`
finds it: a run that is more than ``far`` times off the median on at least half of the
events on which the other runs agree tightly (``agree`` of them within ``tight`` of the
median), and outside that band on more than three quarters of them: another program differs
everywhere, while an odd run of the same program (a burst of context switches) differs on a
few events and matches on the rest.  Ordinary noise never qualifies: an event whose runs vary (cycles on a shared
machine, a workload run a varied number of times) is no evidence either way, and small
discrete counts (context switches, migrations: median below ``min_count``) are left out.
Readers warn with what it returns; nothing is refused or dropped.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hemkit.core.errors import HemkitWarning
from hemkit.core.numbers import format_count


@dataclass(frozen=True)
class Stray:
    """One run far out of line with its group.

    Attributes
    ----------
    row : int
        The run's row in the group's values.
    events : tuple of (event, value, median)
        The agreeing events on which it is far off: its value and the group's median.
    agreeing : int
        How many events of the group the other runs agree on (``len(events)`` of them were off).
    """

    row: int
    events: tuple[tuple[str, float, float], ...]
    agreeing: int

    def describe(self) -> str:
        """``page-faults 205 against a median of 3965 (19x fewer), ...``."""
        parts = []
        for event, value, median in self.events:
            if value > median:
                how = f"{value / median:.0f}x more"
            else:
                how = f"{median / value:.0f}x fewer" if value > 0 else "none"
            parts.append(f"{event} {format_count(value)} against a median of {median:.6g} ({how})")
        return ", ".join(parts)


def stray_runs(  # noqa: PLR0913 - the thresholds are the rule, each adjustable for tests
    values: np.ndarray,
    events: Sequence[str],
    *,
    far: float = 5.0,
    tight: float = 0.2,
    agree: float = 0.9,
    min_runs: int = 5,
    min_count: float = 10.0,
) -> list[Stray]:
    """The runs (rows of ``values``, runs x events) far out of line with the others, as :class:`Stray`.

    An event *agrees* where its median is at least ``min_count``, fewer than a quarter of the
    runs lie ``far`` times or more off it (one odd run, not two programs half and half), and
    at least ``agree`` of the other runs lie within ``tight`` of it.  A run is a stray where
    it lies ``far`` times or more off the median on at least half of the agreeing events, and
    outside ``tight`` of it on more than three quarters of them.
    Groups of fewer than ``min_runs`` runs have no stray: too few runs to say what agrees.

    Examples
    --------
    >>> v = np.array([[2012.0, 30], [2001, 31], [2030, 29], [1990, 30], [2020, 32], [205, 9]])
    >>> [(s.row, s.describe()) for s in stray_runs(v, ["page-faults", "task-clock"])]
    [(5, 'page-faults 205 against a median of 2006.5 (10x fewer)')]
    >>> v[5, 1] = 31  # in line on task-clock: an odd run of the same program, not another
    >>> stray_runs(v, ["page-faults", "task-clock"])
    []
    """
    x = np.asarray(values, dtype=np.float64)
    n = x.shape[0]
    if n < min_runs or x.ndim != 2:
        return []
    median = np.median(x, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        off = (x >= far * median) | (x <= median / far)
        close = np.abs(x - median) <= tight * median
    agreeing = []
    for j in range(x.shape[1]):
        m = median[j]
        if not np.isfinite(m) or m < min_count:
            continue
        n_off = int(off[:, j].sum())
        if 4 * n_off >= n:
            continue
        if close[~off[:, j], j].sum() >= agree * (n - n_off) and close[:, j].sum() >= agree * (n - 1):
            agreeing.append(j)
    if not agreeing:
        return []
    cols = np.array(agreeing)
    hits = off[:, cols]
    outside = ~close[:, cols]
    out = []
    for row in np.flatnonzero(hits.any(axis=1)):
        k = int(hits[row].sum())
        if 2 * k >= len(cols) and 4 * int(outside[row].sum()) > 3 * len(cols):
            found = tuple((str(events[j]), float(x[row, j]), float(median[j])) for j in cols[hits[row]])
            out.append(Stray(int(row), found, len(cols)))
    return out


def warn_strays(groups: Mapping[Hashable, Any], name: Callable[[Hashable, Hashable], str], fix: str) -> int:
    """Warn once per stray run of ``groups`` (``{gid: Group}``, see :func:`stray_runs`); how many were warned of.

    ``name(gid, run)`` names the run in the message (its file, for perf stat files); ``fix``
    ends the message after "it may be a run of another program": how to leave it out.

    Examples
    --------
    >>> import warnings
    >>> from hemkit.core.readings import Group
    >>> v = np.array([[2012.0, 30], [2001, 31], [2030, 29], [1990, 30], [2020, 32], [205, 9]])
    >>> g = Group(np.arange(6), ("page-faults", "task-clock"), v)
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_strays({1: g}, lambda gid, run: f"run {run}", "; leave it out")
    1
    >>> print(w[0].message)  # doctest: +ELLIPSIS
    run 5 is far out of line with the other 5 runs of group 1: page-faults 205 against ...; leave it out
    """
    told = 0
    for gid, group in groups.items():
        for stray in stray_runs(group.values, group.events):
            n = len(group.runs)
            agree = "the event" if stray.agreeing == 1 else f"{len(stray.events)} of the {stray.agreeing} events"
            warnings.warn(
                f"{name(gid, group.runs[stray.row])} is far out of line with the other {n - 1} runs of group "
                f"{gid!r}: {stray.describe()} ({agree} on which the other runs agree closely); it may be a run of "
                f"another program{fix}",
                HemkitWarning,
                stacklevel=3,
            )
            told += 1
    return told


__all__ = ["Stray", "stray_runs", "warn_strays"]
