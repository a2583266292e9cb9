"""Interval traces for the multiplexing area: reading, the paper's data cleaning, splits by workload.

Reading is :mod:`hemkit.io.traces`; splits keep the runs of one workload
together.

Data cleaning follows Wang, Wang & Lin (2022), section 2.2 and step 2 of section 3.4, with
one change: the paper drops runs whose total count is below ``0.2 x`` the *largest* run's
total (collections broken by a PMU overflow).  One wrapped-around count (2^47, see
:func:`hemkit.io.traces.handle_wraps`) makes the largest total absurd and every other run of
the workload "broken" (6 of 20 good runs were dropped on one set), so hemkit compares with
the **median** run instead, and only after wrap-arounds were repaired or dropped by the reader.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from hemkit.core.errors import Fix, HemkitWarning, InputError
from hemkit.core.rng import SeedLike, as_generator
from hemkit.io.traces import read_trace
from hemkit.mpx.emulate import MpxData

__all__ = ["clean_runs", "read_multiplexed", "split_workloads", "to_wide"]


def to_wide(trace: pd.DataFrame, run: str) -> pd.DataFrame:
    """One run of a trace as a matrix steps x events (counts per interval).

    Examples
    --------
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 0, 1, 1], "event": ["a", "b"] * 2, "value": [1., 2., 3., 4.]})
    >>> to_wide(tr, "r").to_numpy().tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    sub = trace[trace["run"] == str(run)]
    if sub.empty:
        raise InputError(f"run {run!r} is not in the trace")
    return sub.pivot_table(index="step", columns="event", values="value", aggfunc="sum", sort=False)


def clean_runs(
    trace: pd.DataFrame,
    *,
    drop_below: float = 0.2,
    tail_fraction: float = 0.02,
    tail_steps: int = 5,
    min_total: float = 100.0,
) -> pd.DataFrame:
    """The paper's data cleaning (section 2.2 and 3.4, step 2), against the median run.

    1. For every event, workload (and event set), drop the runs whose total count is below
       ``drop_below`` x the **median** run's total (broken collections); a warning names them.
       Events whose median total is below ``min_total`` (a few context switches, a rare
       system call) are not judged: their totals vary by chance, not because a collection broke.
    2. Cut the last ``tail_fraction`` of each run's steps and then ``tail_steps`` more (runs
       end at different times); a run left with no step is dropped, with a warning.

    Parameters
    ----------
    trace : DataFrame
        A tidy OCOE trace with ``run, step, event, value`` (and ``workload``, ``set``).
    drop_below : float, default 0.2
        In [0, 1): a run whose total of an event is below this share of the median run's
        total is dropped (all its events).
    tail_fraction : float, default 0.02
        In [0, 1): the share of each run's steps cut at its end (rounded up).
    tail_steps : int, default 5
        Steps cut after that, at least 0.
    min_total : float, default 100.0
        Events whose median run total is below this are not judged by ``drop_below``.

    Returns
    -------
    DataFrame
        The rows kept, with a fresh index.

    Raises
    ------
    InputError
        An empty trace, a parameter out of range, or no run left (its fix, ``clean=False``, is
        the callers' option that skips this cleaning).

    Examples
    --------
    >>> tr = pd.DataFrame({"run": ["a"] * 200, "step": range(200), "event": "e", "value": 1.0})
    >>> int(clean_runs(tr)["step"].max())   # 200 - 4 (2 %) - 5
    190
    """
    if trace.empty:
        raise InputError("the trace is empty")
    if not 0 <= drop_below < 1:
        raise InputError(f"drop_below must be in [0, 1), got {drop_below}")
    if not 0 <= tail_fraction < 1 or tail_steps < 0:
        raise InputError("tail_fraction must be in [0, 1) and tail_steps >= 0")
    keys = ["event"] + [c for c in ("workload", "set") if c in trace.columns]
    totals = trace.groupby(keys + ["run"], sort=False)["value"].sum().rename("total").reset_index()
    reference = totals.groupby(keys, sort=False)["total"].transform("median")
    judged = reference >= min_total
    broken = sorted(totals.loc[judged & (totals["total"] < drop_below * reference), "run"].unique())
    if broken:
        warnings.warn(
            f"dropped {len(broken)} run(s) whose total is below {drop_below:g} x the median run of their "
            f"workload (broken collections): {', '.join(map(str, broken[:5]))}{' ...' if len(broken) > 5 else ''}",
            HemkitWarning,
            stacklevel=2,
        )
    kept = trace[~trace["run"].isin(broken)]
    n_steps = kept.groupby("run")["step"].transform("max") + 1
    cut = np.ceil(n_steps * tail_fraction).astype(int) + tail_steps
    kept = kept[kept["step"] < n_steps - cut]
    short = sorted(set(trace["run"]) - set(broken) - set(kept["run"]))
    if short:
        warnings.warn(
            f"dropped {len(short)} run(s) too short to cut their tail: {', '.join(map(str, short[:5]))}",
            HemkitWarning,
            stacklevel=2,
        )
    if kept.empty:
        raise InputError(
            "no run is left after cleaning (runs too short to cut their tail, or all broken)",
            fix=Fix("clean", False),  # ScoreOptions(clean=False), FitOptions(clean=False)
        )
    return kept.reset_index(drop=True)


