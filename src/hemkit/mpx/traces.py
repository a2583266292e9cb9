"""Interval traces: ``perf stat -I MS`` output as a tidy time series, collection, cleaning.

A trace is a table with one row per (run, interval, event)::

    run, t, step, event, value, time_running, percent      (+ workload, set when collected)

``value`` is the count perf printed for the interval (already scaled by perf when it was
multiplexed), ``time_running`` the nanoseconds the event was on a counter during the interval
and ``percent`` perf's running percentage.  OCOE traces (one counter, one event: every set
of events fits the counters, so ``percent`` is 100) are the ground truth the multiplexing
emulation (:mod:`hemkit.mpx.emulate`) starts from.

Data cleaning follows Wang, Wang & Lin (2022), section 2.2 and step 2 of section 3.4:
runs whose total count is below ``0.2 x`` the largest run's total are dropped, and the
last 2 % of the steps plus 5 more steps are cut from every run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError
from hemkit.io.perf_stat import parse_perf_stat

TRACE_COLUMNS = ["run", "t", "step", "event", "value", "time_running", "percent"]


def parse_trace(text: str, run: str = "0", *, fmt: str | None = None, ocoe: bool = True) -> pd.DataFrame:
    """Turn ``perf stat -I MS -x,`` (or ``-j``) output into a tidy trace.

    Parameters
    ----------
    text : str
        What perf wrote (its ``-o`` file).
    run : str
        Run id written into the ``run`` column.
    fmt : {"csv", "json"}, optional
        Detected when not given.
    ocoe : bool
        The trace was recorded without multiplexing.  Then an interval perf printed as
        ``<not counted>`` with zero running time (the task did not run, e.g. it slept) is a
        count of 0.  With ``ocoe=False`` such intervals stay NaN: on a multiplexed run they
        mean the event had no counter.

    Raises
    ------
    HemkitError
        No interval lines (the text was not written with ``-I``), or an event perf
        reported ``<not supported>``.

    Examples
    --------
    >>> text = "0.010,120,,page-faults,9990000,100.00,,\\n0.020,<not counted>,,page-faults,0,100.00,,\\n"
    >>> parse_trace(text, run="r0")[["run", "step", "event", "value"]]
      run  step        event  value
    0  r0     0  page-faults  120.0
    1  r0     1  page-faults    0.0
    """
    return tidy_interval_counts(
        parse_perf_stat(text, fmt=fmt, interval=True if fmt != "json" else None), run, ocoe=ocoe
    )


def tidy_interval_counts(table: pd.DataFrame, run: str, *, ocoe: bool = True) -> pd.DataFrame:
    """A :func:`hemkit.io.perf_stat.parse_perf_stat` table of ``-I`` lines as a tidy trace (see :func:`parse_trace`)."""
    table = table[np.isfinite(table["t"].to_numpy(float))]
    if table.empty:
        raise HemkitError(f"run {run}: no interval lines in the perf output (record it with 'perf stat -I MS')")
    bad = table[table["status"] == "not supported"]
    if len(bad):
        raise HemkitError(f"run {run}: event {bad['event'].iloc[0]!r} is <not supported> by perf here")
    value = table["value"].to_numpy(float).copy()
    running = table["run_time_ns"].to_numpy(float).copy()
    if ocoe:
        idle = (table["status"] == "not counted").to_numpy() & ~(running > 0)
        value[idle] = 0.0
        running[idle] = 0.0
    steps = pd.Index(np.sort(table["t"].unique()))
    out = pd.DataFrame(
        {
            "run": str(run),
            "t": table["t"].to_numpy(float),
            "step": steps.get_indexer(table["t"]),
            "event": table["event"].to_numpy(),
            "value": value,
            "time_running": running,
            "percent": table["percent"].to_numpy(float),
        }
    )
    return out.reset_index(drop=True)


def read_trace(path: str | Path, run: str | None = None, *, ocoe: bool = True) -> pd.DataFrame:
    """Read a trace: Parquet or CSV written by hemkit, or a raw ``perf stat -I`` output file."""
    path = Path(path)
    if not path.exists():
        raise HemkitError(f"{path}: no such file")
    if path.suffix in (".parquet", ".pq"):
        table = pd.read_parquet(path)
    else:
        text = path.read_text(errors="replace")
        first = next((s for s in text.splitlines() if s.strip() and not s.startswith("#")), "")
        if first.startswith("run,") or first.startswith("workload,"):
            table = pd.read_csv(path)
        else:
            return parse_trace(text, run=run or path.stem, ocoe=ocoe)
    need = ("run", "step", "event", "raw" if "raw" in table.columns else "value")
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise HemkitError(f"{path}: not a trace, missing column(s) {', '.join(missing)}")
    table["run"] = table["run"].astype(str)
    return table


def write_trace(table: pd.DataFrame, path: str | Path) -> Path:
    """Write a trace as Parquet (``.parquet``) or CSV (any other suffix)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix in (".parquet", ".pq"):
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)
    return path


