"""Scores of multiplexing estimates against the OCOE truth (Wang et al. 2022, section 4.2).

* **RA** (relative accuracy, Eq. (4)): ``RA = 1 - mean_i |est_i - true_i| / true_i`` over the
  intervals of one series, clipped at 0 as in the paper.  The paper's counts never hit 0;
  software events and tracepoints do (no page faults while computing), so hemkit scores an
  interval whose true count is 0 as relative error 0 when the estimate rounds to 0
  (``|est| < 0.5``) and 1 (a full miss) otherwise.
* **DTW-cost** (section 4.2 (2)): the cost of the cheapest monotone warping path between the
  estimated and the true series (steps (i+1, j), (i, j+1), (i+1, j+1), path from (1, 1) to
  (m, n)) with point cost ``|a_i - b_j|``.  hemkit computes it on ``log10(1 + count)`` so that
  events of very different magnitudes are comparable (the paper does not say its scale).
  The dynamic programme runs over anti-diagonals, vectorised over series and cells.
* **total error**: ``|sum est - sum true| / sum true`` per run, what a ``perf stat`` user sees.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError


def relative_errors(est: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Per-interval relative error with hemkit's zero-truth rule (NaN where either is NaN)."""
    est = np.asarray(est, float)
    true = np.asarray(true, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.abs(est - true) / np.abs(true)
    zero = true == 0
    rel = np.where(zero, (np.abs(est) >= 0.5).astype(float), rel)
    return np.where(np.isnan(est) | np.isnan(true), np.nan, rel)


def relative_accuracy(est, true, axis: int = -1) -> np.ndarray | float:
    """RA (Eq. 4), clipped at 0; NaN entries (padding) are ignored.

    Examples
    --------
    >>> float(relative_accuracy([90, 110, 100], [100, 100, 100]))   # mean error 0.2/3
    0.9333333333333333
    >>> float(relative_accuracy([0, 3], [0, 1]))                    # errors 0 and 2
    0.0
    """
    rel = relative_errors(est, true)
    with np.errstate(invalid="ignore"):
        ra = 1.0 - np.nanmean(rel, axis=axis)
    ra = np.maximum(ra, 0.0)
    return float(ra) if np.ndim(ra) == 0 else ra


def dtw_cost(a, b, *, log: bool = True, chunk_cells: int = 8_000_000) -> np.ndarray | float:
    """DTW-cost between rows of ``a`` and ``b`` (same shape (S, T) or 1-D; trailing NaN = shorter series).

    Examples
    --------
    >>> float(dtw_cost([0, 1, 2], [0, 1, 2], log=False))
    0.0
    >>> float(dtw_cost([0, 0, 1], [0, 1, 1], log=False))     # a warp absorbs the shift
    0.0
    >>> float(dtw_cost([1, 2, 3], [1, 2, 5], log=False))
    2.0
    """
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    one = a.ndim == 1
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    if a.shape != b.shape:
        raise HemkitError(f"dtw_cost: shapes differ {a.shape} vs {b.shape}")
    if log:
        a, b = np.log10(1 + np.maximum(a, 0)), np.log10(1 + np.maximum(b, 0))
    length = (~np.isnan(a) & ~np.isnan(b)).sum(axis=1)
    S, T = a.shape
    out = np.full(S, np.nan)
    step = max(1, chunk_cells // max(T * T, 1))
    for s0 in range(0, S, step):  # chunks bound the (S, T, T) memory
        out[s0 : s0 + step] = _dtw_chunk(
            np.nan_to_num(a[s0 : s0 + step]), np.nan_to_num(b[s0 : s0 + step]), length[s0 : s0 + step]
        )
    return float(out[0]) if one else out


def _dtw_chunk(a: np.ndarray, b: np.ndarray, length: np.ndarray) -> np.ndarray:
    S, T = a.shape
    D = np.full((S, T + 1, T + 1), np.inf)
    D[:, 0, 0] = 0.0
    for k in range(2, 2 * T + 1):  # anti-diagonal i + j = k (1-based cells)
        i = np.arange(max(1, k - T), min(T, k - 1) + 1)
        j = k - i
        cost = np.abs(a[:, i - 1] - b[:, j - 1])
        best = np.minimum(np.minimum(D[:, i - 1, j], D[:, i, j - 1]), D[:, i - 1, j - 1])
        D[:, i, j] = cost + best
    res = D[np.arange(S), length, length]
    return np.where(length > 0, res, np.nan)


def total_error(est: np.ndarray, true: np.ndarray) -> np.ndarray:
    """``|sum est - sum true| / sum true`` per row (NaN padding ignored)."""
    se, st = np.nansum(est, axis=-1), np.nansum(true, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(st > 0, np.abs(se - st) / st, np.where(np.abs(se) < 0.5, 0.0, np.inf))


def score(mpx, estimates: Mapping[str, np.ndarray], *, dtw: bool = True) -> pd.DataFrame:
    """Score every estimator on every series of ``mpx`` (which must carry ``truth``).

    Returns a long table: the series keys (``run, event`` and ``workload`` when known),
    ``estimator, ra, dtw, total_error``.
    """
    if mpx.truth is None:
        raise HemkitError("scoring needs the true (OCOE) counts; emulate from an OCOE trace")
    parts = []
    for name, est in estimates.items():
        est = np.asarray(est, float)
        if est.shape != mpx.truth.shape:
            raise HemkitError(f"estimator {name}: estimate shape {est.shape} != truth {mpx.truth.shape}")
        v = mpx.valid
        e = np.where(v, est, np.nan)
        t = np.where(v, mpx.truth, np.nan)
        part = mpx.keys.copy()
        part["estimator"] = name
        part["ra"] = relative_accuracy(e, t, axis=1)
        part["dtw"] = dtw_cost(e, t) if dtw else np.nan
        part["total_error"] = total_error(e, t)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


class ScoreResult:
    """Scores of several estimators with per-event / per-workload tables and a ``summary()``."""

    def __init__(self, table: pd.DataFrame, baseline: str = "fixed"):
        self.table = table
        self.baseline = baseline

    def by(self, key: str, metric: str = "ra") -> pd.DataFrame:
        """Mean ``metric`` per ``key`` (``event`` or ``workload``) x estimator."""
        if key not in self.table.columns:
            raise HemkitError(f"scores have no column {key!r}")
        return self.table.pivot_table(index=key, columns="estimator", values=metric, aggfunc="mean", sort=True)

    def overall(self) -> pd.DataFrame:
        """Mean RA, mean (1 - RA), DTW and total error per estimator; cut of (1 - RA) vs the baseline."""
        g = self.table.groupby("estimator")
        out = pd.DataFrame({"ra": g["ra"].mean(), "dtw": g["dtw"].mean(), "total_error": g["total_error"].median()})
        out["error"] = 1 - out["ra"]
        if self.baseline in out.index:
            out["error_cut"] = 1 - out["error"] / out.loc[self.baseline, "error"]
        return out

    def summary(self) -> str:
        lines = ["per estimator (mean over series; total_error = median):", self.overall().round(4).to_string()]
        if "event" in self.table.columns:
            lines += ["", "RA per event:", self.by("event").round(3).to_string()]
        return "\n".join(lines)


def markdown_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A DataFrame as a GitHub Markdown table (no ``tabulate`` dependency)."""
    cols = [frame.index.name or ""] + [str(c) for c in frame.columns]

    def fmt(v):
        return f"{v:.{digits}f}" if isinstance(v, (float, np.floating)) else str(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in frame.iterrows():
        lines.append("| " + " | ".join([str(idx)] + [fmt(v) for v in row]) + " |")
    return "\n".join(lines)
