"""What every merge returns: :class:`MergeResult`, the merged table with its provenance.

A merge method returns one frozen :class:`MergeResult` holding the merged runs x events
table, the method's name, the parameters it ran with, its diagnostics (documented per
method), the *observed* pairwise correlations it started from (so the merge can be judged
without the input at hand) and, when asked for, per-pair intervals
(:mod:`hemkit.merge.intervals`).

Examples
--------
>>> from hemkit.datasets import t2080_hrm
>>> from hemkit.merge import merge_hrm
>>> res = merge_hrm(t2080_hrm(), "PROCESSOR_CYCLES")
>>> res.method, res.data.shape
('hrm', (1000, 16))
>>> list(res.summary().columns)[:3]
['runs', 'events', 'pairs']

The merged columns are NumPy arrays (:attr:`MergeResult.arrays`); ``data`` shows them as a
DataFrame on first use, so a merge that is written and summarised (:meth:`MergeResult.row`)
needs no pandas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from hemkit.core.checks import unknown_choice
from hemkit.core.errors import InputError
from hemkit.core.readings import Readings
from hemkit.core.results import Result, result

if TYPE_CHECKING:
    import pandas as pd

#: the columns of :attr:`MergeResult.pair_intervals` (and of ``hemkit merge --pair-intervals``)
INTERVAL_COLUMNS = ("event_a", "event_b", "estimate", "lower", "upper", "runs_together")


def frozen_mapping(d: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only view of a copy of ``d`` (for the ``params`` and ``diagnostics`` fields)."""
    return MappingProxyType(dict(d or {}))


def pair_index(events: list[str]) -> pd.MultiIndex:
    """``(event_a, event_b)`` for every pair of ``events``, upper-triangle order."""
    import pandas as pd

    i, j = np.triu_indices(len(events), 1)
    ev = np.asarray(events, dtype=object)
    return pd.MultiIndex.from_arrays([ev[i], ev[j]], names=["event_a", "event_b"])


def observed_pairs(readings: Readings, events: list[str] | None = None) -> pd.DataFrame:
    """Observed pairwise correlations of grouped readings, one row per pair of ``events``.

    Columns ``runs_together`` (runs in which both events were read), ``pearson`` and
    ``spearman`` (pooled over every group that read both, each group centred on its own
    means; NaN for a pair never read together).

    Parameters
    ----------
    readings : Readings
    events : list of str, optional
        The events, of ``readings``; default all of them, in their order.

    Returns
    -------
    DataFrame
        Indexed by ``(event_a, event_b)`` for every pair of ``events``, in the order of the
        upper triangle.

    Raises
    ------
    InputError
        An event not in ``readings``: the message names it (or them) and the known events; or
        ``events`` given as one string.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> obs = observed_pairs(t2080_much())
    >>> len(obs), int(obs["runs_together"].min()) >= 1000
    (120, True)
    """
    import pandas as pd

    if isinstance(events, str):  # its letters are no events
        raise InputError(f"events is one string ({events!r}): give a list of event names")
    events = list(events if events is not None else readings.events)
    support, pear, spear = observed_upper(readings, events)
    return pd.DataFrame({"runs_together": support, "pearson": pear, "spearman": spear}, index=pair_index(events))


