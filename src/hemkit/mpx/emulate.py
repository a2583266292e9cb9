"""Exact software emulation of counter multiplexing (MPX) from OCOE interval traces.

Multiplexed counts are corrupt on the project's Zen 5 VMs and cannot be made at all on
machines without a PMU, so the multiplexed input is built in software from OCOE traces
(every event of a run read at once, exact per interval): the truth is then known exactly.
The scheduler is Linux's: ``C`` counters (``pmcs``) over ``E`` events, and every rotation
tick the list of flexible events is rotated left by ``shift`` (the kernel rotates by one
group, ``perf_rotate_context``; PAPI's software MPX moves on by a whole set, ``shift=C``).
With ``shift=1`` every event is on a counter ``C`` ticks out of every ``E``, a fraction
``C/E`` of the time (Wang et al. 2022, Eq. (1): ``Interval = E/C``).

The rotation tick is one trace interval (``period=1``) or ``period`` intervals: the traces
are 10 ms intervals while the kernel rotates every 4 ms, and a 10 ms trace cannot show what
happened inside an interval, so a slice here is a whole number of intervals (coarser than
the kernel, which makes the estimation harder, not easier).  The kernel rotates only while
the task runs, so an interval in which the program did not run at all (every event
``<not counted>`` with zero running time: it slept) does not advance the rotation.

**Time enabled and running.**  perf scales a multiplexed count by ``enabled / running``,
where ``enabled`` is the time the event was enabled -- for a program's events, the time the
program ran in the interval -- and ``running`` the part of it the event spent on a counter.
The OCOE trace's ``time_running`` is exactly the time the program ran in each interval, so
the emulation sets ``enabled`` to it (not to the interval length) and ``running`` to it
or 0.  An interval with ``enabled = 0`` is one where the program did not run: every count
is known to be 0 there (:attr:`MpxData.idle`).

An estimator sees only :class:`MpxData` without ``truth``: per interval, the count when the
event was on a counter (NaN otherwise), ``enabled`` and ``running`` nanoseconds, exactly
the deltas a multiplexed ``perf stat -I`` reader gets.  :meth:`MpxData.perf_values` gives
perf's own per-interval numbers (``raw x enabled / running``) and
:meth:`MpxData.perf_totals` perf's end-of-run estimate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import Fix, InputError
from hemkit.core.results import Result, result

MPX_COLUMNS = ["run", "step", "event", "raw", "enabled", "running"]
MAX_CELLS = 200_000_000
"""Largest series x intervals grid built (about 1.6 GB per array): larger inputs are refused."""


def _check_size(n_series: int, n_steps: int, where: str) -> None:
    if n_series * n_steps > MAX_CELLS:
        raise InputError(
            f"{where}: {n_series} series x {n_steps} intervals is too large to hold "
            f"(at most {MAX_CELLS:,} cells); split the input"
        )


@result
class MpxData(Result):
    """Multiplexed series, padded to a common length.

    Attributes
    ----------
    keys : DataFrame
        One row per series: ``run, event`` (and ``workload``, ``set``, ``trace_run``,
        ``pmcs``, ``offset`` when known).  The events of one ``run`` were counted together.
    raw : ndarray (S, T)
        Count in each interval while the event was on a counter; NaN when it was not,
        and after the end of the series.
    enabled, running : ndarray (S, T)
        Nanoseconds the event was enabled / on a counter in each interval (NaN after the end).
    length : ndarray (S,)
        Number of intervals of each series.
    truth : ndarray (S, T) or None
        The OCOE counts (emulation only; never used by estimators).

    Examples
    --------
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 0, 1, 1], "event": ["a", "b"] * 2, "value": [1., 2., 3., 4.]})
    >>> emulate(tr, pmcs=1).summary().loc["r"].tolist()
    [2.0, 2.0, 0.5, 0.0]
    """

    keys: pd.DataFrame
    raw: np.ndarray
    enabled: np.ndarray
    running: np.ndarray
    length: np.ndarray
    truth: np.ndarray | None = None

    @property
    def valid(self) -> np.ndarray:
        """Boolean (S, T): the interval exists (is before the end of its series)."""
        return np.arange(self.raw.shape[1])[None, :] < self.length[:, None]

    @property
    def observed(self) -> np.ndarray:
        """Boolean (S, T): the event was on a counter for some time in the interval."""
        return self.valid & (np.nan_to_num(self.running) > 0)

    @property
    def full(self) -> np.ndarray:
        """Boolean (S, T): the event was on a counter the whole interval (its count is exact)."""
        return self.observed & (self.running >= self.enabled)

    @property
    def idle(self) -> np.ndarray:
        """Boolean (S, T): the program did not run in the interval (``enabled = 0``): the count is 0."""
        return self.valid & (np.nan_to_num(self.enabled, nan=1.0) <= 0)

    @property
    def known(self) -> np.ndarray:
        """Boolean (S, T): the count is known exactly (fully on a counter, or idle)."""
        return self.full | self.idle

    def perf_values(self) -> np.ndarray:
        """Perf's per-interval numbers, ``raw x enabled / running`` (NaN = ``<not counted>``)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.observed, self.raw * self.enabled / self.running, np.nan)

    def perf_totals(self) -> np.ndarray:
        """Perf's (and PAPI's) estimate of each series' total: ``sum raw x sum enabled / sum running``."""
        ok = self.observed
        raw = np.where(ok, self.raw, 0.0).sum(axis=1)
        ena = np.where(self.valid, np.nan_to_num(self.enabled), 0.0).sum(axis=1)
        run = np.where(ok, self.running, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(run > 0, raw * ena / run, np.where(ena > 0, np.nan, 0.0))

    def without_truth(self) -> MpxData:
        """The same data without ``truth`` (what an estimator may see)."""
        return replace(self, truth=None)

    def select(self, rows: np.ndarray) -> MpxData:
        """The series ``rows`` (a boolean mask or indices), trimmed to their longest length."""
        idx = np.flatnonzero(rows) if np.asarray(rows).dtype == bool else np.asarray(rows, int)
        T = int(self.length[idx].max()) if len(idx) else 0
        return MpxData(
            self.keys.iloc[idx].reset_index(drop=True),
            self.raw[idx, :T],
            self.enabled[idx, :T],
            self.running[idx, :T],
            self.length[idx],
            None if self.truth is None else self.truth[idx, :T],
        )

    def counted_line(self) -> str:
        """How much of the time the program ran its events were on a counter, in words.

        The share is of the time the events were enabled (the program ran): an interval in
        which the program did not run (perf's ``<not counted>`` with no running time) counts 0
        and is no gap, so traces that were not multiplexed are on a counter all the time.

        Examples
        --------
        >>> tr = pd.DataFrame({"run": "r", "step": [0, 0, 1, 1], "event": ["a", "b"] * 2, "value": [1., 2., 3., 4.]})
        >>> emulate(tr, pmcs=1).counted_line()
        'on a counter 50% of the time'
        >>> d = emulate(tr, pmcs=2)
        >>> d.enabled[:, 1] = d.running[:, 1] = 0  # the program did not run in the second interval
        >>> d.counted_line()
        'on a counter all the time the program ran (50% of the intervals; in the rest it did not run and counts 0)'
        >>> long = pd.DataFrame({"run": "r", "step": np.repeat(np.arange(2000), 2), "event": ["a", "b"] * 2000,
        ...                      "value": 1.0})
        >>> d = emulate(long, pmcs=2)
        >>> d.enabled[:, 5] = d.running[:, 5] = 0  # one interval of 2000 without the program
        >>> d.counted_line()[:64]
        'on a counter all the time the program ran (over 99.9% of the int'
        """
        v = self.valid
        enabled = np.where(v, np.nan_to_num(self.enabled), 0.0).sum()
        running = np.where(self.observed, np.nan_to_num(self.running), 0.0).sum()
        ran = 1 - self.idle.sum() / max(v.sum(), 1)
        share = "all the time" if (self.known | ~v).all() else f"{running / max(enabled, 1e-300):.0%} of the time"
        if ran >= 1:
            return f"on a counter {share}"
        rest = "; in the rest it did not run and counts 0" if ran > 0 else ""
        # a share just below 1 rounds to "100%", which contradicts "in the rest": say "over 99.9%" then
        shown = f"{ran:.0%}" if f"{ran:.0%}" != "100%" else (f"{ran:.1%}" if ran < 0.9995 else "over 99.9%")
        return f"on a counter {share} the program ran ({shown} of the intervals{rest})"

    def summary(self) -> pd.DataFrame:
        """Per run: events, intervals, share of the time each event was on a counter, idle share."""
        v = self.valid
        with np.errstate(invalid="ignore", divide="ignore"):
            share = self.observed.sum(axis=1) / np.maximum(v.sum(axis=1), 1)
            idle = self.idle.sum(axis=1) / np.maximum(v.sum(axis=1), 1)
        frame = pd.DataFrame({"run": self.keys["run"].to_numpy(), "length": self.length, "share": share, "idle": idle})
        g = frame.groupby("run", sort=False)
        return pd.DataFrame(
            {
                "events": g.size(),
                "intervals": g["length"].max(),
                "on a counter": g["share"].mean().round(4),
                "idle": g["idle"].mean().round(4),
            }
        )

    def to_tidy(self) -> pd.DataFrame:
        """Long table ``run, step, event, raw, enabled, running`` (+ ``truth`` when known)."""
        v = self.valid
        s_idx, t_idx = np.nonzero(v)
        out = self.keys.iloc[s_idx].reset_index(drop=True).copy()
        out["step"] = t_idx
        out["raw"] = self.raw[v]
        out["enabled"] = self.enabled[v]
        out["running"] = self.running[v]
        if self.truth is not None:
            out["truth"] = self.truth[v]
        front = [c for c in ("workload", "set", "run", "step", "event") if c in out.columns]
        return out[front + [c for c in out.columns if c not in front]]

    @classmethod
    def from_tidy(cls, table: pd.DataFrame, source: str = "mpx table") -> MpxData:
        """Inverse of :meth:`to_tidy`; also reads a real multiplexed ``perf stat -I`` trace.

        A perf trace (columns ``value, time_running, percent`` of
        :func:`hemkit.io.traces.read_trace` with ``ocoe=False``) gives ``running`` =
        ``time_running``, ``enabled = running x 100 / percent`` and ``raw = value x percent / 100``
        (perf's value is already scaled).  An interval perf printed ``<not counted>`` with 100 %
        is one where the program did not run (``enabled = 0``); one with 0 % had no counter,
        and its ``enabled`` time is that of the run's other events in the same interval.

        Raises
        ------
        InputError
            Missing columns, negative or infinite times or counts, ``running > enabled``, a
            count where ``enabled = 0``, a count without running time, a grid too large.
        """
        table = table.copy()
        if "raw" not in table.columns and {"value", "time_running", "percent"} <= set(table.columns):
            table = _from_perf(table)
        missing = [c for c in MPX_COLUMNS if c not in table.columns]
        if missing:
            raise InputError(f"{source}: missing column(s) {', '.join(missing)}")
        if table.empty:
            raise InputError(f"{source}: no rows")
        table["run"] = table["run"].astype(str)
        table["event"] = table["event"].astype(str)
        _check_mpx_rows(table, source)
        extra = [c for c in ("workload", "set", "trace_run", "pmcs", "offset") if c in table.columns]
        keys = table[extra + ["run", "event"]].drop_duplicates(["run", "event"]).reset_index(drop=True)
        S = len(keys)
        sid = pd.MultiIndex.from_frame(keys[["run", "event"]]).get_indexer(
            pd.MultiIndex.from_frame(table[["run", "event"]])
        )
        step = table["step"].to_numpy(np.int64)
        T = int(step.max()) + 1
        _check_size(S, T, source)
        length = np.zeros(S, int)
        np.maximum.at(length, sid, step + 1)

        def grid(col: str) -> np.ndarray:
            g = np.full((S, T), np.nan)
            g[sid, step] = table[col].to_numpy(float)
            return g

        truth = grid("truth") if "truth" in table.columns else None
        raw, ena, run = grid("raw"), grid("enabled"), grid("running")
        valid = np.arange(T)[None] < length[:, None]
        run = np.where(np.isnan(run) & valid, 0.0, run)
        raw = np.where(valid & (run <= 0), np.nan, raw)
        ena = _fill_enabled(keys, ena, valid)
        return cls(keys, raw, ena, run, length, truth)


def _from_perf(table: pd.DataFrame) -> pd.DataFrame:
    pct = table["percent"].to_numpy(float)
    run = np.nan_to_num(table["time_running"].to_numpy(float))
    value = table["value"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ena = np.where(pct > 0, run * 100.0 / np.where(pct > 0, pct, 1.0), np.nan)
    idle = np.isnan(value) & (run <= 0) & (pct >= 99.5)
    ena = np.where(idle, 0.0, ena)
    table["enabled"] = ena
    table["running"] = run
    table["raw"] = np.where(run > 0, value * pct / 100.0, np.nan)
    return table


def _check_mpx_rows(table: pd.DataFrame, source: str) -> None:
    raw = table["raw"].to_numpy(float)
    ena = table["enabled"].to_numpy(float)
    run = table["running"].to_numpy(float)

    def fail(mask: np.ndarray, what: str) -> None:
        if mask.any():
            row = table.iloc[int(np.argmax(mask))]
            raise InputError(f"{source}: run {row['run']!r}: event {row['event']!r} at step {row['step']}: {what}")

    fail(np.isinf(raw) | (raw < 0), "the count is negative or infinite")
    fail(np.isinf(ena) | (ena < 0) | np.isinf(run) | (run < 0), "a negative or infinite enabled/running time")
    fail(run > np.nan_to_num(ena, nan=np.inf) * (1 + 1e-6) + 1, "running time exceeds enabled time")
    fail((np.nan_to_num(ena, nan=1) == 0) & (np.nan_to_num(raw) > 0), "a count while enabled = 0 (the event was off)")
    fail((run > 0) & np.isnan(raw), "running time but no count")
    if "truth" in table.columns:
        tr = table["truth"].to_numpy(float)
        fail(np.isnan(tr) | np.isinf(tr) | (tr < 0), "the true count is missing, negative or infinite")


def _fill_enabled(keys: pd.DataFrame, ena: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Unknown enabled time (``<not counted>`` at 0 %): that of the run's other events in the interval."""
    missing = valid & np.isnan(ena)
    if not missing.any():
        return ena
    run_code = pd.factorize(keys["run"])[0]
    out = ena.copy()
    for r in np.unique(run_code[missing.any(axis=1)]):
        rows = run_code == r
        with np.errstate(all="ignore"):
            per_step = np.nanmax(np.where(valid[rows], ena[rows], np.nan), axis=0)
        med = (
            np.nanmedian(ena[rows][valid[rows] & ~np.isnan(ena[rows]) & (ena[rows] > 0)])
            if (ena[rows] > 0).any()
            else 1e7
        )
        per_step = np.where(np.isnan(per_step), med, per_step)
        out[rows] = np.where(missing[rows], per_step[None, :], ena[rows])
    return out


def schedule(n_steps: int, n_events: int, pmcs: int, *, period: int = 1, shift: int = 1, offset: int = 0) -> np.ndarray:
    """Round-robin schedule: boolean (n_steps, n_events), True where the event is on a counter.

    At tick ``r = step // period`` the events in list positions ``(r*shift + offset + j) mod E``
    for ``j < C`` hold the counters.  With ``pmcs >= n_events`` everything is always on.

    Parameters
    ----------
    n_steps : int
        Trace intervals.
    n_events : int
        Events in the rotation list (E).
    pmcs : int
        Counters (C), at least 1.
    period : int, default 1
        Trace intervals per rotation tick, at least 1.
    shift : int, default 1
        List positions the rotation moves per tick (1 = Linux, C = PAPI-style sets), at least 1.
    offset : int, default 0
        Starting position of the rotation, at least 0.

    Returns
    -------
    numpy.ndarray of bool
        Shape ``(n_steps, n_events)``.

    Raises
    ------
    InputError
        ``pmcs``, ``period``, ``shift`` or ``offset`` not an integer or below its least value, or a
        ``shift`` that never brings some events to a counter (``gcd(shift, E) > C``).

    Examples
    --------
    >>> schedule(5, 5, 2).astype(int)
    array([[1, 1, 0, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 0, 1, 1, 0],
           [0, 0, 0, 1, 1],
           [1, 0, 0, 0, 1]])
    """
    _check_rotation(pmcs, period, shift, offset)
    if pmcs >= n_events:
        return np.ones((n_steps, n_events), bool)
    _check_reach(n_events, pmcs, shift)
    tick = np.arange(n_steps) // period
    pos = (np.arange(n_events)[None, :] - tick[:, None] * shift - offset) % n_events
    return pos < pmcs


def _check_reach(n_events: int, pmcs: int, shift: int, where: str = "") -> None:
    """Refuse a rotation that never brings some of ``n_events`` events to one of ``pmcs`` counters.

    The list moves by multiples of ``g = gcd(shift, E)``, so only positions ``< C`` of each ``g``
    are ever reached: with ``g > C`` some events would have no slice at all, nothing to estimate from.

    >>> _check_reach(6, 2, 2)   # positions 0,1 then 2,3 then 4,5
    >>> _check_reach(5, 2, 5)
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: shift 5 on 5 events with 2 counters never puts 3 of them on a counter ...
    """
    g = math.gcd(shift, n_events)
    if pmcs < n_events and g > pmcs:
        never = n_events - n_events // g * pmcs
        raise InputError(
            f"{where}shift {shift} on {n_events} events with {pmcs} counters never puts {never} "
            f"of them on a counter (every tick moves the list by a multiple of {g}): give a --shift whose greatest "
            "common divisor with the number of events is at most --pmcs, such as 1"
        )


def _check_rotation(pmcs: int, period: int, shift: int, offset: int) -> None:
    for name, value, low in (("pmcs", pmcs, 1), ("period", period, 1), ("shift", shift, 1), ("offset", offset, 0)):
        check_scalar(value, name, min_val=low)


@dataclass(frozen=True)
class Rotation:
    """How the kernel rotates the events over the counters (see the module docstring).

    Attributes
    ----------
    period : int
        Trace intervals per rotation tick.
    shift : int
        List positions the rotation moves per tick (1 = Linux, C = PAPI-style sets).
    offset : int
        Starting position of the rotation (different offsets give different views of the
        same run; used to augment training data).

    Examples
    --------
    Which of 4 events is on one of 2 counters in each of 6 intervals: Linux moves the list
    by one event every interval (the default), PAPI-style sets switch as a whole:

    >>> from hemkit.mpx import synthetic_trace
    >>> from hemkit.mpx.emulate import emulate
    >>> trace = synthetic_trace(runs=1, steps=6, events=4, seed=0)
    >>> emulate(trace, pmcs=2).observed.astype(int)
    array([[1, 0, 0, 1, 1, 0],
           [1, 1, 0, 0, 1, 1],
           [0, 1, 1, 0, 0, 1],
           [0, 0, 1, 1, 0, 0]])
    >>> emulate(trace, pmcs=2, rotation=Rotation(period=2, shift=2)).observed.astype(int)
    array([[1, 1, 0, 0, 1, 1],
           [1, 1, 0, 0, 1, 1],
           [0, 0, 1, 1, 0, 0],
           [0, 0, 1, 1, 0, 0]])
    """

    period: int = 1
    shift: int = 1
    offset: int = 0


def check_multiplexed(trace: pd.DataFrame, pmcs: Iterable[int], what: str = "score") -> None:
    """Refuse counter counts on which no run of ``trace`` is multiplexed (its events all counted at once).

    Every event of such an emulation is on a counter all the time, so its estimates are exact
    whatever the estimator: scored or trained on, it only dilutes the counter counts that do
    multiplex.

    Raises
    ------
    InputError
        A counter count at least the events of the run with the most (the fix: one fewer).

    Examples
    --------
    >>> from hemkit.mpx.synthetic import synthetic_trace
    >>> check_multiplexed(synthetic_trace(runs=1, steps=10), [2, 9])
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: on 9 counters every run counts all its events (at most 5) at once: ...; pass pmcs=4
    """
    if "run" not in trace.columns or "event" not in trace.columns or trace.empty:
        return
    most = int(trace.groupby("run", sort=False)["event"].nunique().max())
    above = sorted({int(c) for c in pmcs if int(c) >= most})
    if not above:
        return
    shown = ", ".join(map(str, above))
    if most < 2:
        raise InputError(f"every run of the trace counts one event: nothing is multiplexed, nothing to {what}")
    raise InputError(
        f"on {shown} counters every run counts all its events (at most {most}) at once: nothing is multiplexed, "
        f"nothing to {what}",
        fix=Fix("pmcs", most - 1),
    )


def emulate(
    trace: pd.DataFrame, pmcs: int, *, rotation: Rotation = Rotation(), interval_ns: float | None = None
) -> MpxData:
    """Emulate multiplexing of each run's events on ``pmcs`` counters.

    Parameters
    ----------
    trace : DataFrame
        OCOE trace (:func:`hemkit.io.traces.read_trace`): the events of one run were read
        together, so every run is multiplexed on its own (E = its events).
    pmcs : int
        Counters available (C); each event is then on ``C/E`` of the time.
    rotation : Rotation
        Rotation period, shift and starting offset.
    interval_ns : float, optional
        Interval length used where the trace has no ``time_running``; by default from the
        trace's timestamps (median step of ``t``), or 1e7 (10 ms).

    Returns
    -------
    MpxData
        With ``truth`` set to the OCOE counts.

    Examples
    --------
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 0, 1, 1], "event": ["a", "b"] * 2, "value": [1., 2., 3., 4.]})
    >>> emulate(tr, pmcs=1).raw
    array([[ 1., nan],
           [nan,  4.]])
    """
    _check_rotation(pmcs, rotation.period, rotation.shift, rotation.offset)
    need = [c for c in ("run", "step", "event", "value") if c not in trace.columns]
    if need:
        raise InputError(f"trace: missing column(s) {', '.join(need)}")
    if trace.empty:
        raise InputError("trace: no rows")
    if trace["value"].isna().any():
        bad = trace[trace["value"].isna()].iloc[0]
        raise InputError(
            f"trace: run {bad['run']} event {bad['event']} has a missing count at step {bad['step']}"
            " (not an OCOE trace?)"
        )
    tr = trace.copy()
    tr["run"] = tr["run"].astype(str)
    if interval_ns is None:
        interval_ns = 1e7
        if "t" in tr.columns:
            dt = tr.drop_duplicates(["run", "step"]).sort_values(["run", "step"]).groupby("run")["t"].diff()
            if dt.notna().any() and np.nanmedian(dt) > 0:
                interval_ns = float(np.nanmedian(dt)) * 1e9
    extra = [c for c in ("workload", "set") if c in tr.columns]
    keys = tr[extra + ["run", "event"]].drop_duplicates(["run", "event"]).reset_index(drop=True)
    # position of each event inside its run's list (order of first appearance = perf's -e order)
    keys["pos"] = keys.groupby("run", sort=False).cumcount()
    n_ev = keys.groupby("run", sort=False)["event"].transform("size").to_numpy()
    for run, n in keys.assign(n=n_ev).drop_duplicates("n")[["run", "n"]].itertuples(index=False):
        _check_reach(int(n), pmcs, rotation.shift, f"run {run!r}: ")
    S = len(keys)
    sid = pd.MultiIndex.from_frame(keys[["run", "event"]]).get_indexer(pd.MultiIndex.from_frame(tr[["run", "event"]]))
    step = tr["step"].to_numpy(int)
    T = int(step.max()) + 1
    _check_size(S, T, "trace")
    truth = np.full((S, T), np.nan)
    truth[sid, step] = tr["value"].to_numpy(float)
    length = np.zeros(S, int)
    np.maximum.at(length, sid, step + 1)
    valid = np.arange(T)[None, :] < length[:, None]
    enabled = np.where(valid, interval_ns, np.nan)
    if "time_running" in tr.columns and tr["time_running"].notna().all():
        ran = np.full((S, T), np.nan)
        ran[sid, step] = tr["time_running"].to_numpy(float)
        # a count without running time (a hand-made trace) keeps the interval length
        enabled = np.where(valid, np.where((ran > 0) | (truth == 0), ran, interval_ns), np.nan)
    # the rotation advances only in intervals where the program ran (any of its events enabled)
    run_code = pd.factorize(keys["run"])[0]
    active = np.zeros((run_code.max() + 1, T), bool)
    np.logical_or.at(active, run_code, np.nan_to_num(enabled) > 0)
    ticks = (np.cumsum(active, axis=1) - 1).clip(min=0)[run_code]
    tick = ticks // rotation.period
    pos = (keys["pos"].to_numpy()[:, None] - tick * rotation.shift - rotation.offset) % n_ev[:, None]
    on = ((pos < pmcs) | (pmcs >= n_ev)[:, None]) & valid & (np.nan_to_num(enabled) > 0)
    running = np.where(on, enabled, np.where(valid, 0.0, np.nan))
    raw = np.where(on, truth, np.nan)
    return MpxData(keys.drop(columns="pos"), raw, enabled, running, length, truth)


def concat(parts: list[MpxData]) -> MpxData:
    """Stack several :class:`MpxData` (e.g. emulations at several counters and offsets), padding with NaN."""
    if not parts:
        raise InputError("nothing to concatenate")
    T = max(p.raw.shape[1] for p in parts)

    def pad(a: np.ndarray) -> np.ndarray:
        return np.pad(a, ((0, 0), (0, T - a.shape[1])), constant_values=np.nan)

    truths = [p.truth for p in parts]
    truth = None if any(t is None for t in truths) else np.concatenate([pad(t) for t in truths if t is not None])
    keys = pd.concat([p.keys for p in parts], ignore_index=True)
    dup = keys.duplicated(["run", "event"])
    if dup.any():
        row = keys[dup].iloc[0]
        raise InputError(f"run {row['run']!r} event {row['event']!r} is in two of the parts; give runs unique ids")
    return MpxData(
        keys,
        np.concatenate([pad(p.raw) for p in parts]),
        np.concatenate([pad(p.enabled) for p in parts]),
        np.concatenate([pad(p.running) for p in parts]),
        np.concatenate([p.length for p in parts]),
        truth,
    )


def emulate_many(trace: pd.DataFrame, pmcs: Iterable[int], offsets: Iterable[int], *, period: int = 1) -> MpxData:
    """Emulations of ``trace`` at every counter count and rotation offset, stacked (training data).

    Every emulation is a different view of the same runs, so each gets its own run ids
    (``RUN@C<pmcs>o<offset>``; the trace's run id stays in ``trace_run``): the events counted
    together are then exactly those of one view.

    Parameters
    ----------
    trace : DataFrame
        OCOE trace (:func:`hemkit.io.traces.read_trace`), as for :func:`emulate`.
    pmcs : iterable of int
        The counter counts (C) to emulate.
    offsets : sequence of int
        The rotation's starting offsets, each emulated at every counter count (it is read once
        per counter count: give a list, not a one-shot iterator).
    period : int, default 1
        Trace intervals per rotation tick (the shift is 1, as Linux's).

    Returns
    -------
    MpxData
        All the emulations, with ``truth``; ``keys`` has ``trace_run``, ``pmcs`` and ``offset``.

    Raises
    ------
    InputError
        A trace :func:`emulate` refuses, a counter count, offset or period out of range, or no
        counter count or offset at all.

    Examples
    --------
    >>> from hemkit.mpx.synthetic import synthetic_trace
    >>> m = emulate_many(synthetic_trace(runs=1, steps=10, events=3), [2], [0, 1])
    >>> sorted(m.keys["run"].unique())
    ['synthetic/s0/r0@C2o0', 'synthetic/s0/r0@C2o1']
    """
    parts = []
    for c in pmcs:
        for o in offsets:
            m = emulate(trace, c, rotation=Rotation(period=period, offset=o))
            keys = m.keys.copy()
            keys["trace_run"] = keys["run"]
            keys["run"] = keys["run"] + f"@C{c}o{o}"
            keys["pmcs"] = c
            keys["offset"] = o
            parts.append(replace(m, keys=keys))
    return concat(parts)


__all__ = ["MPX_COLUMNS", "MpxData", "Rotation", "check_multiplexed", "concat", "emulate", "emulate_many", "schedule"]
