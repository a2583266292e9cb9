"""Figures of simulated and real profiles; each takes ``ax=None`` and returns the Axes.

Every figure has a title, axis labels with their units (shares are fractions of the
sampled events, 0 to 1; R is a ratio of two lengths in the same unit) and a legend when it
draws more than one series.  The result objects' ``plot`` methods call these.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.numbers import format_percent

SHARE = "fraction of samples, 0-1"
#: How the rows of a profile by each key are called on an axis.
KEY_LABELS = {"sym": "symbol", "dso": "DSO (shared object)", "comm": "command", "tid": "thread id"}


def _axes(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 4.5))
    return ax


def _groups(table: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    if "series" in table.columns:
        return [(str(k), t) for k, t in table.groupby("series", sort=False)]
    if "utilisation" in table.columns:
        return [(f"{u:.0%}", t) for u, t in table.groupby("utilisation", sort=False)]
    return [("", table)]


def plot_shares(profile: Any, ax: Any = None, top: int = 20) -> Any:
    """Horizontal bars of a :class:`~hemkit.sampling.SamplingProfile` with their intervals.

    Plot functions take the result's data, never import the result classes (those call
    them from their ``plot`` methods).

    Examples
    --------
    >>> from hemkit.sampling import profile_shares
    >>> df = pd.DataFrame({"sym": list("aab"), "period": 1, "event": "cpu-clock"})
    >>> plot_shares(profile_shares(df)).get_title()
    'samples: shares by symbol, 3 samples of cpu-clock'
    """
    ax = _axes(ax)
    t = profile.table.head(top).iloc[::-1]
    err = np.vstack([t["share"] - t["low"], t["high"] - t["share"]])
    labels = [str(i) for i in t.index]
    ax.barh(labels, t["share"], xerr=err, color="tab:blue", ecolor="black", capsize=3)
    what = KEY_LABELS.get(profile.by, profile.by)
    event = f" of {profile.event}" if profile.event else ""
    ax.set_title(f"{profile.source}: shares by {what.split(' ')[0]}, {profile.n_samples} samples{event}")
    ax.set_xlabel(f"share of sampled events ({SHARE}); bars: {format_percent(profile.level)} {profile.method} interval")
    ax.set_ylabel(what)
    return ax


def plot_diff(diff: Any, ax: Any = None, top: int = 20) -> Any:
    """Share differences (B - A) of the ``top`` largest changes of a profile diff, with intervals.

    Changed keys (false discovery rate at ``1 - level``) are drawn in red, the others in grey;
    keys sampled on one side only are marked in their label.

    Examples
    --------
    >>> from hemkit.sampling.diff import profile_diff
    >>> def run(w):
    ...     seq = [f for f, n in w for _ in range(n)] * 20
    ...     return pd.DataFrame({"sym": seq, "period": 1, "event": "cpu-clock", "tid": 1,
    ...                          "time": np.arange(len(seq))})
    >>> plot_diff(profile_diff(run([("f", 3), ("g", 7)]), run([("f", 4), ("g", 6)]))).get_xlabel()
    'share in B - share in A (percentage points); bars: 95% intervals'
    """
    ax = _axes(ax)
    t = diff.table.head(top).iloc[::-1]
    pts = 100.0 * t["difference"].to_numpy(dtype=float)
    err = 100.0 * np.vstack([t["difference"] - t["lower"], t["upper"] - t["difference"]])
    changed = t["changed"].to_numpy(dtype=bool)
    labels = [f"{k} ({n})" if n else str(k) for k, n in zip(t.index, t["note"])]
    y = np.arange(len(t))
    ax.barh(y, pts, xerr=err, color=np.where(changed, "tab:red", "0.7"), ecolor="black", capsize=3)
    ax.set_yticks(y, labels, fontsize=8 if len(t) > 25 else 10)
    ax.axvline(0.0, color="black", linewidth=0.8)
    what = KEY_LABELS.get(diff.by, diff.by)
    ax.set_title(
        f"Share changes by {what.split(' ')[0]}: {diff.source_b} vs {diff.source_a}\n"
        f"{int(changed.sum())} of the {len(t)} shown changed (red; FDR {format_percent(1 - diff.level)})",
        fontsize=10,
    )
    ax.set_xlabel(f"share in B - share in A (percentage points); bars: {format_percent(diff.level)} intervals")
    ax.set_ylabel(what)
    from matplotlib.patches import Patch

    ax.legend(  # the two colours are two series: say which is which
        handles=[
            Patch(color="tab:red", label=f"changed (FDR {format_percent(1 - diff.level)})"),
            Patch(color="0.7", label="unchanged"),
        ],
        loc="best",
        fontsize=8,
    )
    return ax


def plot_profiled_vs_true(table: pd.DataFrame, ax: Any = None, title: str = "Profiled vs true shares") -> Any:
    """Mean profiled share (+- SD) against the running-state mean; the diagonal is unbiased.

    ``table`` has ``running_mean``, ``profile_mean``, ``profile_sd`` and optionally a
    ``series`` (or ``utilisation``) column that splits it into labelled series.

    Examples
    --------
    >>> t = pd.DataFrame({"running_mean": [0.2, 0.8], "profile_mean": [0.21, 0.79], "profile_sd": [0.01, 0.01]})
    >>> plot_profiled_vs_true(t).get_xlabel()
    'mean of running states (true share, fraction of units, 0-1)'
    """
    ax = _axes(ax)
    for name, t in _groups(table):
        ax.errorbar(
            t["running_mean"], t["profile_mean"], yerr=t["profile_sd"], fmt="o", capsize=3, label=name or "profiles"
        )
    lo = float(min(table["running_mean"].min(), table["profile_mean"].min()))
    hi = float(max(table["running_mean"].max(), table["profile_mean"].max()))
    ax.plot([lo, hi], [lo, hi], color="grey", lw=1, label="unbiased (y = x)")
    ax.set_xlabel("mean of running states (true share, fraction of units, 0-1)")
    ax.set_ylabel(f"mean of profiled shares +- SD ({SHARE})")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return ax


def plot_sd_vs_R(table: pd.DataFrame, ax: Any = None, title: str = "SD of profiled shares against R") -> Any:
    """Profile SD against R; the model's SD (Eqs. 6, 9) and the exact SD when the table has them.

    Examples
    --------
    >>> t = pd.DataFrame({"R": [0.3, 1.5], "profile_sd": [0.004, 0.002], "model_sd": [0.005, 0.003]})
    >>> len(plot_sd_vs_R(t).get_legend().get_texts())
    2
    """
    ax = _axes(ax)
    groups = _groups(table)
    tasks = groups == [("", table)]  # one simulation: one point per task, no lines between tasks
    for name, t in groups:
        t = t.sort_values("R")
        suffix = f", {name}" if name else ""
        ax.plot(t["R"], t["profile_sd"], "o" if tasks else "o-", label=f"simulated{suffix}")
        if "model_sd" in t.columns and t["model_sd"].notna().any():
            ax.plot(t["R"], t["model_sd"], "x" if tasks else "x--", label=f"model, Eqs. 6-9{suffix}")
        if "exact_sd" in t.columns and t["exact_sd"].notna().any():
            ax.plot(
                t["R"], t["exact_sd"], "+" if tasks else ":", color="grey", label=f"exact over start phases{suffix}"
            )
        if tasks:
            for label, row in t.iterrows():
                ax.annotate(str(label), (row["R"], row["profile_sd"]), textcoords="offset points", xytext=(5, 5))
    ax.set_xlabel("R = run length / sampling interval (ratio)")
    ax.set_ylabel(f"SD of the profiled share ({SHARE})")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return ax


def plot_profile_histogram(
    profiles: pd.Series,
    truth: float | None = None,
    ax: Any = None,
    bins: int = 30,
    title: str = "Profiled shares over repetitions",
) -> Any:
    """Histogram of profiled shares over repetitions (the paper's Fig. 11).

    Examples
    --------
    >>> plot_profile_histogram(pd.Series([0.79, 0.8, 0.81]), 0.8).get_ylabel()
    'profiles (count)'
    """
    ax = _axes(ax)
    ax.hist(profiles.to_numpy(), bins=bins, color="tab:blue", alpha=0.8, label="profiled shares")
    if truth is not None:
        ax.axvline(truth, color="black", lw=1, label="mean of running states (truth)")
    ax.set_xlabel(f"profiled share ({SHARE})")
    ax.set_ylabel("profiles (count)")
    ax.set_title(title)
    if truth is not None:
        ax.legend(fontsize="small")
    return ax


def plot_coverage(res: Any, ax: Any = None) -> Any:
    """Coverage of the intervals per sampling setting and granularity, one bar series per method.

    Examples
    --------
    >>> plot_coverage(validate_coverage())  # doctest: +SKIP
    """
    ax = _axes(ax)
    s = res.summary().drop(index="all", level="setting", errors="ignore").reset_index()
    s["case"] = s["setting"].str.replace(f"{res.event} ", "", regex=False) + ", g=" + s["granularity"].astype(str)
    if "threads" in s.columns and (s["threads"].astype(str) != "1").any():
        s["case"] += ", t=" + s["threads"].astype(str)
    cases = list(dict.fromkeys(s["case"]))
    methods = list(dict.fromkeys(s["method"]))
    width = 0.8 / max(len(methods), 1)
    x = np.arange(len(cases))
    for i, m in enumerate(methods):
        t = s[s["method"] == m].set_index("case").reindex(cases)
        ax.bar(x + (i - (len(methods) - 1) / 2) * width, t["coverage"], width, label=f"{m} interval")
    ax.axhline(res.level, color="black", lw=1, ls="--", label=f"nominal level {format_percent(res.level)}")
    ax.set_xticks(x, cases, rotation=30, ha="right", fontsize="small")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(
        f"perf record setting ({res.event}; -c in events, ns for cpu-clock; -F in Hz), granularity g in units"
        + (", t threads" if "t=" in "".join(cases) else "")
    )
    ax.set_ylabel("coverage (fraction of cases, 0-1)")
    n = len(res.cases)  # one row per case and method: every method's interval is scored on every case
    if "method" in getattr(res.cases, "columns", ()):
        n //= max(int(res.cases["method"].nunique()), 1)
    ax.set_title(f"Coverage of {format_percent(res.level)} intervals on the known-share workload ({n} cases)")
    ax.legend(fontsize="small")
    return ax


def plot_model(m: Any, ax: Any = None) -> Any:
    """Each task's expected share with its model interval.

    Examples
    --------
    >>> from hemkit.sampling import share_model
    >>> plot_model(share_model([0.3, 0.5], [1.5, 0.3], 1000)).get_xlabel()
    'task'
    """
    ax = _axes(ax)
    t = m.table
    err = np.vstack([t["share"] - t["low"], t["high"] - t["share"]])
    ax.errorbar([str(i) for i in t.index], t["share"], yerr=err, fmt="o", capsize=4)
    ax.set_xlabel("task")
    ax.set_ylabel(f"expected profiled share ({SHARE})")
    kind = "R unknown: Poisson bound p/n" if m.bound else "Eqs. 6-9 with the given R"
    ax.set_title(f"{format_percent(m.level)} intervals for {m.n_samples} samples ({kind})")
    return ax
