"""One way into :class:`hemkit.Readings`: :func:`read_readings` recognises every supported input.

Inputs are recognised by their content, not by their names:

=============================  ================================================================
input                          recognised by
=============================  ================================================================
collection database            the SQLite header and hemkit's tables (``hemkit collect`` writes it)
tidy table (CSV or Parquet)    the Parquet header or CSV text; columns ``group, run, event, value``
mergingTools raw CSV           ``pmcs`` given (columns per group); ``X<code>`` columns
``perf stat -x,`` output       event lines ``value,unit,event,run_time,percentage,...`` (any
                               separator of ``, ; tab | space``; ``-I``, ``-A``, ``--per-core``...)
``perf stat -j`` output        JSON lines with ``event`` and ``counter-value``
several perf stat files        a list of paths, or a folder: one run per file, groups from the
                               set of events each file holds (see :mod:`hemkit.io.perf_files`)
several collection databases   a list of databases of one plan and command, or a folder of them
                               (the shards of a plan): one set of readings
                               (see :func:`hemkit.io.collection.load_collections`)
=============================  ================================================================

Files compressed with gzip, bzip2 or xz (told by their first bytes, not their names) are read
as the file they hold (:func:`hemkit.io.formats.open_input`); a compressed collection database
or Parquet file is refused with the command that decompresses it.
Anything else is one :class:`~hemkit.core.errors.InputError` saying what is recognised.
Every library function and every command that reads readings goes through here, with the
same options (``pmcs``, ``codes``, ``drop_constant``, ``min_runs``, ``perf``).
"""

from __future__ import annotations

import os
import stat
import warnings
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hemkit.core.checks import check_scalar
from hemkit.core.errors import Fix, HemkitError, HemkitWarning, InputError
from hemkit.core.readings import TIDY_COLUMNS, Readings
from hemkit.core.strays import warn_strays
from hemkit.io.formats import PARQUET_MAGIC, SQLITE_MAGIC, read_head
from hemkit.io.perf_stat import scan_perf_stat

if TYPE_CHECKING:  # perf_files (and pandas) load only when perf stat files are read
    import pandas as pd

    from hemkit.io.perf_files import PerfOptions

PathLike = str | os.PathLike[str]
COLLECTION_TABLES = ("meta", "groups", "runs", "readings")
RECOGNISED = (
    "hemkit reads a tidy table (CSV or Parquet with columns group, run, event, value), a mergingTools raw CSV "
    "(give pmcs), hemkit collection databases (one, or several of one plan), perf stat -x, or -j output "
    "(several files or a folder of them, one run per file)"
)
_SNIFF_BYTES = 64 * 1024


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # ENAMETOOLONG, ELOOP, EACCES on a parent, an embedded NUL
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"{path}: cannot be read ({why})") from None


def _head(path: Path, n: int = _SNIFF_BYTES) -> bytes:
    return read_head(path, n)  # decompressed: a .csv.gz reads as the CSV it holds


def _text(head: bytes) -> str | None:
    """The head of a file as text, or None if it is binary (a NUL, or not UTF-8)."""
    if b"\x00" in head:
        return None
    for cut in range(4):  # the head may end inside a multi-byte character
        try:
            return head[: len(head) - cut].decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 4:
                return None
    return None


def _looks_like_perf(text: str) -> str | None:
    lines = [s.strip().lstrip("\ufeff").strip() for s in text.splitlines()]
    started = any(s.startswith("#") and "started on" in s for s in lines)
    first = next((s for s in lines if s and not s.startswith("#")), None)
    if first is None:
        return "perf-csv" if started else None
    if first.startswith("{"):
        return "perf-json" if started or '"event"' in first or '"counter-value"' in first else None
    try:
        if scan_perf_stat(first, strict=False).lines:
            return "perf-csv"
    except InputError:  # decimal commas: let the perf reader say so
        return "perf-csv"
    if started or any("Performance counter stats for" in s for s in lines):
        return "perf-csv"
    return None


