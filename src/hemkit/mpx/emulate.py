"""Exact software emulation of counter multiplexing (MPX) from OCOE interval traces.

Multiplexed counts are corrupt on the project's Zen 5 VMs and cannot be made at all on
machines without a PMU, so the multiplexed input is built in software from OCOE traces
(every event of a set read at once, exact per interval).  The truth is then known
exactly.  The scheduler is Linux's: ``C`` counters over ``E`` events, and every rotation
tick the list of flexible events is rotated left by ``shift`` (the kernel rotates by one
group, ``perf_rotate_context``; PAPI's software MPX moves on by a whole set, ``shift=C``).
With ``shift=1`` every event is on a counter ``C`` ticks out of every ``E``, i.e. a
fraction ``C/E`` of the time (Wang et al. 2022, Eq. (1): ``Interval = E/C``).

The rotation tick is one trace interval (``period=1``) or ``period`` intervals: the traces
are 10 ms intervals while the kernel rotates every 4 ms, and a 10 ms trace cannot show what
happened inside an interval, so a slice here is a whole number of intervals.  This is
coarser than the kernel, which makes the estimation problem harder, not easier.

An estimator sees only :class:`MpxData` without ``truth``: per interval, the count when the
event was on a counter (NaN otherwise), ``enabled`` and ``running`` nanoseconds, exactly
the deltas a multiplexed ``perf stat -I`` reader gets.  :meth:`MpxData.perf_values` gives
perf's own per-interval numbers (``raw x enabled / running``) and
:meth:`MpxData.perf_totals` perf's end-of-run estimate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError

MPX_COLUMNS = ["run", "step", "event", "raw", "enabled", "running"]


@dataclass(frozen=True)
class MpxData:
    """Multiplexed series, padded to a common length.

    Attributes
    ----------
    keys : DataFrame
        One row per series: ``run, event`` (and ``workload``, ``set`` when known).
    raw : ndarray (S, T)
        Count in each interval while the event was on a counter; NaN when it was not,
        and after the end of the series.
    enabled, running : ndarray (S, T)
        Nanoseconds the event was enabled / on a counter in each interval (NaN after the end).
    length : ndarray (S,)
        Number of intervals of each series.
    truth : ndarray (S, T) or None
        The OCOE counts (emulation only; never used by estimators).
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

    def perf_values(self) -> np.ndarray:
        """Perf's per-interval numbers, ``raw x enabled / running`` (NaN = ``<not counted>``)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.observed, self.raw * self.enabled / self.running, np.nan)

    def perf_totals(self) -> np.ndarray:
        """Perf's (and PAPI's) estimate of each series' total: ``sum raw x sum enabled / sum running``."""
        ok = self.observed
        raw = np.where(ok, self.raw, 0.0).sum(axis=1)
        ena = np.where(self.valid, self.enabled, 0.0).sum(axis=1)
        run = np.where(ok, self.running, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(run > 0, raw * ena / run, np.nan)

    def without_truth(self) -> MpxData:
        return replace(self, truth=None)

    def to_tidy(self) -> pd.DataFrame:
        """Long table ``run, step, event, raw, enabled, running`` (+ ``truth`` when known)."""
        S, T = self.raw.shape
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
        """Inverse of :meth:`to_tidy`; also reads a real multiplexed ``perf stat -I`` trace
        (columns ``value, time_running, percent`` from :func:`hemkit.mpx.traces.parse_trace`
        with ``ocoe=False``: ``enabled = running x 100 / percent``, ``raw = value x running / enabled``).
        """
        table = table.copy()
        if "raw" not in table.columns and {"value", "time_running", "percent"} <= set(table.columns):
            pct = table["percent"].to_numpy(float)
            run = table["time_running"].to_numpy(float)
            with np.errstate(invalid="ignore", divide="ignore"):
                ena = np.where(pct > 0, run * 100.0 / pct, np.nan)
            table["enabled"] = ena
            table["running"] = run
            table["raw"] = table["value"].to_numpy(float) * pct / 100.0
        missing = [c for c in MPX_COLUMNS if c not in table.columns]
        if missing:
            raise HemkitError(f"{source}: missing column(s) {', '.join(missing)}")
        table["run"] = table["run"].astype(str)
        extra = [c for c in ("workload", "set") if c in table.columns]
        keys = table[extra + ["run", "event"]].drop_duplicates(["run", "event"]).reset_index(drop=True)
        S = len(keys)
        sid = pd.MultiIndex.from_frame(keys[["run", "event"]]).get_indexer(
            pd.MultiIndex.from_frame(table[["run", "event"]])
        )
        step = table["step"].to_numpy(int)
        if (step < 0).any():
            raise HemkitError(f"{source}: negative step")
        T = int(step.max()) + 1
        length = np.zeros(S, int)
        np.maximum.at(length, sid, step + 1)

        def grid(col):
            g = np.full((S, T), np.nan)
            g[sid, step] = table[col].to_numpy(float)
            return g

        truth = grid("truth") if "truth" in table.columns else None
        raw, ena, run = grid("raw"), grid("enabled"), grid("running")
        run = np.where(np.isnan(run) & (np.arange(T)[None] < length[:, None]), 0.0, run)
        return cls(keys, raw, ena, run, length, truth)


def schedule(
    n_steps: int, n_events: int, counters: int, *, period: int = 1, shift: int = 1, offset: int = 0
) -> np.ndarray:
    """Round-robin schedule: boolean (n_steps, n_events), True where the event is on a counter.

    At tick ``r = step // period`` the events in list positions ``(r*shift + offset + j) mod E``
    for ``j < C`` hold the counters.  With ``counters >= n_events`` everything is always on.

    Examples
    --------
    >>> schedule(5, 5, 2).astype(int)
    array([[1, 1, 0, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 0, 1, 1, 0],
           [0, 0, 0, 1, 1],
           [1, 0, 0, 0, 1]])
    """
    if counters < 1:
        raise HemkitError(f"counters must be >= 1, got {counters}")
    if period < 1 or shift < 1:
        raise HemkitError("period and shift must be >= 1")
    if counters >= n_events:
        return np.ones((n_steps, n_events), bool)
    tick = np.arange(n_steps) // period
    pos = (np.arange(n_events)[None, :] - tick[:, None] * shift - offset) % n_events
    return pos < counters


def emulate(
    trace: pd.DataFrame,
    counters: int,
    *,
    period: int = 1,
    shift: int = 1,
    offset: int = 0,
    interval_ns: float | None = None,
) -> MpxData:
    """Emulate multiplexing of each run's events on ``counters`` counters.

    Parameters
    ----------
    trace : DataFrame
        OCOE trace (:func:`hemkit.mpx.traces.parse_trace` / ``collect_traces``): the events of
        one run were read together, so every run is multiplexed on its own (E = its events).
    counters : int
        Counters available (C); each event is then on ``C/E`` of the time.
    period : int
        Trace intervals per rotation tick.
    shift : int
        List positions the rotation moves per tick (1 = Linux, C = PAPI-style sets).
    offset : int
        Starting position of the rotation (different offsets give different MPX views of the
        same run; used to augment training data).
    interval_ns : float, optional
        Interval length; by default from the trace's timestamps (median step of ``t``), or 1e7.

    Returns
    -------
    MpxData
        With ``truth`` set to the OCOE counts.

    Examples
    --------
    >>> tr = pd.DataFrame({"run": "r", "step": [0, 0, 1, 1], "event": ["a", "b"] * 2, "value": [1., 2., 3., 4.]})
    >>> m = emulate(tr, counters=1)
    >>> m.raw
    array([[ 1., nan],
           [nan,  4.]])
    """
    if counters < 1:
        raise HemkitError(f"counters must be >= 1, got {counters}")
    if period < 1 or shift < 1:
        raise HemkitError("period and shift must be >= 1")
    need = [c for c in ("run", "step", "event", "value") if c not in trace.columns]
    if need:
        raise HemkitError(f"trace: missing column(s) {', '.join(need)}")
    if trace.empty:
        raise HemkitError("trace: no rows")
    if trace["value"].isna().any():
        bad = trace[trace["value"].isna()].iloc[0]
        raise HemkitError(
            f"trace: run {bad['run']} event {bad['event']} has a missing count at step {bad['step']}"
            " (not an OCOE trace?)"
        )
    tr = trace.copy()
    tr["run"] = tr["run"].astype(str)
    if interval_ns is None:
        interval_ns = 1e7
        if "t" in tr.columns:
            dt = tr.drop_duplicates(["run", "step"]).sort_values(["run", "step"]).groupby("run")["t"].diff()
            if dt.notna().any():
                interval_ns = float(np.nanmedian(dt)) * 1e9
    extra = [c for c in ("workload", "set") if c in tr.columns]
    keys = tr[extra + ["run", "event"]].drop_duplicates(["run", "event"]).reset_index(drop=True)
    # position of each event inside its run's list (order of first appearance = perf's -e order)
    keys["pos"] = keys.groupby("run", sort=False).cumcount()
    n_ev = keys.groupby("run", sort=False)["event"].transform("size").to_numpy()
    S = len(keys)
    sid = pd.MultiIndex.from_frame(keys[["run", "event"]]).get_indexer(pd.MultiIndex.from_frame(tr[["run", "event"]]))
    step = tr["step"].to_numpy(int)
    T = int(step.max()) + 1
    truth = np.full((S, T), np.nan)
    truth[sid, step] = tr["value"].to_numpy(float)
    length = np.zeros(S, int)
    np.maximum.at(length, sid, step + 1)
    # vectorised schedule for every series: position of the event vs rotation tick, per run size
    tick = np.arange(T)[None, :] // period
    pos = (keys["pos"].to_numpy()[:, None] - tick * shift - offset) % n_ev[:, None]
    on = (pos < counters) | (counters >= n_ev)[:, None]
    valid = np.arange(T)[None, :] < length[:, None]
    on &= valid
    enabled = np.where(valid, interval_ns, np.nan)
    running = np.where(on, interval_ns, np.where(valid, 0.0, np.nan))
    raw = np.where(on, truth, np.nan)
    return MpxData(keys.drop(columns="pos"), raw, enabled, running, length, truth)


def concat(parts: list[MpxData]) -> MpxData:
    """Stack several :class:`MpxData` (e.g. emulations at several counters and offsets), padding with NaN."""
    if not parts:
        raise HemkitError("nothing to concatenate")
    T = max(p.raw.shape[1] for p in parts)

    def pad(a):
        return np.pad(a, ((0, 0), (0, T - a.shape[1])), constant_values=np.nan)

    truth = None if any(p.truth is None for p in parts) else np.concatenate([pad(p.truth) for p in parts])
    return MpxData(
        pd.concat([p.keys for p in parts], ignore_index=True),
        np.concatenate([pad(p.raw) for p in parts]),
        np.concatenate([pad(p.enabled) for p in parts]),
        np.concatenate([pad(p.running) for p in parts]),
        np.concatenate([p.length for p in parts]),
        truth,
    )


def emulate_many(trace: pd.DataFrame, counters, offsets, **kwargs) -> MpxData:
    """Emulations of ``trace`` at every counter count and rotation offset, stacked (training data)."""
    return concat([emulate(trace, c, offset=o, **kwargs) for c in counters for o in offsets])
