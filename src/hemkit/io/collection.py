"""The collection database: one SQLite file per collection, every finished run committed at once.

Tables::

    meta(key PRIMARY KEY, value)              -- plan, command, folder, runs, machine, perf version (JSON)
    groups(gid PRIMARY KEY, events)           -- the plan's groups (JSON list of events)
    runs(id PRIMARY KEY, gid, rep, status,    -- one row per perf run: status 'valid' or 'invalid',
         reason, started, seconds,               reason says why a run is invalid; digest is the
         returncode, digest, machine)            run's checksum; machine the one that measured it
    readings(run_id, event, value, percent, run_time_ns, status)
    machines(id PRIMARY KEY, host, cpu_model, -- every machine that measured a run (layout 2)
             kernel, perf_version)

What makes its numbers trustworthy:

- **Marked and checked.**  hemkit's databases carry ``PRAGMA application_id`` 0x686B6974
  ("hkit") and ``user_version`` :data:`SCHEMA_VERSION`; any other SQLite file is refused by
  name and never written to.  Every open runs ``PRAGMA quick_check``; a damaged file is an
  :class:`~hemkit.core.errors.InputError` naming it.
- **Checksums.**  SQLite checks its pages, not the numbers in them.  Every run row carries a
  BLAKE2 digest of the run and its readings, and ``meta`` a digest of the plan, the
  settings and the number of runs stored; :meth:`CollectionDB.tidy` (hence
  :func:`load_readings`) verifies them all, so a file changed outside hemkit is refused
  naming the run at fault instead of giving different numbers.
- **Atomic.**  A new database is made beside its path and renamed into place when
  complete; each run (its row and its readings) is written in one transaction with
  ``synchronous=FULL``, so a collector killed at any moment leaves the whole run or nothing.
  A partial unique index on ``runs(gid, rep) WHERE status = 'valid'`` makes a duplicate
  valid run impossible.
- **One writer at a time.**  :class:`WriterLock` holds an exclusive ``flock`` on
  ``DB.lock`` (which holds the writer's pid) for as long as a collector writes; the kernel
  releases it when the process dies, even by SIGKILL.  A second collector is refused with
  "in use by pid N".  Readers (``--status``, ``merge``, ``export``) need no lock.
- **Errors by kind.**  A read-only place or a full disk is an
  :class:`~hemkit.core.errors.OutputError`; a file that is not a collection, damaged or
  from a newer hemkit is an :class:`~hemkit.core.errors.InputError`.

Databases written before the marker (``application_id`` 0, the same four tables) are read
as they are and upgraded (marked, checksummed) when a collector continues them.  Layout 1
(before runs named their machine) is read with every run measured on the machine its
metadata names, and upgraded to layout 2 when a collector continues it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import socket
import sqlite3
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from hemkit.core.checks import did_you_mean
from hemkit.core.errors import Fix, HemkitError, HemkitWarning, InputError, OutputError
from hemkit.core.numbers import plural
from hemkit.core.readings import Readings
from hemkit.io.atomic import atomic_path, check_output
from hemkit.io.atomic import describe_os_error as _oserror  # one wording of OS errors for every output
from hemkit.io.formats import COLLECTION_VERSION, SQLITE_MAGIC, check_version

PathLike = str | os.PathLike[str]

#: ``PRAGMA application_id`` of a hemkit collection database ("hkit")
APPLICATION_ID = 0x686B6974
#: ``PRAGMA user_version`` of the layout written by this version (:data:`hemkit.io.formats.COLLECTION_VERSION`)
SCHEMA_VERSION = COLLECTION_VERSION
#: seconds a connection waits for another one to finish writing before it gives up
BUSY_TIMEOUT = 60.0

_MACHINES_TABLE = """
CREATE TABLE IF NOT EXISTS machines (
    id INTEGER PRIMARY KEY,
    host TEXT NOT NULL,
    cpu_model TEXT NOT NULL,
    kernel TEXT NOT NULL,
    perf_version TEXT NOT NULL,
    UNIQUE (host, cpu_model, kernel, perf_version)
)"""

SCHEMA = (
    _MACHINES_TABLE
    + """;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS groups (gid INTEGER PRIMARY KEY, events TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    gid INTEGER NOT NULL REFERENCES groups(gid),
    rep INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('valid', 'invalid')),
    reason TEXT NOT NULL DEFAULT '',
    started REAL NOT NULL,
    seconds REAL NOT NULL,
    returncode INTEGER NOT NULL,
    digest TEXT,
    machine INTEGER REFERENCES machines(id)
);
CREATE UNIQUE INDEX IF NOT EXISTS one_valid_run ON runs(gid, rep) WHERE status = 'valid';
CREATE TABLE IF NOT EXISTS readings (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    event TEXT NOT NULL,
    value REAL,
    percent REAL,
    run_time_ns REAL,
    status TEXT NOT NULL,
    PRIMARY KEY (run_id, event)
);
"""
)

#: the columns each table must have (databases written before the marker have no digest)
_COLUMNS = {
    "meta": {"key", "value"},
    "groups": {"gid", "events"},
    "runs": {"id", "gid", "rep", "status", "reason", "started", "seconds", "returncode"},
    "readings": {"run_id", "event", "value", "percent", "run_time_ns", "status"},
}
_RUN_COLUMNS = "id, gid, rep, status, reason, started, seconds, returncode"
_MACHINE_COLUMNS = {"id", "host", "cpu_model", "kernel", "perf_version"}


# ------------------------------------------------------------------------ errors
#: what reading or writing the file can raise: SQLite's errors, and text that is not UTF-8
_DB_ERRORS = (sqlite3.Error, UnicodeDecodeError)


def _sqlite_error(path: Path, exc: Exception, *, writing: bool) -> InputError | OutputError:
    """The hemkit error for an SQLite error on ``path``: what the user can do about it."""
    if isinstance(exc, UnicodeDecodeError):
        return InputError(f"{path}: damaged collection database (text that is not UTF-8)")
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    text = str(exc)
    if name.startswith("SQLITE_FULL") or "disk is full" in text:
        return OutputError(f"{path}: cannot be written (no space left on the device)")
    if name.startswith("SQLITE_READONLY") or "readonly database" in text:
        return OutputError(f"{path}: cannot be written (read-only file system or no permission)")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in text:
        return OutputError(f"{path}: busy: another process held it for more than {BUSY_TIMEOUT:g} s")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text or "not a database" in text:
        return InputError(f"{path}: damaged collection database ({text})")
    if writing and name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")):
        return OutputError(f"{path}: cannot be written ({text})")
    return InputError(f"{path}: cannot be read as a collection database ({text})")


# ---------------------------------------------------------------------- the lock
class WriterLock:
    """One writer at a time: an exclusive ``flock`` on ``DB.lock``, which holds the writer's pid.

    The kernel drops the lock when the holder dies (even by SIGKILL); the lock file is
    removed when the lock is released normally.

    Parameters
    ----------
    db_path : path
        The collection database the lock guards.

    Raises
    ------
    OutputError
        Another process holds the lock ("in use by pid N"), or the lock file cannot be made.

    Examples
    --------
    >>> import os, tempfile
    >>> db = os.path.join(tempfile.mkdtemp(), "c.db")
    >>> with WriterLock(db) as lock:
    ...     lock.path.name, lock.held
    ('c.db.lock', True)
    """

    def __init__(self, db_path: PathLike):
        self.db_path = Path(os.fspath(db_path))
        self.path = self.db_path.with_name(self.db_path.name + ".lock")
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock now."""
        return self._fd is not None

    def acquire(self) -> WriterLock:
        """Take the lock, or raise :class:`OutputError` naming the process that has it.

        Interrupted halfway (Ctrl-C just after the lock file was made), it leaves no lock file
        behind unless another process holds it.
        """
        while self._fd is None:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise OutputError(f"{self.db_path}: cannot make the lock file {self.path} ({_oserror(exc)})") from None
            try:
                self._take(fd)
            except HemkitError:
                raise
            except BaseException:
                self._abandon(fd)
                raise
        return self

    def _abandon(self, fd: int) -> None:
        """Close ``fd`` of a lock interrupted while being taken; remove the file if nobody else holds it."""
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino == os.stat(self.path).st_ino:
                os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.close(fd)
        self._fd = None

    def _take(self, fd: int) -> None:
        """Lock the open lock file ``fd`` and write our pid into it (``self._fd`` is set when held)."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            busy = exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN)
            owner = _lock_owner(fd) if busy else ""
            os.close(fd)
            if busy:
                raise OutputError(
                    f"{self.db_path}: in use by {owner} (another 'hemkit collect' writes it); "
                    "wait for it to end or stop it, or use another database"
                ) from None
            raise OutputError(f"{self.db_path}: cannot lock {self.path} ({_oserror(exc)})") from None
        try:  # the file locked must still be the one at the path (a releasing writer unlinks it)
            same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            return  # a releasing writer's file: try again with the file at the path
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {socket.gethostname()} {time.time():.0f}\n".encode(), 0)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(fd)
            raise OutputError(f"{self.db_path}: cannot write the lock file {self.path} ({_oserror(exc)})") from None
        self._fd = fd

    def release(self) -> None:
        """Give the lock up and remove the lock file."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> WriterLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock_owner(fd: int) -> str:
    """``pid N`` (from the lock file), waiting a moment for a writer that has just locked it."""
    for _ in range(20):
        with contextlib.suppress(OSError):
            words = os.pread(fd, 200, 0).decode(errors="replace").split()
            if words and words[0].isdigit():
                host = f" on {words[1]}" if len(words) > 1 and words[1] != socket.gethostname() else ""
                return f"pid {words[0]}{host}"
        time.sleep(0.05)
    return "another process"


