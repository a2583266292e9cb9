"""The sections of a report, each from data the areas already computed.

Every figure has a title, axis labels (with units where there are units) and a legend where
more than one series is drawn. Figures are made on :class:`matplotlib.figure.Figure`
objects, never through ``pyplot``'s global state.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
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
        # float64: a float32 std of counts near 1e19 overflows (squares reach 1e38), and its mean rounds
        values = np.concatenate([t[e].to_numpy() for t in readings.groups.values() if e in t.columns], dtype=np.float64)
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


# ------------------------------------------------------------------ multiplexing and sampling
@contextmanager
def _warnings_into(notes: list[str]) -> Iterator[None]:
    """Collect every :class:`HemkitWarning` raised inside into ``notes`` (once each): they become section warnings."""
    from hemkit.core.errors import HemkitWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HemkitWarning)
        try:
            yield
        finally:
            others = []
            for w in caught:
                if issubclass(w.category, HemkitWarning):
                    text = " ".join(str(w.message).split())
                    if text not in notes:
                        notes.append(text)
                else:
                    others.append(w)
    for w in others:  # not ours to judge: let them through as they came
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _where(source: Any) -> str:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    attrs = getattr(source, "attrs", None)
    return str(attrs.get("source", "data")) if isinstance(attrs, dict) else "data"


@contextmanager
def _naming(where: str) -> Iterator[None]:
    """An :class:`InputError` inside names ``where`` (the file at fault), in one line."""
    from hemkit.core.errors import InputError

    try:
        yield
    except InputError as exc:
        text = " ".join(str(exc).split())
        raise InputError(text if where in text else f"{where}: {text}") from None


def _interval_ms(trace: pd.DataFrame | None) -> float | None:
    """The interval length of a trace in milliseconds (median step of ``t``), when the trace says."""
    if trace is None or "t" not in trace.columns or trace["t"].isna().all():
        return None
    dt = trace.drop_duplicates(["run", "step"]).sort_values(["run", "step"]).groupby("run")["t"].diff()
    dt = dt[dt > 0]
    return float(np.median(dt)) * 1e3 if len(dt) else None


def _mpx_table(data: Any, est: Any, name: str) -> pd.DataFrame:
    """One row per series: intervals, time on a counter, perf's total, hemkit's total (and the truth)."""
    valid = data.valid
    enabled = np.where(valid, np.nan_to_num(data.enabled), 0.0).sum(axis=1)
    running = np.where(valid, np.nan_to_num(data.running), 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        time_share = np.where(enabled > 0, running / enabled, np.nan)
    keys = data.keys.reset_index(drop=True)
    index = (
        pd.Index(keys["event"], name="event")
        if keys["run"].nunique() == 1
        else pd.MultiIndex.from_frame(keys[["run", "event"]])
    )
    perf, mine = np.asarray(est.perf_totals, float), est.totals()
    table = pd.DataFrame(
        {
            "intervals": data.length,
            "on a counter (intervals)": data.observed.sum(axis=1),
            "time on a counter (fraction)": time_share,
            "total, perf scaled": perf,
            f"total, hemkit {name}": mine,
        },
        index=index,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        table["hemkit / perf"] = mine / perf
        if data.truth is not None:
            truth = np.nansum(np.where(valid, data.truth, np.nan), axis=1)
            table["true total"] = truth
            table["perf error (%)"] = 100 * (perf - truth) / truth
            table["hemkit error (%)"] = 100 * (mine - truth) / truth
    return table


def _mpx_series_figure(
    data: Any, values: Mapping[str, np.ndarray], events: list[str], run: str, ms: float | None
) -> Any:
    from hemkit.mpx.plots import plot_series

    fig = _figure(9.5, 2.7 * len(events) + 0.7)
    axes = fig.subplots(len(events), 1, squeeze=False)
    for ax, event in zip(axes[:, 0], events, strict=True):
        plot_series(data, values, run, event, ax=ax)
        ax.set_xlabel(f"interval ({ms:.3g} ms each)" if ms else "interval (index)")
    fig.suptitle(f"{run}: counted slices, perf's scaling and hemkit's estimate over time")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    return fig


def _mpx_totals_figure(table: pd.DataFrame, name: str, run_count: int) -> Any:
    labels = [_short(" ".join(map(str, i)) if isinstance(i, tuple) else str(i), 36) for i in table.index]
    fig = _figure(max(6.0, 0.45 * len(table) + 3), 4)
    ax = fig.subplots()
    x = np.arange(len(table))
    series = [(f"hemkit {name}", table["hemkit / perf"])]
    if "true total" in table.columns:
        series.append(("true total (exact counts)", table["true total"] / table["total, perf scaled"]))
    width = 0.8 / len(series)
    for k, (label, ratio) in enumerate(series):
        ax.bar(x + (k - (len(series) - 1) / 2) * width, ratio, width, label=label)
    ax.axhline(1.0, color="black", lw=1, ls="--", label="perf's scaled total")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.set_title(f"Totals relative to perf's scaled total ({len(table)} series of {run_count} run(s))")
    ax.set_xlabel("event" if run_count == 1 else "run and event")
    ax.set_ylabel("total / perf's scaled total (ratio)")
    ax.legend(fontsize="small")
    return fig


def multiplexing(
    source: Any, *, estimator: str | None = None, pmcs: int | None = 2, shown: int = 3, wraps: str = "repair"
) -> Section:
    """Multiplexing figures of a ``perf stat -I`` interval trace: perf's scaling against hemkit's estimate.

    Parameters
    ----------
    source : path, DataFrame or MpxData
        A multiplexed ``perf stat -I MS -x,`` file (or ``-j``), ``hemkit mpx emulate`` output,
        a tidy trace (:func:`hemkit.io.traces.read_trace`) or :class:`hemkit.mpx.MpxData`.
    estimator : str, optional
        hemkit's estimator (default :data:`hemkit.mpx.DEFAULT_ESTIMATOR`); perf's own scaling
        (``fixed``) is always shown beside it.
    pmcs : int or None
        A trace recorded without multiplexing (every event on a counter all the time: its
        counts are exact) is multiplexed in emulation on this many counters, so the page
        shows what perf's scaling and hemkit's estimate would make of it against the exact
        counts; ``None`` shows it as it is.
    shown : int
        Events drawn over time (those whose estimated total differs most from perf's).
    wraps : {"repair", "drop", "error"}
        Counter wrap-arounds (counts >= 2^47): as :func:`hemkit.io.traces.read_trace`; a
        repair or a drop is a warning of the section.

    Raises
    ------
    InputError
        The trace cannot be read or estimated (one line naming the file).
    """
    from hemkit.io.traces import read_trace
    from hemkit.mpx.emulate import MpxData, emulate
    from hemkit.mpx.registry import DEFAULT_ESTIMATOR, load_estimator, make_estimator

    name = estimator or DEFAULT_ESTIMATOR
    where = _where(source)
    notes: list[str] = []
    paragraphs: list[str] = []
    with _naming(where), _warnings_into(notes):
        trace = None
        if isinstance(source, MpxData):
            data = source
        else:
            trace = source if isinstance(source, pd.DataFrame) else read_trace(source, ocoe=False, wraps=wraps)
            data = MpxData.from_tidy(trace, source=where)
        exact = bool((data.known | ~data.valid).all())
        per_run = int(data.keys.groupby("run")["event"].size().max())
        emulated = exact and pmcs is not None and pmcs < per_run and trace is not None and "value" in trace.columns
        if emulated:
            assert trace is not None and pmcs is not None
            data = emulate(trace.assign(value=trace["value"].fillna(0.0)), pmcs)
            paragraphs.append(
                f"{where} was recorded without multiplexing: every event was on its own counter all the time, "
                f"so its counts are exact. To show what multiplexing would cost, its {per_run} events per run were "
                f"multiplexed in emulation on {pmcs} counters (perf's round-robin rotation, one step per interval); "
                "perf's scaling and hemkit's estimate were computed from the emulated slices only and are compared "
                "with the exact counts."
            )
        elif exact:
            paragraphs.append(
                f"Every event of {where} was on a counter all the time: perf's totals are exact and nothing "
                "needed estimating."
            )
        blind = data.without_truth()
        est = load_estimator(name).estimate(blind)
        perf = make_estimator("fixed").estimate_array(blind)
    table = _mpx_table(data, est, est.estimator)
    runs = list(dict.fromkeys(data.keys["run"].astype(str)))
    paragraphs.append(
        f"{len(data.keys)} series ({data.keys['event'].nunique()} events of {len(runs)} run(s)); on average each "
        f"event was on a counter {np.nanmean(table['time on a counter (fraction)']):.0%} of the time. perf scales "
        "each counted slice by enabled / running time and holds it where the event had no counter (its "
        f"<not counted> intervals); hemkit's {est.estimator} estimator fills those gaps from what the other "
        "events show (see hemkit mpx estimate). Read the two for different things: hemkit's series for when "
        "the counts happened (its relative accuracy is the better one on held-out workloads), perf's scaled "
        "total for how many there were in all (it is unbiased; hemkit's total of a single run can differ from "
        "it by tens of percent for bursty events such as branch misses).",
    )
    first = data.keys["run"].astype(str) == runs[0]
    sub = table[first.to_numpy()]
    gap = (sub["hemkit / perf"] - 1).abs().fillna(0).to_numpy()
    order = np.argsort(-gap, kind="stable")[: max(1, shown)]
    events = [str(data.keys.loc[first, "event"].iloc[i]) for i in sorted(order)]
    values = {"perf scaling": perf, f"hemkit {est.estimator}": est.values}
    ms = _interval_ms(trace)
    figures = (
        Figure(
            f"{runs[0]}: the slices on a counter (dots), perf's scaled values and hemkit's {est.estimator} "
            f"estimate{' against the exact counts' if data.truth is not None else ''} for {len(events)} events.",
            png(_mpx_series_figure(data, values, events, runs[0], ms)),
        ),
        Figure(
            "Each series' total by hemkit (and the exact total where known) divided by perf's scaled total.",
            png(_mpx_totals_figure(table, est.estimator, len(runs))),
        ),
    )
    caption = (
        "Per series: intervals, how many and how much of the time it was on a counter, its total as perf scales "
        f"it and as hemkit's {est.estimator} estimates it"
        + (" and its exact total, with both errors." if data.truth is not None else ".")
    )
    return Section(
        "mpx",
        f"Multiplexing: {os.path.basename(where)}",
        paragraphs=tuple(paragraphs),
        tables=((caption, table),),
        figures=figures,
        warnings=tuple(notes),
    )


def _share_table(profile: Any, top: int) -> pd.DataFrame:
    cols = [c for c in ("dso", "samples", "share", "low", "high") if c in profile.table.columns]
    out = profile.table.head(top)[cols].copy()
    out.index = pd.Index([str(i) for i in out.index], name=profile.table.index.name)
    return out


def _shares_figure(profile: Any, top: int) -> Any:
    from hemkit.sampling.plots import plot_shares

    fig = _figure(8.5, 0.3 * min(top, len(profile.table)) + 1.8)
    plot_shares(profile, ax=fig.subplots(), top=top)
    return fig


def sampling(
    source: Any, *, top: int = 15, level: float = 0.95, method: str = "wilson", event: str | None = None
) -> Section:
    """A ``perf record`` profile by DSO and by symbol: the ``top`` shares with confidence intervals.

    Parameters
    ----------
    source : path or DataFrame
        A ``perf.data`` file (decoded with ``perf script``), ``perf script`` text, or samples
        from :func:`hemkit.sampling.read_samples`.
    top : int
        Rows of each table and bars of each figure.
    level, method :
        The intervals (see :func:`hemkit.sampling.profile_shares`).
    event : str, optional
        The sampling event when the file holds several (default: the most sampled one, and
        a section warning naming the others).

    Raises
    ------
    InputError
        The file cannot be read or holds no samples (one line naming the file).
    """
    from hemkit.sampling.profile import profile_shares, read_samples

    where = _where(source)
    notes: list[str] = []
    profiles = []
    with _naming(where), _warnings_into(notes):
        samples = source if isinstance(source, pd.DataFrame) else read_samples(source)
        if event is None and "event" in samples.columns:
            counts = samples["event"].astype(str).value_counts()
            if len(counts) > 1:
                event = str(counts.index[0])
                notes.append(f"{where}: samples of {len(counts)} events; shown: {event} (the most sampled)")
        if "dso" in samples.columns and (samples["dso"].astype(str) != "").any():
            profiles.append(profile_shares(samples, by="dso", level=level, method=method, event=event))
        else:
            notes.append(f"{where}: the samples carry no DSO names: no profile by DSO")
        profiles.append(profile_shares(samples, by="sym", level=level, method=method, event=event))
    p = profiles[-1]
    what = f" of {p.event}" if p.event else ""
    tables, figures = [], []
    for prof in profiles:
        kind = "DSO" if prof.by == "dso" else "symbol"
        rows = min(top, len(prof.table))
        tables.append(
            (
                f"The {rows} largest of {len(prof.table)} {kind}s, with {prof.level:.0%} {prof.method} intervals "
                "(share: fraction of the sampled events, 0-1).",
                _share_table(prof, top),
            )
        )
        fig = _shares_figure(prof, top)
        figures.append(Figure(f"Shares by {kind}: bars with their {prof.level:.0%} intervals.", png(fig)))
    paragraph = (
        f"{p.n_samples} samples{what} (effective sample size {p.n_eff:.0f}). Each sample stands for its period "
        "of events; a share's interval says how far the true share may be from the profiled one."
    )
    return Section(
        "profile",
        f"Sampling profile: {os.path.basename(where)}",
        paragraphs=(paragraph,),
        tables=tuple(tables),
        figures=tuple(figures),
        warnings=tuple(notes),
    )