def _tidy_header(path: Path) -> bool:
    """Whether the first line of text of ``path`` names the tidy columns (a readings table, not perf's)."""
    text = _text(_head(path)) or ""
    first = next((s for s in text.splitlines() if s.strip()), "")
    return all(c in first for c in TIDY_COLUMNS)


def _mixed_in(path: Path) -> str:
    """Why ``path``, not perf stat output, is still perf's: lines before perf's own (``""`` if it is not).

    ``perf stat -x, -e ... prog 2> run.csv`` (no ``-o``) writes perf's lines after whatever the
    program itself wrote to stderr, so the file starts with lines that are not perf's.
    """
    head = _head(path)
    text = _text(head)
    if text is None:
        return ""
    lines = text.splitlines()[: -1 if len(head) >= _SNIFF_BYTES else None]  # the head may end inside a line
    first = next((i for i, s in enumerate(lines) if s.strip()), 0)
    header = lines[first] if lines else ""
    if all(c in header for c in TIDY_COLUMNS):
        return ""  # a tidy table (with more columns, its rows may fit perf's layout)
    for k in range(first + 1, min(len(lines), 200)):
        if not lines[k].strip() or lines[k].lstrip().startswith("#"):
            continue
        try:
            found = scan_perf_stat("\n".join(lines[k:]), strict=True).lines
        except InputError:
            continue
        if found:
            return (
                f"line {first + 1} ({header.strip()[:60]!r}) is not perf's, but the lines from line {k + 1} on are "
                "perf stat output: the measured program's own output is mixed in (perf stat without -o writes to "
                f"the program's stderr); record with perf stat -o FILE, or delete the lines before line {k + 1}"
            )
    return ""


def sniff(path: PathLike) -> str:
    """The kind of a readings input, by content.

    Returns one of ``"folder"``, ``"database"``, ``"parquet"``, ``"perf-csv"``,
    ``"perf-json"`` or ``"csv"`` (a table of text: tidy or mergingTools).

    Raises
    ------
    InputError
        Missing, unreadable, not a regular file, empty, or binary data of no known kind.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(p, "w").write("48,,page-faults,649355,100.00,,\\n")
    >>> sniff(p)
    'perf-csv'
    """
    p = Path(os.fspath(path))
    st = _stat(p)
    if st is None:
        raise InputError(f"{p}: no such file or folder")
    if stat.S_ISDIR(st.st_mode):
        return "folder"
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{p}: not a regular file (a device, pipe or socket); give a file")
    head = _head(p)
    if not head:
        raise InputError(f"{p}: is empty; {RECOGNISED}")
    if head.startswith(SQLITE_MAGIC):
        return "database"
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    text = _text(head)
    if text is None:
        raise InputError(f"{p}: binary data of no known kind (not UTF-8 text, SQLite or Parquet); {RECOGNISED}")
    return _looks_like_perf(text) or "csv"


def _as_paths(source: object) -> list[Path]:
    if isinstance(source, str | os.PathLike):
        items: list[object] = [source]
    elif isinstance(source, Sequence) and not isinstance(source, bytes | bytearray):
        items = list(source)
    else:
        raise InputError(f"source must be a path or a sequence of paths, got {type(source).__name__}")
    paths = []
    for item in items:
        if not isinstance(item, str | os.PathLike):
            raise InputError(f"source must be a path or a sequence of paths, got an item {item!r}")
        text = os.fspath(item)
        if not isinstance(text, str) or not text:
            raise InputError(f"source must be a path or a sequence of paths, got an item {item!r}")
        paths.append(Path(text))
    if not paths:
        raise InputError("no input files given")
    return paths


