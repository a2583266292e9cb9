"""What every file format of hemkit is recognised by, and the one policy for format versions.

Constants that readers and writers share (file name suffixes, magic numbers, the versions
of the formats hemkit writes) live here once; every module of :mod:`hemkit.io` takes them
from here.

**Versions.**  Every file hemkit writes in a format of its own carries a version: the plan
file (``format_version``), derive's JSON analyses (``version``), MPX model files
(``version``), the collection database (SQLite ``user_version``) and the Parquet files hemkit
writes (key-value metadata ``hemkit_version``).  :func:`check_version` is the one policy:
a file without a version, or with an older one, is read; a newer one is refused with an
:class:`~hemkit.core.errors.InputError` naming the file and both versions.  Plain CSV
tables (tidy readings, merged tables, scores) are interchange files and stay plain CSV.

Examples
--------
>>> check_version("plan.toml", None, PLAN_VERSION, "plan file")
0
>>> check_version("plan.toml", 9, 1, "plan file")
Traceback (most recent call last):
...
hemkit.core.errors.InputError: plan.toml: plan file version 9 is newer than this hemkit reads (version 1); \
update hemkit or write the file again with this one
"""

from __future__ import annotations

import os

from hemkit.core.errors import InputError, OutputError

# ------------------------------------------------------------------ names and magic numbers
PARQUET_SUFFIXES = (".parquet", ".pq")
"""File names that are written as Parquet (reading goes by content, :data:`PARQUET_MAGIC`)."""
PARQUET_MAGIC = b"PAR1"
"""The first (and last) four bytes of every Parquet file."""
SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first sixteen bytes of every SQLite database (a collection database)."""
MODEL_SUFFIXES = (".pt", ".pth")
"""File names of saved MPX models (``hemkit mpx fit -o``)."""

# ------------------------------------------------------------------ versions hemkit writes
PLAN_VERSION = 1
"""The plan file (TOML or JSON) key ``format_version``."""
ANALYSIS_VERSION = 1
"""derive's JSON analysis key ``version``."""
MODEL_VERSION = 2
"""An MPX model file's ``version``."""
COLLECTION_VERSION = 2
"""The collection database's layout (SQLite ``user_version``; 2: the machine of every run)."""
TABLE_VERSION = 1
"""Parquet tables hemkit writes: key-value metadata :data:`TABLE_VERSION_KEY`."""
TABLE_VERSION_KEY = b"hemkit_version"


def is_parquet_name(path: str | os.PathLike[str]) -> bool:
    """Whether a file is *written* as Parquet: its name ends in ``.parquet`` or ``.pq`` (any case).

    Examples
    --------
    >>> is_parquet_name("t.PQ"), is_parquet_name("t.csv")
    (True, False)
    """
    return os.fspath(path).lower().endswith(PARQUET_SUFFIXES)


#: names of other formats: a table hemkit writes (CSV or Parquet) under one of them would only pretend to be it
OTHER_TABLE_SUFFIXES = (
    ".xlsx", ".xls", ".ods", ".json", ".jsonl", ".tsv", ".feather", ".arrow", ".h5", ".hdf5", ".pkl", ".pickle",
    ".npy", ".npz", ".html", ".htm", ".db", ".sqlite", ".toml", ".yaml", ".yml", ".png", ".svg", ".pdf",
)  # fmt: skip


def check_table_name(path: str | os.PathLike[str], what: str = "") -> None:
    """Refuse a table file named for another format: hemkit writes tables as CSV or Parquet (by suffix).

    Any other name is written as CSV (``t.txt``, ``t.csv.gz``, no suffix), but a name of another
    format (``.xlsx``, ``.json``, ``.tsv``, ...) would hold CSV text that its program cannot open.

    Parameters
    ----------
    path : path
        The table file to be written.
    what : str
        How to name it in the message; default just the path.

    Raises
    ------
    OutputError
        Naming the file and the suffixes to use.

    Examples
    --------
    >>> check_table_name("t.csv"), check_table_name("t.PQ"), check_table_name("t.txt")
    (None, None, None)
    >>> check_table_name("t.xlsx")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: t.xlsx: hemkit writes tables as CSV or Parquet, not .xlsx; name it .csv or .parquet
    """
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in OTHER_TABLE_SUFFIXES:
        label = f"{what} {name}" if what else name
        raise OutputError(f"{label}: hemkit writes tables as CSV or Parquet, not {suffix}; name it .csv or .parquet")


#: figure suffixes matplotlib writes (no suffix: PNG)
FIGURE_SUFFIXES = (".png", ".svg", ".svgz", ".pdf", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".pgf")


