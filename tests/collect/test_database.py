"""The collection database refuses what it cannot trust: foreign files, damage, tampering, newer layouts.

Also: databases written before the marker are read and upgraded, a read-only place or a full
disk is reported as such (on a small tmpfs), and no byte of a database can change silently
(hypothesis flips bytes: either the readings come out identical or an InputError names the file).
"""

import hashlib
import json
import shutil
import sqlite3

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hemkit import InputError, OutputError
from hemkit.collect import collect, export, status
from hemkit.io import read_readings
from hemkit.io.collection import APPLICATION_ID, SCHEMA_VERSION, CollectionDB, WriterLock, load_readings
from hemkit.plan import Plan

OLD_SCHEMA = """
PRAGMA journal_mode=WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE groups (gid INTEGER PRIMARY KEY, events TEXT NOT NULL);
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, gid INTEGER NOT NULL REFERENCES groups(gid),
    rep INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('valid', 'invalid')),
    reason TEXT NOT NULL DEFAULT '', started REAL NOT NULL, seconds REAL NOT NULL, returncode INTEGER NOT NULL);
CREATE UNIQUE INDEX one_valid_run ON runs(gid, rep) WHERE status = 'valid';
CREATE TABLE readings (run_id INTEGER NOT NULL REFERENCES runs(id), event TEXT NOT NULL, value REAL,
    percent REAL, run_time_ns REAL, status TEXT NOT NULL, PRIMARY KEY (run_id, event));
"""


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def small_db(tmp_path_factory, fake_perf_launcher):
    """A complete collection (6 groups x 3 runs), made once with the fake perf."""
    import os

    from hemkit.plan import make_plan

    folder = tmp_path_factory.mktemp("small")
    old = os.environ.get("HEMKIT_PERF")
    os.environ["HEMKIT_PERF"] = str(fake_perf_launcher)
    try:
        db = folder / "c.db"
        collect(make_plan(["task-clock", "page-faults", "context-switches", "minor-faults"], 2), ["true"], db, runs=3)
    finally:
        if old is None:
            del os.environ["HEMKIT_PERF"]
        else:
            os.environ["HEMKIT_PERF"] = old
    return db


@pytest.fixture
def db(small_db, tmp_path):
    """A private copy of ``small_db``."""
    return shutil.copy(small_db, tmp_path / "c.db")


def test_marked_and_checked(db):
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert con.execute("SELECT COUNT(*) FROM runs WHERE digest IS NULL").fetchone()[0] == 0
    with CollectionDB(db) as handle:
        handle.verify()
        assert not handle.writable


def test_foreign_sqlite_refused_and_untouched(tmp_path, fake_perf, plan, bad_input, plan_file):
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as con:
        con.execute("CREATE TABLE accounts (name TEXT, balance REAL)")
        con.execute("INSERT INTO accounts VALUES ('a', 1.0)")
    before = _digest(foreign)
    with pytest.raises(InputError, match=r"other.db: an SQLite database but not a hemkit collection .*accounts"):
        collect(plan, ["true"], foreign, runs=2, progress=False)
    with pytest.raises(InputError, match="not a hemkit collection"):
        load_readings(foreign)
    with pytest.raises(InputError, match="not a hemkit collection"):
        read_readings(foreign)
    assert _digest(foreign) == before
    with sqlite3.connect(foreign) as con:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert tables == {"accounts"}  # hemkit's tables were never written into it
    bad_input(["collect", plan_file, "-o", foreign, "--", "true"], names=[str(foreign)], watch=[tmp_path])


def test_other_programs_application_id_refused(tmp_path):
    path = tmp_path / "x.db"
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA application_id = 1234")
        con.executescript(OLD_SCHEMA.replace("PRAGMA journal_mode=WAL;", ""))
    with pytest.raises(InputError, match=r"x.db: an SQLite database but not a hemkit collection .*0x4d2"):
        load_readings(path)


