"""One way into :class:`hemkit.Readings`: :func:`read_readings` recognises every supported input.

=============================  ================================================================
input                          recognised by
=============================  ================================================================
collection database            the SQLite header (``hemkit collect`` writes it)
tidy table (CSV or Parquet)    columns ``group, run, event, value``
mergingTools raw CSV           ``pmcs`` given (columns per group); ``X<code>`` columns
=============================  ================================================================

Every library function and every command that reads readings goes through here, with the
same options (``pmcs``, ``codes``, ``drop_constant``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from hemkit.core.errors import InputError
from hemkit.core.readings import TIDY_COLUMNS, Readings

PathLike = str | os.PathLike[str]
SQLITE_MAGIC = b"SQLite format 3\x00"
PARQUET_MAGIC = b"PAR1"


def _head(path: Path, n: int = 16) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None


def sniff(path: PathLike) -> str:
    """The kind of a readings file: ``"database"``, ``"parquet"`` or ``"csv"``."""
    p = Path(os.fspath(path))
    if not p.exists():
        raise InputError(f"{p}: no such file")
    if p.is_dir():
        raise InputError(f"{p}: is a folder; give a file")
    head = _head(p)
    if head.startswith(SQLITE_MAGIC):
        return "database"
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    return "csv"


def read_readings(
    source: PathLike | Sequence[PathLike],
    *,
    pmcs: int | None = None,
    codes: PathLike | None = None,
    drop_constant: bool = False,
    min_runs: int = 3,
) -> Readings:
    """Read readings from any supported input (see the module docstring).

    Parameters
    ----------
    source : path or sequence of paths
        A file (or files) of readings.
    pmcs : int, optional
        The file is a mergingTools raw table with ``pmcs`` columns (counters) per group.
    codes : path, optional
        A ``hems,code`` table naming the event codes of a mergingTools raw table.
    drop_constant : bool, default False
        Drop events constant within a group, with a warning, instead of raising.
    min_runs : int, default 3
        Fewest runs a group may have.

    Raises
    ------
    InputError
        A file that cannot be read or recognised, naming it and what was expected.

    Examples
    --------
    >>> from hemkit.datasets import t2080_path
    >>> read_readings(t2080_path("much_raw.csv"), pmcs=6)
    Readings(24 groups, 16 events, 1000-1000 runs per group)
    """
    from hemkit.io.mergingtools import from_mergingtools, read_code_names
    from hemkit.io.tidy import read_table

    if not isinstance(source, str | os.PathLike):
        paths = list(source)
        if len(paths) != 1:
            raise InputError(f"{len(paths)} files given; reading several files at once is not supported yet")
        source = paths[0]
    path = Path(os.fspath(source))
    kind = sniff(path)
    if kind == "database":
        from hemkit.io.collection import load_readings

        return load_readings(path, min_runs=min_runs, drop_constant=drop_constant)
    if pmcs is not None:
        names = read_code_names(os.fspath(codes)) if codes is not None else None
        return from_mergingtools(path, pmcs, code_names=names, drop_constant=drop_constant, min_runs=min_runs)
    table = read_table(path)
    if set(TIDY_COLUMNS) <= set(map(str, table.columns)):
        return Readings.from_tidy(table, source=str(path), min_runs=min_runs, drop_constant=drop_constant)
    if len(table.columns) and all(str(c).startswith("X") for c in table.columns):
        raise InputError(f"{path}: looks like a mergingTools raw file; give pmcs (counters per group)")
    raise InputError(
        f"{path}: not a readings file: expected columns {', '.join(TIDY_COLUMNS)} (tidy), a mergingTools raw "
        "file (with pmcs) or a collection database"
    )


__all__ = ["read_readings", "sniff"]