# -------------------------------------------------------------------- shards
def shard_reps(runs: int, shard: tuple[int, int] | None) -> list[int]:
    """The repetitions of each group that shard ``(K, N)`` of a plan's ``runs`` per group measures.

    Shard K of N takes repetitions K-1, K-1+N, K-1+2N ... of every group: the N shards are
    disjoint, together they are the whole plan, and each keeps the round-robin order over
    groups (so drift hits every group alike).

    Examples
    --------
    >>> shard_reps(5, (1, 2)), shard_reps(5, (2, 2)), shard_reps(3, None)
    ([0, 2, 4], [1, 3], [0, 1, 2])
    """
    if shard is None:
        return list(range(runs))
    k, n = shard
    return list(range(k - 1, runs, n))


# -------------------------------------------------------------------- run rows
@dataclass(frozen=True)
class StoredRun:
    """One perf run as stored: where it belongs and how it went.

    Parameters
    ----------
    gid, rep : int
        Group and repetition.
    status : {"valid", "invalid"}
    reason : str
        Why an invalid run is invalid.
    started : float, optional
        Start time (seconds since the epoch; default now).
    seconds : float
        Duration.
    returncode : int
        The measured program's exit code (minus the signal number if it was killed).
    machine : Machine, optional
        The machine that measured it (default: the one the collection's metadata names).

    Examples
    --------
    >>> StoredRun(0, 3).status
    'valid'
    """

    gid: int
    rep: int
    status: str = "valid"
    reason: str = ""
    started: float | None = None
    seconds: float = 0.0
    returncode: int = 0
    machine: Machine | None = None


@dataclass(frozen=True)
class Machine:
    """The machine a run was measured on: host name, CPU model, kernel release, perf version.

    Runs of one experiment must come from machines alike: collections of different CPU
    models or kernels are not read as one (:func:`load_collections`).

    Examples
    --------
    >>> m = Machine("node1", "AMD EPYC 9554", "6.1.0-18-amd64", "6.1.76")
    >>> m.host, m.same_kind(Machine("node2", "AMD EPYC 9554", "6.1.0-18-amd64", "6.1.76"))
    ('node1', True)
    """

    host: str
    cpu_model: str
    kernel: str
    perf_version: str

    def same_kind(self, other: Machine) -> bool:
        """Same CPU model and kernel (what pooling runs needs; host and perf version may differ)."""
        return (self.cpu_model, self.kernel) == (other.cpu_model, other.kernel)

    def kind(self) -> str:
        """``CPU model, kernel K``, as messages name a kind of machine."""
        return f"{self.cpu_model or 'unknown CPU'}, kernel {self.kernel or 'unknown'}"

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> Machine:
        """The machine a collection's metadata names (``machine`` and ``perf_version``), as layout 1 stored it."""
        info = meta.get("machine")
        info = info if isinstance(info, dict) else {}
        uname = str(info.get("uname", "")).split(" ")
        host = str(info.get("host", uname[1] if len(uname) > 1 else ""))
        kernel = str(info.get("kernel", uname[2] if len(uname) > 2 else ""))
        return cls(host, str(info.get("cpu_model", "")), kernel, str(meta.get("perf_version", "") or ""))


# --------------------------------------------------------------------- checksums
def _canon_run(row: Sequence[Any]) -> list[Any]:
    gid, rep, status, reason, started, seconds, returncode = row
    return [int(gid), int(rep), str(status), str(reason), float(started), float(seconds), int(returncode)]


def _canon_reading(row: Sequence[Any]) -> list[Any]:
    event, value, percent, run_time_ns, status = row
    num = [None if v is None else float(v) for v in (value, percent, run_time_ns)]
    return [str(event), *num, str(status)]


