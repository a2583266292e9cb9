"""The tidy table (``group, run, event, value``) as CSV or Parquet, read into :class:`Readings`.

The file itself is read by :func:`hemkit.io.table.read_table` (Parquet by content, CSV
otherwise); this module checks the tidy columns and their cells.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hemkit.core.errors import InputError
from hemkit.core.readings import TIDY_COLUMNS, Readings
from hemkit.io.table import read_table

if TYPE_CHECKING:
    import pandas as pd

# what pandas.api.types.infer_dtype calls a column of plain values
_PLAIN_KINDS = frozenset({"empty", "string", "integer", "floating", "mixed-integer-float", "boolean"})


def _plain(v: object) -> bool:
    return v is None or isinstance(v, str | int | float | np.generic)


def tidy_cells(table: pd.DataFrame, source: str | os.PathLike[str]) -> pd.DataFrame:
    """The tidy columns of ``table``, checked to hold plain values (Parquet may hold lists or maps).

    Raises
    ------
    InputError
        A tidy column is missing or appears twice, or a cell is not a plain value.

    Examples
    --------
    >>> import pandas as pd
    >>> tidy_cells(pd.DataFrame({"group": [1], "run": [1], "event": ["a"], "value": [[1, 2]]}), "t.parquet")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: t.parquet: column 'value' holds a list in row 0, not a value
    """
    import pandas as pd

    dup = table.columns[table.columns.duplicated()]
    if len(dup):
        raise InputError(f"{source}: column {str(dup[0])!r} appears twice")
    missing = [c for c in TIDY_COLUMNS if c not in table.columns]
    if missing:
        raise InputError(f"{source}: missing column(s) {', '.join(missing)}; expected {', '.join(TIDY_COLUMNS)}")
    out = {}
    for c in TIDY_COLUMNS:
        col = table[c]
        # a categorical column (Parquet dictionary) is checked through its few categories
        cells = pd.Series(col.cat.categories) if isinstance(col.dtype, pd.CategoricalDtype) else col
        # infer_dtype scans in C; only a column it cannot name plainly is walked in Python
        if cells.dtype == object and pd.api.types.infer_dtype(cells, skipna=True) not in _PLAIN_KINDS:
            plain = col.astype(object).map(_plain).to_numpy(dtype=bool)
            if not plain.all():
                i = int(np.argmin(plain))
                kind = type(col.iloc[i]).__name__
                raise InputError(f"{source}: column {c!r} holds a {kind} in row {i}, not a value")
        out[c] = col
    return pd.DataFrame(out, index=table.index)


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
    table = tidy_cells(read_table(path), path)
    return Readings.from_tidy(table, source=str(path), min_runs=min_runs, drop_constant=drop_constant)