@pytest.mark.parametrize("content", [b"", b"group,run,event,value\n", b"SQLite format 3\x00" + b"\x00" * 50])
def test_not_a_database(tmp_path, content):
    path = tmp_path / "x.db"
    path.write_bytes(content)
    with pytest.raises(InputError, match=r"x.db: "):
        status(path)
    assert path.read_bytes() == content


def test_newer_layout_refused(db):
    with sqlite3.connect(db) as con:
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(
        InputError,
        match=rf"c.db: collection database version {SCHEMA_VERSION + 1} is newer than this hemkit reads "
        rf"\(version {SCHEMA_VERSION}\)",
    ):
        load_readings(db)


def test_damaged_page_is_an_input_error_naming_the_file(db, cli):
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    data[2 * page + 8 : 2 * page + 200] = b"\xa5" * 192  # a b-tree page's header and cell pointers
    db.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"c.db: damaged collection database"):
        load_readings(db)
    res = cli(["collect", "--status", db])
    assert res.exit_code == 2 and res.stderr.startswith(f"hemkit: error: {db}: damaged collection database")


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("UPDATE readings SET value = value + 1 WHERE rowid = 5", r"run \d+, group \d+ repetition \d+, does not match"),
        ("UPDATE runs SET status = 'invalid' WHERE id = 3", r"run 3, group 2 repetition 0, does not match"),
        ("DELETE FROM readings WHERE rowid = 7", "does not match its checksum"),
        ("DELETE FROM runs WHERE id = 18", "it should hold 18 runs, it holds 17"),
        ("UPDATE meta SET value = '[\"false\"]' WHERE key = 'command'", "plan, settings or run count do not match"),
        ('UPDATE groups SET events = \'["a", "b"]\' WHERE gid = 0', "plan, settings or run count do not match"),
        ("UPDATE meta SET value = '99' WHERE key = 'runs'", "plan, settings or run count do not match"),
    ],
)
def test_changes_outside_hemkit_are_found(db, sql, message):
    with sqlite3.connect(db) as con:
        con.execute(sql)
    with pytest.raises(InputError, match=message):
        load_readings(db)


@pytest.mark.parametrize(
    "sql",
    ["UPDATE readings SET value = value + 1 WHERE rowid = 5", "UPDATE runs SET status = 'invalid' WHERE id = 3"],
)
def test_collect_refuses_to_continue_a_database_changed_outside_hemkit(fake_perf, db, cli, sql):
    """collect --runs 4 continued such a file and said 'complete'; only reading it later found the change."""
    with sqlite3.connect(db) as con:
        con.execute(sql)
    before = db.read_bytes()
    with CollectionDB(db) as handle:
        plan_file = Plan.from_dict(handle.meta()["plan"]).to_file(db.parent / "plan.toml")
    res = cli(["collect", plan_file, "-o", db, "--runs", "4"])
    assert res.exit_code == 2, res.stdout
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"hemkit: error: {db}: damaged collection database (run ") and "checksum" in line, line
    assert db.read_bytes() == before


@pytest.mark.parametrize(
    "sql",
    ["UPDATE readings SET value = value + 1 WHERE rowid = 5", "UPDATE runs SET status = 'invalid' WHERE id = 3"],
)
def test_status_of_a_database_changed_outside_hemkit_is_an_error(db, cli, sql):
    """collect --status said '12 of 12 runs valid' (exit 0) of such a file; only a machines line hinted."""
    with sqlite3.connect(db) as con:
        con.execute(sql)
    before = db.read_bytes()
    res = cli(["collect", "--status", db])
    assert res.exit_code == 2, res.stdout
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"hemkit: error: {db}: damaged collection database (run "), line
    assert db.read_bytes() == before


