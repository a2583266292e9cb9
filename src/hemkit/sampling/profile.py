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
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.io.perf_script import (
    FIELDS,
    ScriptChunks,
    check_perf_data,
    dso_name,
    is_perf_data,
    perf_data_command,
    read_dlfilter_output,
    read_perf_script,
    recorded_program,
    warn_replaced,
)
from hemkit.sampling import model

METHODS = ("wilson", "bound")
#: What a profile can be keyed by: symbol (with its DSO), DSO, command, thread.
BY = ("sym", "dso", "comm", "tid")


def read_samples(path: str | os.PathLike[str], *, progress: ProgressLike = None) -> pd.DataFrame:
    """Samples of a ``perf.data`` file (decoded with ``perf script``) or of ``perf script`` text.

    A ``perf.data`` file is checked (a truncated one is refused) and decoded by ``perf
    script --dlfilter`` with :data:`DLFILTER` (compiled once), which hands over binary
    records; where perf cannot (before 5.14) or there is no C compiler, by ``perf script -G
    -F`` :data:`hemkit.io.perf_script.FIELDS`, its text parsed while perf writes it.  Both
    give the table of :func:`hemkit.io.perf_script.parse_perf_script`, in linear time and
    memory (about 120 bytes per sample).  perf's own complaints (an unreadable file) and a
    file without samples become an :class:`InputError` naming the file; lost samples, no
    samples of the program perf recorded (named in the file's header) and names that are
    not UTF-8 (read as U+FFFD) one :class:`HemkitWarning` each.  ``progress`` shows the
    decoding of large files (see :mod:`hemkit.core.progress`).

    Examples
    --------
    >>> samples = read_samples("perf.data")  # doctest: +SKIP
    >>> samples.columns.tolist()  # doctest: +SKIP
    ['comm', 'tid', 'time', 'event', 'period', 'ip', 'sym', 'dso']
    """
    p = os.fspath(path)
    bar = as_progress(progress)
    if not os.path.isfile(p) or not is_perf_data(p):
        with bar.task(f"reading {os.path.basename(p)}") as task:
            samples = read_perf_script(p)
            task.advance(info=f"{len(samples)} samples")
        return samples
    check_perf_data(p)
    with bar.task(f"perf script -i {os.path.basename(p)}") as task:
        samples = _decode_records(p)
        if samples is None:  # perf without --dlfilter (before 5.14), or no C compiler: perf's text
            samples = _decode(p)
        task.advance(info=f"{len(samples)} samples")
    command = perf_data_command(p)
    program = recorded_program(command) if command else None
    if program is not None and not (samples["comm"] == program).any():
        counts = samples["comm"].value_counts()
        seen = ", ".join(f"{name} {n}" for name, n in counts[counts > 0].head(5).items())
        warnings.warn(
            f"{p}: no samples of the program perf recorded, {program!r} (samples of: {seen}): did it run shorter "
            "than one sampling period, or start another program?",
            HemkitWarning,
            stacklevel=2,
        )
    return samples


#: The perf script filter that hands hemkit the samples as binary records (package data).
DLFILTER = "hemkit.sampling:c/samples_dlfilter.c"


def _perf_says(path: str, err: list[str], done: Any) -> None:
    """Judge perf script's exit and messages: an error when it decoded nothing, a warning for lost samples."""
    if done.returncode != 0:
        why = err[-1] if err else done.status()
        raise InputError(f"{path}: perf script cannot decode it: {why}")
    lost = [line.rstrip("!") for line in err if "lost" in line.lower()]
    if lost:
        warnings.warn(
            f"{path}: perf lost samples while recording ({'; '.join(lost)}): the shares are of the samples "
            "kept (record with a larger -m buffer or a longer period to lose none)",
            HemkitWarning,
            stacklevel=4,
        )


def _decode_records(path: str) -> pd.DataFrame | None:
    """Samples of a ``perf.data`` file through the ``--dlfilter`` of :data:`DLFILTER`; None where it cannot run."""
    from hemkit.core.errors import HemkitError
    from hemkit.external.compiler import compile_c
    from hemkit.external.perf import perf_script_records

    try:
        dlfilter = compile_c(DLFILTER, flags=("-O2", "-shared", "-fPIC"))
    except HemkitError:
        return None
    with tempfile.TemporaryDirectory(prefix="hemkit-script-") as tmp:
        records, names = os.path.join(tmp, "records.bin"), os.path.join(tmp, "names.bin")
        done = perf_script_records(path, dlfilter, records, names)
        err = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        if done.returncode != 0 and not os.path.exists(names) and any("dlfilter" in line for line in err):
            return None  # this perf has no --dlfilter
        _perf_says(path, err, done)
        if not os.path.exists(records) or os.path.getsize(records) == 0:
            raise InputError(
                f"{path}: no samples (perf recorded none: was the program shorter than one sampling period? "
                "record with a smaller -c or a larger -F)"
            )
        return read_dlfilter_output(records, names, source=path)


