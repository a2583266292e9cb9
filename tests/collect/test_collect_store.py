"""Collection with a fake perf: round-robin order, invalid runs re-run, stop rules, resume policy, results."""

import os
import re

import pandas as pd
import pytest

from hemkit import InputError, MeasurementError
from hemkit.collect import CollectOptions, CollectResult, collect, export, status
from hemkit.core.progress import RecordingProgress
from hemkit.io.collection import CollectionDB, WriterLock, load_readings
from hemkit.plan import make_plan

EVENTS = ["task-clock", "page-faults", "context-switches", "minor-faults"]


def test_collect_round_robin_and_metadata(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    res = collect(plan, ["true"], db, runs=4, progress=False)
    assert res.complete and res.added_valid == 24 and res.added_invalid == 0 and not res.resumed
    with CollectionDB(db) as handle:
        runs, meta = handle.runs(), handle.meta()
    assert runs["gid"].tolist() == list(range(6)) * 4  # interleaved, not group after group
    assert runs["rep"].tolist() == [r for r in range(4) for _ in range(6)]
    assert meta["perf_version"] == "perf version 0.fake"
    assert meta["command"] == ["true"] and meta["plan"]["groups"] == plan.groups
    assert {"uname", "cpu_model", "cpus"} <= set(meta["machine"])
    r = load_readings(db)
    assert len(r) == 6 and set(r.events) == set(EVENTS) and r.n_runs.tolist() == [4] * 6
    assert r.missing_pairs() == []


def test_result_object(fake_perf, plan, tmp_path):
    res = collect(plan, ["true"], tmp_path / "c.db", runs=3, progress=False)
    assert isinstance(res, CollectResult)
    s = res.summary()
    assert isinstance(s, pd.DataFrame) and s.index.name == "group" and s["valid"].tolist() == [3] * 6
    assert res.line() == f"{tmp_path / 'c.db'}: 18 of 18 runs valid (18 added now); complete"
    assert repr(res).startswith("CollectResult\n") and "last_invalid_reason" in repr(res)
    assert res.settings == {"pin": None, "corunner": None, "format": "csv", "folder": os.getcwd()}
    assert res.command == ("true",)


def test_progress_reports_every_run(fake_perf, plan, tmp_path):
    rec = RecordingProgress()
    collect(plan, ["true"], tmp_path / "c.db", runs=2, progress=rec)
    assert [e[1] for e in rec.events] == list(range(1, 13))
    assert rec.events[-1][:3] == ("collect", 12, 12) and rec.events[0][3] == "group 0, run 0"


def test_json_format_and_export(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    collect(plan, ["true"], db, runs=3, options=CollectOptions(fmt="json"), progress=False)
    for name in ("t.csv", "t.parquet"):
        res = export(db, tmp_path / name)
        t = pd.read_csv(res.path) if name.endswith("csv") else pd.read_parquet(res.path)
        assert list(t.columns) == ["group", "run", "event", "value"] and len(t) == 6 * 3 * 2 == res.rows
        assert res.line().endswith(f"wrote {tmp_path / name} (36 rows)")


def test_invalid_runs_kept_with_reason_and_rerun(fake_perf, plan, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_FLAKY", str(tmp_path / "n"))
    db = tmp_path / "c.db"
    res = collect(plan, ["true"], db, runs=3, progress=False)
    with CollectionDB(db) as handle:
        runs = handle.runs()
    bad = runs[runs["status"] == "invalid"]
    assert len(bad) == res.added_invalid > 0
    assert bad["reason"].str.contains("multiplexed").all()
    assert (runs["status"] == "valid").sum() == 18
    assert sum(res.invalid_reasons.values()) == res.added_invalid
    assert f"{res.added_invalid} invalid and re-run: " in res.line()
    assert load_readings(db).n_runs.tolist() == [3] * 6  # invalid runs never reach the readings


def test_always_multiplexed_stops(fake_perf, plan, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_MPX", "always")
    with pytest.raises(MeasurementError, match=r"group 0 .*3 invalid runs in a row, last: .*multiplexed"):
        collect(plan, ["true"], tmp_path / "c.db", runs=2, options=CollectOptions(max_attempts=3), progress=False)


def test_unsupported_event_stops_cli_exit_2(fake_perf, plan_file, monkeypatch, cli):
    monkeypatch.setenv("FAKE_PERF_UNSUPPORTED", "minor-faults")
    res = cli(["collect", plan_file, "--runs", "2", "--quiet", "--", "true"])
    assert res.exit_code == 2
    assert "event 'minor-faults' is <not supported>" in res.stderr


def test_empty_database_has_clear_error(tmp_path):
    db = tmp_path / "e.db"
    with WriterLock(db) as lock:
        CollectionDB.create(db, [["a", "b"]], {"runs": 3}, lock=lock).close()
    with pytest.raises(InputError, match="no valid runs yet"):
        load_readings(db)


def test_other_plan_command_pin_or_corunner_refused(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    collect(plan, ["true"], db, runs=1, progress=False)
    before = db.read_bytes()
    with pytest.raises(InputError, match="different plan"):
        collect(make_plan(EVENTS, 3), ["true"], db, runs=1, progress=False)
    with pytest.raises(InputError, match="collected with command 'true'"):
        collect(plan, ["false"], db, runs=1, progress=False)
    with pytest.raises(InputError, match="pin 0 would mix two kinds of runs: it was collected unpinned"):
        collect(plan, ["true"], db, runs=2, options=CollectOptions(pin=0), progress=False)
    with pytest.raises(InputError, match="collected without a co-runner, so runs with co-runner 'sleep 100' would mix"):
        collect(plan, ["true"], db, runs=2, options=CollectOptions(corunner="sleep 100"), progress=False)
    assert db.read_bytes() == before  # refused before anything was written


def test_another_format_is_refused_when_continuing(fake_perf, plan, tmp_path):
    """fmt='json' continuing a CSV collection measured the new runs in JSON, the database still saying csv."""
    db = tmp_path / "c.db"
    collect(plan, ["true"], db, runs=1, progress=False)
    before = db.read_bytes()
    with pytest.raises(InputError, match=r"collected with perf's csv output, not json.*; pass fmt='csv'"):
        collect(None, None, db, runs=2, options=CollectOptions(fmt="json"), progress=False)
    assert db.read_bytes() == before
    assert collect(None, None, db, runs=2, options=CollectOptions(fmt="csv"), progress=False).complete


def test_resume_policy_uses_the_stored_plan_command_and_settings(fake_perf, plan, tmp_path):
    db = tmp_path / "c.db"
    collect(plan, ["true"], db, runs=2, options=CollectOptions(fmt="json"), progress=False)
    res = collect(None, None, db, runs=3, progress=False)  # nothing given: everything stored applies
    assert res.resumed and res.command == ("true",) and res.settings["format"] == "json"
    assert res.added_valid == 6 and res.complete
    res = collect(None, None, db, progress=False)  # runs=None: the stored target (3), nothing to do
    assert res.added_valid == 0 and res.target == 3
    res = collect(plan, ["true"], db, runs=1, progress=False)  # the target never shrinks
    assert res.target == 3 and res.complete
    with pytest.raises(InputError, match="no plan given and no collection to continue"):
        collect(None, None, tmp_path / "new.db", progress=False)
    with pytest.raises(InputError, match="no command to measure"):
        collect(plan, None, tmp_path / "new.db", progress=False)
    assert not (tmp_path / "new.db").exists() and not (tmp_path / "new.db.lock").exists()


def test_more_runs_extend_and_status(fake_perf, plan, tmp_path, cli):
    db = tmp_path / "c.db"
    collect(plan, ["true"], db, runs=2, progress=False)
    res = collect(plan, ["true"], db, runs=3, progress=False)
    assert res.added_valid == 6
    s = status(db)
    assert s["valid"].tolist() == [3] * 6 and s["target"].tolist() == [3] * 6
    out = cli(["collect", "--status", db])
    assert out.exit_code == 0 and f"{db}: 18 of 18 runs valid (100%), 0 invalid" in out.stdout


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pin": 9999}, "pin must be one of the CPUs hemkit may use"),
        ({"pin": -1}, "pin must be one of the CPUs"),
        ({"max_attempts": 0}, "max_attempts must be an integer of at least 1, got 0"),
        ({"timeout": 0}, "timeout (seconds) must be a positive number, got 0.0"),
        ({"timeout": float("nan")}, "timeout (seconds) must be a positive number"),
        ({"timeout": "5"}, "timeout (seconds) must be a positive number"),
        ({"fmt": "xml"}, "fmt must be 'csv' or 'json'"),
        ({"corunner": ""}, "corunner is empty"),
        ({"corunner": 'a "b'}, "corunner 'a \"b'"),
    ],
)
def test_options_out_of_range(kwargs, message):
    with pytest.raises(InputError, match=re.escape(message)):
        CollectOptions(**kwargs)


@pytest.mark.parametrize("runs", [0, -3, True, 2.5])
def test_runs_out_of_range(fake_perf, plan, tmp_path, runs):
    with pytest.raises(InputError, match="runs must be an integer of at least 1"):
        collect(plan, ["true"], tmp_path / "c.db", runs=runs, progress=False)
    assert not (tmp_path / "c.db").exists() and not (tmp_path / "c.db.lock").exists()
