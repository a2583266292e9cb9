"""Plots for multiplexing estimates: true vs estimated series, RA per event per estimator (paper Fig. 6/8)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError


def plot_series(mpx, estimates: Mapping[str, np.ndarray], run: str, event: str, ax=None):
    """True (OCOE) counts, the intervals seen on a counter, and each estimator's series for one run/event."""
    import matplotlib.pyplot as plt

    hit = np.flatnonzero((mpx.keys["run"] == str(run)).to_numpy() & (mpx.keys["event"] == event).to_numpy())
    if not len(hit):
        raise HemkitError(f"no series for run {run!r} and event {event!r}")
    s = int(hit[0])
    n = int(mpx.length[s])
    steps = np.arange(n)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.5))
    if mpx.truth is not None:
        ax.plot(steps, mpx.truth[s, :n], color="black", lw=2, label="true (OCOE)")
    obs = mpx.observed[s, :n]
    ax.plot(steps[obs], mpx.raw[s, :n][obs], "o", ms=3, color="grey", label="on a counter")
    for name, est in estimates.items():
        ax.plot(steps, np.asarray(est)[s, :n], lw=1, label=name)
    ax.set_xlabel("interval")
    ax.set_ylabel(event)
    ax.set_title(f"{run}: {event}")
    ax.legend(fontsize="small", ncol=3)
    return ax


def plot_ra(scores: pd.DataFrame, ax=None, key: str = "event"):
    """Bars of mean RA per ``key`` (event) and estimator."""
    import matplotlib.pyplot as plt

    table = scores.pivot_table(index=key, columns="estimator", values="ra", aggfunc="mean")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6, 0.6 * len(table) * max(1, len(table.columns)) / 2), 4))
    width = 0.8 / max(len(table.columns), 1)
    x = np.arange(len(table))
    for k, name in enumerate(table.columns):
        ax.bar(x + k * width, table[name].to_numpy(), width, label=name)
    ax.set_xticks(x + width * (len(table.columns) - 1) / 2)
    ax.set_xticklabels(table.index, rotation=60, ha="right", fontsize="small")
    ax.set_ylabel("RA (higher is better)")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize="small")
    return ax