def _folder_files(folder: Path) -> list[Path]:
    try:
        from hemkit.io.perf_files import natural_key

        entries = sorted(folder.iterdir(), key=natural_key)
    except OSError as exc:
        raise InputError(f"{folder}: cannot be listed ({exc.strerror or type(exc).__name__})") from None
    files = []
    for e in entries:
        if e.name.startswith("."):
            continue  # .DS_Store, editor backups, hemkit's own temporary files
        st = _stat(e)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise InputError(
                f"{folder}: holds a folder {e.name!r}; give one folder of perf stat files, or the files themselves"
            )
        files.append(e)
    if not files:
        raise InputError(f"{folder}: no files in the folder")
    return files


#: files a collection database has beside it: its writer's lock and SQLite's journals
_SIDECARS = (".lock", "-journal", "-wal", "-shm")


def _database_folders(paths: list[Path]) -> list[Path]:
    """Folders of collection databases (the shards of one plan, say) replaced by their databases."""
    out: list[Path] = []
    for p in paths:
        if sniff(p) != "folder":
            out.append(p)
            continue
        files = [f for f in _folder_files(p) if not f.name.endswith(_SIDECARS)]
        kinds = [sniff(f) for f in files]
        if "database" not in kinds:
            out.append(p)  # a folder of perf stat files
            continue
        other = next((f for f, k in zip(files, kinds) if k != "database"), None)
        if other is not None:
            raise InputError(
                f"{p}: holds collection databases and other files ({other.name}); a folder is read as "
                "the collection databases of one plan or as perf stat files, not both"
            )
        out += files
    return out


def _perf_files(paths: list[Path]) -> tuple[list[Path], str]:
    """Expand folders; every file must be perf stat output (several inputs are always perf runs)."""
    files: list[Path] = []
    folder_of: dict[Path, Path] = {}  # a file found in a folder given as input: the folder
    for p in paths:
        if sniff(p) == "folder":
            found = _folder_files(p)
            files += found
            folder_of.update(dict.fromkeys(found, p))
        else:
            files.append(p)
    for f in files:
        kind = sniff(f)
        if not kind.startswith("perf"):
            mixed = _mixed_in(f) if kind == "csv" else ""
            if mixed:
                raise InputError(f"{f}: {mixed}")
            what = "a " + kind if kind != "csv" else ("a CSV table" if _tidy_header(f) else "")
            fix = (
                f"move it out of {folder_of[f]}, or give the run files themselves"
                if f in folder_of
                else "leave it out, or read it alone"
            )
            shown = f" (it reads as {what})" if what else ""
            raise InputError(
                f"{f}: is not perf stat output{shown}; several files (other than collection databases), or a "
                f"folder, are read as perf stat runs, one run per file: {fix}"
            )
    source = f"{paths[0]}" if len(paths) == 1 else ""
    return files, source


def _ignored(what: str, value: Any, path: Path, kind: str) -> None:
    """Warn that parameter ``what`` (given as ``value``) has no effect on ``path``, which names its groups."""
    message = f"{path} is {kind}, whose groups are in the file"
    warnings.warn(HemkitWarning(message, ignored=Fix(what, value)), stacklevel=4)


def _check_database(path: Path) -> None:
    """A collection database, checked read-only first (a foreign SQLite file is never written to)."""
    import sqlite3

    # immutable: no lock, no -wal/-shm files left beside a file that is not a live database;
    # a database being written (its -wal file exists) is read through its write-ahead log
    live = Path(f"{path}-wal").exists()
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro{'' if live else '&immutable=1'}"
        with closing(sqlite3.connect(uri, uri=True)) as con:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except (sqlite3.Error, OSError, ValueError) as exc:
        raise InputError(f"{path}: a damaged or unreadable SQLite file ({exc})") from None
    missing = [t for t in COLLECTION_TABLES if t not in tables]
    if missing:
        raise InputError(f"{path}: a SQLite database, but not a hemkit collection (no table {missing[0]!r})")


