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
from collections.abc import Hashable

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.readings import Readings
from hemkit.io.tidy import read_table

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
    t = read_table(path)
    if not {"hems", "code"} <= set(map(str, t.columns)):
        raise InputError(f"{path}: a code table needs columns 'hems' and 'code'")
    out: dict[int, str] = {}
    nums = pd.to_numeric(t["code"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)  # one parse, not one a row
    for i, (code, num, name) in enumerate(zip(t["code"], nums, t["hems"]), start=2):  # line 1 is the header
        if pd.isna(num) or not np.isfinite(num) or num != int(num):
            raise InputError(f"{path}: line {i}: code {code!r} is not an integer")
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{path}: line {i}: code {int(num)} has no name")
        if out.get(int(num), name) != name:
            raise InputError(f"{path}: line {i}: code {int(num)} is named twice ({out[int(num)]!r} and {name!r})")
        out[int(num)] = name
    return out


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
    if isinstance(n_pmcs, bool) or not isinstance(n_pmcs, int | np.integer) or n_pmcs < 1:
        raise InputError(f"pmcs (counters per group) must be an integer of at least 1, got {n_pmcs!r}")
    source = str(data) if not isinstance(data, pd.DataFrame) else "raw table"
    raw = read_table(data) if not isinstance(data, pd.DataFrame) else data
    if raw.shape[1] == 0:
        raise InputError(f"{source}: has no columns")
    if raw.columns.has_duplicates:
        raise InputError(f"{source}: column {str(raw.columns[raw.columns.duplicated()][0])!r} appears twice")
    if raw.shape[1] % n_pmcs:
        raise InputError(
            f"{source}: {raw.shape[1]} columns is not a multiple of {n_pmcs} counters per group; check pmcs"
        )
    names = []
    for col in raw.columns:
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
    groups: dict[Hashable, pd.DataFrame] = {}
    for g in range(raw.shape[1] // n_pmcs):
        block = raw.iloc[:, g * n_pmcs : (g + 1) * n_pmcs].copy()
        block.columns = names[g * n_pmcs : (g + 1) * n_pmcs]
        empty = block.isna().all(axis=1).to_numpy()
        if empty.any():
            first = int(np.argmax(empty))
            if not empty[first:].all():
                raise InputError(
                    f"{source}: group {g + 1} has an empty row {first + 1} followed by readings; "
                    "only trailing rows may be empty"
                )
            block = block.iloc[:first]
        block.index = pd.RangeIndex(1, len(block) + 1, name="run")
        if drop_low_mean:
            means = block.apply(pd.to_numeric, errors="coerce").mean()
            low = list(means.index[means <= 100])
            if low:
                import warnings

                warnings.warn(
                    f"group {g + 1}: dropped event(s) {', '.join(map(str, low))} with mean <= 100 "
                    "(mergingTools compatibility)",
                    HemkitWarning,
                    stacklevel=2,
                )
                block = block.drop(columns=low)
        groups[g + 1] = block
    return Readings(groups, source=source, min_runs=min_runs, drop_constant=drop_constant)
