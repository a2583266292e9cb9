"""Evaluation from files, every input checked: what ``hemkit evaluate MERGED --truth FILE`` runs.

The merged table is a runs x events CSV or Parquet file (what ``hemkit merge -o`` writes).
The reference is either a truth table of the same shape (every event read in the same runs;
an integer ``run`` column, if present, is taken as the run id) or grouped readings in any
format :func:`hemkit.io.read_readings` knows (tidy, mergingTools raw with ``pmcs``, a
collection database, perf stat files), whose observed pairwise correlations then serve.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from hemkit.core.errors import InputError
from hemkit.core.readings import TIDY_COLUMNS, Readings
from hemkit.datasets.truth import check_truth_table
from hemkit.evaluate.pairs import Evaluation, check_merged_table, evaluate

PathLike = str | os.PathLike[str]


def _wide(path: Path, table: pd.DataFrame) -> pd.DataFrame:
    """The table with an integer ``run`` column as its index; duplicated CSV headers refused by name."""
    if path.suffix.lower() not in (".parquet", ".pq"):
        import csv

        try:
            with open(path, newline="", encoding="utf-8", errors="replace") as fh:
                header = next(csv.reader(fh), [])
        except OSError as exc:
            raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
        seen: set[str] = set()
        for name in header:
            if name in seen:
                raise InputError(f"{path}: column {name!r} appears twice")
            seen.add(name)
    if set(TIDY_COLUMNS) <= {str(c) for c in table.columns}:
        raise InputError(
            f"{path}: looks like grouped readings (group, run, event, value), not a table of runs x events"
        )
    if "run" in table.columns and pd.api.types.is_integer_dtype(table["run"]) and table["run"].is_unique:
        table = table.set_index("run")
    return table


def read_merged_table(path: PathLike) -> pd.DataFrame:
    """A merged (or truth) table from CSV or Parquet, checked (:func:`hemkit.evaluate.pairs.check_merged_table`)."""
    from hemkit.io import read_table

    p = Path(os.fspath(path))
    if p.is_dir():
        raise InputError(f"{p}: is a folder; give a merged table (CSV or Parquet)")
    return check_merged_table(_wide(p, read_table(p)), str(p))


def read_reference(
    paths: PathLike | Sequence[PathLike],
    *,
    pmcs: int | None = None,
    codes: PathLike | None = None,
    drop_constant: bool = False,
) -> pd.DataFrame | Readings:
    """A truth table or grouped readings (see the module docstring), checked."""
    from hemkit.io import read_readings, read_table
    from hemkit.io.readings import sniff

    many = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    if not many:
        raise InputError("no reference file given")
    if len(many) > 1 or pmcs is not None or sniff(many[0]) == "database":
        return read_readings(many if len(many) > 1 else many[0], pmcs=pmcs, codes=codes, drop_constant=drop_constant)
    p = Path(os.fspath(many[0]))
    try:
        table = read_table(p)
    except InputError:
        table = None
    if table is not None and set(TIDY_COLUMNS) <= {str(c) for c in table.columns}:
        return read_readings(p, codes=codes, drop_constant=drop_constant)
    if table is None:  # not a table: perf stat output or another readings format
        return read_readings(p, codes=codes, drop_constant=drop_constant)
    return check_truth_table(_wide(p, table), str(p))


def evaluate_files(
    merged: PathLike,
    reference: PathLike | Sequence[PathLike],
    *,
    pmcs: int | None = None,
    codes: PathLike | None = None,
    drop_constant: bool = False,
) -> Evaluation:
    """Evaluate the merged table in ``merged`` against ``reference`` (a truth table or readings).

    Raises
    ------
    InputError
        Naming the file and the column (or group, run, event) at fault: NaN, inf, a
        non-numeric, duplicated or constant column, grouped readings given as the merged
        table, fewer than two shared events.

    Examples
    --------
    >>> import os, tempfile
    >>> from hemkit.datasets import zen5_br_64kb
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.csv")
    >>> zen5_br_64kb().to_csv(p, index=False)
    >>> evaluate_files(p, p).mse()
    0.0
    """
    table = read_merged_table(merged)
    ref = read_reference(reference, pmcs=pmcs, codes=codes, drop_constant=drop_constant)
    return evaluate(table, ref, label=Path(os.fspath(merged)).stem)


__all__ = ["evaluate_files", "read_merged_table", "read_reference"]
