"""Shares of a real sampling profile by symbol, DSO, command or thread, with confidence intervals.

Each sample stands for its ``period`` of base events (Wen et al. 2021, Sec. 2.2: the
whole interval is charged to the instruction pointer at the interrupt).  A key's share is
its sum of periods over the total; with unequal periods (``perf record -F``) the interval
uses Kish's effective sample size ``(sum w)^2 / sum w^2``.

Keys are named as perf names them: a symbol together with its DSO (``memset`` of
``libc.so.6`` and ``memset`` of the binary are two rows; a name is qualified with its DSO
only where it occurs in several), a DSO by perf report's short name (``[kernel.kallsyms]``,
``libc.so.6``, the binary's file name, ``[unknown]``; the full path where two paths share a
file name), ``[unknown]`` where perf could not name the symbol.

Intervals: ``"wilson"`` (binomial, the default) or ``"bound"`` (the Poisson bound that
holds for any run lengths under the paper's model, see :mod:`hemkit.sampling.model`).
The run ratio of each key is estimated as in the paper's Sec. 5.1.2: consecutive samples
of the same key form one run (runs shorter than an interval count as one).
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.io.perf_script import (
    FIELDS,
    check_perf_data,
    dso_name,
    is_perf_data,
    parse_perf_script,
    read_perf_script,
    warn_replaced,
)
from hemkit.sampling import model

METHODS = ("wilson", "bound")
#: What a profile can be keyed by: symbol (with its DSO), DSO, command, thread.
BY = ("sym", "dso", "comm", "tid")


def read_samples(path: str | os.PathLike[str], *, progress: ProgressLike = None) -> pd.DataFrame:
    """Samples of a ``perf.data`` file (decoded with ``perf script``) or of ``perf script`` text.

    A ``perf.data`` file is checked (a truncated one is refused) and decoded with ``perf
    script -F`` :data:`hemkit.io.perf_script.FIELDS`; perf's own complaints (an unreadable
    file, a field the recording lacks) become an :class:`InputError` naming the file, and
    its warnings about lost samples a :class:`HemkitWarning`.  ``progress`` shows the
    decoding and parsing of large files (see :mod:`hemkit.core.progress`).

    Examples
    --------
    >>> samples = read_samples("perf.data")  # doctest: +SKIP
    >>> samples.columns.tolist()  # doctest: +SKIP
    ['comm', 'tid', 'time', 'event', 'period', 'ip', 'sym', 'dso']
    """
    from hemkit.external.perf import run_perf_script

    p = os.fspath(path)
    bar = as_progress(progress)
    if not os.path.isfile(p) or not is_perf_data(p):
        with bar.task(f"reading {os.path.basename(p)}") as task:
            samples = read_perf_script(p)
            task.advance(info=f"{len(samples)} samples")
        return samples
    check_perf_data(p)
    with bar.task(f"perf script -i {os.path.basename(p)}") as task:
        done = run_perf_script(p)
        task.advance()
    err = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 0 or not done.stdout.strip():
        why = err[-1] if err else ("no samples" if done.returncode == 0 else done.status())
        raise InputError(f"{p}: perf script cannot decode it with -F {FIELDS}: {why}")
    for line in err:
        if "lost" in line.lower():
            warnings.warn(f"{p}: perf says: {line}", HemkitWarning, stacklevel=2)
    warn_replaced(done.stdout, f"{p} (through perf script)")  # names as the binaries hold them
    with bar.task("parsing samples") as task:
        samples = parse_perf_script(done.stdout, source=p)
        task.advance(info=f"{len(samples)} samples")
    return samples


@result
class SamplingProfile(Result):
    """Shares of one profile by ``by``, with their confidence intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per key (index named ``by``), largest share first: ``samples``,
        ``period`` (base events), ``share``, ``low``, ``high``, ``runs``, ``R_est``;
        by symbol also ``dso`` (short name), by DSO also ``path`` (as perf printed it).
    n_samples : int
        Samples profiled (after the ``comm`` / ``event`` selection).
    n_eff : float
        Effective number of samples (equal to ``n_samples`` for equal periods).
    level : float
        Confidence level of the intervals.
    method : str
        ``"wilson"`` or ``"bound"``.
    by : str
        ``"sym"``, ``"dso"``, ``"comm"`` or ``"tid"``.
    event : str
        The sampling event (``""`` when perf did not print it).
    source : str
        Where the samples came from (a file name).
    """

    table: pd.DataFrame
    n_samples: int
    n_eff: float
    level: float
    method: str
    by: str
    event: str
    source: str

    def summary(self, top: int | None = None) -> pd.DataFrame:
        """The share table (optionally only the ``top`` rows)."""
        return self.table if top is None else self.table.head(top)

    def to_frame(self) -> pd.DataFrame:
        """The full share table with the key as its first column."""
        return self.table.reset_index()

    def plot(self, ax: Any = None, top: int = 20) -> Any:
        """Bars of the ``top`` largest shares with their intervals; returns the Axes."""
        from hemkit.sampling.plots import plot_shares

        return plot_shares(self, ax=ax, top=top)


def _select(samples: pd.DataFrame, comm: str | None, event: str | None, source: str) -> tuple[pd.DataFrame, str]:
    df = samples
    if comm is not None:
        df = df[df["comm"] == comm]
        if df.empty:
            names = ", ".join(map(str, samples["comm"].unique()[:10]))
            raise InputError(f"{source}: no samples of command {comm!r} (commands: {names})")
    events = [str(e) for e in pd.unique(df["event"])] if "event" in df.columns else []
    if event is not None:
        df = df[df["event"] == event] if events else df.iloc[:0]
        if df.empty:
            raise InputError(f"{source}: no samples of event {event!r} (events: {', '.join(events) or 'not printed'})")
    elif len(events) > 1:
        raise InputError(f"{source}: samples of several events ({', '.join(events)}); choose one event")
    return df, (event if event is not None else events[0] if events else "")


def _labels(keys: pd.DataFrame, by: str) -> tuple[pd.Index, dict[str, Any]]:
    """Row names of the distinct keys, and the extra columns that describe them."""
    if by == "dso":
        short = keys["dso"].map(dso_name)
        clash = short.duplicated(keep=False)
        return pd.Index(short.where(~clash, keys["dso"]), name="dso"), {"path": keys["dso"].to_numpy()}
    if by == "sym" and "dso" in keys.columns:
        short = keys["dso"].map(dso_name)
        clash = keys["sym"].duplicated(keep=False)
        names = keys["sym"].where(~clash, keys["sym"] + " (" + short + ")")
        return pd.Index(names, name="sym"), {"dso": short.to_numpy()}
    return pd.Index(keys[by], name=by), {}


def profile_shares(
    samples: pd.DataFrame | str | os.PathLike[str],
    *,
    by: str = "sym",
    level: float = 0.95,
    method: str = "wilson",
    comm: str | None = None,
    event: str | None = None,
) -> SamplingProfile:
    """Per-``by`` shares of the sampled base events with ``level`` confidence intervals.

    Parameters
    ----------
    samples : pandas.DataFrame or path
        From :func:`read_samples` (columns of :data:`hemkit.io.perf_script.COLUMNS`; its
        ``attrs["source"]`` names it in messages), or a ``perf.data`` / ``perf script``
        text file to read with it.
    by : {"sym", "dso", "comm", "tid"}
        Symbol (with its DSO), DSO, command or thread.
    level : float
        Confidence level, in (0, 1).
    method : {"wilson", "bound"}
    comm, event : str, optional
        Keep only samples of this command / event (an event is needed when the samples
        hold several).

    Raises
    ------
    InputError
        Bad parameters, no samples left, several events, or ``by="dso"`` on text without
        DSO names (each naming the source and the culprit).

    Examples
    --------
    >>> df = pd.DataFrame({"sym": ["f"] * 30 + ["g"] * 70, "dso": "/bin/x", "period": 1000,
    ...                    "comm": "x", "event": "cpu-clock"})
    >>> p = profile_shares(df)
    >>> p.table.loc["f", ["share", "low", "high"]].round(3).tolist()
    [0.3, 0.219, 0.396]
    >>> profile_shares(df, by="dso").table.index.tolist()
    ['x']
    """
    if method not in METHODS:
        raise InputError(f"unknown interval method {method!r} (use {', '.join(METHODS)})")
    if by not in BY:
        raise InputError(f"cannot profile by {by!r} (use {', '.join(BY)})")
    if not 0 < level < 1:
        raise InputError(f"confidence level must be in (0, 1), got {level}")
    if isinstance(samples, pd.DataFrame):
        source = str(samples.attrs.get("source", "samples"))
    else:
        source = os.fspath(samples)
        samples = read_samples(source)
    missing = [c for c in (by, "period") if c not in samples.columns]
    if missing:
        raise InputError(f"{source}: no column {missing[0]!r} (columns: {', '.join(map(str, samples.columns))})")
    df, ev = _select(samples, comm, event, source)
    if df.empty:
        raise InputError(f"{source}: no samples to profile")
    has_dso = "dso" in df.columns and not (df["dso"].astype(str) == "").all()
    if by == "dso" and not has_dso:
        raise InputError(f"{source}: the samples carry no DSO names; decode perf.data with 'perf script -F {FIELDS}'")
    w = pd.to_numeric(df["period"], errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(w) & (w > 0)):
        raise InputError(f"{source}: samples with a period that is not a positive number")
    if by == "sym" and has_dso:
        codes, uniq = pd.factorize(pd.MultiIndex.from_frame(df[["sym", "dso"]].astype(str)))
        keys = pd.DataFrame(list(uniq), columns=["sym", "dso"])
    else:
        col = df[by].astype(str) if by in ("sym", "dso") else df[by]
        codes, values = pd.factorize(col)
        keys = pd.DataFrame({by: values})
    index, extra = _labels(keys, by)
    total = w.sum()
    n_eff = total**2 / np.sum(w**2)
    period = np.bincount(codes, weights=w, minlength=len(keys))
    whole = np.all(w == np.round(w)) and period.max() < 2.0**62
    period_col = period.round().astype(np.int64) if whole else period
    share = period / total
    interval = model.wilson_interval if method == "wilson" else model.bound_interval
    low, high = interval(share * n_eff, n_eff, level)
    # runs of consecutive samples of one key (Sec. 5.1.2), in time order per thread
    if {"time", "tid"} <= set(df.columns):
        seq = codes[np.lexsort((df["time"].to_numpy(), df["tid"].to_numpy()))]
    else:
        seq = codes
    new_run = np.concatenate([[True], seq[1:] != seq[:-1]])
    runs = np.bincount(seq[new_run], minlength=len(keys))
    count = np.bincount(codes, minlength=len(keys))
    table = pd.DataFrame(
        {**extra, "samples": count, "period": period_col, "share": share, "low": low, "high": high, "runs": runs},
        index=index,
    )
    table["R_est"] = table["samples"] / table["runs"]
    table = table.sort_values(["share", "samples"], ascending=False, kind="stable")
    return SamplingProfile(
        table=table,
        n_samples=len(df),
        n_eff=float(n_eff),
        level=level,
        method=method,
        by=by,
        event=ev,
        source=source,
    )