def collect_traces(
    workloads: Mapping[str, Sequence[str]],
    event_sets: Sequence[Sequence[str]],
    *,
    runs: int = 3,
    interval_ms: int = 10,
    timeout: float | None = 600,
    progress=None,
) -> pd.DataFrame:
    """Record OCOE interval traces: every workload x every event set x ``runs`` runs.

    Each event set is read in one ``perf stat -I`` run (the OCOE protocol: a set must fit
    the counters, at most 5 hardware events on the Zen 5 machines), so the events of one
    set are exact and simultaneous; different sets come from different runs.

    Parameters
    ----------
    workloads : mapping name -> command (argv list)
    event_sets : sequence of event lists
    runs : int
        Runs per (workload, set).
    interval_ms : int
        perf's ``-I`` interval.
    progress : callable, optional
        Called with a one-line message after each run.

    Returns
    -------
    DataFrame
        Columns ``workload, set, run`` + :data:`TRACE_COLUMNS`; ``run`` is
        ``"{workload}/s{set}/r{k}"``.
    """
    from hemkit.external.perf import PerfStatOptions, run_perf_stat

    parts = []
    for name, command in workloads.items():
        for si, events in enumerate(event_sets):
            if not events:
                raise HemkitError(f"event set {si} is empty")
            for k in range(runs):
                res = run_perf_stat(
                    list(events), list(command), PerfStatOptions(interval_ms=interval_ms, timeout=timeout)
                )
                if res.returncode != 0:
                    raise HemkitError(f"workload {name!r} exited with code {res.returncode}: {' '.join(command)}")
                run_id = f"{name}/s{si}/r{k}"
                trace = tidy_interval_counts(res.counts, run_id)
                trace.insert(0, "set", si)
                trace.insert(0, "workload", name)
                parts.append(trace)
                if progress is not None:
                    progress(f"{run_id}: {trace['step'].max() + 1} intervals, {res.seconds:.2f} s")
    return pd.concat(parts, ignore_index=True)


def to_wide(trace: pd.DataFrame, run: str) -> pd.DataFrame:
    """One run of a trace as a matrix steps x events (counts per interval)."""
    sub = trace[trace["run"] == str(run)]
    if sub.empty:
        raise HemkitError(f"run {run!r} is not in the trace")
    return sub.pivot_table(index="step", columns="event", values="value", aggfunc="sum", sort=False)


def clean_runs(
    trace: pd.DataFrame,
    *,
    drop_below: float = 0.2,
    tail_fraction: float = 0.02,
    tail_steps: int = 5,
    by: str | None = "workload",
) -> pd.DataFrame:
    """The paper's data cleaning (section 2.2 and 3.4, step 2).

    1. For every event and every group of runs (``by``: runs of the same workload and event
       set; ``None``: all runs), drop the runs whose total count is below ``drop_below`` x the
       largest total (the paper drops such runs as broken collections).
    2. Cut the last ``tail_fraction`` of each run's steps and then ``tail_steps`` more.

    Examples
    --------
    >>> tr = pd.DataFrame({"run": ["a"] * 200, "step": range(200), "event": "e", "value": 1.0})
    >>> int(clean_runs(tr, by=None)["step"].max())   # 200 - 4 (2 %) - 5
    190
    """
    if trace.empty:
        raise HemkitError("the trace is empty")
    keys = ["event"] + ([by] if by and by in trace.columns else []) + (["set"] if "set" in trace.columns else [])
    totals = trace.groupby(keys + ["run"], sort=False)["value"].sum().rename("total").reset_index()
    largest = totals.groupby(keys, sort=False)["total"].transform("max")
    broken = totals.loc[totals["total"] < drop_below * largest, "run"].unique()
    kept = trace[~trace["run"].isin(broken)]
    n_steps = kept.groupby("run")["step"].transform("max") + 1
    cut = np.ceil(n_steps * tail_fraction).astype(int) + tail_steps
    kept = kept[kept["step"] < n_steps - cut]
    return kept.reset_index(drop=True)
