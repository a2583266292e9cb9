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
from hemkit.io.table import arrow_frame, is_parquet_file, read_arrow, read_table

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

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


def _numpy(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A column of integers or floats without nulls as one NumPy array, read off its buffers.

    (pyarrow's ``to_numpy`` imports pandas, half a second hemkit does not otherwise need here.)
    """
    import pyarrow as pa

    kind = "f" if pa.types.is_floating(col.type) else "u" if pa.types.is_unsigned_integer(col.type) else "i"
    dtype = np.dtype(f"{kind}{col.type.bit_width // 8}")
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    parts = [np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c), offset=c.offset * dtype.itemsize) for c in chunks]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _laid_out(arrow: pa.Table, source: str, *, min_runs: int, drop_constant: bool) -> Readings | None:
    """Readings straight from a tidy Arrow table as hemkit writes it (see :meth:`Readings.from_laid_out`), else None.

    Integer groups and runs, string events (read as a dictionary), numeric values, no nulls:
    the columns go to NumPy without pandas (2 x 6.4e6 rows: half a second less, and no
    pandas import).  Anything else is left to the general reader, which names what is wrong.
    """
    import pyarrow as pa

    names = arrow.schema.names
    if any(names.count(c) != 1 for c in TIDY_COLUMNS):
        return None
    cols = {c: arrow.column(c) for c in TIDY_COLUMNS}
    if any(col.null_count for col in cols.values()):
        return None
    ev_type = cols["event"].type
    if not (pa.types.is_dictionary(ev_type) and pa.types.is_string(ev_type.value_type)):
        return None
    if not (pa.types.is_integer(cols["group"].type) and pa.types.is_integer(cols["run"].type)):
        return None
    if not (pa.types.is_floating(cols["value"].type) or pa.types.is_integer(cols["value"].type)):
        return None
    events = cols["event"].unify_dictionaries().combine_chunks()
    if not isinstance(events, pa.DictionaryArray):
        return None
    return Readings.from_laid_out(
        {
            "group": _numpy(cols["group"]),
            "run": _numpy(cols["run"]),
            "event": _numpy(events.indices),
            "value": _numpy(cols["value"]),
        },
        events.dictionary.to_pylist(),
        source=source,
        min_runs=min_runs,
        drop_constant=drop_constant,
    )


def tidy_from_arrow(arrow: pa.Table, source: str, *, min_runs: int = 3, drop_constant: bool = False) -> Readings:
    """Readings from a tidy table read by :func:`hemkit.io.table.read_arrow` (without pandas when laid out)."""
    if set(TIDY_COLUMNS) <= set(arrow.schema.names):
        fast = _laid_out(arrow, source, min_runs=min_runs, drop_constant=drop_constant)
        if fast is not None:
            return fast
    table = arrow_frame(arrow)
    return Readings.from_tidy(tidy_cells(table, source), source=source, min_runs=min_runs, drop_constant=drop_constant)


def read_tidy(path: str | Path, *, min_runs: int = 3, drop_constant: bool = False) -> Readings:
    """Read a tidy ``group, run, event, value`` file (CSV or Parquet) into :class:`Readings`.

    A Parquet file laid out as hemkit writes it is read without pandas
    (:meth:`Readings.from_laid_out`); any other goes through :func:`tidy_cells` and
    :meth:`Readings.from_tidy`, which name the cell, run or group at fault.

    Parameters
    ----------
    path : str or Path
        The file; Parquet is told by its first bytes, anything else is read as CSV.
    min_runs : int, default 3
        Fewest runs a group may have.
    drop_constant : bool, default False
        Drop events constant within a group (with a warning); by default they are kept.

    Returns
    -------
    Readings

    Raises
    ------
    InputError
        A file that is missing or unreadable, a column missing, a value missing,
        non-numeric, negative or not finite, a run repeated, or a group with fewer than
        ``min_runs`` runs.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(p, "w").write("group,run,event,value\\n" + "".join(
    ...     f"1,{r},a,{r + 1}\\n1,{r},b,{2 * r % 3}\\n" for r in range(4)))
    >>> read_tidy(p).events
    ['a', 'b']
    """
    if is_parquet_file(path):
        return tidy_from_arrow(read_arrow(path), str(path), min_runs=min_runs, drop_constant=drop_constant)
    table = read_table(path)
    return Readings.from_tidy(tidy_cells(table, path), source=str(path), min_runs=min_runs, drop_constant=drop_constant)