def _load_databases(
    paths: list[Path], *, min_runs: int, drop_constant: bool, allow_mixed_machines: bool, host: tuple[str, ...] | None
) -> Readings:
    """One or several collection databases (of one plan and command) as one set of readings."""
    import sqlite3

    from hemkit.io.collection import load_collections

    for path in paths:
        _check_database(path)
    try:
        return load_collections(
            paths,
            min_runs=min_runs,
            drop_constant=drop_constant,
            allow_mixed_machines=allow_mixed_machines,
            host=host,
        )
    except InputError:
        raise
    except HemkitError as exc:
        raise InputError(str(exc)) from None
    except (sqlite3.Error, OSError, LookupError, TypeError, ValueError) as exc:
        where = paths[0] if len(paths) == 1 else " or ".join(map(str, paths))
        raise InputError(f"{where}: a damaged collection database ({type(exc).__name__}: {exc})") from None


def _refuse_plan(path: Path) -> None:
    """Refuse a plan file given as readings (``hemkit merge plan.toml``), saying what to do with it.

    Only files named as plans (``.toml``, ``.json``) or starting as hemkit writes them are read
    as a plan: a large table is not read twice.
    """
    from hemkit.io.formats import strip_compression_suffix
    from hemkit.io.planfile import is_plan_file

    named = os.path.splitext(strip_compression_suffix(path.name))[1].lower() in (".toml", ".json")
    if (named or _head(path).startswith(b"# hemkit")) and is_plan_file(path):
        raise InputError(
            f"{path}: is a hemkit plan (which events to read together), not readings; collect it first "
            f"(hemkit collect {path} --runs N -- PROGRAM ARGS) and give the collection database it writes"
        )


def _read_table_file(
    path: Path, *, pmcs: int | None, codes: PathLike | None, drop_constant: bool, min_runs: int
) -> Readings:
    from hemkit.io.mergingtools import from_mergingtools, read_code_names
    from hemkit.io.table import is_parquet_file, read_arrow, read_table, table_header
    from hemkit.io.tidy import tidy_cells, tidy_from_arrow

    _refuse_plan(path)
    if pmcs is not None and not set(TIDY_COLUMNS) <= set(table_header(path)):
        names = read_code_names(codes) if codes is not None else None
        return from_mergingtools(path, pmcs, code_names=names, drop_constant=drop_constant, min_runs=min_runs)
    # a tidy table names its groups, as a database or perf stat files do (pmcs read its columns as raw counters)
    if pmcs is not None:
        _ignored("pmcs", pmcs, path, "a tidy table")
    parquet = is_parquet_file(path)  # read without pandas when laid out as hemkit writes it
    table = read_arrow(path) if parquet else read_table(path)
    columns = [str(c) for c in (table.schema.names if parquet else table.columns)]
    if set(TIDY_COLUMNS) <= set(columns):
        if codes is not None:
            _ignored("codes", codes, path, "a tidy table")
        if parquet:
            return tidy_from_arrow(table, str(path), min_runs=min_runs, drop_constant=drop_constant)
        return Readings.from_tidy(
            tidy_cells(table, path), source=str(path), min_runs=min_runs, drop_constant=drop_constant
        )
    if columns and all(c.startswith("X") for c in columns):
        raise InputError(f"{path}: looks like a mergingTools raw file; give pmcs (counters per group)", param="pmcs")
    raise InputError(f"{path}: not a readings file (no columns {', '.join(TIDY_COLUMNS)}); {RECOGNISED}")


def _refuse_host(paths: list[Path], kinds: list[str], hosts: tuple[str, ...]) -> None:
    """``host`` given for inputs that name no host: say so, rather than match no run."""
    perf = any(k in ("folder", "perf-csv", "perf-json") for k in kinds) or len(paths) > 1
    what = "perf stat output names" if perf else "a table names"
    where = str(paths[0]) if len(paths) == 1 else f"{paths[0]} ... ({len(paths)} inputs)"
    raise InputError(
        f"host {', '.join(map(repr, hosts))} cannot select runs of {where}: {what} no host for its runs "
        "(only hemkit collection databases store the host of each run); read it without a host",
        param="host",
    )


