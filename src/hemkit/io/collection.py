"""The collection database: one SQLite file per collection, every finished run committed at once.

Tables::

    meta(key PRIMARY KEY, value)              -- plan, command, runs, machine, perf version (JSON values)
    groups(gid PRIMARY KEY, events)           -- the plan's groups (JSON list of events)
    runs(id PRIMARY KEY, gid, rep, status,    -- one row per perf run: status 'valid' or 'invalid',
         reason, started, seconds, returncode)   reason says why a run is invalid
    readings(run_id, event, value, percent, run_time_ns, status)

A partial unique index on ``runs(gid, rep) WHERE status = 'valid'`` makes a duplicate
valid run impossible.  A run is written (run row + its readings) in one transaction after
perf finished, so a collector killed at any moment leaves either the whole run or
nothing; the next ``collect`` continues with the (group, repetition) pairs still missing.
The database uses SQLite's write-ahead log (WAL) so ``--status`` can read it while a
collection writes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import pandas as pd

from hemkit.core.errors import HemkitError
from hemkit.core.readings import Readings

SCHEMA = """
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
    returncode INTEGER NOT NULL
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


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), timeout=30)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    return con


class CollectionDB:
    """Open (or create) a collection database.

    Parameters
    ----------
    path : str or Path
    create : bool
        Create the file if missing; otherwise a missing file is an error.

    Examples
    --------
    >>> import tempfile, os
    >>> db = CollectionDB(os.path.join(tempfile.mkdtemp(), "c.db"), create=True)
    >>> db.init([["a", "b"]], {"runs": 3})
    >>> db.record_run(0, 0, "valid", "", pd.DataFrame({"event": ["a", "b"], "value": [1.0, 2.0],
    ...     "percent": [100.0, 100.0], "run_time_ns": [1.0, 1.0], "status": ["ok", "ok"]}))
    1
    >>> db.valid_counts()
    {0: 1}
    """

    def __init__(self, path: str | Path, *, create: bool = False):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise HemkitError(f"{self.path}: no such collection database")
        try:
            with closing(_connect(self.path)) as con:
                con.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise HemkitError(f"{self.path}: not a hemkit collection database ({exc})") from None

    def _con(self) -> sqlite3.Connection:
        return _connect(self.path)

    # ----------------------------------------------------------- metadata
    def init(self, groups: Sequence[Sequence[str]], meta: dict) -> None:
        """Store the groups and metadata of a new collection (no-op for keys already set)."""
        with closing(self._con()) as con, con:
            for gid, g in enumerate(groups):
                con.execute("INSERT OR IGNORE INTO groups VALUES (?, ?)", (gid, json.dumps(list(g))))
            for k, v in meta.items():
                con.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (k, json.dumps(v)))

    def set_meta(self, key: str, value) -> None:
        with closing(self._con()) as con, con:
            con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def meta(self) -> dict:
        with closing(self._con()) as con:
            return {k: json.loads(v) for k, v in con.execute("SELECT key, value FROM meta")}

    def groups(self) -> list[list[str]]:
        with closing(self._con()) as con:
            return [json.loads(e) for (e,) in con.execute("SELECT events FROM groups ORDER BY gid")]

    # ---------------------------------------------------------------- runs
    def record_run(
        self,
        gid: int,
        rep: int,
        status: str,
        reason: str,
        counts: pd.DataFrame,
        *,
        started: float | None = None,
        seconds: float = 0.0,
        returncode: int = 0,
    ) -> int:
        """Write one finished run and its readings in a single transaction; return its id."""
        with closing(self._con()) as con, con:
            cur = con.execute(
                "INSERT INTO runs (gid, rep, status, reason, started, seconds, returncode) VALUES (?,?,?,?,?,?,?)",
                (gid, rep, status, reason, time.time() if started is None else started, seconds, returncode),
            )
            run_id = cur.lastrowid
            rows = [
                (
                    run_id,
                    str(r.event),
                    None if pd.isna(r.value) else float(r.value),
                    None if pd.isna(r.percent) else float(r.percent),
                    None if pd.isna(r.run_time_ns) else float(r.run_time_ns),
                    str(r.status),
                )
                for r in counts.drop_duplicates("event").itertuples(index=False)
            ]
            con.executemany("INSERT INTO readings VALUES (?,?,?,?,?,?)", rows)
        return run_id

    def valid_counts(self) -> dict[int, int]:
        """Valid runs per group id (groups without any are absent)."""
        with closing(self._con()) as con:
            return dict(con.execute("SELECT gid, COUNT(*) FROM runs WHERE status='valid' GROUP BY gid"))

    def done(self) -> set[tuple[int, int]]:
        """The (group, repetition) pairs that have a valid run."""
        with closing(self._con()) as con:
            return set(con.execute("SELECT gid, rep FROM runs WHERE status='valid'"))

    def runs(self) -> pd.DataFrame:
        """All runs, valid and invalid, with their status and reason."""
        with closing(self._con()) as con:
            return pd.read_sql_query("SELECT * FROM runs ORDER BY id", con)

    def status(self) -> pd.DataFrame:
        """Per group: events, valid and invalid runs, target runs, main invalid reason."""
        target = int(self.meta().get("runs", 0))
        runs = self.runs()
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
        return pd.DataFrame(rows)

    # -------------------------------------------------------------- output
    def tidy(self) -> pd.DataFrame:
        """Valid runs as the tidy table ``group, run, event, value`` (run = repetition number)."""
        with closing(self._con()) as con:
            t = pd.read_sql_query(
                'SELECT r.gid AS "group", r.rep AS run, x.event AS event, x.value AS value '
                "FROM runs r JOIN readings x ON x.run_id = r.id WHERE r.status = 'valid' "
                "ORDER BY r.gid, r.rep, x.rowid",
                con,
            )
        groups = self.groups()
        if len(t):  # keep only the plan's events of each group (perf may print extra lines)
            keep = [ev in set(groups[g]) for g, ev in zip(t["group"], t["event"])]
            t = t[keep].reset_index(drop=True)
        return t


def load_readings(db_path: str | Path, *, min_runs: int = 3, drop_constant: bool = False) -> Readings:
    """The valid runs of a collection database as :class:`hemkit.Readings`.

    ``drop_constant`` drops events that never change within a group (e.g. context-switches
    reading 0 in every run), with a warning, instead of raising.

    Examples
    --------
    >>> from hemkit.io.collection import load_readings
    >>> r = load_readings("collection.db")  # doctest: +SKIP
    """
    db = CollectionDB(db_path)
    t = db.tidy()
    if t.empty:
        raise HemkitError(f"{db_path}: no valid runs yet (see 'hemkit collect --status {db_path}')")
    return Readings.from_tidy(t, source=str(db_path), min_runs=min_runs, drop_constant=drop_constant)


def export(db_path: str | Path, out: str | Path) -> Path:
    """Write a collection's valid runs as a tidy CSV or Parquet file (by suffix)."""
    from hemkit.io import write_table

    load_readings(db_path)  # validates (constant events, holes) before writing
    return write_table(CollectionDB(db_path).tidy(), out)
