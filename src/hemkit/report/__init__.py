"""``hemkit report``: one self-contained HTML page about a collection or a set of readings.

The page shows the plan and its coverage, the runs and why some were invalid (for a
collection database; for a collection measured on several hosts, whether the hosts read
alike: :func:`hemkit.compare.machines_check`), the run-to-run variability of every event, the merged correlations
with per-pair intervals, and, when given, the multiplexing and sampling figures. Every figure
is inline (SVG for the readings, whose marks name themselves on hover; PNG for the traces and
profiles), and so are the page's few KB of script (search, filters, sorting), so the file opens
anywhere without network, and whole with scripts off.

Examples
--------
>>> from hemkit.datasets import t2080_much
>>> rep = build_report(t2080_much(), source="T2080")  # doctest: +SKIP
>>> rep.summary()  # doctest: +SKIP
"""

from __future__ import annotations

import datetime as _dt
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from hemkit import __version__
from hemkit.core.checks import did_you_mean
from hemkit.core.errors import HemkitError, HemkitWarning, InputError
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
        section each (:func:`hemkit.report.sections.sampling`); with two or more, each later
        one compared with the first (:func:`hemkit.report.sections.sampling_diff`).
    merge_options : mapping
        The method's further keyword arguments, as :func:`hemkit.merge.merge` takes them
        (``impute="maxdet"``, ``n_sims``, ``n`` ...).
    jobs : int or None
        Threads of the merge (the result is the same for any number).
    explain : callable, optional
        How the error of a failed section is worded (default ``str``: the library's words,
        ``pass impute='maxdet'``); ``hemkit report`` passes one that names its own options.
    compare : Readings, path or paths, optional
        Side B of a comparison (:func:`hemkit.compare.compare`) with the report's readings as
        side A: a section with the events that changed, their ratios with intervals, and the
        pairs whose correlation changed.  Paths are read with the report's ``read_options``.
    hosts_margin : float or None
        The margin of the machines section's check (:func:`hemkit.compare.machines_check`'s
        ``margin``); None: :data:`hemkit.compare.HOSTS_MARGIN`.

    Examples
    --------
    An HRM merge for the merged-correlation section, and a title of one's own:

    >>> from hemkit.datasets import t2080_hrm
    >>> opts = ReportOptions(method="hrm", anchor="PROCESSOR_CYCLES", title="T2080, HRM design")
    >>> rep = build_report(t2080_hrm(), source="T2080", options=opts)
    >>> "<title>T2080, HRM design</title>" in rep.html, "merge" in rep.summary().index
    (True, True)

    ``method=""`` leaves the merge out (the quickest report of a large collection):

    >>> list(build_report(t2080_hrm(), options=ReportOptions(method="")).summary().index)
    ['overview', 'runs', 'coverage', 'variability']
    """

    method: str = "joint"
    anchor: str | None = None
    level: float = 0.9
    title: str = "hemkit report"
    mpx: tuple[PathLike, ...] = ()
    profiles: tuple[PathLike, ...] = ()
    merge_options: Mapping[str, Any] = field(default_factory=dict)
    jobs: int | None = 1
    explain: Callable[[HemkitError], str] | None = None
    compare: Readings | PathLike | Sequence[PathLike] | None = None
    hosts_margin: float | None = None


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

    Examples
    --------
    >>> from hemkit.datasets import t2080_hrm
    >>> rep = build_report(t2080_hrm(), source="T2080", options=ReportOptions(method="hrm", anchor="PROCESSOR_CYCLES"))
    >>> rep.source, rep.n_figures, rep.failed, rep.html.startswith("<!DOCTYPE html>")
    ('T2080', 5, {}, True)
    >>> print(rep.summary()[["title", "figures", "failed"]].reset_index().to_string(index=False))
        section                       title  figures  failed
       overview                    Overview        0   False
           runs                        Runs        0   False
       coverage           Plan and coverage        2   False
    variability Variability of the readings        1   False
          merge         Merged correlations        2   False

    A section the data do not allow is in the page with its reason: a MUCH merge of the HRM
    readings, whose pairs are not all read together (also a :class:`HemkitWarning`):

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     warnings.simplefilter("always")
    ...     rep = build_report(t2080_hrm(), options=ReportOptions(method="much"))
    >>> list(rep.failed), rep.failed["merge"].endswith("pass impute='maxdet'")
    (['merge'], True)
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
                "failed": [bool(s.error) for s in self.sections],
            },
            index=pd.Index([s.key for s in self.sections], name="section"),
        )

    @property
    def failed(self) -> dict[str, str]:
        """Section key -> why it failed, for every section the data did not allow."""
        return {s.key: s.error for s in self.sections if s.error}

    @property
    def n_figures(self) -> int:
        """Figures in the page."""
        return sum(len(s.figures) for s in self.sections)


@dataclass(frozen=True)
class _Collection:
    """What a collection database says besides its readings."""

    runs: pd.DataFrame
    status: pd.DataFrame
    meta: dict
    groups: list[list[str]]
    counted: pd.DataFrame | None = None
    host: Any = None  # the runs are those of these hosts only (--host), None: every run


def _collection(source: Any, host: Any = None) -> _Collection | None:
    """Runs, status, metadata and planned groups when ``source`` is one collection database (runs of ``host``)."""
    from hemkit.io.readings import sniff

    if isinstance(source, Readings) or not isinstance(source, str | os.PathLike):
        return None
    if sniff(source) != "database":
        return None
    from hemkit.io.collection import CollectionDB

    with CollectionDB(os.fspath(source)) as db, db.snapshot():  # one moment, while a collector may write
        return _Collection(db.runs(host), db.status(host), db.meta(), db.groups(), db.counted(host), host)


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


def _guarded(
    key: str, title: str, make: Callable[[], Section], explain: Callable[[HemkitError], str] | None
) -> Section:
    """The section ``make`` builds, or, when the data do not allow it, the section saying why."""
    try:
        return make()
    except HemkitError as exc:
        return Section(key, title, error=" ".join((explain or str)(exc).split()))


def _read(source: Any, read_options: Mapping[str, Any]) -> tuple[Readings, list[str], pd.DataFrame | None]:
    """The readings of a path (or paths), the warnings reading them gave (passed on as well), the host of each run."""
    from hemkit.io.readings import read_machines, read_readings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HemkitWarning)
        readings = read_readings(source, **dict(read_options))
        hosts = read_machines(source, host=read_options.get("host"))  # just read: not read again
    notes = []
    for w in caught:
        text = " ".join(str(w.message).split())
        if issubclass(w.category, HemkitWarning) and text not in notes:
            notes.append(text)
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return readings, notes, hosts


def _host_label(host: Any) -> str:
    """`` (runs of host 'n1')`` when the runs read were those of some hosts only, else ``""``."""
    if not host:
        return ""
    names = [host] if isinstance(host, str) else list(host)
    return f" (runs of host{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))})"


def _with_reading_notes(section: Section, notes: list[str]) -> Section:
    """The overview with what reading the input said: a few as warnings, many as one warning and a table."""
    if len(notes) <= 3:
        return replace(section, warnings=(*section.warnings, *notes))
    table = pd.DataFrame({"warning": notes}, index=pd.RangeIndex(1, len(notes) + 1))
    return replace(
        section,
        warnings=(*section.warnings, f"reading the input gave {len(notes)} warnings (listed below)"),
        tables=(*section.tables, ("What reading the input said.", table)),
    )


def _readings_sections(
    readings: Readings,
    source: str,
    collection: _Collection | None,
    options: ReportOptions,
    seed: SeedLike,
    other: tuple[Readings, str, tuple[pd.DataFrame | None, pd.DataFrame | None]] | None = None,
) -> list[Section]:
    """The sections of the readings; ``other``: side B of a comparison, its name, the hosts of A's and B's runs."""
    from hemkit.report import sections as sec

    def guard(key: str, title: str, make: Callable[[], Section]) -> Section:
        return _guarded(key, title, make, options.explain)

    constants = sec.constant_events(readings)
    parts = [
        guard("overview", "Overview", lambda: sec.overview(readings, source, constants)),
        guard(
            "runs",
            "Runs",
            lambda: (
                sec.runs_of_collection(
                    collection.runs, collection.status, collection.meta, collection.counted, host=collection.host
                )
                if collection is not None
                else sec.runs_of_readings(readings)
            ),
        ),
        guard(
            "coverage",
            "Plan and coverage",
            lambda: sec.coverage(readings, constants, collection.groups if collection is not None else None),
        ),
    ]
    if constants:
        parts.append(guard("constant", "Constant events", lambda: sec.constants_section(constants, readings)))
    parts.append(guard("variability", "Variability of the readings", lambda: sec.variability(readings)))
    if options.method:
        parts.append(guard("merge", "Merged correlations", lambda: sec.merged(readings, options, seed, constants)))
    if other is not None:
        parts.append(
            guard(
                "compare", "Compared with B", lambda: sec.comparison(readings, other[:2], options, seed, hosts=other[2])
            )
        )
    return parts


def _machines_section(
    paths: Sequence[PathLike], readings: Readings, seed: SeedLike, options: ReportOptions
) -> Section | None:
    """The machines section of readings from collection databases whose runs name two or more hosts, else None."""
    from hemkit.compare.machines import HOSTS_MARGIN, collection_machines
    from hemkit.report import sections as sec

    margin = HOSTS_MARGIN if options.hosts_margin is None else options.hosts_margin
    try:
        check = collection_machines(paths, readings, seed=seed, margin=margin)
    except HemkitError as exc:
        return Section("machines", "Machines", error=" ".join((options.explain or str)(exc).split()))
    if check is None or check.one_host:
        return None
    return sec.machines(check)


def build_report(
    readings: Readings | PathLike | Sequence[PathLike] | None,
    *,
    source: str = "",
    options: ReportOptions | None = None,
    seed: SeedLike = 0,
    extra: Sequence[Section] = (),
    read_options: Mapping[str, Any] | None = None,
) -> Report:
    """Build the report of a collection database, readings files or :class:`Readings`.

    Parameters
    ----------
    readings : Readings, path, paths or None
        What to report on; paths are read with :func:`hemkit.io.read_readings` (one
        collection database adds its runs table, the measured command and the machine to
        the runs section, and its plan to the plan figure). Events constant within a group
        are shown as they are (the merge alone leaves them out and says so). ``None``: no
        readings, only the sections of ``options.mpx``, ``options.profiles`` and ``extra``
        (at least one).
    source : str
        How to name the data in the page (default: the path).
    options : ReportOptions, optional
    seed : int or Generator
        Seed of the merge and its intervals.
    extra : sections
        Further sections appended at the end (after those of ``options.mpx`` and
        ``options.profiles``).
    read_options : mapping, optional
        Keyword arguments of :func:`hemkit.io.read_readings` for paths (``pmcs``, ``codes``,
        ``drop_constant`` ...); ``min_runs`` is 1 for one collection database unless given: the
        page of an unfinished collection shows every run stored, and the merge section alone
        asks for 3 a group.

    Returns
    -------
    Report
        A section the data do not allow (a merge with pairs never read together) is in the
        page with its reason (:attr:`Report.failed`), and each such section is also a
        :class:`HemkitWarning` ``report section 'merge' failed: ...``.

    Raises
    ------
    InputError
        A file that cannot be read (one line naming it); the traces and profiles are read
        first, so a bad one fails before the (slower) merge.

    Examples
    --------
    Report on the bundled T2080 readings and save the page:

    >>> import os, tempfile
    >>> from hemkit.datasets import t2080_hrm
    >>> from hemkit.io import write_text
    >>> rep = build_report(t2080_hrm(), source="T2080", options=ReportOptions(method="hrm", anchor="PROCESSOR_CYCLES"))
    >>> rep.line()
    'Report: 5 rows (overview, runs, coverage, variability, merge)'
    >>> path = write_text(os.path.join(tempfile.mkdtemp(), "t2080.html"), rep.html)
    >>> path.stat().st_size > 100_000
    True
    """
    from hemkit.report import sections as sec

    options = options or ReportOptions()
    figures = [sec.multiplexing(p, level=options.level) for p in options.mpx]
    figures += [sec.sampling(p) for p in options.profiles]
    # two or more profiles: each later one compared with the first
    figures += [sec.sampling_diff(options.profiles[0], p) for p in options.profiles[1:]]
    if readings is None:
        if not figures and not extra:
            raise InputError("nothing to report: give readings, a trace (mpx) or a profile")
        names = [os.fspath(p) for p in (*options.mpx, *options.profiles)]
        source = source or " ".join(names) or "sections"
        alone = _unique_keys([*figures, *extra])
        page = render(options.title, f"{source} — made by hemkit {__version__} on {_stamp()}", alone)
        return Report(html=page, sections=tuple(alone), source=source)
    notes: list[str] = []
    collection = None
    paths: list[PathLike] = []
    hosts_a = hosts_b = None
    read_options = dict(read_options or {})
    if not isinstance(readings, Readings):
        paths = [readings] if isinstance(readings, str | os.PathLike) else list(readings)
        source = (source or " ".join(str(os.fspath(p)) for p in paths)) + _host_label(read_options.get("host"))
        collection = _collection(paths[0], read_options.get("host")) if len(paths) == 1 else None
        # a collection shows every run it stored, however few (one stopped early): the merge section, which
        # needs 3 runs a group, says so itself. Perf stat files keep the readers' 3: one file given alone is
        # a mistake their error explains (give the files of all runs)
        minimum = {"min_runs": 1} if collection is not None else {}
        readings, notes, hosts_a = _read(paths[0] if len(paths) == 1 else paths, {**minimum, **read_options})
    source = source or "readings"
    anchor = options.anchor if options.method == "hrm" else None
    if anchor is not None and anchor not in readings.events:
        # a mistyped option, not a merge the data do not allow: refused before any page is made
        shown = ", ".join(readings.events[:8]) + (", ..." if len(readings.events) > 8 else "")
        close = did_you_mean(anchor, readings.events)
        raise InputError(f"{source}: unknown anchor {anchor!r}: not among the events ({shown}){close}")
    other = None
    if options.compare is not None:
        b = options.compare
        if isinstance(b, Readings):
            other = (b, b.source or "B")
        else:
            b_paths = [b] if isinstance(b, str | os.PathLike) else list(b)
            try:
                b_read, b_notes, hosts_b = _read(b_paths[0] if len(b_paths) == 1 else b_paths, read_options)
            except HemkitError as exc:
                raise exc.reworded(f"compare (B): {exc.message}") from exc
            notes += [f"B: {n}" for n in b_notes]
            other = (
                b_read,
                " ".join(str(os.fspath(p)) for p in b_paths) + _host_label(read_options.get("host")),
            )
    parts = _readings_sections(
        readings, source, collection, options, seed, None if other is None else (*other, (hosts_a, hosts_b))
    )
    if paths:
        machines = _machines_section(paths, readings, seed, options)
        if machines is not None:
            parts.insert(2, machines)  # after the runs
    if notes:
        parts[0] = _with_reading_notes(parts[0], notes)
    parts = _unique_keys([*parts, *figures, *extra])
    for s in parts:
        if s.error:
            warnings.warn(f"report section {s.key!r} failed: {s.error}", HemkitWarning, stacklevel=2)
    page = render(options.title, f"{source} — made by hemkit {__version__} on {_stamp()}", parts)
    return Report(html=page, sections=tuple(parts), source=source)


__all__ = ["Report", "ReportOptions", "build_report"]
