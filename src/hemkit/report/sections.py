"""The sections of a report, each from data the areas already computed.

Every figure has a title, axis labels (with units where there are units) and a legend where
more than one series is drawn. Figures are made on :class:`matplotlib.figure.Figure`
objects, never through ``pyplot``'s global state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.readings import Readings
from hemkit.report.html import Figure, Section, png


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(figsize=(width, height))


def _short(name: str, n: int = 28) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def overview(readings: Readings, source: str, meta: Mapping[str, Any] | None) -> Section:
    """What was read: groups, events, runs; and, for a collection, the command and machine."""
    runs = readings.n_runs
    rows = {
        "source": source,
        "groups": len(readings),
        "events": len(readings.events),
        "runs per group": f"{int(runs.min())}–{int(runs.max())}" if runs.min() != runs.max() else str(int(runs.min())),
        "runs in all": int(runs.sum()),
        "pairs never read together": len(readings.missing_pairs()),
    }
    for key in ("command", "corunner", "pin", "perf_version", "machine", "hemkit_version", "started"):
        if meta and key in meta and meta[key] not in (None, "", []):
            value = meta[key]
            rows[key.replace("_", " ")] = " ".join(map(str, value)) if isinstance(value, list) else str(value)
    table = pd.DataFrame({"value": [str(v) for v in rows.values()]}, index=pd.Index(list(rows)))
    return Section("overview", "Overview", tables=(("", table),))


def coverage(readings: Readings) -> Section:
    """Which group read which event, and how often each pair of events was read together."""
    member = readings.membership()
    pairs = readings.coverage()
    events = [_short(e) for e in readings.events]
    k = len(events)

    fig = _figure(max(6, 0.35 * k + 3), max(3, 0.28 * len(member) + 1.5))
    ax = fig.subplots()
    ax.imshow(member.to_numpy(dtype=float), aspect="auto", cmap="Blues", vmin=0, vmax=1, interpolation="nearest")
    ax.set_title("Plan: events read in each group")
    ax.set_xlabel("event")
    ax.set_ylabel("group")
    ax.set_xticks(range(k), events, rotation=90, fontsize=7)
    ax.set_yticks(range(len(member)), [str(g) for g in member.index], fontsize=7)
    f1 = Figure("Each row is a group of events read together in the same runs (dark: read).", png(fig))

    fig = _figure(max(5, 0.35 * k + 2.5), max(4, 0.35 * k + 2))
    ax = fig.subplots()
    im = ax.imshow(pairs.to_numpy(dtype=float), cmap="viridis", interpolation="nearest")
    ax.set_title("Pair coverage: groups that read both events")
    ax.set_xlabel("event")
    ax.set_ylabel("event")
    ax.set_xticks(range(k), events, rotation=90, fontsize=7)
    ax.set_yticks(range(k), events, fontsize=7)
    from matplotlib.ticker import MaxNLocator

    fig.colorbar(im, ax=ax, label="groups (count)", ticks=MaxNLocator(integer=True))
    f2 = Figure("A zero off the diagonal is a pair never read together: no merge can know its correlation.", png(fig))

    missing = readings.missing_pairs()
    warnings = (
        (f"{len(missing)} pair(s) of events never read together, e.g. {missing[0][0]} / {missing[0][1]}",)
        if missing
        else ()
    )
    return Section("coverage", "Plan and coverage", figures=(f1, f2), warnings=warnings)


def validation(runs: pd.DataFrame, status: pd.DataFrame) -> Section:
    """Valid and invalid runs of a collection, and why runs were invalid."""
    fig = _figure(max(6, 0.3 * len(status) + 3), 3.5)
    ax = fig.subplots()
    x = np.arange(len(status))
    ax.bar(x, status["valid"], label="valid", color="#4e9a06")
    ax.bar(x, status["invalid"], bottom=status["valid"], label="invalid (re-run)", color="#cc0000")
    if "target" in status and int(status["target"].max()) > 0:
        ax.axhline(int(status["target"].max()), color="#555", ls="--", lw=1, label="target runs")
    ax.set_title("Runs per group")
    ax.set_xlabel("group")
    ax.set_ylabel("runs (count)")
    ax.set_xticks(x, [str(g) for g in status["group"]], fontsize=7)
    ax.legend()
    tables = []
    bad = runs[runs["status"] != "valid"] if len(runs) else runs
    if len(bad):
        reasons = bad.groupby("reason").size().sort_values(ascending=False).rename("invalid runs").to_frame()
        reasons.index.name = None
        tables.append(("Invalid runs are kept in the database with their reason and re-run.", reasons))
    paragraph = (
        f"{int(status['valid'].sum())} valid and {int(status['invalid'].sum())} invalid runs over {len(status)} groups."
    )
    return Section(
        "runs",
        "Runs and validation",
        paragraphs=(paragraph,),
        tables=tuple(tables),
        figures=(Figure("Valid runs stacked with invalid ones, per group.", png(fig)),),
    )


def variability(readings: Readings) -> Section:
    """Run-to-run spread of every event: readings relative to the event's median."""
    events = readings.events
    data, labels, cv = [], [], {}
    for e in events:
        values = np.concatenate([t[e].to_numpy() for t in readings.groups.values() if e in t.columns])
        med = float(np.median(values))
        data.append(values / med if med > 0 else values)
        labels.append(_short(e))
        mean = float(values.mean())
        cv[e] = float(values.std(ddof=1) / mean) if mean > 0 and len(values) > 1 else float("nan")
    fig = _figure(max(6, 0.4 * len(events) + 3), 4)
    ax = fig.subplots()
    ax.boxplot(data, showfliers=True, flierprops={"markersize": 2})
    ax.set_xticks(range(1, len(events) + 1), labels, rotation=90, fontsize=7)
    ax.set_title("Run-to-run variability per event")
    ax.set_xlabel("event")
    ax.set_ylabel("reading / median reading (ratio)")
    table = pd.DataFrame({"coefficient of variation": cv})
    return Section(
        "variability",
        "Variability of the readings",
        paragraphs=("The noise the merge methods exist for: each box spans the middle half of an event's runs.",),
        tables=(("", table),),
        figures=(Figure("Readings of each event over all its groups, divided by their median.", png(fig)),),
    )


