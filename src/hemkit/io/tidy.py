"""The tidy table (``group, run, event, value``) and merged outputs, as CSV or Parquet.

Reading recognises Parquet by its header (``PAR1``) and reads anything else as CSV (UTF-8,
a BOM allowed); writing chooses by the file name: ``.parquet``/``.pq`` is Parquet, anything
else CSV.
"""

from __future__ import annotations

import csv
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hemkit.core.errors import InputError
from hemkit.core.readings import TIDY_COLUMNS, Readings
from hemkit.io.atomic import atomic_path

if TYPE_CHECKING:
    import pandas as pd

_PARQUET = {".parquet", ".pq"}
_PARQUET_MAGIC = b"PAR1"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _regular_file(path: Path) -> bytes:
    """The first 4 bytes of ``path``, after checking it is a readable regular file."""
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: is a folder; give a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file (a device, pipe or socket); give a file")
        with open(path, "rb") as fh:
            return fh.read(4)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else _first_line(exc)
        raise InputError(f"{path}: cannot be read ({why})") from None


def _read_parquet(path: Path) -> pd.DataFrame:
    """A Parquet file; the tidy table's ``group`` and ``event`` columns read as categories.

    A tidy table repeats a handful of group ids and event names millions of times: read as
    dictionaries they cost a byte or two per row instead of a string each (6e6 rows: about
    half the memory), and factorising them later is free.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = set(pq.read_schema(path).names)
    dictionary = [c for c in ("group", "event") if c in names]
    arrow = pq.read_table(path, read_dictionary=dictionary)
    # hand each column over as it is converted, and give Arrow's freed buffers back
    frame = arrow.to_pandas(split_blocks=True, self_destruct=True)
    del arrow
    pa.default_memory_pool().release_unused()
    return frame


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame, or raise a one-line :class:`InputError`.

    Parquet is recognised by its header (``PAR1``), whatever the suffix; anything else is
    read as CSV.  A column name that appears twice is refused (pandas would silently rename
    the second one).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(p, "w").write("a,b\\n1,2\\n")
    >>> read_table(p)
       a  b
    0  1  2
    """
    import pandas as pd

    path = Path(os.fspath(path))
    magic = _regular_file(path)
    parquet = magic == _PARQUET_MAGIC
    try:
        if parquet:
            table = _read_parquet(path)
            names = [str(c) for c in table.columns]
        else:
            header = pd.read_csv(path, header=None, nrows=1, dtype=str, encoding="utf-8")
            names = [str(c) for c in header.iloc[0].tolist()] if len(header) else []
            table = pd.read_csv(path, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: is empty") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except Exception as exc:  # pandas and pyarrow raise many kinds of exception on bad bytes
        raise InputError(f"{path}: cannot be read as {'Parquet' if parquet else 'CSV'} ({_first_line(exc)})") from None
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(f"{path}: column {name!r} appears twice")
        seen.add(name)
    return table


def write_table(table: pd.DataFrame | Mapping[str, np.ndarray], path: str | Path, *, inputs=(), what: str = "") -> Path:
    """Write a table as CSV or Parquet (by suffix), without the index, atomically.

    ``table`` is a DataFrame, or a mapping column name -> 1-D NumPy array of numbers (as
    :attr:`hemkit.merge.MergeResult.arrays`), which is written without pandas.  Parquet
    keeps every dtype (float32 stays float32); CSV writes float32 values as the float64
    numbers they are, so a float64 reader gets the same values back.

    ``inputs`` are files the output may not overwrite (see :func:`hemkit.io.atomic.check_output`).

    Examples
    --------
    >>> import tempfile, os
    >>> import pandas as pd
    >>> p = write_table(pd.DataFrame({"a": [1]}), os.path.join(tempfile.mkdtemp(), "t.parquet"))
    >>> read_table(p)["a"].tolist()
    [1]
    >>> p = write_table({"a": np.array([1.5, 2.0])}, os.path.join(tempfile.mkdtemp(), "t.csv"))
    >>> open(p).read()
    'a\\n1.5\\n2.0\\n'
    """
    path = Path(path)
    parquet = path.suffix.lower() in _PARQUET
    with atomic_path(path, inputs=inputs, what=what) as tmp:
        if isinstance(table, Mapping):
            _write_columns(table, tmp, parquet)
        elif parquet:
            table.to_parquet(tmp, index=False)
        else:
            # float32 columns as their exact float64 value (123456792.0, not 1.2345679e+08,
            # which a float64 reader takes for 123456790): the digits are the value read back
            single = [c for c, d in table.dtypes.items() if d == np.float32]
            (table.astype(dict.fromkeys(single, np.float64)) if single else table).to_csv(tmp, index=False)
    return path


def _write_columns(columns: Mapping[str, np.ndarray], tmp: Path, parquet: bool) -> None:
    """Columns of numbers as Parquet (pyarrow) or CSV (as pandas writes them: ``repr`` of each float64)."""
    names = [str(c) for c in columns]
    arrays = [np.asarray(x) for x in columns.values()]
    if parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table(dict(zip(names, arrays))), tmp)
        return
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(names)
        n = len(arrays[0]) if arrays else 0
        for start in range(0, n, 65536):  # rows in slices: memory stays a slice of Python floats
            part = [x[start : start + 65536] for x in arrays]
            cols = [(x.astype(np.float64) if x.dtype == np.float32 else x).tolist() for x in part]
            out.writerows(zip(*cols))


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
