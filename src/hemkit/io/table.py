"""Tables as CSV or Parquet: the one reader (:func:`read_table`) and writer (:func:`write_table`) of hemkit.

Every table hemkit reads or writes -- tidy readings, merged tables, traces, MPX scores,
derive measurements, evaluation tables, sampling tables -- goes through this module, with
one rule each way:

- **reading** goes by content: a file that starts with ``PAR1`` (:data:`~hemkit.io.formats.PARQUET_MAGIC`)
  is Parquet, whatever its name; anything else is read as CSV (UTF-8, a BOM allowed), gzip,
  bzip2 or xz compressed or not (:func:`hemkit.io.formats.open_input`).  A
  column name that appears twice is refused (pandas would silently rename the second one).
  A Parquet file hemkit wrote carries a format version (:func:`hemkit.io.formats.check_version`).
- **writing** goes by the file name: ``.parquet``/``.pq`` is Parquet, anything else CSV.
  CSV writes float32 values as the float64 numbers they are (which columns are float32 is
  decided once, by :func:`hemkit.merge.result.column_dtypes`).

:func:`csv_rows` and :func:`numeric_csv` read small or purely numeric CSV files without
pandas (the quick path of a MUCH merge of a raw file).
"""

from __future__ import annotations

import csv
import os
import stat
import warnings
from collections.abc import Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hemkit.core.errors import InputError
from hemkit.io.atomic import atomic_path
from hemkit.io.formats import (
    PARQUET_MAGIC,
    TABLE_VERSION,
    TABLE_VERSION_KEY,
    check_last_line,
    check_table_name,
    check_version,
    compression,
    cut_last_line,
    is_parquet_name,
    open_input,
    read_head,
    read_tail,
)

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

PathLike = str | os.PathLike[str]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _regular_file(path: Path, what: str = "") -> bytes:
    """The first 4 bytes of ``path`` (decompressed), after checking it is a readable regular file."""
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: is a folder; give a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file (a device, pipe or socket); give a file")
        return read_head(path, 4)  # a compressed Parquet file is refused here, with how to decompress it
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what + ' ' if what else ''}file") from None
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else _first_line(exc)
        raise InputError(f"{path}: cannot be read ({why})") from None


def is_parquet_file(path: PathLike) -> bool:
    """Whether ``path`` is a Parquet file, by its content (``PAR1``), whatever its name.

    Raises
    ------
    InputError
        Missing, a folder, not a regular file, unreadable.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = open(p, "w").write("a\\n1\\n")
    >>> is_parquet_file(p)
    False
    """
    return _regular_file(Path(os.fspath(path))) == PARQUET_MAGIC


