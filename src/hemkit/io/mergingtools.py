"""The raw layout of the R package ``mergingTools`` (Vilardell et al.).

One CSV, consecutive blocks of ``n_pmcs`` columns = one group ("sub-experiment") each;
column names are event codes with an ``X`` prefix and R's ``make.names`` suffixes
(``X1``, ``X1.1``, ``X24.3``...).  Rows of different blocks are different runs.  A block
may be shorter than the others: its missing runs are rows that are empty in all of its
columns (R writes ``NA``).
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hemkit.core.checks import check_scalar
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.readings import Readings, first_repeat
from hemkit.io.table import csv_rows, is_parquet_file, numeric_csv, read_table

if TYPE_CHECKING:
    import pandas as pd

_CODE = re.compile(r"^X?(\d+)(?:\.\d+)?$")


def read_code_names(path: str | os.PathLike[str]) -> dict[int, str]:
    """Read a ``hems,code`` table (as ``code2name.csv``) into ``{code: name}``.

    Raises
    ------
    InputError
        Unreadable file, missing columns, a code that is not an integer, an empty name, or a
        code given twice with different names.

    Examples
    --------
    >>> from hemkit.datasets import t2080_path
    >>> read_code_names(t2080_path("code2name.csv"))[1]
    'PROCESSOR_CYCLES'
    """
    rows = None if is_parquet_file(path) else csv_rows(path)
    if rows is not None and rows and {"hems", "code"} <= set(rows[0]) and all(len(r) == len(rows[0]) for r in rows):
        ci, ni = rows[0].index("code"), rows[0].index("hems")
        cells: list[tuple[Any, Any]] = [(r[ci], r[ni] or None) for r in rows[1:]]
    else:  # Parquet, or CSV the plain reader does not take: the general reader says what is wrong
        t = read_table(path)
        if not {"hems", "code"} <= set(map(str, t.columns)):
            raise InputError(f"{path}: a code table needs columns 'hems' and 'code'")
        cells = list(zip(t["code"], t["hems"]))
    out: dict[int, str] = {}
    for i, (code, name) in enumerate(cells, start=2):  # line 1 is the header
        num = _number(code)
        if num is None or not np.isfinite(num) or num != int(num):
            shown = repr(code) if num is None else repr(num)  # a number as the number read: 1.5, inf
            raise InputError(f"{path}: line {i}: code {shown} is not an integer")
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{path}: line {i}: code {int(num)} has no name")
        if out.get(int(num), name) != name:
            raise InputError(f"{path}: line {i}: code {int(num)} is named twice ({out[int(num)]!r} and {name!r})")
        out[int(num)] = name
    return out


def _number(cell: object) -> float | None:
    """A cell as a number (text parsed), or None."""
    if isinstance(cell, bool):
        return None
    try:
        return float(cell)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def from_mergingtools(
    data: str | os.PathLike[str] | pd.DataFrame,
    n_pmcs: int,
    *,
    code_names: dict[int, str] | None = None,
    drop_low_mean: bool = False,
    min_runs: int = 3,
    drop_constant: bool = False,
) -> Readings:
    """Read the ``mergingTools`` raw layout into :class:`Readings`.

    Parameters
    ----------
    data : path or DataFrame
        The raw table, ``n_groups * n_pmcs`` columns.
    n_pmcs : int
        Columns per group (the number of counters used in each run).
    code_names : dict, optional
        ``{code: name}`` to turn ``X<code>`` columns into event names (see
        :func:`read_code_names`).  Without it events keep the name ``X<code>``.
    drop_low_mean : bool, default False
        ``mergingTools``-compatible mode: drop events whose mean is <= 100 in a group (the
        R package does so silently; hemkit warns, naming them).
    min_runs : int, default 3
    drop_constant : bool, default False
        Drop events constant within a group, with a warning (see :class:`hemkit.Readings`).

    Examples
    --------
    >>> from hemkit.datasets import t2080_path
    >>> r = from_mergingtools(t2080_path("hrm_raw.csv"), 6)
    >>> r
    Readings(3 groups, 16 events, 1000-1000 runs per group)
    """
    check_scalar(n_pmcs, "pmcs", min_val=1)
    path = Path(data) if isinstance(data, str | os.PathLike) else None
    source = str(data) if path is not None else "raw table"
    plain = numeric_csv(path) if path is not None and not is_parquet_file(path) else None
    if plain is not None:  # the usual file: numbers only, read without pandas
        header, values = plain
    else:
        raw = read_table(path) if path is not None else data
        assert not isinstance(raw, str | os.PathLike)
        if raw.columns.has_duplicates:
            raise InputError(f"{source}: column {str(raw.columns[raw.columns.duplicated()][0])!r} appears twice")
        header = list(raw.columns)
        values = _frame_numbers(raw, source, n_pmcs)
    if len(header) == 0:
        raise InputError(f"{source}: has no columns")
    dup = first_repeat(header) if len(set(header)) != len(header) else None
    if dup is not None:
        raise InputError(f"{source}: column {str(dup)!r} appears twice")
    if len(header) % n_pmcs:
        raise InputError(
            f"{source}: {len(header)} columns is not a multiple of {n_pmcs} counters per group; check pmcs",
            param="pmcs",
        )
    names = _event_names(header, code_names, source)
    groups: dict[Any, tuple[np.ndarray, list, np.ndarray]] = {}
    for g in range(len(header) // n_pmcs):
        cols = slice(g * n_pmcs, (g + 1) * n_pmcs)
        block, events = values[:, cols], names[cols]
        empty = np.isnan(block).all(axis=1)
        if empty.any():
            first = int(np.argmax(empty))
            if not empty[first:].all():
                raise InputError(
                    f"{source}: group {g + 1} has an empty row {first + 1} followed by readings; "
                    "only trailing rows may be empty"
                )
            block = block[:first]
        if drop_low_mean and len(block):
            with np.errstate(invalid="ignore"):
                means = np.nanmean(block, axis=0) if not np.isnan(block).all() else np.full(block.shape[1], np.nan)
            low = [e for e, m in zip(events, means) if m <= 100]
            if low:
                warnings.warn(
                    f"group {g + 1}: dropped event(s) {', '.join(map(str, low))} with mean <= 100 "
                    "(mergingTools compatibility)",
                    HemkitWarning,
                    stacklevel=2,
                )
                block = block[:, ~(means <= 100)]
                events = [e for e, m in zip(events, means) if not m <= 100]
        groups[g + 1] = (np.arange(1, len(block) + 1), list(events), np.array(block, copy=True))
    return Readings.from_arrays(groups, source=source, min_runs=min_runs, drop_constant=drop_constant, copy=False)


def _event_names(header: list, code_names: dict[int, str] | None, source: str) -> list:
    names = []
    for col in header:
        m = _CODE.match(str(col))
        if code_names is not None:
            if not m:
                raise InputError(f"{source}: column {col!r} is not an event code like X24 or X24.1")
            code = int(m.group(1))
            if code not in code_names:
                raise InputError(f"{source}: event code {code} (column {col!r}) is not in the code table")
            names.append(code_names[code])
        else:
            names.append(f"X{m.group(1)}" if m else str(col))
    return names


def _frame_numbers(raw: pd.DataFrame, source: str, n_pmcs: int) -> np.ndarray:
    """A raw DataFrame as float64 (empty cells NaN), or an error naming group, event and run of a non-number."""
    import pandas as pd

    out = np.empty(raw.shape, dtype=np.float64)
    for j in range(raw.shape[1]):
        col = raw.iloc[:, j]
        if pd.api.types.is_numeric_dtype(col):
            out[:, j] = col.to_numpy(dtype=np.float64, na_value=np.nan)
            continue
        num = pd.to_numeric(col, errors="coerce")
        bad = np.flatnonzero(num.isna().to_numpy() & col.notna().to_numpy())
        if len(bad):
            r = int(bad[0])
            raise InputError(
                f"{source}: group {j // n_pmcs + 1}: event {str(raw.columns[j])!r} has a non-numeric value "
                f"{col.iloc[r]!r} in run {r + 1}"
            )
        out[:, j] = num.to_numpy(dtype=np.float64, na_value=np.nan)
    return out