def _decode(path: str) -> pd.DataFrame:
    """Samples of a ``perf.data`` file, parsed while ``perf script`` writes them to a temporary file."""
    from hemkit.external.perf import perf_script_to_file

    with tempfile.TemporaryDirectory(prefix="hemkit-script-") as tmp:
        out = os.path.join(tmp, "script.txt")
        chunks = ScriptChunks(path)
        with perf_script_to_file(path, out) as job, open(out, "rb") as fh:
            while True:
                running = job.running()
                data = fh.read(chunks.chunk_bytes)
                if data:
                    chunks.feed(data)
                elif running:
                    time.sleep(0.01)
                else:
                    break
        done = job.completed
        assert done is not None
        err = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        if done.returncode != 0 or chunks.empty:
            why = err[-1] if err else ("no samples" if done.returncode == 0 else done.status())
            raise InputError(f"{path}: perf script cannot decode it with -F {FIELDS}: {why}")
        _perf_says(path, err, done)

        def whole() -> str | bytes:
            data = Path(out).read_bytes()
            if data.isascii():
                return data
            text = data.decode("utf-8", errors="replace")  # names as the binaries hold them
            warn_replaced(text, f"{path} (through perf script)")
            return text

        return chunks.result(whole)


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
    elif len(events) > 1:  # shares of different events do not add up: profile one, and say so
        counts = df["event"].astype(str).value_counts(sort=False).reindex(events)
        chosen = str(counts.idxmax())  # the most samples; the first of a tie
        said = ", ".join(f"{e} {n}" for e, n in counts.items())
        warnings.warn(
            f"{source}: samples of {len(events)} events ({said}); profiled {chosen}, the one with the most "
            f"samples (choose another with event={next(e for e in events if e != chosen)!r})",
            HemkitWarning,
            stacklevel=3,
        )
        return df[df["event"] == chosen], chosen
    return df, (event if event is not None else events[0] if events else "")


def _factorize(column: pd.Series, as_str: bool) -> tuple[np.ndarray, np.ndarray]:
    """Codes and distinct values (in order of appearance) of a column, categorical or not."""
    codes, uniq = pd.factorize(column)
    values = np.asarray(uniq.astype(str) if as_str else np.asarray(uniq))
    return codes, values


def _key_codes(df: pd.DataFrame, by: str, has_dso: bool) -> tuple[np.ndarray, pd.DataFrame]:
    """Per sample the code of its key, and the distinct keys (in order of appearance).

    By symbol with DSO names, a key is the pair (symbol, DSO): the two columns are
    factorized apart and their codes combined, which keeps categorical columns (as
    :func:`hemkit.io.perf_script.parse_perf_script` gives them) from being spelled out.
    """
    if by == "sym" and has_dso:
        sym_codes, syms = _factorize(df["sym"], as_str=True)
        dso_codes, dsos = _factorize(df["dso"], as_str=True)
        codes, first = pd.factorize(sym_codes.astype(np.int64) * len(dsos) + dso_codes)
        first = np.asarray(first)
        keys = pd.DataFrame({"sym": syms[first // len(dsos)], "dso": dsos[first % len(dsos)]}, dtype=str)
        return codes, keys
    codes, values = _factorize(df[by], as_str=by in ("sym", "dso") or isinstance(df[by].dtype, pd.CategoricalDtype))
    return codes, pd.DataFrame({by: values})


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
        Keep only samples of this command / event.  Of samples of several events (whose
        shares do not add up), without ``event`` the most sampled one is profiled, with a
        :class:`HemkitWarning` naming the others.

    Raises
    ------
    InputError
        Bad parameters, no samples left, or ``by="dso"`` on text without DSO names (each
        naming the source and the culprit).

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
    has_dso = "dso" in df.columns and not (df["dso"] == "").all()
    if by == "dso" and not has_dso:
        raise InputError(f"{source}: the samples carry no DSO names; decode perf.data with 'perf script -F {FIELDS}'")
    w = pd.to_numeric(df["period"], errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(w) & (w > 0)):
        raise InputError(f"{source}: samples with a period that is not a positive number")
    codes, keys = _key_codes(df, by, has_dso)
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