def read_readings(  # noqa: PLR0913 - the one reading door: one keyword per kind of input it reads
    source: PathLike | Sequence[PathLike],
    *,
    pmcs: int | None = None,
    codes: PathLike | None = None,
    drop_constant: bool = False,
    min_runs: int = 3,
    perf: PerfOptions | None = None,
    allow_mixed_machines: bool = False,
    host: str | Sequence[str] | None = None,
) -> Readings:
    """Read readings from any supported input (see the module docstring).

    Parameters
    ----------
    source : path or sequence of paths
        A file, a folder of perf stat files, several perf stat files (or folders of
        them), or several collection databases of one plan and command, or folders of
        them (read as one set of readings: groups with the same events are one group;
        run ids prefixed by the file's stem where two databases hold the same run).
    pmcs : int, optional
        The file is a mergingTools raw table with ``pmcs`` columns (counters) per group
        (ignored, with a warning, for inputs that name their groups themselves).
    codes : path, optional
        A ``hems,code`` table naming the event codes of a mergingTools raw table.
    drop_constant : bool, default False
        Drop events constant within a group, with a warning, instead of raising.
    min_runs : int, default 3
        Fewest runs a group may have.
    perf : PerfOptions, optional
        How perf stat files are read: untrusted readings refused or dropped, multiplexed
        estimates, per-CPU counts (see :class:`hemkit.io.perf_files.PerfOptions`).
    allow_mixed_machines : bool, default False
        Read collection databases whose runs were measured on machines of different CPU
        models or kernels as one (with a warning) instead of refusing them.
    host : str or sequence of str, optional
        Keep only the runs measured on this host (or these hosts).  Collection databases
        store the host of every run; no other input names one (perf stat files, tables,
        mergingTools files), so ``host`` is refused for them rather than matching nothing.

    Raises
    ------
    InputError
        Anything that cannot be read or recognised, naming the file (and the line, event,
        run or group at fault) and what was expected; a ``host`` that measured no run (naming
        the hosts that did), or given for an input that names no host.  Never another exception.

    Examples
    --------
    >>> from hemkit.datasets import t2080_path
    >>> read_readings(t2080_path("much_raw.csv"), pmcs=6)
    Readings(24 groups, 16 events, 1000-1000 runs per group)
    """
    paths = _as_paths(source)
    if pmcs is not None:
        check_scalar(pmcs, "pmcs", min_val=1)
    check_scalar(min_runs, "min_runs", min_val=1)
    if perf is not None:  # whoever made one has loaded its module already
        from hemkit.io.perf_files import PerfOptions

        if not isinstance(perf, PerfOptions):
            raise InputError(f"perf must be a PerfOptions, got {type(perf).__name__}")
    hosts = None
    if host is not None:  # the collection module (and pandas) loads only when asked for
        from hemkit.io.collection import check_hosts

        hosts = check_hosts(host)
    paths = _database_folders(paths)
    kinds = [sniff(p) for p in paths]
    if hosts is not None and "database" not in kinds:
        _refuse_host(paths, kinds, hosts)
    if "database" in kinds:
        if any(k != "database" for k in kinds):
            other = paths[next(i for i, k in enumerate(kinds) if k != "database")]
            db = paths[kinds.index("database")]
            raise InputError(
                f"{other}: is not a collection database, but {db} is; give several collection databases "
                "(of one plan and command) or several perf stat files, not both"
            )
        for name, value in (("pmcs", pmcs), ("codes", codes)):
            if value is not None:
                _ignored(name, value, paths[0], "a collection database")
        return _load_databases(
            paths,
            min_runs=min_runs,
            drop_constant=drop_constant,
            allow_mixed_machines=allow_mixed_machines,
            host=hosts,
        )
    kind = kinds[0] if len(paths) == 1 else "several"
    if kind in ("folder", "several", "perf-csv", "perf-json"):
        files, where = _perf_files(paths)
        for name, value in (("pmcs", pmcs), ("codes", codes)):
            if value is not None:
                _ignored(name, value, paths[0], "perf stat output")
        from hemkit.io.perf_files import read_perf_runs

        return read_perf_runs(files, perf, min_runs=min_runs, drop_constant=drop_constant, source=where)
    path = paths[0]
    try:
        readings = _read_table_file(path, pmcs=pmcs, codes=codes, drop_constant=drop_constant, min_runs=min_runs)
    except InputError:
        mixed = _mixed_in(path)
        if not mixed:
            raise
        raise InputError(f"{path}: {mixed}") from None
    # a table, like perf stat files, does not name the program of its runs (a database stores its command)
    warn_strays(
        readings.arrays,
        lambda gid, run: f"{path}: run {_quote(run)}",
        " (a table does not name the program of its runs); if so, leave its rows out",
    )
    return readings