def test_database_written_before_the_marker_is_read_and_upgraded(fake_perf, plan, tmp_path):
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.executescript(OLD_SCHEMA)
    for gid, g in enumerate(plan.groups):
        con.execute("INSERT INTO groups VALUES (?, ?)", (gid, json.dumps(g)))
    meta = {"plan": plan.to_dict(), "command": ["true"], "pin": None, "corunner": None, "format": "csv", "runs": 3}
    con.executemany("INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()])
    for rep in range(3):
        for gid, g in enumerate(plan.groups):
            cur = con.execute("INSERT INTO runs VALUES (NULL, ?, ?, 'valid', '', 1.0, 0.1, 0)", (gid, rep))
            con.executemany(
                "INSERT INTO readings VALUES (?, ?, ?, 100.0, 1e6, 'ok')",
                [(cur.lastrowid, e, 1000.0 + 17 * rep + 3 * i + gid) for i, e in enumerate(g)],
            )
    con.commit()
    con.close()
    old = load_readings(path)
    assert old.n_runs.tolist() == [3] * 6
    res = collect(plan, None, path, runs=4, progress=False)  # continue it: upgraded, then extended
    assert res.complete and res.added_valid == 6 and res.resumed
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    new = load_readings(path)
    for g in old.group_ids:  # the old runs are kept as they were
        pd.testing.assert_frame_equal(new[g].loc[:2], old[g])


@pytest.fixture(scope="module")
def reference(small_db):
    with CollectionDB(small_db) as handle:
        return handle.tidy()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_changed_byte_is_refused_or_harmless(small_db, reference, tmp_path_factory, data):
    """Flip one byte anywhere: the readings come out identical, or an InputError names the file."""
    raw = bytearray(small_db.read_bytes())
    pos = data.draw(st.integers(0, len(raw) - 1), label="position")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != raw[pos]), label="byte")
    raw[pos] = new
    path = tmp_path_factory.mktemp("flip") / "c.db"
    path.write_bytes(bytes(raw))
    try:
        with CollectionDB(path) as handle:
            got = handle.tidy()
    except InputError as exc:
        assert str(path) in str(exc)
        return
    pd.testing.assert_frame_equal(got, reference)


def test_a_machine_row_without_a_number_is_a_damaged_database(small_db, tmp_path):
    """The byte hypothesis found (position 3863 set to 32 made a machine's id NULL): one InputError, not a TypeError."""
    import shutil
    import sqlite3

    path = tmp_path / "c.db"
    shutil.copy(small_db, path)
    with sqlite3.connect(path) as con:
        if not con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'machines'").fetchone()[0]:
            pytest.skip("this layout has no machines table")
        con.execute("PRAGMA writable_schema = 0")
        con.execute("CREATE TABLE m2 AS SELECT * FROM machines")
        con.execute("DELETE FROM machines")
        con.execute("INSERT INTO machines SELECT * FROM m2")
        con.execute("DROP TABLE m2")
    with sqlite3.connect(path) as con:
        schema = con.execute("SELECT sql FROM sqlite_master WHERE name = 'machines'").fetchone()[0]
    if "INTEGER PRIMARY KEY" in schema.upper():
        with sqlite3.connect(path) as con:  # an integer key cannot be NULL: rebuild the table without it
            cols = [r[1] for r in con.execute("PRAGMA table_info(machines)")]
            con.execute("ALTER TABLE machines RENAME TO old_machines")
            con.execute(f"CREATE TABLE machines ({', '.join(cols)})")
            con.execute(f"INSERT INTO machines SELECT {', '.join(cols)} FROM old_machines")
            con.execute("UPDATE machines SET id = NULL")
            con.execute("DROP TABLE old_machines")
    else:
        with sqlite3.connect(path) as con:
            con.execute("UPDATE machines SET id = NULL")
    with pytest.raises(InputError, match=r"damaged collection database|c\.db"):
        with CollectionDB(path) as handle:
            handle.tidy()


