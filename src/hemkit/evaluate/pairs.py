"""Per-pair correlation differences between merged data and a reference (Pearson and Spearman).

The MUCH paper (Sec. 5.2) scores a merge by ``|rho_merged(i, j) - rho_real(i, j)|`` over all
pairs of events and summarises with the MSE; users check merged data with Pearson
correlations of raw counts, rank-based views use Spearman, so both are reported.  The
reference is either a truth table (every event read in the same runs) or grouped readings,
whose observed pairwise correlations then serve.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.readings import Readings
from hemkit.core.results import Result, result
from hemkit.datasets.truth import check_truth_table
from hemkit.merge.correlation import pairwise_correlation
from hemkit.merge.result import MergeResult, pair_index, table_correlations

if TYPE_CHECKING:
    from hemkit.io.perf_files import PerfOptions

KINDS = ("pearson", "spearman")


def correlations(table: pd.DataFrame | Readings) -> dict[str, pd.DataFrame]:
    """Pearson and Spearman correlation matrices of a full table, or observed pairwise ones of readings.

    For :class:`Readings` each pair is estimated from every group that read both events,
    each group centred (Pearson) or ranked (Spearman) on its own; pairs never read together
    are NaN.

    Examples
    --------
    >>> c = correlations(pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [2.0, 1, 4, 3]}))
    >>> round(float(c["pearson"].loc["a", "b"]), 2)
    0.6
    """
    if isinstance(table, Readings):
        table.check_varying("an observed correlation")
        return {kind: pairwise_correlation(table, kind=kind)[0] for kind in KINDS}
    pear, spear = table_correlations(table)
    cols = [str(c) for c in table.columns]
    return {
        "pearson": pd.DataFrame(pear, index=cols, columns=cols),
        "spearman": pd.DataFrame(spear, index=cols, columns=cols),
    }


@result
class Evaluation(Result):
    """Per-pair correlations of a merge and its reference.

    Attributes
    ----------
    pairs : DataFrame
        Index ``(event_a, event_b)``; columns ``merged_<kind>``, ``truth_<kind>`` and
        ``diff_<kind>`` (merged - truth) for kind in pearson, spearman.
    label : str
        The merge's name (a method or a file).

    Examples
    --------
    Split the Zen 5 truth (every event read in every run) into MUCH groups of 4, merge them,
    and compare the merged correlations with the truth's:

    >>> from hemkit.datasets import split_truth, zen5_br_64kb
    >>> from hemkit.evaluate import evaluate
    >>> from hemkit.merge import merge
    >>> truth = zen5_br_64kb()
    >>> ev = evaluate(merge(split_truth(truth, 4, seed=0), "copula", seed=0), truth, label="copula")
    >>> ev.label, len(ev.pairs), ev.pairs.index[0]
    ('copula', 28, ('cycles', 'instructions'))
    >>> print(ev.summary().round(3).reset_index().to_string(index=False))
        kind  pairs   mse  mean_abs  max_abs
     pearson     28 0.012     0.085    0.269
    spearman     28 0.010     0.069    0.256
    """

    pairs: pd.DataFrame
    label: str = ""

    def mse(self, kind: str = "pearson") -> float:
        """Mean squared difference over the pairs with a reference value."""
        d = self.pairs[f"diff_{kind}"].dropna()
        return float((d**2).mean()) if len(d) else float("nan")

    def max_abs(self, kind: str = "pearson") -> float:
        """Largest absolute difference."""
        d = self.pairs[f"diff_{kind}"].dropna()
        return float(d.abs().max()) if len(d) else float("nan")

    def summary(self) -> pd.DataFrame:
        """One row per correlation kind: pairs compared, MSE, mean ``|diff|``, max ``|diff|``."""
        rows = {}
        for kind in KINDS:
            d = self.pairs[f"diff_{kind}"].dropna()
            rows[kind] = {
                "pairs": int(len(d)),
                "mse": self.mse(kind),
                "mean_abs": float(d.abs().mean()) if len(d) else float("nan"),
                "max_abs": self.max_abs(kind),
            }
        out = pd.DataFrame(rows).T
        out["pairs"] = out["pairs"].astype(int)
        out.index.name = "kind"
        return out

    def row(self) -> dict[str, Any]:
        """The one-line view used when several evaluations are compared."""
        return {
            "pairs": int(self.pairs["diff_pearson"].notna().sum()),
            "pearson_mse": self.mse("pearson"),
            "pearson_max": self.max_abs("pearson"),
            "spearman_mse": self.mse("spearman"),
            "spearman_max": self.max_abs("spearman"),
        }

    def to_frame(self) -> pd.DataFrame:
        """The per-pair table (a copy)."""
        return self.pairs.copy()

    def plot(self, ax: Any = None, *, kind: str = "pearson") -> Any:
        """Sorted per-pair ``|difference|`` (MUCH paper, Fig. 5); returns the Axes."""
        from hemkit.evaluate.plot import plot_pair_differences

        return plot_pair_differences({self.label or "merge": self}, kind=kind, ax=ax)


def check_merged_table(table: pd.DataFrame, source: str = "merged table") -> pd.DataFrame:
    """A merged table fit to evaluate: numeric, finite, no duplicated or constant column, at least 2 events.

    Raises :class:`InputError` naming the column at fault (``source`` names the file).

    Examples
    --------
    >>> check_merged_table(pd.DataFrame({"a": [1.0, 2, 3], "b": [1.0, 1, 1]}))
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: merged table: column 'b' is constant (1); it carries no correlation, drop it
    """
    if {"group", "run", "event", "value"} <= {str(c) for c in table.columns}:
        raise InputError(f"{source}: looks like grouped readings (group, run, event, value), not a merged table")
    return check_truth_table(table, source)


#: pairs an "uncompared" warning lists before it says how many more
SHOW_PAIRS = 10


def _warn_uncompared(merged: Any, reference: Any, common: list[Any]) -> None:
    """Say which events only one side has, and every pair that therefore is not compared."""
    for events, where, other in ((reference, "the merged table", "reference"), (merged, "the reference", "merged")):
        only = [e for e in events if e not in set(common)]
        if not only:
            continue
        everyone = [*common, *only]
        pairs = [(a, b) for k, a in enumerate(everyone) for b in everyone[k + 1 :] if a in only or b in only]
        shown = ", ".join(f"({a}, {b})" for a, b in pairs[:SHOW_PAIRS])
        more = f" and {len(pairs) - SHOW_PAIRS} more" if len(pairs) > SHOW_PAIRS else ""
        names = ", ".join(repr(str(e)) for e in only)
        warnings.warn(
            f"{where} lacks {len(only)} event(s) of the {other}: {names}; their {len(pairs)} pair(s) are dropped "
            f"from the comparison (not compared: {shown}{more})",
            HemkitWarning,
            stacklevel=3,
        )


def evaluate(merged: MergeResult | pd.DataFrame, truth: pd.DataFrame | Readings, *, label: str = "") -> Evaluation:
    """Compare the pairwise correlations of ``merged`` with a reference.

    Parameters
    ----------
    merged : MergeResult or DataFrame
        A merge's result, or a runs x events table.
    truth : DataFrame or Readings
        A truth table (every event read in the same runs) or grouped readings, whose
        observed pairwise correlations are the reference.  Only events present in both
        are compared; a :class:`~hemkit.core.errors.HemkitWarning` names the events only one
        side has and the pairs left out.
    label : str
        Names the evaluation (default: the merge's method).

    Raises
    ------
    InputError
        A table with NaN, inf, a non-numeric, duplicated or constant column, fewer than two
        shared events.

    Examples
    --------
    >>> from hemkit.datasets import zen5_br_64kb
    >>> truth = zen5_br_64kb()
    >>> evaluate(truth, truth).mse()
    0.0
    """
    if isinstance(merged, MergeResult):
        label = label or merged.method
        table = merged.data
    else:
        table = merged
    table = check_merged_table(table)
    if not isinstance(truth, Readings):
        truth = check_truth_table(truth, "reference")
    ref = correlations(truth)
    common = [e for e in table.columns if e in ref["pearson"].columns]
    if len(common) < 2:
        raise InputError(
            "merged data and reference share fewer than 2 events; check the event names "
            f"(merged: {', '.join(map(str, table.columns[:4]))}; reference: "
            f"{', '.join(map(str, ref['pearson'].columns[:4]))})"
        )
    _warn_uncompared(table.columns, ref["pearson"].columns, common)
    mine = correlations(table[common])
    i, j = np.triu_indices(len(common), 1)
    data = {}
    for kind in KINDS:
        m = mine[kind].loc[common, common].to_numpy()[i, j]
        t = ref[kind].loc[common, common].to_numpy()[i, j]
        data[f"merged_{kind}"] = m
        data[f"truth_{kind}"] = t
        data[f"diff_{kind}"] = m - t
    return Evaluation(pd.DataFrame(data, index=pair_index(common)), label=label)


def compare(evaluations: dict[str, Evaluation]) -> pd.DataFrame:
    """One row per evaluation: pairs, Pearson and Spearman MSE and max ``|difference|``.

    Examples
    --------
    >>> from hemkit.datasets import zen5_br_64kb
    >>> t = zen5_br_64kb()
    >>> float(compare({"same": evaluate(t, t)}).loc["same", "pearson_mse"])
    0.0
    """
    out = pd.DataFrame({name: ev.row() for name, ev in evaluations.items()}).T
    out["pairs"] = out["pairs"].astype(int)
    out.index.name = "method"
    return out


# ------------------------------------------------------------------ from files
def read_merged_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A merged (or truth) table from CSV or Parquet, checked (:func:`check_merged_table`)."""
    from hemkit.io.evaluation import read_wide_table

    return check_merged_table(read_wide_table(path), os.fspath(path))


def read_reference(  # noqa: PLR0913 - grouped readings are read as read_readings reads: one keyword per option
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    pmcs: int | None = None,
    codes: str | os.PathLike[str] | None = None,
    drop_constant: bool = False,
    perf: PerfOptions | None = None,
    allow_mixed_machines: bool = False,
    host: str | Sequence[str] | None = None,
) -> pd.DataFrame | Readings:
    """A truth table or grouped readings (:func:`hemkit.io.evaluation.read_reference_file`), checked.

    Parameters
    ----------
    paths : path or sequence of paths
        One file: a truth table (runs x events, or long with the columns ``run, event, value``;
        CSV or Parquet, the CSV gzip, bzip2 or xz compressed or not), or grouped readings in any
        format :func:`hemkit.io.read_readings` knows.  Several files, a collection database,
        or ``pmcs`` given: grouped readings.
    pmcs : int, optional
        The file is a mergingTools raw table with ``pmcs`` counters per group.
    codes : path, optional
        A ``hems,code`` table naming the event codes of a mergingTools raw table.
    drop_constant : bool, default False
        Drop events constant within a group, or a truth table's constant columns (with a
        warning), instead of raising.
    perf : PerfOptions, optional
        How perf stat files are read (untrusted readings refused or dropped), as for
        :func:`hemkit.io.read_readings`.
    allow_mixed_machines : bool, default False
        Read collection databases of machines of different CPU models or kernels as one.
    host : str or sequence of str, optional
        Read only the runs of this host (or these hosts) of collection databases, as
        :func:`hemkit.io.read_readings` does (refused for inputs that name no host).

    Returns
    -------
    DataFrame or Readings
        The truth table (float64, the ``run`` column as index where it is a unique integer
        column), or the readings.

    Raises
    ------
    InputError
        A file that cannot be read or recognised, or a truth table with NaN, inf, a
        non-numeric, duplicated or constant column, fewer than 2 events or 3 runs (naming
        the file and the column, or group, run and event, at fault).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "truth.csv")
    >>> _ = open(p, "w").write("run,a,b\\n0,1,2\\n1,2,1\\n2,3,5\\n")
    >>> read_reference(p).columns.tolist()
    ['a', 'b']
    """
    from hemkit.io.evaluation import read_reference_file

    ref = read_reference_file(
        paths,
        pmcs=pmcs,
        codes=codes,
        drop_constant=drop_constant,
        perf=perf,
        allow_mixed_machines=allow_mixed_machines,
        host=host,
    )
    if isinstance(ref, Readings):
        return ref
    first = paths if isinstance(paths, str | os.PathLike) else next(iter(paths))
    return check_truth_table(ref, os.fspath(first), drop_constant=drop_constant)


def read_truth(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    drop_constant: bool = False,
    perf: PerfOptions | None = None,
    allow_mixed_machines: bool = False,
    host: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """A truth table (runs x events, every event read in every run) from any file that holds one, checked.

    What ``hemkit evaluate study --truth`` reads.  A table of runs x events (CSV or Parquet), a
    tidy ``run, event, value`` table, or readings of **one group** in any format
    :func:`hemkit.io.read_readings` knows: a collection database of a plan that reads every
    event at once (software events and tracepoints have no counter limit), its export, a
    folder of perf stat files of the same events.

    Parameters
    ----------
    paths : path or sequence of paths
        The file, folder or files (several: the runs of one group, e.g. perf stat files).
    drop_constant : bool, default False
        Drop events constant over the runs (no correlation) with a warning, instead of
        refusing them.
    perf : PerfOptions, optional
        How perf stat files are read (a ``<not supported>`` event refused or dropped...), as
        for :func:`hemkit.io.read_readings`.
    allow_mixed_machines : bool, default False
        Read collection databases of machines of different CPU models or kernels as one.
    host : str or sequence of str, optional
        Read only the runs of this host (or these hosts) of collection databases, as
        :func:`hemkit.io.read_readings` does (refused for inputs that name no host).

    Returns
    -------
    DataFrame
        Runs x events, float64; ``attrs["dropped_constant"]`` names the events dropped as
        constant (with ``drop_constant``).

    Raises
    ------
    InputError
        What :func:`read_reference` refuses; readings of several groups (not read together);
        a constant event unless ``drop_constant``; a negative value (the study splits the
        table into readings, which hold counts).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "truth.csv")
    >>> _ = open(p, "w").write("group,run,event,value\\n" + "".join(
    ...     f"0,{r},{e},{v}\\n" for r in range(4) for e, v in (("a", r), ("b", r * r), ("c", 7))))
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:   # c never changes: dropped, with a warning
    ...     warnings.simplefilter("always")
    ...     read_truth(p, drop_constant=True).columns.tolist()
    ['a', 'b']
    >>> len(w)
    1
    """
    mixed = allow_mixed_machines
    ref = read_reference(paths, drop_constant=drop_constant, perf=perf, allow_mixed_machines=mixed, host=host)
    source = os.fspath(paths if isinstance(paths, str | os.PathLike) else next(iter(paths), "truth"))
    if isinstance(ref, Readings):
        gids = ref.group_ids
        if len(gids) != 1:
            raise InputError(
                f"{source}: readings of {len(gids)} groups; a truth table reads every event in the same runs "
                "(one group: plan the events on as many counters, as software events and tracepoints allow)"
            )
        dropped = [e for _, e, _ in ref.dropped_constant]
        ref = ref[gids[0]]
        ref.attrs["dropped_constant"] = dropped
    out = check_truth_table(ref, source, drop_constant=drop_constant, counts=True)
    out.attrs["source"] = source  # what a study of it names in its messages
    return out


def evaluate_files(  # noqa: PLR0913 - the reference is read as read_readings reads: one keyword per option
    merged: str | os.PathLike[str],
    reference: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    pmcs: int | None = None,
    codes: str | os.PathLike[str] | None = None,
    drop_constant: bool = False,
    perf: PerfOptions | None = None,
    allow_mixed_machines: bool = False,
    host: str | Sequence[str] | None = None,
) -> Evaluation:
    """Evaluate the merged table in ``merged`` against ``reference`` (a truth table or readings).

    What ``hemkit evaluate MERGED --truth FILE`` runs; the files are read by
    :mod:`hemkit.io.evaluation`.

    Parameters
    ----------
    merged : path
        The merged table of runs x events (CSV or Parquet, as ``hemkit merge -o`` writes it).
    reference : path or sequence of paths
        A truth table or grouped readings (:func:`read_reference`).
    pmcs : int, optional
        The reference is a mergingTools raw table with ``pmcs`` counters per group.
    codes : path, optional
        A ``hems,code`` table naming the event codes of a mergingTools raw table.
    drop_constant : bool, default False
        Drop the reference's events constant within a group (grouped readings only).
    perf : PerfOptions, optional
        How the reference's perf stat files are read, as for :func:`hemkit.io.read_readings`.
    allow_mixed_machines : bool, default False
        Read reference collection databases of machines of different kinds as one.
    host : str or sequence of str, optional
        Read only the runs of this host (or these hosts) of collection databases, as
        :func:`hemkit.io.read_readings` does (refused for inputs that name no host).

    Returns
    -------
    Evaluation
        Labelled with the merged file's name without suffix.

    Raises
    ------
    InputError
        Naming the file and the column (or group, run, event) at fault: NaN, inf, a
        non-numeric, duplicated or constant column, grouped readings given as the merged
        table, fewer than two shared events.

    Examples
    --------
    >>> import os, tempfile
    >>> from hemkit.datasets import zen5_br_64kb
    >>> from hemkit.io import write_table
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.csv")
    >>> _ = write_table(zen5_br_64kb().reset_index(), p)
    >>> evaluate_files(p, p).mse()
    0.0
    """
    table = read_merged_table(merged)
    mixed = allow_mixed_machines
    ref = read_reference(
        reference,
        pmcs=pmcs,
        codes=codes,
        drop_constant=drop_constant,
        perf=perf,
        allow_mixed_machines=mixed,
        host=host,
    )
    try:
        return evaluate(table, ref, label=Path(os.fspath(merged)).stem)
    except InputError as exc:  # both tables were checked when read: what is left is how they match
        given = [reference] if isinstance(reference, str | os.PathLike) else list(reference)
        raise exc.reworded(f"{os.fspath(merged)} vs {' '.join(os.fspath(p) for p in given)}: {exc.message}") from None


__all__ = [
    "KINDS",
    "Evaluation",
    "check_merged_table",
    "compare",
    "correlations",
    "evaluate",
    "evaluate_files",
    "read_merged_table",
    "read_reference",
]
