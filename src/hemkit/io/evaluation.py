"""Evaluation files: the merged (or truth) table of runs x events, and the reference of ``hemkit evaluate``.

The merged table is a runs x events CSV or Parquet file (what ``hemkit merge -o`` writes),
read by :func:`hemkit.io.table.read_table`.  The reference is either a truth table of the
same shape (every event read in the same runs; an integer ``run`` column, if present, is
taken as the run id), or the same table long, with exactly the columns ``run, event, value``
(one row per run and event, as ``benchmarks/data/truth/*.csv.gz`` hold it), or grouped
readings in any format :func:`hemkit.io.read_readings` knows (tidy, mergingTools raw with
``pmcs``, a collection database, perf stat files).

This module reads the files; what their numbers must satisfy is checked by
:func:`hemkit.evaluate.read_reference` and :func:`hemkit.evaluate.evaluate_files`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from hemkit.core.errors import InputError
from hemkit.core.readings import TIDY_COLUMNS, Readings
from hemkit.io.table import read_table

if TYPE_CHECKING:
    import pandas as pd

    from hemkit.io.perf_files import PerfOptions

PathLike = str | os.PathLike[str]

#: a tidy truth table: every event read in every run, so no group (what hemkit's benchmarks keep)
TRUTH_COLUMNS = ("run", "event", "value")


def _wide(path: Path, table: pd.DataFrame) -> pd.DataFrame:
    """The table with an integer ``run`` column as its index; a long table pivoted; grouped readings refused."""
    import pandas as pd

    if set(TIDY_COLUMNS) <= {str(c) for c in table.columns}:
        raise InputError(
            f"{path}: looks like grouped readings (group, run, event, value), not a table of runs x events"
        )
    if set(TRUTH_COLUMNS) <= {str(c) for c in table.columns}:
        return tidy_truth(path, table)
    if "run" in table.columns and pd.api.types.is_integer_dtype(table["run"]) and table["run"].is_unique:
        table = table.set_index("run")
    return table


def read_wide_table(path: PathLike) -> pd.DataFrame:
    """A merged (or truth) table of runs x events from CSV or Parquet, its ``run`` column as the index.

    Raises
    ------
    InputError
        Missing, a folder, unreadable, a column name given twice, grouped readings.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "m.csv")
    >>> _ = open(p, "w").write("run,a,b\\n0,1,2\\n1,2,1\\n")
    >>> read_wide_table(p).index.name
    'run'
    """
    p = Path(os.fspath(path))
    if p.is_dir():
        raise InputError(f"{p}: is a folder; give a merged table (CSV or Parquet)")
    return _wide(p, read_table(p))


def read_reference_file(  # noqa: PLR0913 - grouped readings are read as read_readings reads them
    paths: PathLike | Sequence[PathLike],
    *,
    pmcs: int | None = None,
    codes: PathLike | None = None,
    drop_constant: bool = False,
    perf: PerfOptions | None = None,
    allow_mixed_machines: bool = False,
    host: str | Sequence[str] | None = None,
) -> pd.DataFrame | Readings:
    """A truth table (runs x events, its numbers not yet checked) or grouped readings (see the module docstring).

    ``perf``, ``allow_mixed_machines`` and ``host`` say how grouped readings are read, as for
    :func:`hemkit.io.read_readings` (perf stat files, collection databases).
    """
    from hemkit.io.readings import read_readings, sniff

    many = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    if not many:
        raise InputError("no reference file given")
    mixed = allow_mixed_machines
    read = partial(read_readings, drop_constant=drop_constant, perf=perf, allow_mixed_machines=mixed, host=host)
    if len(many) > 1 or pmcs is not None or sniff(many[0]) == "database":
        return read(many if len(many) > 1 else many[0], pmcs=pmcs, codes=codes)
    p = Path(os.fspath(many[0]))
    try:
        table = read_table(p)
    except InputError:
        table = None
    if table is None or set(TIDY_COLUMNS) <= {str(c) for c in table.columns}:
        # grouped readings: a tidy table, perf stat output or another readings format
        return read(p, codes=codes)
    if host is not None:  # refused, rather than matching no run
        raise InputError(
            f"host {host!r} cannot select runs of {p}: a table of runs x events names no host for its runs "
            "(only hemkit collection databases store the host of each run); read it without a host",
            param="host",
        )
    return _wide(p, table)


def tidy_truth(path: PathLike, table: pd.DataFrame) -> pd.DataFrame:
    """A tidy ``run, event, value`` table (no ``group``: every event read in every run) as runs x events.

    Raises
    ------
    InputError
        Other columns beside them, a (run, event) given twice, or a run without an event
        another run has (naming the run and the event).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"run": [1, 1, 2, 2], "event": ["a", "b", "a", "b"], "value": [1, 2, 3, 5]})
    >>> tidy_truth("t.csv", t).to_dict("list")
    {'a': [1, 3], 'b': [2, 5]}
    """
    import pandas as pd

    def plain(v: object) -> object:
        return v.item() if hasattr(v, "item") else v  # numpy scalars named as Python ones: run 0, not np.int64(0)

    other = [str(c) for c in table.columns if str(c) not in TRUTH_COLUMNS]
    if other:
        raise InputError(
            f"{path}: has columns run, event, value and also {', '.join(map(repr, other))}; a tidy truth table has "
            "only those three (grouped readings: add a group column)"
        )
    table = table.assign(event=table["event"].astype(str))
    twice = table.duplicated(["run", "event"])
    if twice.any():
        row = table[twice].iloc[0]
        raise InputError(f"{path}: run {plain(row['run'])!r} has event {plain(row['event'])!r} twice")
    events = pd.unique(table["event"])
    sizes = table.groupby("run", sort=False).size()
    if (sizes < len(events)).any():
        run = sizes.index[(sizes < len(events)).argmax()]
        event = next(e for e in events if e not in set(table.loc[table["run"] == run, "event"]))
        raise InputError(
            f"{path}: run {plain(run)!r} has no row for event {plain(event)!r}; "
            "a truth table holds every event of every run"
        )
    wide = table.pivot(index="run", columns="event", values="value")
    wide = wide.reindex(index=pd.unique(table["run"]), columns=events)  # in the order they first come
    wide.columns = [str(c) for c in wide.columns]
    if pd.api.types.is_integer_dtype(table["run"]):
        return wide.rename_axis("run")
    return wide.reset_index(drop=True)


__all__ = ["TRUTH_COLUMNS", "read_reference_file", "read_wide_table", "tidy_truth"]