def test_export_refuses_its_input_and_bad_places(db, tmp_path):
    with pytest.raises(OutputError, match="is also an input"):
        export(db, db)
    with pytest.raises(OutputError, match="does not exist"):
        export(db, tmp_path / "missing" / "x.csv")
    assert not (tmp_path / "missing").exists()


# ------------------------------------------------------------------ read-only and full disks
def test_read_only_place(fake_perf, plan, tmpfs, cli, bad_input, tmp_path):
    mnt, set_readonly = tmpfs
    plan_file = plan.to_file(tmp_path / "plan.toml")
    db = mnt / "c.db"
    collect(plan, ["true"], db, runs=3, progress=False)
    set_readonly()
    before = _digest(db)
    # reading works on read-only media
    assert load_readings(db).n_runs.tolist() == [3] * 6
    res = cli(["collect", "--status", db])
    assert res.exit_code == 0 and "18 of 18 runs valid" in res.stdout
    # writing is refused at once, naming the place
    msg = bad_input(["collect", plan_file, "-o", db, "--runs", "4"], names=[str(db)], watch=[mnt])
    assert "read-only" in msg
    with pytest.raises(OutputError, match="read-only"):
        collect(plan, ["true"], mnt / "new.db", runs=1, progress=False)
    bad_input(["export", db, "-o", mnt / "x.csv"], names=[str(mnt / "x.csv")], watch=[mnt])
    assert _digest(db) == before
    set_readonly(False)


def test_full_disk(fake_perf, plan, tmpfs, tmp_path, cli):
    mnt, _ = tmpfs
    plan_file = plan.to_file(tmp_path / "plan.toml")
    db = mnt / "c.db"
    collect(plan, ["true"], db, runs=2, progress=False)
    filler = mnt / "filler"
    with open(filler, "wb", buffering=0) as fh:  # fill the disk up to the last byte
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass
    res = cli(["collect", plan_file, "-o", db, "--runs", "3", "--quiet"])
    assert res.exit_code == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "no space left on the device" in lines[0] and str(db) in lines[0]
    assert f"continue with: hemkit collect {plan_file} -o {db}" in lines[0]
    with CollectionDB(db) as handle:  # whole, with every run it says it has
        handle.verify()
        assert handle.status()["valid"].sum() >= 12
    filler.unlink()
    res = cli(["collect", plan_file, "-o", db, "--runs", "3", "--quiet"])
    assert res.exit_code == 0, res.stderr
    with CollectionDB(db) as handle:
        handle.verify()
        runs = handle.runs()
    valid = runs[runs["status"] == "valid"]
    assert not valid.duplicated(["gid", "rep"]).any() and len(valid) == 18


def test_full_disk_before_the_database_exists(fake_perf, plan, tmpfs, tmp_path, bad_input):
    mnt, _ = tmpfs
    plan_file = plan.to_file(tmp_path / "plan.toml")
    with open(mnt / "filler", "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass
    msg = bad_input(["collect", plan_file, "-o", mnt / "c.db", "--", "true"], names=[str(mnt / "c.db")], watch=[mnt])
    assert "no space left on the device" in msg or "cannot" in msg


def test_writer_lock_in_a_read_only_place_is_an_output_error(tmpfs):
    mnt, set_readonly = tmpfs
    set_readonly()
    with pytest.raises(OutputError, match="read-only file system"), WriterLock(mnt / "c.db"):
        pass
    set_readonly(False)


def test_half_made_database_of_a_killed_creator_is_removed(fake_perf, plan, tmp_path):
    stale = tmp_path / ".c.db.k1ll3d.tmp.db"
    stale.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    (tmp_path / ".c.db.k1ll3d.tmp.db-journal").write_bytes(b"\x00" * 10)
    (tmp_path / "c.db.lock").write_text("12345 host 0\n")  # its lock died with it
    res = collect(plan, ["true"], tmp_path / "c.db", runs=1, progress=False)
    assert res.complete
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.db", "perfbin"]