def _check_header(path: Path, names: list[str]) -> None:
    """The one duplicate-header check: a column name that appears twice is refused."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(f"{path}: column {name!r} appears twice")
        seen.add(name)


def _parquet_version(path: Path, metadata: Mapping[bytes, bytes] | None) -> None:
    found = (metadata or {}).get(TABLE_VERSION_KEY)
    if found is not None:
        text = found.decode("utf-8", "replace")
        check_version(path, int(text) if text.isdigit() else text, TABLE_VERSION, "Parquet table")


def read_arrow(path: PathLike, *, what: str = "") -> pa.Table:
    """A Parquet file as an Arrow table (no pandas), its ``group`` and ``event`` columns as dictionaries.

    A tidy table repeats a handful of group ids and event names millions of times: read as
    dictionaries they cost a byte or two per row instead of a string each (6e6 rows: about
    half the memory), and factorising them later is free.

    Raises
    ------
    InputError
        As :func:`read_table`: missing, unreadable, not Parquet, a column name twice, a
        file of a newer hemkit.
    """
    import pyarrow.parquet as pq

    path = Path(os.fspath(path))
    if _regular_file(path, what) != PARQUET_MAGIC:
        raise InputError(f"{path}: not a Parquet file")
    try:
        # ParquetFile, not pq.read_table: that one goes through pyarrow.dataset, which imports pandas
        with pq.ParquetFile(path) as fh:
            schema = fh.schema_arrow
            _parquet_version(path, schema.metadata)
            _check_header(path, list(schema.names))
            dictionary = [c for c in ("group", "event") if c in set(schema.names)]
        with pq.ParquetFile(path, read_dictionary=dictionary) as fh:
            return fh.read()
    except InputError:
        raise
    except MemoryError:
        raise InputError(f"{path}: too large to read") from None
    except Exception as exc:  # pyarrow raises many kinds of exception on bad bytes
        raise InputError(f"{path}: cannot be read as Parquet ({_first_line(exc)})") from None


def arrow_frame(arrow: pa.Table) -> pd.DataFrame:
    """An Arrow table as a DataFrame, each column handed over as it is converted (the table is used up)."""
    import pyarrow as pa

    frame = arrow.to_pandas(split_blocks=True, self_destruct=True)
    del arrow
    pa.default_memory_pool().release_unused()
    return frame


def read_table(
    path: PathLike, *, what: str = "", comment: str | None = None, dtype: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame, or raise a one-line :class:`InputError`.

    Parameters
    ----------
    path : path
        The file.  Parquet is recognised by its first bytes (``PAR1``), whatever its name;
        anything else is read as CSV.
    what : str
        What the file should hold, for messages (``"measurements"``: "no such measurements file").
    comment : str, optional
        CSV only: lines starting with this character are comments (perf's ``#`` lines).
    dtype : mapping, optional
        CSV only: column name -> dtype for columns that must not be guessed (``{"size": str}``).

    Raises
    ------
    InputError
        Missing, a folder, empty, not UTF-8, unreadable as CSV or Parquet, a CSV file whose
        last line is cut (no newline at its end: :func:`hemkit.io.formats.check_last_line`),
        a column name given twice, a Parquet file of a newer hemkit.

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
    parquet = _regular_file(path, what) == PARQUET_MAGIC
    try:
        if parquet:
            table = arrow_frame(read_arrow(path, what=what))
            names = [str(c) for c in table.columns]
        else:
            # a compressed file is read through open_input (pandas' compression="infer" goes by the name)
            packed = compression(path) is not None
            with open_input(path) if packed else nullcontext(path) as src:
                header = pd.read_csv(src, header=None, nrows=1, dtype=str, encoding="utf-8", comment=comment)
            names = [str(c) for c in header.iloc[0].tolist()] if len(header) else []
            with open_input(path) if packed else nullcontext(path) as src:
                table = pd.read_csv(src, encoding="utf-8", comment=comment, dtype=dtype)
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: is empty{f', not a {what} table' if what else ''}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except MemoryError:
        raise InputError(f"{path}: too large to read") from None
    except Exception as exc:  # pandas and pyarrow raise many kinds of exception on bad bytes
        if not parquet:
            check_last_line(path)  # a file cut inside a quoted cell: the cut is what to say
        raise InputError(f"{path}: cannot be read as {'Parquet' if parquet else 'CSV'} ({_first_line(exc)})") from None
    if not parquet:
        # a last line without its newline was cut short, maybe inside a number ('123' of '123456'), which
        # reads as a value all the same: refused (a row with fewer fields, which reads as a hole, too)
        check_last_line(path)
    _check_header(path, names)
    return table


def _with_version(table: pa.Table) -> pa.Table:
    return table.replace_schema_metadata({**(table.schema.metadata or {}), TABLE_VERSION_KEY: str(TABLE_VERSION)})


def write_table(table: pd.DataFrame | Mapping[str, np.ndarray], path: PathLike, *, inputs=(), what: str = "") -> Path:
    """Write a table as CSV or Parquet (by suffix), without the index, atomically.

    ``table`` is a DataFrame, or a mapping column name -> 1-D NumPy array of numbers (as
    :attr:`hemkit.merge.MergeResult.arrays`), which is written without pandas.  Parquet
    keeps every dtype (float32 stays float32) and carries hemkit's table version in its
    key-value metadata; CSV writes float32 values as the float64 numbers they are, so a
    float64 reader gets the same values back.

    ``inputs`` are files the output may not overwrite (see :func:`hemkit.io.atomic.check_output`).

    Parameters
    ----------
    table : DataFrame or mapping of str -> numpy.ndarray
        The table, or its columns of numbers (all of one length).
    path : path
        The file; a ``.parquet`` (or ``.pq``) name writes Parquet, any other CSV, but for a name of
        another format (``.xlsx``, ``.json``, ...: :func:`hemkit.io.formats.check_table_name`).
    inputs : paths
        Files the command reads; the output may not be one of them.
    what : str
        How to name the output in messages; default just the path.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OutputError
        ``path`` refused by :func:`hemkit.io.atomic.check_output` or named for another format
        (:func:`hemkit.io.formats.check_table_name`), or the file cannot be written.

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
    path = Path(os.fspath(path))
    check_table_name(path, what)
    parquet = is_parquet_name(path)
    with atomic_path(path, inputs=inputs, what=what) as tmp:
        if isinstance(table, Mapping):
            _write_columns(table, tmp, parquet)
        elif parquet:
            import pyarrow as pa
            import pyarrow.parquet as pq

            # what DataFrame.to_parquet(index=False) writes, plus the version
            pq.write_table(_with_version(pa.Table.from_pandas(table, preserve_index=False)), tmp)
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

        pq.write_table(_with_version(pa.table(dict(zip(names, arrays)))), tmp)
        return
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(names)
        n = len(arrays[0]) if arrays else 0
        for start in range(0, n, 65536):  # rows in slices: memory stays a slice of Python floats
            part = [x[start : start + 65536] for x in arrays]
            text = integral_csv(part)
            if text is not None:  # whole numbers (counts): the same text, made by NumPy
                fh.write(text)
                continue
            cols = [(x.astype(np.float64) if x.dtype == np.float32 else x).tolist() for x in part]
            out.writerows(zip(*cols))


