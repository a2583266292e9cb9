"""Reordering actual readings to follow the ranks of a sample (the last step of MUCH).

MUCH (Vilardell et al. 2021, Sec. 4.3, step 5) and the copula merge do not output synthetic
values: each event's merged column is its **actual readings**, placed in the order of a
sample column.  :func:`event_values` gathers each event's readings over all the groups that
read it; :func:`reorder` places them.  Inside the merge methods arrays are laid out
events x runs (``(..., k, n)``) so that every sort runs over contiguous memory.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hemkit.readings import Readings


def event_values(readings: Readings, events: list[str], n: int) -> np.ndarray:
    """Sorted readings of each event, ``n`` per event (a ``len(events) x n`` array).

    An event read in one group of ``n`` runs gives exactly its ``n`` readings, so the merged
    column is a permutation of them.  An event with ``m != n`` pooled readings (read in
    several groups, or groups of other sizes) gives the ``n`` order statistics at evenly
    spaced ranks ``round(linspace(0, m - 1, n))``: still actual readings, spread over its
    whole distribution (a documented resample).
    """
    out = np.empty((len(events), n))
    for j, e in enumerate(events):  # a loop over events; each step is vectorised over runs
        pooled = np.sort(np.concatenate([t[e].to_numpy() for t in readings.groups.values() if e in t.columns]))
        if len(pooled) == n:
            out[j] = pooled
        else:
            out[j] = pooled[np.rint(np.linspace(0, len(pooled) - 1, n)).astype(np.int64)]
    return out


def pooled_counts(readings: Readings) -> pd.Series:
    """Number of readings of each event over all the groups that read it."""
    return readings.membership().mul(readings.n_runs, axis=0).sum(axis=0)


def place(sorted_values: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """Place sorted values (``(k, n)``) in the rank order of ``sample`` (``(..., k, n)``), along the last axis."""
    order = np.argsort(sample, axis=-1)
    out = np.empty(sample.shape, dtype=np.result_type(sorted_values.dtype, np.float32))
    np.put_along_axis(out, order, np.broadcast_to(sorted_values, sample.shape), axis=-1)
    return out


def reorder(values: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """Put each column of ``values`` in the rank order of the same column of ``sample``.

    Both are ``runs x events``; ``values`` need not be sorted.

    Examples
    --------
    The MUCH paper's example: readings {9, 10, 12, 17} ordered by the sample
    {1.121, -0.870, -0.172, 0.343} become {17, 9, 10, 12}.

    >>> reorder(np.array([[9.0], [10], [12], [17]]), np.array([[1.121], [-0.870], [-0.172], [0.343]])).ravel()
    array([17.,  9., 10., 12.])
    """
    values = np.sort(np.asarray(values, dtype=float), axis=0)
    return place(values.T, np.asarray(sample, dtype=float).T).T


def batch_correlation(x: np.ndarray) -> np.ndarray:
    """Pearson correlation matrices of ``x`` laid out ``(..., events, runs)``."""
    xc = x - x.mean(axis=-1, keepdims=True)
    cov = xc @ np.swapaxes(xc, -1, -2)
    d = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return cov / (d[..., :, None] * d[..., None, :])
