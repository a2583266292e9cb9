"""Plots of simulated and real profiles; each takes ``ax=None`` and returns the Axes."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 4))
    return ax


def plot_shares(shares, ax=None, top: int = 20):
    """Horizontal bars of a :class:`~hemkit.sampling.profile.ProfileShares` with their intervals."""
    ax = _axes(ax)
    t = shares.table.head(top).iloc[::-1]
    err = np.vstack([t["share"] - t["low"], t["high"] - t["share"]])
    ax.barh([str(i) for i in t.index], t["share"], xerr=err, color="tab:blue", ecolor="black", capsize=3)
    ax.set_xlabel(f"share of samples ({shares.level:.0%} interval, {shares.method})")
    ax.set_title(f"{shares.n_samples} samples")
    return ax


def plot_profiled_vs_true(table: pd.DataFrame, ax=None):
    """Mean profiled share (+- SD) against the running-state mean; the diagonal is unbiased."""
    ax = _axes(ax)
    ax.errorbar(table["running_mean"], table["profile_mean"], yerr=table["profile_sd"], fmt="o", capsize=3)
    lo = float(min(table["running_mean"].min(), table["profile_mean"].min()))
    hi = float(max(table["running_mean"].max(), table["profile_mean"].max()))
    ax.plot([lo, hi], [lo, hi], color="grey", lw=1)
    ax.set_xlabel("mean of running states")
    ax.set_ylabel("mean of profiles")
    return ax


def plot_sd_vs_R(table: pd.DataFrame, ax=None):
    """Profile SD against R; model SD (Eqs. 6, 9, crosses) and exact SD (dotted) when the table has them."""
    ax = _axes(ax)
    groups = table.groupby("utilisation") if "utilisation" in table.columns else [("", table)]
    for u, t in groups:
        ax.plot(t["R"], t["profile_sd"], "o-", label=f"simulated {u}")
        if "model_sd" in t.columns:
            ax.plot(t["R"], t["model_sd"], "x--", label=f"model {u}")
        if "exact_sd" in t.columns:
            ax.plot(t["R"], t["exact_sd"], ":", color="grey", label=f"exact {u}")
    ax.set_xlabel("R = granularity / interval")
    ax.set_ylabel("SD of profiled share")
    ax.legend(fontsize="small")
    return ax


def plot_profile_histogram(profiles: pd.Series, truth: float | None = None, ax=None, bins: int = 30):
    """Histogram of profiled shares over repetitions (the paper's Fig. 11)."""
    ax = _axes(ax)
    ax.hist(profiles.to_numpy(), bins=bins, color="tab:blue", alpha=0.8)
    if truth is not None:
        ax.axvline(truth, color="black", lw=1, label="mean of running states")
        ax.legend(fontsize="small")
    ax.set_xlabel("profiled share")
    ax.set_ylabel("profiles")
    return ax