def run_digest(run: Sequence[Any], readings: Sequence[Sequence[Any]], machine: Sequence[Any] | None = None) -> str:
    """Checksum of one run: ``(gid, rep, status, reason, started, seconds, returncode)`` and its readings.

    Readings are ``(event, value, percent, run_time_ns, status)``, in any order; ``machine``
    (layout 2) is ``(host, cpu_model, kernel, perf_version)``.

    Examples
    --------
    >>> a = run_digest((0, 1, "valid", "", 5.0, 0.1, 0), [("x", 3.0, 100.0, 1.0, "ok")])
    >>> b = run_digest((0, 1, "valid", "", 5.0, 0.1, 0), [("x", 3.5, 100.0, 1.0, "ok")])
    >>> len(a), a == b
    (32, False)
    """
    payload = [_canon_run(run), sorted((_canon_reading(r) for r in readings), key=lambda r: r[0])]
    if machine is not None:
        payload.append([str(x) for x in machine])
    text = json.dumps(payload, separators=(",", ":"), allow_nan=True)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _definition_digest(meta: Mapping[str, str], groups: Sequence[tuple[int, str]]) -> str:
    """Checksum of the meta table (JSON texts, the digest itself left out) and the groups."""
    items = sorted((k, v) for k, v in meta.items() if k != "digest")
    text = json.dumps([items, sorted([int(g), str(e)] for g, e in groups)], separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


# ------------------------------------------------------------------- connections
def _uri(path: Path, **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"{path.absolute().as_uri()}?{query}"


def _writable_place(path: Path) -> bool:
    parent = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.W_OK) and os.access(parent, os.W_OK | os.X_OK)


def _is_wal(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(20)
    return len(head) == 20 and head[18:20] == b"\x02\x02"


class CollectionDB:
    """An open collection database, checked on opening (see the module docstring).

    Read-only unless opened with a held :class:`WriterLock`; :meth:`create` makes a new one.
    Use it as a context manager, or call :meth:`close`.

    Parameters
    ----------
    path : path
        An existing collection database.
    lock : WriterLock, optional
        A held lock on ``path``: open for writing.

    Raises
    ------
    InputError
        Missing, not an SQLite file, an SQLite file of another program, damaged, its
        checksums do not match, or written by a newer hemkit.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "c.db")
    >>> with WriterLock(path) as lock, CollectionDB.create(path, [["a", "b"]], {"runs": 3}, lock=lock) as db:
    ...     db.record_run(StoredRun(0, 0), pd.DataFrame({"event": ["a", "b"], "value": [1.0, 2.0],
    ...         "percent": [100.0, 100.0], "run_time_ns": [1.0, 1.0], "status": ["ok", "ok"]}))
    1
    >>> with CollectionDB(path) as db:
    ...     db.valid_counts(), db.meta()["runs"]
    ({0: 1}, 3)
    """

    def __init__(self, path: PathLike, *, lock: WriterLock | None = None):
        self.path = Path(os.fspath(path))
        if lock is not None and (not lock.held or lock.db_path.absolute() != self.path.absolute()):
            raise ValueError(f"{self.path}: the lock given is not a held lock on this database")
        self.writable = lock is not None
        self._check_file()
        try:
            self._con = self._connect()
        except _DB_ERRORS as exc:
            raise _sqlite_error(self.path, exc, writing=self.writable) from None
        try:
            self.version = self._check_marker_and_schema()
            self._verify_definition()
        except BaseException:
            self._con.close()
            raise

    # ------------------------------------------------------------ opening
    def _check_file(self) -> None:
        p = self.path
        if not p.exists():
            raise InputError(f"{p}: no such collection database")
        if p.is_dir():
            raise InputError(f"{p}: is a folder, not a collection database")
        try:
            with open(p, "rb") as fh:
                head = fh.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise InputError(f"{p}: cannot be read ({_oserror(exc)})") from None
        if not head.startswith(SQLITE_MAGIC):
            what = "an empty file" if not head else "not an SQLite file"
            raise InputError(f"{p}: not a hemkit collection database ({what}); refusing to use it")

    def _connect(self) -> sqlite3.Connection:
        if self.writable or _writable_place(self.path):
            con = sqlite3.connect(_uri(self.path, mode="rw"), uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
            if not self.writable:
                con.execute("PRAGMA query_only = ON")
            return con
        try:  # a read-only place
            con = sqlite3.connect(_uri(self.path, mode="ro"), uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return con
        except sqlite3.OperationalError:
            if not _is_wal(self.path):
                raise
            # a database written before hemkit used a rollback journal, on read-only media:
            # nobody can be writing it, so it may be read as an immutable file
            return sqlite3.connect(_uri(self.path, immutable="1"), uri=True, isolation_level=None)

    def _check_marker_and_schema(self) -> int:
        """The schema version (0: written before the marker), or InputError."""
        p = self.path
        try:
            app = int(self._con.execute("PRAGMA application_id").fetchone()[0])
            version = int(self._con.execute("PRAGMA user_version").fetchone()[0])
            tables = {
                name: {row[1] for row in self._con.execute(f'PRAGMA table_info("{name}")')}
                for (name,) in self._con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except _DB_ERRORS as exc:
            raise _sqlite_error(p, exc, writing=False) from None
        missing = [t for t, cols in _COLUMNS.items() if not cols <= tables.get(t, set())]
        if app != APPLICATION_ID:
            if app != 0 or version != 0 or missing:
                names = ", ".join(sorted(t for t in tables if not t.startswith("sqlite_"))) or "none"
                raise InputError(
                    f"{p}: an SQLite database but not a hemkit collection database "
                    f"(application id {app:#x}, tables: {names}); refusing to use it"
                )
        elif (
            check_version(p, version, SCHEMA_VERSION, "collection database") < 1
            or missing
            or "digest" not in tables.get("runs", set())
        ):
            raise InputError(f"{p}: damaged collection database (layout {version}, missing {missing or 'digest'})")
        elif version >= 2 and (
            not _MACHINE_COLUMNS <= tables.get("machines", set()) or "machine" not in tables.get("runs", set())
        ):
            raise InputError(f"{p}: damaged collection database (layout {version}, missing its machines)")
        # a writer checks the indexes too (it will write through them); readers scan the tables
        # without them (NOT INDEXED), so the quicker check suffices
        check = "integrity_check" if self.writable else "quick_check"
        try:
            problems = [r[0] for r in self._con.execute(f"PRAGMA {check}(5)")]
        except _DB_ERRORS as exc:
            raise _sqlite_error(p, exc, writing=False) from None
        if problems != ["ok"]:
            found = "; ".join(" ".join(str(x).replace("***", "").split()) for x in problems)  # one line
            raise InputError(f"{p}: damaged collection database ({check}: {found})")
        return version

    def _raw_meta(self) -> dict[str, str]:
        return dict(self._con.execute("SELECT key, value FROM meta"))

    def _verify_definition(self) -> None:
        if self.version < 1:
            return
        try:
            meta = self._raw_meta()
            groups = list(self._con.execute("SELECT gid, events FROM groups"))
        except _DB_ERRORS as exc:
            raise _sqlite_error(self.path, exc, writing=False) from None
        try:
            ok = meta.get("digest") == json.dumps(_definition_digest(meta, groups))
        except (TypeError, ValueError):  # a text that became a number or bytes
            ok = False
        if not ok:
            raise InputError(
                f"{self.path}: damaged collection database (its plan, settings or run count "
                "do not match their checksum: the file was changed outside hemkit)"
            )

    @classmethod
    def create(
        cls, path: PathLike, groups: Sequence[Sequence[str]], meta: Mapping[str, Any], *, lock: WriterLock
    ) -> CollectionDB:
        """Make a new collection database (atomically: complete, or not there) and open it for writing.

        Parameters
        ----------
        path : path
            Where; must not exist yet.
        groups : sequence of sequences of str
            The plan's groups.
        meta : mapping
            JSON-serialisable metadata (plan, command, runs, machine ...).
        lock : WriterLock
            A held lock on ``path``.

        Raises
        ------
        OutputError
            The place cannot be written (missing folder, read-only, full disk) or the path exists.
        """
        target = Path(os.fspath(path))
        if not lock.held or lock.db_path.absolute() != target.absolute():
            raise ValueError(f"{target}: the lock given is not a held lock on this database")
        if target.exists():
            raise OutputError(f"{target}: exists already; refusing to replace it")
        texts = {str(k): json.dumps(v) for k, v in meta.items() if k != "digest"}
        texts["n_runs"] = "0"
        rows = [(gid, json.dumps(list(g))) for gid, g in enumerate(groups)]
        texts["digest"] = json.dumps(_definition_digest(texts, rows))
        # a creator killed (SIGKILL) halfway left its temporary file (io.atomic names it
        # .NAME.*.tmp.SUFFIX); we hold the lock, so no creator is at work now: remove it
        for stale in target.parent.glob(f".{target.name}.*.tmp{target.suffix}*"):
            with contextlib.suppress(OSError):
                stale.unlink()
        try:
            with atomic_path(target, what="collection database") as tmp:
                with contextlib.closing(sqlite3.connect(str(tmp), isolation_level=None)) as con:
                    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    con.execute("PRAGMA journal_mode = DELETE")
                    con.execute("PRAGMA synchronous = FULL")
                    con.executescript("BEGIN;" + SCHEMA + "COMMIT;")
                    con.execute("BEGIN IMMEDIATE")
                    con.executemany("INSERT INTO groups VALUES (?, ?)", rows)
                    con.executemany("INSERT INTO meta VALUES (?, ?)", texts.items())
                    con.execute("COMMIT")
        except _DB_ERRORS as exc:
            raise _sqlite_error(target, exc, writing=True) from None
        with contextlib.suppress(OSError):  # the rename itself on disk
            fd = os.open(target.parent if str(target.parent) else ".", os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        return cls(target, lock=lock)

    def prepare_for_writing(self) -> None:
        """Settings of a writer; an older layout is upgraded (marked, checksummed, runs given their machine).

        Call after checking that the collection may be continued: nothing is written before.
        """
        if not self.writable:
            raise ValueError(f"{self.path}: opened read-only")
        try:
            self._con.execute("PRAGMA synchronous = FULL")
            if self.version < SCHEMA_VERSION:
                if self.version >= 1:
                    self.verify()  # never re-checksum a run changed outside hemkit
                self._upgrade()
            if str(self._con.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "delete":
                self._con.execute("PRAGMA journal_mode = DELETE")
        except _DB_ERRORS as exc:
            raise _sqlite_error(self.path, exc, writing=True) from None

    def _upgrade(self) -> None:
        """To the current layout: the digest column (layout 0), the machines (layout < 2), the checksums."""
        con = self._con
        meta = self.meta()
        con.execute("BEGIN IMMEDIATE")
        try:
            columns = {row[1] for row in con.execute("PRAGMA table_info(runs)")}
            if "digest" not in columns:
                con.execute("ALTER TABLE runs ADD COLUMN digest TEXT")
            con.execute(_MACHINES_TABLE)
            if "machine" not in columns:
                con.execute("ALTER TABLE runs ADD COLUMN machine INTEGER REFERENCES machines(id)")
            machine = Machine.from_meta(meta)
            mid = self._machine_id(machine)
            readings: dict[int, list[tuple[Any, ...]]] = {}
            for row in con.execute("SELECT run_id, event, value, percent, run_time_ns, status FROM readings"):
                readings.setdefault(int(row[0]), []).append(row[1:])
            runs = list(con.execute(f"SELECT {_RUN_COLUMNS} FROM runs"))
            fields = astuple(machine)
            con.executemany(
                "UPDATE runs SET digest = ?, machine = ? WHERE id = ?",
                [(run_digest(r[1:], readings.get(int(r[0]), []), fields), mid, r[0]) for r in runs],
            )
            con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._set_meta_in_transaction({"n_runs": len(runs)})
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        self.version = SCHEMA_VERSION

    def _machine_id(self, machine: Machine) -> int:
        """The id of ``machine`` in the machines table, added if new (inside a write transaction)."""
        fields = astuple(machine)
        self._con.execute(
            "INSERT OR IGNORE INTO machines (host, cpu_model, kernel, perf_version) VALUES (?,?,?,?)", fields
        )
        row = self._con.execute(
            "SELECT id FROM machines WHERE host = ? AND cpu_model = ? AND kernel = ? AND perf_version = ?", fields
        ).fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the connection (the lock, if any, stays with its owner)."""
        self._con.close()

    def __enter__(self) -> CollectionDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[CollectionDB]:
        """Read inside one read transaction: every read in it sees the same runs, whatever a collector writes.

        A collector stores each run in a transaction of its own; reads made one after the
        other (the status, then the runs per host) could see different numbers of runs.
        Inside this block they all see the database as it was when the block began (a writer
        waits, up to a minute, for the block to end: keep it short).  Nested blocks are one.

        Examples
        --------
        >>> with CollectionDB("c.db") as db, db.snapshot():  # doctest: +SKIP
        ...     status, runs = db.status(), db.runs()
        """
        if self._con.in_transaction:
            yield self
            return
        try:
            self._con.execute("BEGIN")
            self._con.execute("SELECT count(*) FROM sqlite_master").fetchone()  # takes the read lock now
        except _DB_ERRORS as exc:
            if self._con.in_transaction:
                self._con.execute("ROLLBACK")
            raise _sqlite_error(self.path, exc, writing=False) from None
        try:
            yield self
        finally:
            with contextlib.suppress(*_DB_ERRORS):
                self._con.execute("ROLLBACK")  # nothing was written: ending the read is all

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            return list(self._con.execute(sql, params))
        except _DB_ERRORS as exc:
            raise _sqlite_error(self.path, exc, writing=False) from None

    def _decode(self, text: str, what: str) -> Any:
        try:
            return json.loads(text)
        except (json.JSONDecodeError, TypeError):
            raise InputError(f"{self.path}: damaged collection database ({what} is not valid JSON)") from None

    # ----------------------------------------------------------- metadata
    def meta(self) -> dict[str, Any]:
        """The metadata: plan, command, runs (the target), machine, perf version ..."""
        return {k: self._decode(v, f"meta {k!r}") for k, v in self._read("SELECT key, value FROM meta")}

    def groups(self) -> list[list[str]]:
        """The plan's groups, in order."""
        out = [self._decode(e, f"group {g}") for g, e in self._read("SELECT gid, events FROM groups ORDER BY gid")]
        if not all(isinstance(g, list) and all(isinstance(e, str) for e in g) for g in out):
            raise InputError(f"{self.path}: damaged collection database (a group is not a list of event names)")
        return out

    def _set_meta_in_transaction(self, values: Mapping[str, Any]) -> None:
        for k, v in values.items():
            self._con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (k, json.dumps(v)))
        meta = self._raw_meta()
        groups = list(self._con.execute("SELECT gid, events FROM groups"))
        self._con.execute(
            "INSERT OR REPLACE INTO meta VALUES ('digest', ?)", (json.dumps(_definition_digest(meta, groups)),)
        )

    def _write(self, work: Any) -> Any:
        """Run ``work()`` in one write transaction; SQLite errors become Input/OutputError."""
        if not self.writable:
            raise ValueError(f"{self.path}: opened read-only")
        try:
            self._con.execute("BEGIN IMMEDIATE")
            try:
                out = work()
                self._con.execute("COMMIT")
            except BaseException:
                if self._con.in_transaction:
                    self._con.execute("ROLLBACK")
                raise
        except _DB_ERRORS as exc:
            raise _sqlite_error(self.path, exc, writing=True) from None
        return out

    def set_meta(self, key: str, value: Any) -> None:
        """Store one metadata value (JSON-serialisable)."""
        self._write(lambda: self._set_meta_in_transaction({key: value}))

    # ---------------------------------------------------------------- runs
    def record_run(self, run: StoredRun, counts: pd.DataFrame) -> int:
        """Write one finished run and its readings in a single transaction; return its id.

        Parameters
        ----------
        run : StoredRun
            Group, repetition, status, reason, start time, duration and exit code.
        counts : DataFrame
            perf's counts of the run: ``event, value, percent, run_time_ns, status``.
        """
        started = time.time() if run.started is None else run.started
        row = _canon_run((run.gid, run.rep, run.status, run.reason, started, run.seconds, run.returncode))
        n = len(counts)
        columns = [
            counts[c].tolist() if c in counts.columns else [None] * n
            for c in ("event", "value", "percent", "run_time_ns", "status")
        ]
        rows, seen = [], set()
        for event, *numbers, state in zip(*columns):
            if event in seen:  # perf may print an event twice: the first is kept
                continue
            seen.add(event)
            numbers = [None if v is None or v != v else v for v in numbers]  # NaN -> NULL
            rows.append(_canon_reading((event, *numbers, "ok" if state is None else state)))
        machine = run.machine if run.machine is not None else self._default_machine()
        digest = run_digest(row, rows, astuple(machine))

        def work() -> int:
            cur = self._con.execute(
                "INSERT INTO runs (gid, rep, status, reason, started, seconds, returncode, digest, machine) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (*row, digest, self._machine_id(machine)),
            )
            run_id = int(cur.lastrowid or 0)
            self._con.executemany("INSERT INTO readings VALUES (?,?,?,?,?,?)", [(run_id, *r) for r in rows])
            stored = self._con.execute("SELECT value FROM meta WHERE key = 'n_runs'").fetchone()
            self._set_meta_in_transaction({"n_runs": int(json.loads(stored[0])) + 1})
            return run_id

        return int(self._write(work))

    def _default_machine(self) -> Machine:
        if self.version < SCHEMA_VERSION:
            raise ValueError(f"{self.path}: call prepare_for_writing() before writing runs")
        return Machine.from_meta(self.meta())

    def valid_counts(self) -> dict[int, int]:
        """Valid runs per group id (groups without any are absent)."""
        return dict(self._read("SELECT gid, COUNT(*) FROM runs NOT INDEXED WHERE status='valid' GROUP BY gid"))

    def done(self) -> set[tuple[int, int]]:
        """The (group, repetition) pairs that have a valid run."""
        return {(int(g), int(r)) for g, r in self._read("SELECT gid, rep FROM runs NOT INDEXED WHERE status='valid'")}

    def runs(self, host: str | Sequence[str] | None = None) -> pd.DataFrame:
        """All runs, valid and invalid, with their status and reason (of some hosts only: ``host``).

        Parameters
        ----------
        host : str or sequence of str, optional
            Keep the runs measured on this host (or these hosts) only; a run stored before
            runs named their machine is of the host of the collection's metadata.
        """
        join, where, params = self._host_filter(host)
        columns = ", ".join(f"r.{c.strip()}" for c in _RUN_COLUMNS.split(","))
        rows = self._read(f"SELECT {columns} FROM runs r NOT INDEXED{join} WHERE 1{where} ORDER BY r.id", params)
        return pd.DataFrame(rows, columns=[c.strip() for c in _RUN_COLUMNS.split(",")])

    def _host_filter(self, host: str | Sequence[str] | None) -> tuple[str, str, list[Any]]:
        """SQL keeping the runs ``r`` of ``host``: a join, a condition to AND, its parameters (all empty: every run)."""
        hosts = check_hosts(host)
        if hosts is None:
            return "", "", []
        default = Machine.from_meta(self.meta()).host  # the host of runs that name no machine
        if self.version < 2:
            return "", "" if default in hosts else " AND 0", []
        marks = ",".join("?" * len(hosts))
        return " LEFT JOIN machines m ON r.machine = m.id", f" AND COALESCE(m.host, ?) IN ({marks})", [default, *hosts]

    def shard(self) -> tuple[int, int] | None:
        """``(K, N)`` of a collection made with ``shard=(K, N)`` (a part of a plan's runs), else None."""
        stored = self.meta().get("shard")
        if stored is None:
            return None
        if (
            not isinstance(stored, list)
            or len(stored) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in stored)
            or not 1 <= stored[0] <= stored[1]
        ):
            raise InputError(f"{self.path}: damaged collection database (its shard {stored!r})")
        return int(stored[0]), int(stored[1])

    def folder(self) -> str | None:
        """The folder the collection's command runs in (its working directory), or None if not stored.

        Stored as ``folder`` when a collection is made; databases made before hemkit stored it
        have none (a continued one cannot be checked against it).
        """
        stored = self.meta().get("folder")
        if stored is None:
            return None
        if not isinstance(stored, str) or not os.path.isabs(stored):
            raise InputError(f"{self.path}: damaged collection database (its folder {stored!r})")
        return stored

    def machines_used(self) -> list[Machine]:
        """The distinct machines of the valid runs, from the runs table alone (no readings read, nothing verified).

        A quick look for the machines check (:func:`run_machines` reads and verifies every
        run); runs of a layout-1 database (or stored before the upgrade) name the machine of
        its metadata.
        """
        if self.version < 2:
            return [Machine.from_meta(self.meta())]
        rows = self._read(
            "SELECT DISTINCT m.host, m.cpu_model, m.kernel, m.perf_version FROM runs r "
            "LEFT JOIN machines m ON r.machine = m.id WHERE r.status = 'valid'"
        )
        used = [Machine(*map(str, row)) if row[0] is not None else Machine.from_meta(self.meta()) for row in rows]
        return list(dict.fromkeys(used))

    def status(self, host: str | Sequence[str] | None = None) -> pd.DataFrame:
        """Per group: events, valid and invalid runs, target runs, main invalid reason.

        The target of a shard is its part of the plan's runs (:func:`shard_reps`).

        Parameters
        ----------
        host : str or sequence of str, optional
            Count the runs measured on this host (or these hosts) only (see :meth:`runs`).
        """
        try:
            target = len(shard_reps(int(self.meta().get("runs", 0)), self.shard()))
        except (TypeError, ValueError):
            raise InputError(f"{self.path}: damaged collection database (the target number of runs)") from None
        runs = self.runs(host)
        rows = []
        for gid, events in enumerate(self.groups()):
            r = runs[runs["gid"] == gid]
            bad = r[r["status"] == "invalid"]
            rows.append(
                {
                    "group": gid,
                    "events": len(events),
                    "valid": int((r["status"] == "valid").sum()),
                    "invalid": len(bad),
                    "target": target,
                    "last_invalid_reason": bad["reason"].iloc[-1] if len(bad) else "",
                }
            )
        return pd.DataFrame(rows, columns=["group", "events", "valid", "invalid", "target", "last_invalid_reason"])

    def counted(self, host: str | Sequence[str] | None = None) -> pd.DataFrame:
        """Per group, what perf says was counted: how long, at what running percentage, and ``<not counted>``.

        Columns ``group``, ``counted_s`` (median over valid runs of the longest time an event
        of the run was on a counter, seconds), ``running_pct`` (the lowest running percentage
        of a valid reading: 100 unless multiplexed readings were kept), ``not_counted``
        (``"cycles (3 runs)"``: events perf printed ``<not counted>``, in the runs stored as
        invalid) and ``not_counted_runs``.

        Parameters
        ----------
        host : str or sequence of str, optional
            Of the runs measured on this host (or these hosts) only (see :meth:`runs`).
        """
        join, where, params = self._host_filter(host)
        per_run = self._read(
            f"SELECT r.gid, r.id, MAX(g.run_time_ns), MIN(g.percent) FROM readings g JOIN runs r ON g.run_id = r.id"
            f"{join} WHERE r.status = 'valid' AND g.status = 'ok'{where} GROUP BY r.id",
            params,
        )
        missed = self._read(
            f"SELECT r.gid, g.event, COUNT(DISTINCT r.id) FROM readings g JOIN runs r ON g.run_id = r.id{join} "
            f"WHERE g.status = 'not counted'{where} GROUP BY r.gid, g.event ORDER BY r.gid, COUNT(DISTINCT r.id) DESC",
            params,
        )
        runs = pd.DataFrame(per_run, columns=["group", "run", "ns", "pct"])
        runs = runs.apply(pd.to_numeric, errors="coerce")
        by = runs.groupby("group")
        out = pd.DataFrame({"group": range(len(self.groups()))}).set_index("group")
        out["counted_s"] = by["ns"].median() / 1e9
        out["running_pct"] = by["pct"].min()
        notes: dict[int, list[str]] = {}
        n_runs: dict[int, int] = {}
        for gid, event, n in missed:
            notes.setdefault(int(gid), []).append(f"{event} ({plural(int(n), 'run')})")
            n_runs[int(gid)] = max(n_runs.get(int(gid), 0), int(n))
        out["not_counted"] = [", ".join(notes.get(int(g), [])) for g in out.index]
        out["not_counted_runs"] = [n_runs.get(int(g), 0) for g in out.index]
        return out.reset_index()

    def _machines(self) -> dict[int, tuple[str, str, str, str]]:
        """The machines table (layout 2), read from the table itself."""
        rows = self._read("SELECT id, host, cpu_model, kernel, perf_version FROM machines NOT INDEXED")
        if any(not isinstance(r[0], int) for r in rows):  # a changed byte can leave an id NULL or text
            raise InputError(f"{self.path}: damaged collection database (a machine without a number)")
        return {int(r[0]): tuple(str(x) for x in r[1:]) for r in rows}  # type: ignore[misc]

    def _scan(self) -> tuple[list[Any], dict[int, list[tuple[Any, ...]]]]:
        """Every run row (with its digest and machine) and every reading, read from the tables, not the indexes."""
        digest = "digest" if self.version >= 1 else "NULL"
        machine = "machine" if self.version >= 2 else "NULL"
        runs = self._read(f"SELECT {_RUN_COLUMNS}, {digest}, {machine} FROM runs NOT INDEXED ORDER BY id")
        readings: dict[int, list[tuple[Any, ...]]] = {}
        for row in self._read(
            "SELECT run_id, event, value, percent, run_time_ns, status FROM readings NOT INDEXED ORDER BY rowid"
        ):
            readings.setdefault(row[0], []).append(row[1:])
        return runs, readings

    def verify(self) -> list[tuple[Any, list[tuple[Any, ...]]]]:
        """Check every run against its checksum and the stored number of runs.

        Returns
        -------
        list of (run row, readings)
            The runs as checked: ``(id, gid, rep, status, reason, started, seconds,
            returncode, digest, machine)`` (machine: a :class:`Machine`) and their
            ``(event, value, percent, run_time_ns, status)``.

        Raises
        ------
        InputError
            Naming the first run whose row or readings changed, or a missing run.
        """
        with self.snapshot():  # a run stored meanwhile by a collector would not be counted alike
            runs, readings = self._scan()
            machines = self._machines() if self.version >= 2 else {}
            meta = self.meta()
        default = Machine.from_meta(meta)
        checked = []
        for r in runs:
            fields = machines.get(r[9]) if r[9] is not None else None
            if self.version >= 2 and fields is None:
                raise InputError(
                    f"{self.path}: damaged collection database (run {r[0]}, group {r[1]} repetition {r[2]}, "
                    "names no machine it was measured on)"
                )
            checked.append(((*r[:9], Machine(*fields) if fields else default), readings.pop(r[0], [])))
        if self.version < 1:
            return checked
        stored = meta.get("n_runs")
        if stored != len(runs):
            raise InputError(
                f"{self.path}: damaged collection database (it should hold {stored} runs, it holds {len(runs)})"
            )
        for (r, rows), raw in zip(checked, runs):
            try:
                ok = r[8] == run_digest(r[1:8], rows, machines[raw[9]] if self.version >= 2 else None)
            except (TypeError, ValueError, OverflowError):  # a number field that holds something else
                ok = False
            if not ok:
                raise InputError(
                    f"{self.path}: damaged collection database (run {r[0]}, group {r[1]} repetition {r[2]}, "
                    "does not match its checksum: the file was changed outside hemkit)"
                )
        if readings:
            raise InputError(
                f"{self.path}: damaged collection database (readings of run {min(readings, key=str)}, "
                "which does not exist)"
            )
        return checked

    # -------------------------------------------------------------- output
    def tidy(self) -> pd.DataFrame:
        """Valid runs as the tidy table ``group, run, event, value`` (run = repetition number).

        Built from exactly the rows :meth:`verify` checked: every run against its checksum,
        read from the tables themselves (a damaged index cannot hide or add a row).  Only the
        plan's events of each group are kept (perf may print extra lines), in plan order.
        """
        return self.tidy_and_machines()[0]

    def tidy_and_machines(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """:meth:`tidy`, and the machine of every valid run: ``group, run, host, cpu_model, kernel, perf_version``."""
        with self.snapshot():
            checked = self.verify()
            groups = self.groups()
        order = {(g, e): i for g, events in enumerate(groups) for i, e in enumerate(events)}
        rows = []
        machines = []
        seen: set[tuple[Any, Any]] = set()
        for r, readings in checked:
            if r[3] != "valid":
                continue
            try:
                where = (int(r[1]), int(r[2]))
            except (TypeError, ValueError):
                raise InputError(f"{self.path}: damaged collection database (run {r[0]})") from None
            if where in seen:
                raise InputError(
                    f"{self.path}: damaged collection database (two valid runs of group {r[1]}, repetition {r[2]})"
                )
            seen.add(where)
            machines.append((*where, *astuple(r[9])))
            for x in readings:
                pos = order.get((where[0], x[0]), -1)
                if pos >= 0:
                    rows.append((*where, pos, x[0], x[1]))
        rows.sort(key=lambda t: (t[0], t[1], t[2]))
        machines.sort(key=lambda t: (t[0], t[1]))
        tidy = pd.DataFrame([(g, rep, e, v) for g, rep, _, e, v in rows], columns=["group", "run", "event", "value"])
        return tidy, pd.DataFrame(machines, columns=list(MACHINE_COLUMNS))


#: the columns of :func:`run_machines`
MACHINE_COLUMNS = ("group", "run", "host", "cpu_model", "kernel", "perf_version")


def load_readings(
    db_path: PathLike, *, min_runs: int = 3, drop_constant: bool = False, allow_mixed_machines: bool = False
) -> Readings:
    """The valid runs of a collection database as :class:`hemkit.Readings`.

    ``drop_constant`` drops events that never change within a group (e.g. context-switches
    reading 0 in every run), with a warning, instead of raising.  Runs measured on machines
    of different CPU models or kernels are refused unless ``allow_mixed_machines``.

    Raises
    ------
    InputError
        Missing, foreign, damaged, checksums that do not match, no valid run yet, machines
        of different kinds, or readings :class:`Readings` refuses.
    """
    return load_collections(
        [db_path], min_runs=min_runs, drop_constant=drop_constant, allow_mixed_machines=allow_mixed_machines
    )


#: what two collections given together for one set of readings (two builds, before and after) may have been meant for
TO_COMPARE = " (to compare two such collections: hemkit compare A B, or hemkit report A --compare B)"


def _same_setting(first: Path, path: Path, what: str, a: Any, b: Any) -> None:
    if a != b:  # a setting not given (no pin, no co-runner) is said as such, not as Python's 'None'
        shown = [
            f"no {what}" if v is None else repr(" ".join(map(str, v)) if isinstance(v, list) else str(v))
            for v in (a, b)
        ]
        raise InputError(
            f"{path} and {first}: collected with different {what}s ({shown[1]} and {shown[0]}); "
            f"only collections of the same plan and command are read as one set of readings{TO_COMPARE}"
        )


def _check_machines(paths: Sequence[Path], machines: Sequence[pd.DataFrame], allow_mixed: bool) -> None:
    """Refuse (or, with ``allow_mixed``, warn about) runs measured on machines of different kinds."""
    kinds: dict[tuple[str, str], tuple[Path, str]] = {}
    for path, frame in zip(paths, machines):
        for cpu, kernel, host in zip(frame["cpu_model"], frame["kernel"], frame["host"]):
            if cpu or kernel:  # a collection whose metadata named no machine cannot be told apart
                kinds.setdefault((cpu, kernel), (path, host))
    if len(kinds) < 2:
        return
    (k1, (p1, h1)), (k2, (p2, h2)) = list(kinds.items())[:2]
    what = [n for n, a, b in (("CPU model", k1[0], k2[0]), ("kernel", k1[1], k2[1])) if a != b]
    where = f"{p1}" if p1 == p2 else f"{p1} and {p2}"
    text = (
        f"{where}: runs measured on machines of different {' and '.join(what)} "
        f"({h1 or 'a host'}: {Machine(h1, *k1, '').kind()}; {h2 or 'a host'}: {Machine(h2, *k2, '').kind()}"
        f"{f'; {len(kinds)} kinds in all' if len(kinds) > 2 else ''})"
    )
    if not allow_mixed:
        raise InputError(
            f"{text}; their runs may not come from one distribution",
            fix=Fix("allow_mixed_machines", True),
        )
    warnings.warn(f"{text}: read as one collection as asked", HemkitWarning, stacklevel=4)


def _files_key(paths: Sequence[Path]) -> tuple[Any, ...] | None:
    """What identifies the files' contents now (device, inode, mtime, size of each), or None if one is gone."""
    try:
        stats = [p.stat() for p in paths]
    except OSError:
        return None
    return tuple((str(p.absolute()), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size) for p, st in zip(paths, stats))


#: the machines of the runs of the last files read as one collection, with the key of those files
#: (:func:`_files_key`): the machines check after a read (merge, report) does not verify every run again
_last_machines: list[Any] = [None, None]


def check_hosts(host: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``host`` as a tuple of host names (None: every host); refuses what names no host.

    Examples
    --------
    >>> check_hosts("node1"), check_hosts(["node1", "node2"]), check_hosts(None)
    (('node1',), ('node1', 'node2'), None)
    """
    if host is None:
        return None
    items = [host] if isinstance(host, str) else host
    if isinstance(items, bytes | bytearray) or not isinstance(items, Sequence):
        raise InputError(f"host must be a host name or a sequence of them, got {type(host).__name__}", param="host")
    names = tuple(items)
    if not names or any(not isinstance(h, str) or not h.strip() for h in names):
        raise InputError(f"host must be a host name or a sequence of them, got {host!r}", param="host")
    return tuple(dict.fromkeys(h.strip() for h in names))


def _hosts_shown(counts: Mapping[str, int]) -> str:
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{h!r} ({plural(n, 'run')})" for h, n in items[:10])
    return shown + (f" ... ({len(items)} hosts in all)" if len(items) > 10 else "")


def _select_hosts(
    paths: Sequence[Path], tables: list[pd.DataFrame], machines: list[pd.DataFrame], hosts: tuple[str, ...]
) -> tuple[list[pd.DataFrame], list[pd.DataFrame]]:
    """The runs of ``hosts`` only, in each database's tidy table and machines; a host of no run is refused."""
    counts: dict[str, int] = {}
    for frame in machines:
        for h in frame["host"].astype(str).tolist():
            counts[h] = counts.get(h, 0) + 1
    unknown = [h for h in hosts if h not in counts]
    if unknown:
        where = " ".join(map(str, paths))
        close = did_you_mean(unknown[0], list(counts))
        raise InputError(
            f"host {unknown[0]!r} measured no valid run of {where}; its runs are of "
            f"{'host' if len(counts) == 1 else 'hosts'} {_hosts_shown(counts)}{close}",
            param="host",
        )
    kept_tables, kept_machines = [], []
    for table, frame in zip(tables, machines):
        keep = frame[frame["host"].astype(str).isin(hosts)]
        runs = set(zip(keep["group"].tolist(), keep["run"].tolist()))
        inside = [k in runs for k in zip(table["group"].tolist(), table["run"].tolist())]
        kept_tables.append(table[inside])
        kept_machines.append(keep)
    return kept_tables, kept_machines


def _collection_tables(
    db_paths: Sequence[PathLike], allow_mixed_machines: bool | None, hosts: tuple[str, ...] | None = None
) -> tuple[list[Path], pd.DataFrame, pd.DataFrame]:
    """The tidy table of several collections read as one, and the machine of each of its runs (of ``hosts``)."""
    paths = [Path(os.fspath(p)) for p in db_paths]
    tables: list[pd.DataFrame] = []
    machines: list[pd.DataFrame] = []
    first: tuple[Path, dict[str, Any], dict[frozenset[str], list[int]]] | None = None
    seen: dict[str, Path] = {}
    stored: dict[tuple[float, float], Path] = {}  # a run's start and length: the same in a copy of its database
    for path in paths:
        real = os.path.realpath(path)
        if real in seen:
            raise InputError(f"{path}: given twice (also as {seen[real]}); each collection is read once")
        seen[real] = path
        with CollectionDB(path) as db, db.snapshot():  # one moment, while a collector may write
            (table, machine), groups, meta = db.tidy_and_machines(), db.groups(), db.meta()
            runs = db.runs().query("status == 'valid'")
        if table.empty:
            raise InputError(f"{path}: no valid runs yet (the collection has not stored any)")
        times = list(zip(runs["started"].astype(float), runs["seconds"].astype(float), strict=True))
        copied = sorted({str(stored[k]) for k in times if k in stored})
        if copied:
            n = sum(k in stored for k in times)
            raise InputError(
                f"{path}: holds {n} run(s) also stored in {copied[0]} (a copy of it?); each run is read once"
            )
        stored.update(dict.fromkeys(times, path))
        by_events: dict[frozenset[str], list[int]] = {}
        for gid, events in enumerate(groups):
            by_events.setdefault(frozenset(events), []).append(gid)
        if first is None:
            first = (path, meta, by_events)
            tables.append(table)
            machines.append(machine)
            continue
        first_path, first_meta, first_groups = first
        if {k: len(v) for k, v in by_events.items()} != {k: len(v) for k, v in first_groups.items()}:
            only = sorted(
                (sorted(k) for k in set(by_events) ^ set(first_groups)), key=lambda g: (len(g), g)
            )  # groups in one plan only
            example = f" (group {', '.join(only[0])} is in one only)" if only else ""
            raise InputError(
                f"{path} and {first_path}: collected with different plans{example}; "
                f"only collections of the same plan and command are read as one set of readings{TO_COMPARE}"
            )
        for key, what in (("command", "command"), ("pin", "pin"), ("corunner", "co-runner")):
            _same_setting(first_path, path, what, first_meta.get(key), meta.get(key))
        to_first = {gid: first_groups[k][i] for k, gids in by_events.items() for i, gid in enumerate(gids)}
        tables.append(table.assign(group=table["group"].map(to_first)))
        machines.append(machine.assign(group=machine["group"].map(to_first)))
    if hosts is not None:  # before the machines' kinds are compared: only the runs asked for count
        tables, machines = _select_hosts(paths, tables, machines, hosts)
    if allow_mixed_machines is not None:  # None: the machines are what is asked for
        _check_machines(paths, machines, allow_mixed_machines)
    keys = [set(zip(t["group"].tolist(), t["run"].tolist())) for t in machines]
    clash = any(keys[i] & keys[j] for i in range(len(keys)) for j in range(i))
    if clash:
        stems = [p.stem for p in paths]
        labels = stems if len(set(stems)) == len(stems) else [str(p) for p in paths]
        tables = [t.assign(run=[f"{label}:{r}" for r in t["run"].tolist()]) for t, label in zip(tables, labels)]
        machines = [t.assign(run=[f"{label}:{r}" for r in t["run"].tolist()]) for t, label in zip(machines, labels)]
    table = pd.concat(tables, ignore_index=True).sort_values(["group"], kind="stable", ignore_index=True)
    machine = pd.concat(machines, ignore_index=True).sort_values(["group"], kind="stable", ignore_index=True)
    _last_machines[:] = [(_files_key(paths), hosts), machine]
    return paths, table, machine


def load_collections(
    db_paths: Sequence[PathLike],
    *,
    min_runs: int = 3,
    drop_constant: bool = False,
    allow_mixed_machines: bool = False,
    host: str | Sequence[str] | None = None,
) -> Readings:
    """The valid runs of several collection databases of the same plan and command, as one :class:`Readings`.

    Groups with the same set of events are one group (numbered as in the first database);
    run ids stay the repetition numbers unless two databases hold the same run of a group,
    then every run id is prefixed by its file's stem (``plan:0``, ``plan2:0``; the whole
    path where stems repeat).  Databases of another plan (another set of groups), another
    command, pin or co-runner are refused: their runs are not runs of one experiment.  So
    are runs measured on machines of another CPU model or kernel (in one database or
    across them), unless ``allow_mixed_machines`` (then with a warning).  The shards of one
    plan (``collect --shard K/N``) read together are the whole collection; a part of it (an
    unfinished collection, some of the shards) with enough runs to read is read with a
    :class:`~hemkit.core.errors.HemkitWarning` saying where the rest of the runs are.
    The folder each database's command ran in is not compared: shards measured on other
    machines have other paths, and a collector refuses to continue a database from another
    folder (:func:`hemkit.collect.collect`), so each database's runs are of one folder.
    ``host`` (a host name or several) keeps the runs measured on those hosts only (every run
    stores its host); the machines' kinds are then compared among those runs alone.

    Raises
    ------
    InputError
        Naming both files and what differs, or a database :class:`CollectionDB` refuses; a
        ``host`` that measured no valid run (naming the hosts that did).

    Examples
    --------
    >>> r = load_collections(["monday.db", "tuesday.db"])  # doctest: +SKIP
    """
    hosts = check_hosts(host)
    paths, table, _ = _collection_tables(db_paths, allow_mixed_machines, hosts)
    source = " ".join(map(str, paths))
    try:
        readings = Readings.from_tidy(table, source=source, min_runs=min_runs, drop_constant=drop_constant)
    except InputError as exc:
        fewest = int(table.groupby("group")["run"].nunique().min()) if len(table) else 0
        too_few = fewest < min_runs and f"at least {min_runs} are needed" in exc.message
        if too_few and hosts is not None:
            raise exc.reworded(
                f"{exc.message} (only the runs of {'host' if len(hosts) == 1 else 'hosts'} "
                f"{', '.join(map(repr, hosts))} were read)"
            ) from None
        hint = _rest_of_the_runs(paths) if too_few else ""
        if not hint:
            raise
        raise exc.reworded(f"{exc.message}; {hint}") from None
    # enough runs to read, but not all of the plan's: a collection still running or stopped, or one shard of
    # several -- what is read is a part, and a merge or report of it should say so
    missing = _rest_of_the_runs(paths)
    if missing:
        warnings.warn(f"{missing}; the runs stored so far are read", HemkitWarning, stacklevel=2)
    return readings


def _rest_of_the_runs(paths: list[Path]) -> str:
    """Where the runs missing from these databases are: the other shards of their plan, or a collection to finish.

    ``""`` when neither applies (finished collections of too few runs).
    """
    shards: dict[Path, tuple[int, int]] = {}
    unfinished: list[tuple[Path, int, int]] = []
    for path in paths:
        with CollectionDB(path) as db:
            shard, status = db.shard(), db.status()
        if shard is not None:
            shards[path] = shard
        short = status[status["valid"] < status["target"]]
        if len(short):
            unfinished.append((path, int(short["valid"].min()), int(short["target"].iloc[0])))
    for n in sorted({s[1] for s in shards.values()}, reverse=True):
        given = [p for p, s in shards.items() if s[1] == n]
        parts = {shards[p][0] for p in given}
        if len(parts) < n:
            what = (
                f"{given[0]} is shard {shards[given[0]][0]}/{n} of its plan's runs"
                if len(given) == 1
                else f"{' and '.join(map(str, given))} are {len(parts)} of the {n} shards of their plan's runs"
            )
            return f"{what}; give the databases of all {n} shards together, read as one collection"
    if unfinished:
        path, valid, target = unfinished[0]
        return (
            f"{path} is an unfinished collection (a group has {valid} of its {target} runs); continue it, or give "
            "it with the other databases of its plan and command"
        )
    return ""


def run_machines(db_paths: PathLike | Sequence[PathLike], *, host: str | Sequence[str] | None = None) -> pd.DataFrame:
    """The machine of every valid run of one or several collections, labelled as :func:`load_collections` does.

    Columns ``group, run, host, cpu_model, kernel, perf_version``: one row per run of the
    :class:`Readings` the same files (and ``host``) give (for the check that machines are
    alike; runs of machines of different kinds are given as they are).

    Parameters
    ----------
    db_paths : path or sequence of paths
        Collection databases.
    host : str or sequence of str, optional
        Only the runs measured on these hosts (as :func:`load_collections` keeps them).

    Examples
    --------
    >>> run_machines(["part_1.db", "part_2.db"])["host"].value_counts()  # doctest: +SKIP
    """
    items = [db_paths] if isinstance(db_paths, (str, os.PathLike)) else list(db_paths)
    paths = [Path(os.fspath(p)) for p in items]
    hosts = check_hosts(host)
    key = _files_key(paths)
    if key is not None and (key, hosts) == _last_machines[0]:  # read just now, unchanged since
        return _last_machines[1].copy()
    return _collection_tables(paths, None, hosts)[2]


def collection_status(db_path: PathLike) -> pd.DataFrame:
    """Per group of a collection: events, valid and invalid runs, the target, the last invalid reason.

    Read in one read transaction (:meth:`CollectionDB.snapshot`), so its numbers agree with
    each other while a collector writes.

    Examples
    --------
    >>> collection_status("collection.db")  # doctest: +SKIP
    """
    with CollectionDB(db_path) as db, db.snapshot():
        return db.status()


@dataclass(frozen=True)
class StatusSnapshot:
    """What ``hemkit collect --status`` shows of a collection, read at one moment (:func:`status_snapshot`).

    Attributes
    ----------
    path : Path
        The database.
    meta : dict
        Its metadata (plan, command, target runs, ...).
    status : DataFrame
        Per group: events, valid and invalid runs, the target, the last invalid reason
        (:meth:`CollectionDB.status`).
    tidy : DataFrame
        The valid runs' readings ``group, run, event, value`` (every run checked against
        its checksum).
    machines : DataFrame
        The machine of every valid run, columns :data:`MACHINE_COLUMNS`.
    """

    path: Path
    meta: dict
    status: pd.DataFrame
    tidy: pd.DataFrame
    machines: pd.DataFrame


def status_snapshot(db_path: PathLike) -> StatusSnapshot:
    """The status, readings and machines of a collection, all read in one read transaction.

    A collector may be writing the database: read one after the other, the status and the
    runs per host could count different runs (31 valid runs in one, 29 in the other).  Here
    every number comes from the same moment (:meth:`CollectionDB.snapshot`).  Runs of
    machines of another CPU model or kernel are said in a warning, not refused.

    Raises
    ------
    InputError
        What :class:`CollectionDB` refuses, or a run that does not match its checksum.

    Examples
    --------
    >>> snap = status_snapshot("c.db")  # doctest: +SKIP
    >>> int(snap.status["valid"].sum()) == len(snap.machines)  # doctest: +SKIP
    True
    """
    path = Path(os.fspath(db_path))
    with CollectionDB(path) as db, db.snapshot():
        tidy, machines = db.tidy_and_machines()  # verifies every run, and the stored number of runs
        meta, status = db.meta(), db.status()
    _check_machines([path], [machines], True)
    return StatusSnapshot(path, meta, status, tidy, machines)


def check_database_output(db_path: PathLike, *, inputs: Sequence[PathLike | None] = ()) -> Path:
    """Refuse, before any work, a database path that cannot be written (see :func:`check_output`).

    Examples
    --------
    >>> check_database_output("/no/such/folder/c.db")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: collection database /no/such/folder/c.db: folder /no/such/folder does not exist
    """
    return check_output(db_path, inputs=inputs, what="collection database")


@contextlib.contextmanager
def open_for_writing(db_path: PathLike) -> Iterator[tuple[WriterLock, CollectionDB | None]]:
    """Take the writer lock of ``db_path``; yield it with the open database (None when new).

    The database is checked (marker, integrity_check, checksum of the definition) but nothing
    is written: call :meth:`CollectionDB.prepare_for_writing` once the caller has decided to go on.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "c.db")
    >>> with open_for_writing(path) as (lock, db):
    ...     db is None, lock.held
    (True, True)
    """
    path = check_database_output(db_path)
    with WriterLock(path) as lock:
        if not path.exists():
            yield lock, None
            return
        db = CollectionDB(path, lock=lock)
        try:
            yield lock, db
        finally:
            db.close()


__all__ = [
    "APPLICATION_ID",
    "SCHEMA",
    "SCHEMA_VERSION",
    "CollectionDB",
    "StoredRun",
    "WriterLock",
    "check_database_output",
    "check_hosts",
    "collection_status",
    "load_collections",
    "load_readings",
    "open_for_writing",
    "run_digest",
    "run_machines",
    "shard_reps",
    "status_snapshot",
    "Machine",
    "StatusSnapshot",
    "MACHINE_COLUMNS",
]
