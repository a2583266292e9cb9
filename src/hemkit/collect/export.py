"""Export any readings input as one tidy ``group, run, event, value`` file (CSV or Parquet).

The input goes through :func:`hemkit.io.read_readings` (a collection database, a tidy
table, a mergingTools raw file with ``pmcs``, ...), so it is checked exactly as every other
command checks it, and the output is written atomically after the place was checked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from hemkit.core.readings import Readings
from hemkit.core.results import Result, result
from hemkit.io.atomic import check_output
from hemkit.io.readings import read_readings
from hemkit.io.table import write_table

PathLike = str | os.PathLike[str]


@result
class ExportResult(Result):
    """What :func:`export` read and wrote.

    Attributes
    ----------
    source : Path
        The input.
    path : Path
        The file written.
    readings : Readings
        What was written (after ``drop_constant``).
    rows : int
        Rows of the tidy table written.

    Examples
    --------
    >>> import os, tempfile
    >>> from hemkit.datasets import t2080_path
    >>> res = export(t2080_path("much_raw.csv"), os.path.join(tempfile.mkdtemp(), "t.csv"), pmcs=6)
    >>> res.summary().shape
    (24, 2)
    """

    source: Path
    path: Path
    readings: Readings
    rows: int

    def summary(self) -> pd.DataFrame:
        """Per group: runs and events written."""
        r = self.readings
        return pd.DataFrame(
            {"runs": [len(r[g]) for g in r.group_ids], "events": [r[g].shape[1] for g in r.group_ids]},
            index=pd.Index(r.group_ids, name="group"),
        )

    def line(self) -> str:
        """One line: what was read and what was written."""
        r = self.readings
        return (
            f"read {self.source}: {len(r)} groups, {len(r.events)} events, {int(r.n_runs.sum())} runs; "
            f"wrote {self.path} ({self.rows} rows)"
        )


def export(
    source: PathLike,
    output: PathLike,
    *,
    pmcs: int | None = None,
    codes: PathLike | None = None,
    drop_constant: bool = False,
) -> ExportResult:
    """Write the readings of ``source`` to ``output`` as a tidy CSV or Parquet file (by suffix).

    Parameters
    ----------
    source : path
        Any input :func:`hemkit.io.read_readings` reads (a collection database included).
    output : path
        ``.parquet``/``.pq`` for Parquet, anything else CSV; checked before reading.
    pmcs, codes : optional
        For a mergingTools raw file: counters per group and the ``hems,code`` table.
    drop_constant : bool
        Drop events constant within a group (with a warning) instead of refusing them.

    Raises
    ------
    InputError
        The input cannot be read as readings (naming the file, group, run or event).
    OutputError
        ``output`` cannot be written there, or it is the input.

    Examples
    --------
    >>> import os, tempfile
    >>> from hemkit.datasets import t2080_path
    >>> out = os.path.join(tempfile.mkdtemp(), "t2080.parquet")
    >>> export(t2080_path("much_raw.csv"), out, pmcs=6).rows
    144000
    """
    inputs = [source, codes]
    check_output(output, inputs=inputs)
    readings = read_readings(source, pmcs=pmcs, codes=codes, drop_constant=drop_constant)
    table = readings.to_tidy()
    path = write_table(table, Path(os.fspath(output)), inputs=inputs)
    return ExportResult(Path(os.fspath(source)), Path(path), readings, len(table))


__all__ = ["ExportResult", "export"]