def observed_upper(readings: Readings, events: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`observed_pairs` as arrays in upper-triangle order: runs together, Pearson, Spearman."""
    from hemkit.merge.correlation import pairwise_matrices

    known = set(readings.events)
    unknown = [e for e in events if e not in known]
    if len(unknown) == 1:  # the known events, and the closest to a typo
        raise unknown_choice("event", unknown[0], readings.events)
    if unknown:
        names = ", ".join(repr(e) for e in unknown)
        raise InputError(f"unknown events {names}; choose from {', '.join(readings.events)}")
    pear, support = pairwise_matrices(readings, kind="pearson")
    spear, _ = pairwise_matrices(readings, kind="spearman")
    at = {e: i for i, e in enumerate(readings.events)}
    pos = np.array([at[e] for e in events], dtype=np.int64)
    i, j = np.triu_indices(len(events), 1)
    a, b = pos[i], pos[j]
    return support[a, b].astype(np.int64), pear[a, b], spear[a, b]


def table_correlations(data: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Pearson and Spearman matrices of a complete runs x events table (ties get mean ranks).

    Overflow-safe: each column is scaled to [-1, 1] around its median first.
    """
    return matrix_correlations(data.to_numpy(dtype=float).T)


def matrix_correlations(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`table_correlations` of an events x runs array (float64)."""
    from hemkit.merge.correlation import average_ranks
    from hemkit.merge.reorder import batch_correlation

    with np.errstate(invalid="ignore", divide="ignore"):
        pear = batch_correlation(x)
        spear = batch_correlation(average_ranks(x, axis=1))
    return np.atleast_2d(pear), np.atleast_2d(spear)


@result
class MergeResult(Result):
    """A merged table of complete runs, with how it was made and how far it can be trusted.

    Attributes
    ----------
    arrays : mapping
        Event -> its merged column (a read-only NumPy array), in column order: each column
        holds actual readings of its event (see the method for how many rows and why).
    data : DataFrame
        The same runs x events table as a DataFrame (made on first use).
    method : str
        ``"hrm"``, ``"much"``, ``"copula"`` or ``"joint"``.
    params : mapping
        The parameters the merge ran with (plain values, e.g. ``n_sims``, ``n``, ``seed``).
    diagnostics : mapping
        What the method reports about itself, documented in each method's docstring
        (e.g. ``repaired``, ``imputed``, ``mse_to_observed``, ``sim_mse``).
    source : Readings
        The readings that were merged (kept by reference, not copied; ``observed`` is
        computed from them on first use).
    interval_arrays : mapping or None
        Per-pair intervals as columns (:data:`INTERVAL_COLUMNS` -> read-only NumPy arrays),
        when the merge was asked for them (``merge(..., level=0.9)`` or
        :func:`hemkit.merge.with_intervals`); their level and method are in ``params``.
    pair_intervals : DataFrame or None
        The same as a DataFrame (made on first use).

    Examples
    --------
    Merge the bundled T2080 HRM readings, with 90 % intervals per pair:

    >>> from hemkit.datasets import t2080_hrm
    >>> from hemkit.merge import merge
    >>> res = merge(t2080_hrm(), "hrm", anchor="PROCESSOR_CYCLES", level=0.9)
    >>> res.method, res.shape, res.events[:2]
    ('hrm', (1000, 16), ['PROCESSOR_CYCLES', 'CYCLES_LSU_SCHEDULE_STALLED'])
    >>> res.data.iloc[:2, :2]
       PROCESSOR_CYCLES  CYCLES_LSU_SCHEDULE_STALLED
    0        20076783.0                     112591.0
    1        20084249.0                      99545.0

    How far the merged correlations are from those observed where pairs were read together,
    and how wide the intervals are:

    >>> row = res.row()  # the numbers of res.summary()
    >>> row["runs"], row["pairs"], round(row["pearson_max"], 3), round(row["median_width"], 2)
    (1000, 45, 0.003, 1.1)
    >>> res.pair_intervals.columns.tolist()
    ['event_a', 'event_b', 'estimate', 'lower', 'upper', 'runs_together']
    """

    arrays: Mapping[str, np.ndarray]
    method: str
    params: Mapping[str, Any]
    diagnostics: Mapping[str, Any]
    source: Readings
    interval_arrays: Mapping[str, np.ndarray] | None = None

    @cached_property
    def pair_intervals(self) -> pd.DataFrame | None:
        """Per-pair intervals, columns :data:`INTERVAL_COLUMNS` (None without intervals)."""
        if self.interval_arrays is None:
            return None
        import pandas as pd

        return pd.DataFrame({c: self.interval_arrays[c] for c in INTERVAL_COLUMNS})

    @cached_property
    def _frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(dict(self.arrays))

    @property
    def data(self) -> pd.DataFrame:
        """The merged table, runs x events (a shallow copy: writing into it changes nothing here)."""
        return self._frame.copy(deep=False)

    @cached_property
    def observed(self) -> pd.DataFrame:
        """The input's observed pairwise correlations.

        Index ``(event_a, event_b)``; columns ``runs_together``, ``pearson``, ``spearman``
        (see :func:`observed_pairs`).
        """
        return observed_pairs(self.source, self.events)

    @property
    def events(self) -> list[str]:
        """The merged events, in column order."""
        return list(self.arrays)

    # a few DataFrame conveniences, so code written against the merged table keeps working
    @property
    def columns(self) -> pd.Index:
        """The merged table's columns (the events)."""
        return self._frame.columns

    @property
    def shape(self) -> tuple[int, int]:
        """Runs x events of the merged table."""
        return (len(next(iter(self.arrays.values()))), len(self.arrays))

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, event: Any) -> Any:
        return self.data[event]

    @cached_property
    def _merged_corr(self) -> tuple[np.ndarray, np.ndarray]:
        return matrix_correlations(np.vstack([np.asarray(a, dtype=np.float64) for a in self.arrays.values()]))

    def pairs(self) -> pd.DataFrame:
        """Per pair: runs read together, observed and merged Pearson and Spearman (and the interval).

        Examples
        --------
        >>> from hemkit.datasets import t2080_much
        >>> from hemkit.merge import merge_much
        >>> p = merge_much(t2080_much(), n_sims=5, seed=0).pairs()
        >>> list(p.columns)
        ['runs_together', 'observed_pearson', 'merged_pearson', 'observed_spearman', 'merged_spearman']
        """
        import pandas as pd

        events = self.events
        i, j = np.triu_indices(len(events), 1)
        pear, spear = self._merged_corr
        obs = self.observed.reindex(pair_index(events))
        out = pd.DataFrame(
            {
                "runs_together": obs["runs_together"].fillna(0).astype(np.int64).to_numpy(),
                "observed_pearson": obs["pearson"].to_numpy(),
                "merged_pearson": pear[i, j],
                "observed_spearman": obs["spearman"].to_numpy(),
                "merged_spearman": spear[i, j],
            },
            index=pair_index(events),
        )
        if self.pair_intervals is not None:
            iv = self.pair_intervals.set_index(["event_a", "event_b"]).reindex(out.index)
            out["lower"] = iv["lower"].to_numpy()
            out["upper"] = iv["upper"].to_numpy()
        return out

    def row(self) -> dict[str, Any]:
        """The numbers of :meth:`summary` as a dict (no pandas).

        Examples
        --------
        >>> from hemkit.datasets import t2080_hrm
        >>> from hemkit.merge import merge_hrm
        >>> sorted(merge_hrm(t2080_hrm(), "PROCESSOR_CYCLES").row())[:3]
        ['events', 'pairs', 'pearson_max']
        """
        k = len(self.arrays)
        i, j = np.triu_indices(k, 1)
        _, obs_p, obs_s = observed_upper(self.source, self.events)
        pear, spear = self._merged_corr
        row: dict[str, Any] = {"runs": int(self.shape[0]), "events": k}
        dp, ds = pear[i, j] - obs_p, spear[i, j] - obs_s
        dp, ds = dp[~np.isnan(dp)], ds[~np.isnan(ds)]
        row["pairs"] = int(len(dp))
        row["pearson_mse"] = float(np.mean(dp**2)) if len(dp) else float("nan")
        row["pearson_max"] = float(np.max(np.abs(dp))) if len(dp) else float("nan")
        row["spearman_mse"] = float(np.mean(ds**2)) if len(ds) else float("nan")
        row["spearman_max"] = float(np.max(np.abs(ds))) if len(ds) else float("nan")
        iv = self.interval_arrays
        if iv is not None and len(iv["upper"]):
            from hemkit.merge.correlation import median

            width = np.asarray(iv["upper"], dtype=np.float64) - np.asarray(iv["lower"], dtype=np.float64)
            width = width[~np.isnan(width)]  # as pandas' median, which skips NaN
            row["level"] = float(self.params.get("level", float("nan")))
            row["median_width"] = float(median(width)) if len(width) else float("nan")
        return row

    def summary(self) -> pd.DataFrame:
        """One row (the method): runs, events, pairs compared, merged vs observed MSE and max ``|difference|``.

        With intervals: their level and median width too.
        """
        import pandas as pd

        return pd.DataFrame([self.row()], index=pd.Index([self.method], name="method"))

    def to_frame(self) -> pd.DataFrame:
        """The merged table (a copy): runs x events."""
        return self._frame.copy()

    def plot(self, ax: Any = None, *, kind: str = "pearson") -> Any:
        """Merged against observed correlation per pair (with intervals as error bars when present).

        Returns the matplotlib Axes.
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 5))
        p = self.pairs()
        x, y = p[f"observed_{kind}"].to_numpy(), p[f"merged_{kind}"].to_numpy()
        if "lower" in p and kind == "pearson":
            err = np.vstack([y - p["lower"].to_numpy(), p["upper"].to_numpy() - y])
            level = self.params.get("level", 0.9)
            ax.errorbar(x, y, yerr=np.abs(err), fmt="o", ms=3, lw=0.8, capsize=2, label=f"{level:.0%} interval")
        else:
            ax.plot(x, y, "o", ms=3, label="pair of events")
        ax.plot([-1, 1], [-1, 1], color="#888", lw=0.8, label="merged = observed")
        ax.set_xlabel(f"observed {kind} correlation (pairs read together, unitless)")
        ax.set_ylabel(f"merged {kind} correlation (unitless)")
        ax.set_title(f"{self.method}: merged vs observed correlation per pair")
        ax.set_xlim(-1.05, 1.05)
        ax.set_ylim(-1.05, 1.05)
        ax.legend(loc="upper left")
        ax.grid(alpha=0.3)
        return ax


def reading_dtypes(data: pd.DataFrame, readings: Readings, computed: Sequence[str] = ()) -> pd.DataFrame:
    """``data`` with each event's column float32 when its readings are, else float64 (:func:`column_dtypes`).

    Examples
    --------
    >>> import pandas as pd
    >>> r = Readings({1: pd.DataFrame({"a": [1, 2, 4], "b": [3, 1, 2]}, dtype="float32")})
    >>> merged = pd.DataFrame({"a": [1.0, 2, 4], "b": [2.0, 3, 1]})
    >>> reading_dtypes(merged, r, computed=["b"]).dtypes.astype(str).tolist()
    ['float32', 'float64']
    """
    columns = {c: data[c].to_numpy() for c in data.columns}
    changed = {c: x for c, x in column_dtypes(columns, readings, computed).items() if x is not columns[c]}
    if not changed:
        return data  # already right (the usual case: no copy of a large table)
    out = data.copy(deep=False)
    for c, x in changed.items():
        out[c] = x
    return out


def column_dtypes(
    columns: Mapping[str, np.ndarray], readings: Readings, computed: Sequence[str] = ()
) -> dict[str, np.ndarray]:
    """Each event's column float32 when its readings are, else float64; values never change.

    A column of actual readings (MUCH, copula, joint, HRM's non-anchor events: each value
    only moved) is float32 when every group that read its event is float32
    (:meth:`hemkit.Readings.dtype_of`).  ``computed`` columns (HRM's anchor quantiles,
    which may average two readings) and any other column are float64, whatever the data,
    so a table's schema never depends on its values.  A column already right is returned
    as it is (no copy).
    """
    out = {}
    for c, x in columns.items():
        x = np.asarray(x)
        single = c in readings.events and readings.dtype_of(c) == np.float32 and c not in computed
        if not (single and x.dtype == np.float32 or not single and x.dtype == np.float64):
            exact = single and np.array_equal(x.astype(np.float32), x)  # else keep every digit in float64
            x = x.astype(np.float32 if exact else np.float64)
        out[c] = x
    return out


def make_result(
    data: pd.DataFrame | Mapping[str, np.ndarray],
    method: str,
    params: Mapping[str, Any],
    diagnostics: Mapping[str, Any],
    readings: Readings,
    computed: Sequence[str] = (),
) -> MergeResult:
    """Build a :class:`MergeResult` (observed pairs taken from ``readings``).

    ``data`` is the merged table, as a DataFrame or as a mapping event -> column.  Each
    merged column gets the dtype of its event's readings, ``computed`` columns float64
    (:func:`column_dtypes`).
    """
    if isinstance(data, Mapping):
        columns = {str(c): np.asarray(x) for c, x in data.items()}
    else:
        columns = {str(c): data[c].to_numpy() for c in data.columns}
    arrays = {}
    for c, x in column_dtypes(columns, readings, computed).items():
        x = np.array(x, copy=True)  # the result's own, read-only
        x.flags.writeable = False
        arrays[c] = x
    return MergeResult(
        arrays=MappingProxyType(arrays),
        method=method,
        params=frozen_mapping(params),
        diagnostics=frozen_mapping(diagnostics),
        source=readings,
    )


__all__ = [
    "INTERVAL_COLUMNS",
    "MergeResult",
    "column_dtypes",
    "make_result",
    "matrix_correlations",
    "observed_pairs",
    "observed_upper",
    "pair_index",
    "reading_dtypes",
    "table_correlations",
]