def _heatmap(ax: Any, corr: pd.DataFrame, title: str) -> Any:
    k = len(corr)
    im = ax.imshow(corr.to_numpy(dtype=float), cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    ax.set_title(title)
    ax.set_xlabel("event")
    ax.set_ylabel("event")
    labels = [_short(str(e)) for e in corr.columns]
    ax.set_xticks(range(k), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(k), labels, fontsize=7)
    return im


def merged(readings: Readings, options: Any, seed: Any) -> Section:
    """Merged correlations as a heatmap, and each pair's estimate with its interval."""
    import warnings

    from hemkit.core.errors import HemkitWarning, InputError
    from hemkit.merge import merge

    kwargs: dict[str, Any] = {"anchor": options.anchor} if options.method == "hrm" else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            res = merge(readings, options.method, seed=seed, level=options.level, **kwargs)
    except InputError as exc:  # e.g. pairs never read together: the rest of the report still helps
        return Section("merge", "Merged correlations", warnings=(f"no {options.method} merge: {exc}",))
    data = res.data
    corr = data.corr()
    k = len(corr)
    fig = _figure(max(5.5, 0.35 * k + 3), max(4.5, 0.35 * k + 2))
    ax = fig.subplots()
    im = _heatmap(ax, corr, f"Merged Pearson correlations ({options.method})")
    fig.colorbar(im, ax=ax, label="Pearson correlation (unitless)")
    figures = [Figure(f"Correlations of the {len(data)} merged runs.", png(fig))]
    tables: list[tuple[str, Any]] = []
    intervals = getattr(res, "pair_intervals", None)
    if intervals is not None and len(intervals):
        iv = intervals.sort_values("estimate").reset_index(drop=True)
        fig = _figure(max(6, 0.09 * len(iv) + 4), 4)
        ax = fig.subplots()
        x = np.arange(len(iv))
        err = np.vstack([iv["estimate"] - iv["lower"], iv["upper"] - iv["estimate"]])
        ax.errorbar(x, iv["estimate"], yerr=err, fmt="o", ms=3, lw=1, capsize=2, label="estimate and interval")
        ax.axhline(0, color="#888", lw=0.8)
        ax.set_title(f"Per-pair correlations with {options.level:.0%} intervals")
        ax.set_xlabel("pair of events (sorted by estimate)")
        ax.set_ylabel("Pearson correlation (unitless)")
        ax.legend()
        figures.append(Figure("Each pair's merged correlation and how far it can be trusted.", png(fig)))
        widest = iv.assign(width=iv["upper"] - iv["lower"]).sort_values("width", ascending=False).head(10)
        tables.append(("The ten widest intervals: the pairs to trust least.", widest.set_index(["event_a", "event_b"])))
    return Section(
        "merge",
        "Merged correlations",
        paragraphs=(f"{options.method} merge of {len(readings)} groups into {len(data)} runs x {k} events.",),
        tables=tuple(tables),
        figures=tuple(figures),
    )
