"""Reordering actual readings to follow the ranks of a sample (the last step of MUCH).

MUCH (Vilardell et al. 2021, Sec. 4.3, step 5) and the copula merge do not output synthetic
values: each event's merged column is its **actual readings**, placed in the order of a
sample column.  :func:`event_values` gathers each event's readings over all the groups that
read it; :func:`reorder` places them.  Inside the merge methods arrays are laid out
events x runs (``(..., k, n)``) so that every sort runs over contiguous memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hemkit.core.parallel import row_ranges, rowwise
from hemkit.core.readings import Readings
from hemkit.merge.correlation import standardized

if TYPE_CHECKING:
    import pandas as pd


def event_values(readings: Readings, events: list[str], n: int) -> np.ndarray:
    """Sorted readings of each event, ``n`` per event (a ``len(events) x n`` array).

    An event read in one group of ``n`` runs gives exactly its ``n`` readings, so the merged
    column is a permutation of them.  An event with ``m != n`` pooled readings (read in
    several groups, or groups of other sizes) gives the ``n`` order statistics at evenly
    spaced ranks ``round(linspace(0, m - 1, n))``: still actual readings, spread over its
    whole distribution (a documented resample).

    The array is float32 when every group that read one of ``events`` is float32 (the
    readings as given, half the memory), else float64; either holds the readings exactly.
    """
    single = all(readings.dtype_of(e) == np.float32 for e in events)
    out = np.empty((len(events), n), dtype=np.float32 if single else np.float64)
    for j, e in enumerate(events):  # a loop over events; each step is vectorised over runs
        pooled = np.sort(readings.pooled(e))
        if len(pooled) == n:
            out[j] = pooled
        else:
            out[j] = pooled[np.rint(np.linspace(0, len(pooled) - 1, n)).astype(np.int64)]
    return out


def pooled_counts(readings: Readings) -> pd.Series:
    """Number of readings of each event over all the groups that read it."""
    import pandas as pd

    return pd.Series(reading_counts(readings), dtype=np.int64)


def reading_counts(readings: Readings) -> dict[str, int]:
    """:func:`pooled_counts` as a dict (no pandas)."""
    counts = dict.fromkeys(readings.events, 0)
    for grp in readings.arrays.values():
        for e in grp.events:
            counts[e] += len(grp.runs)
    return counts


#: merged rows are capped here unless a single group is larger (see :func:`default_rows`)
MAX_DEFAULT_ROWS = 100_000


def default_rows(readings: Readings) -> int:
    """Merged rows by default: every reading of the event read most often, capped at 100 000.

    The MUCH paper (Sec. 4.3) sets the sample size to "the actual number of measured values
    per HEM": with every reading of every event in the merged table its correlations
    carry the least arrangement noise.  Events read less often are spread over their
    order statistics (:func:`event_values`).  The cap (or the largest group, if larger)
    bounds memory; pass ``n`` to choose.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> default_rows(t2080_much())   # PROCESSOR_CYCLES was read in all 24 groups of 1000 runs
    24000
    """
    most = max(reading_counts(readings).values())
    return int(min(most, max(max(readings.run_counts.values()), MAX_DEFAULT_ROWS)))


def place(sorted_values: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """Place sorted values (``(k, n)``) in the rank order of ``sample`` (``(..., k, n)``), along the last axis."""
    return place_by(argsort_rows(sample), sorted_values)


def argsort_rows(x: np.ndarray) -> np.ndarray:
    """``np.argsort(x, axis=-1)``, the rows split over threads inside :func:`hemkit.core.parallel.jobs`."""
    return rowwise(_argsort_last, x, dtype=np.intp)


def _argsort_last(x: np.ndarray) -> np.ndarray:
    return np.argsort(x, axis=-1)


def place_by(order: np.ndarray, sorted_values: np.ndarray) -> np.ndarray:
    """Put ``sorted_values[..., i]`` at position ``order[..., i]`` along the last axis (``order`` from an argsort).

    Examples
    --------
    >>> place_by(np.array([[2, 0, 1]]), np.array([[10.0, 20, 30]]))
    array([[20., 30., 10.]])
    """
    out = np.empty(order.shape, dtype=np.result_type(sorted_values.dtype, np.float32))
    n = order.shape[-1]
    flat_out, flat_order = out.reshape(-1, n), order.reshape(-1, n)
    values = np.asarray(sorted_values).reshape(-1, n)
    per = len(values)  # (k, n) under (..., k, n): flat row r takes the values of row r % k
    chunk = max(1, (1 << 20) // max(n, 1))  # rows per scatter: index temporaries of ~8 MB

    def rows(a: int, b: int) -> None:
        # one flat scatter per chunk of rows (2x faster than put_along_axis, which builds
        # broadcast index arrays per call); each row writes only its own n cells
        for lo in range(a, b, chunk):
            hi = min(lo + chunk, b)
            idx = flat_order[lo:hi] + (np.arange(hi - lo) * n)[:, None]
            src = values[np.arange(lo, hi) % per]
            flat_out[lo:hi].reshape(-1)[idx.ravel()] = src.ravel()

    row_ranges(rows, len(flat_order), order.size)
    return out


def reorder(values: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """Put each column of ``values`` in the rank order of the same column of ``sample``.

    Both are ``runs x events``; ``values`` need not be sorted.

    Parameters
    ----------
    values : numpy.ndarray
        The readings, runs x events.
    sample : numpy.ndarray
        The sample whose ranks they take, the shape of ``values``.

    Returns
    -------
    numpy.ndarray
        Runs x events: in each column, the i-th smallest reading where the sample has its
        i-th smallest value.  float32 readings stay float32 (they are only moved); anything
        else becomes float64.

    Examples
    --------
    The MUCH paper's example: readings {9, 10, 12, 17} ordered by the sample
    {1.121, -0.870, -0.172, 0.343} become {17, 9, 10, 12}.

    >>> reorder(np.array([[9.0], [10], [12], [17]]), np.array([[1.121], [-0.870], [-0.172], [0.343]])).ravel()
    array([17.,  9., 10., 12.])
    """
    values = np.asarray(values)
    values = np.sort(values if values.dtype == np.float32 else values.astype(np.float64), axis=0)
    return place(values.T, np.asarray(sample, dtype=float).T).T


def batch_correlation(x: np.ndarray, *, standardize: bool = True) -> np.ndarray:
    """Pearson correlation matrices of ``x`` laid out ``(..., events, runs)``.

    Each row is first scaled to ``[-1, 1]`` around its median (correlations do not change),
    so counts up to the float64 limit and large stable counters in float32 stay exact
    enough; a constant row gives NaN correlations.  ``standardize=False`` skips that step
    for rows the caller already scaled (e.g. with :func:`hemkit.merge.correlation.standardized`).

    float32 input is correlated in float32 (after the scaling): fast and exact enough to
    *rank* MUCH's draws, but not float64-accurate.  Pass float64 (e.g. merged float32
    readings upcast with ``np.asarray(x, dtype=np.float64)``) for a correlation that is reported.

    Examples
    --------
    >>> batch_correlation(np.array([[1.0, 2, 3], [3e38, 2e38, 1e38]])).round(6)
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    x = np.asarray(x)
    work = np.float32 if x.dtype == np.float32 else np.float64
    if standardize:
        x = standardized(x)
    x = x.astype(work, copy=False)
    xc = x - x.mean(axis=-1, keepdims=True)
    cov = xc @ np.swapaxes(xc, -1, -2)
    d = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return cov / (d[..., :, None] * d[..., None, :])