def split_workloads(
    workloads: Sequence[str], fractions: Sequence[float] = (0.7, 0.1, 0.2), *, seed: SeedLike = 0
) -> tuple[list[str], list[str], list[str]]:
    """Split workloads (never runs) into training, validation and test parts (the paper's 7:1:2).

    The workloads are shuffled with ``seed``; the validation part gets at least one workload
    and the test part at least one when their fractions are positive and there are enough
    workloads (training keeps at least one).  Every run of a workload is in one part.

    Parameters
    ----------
    workloads : sequence of str
        The workloads' names (repeats count once).
    fractions : sequence of three float, default (0.7, 0.1, 0.2)
        The parts' shares of the workloads (training, validation, test), non-negative, the
        first positive; they need not add up to 1.
    seed : int, Generator or None
        Seeds the shuffle.

    Returns
    -------
    train, val, test : list of str
        The workloads of each part, sorted.

    Raises
    ------
    InputError
        No workloads, or fractions not three non-negative numbers with a positive first.

    Examples
    --------
    >>> train, val, test = split_workloads([f"w{k}" for k in range(10)], seed=0)
    >>> len(train), len(val), len(test)
    (7, 1, 2)
    >>> split_workloads(["a", "b"], seed=0)[1:]   # two workloads: one trains, one validates
    (['a'], [])
    """
    names = list(dict.fromkeys(map(str, workloads)))
    if len(fractions) != 3 or any(f < 0 for f in fractions) or not sum(fractions) > 0:
        raise InputError(
            f"split fractions must be three non-negative numbers (train, validation, test), got {fractions}"
        )
    if fractions[0] <= 0:
        raise InputError("the training part of the split must be positive")
    if not names:
        raise InputError("no workloads to split")
    total = float(sum(fractions))
    n = len(names)
    n_val = round(n * fractions[1] / total)
    n_test = round(n * fractions[2] / total)
    if fractions[1] > 0:
        n_val = max(n_val, 1 if n >= 2 else 0)
    if fractions[2] > 0:
        n_test = max(n_test, 1 if n - n_val >= 2 else 0)
    while n_val + n_test > n - 1:
        if n_test > 0:
            n_test -= 1
        else:
            n_val -= 1
    order = [names[i] for i in as_generator(seed).permutation(n)]
    val = sorted(order[:n_val])
    test = sorted(order[n_val : n_val + n_test])
    train = sorted(order[n_val + n_test :])
    return train, val, test


def read_multiplexed(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    workload: str | None = None,
    pattern: str | None = None,
    wraps: str = "repair",
) -> MpxData:
    """Multiplexed series to estimate: ``hemkit mpx emulate`` output, or multiplexed ``perf stat -I`` files.

    A raw perf file's ``<not counted>`` intervals are the gaps; its percentages give the
    enabled and running times (see :meth:`hemkit.mpx.emulate.MpxData.from_tidy`).

    Parameters
    ----------
    source : path or sequence of paths
        Files, or folders of files (:func:`hemkit.io.traces.read_trace`).
    workload : str, optional
        Name every run's workload (when the files carry no ``workload`` column).
    pattern : str, optional
        Regular expression naming the workload from a file name (group ``workload`` or the
        first group); default :data:`hemkit.io.traces.DEFAULT_PATTERN`.
    wraps : {"repair", "drop", "error"}
        What to do with counts of 2^47 and more (counter wrap-arounds), as in
        :func:`hemkit.io.traces.read_trace`.

    Returns
    -------
    MpxData
        Without ``truth``.

    Raises
    ------
    InputError
        Anything wrong with the files or their counts and times, naming the file, run,
        event and interval.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "m_r1.csv")
    >>> _ = open(p, "w").write("0.01,4000,,instructions,2500000,25.00,,\\n0.01,<not counted>,,branches,0,0.00,,\\n")
    >>> read_multiplexed(p).raw.tolist()
    [[1000.0], [nan]]
    """
    table = read_trace(source, workload=workload, pattern=pattern, wraps=wraps, ocoe=False)
    where = str(source) if isinstance(source, str | os.PathLike) else ", ".join(map(str, source))
    return MpxData.from_tidy(table, source=where)
