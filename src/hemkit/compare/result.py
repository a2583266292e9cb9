""":class:`CompareResult`: the per-event (and per-pair) comparison, its summary and figures."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from hemkit.core.numbers import format_percent
from hemkit.core.results import Result, result
from hemkit.core.stats import Placements, Power, detectable_change

if TYPE_CHECKING:
    import pandas as pd

#: the columns of :meth:`CompareResult.to_frame` (and of ``hemkit compare -o``)
COLUMNS = (
    "event",
    "median_a",
    "median_b",
    "ratio",
    "lower",
    "upper",
    "p_value",
    "q_value",
    "changed",
    "verdict",
    "superiority",
    "difference",
    "runs_a",
    "runs_b",
    "note",
)


@dataclass(frozen=True)
class EventTable:
    """Per event compared, one entry of each array (see :meth:`CompareResult.to_frame` for their meaning)."""

    events: tuple
    median_a: np.ndarray
    median_b: np.ndarray
    ratio: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    p_value: np.ndarray
    q_value: np.ndarray
    changed: np.ndarray
    verdict: tuple
    superiority: np.ndarray
    difference: np.ndarray
    runs_a: np.ndarray
    runs_b: np.ndarray
    note: tuple
    basis: tuple


@result
class CompareResult(Result):
    """Two sets of readings compared, event by event (and pair by pair).

    Attributes
    ----------
    table : EventTable
        The per-event arrays; :meth:`to_frame` is the table.
    level : float
        Interval level; ``changed`` controls the false discovery rate at ``1 - level``.
    only_a, only_b : tuple of str
        Events read on one side only (not compared).
    source_a, source_b : str
        Where each side came from.
    pairs : DataFrame or None
        With ``pairs=True``: per pair of events, the correlation on each side (``r_a``,
        ``lower_a``, ``upper_a``, ``how_a``: ``direct`` where read together, ``merged``
        otherwise, likewise for B), ``difference`` (``r_b - r_a``) with ``lower``/``upper``,
        ``p_value``, ``changed`` (Benjamini-Hochberg at ``1 - level`` across pairs).
    placements : Placements
        Each side's placements among its own runs (:func:`hemkit.core.stats.null_placements`):
        the test's standard error with no change, what the power computation needs.
    power_sample : tuple of ndarray
        Per event up to 2000 sorted readings of side A (for :meth:`power`).
    machines : pair of (MachinesCheck or None)
        The check that the hosts of each side read alike (:func:`hemkit.compare.machines_check`),
        for A and B; None for a side whose runs name no host (``hosts`` not given; perf stat
        files).  :attr:`mixed_hosts` says what differs.
    margin : float
        The relative change that matters (0: any the runs can see); ``changed`` and the
        ``verdict`` column are at this margin (:func:`hemkit.compare.limits.verdicts`).

    Examples
    --------
    Event ``x`` reads about 10 % more on side B, ``y`` the same:

    >>> import numpy as np, pandas as pd
    >>> from hemkit import Readings
    >>> from hemkit.compare import compare
    >>> rng = np.random.default_rng(0)
    >>> a = Readings({1: pd.DataFrame({"x": rng.poisson(1000, 60), "y": rng.poisson(50, 60)})})
    >>> b = Readings({1: pd.DataFrame({"x": rng.poisson(1100, 60), "y": rng.poisson(50, 60)})})
    >>> res = compare(a, b, seed=0)
    >>> res.events, res.changed
    (['x', 'y'], ['x'])
    >>> row = res.row()
    >>> row["events"], row["changed"], row["largest_change"]
    (2, 1, 'x x1.098')
    >>> for row in res.to_frame().itertuples():
    ...     print(row.event, f"x{row.ratio:.3f} [{row.lower:.3f}, {row.upper:.3f}]", row.changed)
    x x1.098 [1.085, 1.112] True
    y x1.003 [0.928, 1.052] False
    >>> res.line()
    '1 of 2 events changed, 0 alike, 1 unclear at margin 0 (FDR 5%)'
    """

    table: EventTable
    level: float
    only_a: tuple
    only_b: tuple
    source_a: str
    source_b: str
    pairs: pd.DataFrame | None
    placements: Placements
    power_sample: tuple
    machines: tuple = (None, None)
    margin: float = 0.0

    @property
    def events(self) -> list[str]:
        """The events compared (read on both sides), in A's order."""
        return list(self.table.events)

    @property
    def changed(self) -> list[str]:
        """The events flagged as changed."""
        return [e for e, c in zip(self.table.events, self.table.changed) if c]

    @property
    def alike(self) -> list[str]:
        """The events the same within :attr:`margin` (their ratio interval wholly inside the band)."""
        return [e for e, v in zip(self.table.events, self.table.verdict) if v == "alike"]

    @property
    def unclear(self) -> list[str]:
        """The events these runs cannot judge at :attr:`margin`: neither changed nor alike."""
        return [e for e, v in zip(self.table.events, self.table.verdict) if v == "unclear"]

    @property
    def mixed_hosts(self) -> dict[str, list[tuple[str, str, float]]]:
        """Per side (``"A"``, ``"B"``) pooling runs of hosts that read an event compared differently, the differences.

        Each ``(event, host, ratio of its median to the other hosts')``, largest first, as
        :meth:`hemkit.compare.MachinesCheck.differing` gives them (``moved=False``), for the
        events compared; a side whose hosts read alike, that has one host, or whose hosts are
        not known is absent.
        """
        out = {}
        for side, check in zip("AB", self.machines):
            if check is None or check.one_host:
                continue
            found = [(e, h, r) for e, h, r in check.differing(moved=False) if e in set(self.table.events)]
            if found:
                out[side] = found
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per event compared.

        Columns: ``event``; ``median_a``, ``median_b`` (for counts tied at the median, the grouped
        median, see :func:`hemkit.core.stats.center`); ``ratio`` (``median_b / median_a``; of
        the means where a median is 0; inf where A is 0 in every run, see ``note``) with its
        interval ``lower``, ``upper`` at ``level``; ``p_value`` (Brunner-Munzel) and
        ``q_value`` (Benjamini-Hochberg adjusted); ``changed`` (``q_value <= 1 - level``, or
        each side one different value; with a :attr:`margin` ``m`` also the interval wholly
        outside ``[1 / (1 + m), 1 + m]``); ``verdict`` (``changed``; ``alike``: the interval
        wholly inside that band, or one equal value on both sides; ``unclear``: neither, these
        runs cannot tell at the margin); ``superiority`` (``P(A < B) + P(A = B) / 2``: 0.5 no
        tendency, 1 every B reading above every A reading), ``difference``
        (``median_b - median_a``), ``runs_a``, ``runs_b``, ``note``.
        """
        import pandas as pd

        t = self.table
        data = {"event": list(t.events)}
        data.update({c: getattr(t, c) for c in COLUMNS[1:-1]})
        data["verdict"] = list(t.verdict)
        data["note"] = list(t.note)
        return pd.DataFrame(data, columns=list(COLUMNS))

    def row(self) -> dict[str, Any]:
        """The numbers of :meth:`summary` as a dict."""
        t = self.table
        idx = np.flatnonzero(t.changed)
        biggest = ""
        if len(idx):
            logr = np.abs(np.log(np.clip(t.ratio[idx], 1e-300, 1e300)))
            j = idx[int(np.argmax(logr))]
            biggest = f"{t.events[j]} x{t.ratio[j]:.4g}"
        row: dict[str, Any] = {
            "events": len(t.events),
            "changed": int(t.changed.sum()),
            "alike": len(self.alike),
            "unclear": len(self.unclear),
            "margin": self.margin,
            "only_a": len(self.only_a),
            "only_b": len(self.only_b),
            "runs_a": int(t.runs_a.min()) if len(t.runs_a) else 0,
            "runs_b": int(t.runs_b.min()) if len(t.runs_b) else 0,
            "level": self.level,
            "largest_change": biggest or "none",
            "hosts_differ": "; ".join(
                f"{side}: {', '.join(self.machines[0 if side == 'A' else 1].hosts)} on "
                f"{len({e for e, _, _ in found})} event(s)"
                for side, found in self.mixed_hosts.items()
            )
            or "none",
        }
        if self.pairs is not None:
            row["pairs"] = len(self.pairs)
            row["pairs_changed"] = int(self.pairs["changed"].sum()) if len(self.pairs) else 0
        return row

    def line(self) -> str:
        """One sentence: events changed, alike and unclear at the margin, and the false discovery rate."""
        row = self.row()
        margin = format_percent(self.margin) if self.margin else "0"
        return (
            f"{row['changed']} of {row['events']} events changed, {row['alike']} alike, {row['unclear']} unclear "
            f"at margin {margin} (FDR {format_percent(1 - self.level)})"
        )

    def summary(self) -> pd.DataFrame:
        """One row: events compared, changed, alike and unclear at the margin, events on one side only, fewest runs.

        Also the margin, the level and the largest change.

        ``hosts_differ`` names each side whose runs come from hosts that read differently
        (:attr:`mixed_hosts`): its hosts and on how many events they differ; else ``none``.
        """
        import pandas as pd

        return pd.DataFrame([self.row()], index=pd.Index(["compare"], name="result"))

    @cached_property
    def _power(self) -> Power:
        alpha = (1.0 - self.level) / max(1, len(self.table.events))
        return detectable_change(self.power_sample, self.placements, alpha=alpha, power=0.9, change=0.01, seed=0)

    def power(self) -> pd.DataFrame:
        """Per event: the smallest relative change these runs detect, and the runs per side a 1 % change needs.

        ``detectable`` is the relative increase (0.02: 2 %) flagged with probability 0.9 when it is
        the only change among the events compared (Benjamini-Hochberg then flags at
        ``(1 - level) / events``); ``runs_needed`` is what the same needs for a 1 % change (inf:
        a 1 % change moves no reading, e.g. a count of 20).
        """
        import pandas as pd

        pw = self._power
        return pd.DataFrame(
            {
                "event": list(self.table.events),
                "detectable": pw.detectable,
                "runs_needed": pw.runs_needed,
                "runs_a": self.table.runs_a,
                "runs_b": self.table.runs_b,
            }
        )

    def plot(self, ax: Any = None) -> Any:
        """Ratio ``B / A`` per event with its interval (log scale), changed events marked; returns the Axes."""
        from hemkit.compare.plots import plot_ratios

        return plot_ratios(self, ax=ax)

    def plot_power(self, ax: Any = None) -> Any:
        """Per event: the smallest detectable change, and the runs a 1 % change needs; returns the Axes."""
        from hemkit.compare.plots import plot_power

        return plot_power(self, ax=ax)


__all__ = ["COLUMNS", "CompareResult", "EventTable"]
