"""Figures of a comparison: ratios with intervals per event, and what the runs could detect.

Both are one row per event, so they stay readable with 100 events: the figure grows with the
number of events (about 0.17 inch each) and the labels shrink a little past 40.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hemkit.core.numbers import format_percent

CompareResult = Any  # hemkit.compare.result.CompareResult (which imports this module: no import back)


def _axes(n: int, ax: Any) -> tuple[Any, float]:
    import matplotlib.pyplot as plt

    size = 8.0 if n <= 40 else 6.5
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, max(3.0, 0.17 * n + 1.6)), layout="constrained")
    return ax, size


def _sides(res: CompareResult) -> str:
    a, b = res.source_a, res.source_b
    return f"B ({b}) / A ({a})" if a and b and len(a) + len(b) < 60 else "B / A"


def _plain_log_ticks(ax: Any) -> None:
    """Tick labels of a log axis as plain numbers (0.95, 1, 1.1), not powers of ten.

    The minor ticks (2, 3, ... 9 times a power of ten) are labelled as matplotlib's log axis
    labels them, by the span drawn: all of them within 0.4 decade, 2, 3 and 5 within one, none
    beyond (the powers of ten say it).  Labelling every minor tick overprinted them as soon as
    the figure spanned two decades (detectable changes from 0.1 % to 50 %).  Within 0.6 decade
    the ticks are evenly stepped plain numbers instead (0.7, 0.8 ... 1.6): a ratio axis from 0.64
    to 1.7 has no power of ten but 1, and no 2, 3 or 5 times one, so '1' was its one label and
    there was no tick at all from 1 to 1.7.
    """
    from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator

    lo, hi = sorted(ax.get_xlim())
    if lo > 0 and np.log10(hi / lo) <= 0.6:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=12, steps=[1, 2, 2.5, 5, 10]))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.4g}"))
        return

    def minor(v: float, _: Any) -> str:
        lo, hi = sorted(ax.get_xlim())
        decades = np.log10(hi / lo) if lo > 0 else np.inf
        if decades > 1:
            return ""
        mantissa = round(v / 10 ** np.floor(np.log10(v) + 1e-9))
        return f"{v:.4g}" if decades <= 0.4 or mantissa in (2, 3, 5) else ""

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.4g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(minor))


def _beyond(margin: float) -> str:
    return f", beyond {format_percent(margin)}" if margin else ""


def plot_ratios(res: CompareResult, ax: Any = None) -> Any:
    """Ratio ``B / A`` per event with its interval on a log scale, changed events in red; returns the Axes.

    With a margin, the band ``[1 / (1 + margin), 1 + margin]`` is shaded.  Events whose ratio is 0 or
    infinite (a side 0 in every run) are listed in the title, not drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd
    >>> from hemkit import Readings
    >>> from hemkit.compare import compare
    >>> rng = np.random.default_rng(0)
    >>> a = Readings({1: pd.DataFrame({"x": rng.poisson(900, 30), "y": rng.poisson(90, 30)})})
    >>> b = Readings({1: pd.DataFrame({"x": rng.poisson(1000, 30), "y": rng.poisson(90, 30)})})
    >>> compare(a, b, seed=0).plot().get_xlabel()
    'ratio of medians B / A (log scale)'
    """
    t = res.table
    n = len(t.events)
    ax, size = _axes(n, ax)
    y = np.arange(n)[::-1]
    finite = np.isfinite(t.ratio) & (t.ratio > 0)
    changed = np.asarray(t.changed, dtype=bool)
    with np.errstate(invalid="ignore"):  # inf - inf where a side is 0 in every run: not drawn
        lo = np.where(finite, np.clip(t.ratio - t.lower, 0, None), 0)
        hi = np.where(finite, np.clip(t.upper - t.ratio, 0, None), 0)
    for mask, colour, label in (
        (finite & ~changed, "#555555", "unchanged"),
        (finite & changed, "#c0392b", f"changed (FDR {format_percent(1 - res.level)}{_beyond(res.margin)})"),
    ):
        if mask.any():
            ax.errorbar(
                t.ratio[mask],
                y[mask],
                xerr=np.vstack([lo[mask], hi[mask]]),
                fmt="o",
                ms=3.5,
                lw=1,
                capsize=2,
                color=colour,
                label=label,
            )
    ax.axvline(1.0, color="#888", lw=0.8, ls="--", label="no change")
    if res.margin > 0:  # the band a change must clear, and an alike event's interval lie within
        ax.axvspan(
            1.0 / (1.0 + res.margin),
            1.0 + res.margin,
            color="#2e86c1",
            alpha=0.12,
            lw=0,
            label=f"within the {format_percent(res.margin)} margin",
        )
    ax.set_xscale("log")
    _plain_log_ticks(ax)
    ax.set_yticks(y)
    ax.set_yticklabels(list(t.events), fontsize=size)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("ratio of medians B / A (log scale)")
    ax.set_ylabel("event")
    off = [e for e, f in zip(t.events, finite) if not f]
    extra = f"; not drawn (0 or inf): {', '.join(off[:4])}{' ...' if len(off) > 4 else ''}" if off else ""
    ax.set_title(
        f"{_sides(res)}: {int(changed.sum())} of {n} events changed, {format_percent(res.level)} intervals{extra}",
        fontsize=9,
    )
    ax.grid(axis="x", alpha=0.3, which="both")
    ax.legend(loc="best", fontsize=8)
    return ax


def plot_power(res: CompareResult, ax: Any = None) -> Any:
    """Per event the smallest change the runs detect (log scale); each label says the runs a 1 % change needs.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd
    >>> from hemkit import Readings
    >>> from hemkit.compare import compare
    >>> rng = np.random.default_rng(0)
    >>> a = Readings({1: pd.DataFrame({"x": rng.poisson(900, 30), "y": rng.poisson(90, 30)})})
    >>> b = Readings({1: pd.DataFrame({"x": rng.poisson(1000, 30), "y": rng.poisson(90, 30)})})
    >>> compare(a, b, seed=0).plot_power().get_xlabel()
    'smallest detectable change (%, log scale)'
    """
    p = res.power()
    n = len(p)
    ax, size = _axes(n, ax)
    y = np.arange(n)[::-1]
    det = p["detectable"].to_numpy() * 100.0
    ok = np.isfinite(det)
    ax.plot(det[ok], y[ok], "o", ms=4, color="#2c7fb8", label="detectable with these runs (power 0.9)")
    ax.axvline(1.0, color="#888", lw=0.8, ls="--", label="1 % change")

    def runs(v: float) -> str:
        if not np.isfinite(v):
            return "1 %: never"
        return f"1 %: {v:,.0f} runs" if v < 1e4 else f"1 %: {v:.2g} runs"

    labels = [f"{e} ({runs(v)})" for e, v in zip(p["event"], p["runs_needed"])]
    ax.set_xscale("log")
    _plain_log_ticks(ax)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=size)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("smallest detectable change (%, log scale)")
    ax.set_ylabel("event (runs per side a 1 % change needs)")
    runs_a, runs_b = int(p["runs_a"].min()), int(p["runs_b"].min())
    off = [str(e) for e, f in zip(p["event"], ok) if not f]
    extra = f"; not drawn (none up to 10x seen): {', '.join(off[:4])}{' ...' if len(off) > 4 else ''}" if off else ""
    ax.set_title(
        f"What {runs_a} (A) and {runs_b} (B) runs can see: power 0.9 for one change at FDR "
        f"{format_percent(1 - res.level)}{extra}",
        fontsize=9,
    )
    ax.grid(axis="x", alpha=0.3, which="both")
    ax.legend(loc="best", fontsize=8)
    return ax


__all__ = ["plot_power", "plot_ratios"]
