"""Scores of multiplexing estimates against the OCOE truth (Wang et al. 2022, sections 2.4 and 4.2).

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
* **total error**: ``|sum est - sum true| / sum true`` per series, what a ``perf stat`` user sees.

RA alone rewards caution -- it punishes an overestimate without bound and an underestimate
by at most 1, so an estimator that always undercounts scores well -- so hemkit reports the
three side by side and ranks estimators on all three (:meth:`MpxScores.summary`).

* **Run-to-run correlation** (section 2.4, Eq. (3)): Pearson's r between the series of two
  repeated runs of one workload (cut to the shorter run), per event, averaged over the pairs
  of runs (:func:`run_to_run`).  A low r says the ground truth itself is unstable from run to
  run, so no estimator can be judged finely on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import InputError
from hemkit.core.results import Result, result
from hemkit.mpx.emulate import MpxData


def relative_errors(est: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Per-interval relative error with hemkit's zero-truth rule (NaN where either is NaN).

    Examples
    --------
    >>> relative_errors(np.array([2.0, 0.2, 3.0]), np.array([1.0, 0.0, 0.0])).tolist()
    [1.0, 0.0, 1.0]
    """
    est = np.asarray(est, float)
    true = np.asarray(true, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.abs(est - true) / np.abs(true)
    zero = true == 0
    rel = np.where(zero, (np.abs(est) >= 0.5).astype(float), rel)
    return np.where(np.isnan(est) | np.isnan(true), np.nan, rel)


def relative_accuracy(est: Any, true: Any, axis: int = -1) -> Any:
    """RA (Eq. 4), clipped at 0; NaN entries (padding) are ignored.

    Parameters
    ----------
    est : array_like
        Estimated counts per interval.
    true : array_like
        True counts, the shape of ``est`` (or broadcast against it).
    axis : int, default -1
        The axis of the intervals: one RA per series along it.

    Returns
    -------
    float or numpy.ndarray
        A float for 1-D input, else an array of one RA per series; NaN for a series of NaN
        only.  A true count of 0 is an error of 0 when the estimate rounds to 0, else 1.

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


def dtw_path(a: Any, b: Any, *, log: bool = True) -> tuple[float, np.ndarray]:
    """DTW-cost of two 1-D series and the cheapest warping path, as (i, j) pairs.

    Examples
    --------
    >>> cost, path = dtw_path([0, 0, 1], [0, 1, 1], log=False)
    >>> cost, path.tolist()
    (0.0, [[0, 0], [1, 0], [2, 1], [2, 2]])
    """
    x = np.asarray(a, float)
    y = np.asarray(b, float)
    if x.ndim != 1 or y.ndim != 1 or len(x) == 0 or len(y) == 0:
        raise InputError("dtw_path takes two non-empty 1-D series")
    if log:
        x, y = np.log10(1 + np.maximum(x, 0)), np.log10(1 + np.maximum(y, 0))
    n, m = len(x), len(y)
    cost = np.abs(x[:, None] - y[None, :])
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):  # row by row; the inner minimum is a running scan
        best = np.minimum(D[i - 1, 1:], D[i - 1, :-1])
        row = D[i]
        for j in range(1, m + 1):
            row[j] = cost[i - 1, j - 1] + min(best[j - 1], row[j - 1])
    path = [(n - 1, m - 1)]
    i, j = n, m
    while (i, j) != (1, 1):
        steps = [(i - 1, j - 1), (i - 1, j), (i, j - 1)]
        i, j = min((s for s in steps if s[0] >= 1 and s[1] >= 1), key=lambda s: D[s])
        path.append((i - 1, j - 1))
    return float(D[n, m]), np.array(path[::-1])


def dtw_cost(a: Any, b: Any, *, log: bool = True, chunk_cells: int = 8_000_000) -> Any:
    """DTW-cost between rows of ``a`` and ``b`` (same shape (S, T) or 1-D; trailing NaN = shorter series).

    Parameters
    ----------
    a, b : array_like
        The series, 1-D or (S, T) of the same shape.  NaN is padding at the end: a row's
        length is the number of intervals where neither is NaN, and its first that many
        intervals are compared.
    log : bool, default True
        Compare ``log10(1 + max(x, 0))`` instead of the counts (events of very different
        magnitudes become comparable).
    chunk_cells : int, default 8000000
        Most (series x T x T) cells of the dynamic programme held at once; bounds memory,
        not the result.

    Returns
    -------
    float or numpy.ndarray
        A float for 1-D input, else one cost per row; NaN for a row with no interval both have.

    Raises
    ------
    InputError
        ``a`` and ``b`` of different shapes.

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
        raise InputError(f"dtw_cost: shapes differ {a.shape} vs {b.shape}")
    if log:
        a, b = np.log10(1 + np.maximum(a, 0)), np.log10(1 + np.maximum(b, 0))
    length = (~np.isnan(a) & ~np.isnan(b)).sum(axis=1)
    out = np.full(len(a), np.nan)
    order = np.argsort(length, kind="stable")  # similar lengths together: each chunk only as wide as it needs
    lens = np.maximum(length[order], 1).astype(float)
    s0 = 0
    while s0 < len(order):
        cells = np.arange(1, len(order) - s0 + 1) * lens[s0:] ** 2  # a chunk's (series, T, T) memory
        fits = cells <= chunk_cells
        count = max(1, len(fits) if fits.all() else int(np.argmin(fits)))
        idx = order[s0 : s0 + count]
        T = max(int(length[idx].max()), 1)
        out[idx] = _dtw_chunk(np.nan_to_num(a[idx, :T]), np.nan_to_num(b[idx, :T]), length[idx])
        s0 += count
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
    """``|sum est - sum true| / sum true`` per row (NaN padding ignored).

    Parameters
    ----------
    est : numpy.ndarray
        Estimated counts, (S, T) or 1-D.
    true : numpy.ndarray
        True counts, the shape of ``est``.

    Returns
    -------
    numpy.ndarray
        One error per row (0-d for 1-D input).  Where the true total is 0: 0 when the
        estimated total rounds to 0, else ``inf``.

    Examples
    --------
    >>> total_error(np.array([[5.0, 5.0]]), np.array([[4.0, 4.0]])).tolist()
    [0.25]
    """
    se, st = np.nansum(est, axis=-1), np.nansum(true, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(st > 0, np.abs(se - st) / st, np.where(np.abs(se) < 0.5, 0.0, np.inf))


def score_table(
    mpx: MpxData,
    estimates: Mapping[str, np.ndarray],
    *,
    dtw: bool = True,
    totals: Mapping[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Score every estimate on every series of ``mpx`` (which must carry ``truth``).

    ``totals`` gives an estimator's own total of each series (S,) where it estimates them
    apart from its series (:meth:`hemkit.mpx.estimators.MpxEstimator.estimate_with_totals`);
    otherwise the total error is that of the sum of the series.

    Parameters
    ----------
    mpx : MpxData
        Emulated multiplexing, with ``truth``.
    estimates : mapping
        Estimator name -> its (S, T) estimate of ``mpx``'s series; at least one.
    dtw : bool, default True
        Compute the DTW-cost (:func:`dtw_cost`, the slowest score); False leaves ``dtw`` NaN.
    totals : mapping, optional
        Estimator name -> its own (S,) totals, for the estimators that have them.

    Returns
    -------
    DataFrame
        A long table, one row per (estimator, series): the series keys (``run, event`` and
        ``workload`` when known), ``estimator, ra, dtw, total_error, signed_total_error``.

    Raises
    ------
    InputError
        ``mpx`` without ``truth``, no estimate, or an estimate or totals of another shape than its series.

    Examples
    --------
    >>> from hemkit.mpx.emulate import emulate
    >>> from hemkit.mpx.synthetic import synthetic_trace
    >>> m = emulate(synthetic_trace(runs=1, steps=20, events=3), pmcs=2)
    >>> t = score_table(m, {"truth": m.truth})
    >>> t[["ra", "dtw", "total_error"]].max().tolist()
    [1.0, 0.0, 0.0]
    """
    if mpx.truth is None:
        raise InputError("scoring needs the true (OCOE) counts; emulate from an OCOE trace")
    if not estimates:
        raise InputError("score_table needs at least one estimate (estimates is empty)")
    parts = []
    v = mpx.valid
    t = np.where(v, mpx.truth, np.nan)
    for name, est in estimates.items():
        est = np.asarray(est, float)
        if est.shape != mpx.truth.shape:
            raise InputError(f"estimator {name}: estimate shape {est.shape} != truth {mpx.truth.shape}")
        e = np.where(v, est, np.nan)
        part = mpx.keys.copy()
        part["estimator"] = name
        part["ra"] = relative_accuracy(e, t, axis=1)
        part["dtw"] = dtw_cost(e, t) if dtw else np.nan
        st = np.nansum(t, axis=1)
        se = np.nansum(e, axis=1)
        if totals is not None and name in totals:
            se = np.asarray(totals[name], float)
            if se.shape != st.shape:
                raise InputError(f"estimator {name}: {se.shape[0]} totals for {st.shape[0]} series")
        with np.errstate(invalid="ignore", divide="ignore"):
            part["total_error"] = np.where(st > 0, np.abs(se - st) / st, np.where(np.abs(se) < 0.5, 0.0, np.inf))
            part["signed_total_error"] = np.where(st > 0, (se - st) / st, 0.0)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def run_to_run(trace: pd.DataFrame, *, min_steps: int = 3) -> pd.DataFrame:
    """Pearson correlation of repeated runs of one workload, per event (paper section 2.4, Eq. 3).

    For every workload (and event set, when the trace has a ``set`` column) and event, every
    pair of runs is compared over their common length; ``r`` is the mean over the pairs,
    ``r_min`` the lowest.  An event constant in a run gives no correlation (NaN).

    Parameters
    ----------
    trace : DataFrame
        A tidy OCOE trace with ``workload, run, step, event, value`` (and ``set``).
    min_steps : int, default 3
        The fewest common intervals for a pair of runs to be compared.

    Returns
    -------
    DataFrame
        ``workload, event, runs, pairs, r, r_min``.

    Raises
    ------
    InputError
        A column missing.

    Examples
    --------
    >>> import numpy as np
    >>> tr = pd.DataFrame({"workload": "w", "run": np.repeat(["a", "b"], 4), "step": [0, 1, 2, 3] * 2,
    ...                    "event": "e", "value": [1.0, 5, 2, 8, 1.1, 5.2, 2.1, 7.5]})
    >>> float(run_to_run(tr)["r"].iloc[0].round(3))
    0.997
    """
    need = [c for c in ("workload", "run", "step", "event", "value") if c not in trace.columns]
    if need:
        raise InputError(f"trace: missing column(s) {', '.join(need)}")
    rows = []
    keys = ["workload"] + (["set"] if "set" in trace.columns else [])
    for key, sub in trace.groupby(keys, sort=True):
        wl = key[0] if isinstance(key, tuple) else key
        for ev, es in sub.groupby("event", sort=False):
            series = [g.sort_values("step")["value"].to_numpy(float) for _, g in es.groupby("run", sort=True)]
            rs = []
            for i in range(len(series)):
                for j in range(i + 1, len(series)):
                    n = min(len(series[i]), len(series[j]))
                    a, b = series[i][:n], series[j][:n]
                    if n >= min_steps and np.std(a) > 0 and np.std(b) > 0:
                        rs.append(float(np.corrcoef(a, b)[0, 1]))
            rows.append(
                {
                    "workload": wl,
                    "event": ev,
                    "runs": len(series),
                    "pairs": len(rs),
                    "r": float(np.mean(rs)) if rs else np.nan,
                    "r_min": float(np.min(rs)) if rs else np.nan,
                }
            )
    return pd.DataFrame(rows, columns=["workload", "event", "runs", "pairs", "r", "r_min"])


METRICS = ("ra", "dtw", "total_error")


def rank_estimators(table: pd.DataFrame, baseline: str | None = "fixed") -> pd.DataFrame:
    """Per estimator: RA, DTW-cost and total error side by side, and ranks on all three.

    Columns: mean RA, error = 1 - RA, its cut against ``baseline``, mean DTW-cost, median
    |total error|, the worst event's RA difference to the baseline, a rank on each of the
    three scores and their mean (``rank``, lower is better; ties share the better rank).
    """
    g = table.groupby("estimator", sort=False)
    out = pd.DataFrame(
        {
            "ra": g["ra"].mean(),
            "error": 1 - g["ra"].mean(),
            "dtw": g["dtw"].mean(),
            "total_error": g["total_error"].median(),
        }
    )
    if baseline is not None and baseline in out.index:
        base = out.loc[baseline, "error"]
        out["error_cut"] = 1 - out["error"] / base if base > 0 else np.nan
        if "event" in table.columns:
            ev = table.pivot_table(index="event", columns="estimator", values="ra", aggfunc="mean")
            out["worst_event_ra"] = ev.sub(ev[baseline], axis=0).min().reindex(out.index)
        out["total_vs_baseline"] = (
            out["total_error"] / out.loc[baseline, "total_error"] if out.loc[baseline, "total_error"] > 0 else np.nan
        )
    out["rank_ra"] = out["ra"].rank(ascending=False, method="min")
    out["rank_dtw"] = out["dtw"].rank(ascending=True, method="min")
    out["rank_total"] = out["total_error"].rank(ascending=True, method="min")
    out["rank"] = out[["rank_ra", "rank_dtw", "rank_total"]].mean(axis=1)
    out.index.name = "estimator"
    return out.sort_values(["rank", "error"])


@result
class MpxScores(Result):
    """Scores of several estimators on emulated multiplexing of OCOE traces.

    Attributes
    ----------
    table : DataFrame
        One row per series and estimator: the series keys (``workload, run, event``),
        ``estimator, ra, dtw, total_error, signed_total_error`` (and ``pmcs`` when scored at
        several counter counts).
    baseline : str
        The estimator others are compared with (perf's ``fixed`` scaling).
    run_to_run : DataFrame or None
        :func:`run_to_run` of the traces (workload, event, runs, pairs, r, r_min).
    params : mapping
        How the scores were made (counters, rotation, cleaning).

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=2, steps=40), pmcs=2)
    >>> ests = {n: make_estimator(n).estimate_array(m.without_truth()) for n in ("fixed", "linear")}
    >>> MpxScores(score_table(m, ests)).summary()[["ra", "total_error", "rank"]].shape
    (2, 3)
    """

    table: pd.DataFrame
    baseline: str = "fixed"
    run_to_run: pd.DataFrame | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    def summary(self) -> pd.DataFrame:
        """Per estimator, ranked on RA, DTW-cost and total error together (see :func:`rank_estimators`)."""
        return rank_estimators(self.table, self.baseline)

    def to_frame(self) -> pd.DataFrame:
        """The per-series table."""
        return self.table.copy()

    def by(self, key: str, metric: str = "ra") -> pd.DataFrame:
        """Mean ``metric`` (``ra``, ``dtw``; ``total_error`` is the median) per ``key`` x estimator."""
        if key not in self.table.columns:
            raise InputError(f"scores have no column {key!r} (have {', '.join(self.table.columns)})")
        if metric not in METRICS:
            raise InputError(f"unknown score {metric!r} ({', '.join(METRICS)})")
        how = "median" if metric == "total_error" else "mean"
        return self.table.pivot_table(index=key, columns="estimator", values=metric, aggfunc=how, sort=True)

    def plot(self, ax: Any = None, key: str = "event") -> Any:
        """Bars of mean RA per ``key`` and estimator; returns the Axes."""
        return plot_ra(self.table, ax=ax, key=key)


def plot_ra(scores: pd.DataFrame, ax: Any = None, key: str = "event") -> Any:
    """Bars of mean RA per ``key`` (event) and estimator.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> t = pd.DataFrame({"event": ["a", "a"], "estimator": ["fixed", "phase"], "ra": [0.7, 0.9]})
    >>> plot_ra(t).get_ylabel()
    'RA (relative accuracy, 1 = exact)'
    """
    table = scores.pivot_table(index=key, columns="estimator", values="ra", aggfunc="mean")
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(max(6.0, 0.35 * len(table) * max(1, len(table.columns))), 4.5))
    width = 0.8 / max(len(table.columns), 1)
    x = np.arange(len(table))
    for k, name in enumerate(table.columns):
        ax.bar(x + k * width, table[name].to_numpy(), width, label=name)
    ax.set_xticks(x + width * (len(table.columns) - 1) / 2)
    ax.set_xticklabels(table.index, rotation=60, ha="right", fontsize="small")
    ax.set_xlabel(key)
    ax.set_ylabel("RA (relative accuracy, 1 = exact)")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Mean RA per {key} and estimator")
    ax.legend(fontsize="small")
    return ax


def markdown_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A DataFrame as a GitHub Markdown table (no ``tabulate`` dependency).

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"ra": [0.5]}, index=pd.Index(["fixed"], name="estimator"))))
    | estimator | ra |
    |---|---|
    | fixed | 0.500 |
    """
    cols = [frame.index.name or ""] + [str(c) for c in frame.columns]

    def fmt(v: Any) -> str:
        return f"{v:.{digits}f}" if isinstance(v, float | np.floating) else str(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in frame.iterrows():
        lines.append("| " + " | ".join([str(idx)] + [fmt(v) for v in row]) + " |")
    return "\n".join(lines)


__all__ = [
    "METRICS",
    "MpxScores",
    "dtw_cost",
    "dtw_path",
    "markdown_table",
    "plot_ra",
    "rank_estimators",
    "relative_accuracy",
    "relative_errors",
    "run_to_run",
    "score_table",
    "total_error",
]