#: 10, 100, ..., 1e16: a whole number below 1e16 is written with its digits (``repr`` switches to 1e+16 there)
_POWERS = 10 ** np.arange(1, 17, dtype=np.int64)


def integral_csv(columns: list[np.ndarray]) -> str | None:
    """CSV rows of columns of whole numbers as ``csv.writer`` writes them (``12.0`` for a float, ``12`` for an int).

    None unless every column is integers, or floats that are all whole numbers of magnitude
    below 1e16 (never ``-0.0``, ``nan`` or ``inf``), so the caller writes the rest as before.
    The text is made column by column in NumPy (digits by repeated division, right-aligned
    in a byte matrix, the padding left out), not one ``repr`` per value: counts from a
    merge of 24 000 runs are most of the time of writing them.

    Examples
    --------
    >>> integral_csv([np.array([3.0, -120.0]), np.array([7, 0])])
    '3.0,7\\n-120.0,0\\n'
    >>> integral_csv([np.array([0.5])]) is None
    True
    """
    if not columns or not len(columns[0]):
        return None
    cells, masks = [], []
    for idx, x in enumerate(columns):
        if x.dtype.kind == "f":
            f = x.astype(np.float64, copy=False)
            with np.errstate(invalid="ignore"):
                if not (np.all(np.abs(f) < 1e16) and np.all(f == np.round(f)) and not np.any(np.signbit(f) & (f == 0))):
                    return None
            v, suffix = f.astype(np.int64), b".0"
        elif x.dtype.kind in "iu" and (x.dtype.kind == "i" or x.dtype.itemsize < 8 or int(x.max()) < 2**63):
            v, suffix = x.astype(np.int64), b""
            if np.any((v >= 10**16) | (v <= -(10**16))):  # 16 digits at most (np.abs(-2**63) is negative)
                return None
        else:
            return None
        neg = v < 0
        a = np.abs(v)
        ndig = 1 + np.searchsorted(_POWERS, a, side="right")
        digits = int(ndig.max())
        width = int(neg.any()) + digits + len(suffix) + 1
        cell = np.empty((len(v), width), dtype=np.uint8)
        end = width - 1 - len(suffix)  # digits end here (exclusive), then the suffix and the separator
        q = a.astype(np.uint32) if digits <= 9 else a  # 32-bit division is several times faster
        ten = q.dtype.type(10)
        for j in range(digits):  # the last digit first
            q, rem = np.divmod(q, ten)
            cell[:, end - 1 - j] = rem + 48
        cell[:, end : width - 1] = np.frombuffer(suffix, dtype=np.uint8)
        cell[:, width - 1] = ord("\n") if idx == len(columns) - 1 else ord(",")
        first = end - ndig - neg  # where each cell's text starts
        cell[np.flatnonzero(neg), first[neg]] = ord("-")
        cells.append(cell)
        masks.append(np.arange(width)[None, :] >= first[:, None])
    return np.hstack(cells)[np.hstack(masks)].tobytes().decode("ascii")