def _quote(run: object) -> str:
    return repr(run.item() if hasattr(run, "item") else run)


def read_machines(
    source: PathLike | Sequence[PathLike], *, host: str | Sequence[str] | None = None
) -> pd.DataFrame | None:
    """The machine of every run :func:`read_readings` reads from ``source``, or None where it names none.

    Collection databases (or folders of them) store the host, CPU model, kernel and perf
    version of every run: their :func:`hemkit.io.collection.run_machines`, with the runs
    labelled as :func:`read_readings` labels them (columns ``group, run, host, cpu_model,
    kernel, perf_version``; with ``host``, the runs of those hosts, as :func:`read_readings`
    keeps them).  Other inputs (perf stat files, tables) name no machine: None.

    Parameters
    ----------
    source : path or sequence of paths
        What :func:`read_readings` reads: files, folders, collection databases.
    host : str or sequence of str, optional
        Only the runs measured on these hosts, as :func:`read_readings` keeps them.

    Raises
    ------
    InputError
        As :func:`read_readings` raises for the same ``source``.

    Examples
    --------
    >>> from hemkit.datasets import t2080_path
    >>> read_machines(t2080_path("much_raw.csv")) is None
    True
    >>> read_machines(["part_1.db", "part_2.db"])["host"].value_counts()  # doctest: +SKIP
    """
    paths = database_files(source)
    if paths is None:
        return None
    from hemkit.io.collection import run_machines

    return run_machines(paths, host=host)


def read_anchor(source: PathLike | Sequence[PathLike]) -> str | None:
    """The anchor of the HRM plan the collection databases of ``source`` were collected by, or None.

    ``hemkit plan --design hrm`` stores its anchor in the plan, and ``hemkit collect`` the plan in
    its database: an HRM merge of the collection needs no ``--anchor`` again.  None where
    ``source`` names other inputs, its plans have no anchor (MUCH), or they differ.

    Examples
    --------
    >>> from hemkit.datasets import t2080_path
    >>> read_anchor(t2080_path("much_raw.csv")) is None
    True
    >>> read_anchor("hrm_collection.db")  # doctest: +SKIP
    'cycles'
    """
    paths = database_files(source)
    if not paths:
        return None
    from hemkit.io.collection import CollectionDB

    anchors = set()
    for path in paths:
        with CollectionDB(path) as db:
            plan = db.meta().get("plan")
        anchor = plan.get("anchor") if isinstance(plan, dict) else None
        anchors.add(anchor if isinstance(anchor, str) and anchor else None)
    return anchors.pop() if len(anchors) == 1 else None


def database_files(source: PathLike | Sequence[PathLike]) -> list[Path] | None:
    """The collection databases ``source`` names, folders of them expanded; None where it names other inputs.

    Examples
    --------
    >>> from hemkit.datasets import t2080_path
    >>> database_files(t2080_path("much_raw.csv")) is None
    True
    """
    paths = _database_folders(_as_paths(source))
    return None if any(sniff(p) != "database" for p in paths) else paths


__all__ = ["RECOGNISED", "database_files", "read_anchor", "read_machines", "read_readings", "sniff"]
