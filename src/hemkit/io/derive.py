"""Files of the metric derivation (``hemkit derive``): measurements, analyses, definition tables, presets.

- measurements: the tidy table ``hemkit derive run`` writes (``kernel, size, run, event,
  value``, plus ``family``, ``backend`` ...), CSV or Parquet through :mod:`hemkit.io.table`;
- analyses: a :class:`hemkit.derive.DeriveAnalysis` as JSON (``"format":
  "hemkit-derive-analysis"`` and a ``version``, :data:`hemkit.io.formats.ANALYSIS_VERSION`);
- definition tables: ``.md``, ``.csv`` or ``.json`` by suffix;
- presets: a ``preset,definition`` CSV;
- a user's text file (an event list).

Every write is atomic, every read raises :class:`~hemkit.core.errors.InputError` naming the
file.  What the contents mean is checked by :mod:`hemkit.derive.inputs`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from hemkit.core.errors import InputError
from hemkit.io.atomic import write_text
from hemkit.io.formats import ANALYSIS_VERSION, check_version, read_input
from hemkit.io.table import read_table, write_table

if TYPE_CHECKING:
    import pandas as pd

PathLike = str | os.PathLike[str]
ANALYSIS_FORMAT = "hemkit-derive-analysis"
TABLE_SUFFIXES = (".md", ".csv", ".json")
#: measurement columns read as text, never guessed as numbers (a size ``1k``, a kernel ``1``)
TEXT_COLUMNS = {"size": str, "kernel": str, "event": str, "family": str, "backend": str}


class _Definitions(Protocol):
    def to_frame(self) -> pd.DataFrame: ...

    def to_markdown(self) -> str: ...


def read_text_file(path: PathLike, what: str, *, hint: str = "") -> str:
    """The text of a user's file, or an :class:`InputError`: missing, a folder, not UTF-8, unreadable.

    A file compressed with gzip, bzip2 or xz is read as the text it holds.

    Examples
    --------
    >>> read_text_file("/nonexistent/ev.txt", "event list")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: /nonexistent/ev.txt: no such event list
    """
    p = Path(os.fspath(path))
    if not p.exists():
        raise InputError(f"{p}: no such {what}{' ' + hint if hint else ''}")
    if not p.is_file():
        raise InputError(f"{p}: is not a file")
    try:
        return read_input(p).decode("utf-8")  # gzip, bzip2 or xz decompressed
    except UnicodeDecodeError:
        raise InputError(f"{p}: not a text file (not UTF-8); expected a {what}") from None


def read_measurements_table(path: PathLike, what: str = "measurements") -> pd.DataFrame:
    """A measurements (or presets) table as it is in the file, its text columns as text (not yet checked)."""
    return read_table(path, what=what, dtype=TEXT_COLUMNS)


def write_measurements(measurements: Any, path: PathLike, *, inputs: Any = ()) -> Path:
    """Write measurements (a :class:`~hemkit.derive.Measurements` or a DataFrame) as CSV or Parquet, atomically."""
    return write_table(getattr(measurements, "data", measurements), path, inputs=inputs, what="measurements")


def write_analysis(analysis: Any, path: PathLike, *, inputs: Any = ()) -> Path:
    """Write a :class:`~hemkit.derive.DeriveAnalysis` (its ``to_dict()``) as JSON with its version, atomically."""
    data = dict(analysis.to_dict())
    data["version"] = ANALYSIS_VERSION
    return write_text(path, json.dumps(data, indent=1, allow_nan=False) + "\n", inputs=inputs)


def read_analysis(path: PathLike) -> dict[str, Any]:
    """The JSON of an analysis file, its version checked (:func:`hemkit.io.formats.check_version`).

    Rebuild the analysis with :func:`hemkit.derive.load_analysis`.
    """
    p = Path(os.fspath(path))
    text = read_text_file(p, "result file", hint="(write one with 'hemkit derive analyze')")

    def no_constants(name: str) -> float:
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        d = json.loads(text, parse_constant=no_constants)
    except (ValueError, RecursionError) as exc:
        header = {c.strip() for c in text.lstrip().split("\n", 1)[0].split(",")}
        if {"kernel", "size", "run", "event", "value"} <= header:  # what 'hemkit derive run' writes
            raise InputError(
                f"{p}: holds derive measurements (what 'hemkit derive run' writes), not a result; analyze them "
                f"first: hemkit derive analyze {p} -o result.json"
            ) from None
        raise InputError(f"{p}: not a hemkit derive result (malformed JSON: {exc})") from None
    if isinstance(d, dict) and d.get("format") == ANALYSIS_FORMAT:
        check_version(p, d.get("version"), ANALYSIS_VERSION, "derive analysis")
    return d


def check_table_suffix(path: PathLike) -> None:
    """Refuse a table file name whose suffix is not ``.md``, ``.csv`` or ``.json``.

    Examples
    --------
    >>> check_table_suffix("t.txt")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: t.txt: unknown table format '.txt'; use .md, .csv or .json
    """
    suffix = Path(os.fspath(path)).suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise InputError(f"{path}: unknown table format {suffix or '(no suffix)'!r}; use .md, .csv or .json")


def write_definitions(definitions: _Definitions, path: PathLike, *, inputs: Any = ()) -> Path:
    """Write a definition table (:class:`~hemkit.derive.Definitions`) as ``.md``, ``.csv`` or ``.json``, atomically."""
    check_table_suffix(path)
    suffix = Path(os.fspath(path)).suffix.lower()
    if suffix == ".md":
        return write_text(path, definitions.to_markdown(), inputs=inputs)
    table = definitions.to_frame()
    if suffix == ".json":
        return write_text(path, table.to_json(orient="records", indent=1) + "\n", inputs=inputs)
    return write_table(table, path, inputs=inputs, what="table")


__all__ = [
    "ANALYSIS_FORMAT",
    "TABLE_SUFFIXES",
    "check_table_suffix",
    "read_analysis",
    "read_measurements_table",
    "read_text_file",
    "write_analysis",
    "write_definitions",
    "write_measurements",
]
