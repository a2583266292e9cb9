"""Figures of multiplexing estimates (paper Fig. 6-8 in spirit).

* :func:`plot_series` -- one event of one run over time: the truth, the slices perf saw, and
  each estimator's series.
* :func:`plot_dtw` -- how DTW aligns an estimate with the truth (the warping path drawn as
  lines between the matched intervals); the title gives the DTW-cost.
* :func:`plot_ra` -- bars of mean RA per event and estimator.
* :func:`estimate_figure` -- what ``hemkit mpx score --plot`` draws: per event of one run,
  truth vs perf's ``fixed`` scaling vs the chosen estimator, and a DTW alignment panel.

Every plot takes ``ax=None`` and returns the Axes; every axis is labelled with its unit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import InputError
from hemkit.mpx.emulate import MpxData, Rotation, emulate
from hemkit.mpx.estimators import MpxEstimator
from hemkit.mpx.scores import dtw_path, plot_ra, relative_accuracy


def _axes(ax: Any, size: tuple[float, float]) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=size)
    return ax


def _series_index(mpx: MpxData, run: str, event: str) -> int:
    hit = np.flatnonzero((mpx.keys["run"] == str(run)).to_numpy() & (mpx.keys["event"] == event).to_numpy())
    if not len(hit):
        raise InputError(f"no series for run {run!r} and event {event!r}")
    return int(hit[0])


def plot_series(mpx: MpxData, estimates: Mapping[str, np.ndarray], run: str, event: str, ax: Any = None) -> Any:
    """True counts, the slices on a counter, and each estimator's series for one run and event.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=1, steps=40), pmcs=2)
    >>> ax = plot_series(m, {"fixed": make_estimator("fixed").estimate_array(m)}, m.keys["run"][0], "ev0")
    >>> ax.get_xlabel()
    'interval (10 ms each)'
    """
    s = _series_index(mpx, run, event)
    n = int(mpx.length[s])
    steps = np.arange(n)
    ax = _axes(ax, (9, 3.5))
    if mpx.truth is not None:
        ax.plot(steps, mpx.truth[s, :n], color="black", lw=2, label="truth (OCOE)")
    obs = mpx.observed[s, :n]
    ax.plot(steps[obs], mpx.raw[s, :n][obs], "o", ms=3, color="grey", label="on a counter")
    for name, est in estimates.items():
        ax.plot(steps, np.asarray(est)[s, :n], lw=1.2, label=name)
    ax.set_xlabel("interval (10 ms each)")
    shown = mpx.truth[s, :n] if mpx.truth is not None else np.nan_to_num(mpx.raw[s, :n])
    typical = float(np.median(shown)) if len(shown) else 0.0
    if len(shown) and shown.max() > 100 * max(typical, 1.0):  # bursts: a log scale shows the quiet parts too
        ax.set_yscale("symlog", linthresh=max(typical, 1.0))
        ax.set_ylabel(f"{event}\n(count per interval, log scale)")
    else:
        ax.set_ylabel(f"{event}\n(count per interval)")
    ax.set_title(f"{run}: {event}")
    ax.legend(fontsize="small", ncol=4)
    return ax


def plot_dtw(estimate: Any, truth: Any, ax: Any = None, *, label: str = "estimate", max_links: int = 400) -> Any:
    """The DTW alignment of an estimated series with the truth: both series and the matched intervals.

    The truth is drawn above the estimate (both on ``log10(1 + count)``, the scale of the
    DTW-cost), with a thin line between every pair of intervals the cheapest warping path
    matches; a vertical line is a match in time, a slanted one a warp.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_dtw([1, 5, 5, 1], [1, 1, 5, 1])
    >>> ax.get_title().startswith("DTW alignment")
    True
    """
    est = np.asarray(estimate, float)
    true = np.asarray(truth, float)
    ok = ~np.isnan(est) & ~np.isnan(true)
    est, true = est[ok], true[ok]
    cost, path = dtw_path(est, true)
    le, lt = np.log10(1 + np.maximum(est, 0)), np.log10(1 + np.maximum(true, 0))
    lift = float(max(lt.max() - le.min(), 0.5)) * 1.2
    ax = _axes(ax, (9, 3.5))
    every = max(1, len(path) // max_links)
    for i, j in path[::every]:
        ax.plot([i, j], [le[i], lt[j] + lift], color="tab:grey", lw=0.4, alpha=0.6)
    ax.plot(np.arange(len(lt)), lt + lift, color="black", lw=1.5, label=f"truth (shifted up by {lift:.2f})")
    ax.plot(np.arange(len(le)), le, color="tab:orange", lw=1.5, label=label)
    ax.set_xlabel("interval (10 ms each)")
    ax.set_ylabel("log10(1 + count per interval)")
    ax.set_title(f"DTW alignment of {label} with the truth: cost {cost:.2f}")
    ax.legend(fontsize="small", loc="upper right")
    return ax


def estimate_figure(
    trace: pd.DataFrame,
    estimators: Mapping[str, MpxEstimator],
    pmcs: int,
    *,
    run: str | None = None,
    rotation: Rotation | None = None,
) -> Any:
    """Per event of one run: truth vs each estimator over time, and a DTW alignment panel.

    ``estimators`` are typically perf's ``fixed`` and the chosen one; the DTW panel shows
    the last estimator on the event where it scored the lowest RA (the hardest case).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hemkit.mpx import synthetic_trace, make_estimator
    >>> fig = estimate_figure(synthetic_trace(runs=1, steps=40), {n: make_estimator(n) for n in ("fixed", "phase")}, 2)
    >>> len(fig.axes)
    6
    """
    import matplotlib.pyplot as plt

    runs = list(pd.unique(trace["run"].astype(str)))
    if not runs:
        raise InputError("no runs to plot")
    run = runs[0] if run is None else str(run)
    if run not in runs:
        raise InputError(
            f"run {run!r} is not in the traces (runs: {', '.join(runs[:6])}{' ...' if len(runs) > 6 else ''})"
        )
    mpx = emulate(trace[trace["run"].astype(str) == run], pmcs, rotation=rotation or Rotation())
    blind = mpx.without_truth()
    values = {name: est.estimate_array(blind) for name, est in estimators.items()}
    events = list(mpx.keys["event"])
    fig, axes = plt.subplots(len(events) + 1, 1, figsize=(10, 2.6 * (len(events) + 1)), squeeze=False)
    for k, event in enumerate(events):
        plot_series(mpx, values, run, event, ax=axes[k, 0])
    chosen = list(values)[-1]
    n = mpx.length
    assert mpx.truth is not None
    ras = [relative_accuracy(values[chosen][s, : n[s]], mpx.truth[s, : n[s]]) for s in range(len(events))]
    worst = int(np.argmin(ras))
    plot_dtw(
        values[chosen][worst, : n[worst]],
        mpx.truth[worst, : n[worst]],
        ax=axes[-1, 0],
        label=f"{chosen}, {events[worst]}",
    )
    fig.suptitle(f"{run}: truth vs {' vs '.join(values)} on {pmcs} counter(s) for {len(events)} events")
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    return fig


__all__ = ["estimate_figure", "plot_dtw", "plot_ra", "plot_series"]