# ------------------------------------------------------------------ without pandas
def csv_rows(path: PathLike) -> list[list[str]] | None:
    """The rows of a small UTF-8 CSV file as text, or None if it is not plain CSV (then :func:`read_table` says why).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "c.csv")
    >>> _ = open(p, "w").write("hems,code\\nCYCLES,1\\n")
    >>> csv_rows(p)
    [['hems', 'code'], ['CYCLES', '1']]
    """
    try:
        with open_input(path, "r", newline="", encoding="utf-8-sig") as fh:
            return list(csv.reader(fh, strict=True))
    except (OSError, UnicodeDecodeError, csv.Error, InputError):
        return None


def table_header(path: PathLike) -> list[str]:
    """The column names of a CSV or Parquet table file, reading its header only ([] if it cannot be read).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(p, "w").write("group,run,event,value\\n1,1,a,2\\n")
    >>> table_header(p)
    ['group', 'run', 'event', 'value']
    """
    try:
        if is_parquet_file(path):
            import pyarrow.parquet as pq

            return [str(n) for n in pq.read_schema(path).names]
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
            return [c.strip() for c in next(csv.reader(fh), [])]
    except (OSError, ValueError, csv.Error):  # unreadable: the reader of the file says why
        return []


def numeric_csv(path: PathLike) -> tuple[list[str], np.ndarray] | None:
    """Header and float64 values of a CSV of plain numbers (R's ``write.csv``), or None for anything else.

    None (text, ``NA``, empty cells, ragged rows, a BOM...) sends the file to
    :func:`read_table` (pandas), which reads every case and names what is wrong.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(p, "w").write("X1,X2\\n1,2\\n3,4\\n")
    >>> numeric_csv(p)[1].tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    try:
        with open_input(path, "r", newline="", encoding="utf-8") as fh:
            header = next(csv.reader([fh.readline()], strict=True))
            if not header or any(h.startswith("\ufeff") for h in header):
                return None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "input contained no data": the checks say it better
                values = np.loadtxt(fh, delimiter=",", dtype=np.float64, ndmin=2, quotechar='"', comments=None)
    except (OSError, UnicodeDecodeError, csv.Error, ValueError, StopIteration):
        return None
    if values.shape[0] and values.shape[1] != len(header):
        return None
    if cut_last_line(read_tail(path)) is not None:
        return None  # read_table says it is cut
    return header, values.reshape(-1, len(header))


__all__ = [
    "arrow_frame",
    "csv_rows",
    "is_parquet_file",
    "numeric_csv",
    "read_arrow",
    "read_table",
    "table_header",
    "write_table",
]
