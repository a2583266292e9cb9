"""The folder a collection's command runs in is part of the collection: stored when it is made, checked when it
is continued (here, as a shard, on a cluster), shown by --status, and not compared when databases are read together.

Found by a new-user walk: ``collect plan.toml -- sort data.txt`` in /a, continued from /b, quietly measured /b's
data.txt (or none) and stored those runs with the first ones as one experiment.
"""

import json
import os
import sqlite3
from pathlib import Path

import pytest

from hemkit.collect import CollectOptions, collect
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io.collection import CollectionDB, _definition_digest, load_collections

# reads data.txt of the folder it runs in, and says where that was: a wrong folder fails or is seen
READ = ["sh", "-c", "cat data.txt > /dev/null && pwd -P >> where.txt"]


def _folders(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        (d / "data.txt").write_text(f"the data of {d.name}\n")
    return a, b


def _where(folder):
    path = Path(folder) / "where.txt"
    return set(path.read_text().split()) if path.exists() else set()


def _edit_meta(db, sql):
    """Change ``db``'s metadata by ``sql`` and keep its checksum right (as hemkit would have written it)."""
    con = sqlite3.connect(db)
    con.execute(sql)
    meta = dict(con.execute("SELECT key, value FROM meta"))
    groups = list(con.execute("SELECT gid, events FROM groups"))
    con.execute("UPDATE meta SET value = ? WHERE key = 'digest'", (json.dumps(_definition_digest(meta, groups)),))
    con.commit()
    con.close()


def _forget_folder(db):
    """Make ``db`` as hemkit made it before it stored the folder: no ``folder`` key, the checksum still right."""
    _edit_meta(db, "DELETE FROM meta WHERE key = 'folder'")


def _start(plan, db, folder, monkeypatch, runs=2, **options):
    monkeypatch.chdir(folder)
    return collect(plan, READ, db, runs=runs, options=CollectOptions(**options))


# ------------------------------------------------------------------ the library
def test_a_new_collection_stores_its_folder(fake_perf, plan, tmp_path, monkeypatch):
    a, _ = _folders(tmp_path)
    res = _start(plan, tmp_path / "c.db", a, monkeypatch)
    with CollectionDB(tmp_path / "c.db") as db:
        assert db.folder() == os.path.realpath(a) == db.meta()["folder"]
    assert res.settings["folder"] == os.path.realpath(a)
    assert _where(a) == {os.path.realpath(a)}


def test_continued_from_another_folder_is_refused_naming_both_and_the_fix(fake_perf, plan, tmp_path, monkeypatch):
    a, b = _folders(tmp_path)
    db = tmp_path / "c.db"
    _start(plan, db, a, monkeypatch)
    before = db.read_bytes()
    monkeypatch.chdir(b)
    for command in (None, READ):  # the stored command, or the same command given again
        with pytest.raises(InputError) as err:
            collect(None, command, db, runs=4)
        msg = str(err.value)
        assert str(db) in msg and str(a) in msg and str(b) in msg, msg
        assert f"run hemkit from {a}" in msg and msg.endswith("; pass allow_other_folder=True"), msg
        assert "\n" not in msg
    assert db.read_bytes() == before and not _where(b)


def test_a_symlink_to_the_same_folder_is_the_same_folder(fake_perf, plan, tmp_path, monkeypatch):
    a, _ = _folders(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(a)
    db = tmp_path / "c.db"
    _start(plan, db, link, monkeypatch)  # made through the symlink ...
    monkeypatch.chdir(a)  # ... continued in the folder itself, then through the link again
    assert collect(None, None, db, runs=3).complete
    monkeypatch.chdir(link)
    assert collect(None, None, db, runs=4).complete
    assert _where(a) == {os.path.realpath(a)}


def test_allow_other_folder_runs_here_with_a_warning_and_keeps_the_stored_folder(
    fake_perf, plan, tmp_path, monkeypatch
):
    a, b = _folders(tmp_path)
    db = tmp_path / "c.db"
    _start(plan, db, a, monkeypatch)
    monkeypatch.chdir(b)
    with pytest.warns(HemkitWarning, match=f"continued in folder {b}, not in {a}") as said:
        res = collect(None, None, db, runs=3, options=CollectOptions(allow_other_folder=True))
    assert len(said) == 1 and res.complete and res.settings["folder"] == os.path.realpath(b)
    assert _where(b) == {os.path.realpath(b)}
    with CollectionDB(db) as handle:
        assert handle.folder() == os.path.realpath(a)  # what the collection was made with stays


def test_a_database_made_before_the_folder_was_stored_continues_with_one_warning(
    fake_perf, plan, tmp_path, monkeypatch
):
    a, b = _folders(tmp_path)
    db = tmp_path / "c.db"
    _start(plan, db, a, monkeypatch)
    _forget_folder(db)
    monkeypatch.chdir(b)
    with pytest.warns(HemkitWarning, match="cannot be checked") as said:
        res = collect(None, None, db, runs=3)
    assert len(said) == 1 and str(b) in str(said[0].message) and "\n" not in str(said[0].message)
    assert res.complete
    with CollectionDB(db) as handle:
        assert handle.folder() is None  # not adopted: where the first runs ran is unknown


def test_a_damaged_folder_is_refused(fake_perf, plan, tmp_path, monkeypatch):
    a, _ = _folders(tmp_path)
    db = tmp_path / "c.db"
    _start(plan, db, a, monkeypatch)
    _edit_meta(db, "UPDATE meta SET value = '5' WHERE key = 'folder'")
    with pytest.raises(InputError, match="damaged collection database \\(its folder 5\\)"):
        collect(None, None, db, runs=3)


def test_a_shard_continued_from_another_folder_is_refused(fake_perf, plan, tmp_path, monkeypatch):
    a, b = _folders(tmp_path)
    db = tmp_path / "part_1.db"
    _start(plan, db, a, monkeypatch, runs=4, shard="1/2")
    monkeypatch.chdir(b)
    with pytest.raises(InputError, match=f"collected in folder {a}, not in this folder {b}"):
        collect(None, None, db, runs=6, options=CollectOptions(shard="1/2"))


def test_shards_collected_in_different_folders_read_together(fake_perf, plan, tmp_path, monkeypatch, recwarn):
    """Shards on different machines have different paths: their folders are not compared when read together."""
    a, b = _folders(tmp_path)
    _start(plan, tmp_path / "part_1.db", a, monkeypatch, runs=4, shard="1/2")
    _start(plan, tmp_path / "part_2.db", b, monkeypatch, runs=4, shard="2/2")
    readings = load_collections([tmp_path / "part_1.db", tmp_path / "part_2.db"])
    assert readings.n_runs.tolist() == [4] * len(plan.groups)
    assert not [w for w in recwarn if "folder" in str(w.message)]


# ------------------------------------------------------------------ the command line
def test_cli_continue_from_another_folder_one_error_line_database_unchanged(
    fake_perf, plan_file, tmp_path, cli, bad_input
):
    a, b = _folders(tmp_path)
    db = tmp_path / "plan.db"
    res = cli(["collect", plan_file, "--runs", "2", "-q", "--", *READ], cwd=a)
    assert res.exit_code == 0, res.stderr
    bad_input(
        ["collect", plan_file, "-o", db, "-q"],
        names=[str(db), f"collected in folder {a}", f"this folder {b}", f"run hemkit from {a}", "--allow-other-folder"],
        watch=[tmp_path],
        cwd=b,
    )


def test_cli_allow_other_folder_and_status_shows_the_stored_folder(fake_perf, plan_file, tmp_path, cli):
    a, b = _folders(tmp_path)
    db = tmp_path / "plan.db"
    assert cli(["collect", plan_file, "--runs", "2", "-q", "--", *READ], cwd=a).exit_code == 0
    res = cli(["collect", plan_file, "-o", db, "--runs", "3", "-q", "--allow-other-folder"], cwd=b)
    assert res.exit_code == 0, res.stderr
    warned = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(warned) == 1 and warned[0].startswith("hemkit: warning: ") and str(b) in warned[0], res.stderr
    assert f"(in {os.path.realpath(b)})" in res.stdout
    status = cli(["collect", "--status", db], cwd=b)
    assert status.exit_code == 0 and f"(in {os.path.realpath(a)})" in status.stdout, status.stdout
    _forget_folder(db)
    status = cli(["collect", "--status", db])
    assert status.exit_code == 0 and "its folder not stored" in status.stdout, status.stdout


def test_cli_reads_databases_of_different_folders_as_one(fake_perf, plan_file, tmp_path, cli):
    a, b = _folders(tmp_path)
    for k, folder in ((1, a), (2, b)):
        args = ["collect", plan_file, "--runs", "4", "--shard", f"{k}/2", "-o", tmp_path / f"part_{k}.db", "-q"]
        assert cli([*args, "--", *READ], cwd=folder).exit_code == 0
    res = cli(["export", tmp_path / "part_1.db", tmp_path / "part_2.db", "-o", tmp_path / "r.csv", "-q"])
    assert res.exit_code == 0 and "folder" not in res.stderr, res.stderr


# ------------------------------------------------------------------ a real Dask LocalCluster
def test_on_a_cluster_the_workers_run_in_the_stored_folder_and_another_is_refused(
    fake_perf, plan, tmp_path, monkeypatch
):
    pytest.importorskip("distributed")
    a, b = _folders(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(a)
    db = tmp_path / "c.db"
    on_cluster = CollectOptions(cluster="local:2", timeout=60)
    _start(plan, db, a, monkeypatch, runs=1)  # made here ...
    monkeypatch.chdir(b)
    before = db.read_bytes()
    with pytest.raises(InputError, match=f"collected in folder {a}, not in this folder {b}"):
        collect(None, None, db, runs=2, options=on_cluster)  # ... not continued on a cluster from elsewhere
    assert db.read_bytes() == before and not _where(b)
    monkeypatch.chdir(link)
    res = collect(None, None, db, runs=2, options=on_cluster)  # through a symlink: the same folder
    assert res.complete and sum(res.per_worker.values()) == len(plan.groups)
    assert _where(a) == {os.path.realpath(a)} and not _where(b)  # the workers ran the command in a
