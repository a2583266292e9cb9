"""Export any readings input as one tidy ``group, run, event, value`` file (CSV or Parquet).

The input goes through :func:`hemkit.io.read_readings` (a collection database, a tidy
table, a mergingTools raw file with ``pmcs``, ...), so it is checked exactly as every other
command checks it, and the output is written atomically after the place was checked.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from hemkit.core.numbers import plural
from hemkit.core.readings import Readings
from hemkit.core.results import Result, result
from hemkit.io.atomic import check_output
from hemkit.io.perf_files import PerfOptions
from hemkit.io.readings import database_files, read_readings
from hemkit.io.table import write_table

PathLike = str | os.PathLike[str]


@result
class ExportResult(Result):
    """What :func:`export` read and wrote.

    Attributes
    ----------
    sources : tuple of Path
        The inputs (one file or folder, or several).
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

    sources: tuple[Path, ...]
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
            f"read {_label(self.sources)}: {plural(len(r), 'group')}, {plural(len(r.events), 'event')}, "
            f"{plural(int(r.n_runs.sum()), 'run')}; "
            f"wrote {self.path} ({self.rows} rows)"
        )


def _label(paths: Sequence[Path]) -> str:
    if len(paths) <= 3:
        return " ".join(map(str, paths))
    return f"{len(paths)} inputs ({paths[0]} ... {paths[-1]})"


def export(  # noqa: PLR0913 - the reading door's options, passed through
    source: PathLike | Sequence[PathLike],
    output: PathLike,
    *,
    pmcs: int | None = None,
    codes: PathLike | None = None,
    drop_constant: bool = False,
    allow_mixed_machines: bool = False,
    perf: PerfOptions | None = None,
    host: str | Sequence[str] | None = None,
    min_runs: int | None = None,
) -> ExportResult:
    """Write the readings of ``source`` to ``output`` as a tidy CSV or Parquet file (by suffix).

    Parameters
    ----------
    source : path or sequence of paths
        Any input :func:`hemkit.io.read_readings` reads: a file, a folder of perf stat
        files, several perf stat files, one or several collection databases.
    output : path
        ``.parquet``/``.pq`` for Parquet, anything else CSV; checked before reading.
    pmcs, codes : optional
        For a mergingTools raw file: counters per group and the ``hems,code`` table.
    drop_constant : bool
        Drop events constant within a group (with a warning) instead of refusing them.
    allow_mixed_machines : bool
        Read collection databases measured on machines of different CPU models or kernels
        as one (with a warning) instead of refusing them.
    perf : PerfOptions, optional
        How perf stat files are read (untrusted readings refused or dropped...).
    host : str or sequence of str, optional
        Read only the runs of this host (or these hosts) of collection databases, as
        :func:`hemkit.io.read_readings` does (refused for inputs that name no host).
    min_runs : int, optional
        Fewest runs a group may have.  Default: 1 for collection databases (an unfinished
        collection's stored runs are written, however few), else the readers' 3 (one perf
        stat file given alone is a mistake their error explains).

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
    sources = [source] if isinstance(source, str | os.PathLike) else list(source)
    inputs = [*sources, codes]
    check_output(output, inputs=inputs)
    if min_runs is None:
        # a collection's stored runs are its data, however few (one stopped early, or still running)
        min_runs = 1 if database_files(source) is not None else 3
    readings = read_readings(
        source,
        min_runs=min_runs,
        pmcs=pmcs,
        codes=codes,
        drop_constant=drop_constant,
        allow_mixed_machines=allow_mixed_machines,
        perf=perf,
        host=host,
    )
    table = readings.to_tidy()
    path = write_table(table, Path(os.fspath(output)), inputs=inputs)
    return ExportResult(tuple(Path(os.fspath(s)) for s in sources), Path(path), readings, len(table))


__all__ = ["ExportResult", "export"]