def check_figure_name(path: str | os.PathLike[str], what: str = "plot") -> None:
    """Refuse a figure file whose suffix names no figure format (the format is chosen by suffix).

    Parameters
    ----------
    path : path
        The figure file to be written; no suffix is PNG.
    what : str
        How to name it in the message (the option, e.g. ``"--plot"``).

    Raises
    ------
    OutputError
        Naming the file and the suffixes to use.

    Examples
    --------
    >>> check_figure_name("f.svg"), check_figure_name("f.PNG"), check_figure_name("f")
    (None, None, None)
    >>> check_figure_name("f.txt")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: plot f.txt: .txt is not a figure format; name it .png, .svg or .pdf
    """
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix and suffix not in FIGURE_SUFFIXES:
        label = f"{what} {name}" if what else name
        raise OutputError(f"{label}: {suffix} is not a figure format; name it .png, .svg or .pdf")


#: names of other formats: the HTML page of a report under one of them would only pretend to be it
OTHER_PAGE_SUFFIXES = (
    *(s for s in OTHER_TABLE_SUFFIXES if s not in (".html", ".htm")), ".csv", *PARQUET_SUFFIXES, ".jpg", ".jpeg",
)  # fmt: skip


def check_page_name(path: str | os.PathLike[str], what: str = "report") -> None:
    """Refuse an HTML page named for another format: a report is one HTML page whatever its name.

    Any other name is written as HTML (``r.html``, ``r.htm``, no suffix), but ``r.pdf`` or
    ``r.png`` would hold HTML text that a PDF reader or image viewer cannot open.

    Parameters
    ----------
    path : path
        The page to be written.
    what : str
        How to name it in the message.

    Raises
    ------
    OutputError
        Naming the file and the suffix to use.

    Examples
    --------
    >>> check_page_name("r.html"), check_page_name("r.HTM"), check_page_name("report")
    (None, None, None)
    >>> check_page_name("r.pdf")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: report r.pdf: hemkit writes a report as one HTML page, not .pdf; name it .html
    """
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in OTHER_PAGE_SUFFIXES:
        raise OutputError(f"{what} {name}: hemkit writes a report as one HTML page, not {suffix}; name it .html")


#: names of other formats: a plan file (TOML, or JSON by name) under one of them would only pretend to be it
OTHER_PLAN_SUFFIXES = (
    *(s for s in OTHER_TABLE_SUFFIXES if s not in (".json", ".toml")), ".csv", *PARQUET_SUFFIXES,
)  # fmt: skip


def check_plan_name(path: str | os.PathLike[str]) -> None:
    """Refuse a plan file named for another format: a plan is TOML (JSON for a ``.json`` name).

    Any other name is written as TOML (``p.toml``, ``p.plan``, no suffix), but ``p.csv`` or
    ``p.yaml`` would hold TOML text that its program cannot read, and ``p.db`` would be taken
    for the collection database (``hemkit collect p.db`` makes ``p.db``).

    Raises
    ------
    OutputError
        Naming the file and the suffixes to use.

    Examples
    --------
    >>> check_plan_name("p.toml"), check_plan_name("p.JSON"), check_plan_name("plan")
    (None, None, None)
    >>> check_plan_name("p.csv")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: plan file p.csv: hemkit writes a plan as TOML or JSON, not .csv; \
name it .toml or .json
    """
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in OTHER_PLAN_SUFFIXES:
        raise OutputError(
            f"plan file {name}: hemkit writes a plan as TOML or JSON, not {suffix}; name it .toml or .json"
        )


def check_version(source: str | os.PathLike[str], found: object, current: int, what: str) -> int:
    """The version of a file hemkit wrote, checked against the version this hemkit writes.

    The one policy for every format: no version (``None``: written before versions) reads as
    version 0, an older version is read, a newer one is refused.

    Parameters
    ----------
    source : path or str
        The file, named in the message.
    found : object
        The version the file holds (``None`` when it holds none).
    current : int
        The version this hemkit writes.
    what : str
        The format, named in the message (``"plan file"``).

    Returns
    -------
    int
        The file's version (0 for none).

    Raises
    ------
    InputError
        The version is not a whole number >= 0, or is newer than ``current``.
    """
    if found is None:
        return 0
    if isinstance(found, bool) or not isinstance(found, int) or found < 0:
        raise InputError(f"{os.fspath(source)}: {what} version {found!r} is not a whole number >= 0")
    if found > current:
        raise InputError(
            f"{os.fspath(source)}: {what} version {found} is newer than this hemkit reads (version {current}); "
            "update hemkit or write the file again with this one"
        )
    return found


__all__ = [
    "ANALYSIS_VERSION",
    "COLLECTION_VERSION",
    "FIGURE_SUFFIXES",
    "MODEL_SUFFIXES",
    "MODEL_VERSION",
    "PARQUET_MAGIC",
    "PARQUET_SUFFIXES",
    "PLAN_VERSION",
    "SQLITE_MAGIC",
    "TABLE_VERSION",
    "TABLE_VERSION_KEY",
    "check_figure_name",
    "check_version",
    "is_parquet_name",
]
