"""``hemkit report``: one self-contained HTML page about a collection or a set of readings.

The page shows the plan and its coverage, the runs and why some were invalid (for a
collection database), the run-to-run variability of every event, the merged correlations
with per-pair intervals, and, when given, the multiplexing and sampling figures. Every figure
is inline (PNG in the page), so the file opens anywhere without network.

Examples
--------
>>> from hemkit.datasets import t2080_much
>>> rep = build_report(t2080_much(), source="T2080")  # doctest: +SKIP
>>> rep.summary()  # doctest: +SKIP
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from hemkit import __version__
from hemkit.core.errors import InputError
from hemkit.core.readings import Readings
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike
from hemkit.report.html import Section, render

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class ReportOptions:
    """What goes into a report besides the readings.

    Attributes
    ----------
    method : str
        Merge method for the merged-correlation section (``"joint"``, ``"copula"``, ``"much"``,
        ``"hrm"``, or ``""`` for none).
    anchor : str, optional
        HRM anchor.
    level : float
        Level of the per-pair intervals.
    title : str
        Page title.
    mpx : tuple of paths
        ``perf stat -I`` interval traces: one multiplexing section each
        (:func:`hemkit.report.sections.multiplexing`).
    profiles : tuple of paths
        ``perf record`` files (``perf.data`` or ``perf script`` text): one sampling-profile
        section each (:func:`hemkit.report.sections.sampling`).
    """

    method: str = "joint"
    anchor: str | None = None
    level: float = 0.9
    title: str = "hemkit report"
    mpx: tuple[PathLike, ...] = ()
    profiles: tuple[PathLike, ...] = ()


@result
class Report(Result):
    """A rendered report.

    Attributes
    ----------
    html : str
        The whole self-contained page.
    sections : tuple of Section
        What the page holds (titles, tables, figures).
    source : str
        What was reported on.
    """

    html: str
    sections: tuple[Section, ...]
    source: str

    def summary(self) -> pd.DataFrame:
        """One row per section: its title, number of tables, figures and warnings."""
        return pd.DataFrame(
            {
                "title": [s.title for s in self.sections],
                "tables": [len(s.tables) for s in self.sections],
                "figures": [len(s.figures) for s in self.sections],
                "warnings": [len(s.warnings) for s in self.sections],
            },
            index=pd.Index([s.key for s in self.sections], name="section"),
        )

    @property
    def n_figures(self) -> int:
        """Figures in the page."""
        return sum(len(s.figures) for s in self.sections)


def _collection(source: Any) -> tuple[pd.DataFrame, pd.DataFrame, dict] | None:
    """Runs, status and metadata when ``source`` is a collection database."""
    from hemkit.io.readings import sniff

    if isinstance(source, Readings) or not isinstance(source, str | os.PathLike):
        return None
    if sniff(source) != "database":
        return None
    from hemkit.io.collection import CollectionDB

    with CollectionDB(os.fspath(source)) as db:
        return db.runs(), db.status(), db.meta()


def _unique_keys(parts: Sequence[Section]) -> list[Section]:
    """Sections whose keys (the page's anchors) repeat get ``-2``, ``-3`` ... appended."""
    seen: dict[str, int] = {}
    out = []
    for s in parts:
        seen[s.key] = seen.get(s.key, 0) + 1
        out.append(s if seen[s.key] == 1 else replace(s, key=f"{s.key}-{seen[s.key]}"))
    return out


def _stamp() -> str:
    return _dt.datetime.now().strftime("%Y-%m-%d %H:%M")


def build_report(
    readings: Readings | PathLike | None,
    *,
    source: str = "",
    options: ReportOptions | None = None,
    seed: SeedLike = 0,
    extra: Sequence[Section] = (),
) -> Report:
    """Build the report of a collection database, a readings file or :class:`Readings`.

    Parameters
    ----------
    readings : Readings, path or None
        What to report on; a path is read with :func:`hemkit.io.read_readings` (a collection
        database adds the runs-and-validation section). ``None``: no readings, only the
        sections of ``options.mpx``, ``options.profiles`` and ``extra`` (at least one).
    source : str
        How to name the data in the page (default: the path).
    options : ReportOptions, optional
    seed : int or Generator
        Seed of the merge and its intervals.
    extra : sections
        Further sections appended at the end (after those of ``options.mpx`` and
        ``options.profiles``).

    Raises
    ------
    InputError
        A file that cannot be read (one line naming it); the traces and profiles are read
        first, so a bad one fails before the (slower) merge.
    """
    from hemkit.io.readings import read_readings
    from hemkit.report import sections as sec

    options = options or ReportOptions()
    figures = [sec.multiplexing(p) for p in options.mpx] + [sec.sampling(p) for p in options.profiles]
    if readings is None:
        if not figures and not extra:
            raise InputError("nothing to report: give readings, a trace (mpx) or a profile")
        names = [os.fspath(p) for p in (*options.mpx, *options.profiles)]
        source = source or " ".join(names) or "sections"
        alone = _unique_keys([*figures, *extra])
        page = render(options.title, f"{source} — made by hemkit {__version__} on {_stamp()}", alone)
        return Report(html=page, sections=tuple(alone), source=source)
    collection = _collection(readings)
    if not isinstance(readings, Readings):
        path = os.fspath(readings)
        source = source or path
        readings = read_readings(path)
    source = source or "readings"
    meta = collection[2] if collection else None
    parts: list[Section] = [sec.overview(readings, source, meta), sec.coverage(readings)]
    if collection is not None:
        parts.append(sec.validation(collection[0], collection[1]))
    parts.append(sec.variability(readings))
    if options.method:
        parts.append(sec.merged(readings, options, seed))
    parts = _unique_keys([*parts, *figures, *extra])
    page = render(options.title, f"{source} — made by hemkit {__version__} on {_stamp()}", parts)
    return Report(html=page, sections=tuple(parts), source=source)


__all__ = ["Report", "ReportOptions", "build_report"]
