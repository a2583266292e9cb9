"""The tidy table (``group, run, event, value``) and merged outputs, as CSV or Parquet.

The format is chosen by the file name: ``.parquet``/``.pq`` is Parquet, anything else CSV.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hemkit.core.errors import HemkitError
from hemkit.core.readings import Readings
from hemkit.io.atomic import atomic_path

_PARQUET = {".parquet", ".pq"}


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame, with a one-line error if it cannot be read."""
    path = Path(path)
    if not path.exists():
        raise HemkitError(f"{path}: no such file")
    try:
        if path.suffix.lower() in _PARQUET:
            return pd.read_parquet(path)
        return pd.read_csv(path)
    except (ValueError, OSError, pd.errors.ParserError) as exc:  # pragma: no cover - message relay
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise HemkitError(f"{path}: cannot be read ({first})") from exc


def write_table(table: pd.DataFrame, path: str | Path, *, inputs=(), what: str = "") -> Path:
    """Write a DataFrame as CSV or Parquet (by suffix), without the index, atomically.

    ``inputs`` are files the output may not overwrite (see :func:`hemkit.io.atomic.check_output`).
    """
    path = Path(path)
    with atomic_path(path, inputs=inputs, what=what) as tmp:
        if path.suffix.lower() in _PARQUET:
            table.to_parquet(tmp, index=False)
        else:
            table.to_csv(tmp, index=False)
    return path


def read_tidy(path: str | Path, *, min_runs: int = 3, drop_constant: bool = False) -> Readings:
    """Read a tidy ``group, run, event, value`` file (CSV or Parquet) into :class:`Readings`.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(p, "w").write("group,run,event,value\\n" + "".join(
    ...     f"1,{r},a,{r + 1}\\n1,{r},b,{2 * r % 3}\\n" for r in range(4)))
    >>> read_tidy(p).events
    ['a', 'b']
    """
    return Readings.from_tidy(read_table(path), source=str(path), min_runs=min_runs, drop_constant=drop_constant)
