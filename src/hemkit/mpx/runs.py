"""What the other runs of a workload say about the start of a run: its events' counts before they were counted.

perf puts the first events of ``-e`` on the counters and rotates the list from there, so an
event listed later is off its counter for the first interval(s) of the run: its *unseen
start*.  That is where a program execs, loads its libraries and reads its input, and where
many software events come in a burst (page faults, ``mmap``, ``openat``, allocations) that
the run's own slices after it cannot tell: every interpolation extends the first slice it
counted back over the start, and perf's scaling spreads the run's mean over it.

Runs of one program begin alike, while their timelines drift apart later on.  So where the
other runs of the workload *counted* the event in those first intervals (runs listed from a
different event each, as ``hemkit mpx trace`` records them by default), their median count
in each interval (per nanosecond on a counter, times this run's enabled time) is the better
estimate there.
Runs listed alike leave nothing to fill: they all miss the same start.

Chosen on 6 sets of software-event traces (``sw``, ``fresh``, ``fresh3``, ``fresh7``, ``fresh11``,
``fresh13``, each run listed from a different event): filling only the start was as good in totals as
filling every gap slot before 3 or 6, better in the series, and far better than filling every gap (the
timelines drift apart by more than a slice later on).
Checked on 8 sets that choice never saw (``fresh2``, ``fresh4``, ... ``fresh14``, ``fresh15``; ``mpx_orders.py``,
BENCHMARKS.md): a run's own total came to 0.65 / 0.65x perf's scaling's median error at 2 / 3 counters
(0.81 / 0.75x before, on the 7 of them measured then), pooled totals 0.50 / 0.52x (0.60 / 0.58x).
Listed alike, 5 of 70 cells moved, by at most 0.001 in median error: idle intervals at a start
shift one run's rotation against another's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from hemkit.mpx.emulate import MpxData


def unseen_start(mpx: MpxData) -> np.ndarray:
    """Boolean (S, T): the intervals of each series before the first one its event was on a counter.

    Examples
    --------
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 0, 1, 1, 2, 2], "event": ["a", "b"] * 3, "value": 1.0})
    >>> unseen_start(emulate(tr, pmcs=1)).astype(int).tolist()   # b is listed second: off at step 0
    [[0, 0, 0], [1, 0, 0]]
    """
    obs = mpx.observed
    seen_before = np.cumsum(obs, axis=1) > 0
    return mpx.valid & ~seen_before & np.any(obs, axis=1, keepdims=True)


def other_runs(keys: pd.DataFrame, apart: tuple[str, ...] = ()) -> list[tuple[np.ndarray, np.ndarray]]:
    """The series of one workload's event in several runs: ``(rows, other)`` per group of two or more.

    ``rows`` are the group's row numbers in ``keys``; ``other[a, b]``: row ``b`` is another run
    than row ``a``.  Views of one recorded run (``trace_run``, as ``emulate_many`` makes them:
    the same run at several offsets) are one run; columns of ``apart`` (e.g. ``pmcs``) split the
    groups further.  No ``workload`` column: no groups.

    Examples
    --------
    >>> keys = pd.DataFrame({"workload": "w", "run": ["r1", "r1", "r2", "r2"], "event": ["a", "b", "a", "b"]})
    >>> [(rows.tolist(), other.astype(int).tolist()) for rows, other in other_runs(keys)]
    [([0, 2], [[0, 1], [1, 0]]), ([1, 3], [[0, 1], [1, 0]])]
    """
    if "workload" not in keys.columns or not len(keys):
        return []
    by = [keys["workload"].to_numpy(), keys["event"].to_numpy(), *(keys[c].to_numpy() for c in apart if c in keys)]
    same = keys["trace_run" if "trace_run" in keys.columns else "run"].astype(str).to_numpy()
    groups = pd.Series(np.arange(len(keys))).groupby(by).indices.values()
    return [(idx, same[idx][:, None] != same[idx][None, :]) for idx in groups if len(idx) > 1]


def start_from_runs(mpx: MpxData) -> np.ndarray:
    """The other runs' median count in each interval of a series' unseen start, (S, T); NaN elsewhere.

    Runs are the same program when they share ``workload`` (no ``workload`` column: no
    fill; views of one recorded run, ``trace_run``, are one run).  In interval ``t`` of
    series ``i``'s unseen start, each other series of the same workload and event that was on
    a counter at ``t`` gives its rate (``raw / running``, per nanosecond on a counter); their
    median times series ``i``'s enabled time is the fill.

    Examples
    --------
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"workload": "w", "run": ["r1"] * 6 + ["r2"] * 6, "step": [0, 0, 1, 1, 2, 2] * 2,
    ...                    "event": ["a", "b"] * 3 + ["b", "a"] * 3,
    ...                    "value": [9., 50., 1., 2., 1., 2.] + [52., 8., 2., 1., 2., 1.]})
    >>> m = emulate(tr, pmcs=1)      # r1 lists a first, r2 lists b first: each counted at step 0 what the other missed
    >>> fill = start_from_runs(m)
    >>> m.keys.assign(step0=fill[:, 0])[["run", "event", "step0"]].values.tolist()
    [['r1', 'a', nan], ['r1', 'b', 52.0], ['r2', 'b', nan], ['r2', 'a', 9.0]]
    """
    S, T = mpx.raw.shape
    out = np.full((S, T), np.nan)
    if "workload" not in mpx.keys.columns or not S:
        return out
    start = unseen_start(mpx)
    if not start.any():
        return out
    obs = mpx.observed
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(obs, mpx.raw / mpx.running, np.nan)
    for idx, other in other_runs(mpx.keys):
        if not start[idx].any():
            continue
        r = rate[idx]
        for k, i in enumerate(idx):
            steps = np.flatnonzero(start[i])
            others = r[other[k]][:, steps]
            if not np.isfinite(others).any():
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an interval no other run counted: NaN
                med = np.nanmedian(others, axis=0)
            out[i, steps] = med * mpx.enabled[i, steps]
    return out


__all__ = ["other_runs", "start_from_runs", "unseen_start"]
