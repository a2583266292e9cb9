"""collect --cluster: runs measured by the workers of a real Dask LocalCluster, stored here once each.

Few and small (2 workers, a few runs): a LocalCluster takes ~1.5 s to start.
"""

import os
import platform
import shlex
import signal
import threading
import time

import pytest

from hemkit.collect import CollectOptions, collect
from hemkit.core.errors import MeasurementError
from hemkit.core.progress import RecordingProgress
from hemkit.io.collection import CollectionDB, load_readings

from .conftest import count_valid

distributed = pytest.importorskip("distributed")


def _runs(db):
    with CollectionDB(db) as handle:
        handle.verify()
        return handle.runs()


def _complete_once(db, groups=6, runs=3):
    """Every (group, repetition) has exactly one valid run; the readings load as a whole collection."""
    stored = _runs(db)
    valid = stored[stored["status"] == "valid"]
    assert not valid.duplicated(["gid", "rep"]).any()
    assert sorted(map(tuple, valid[["gid", "rep"]].to_numpy().tolist())) == [
        (g, r) for g in range(groups) for r in range(runs)
    ]
    assert load_readings(db).n_runs.tolist() == [runs] * groups
    return stored


@pytest.fixture
def local_cluster(fake_perf):
    """A LocalCluster of 2 single-threaded worker processes (started after the fake perf is in the environment)."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    ) as cluster:
        yield cluster


@pytest.mark.parametrize("perf", ["fake", "real"])
def test_local_2_every_run_valid_stored_once_naming_its_workers_host(perf, plan, tmp_path, request, monkeypatch):
    if perf == "fake":
        request.getfixturevalue("fake_perf")
        monkeypatch.setenv("FAKE_PERF_SLEEP", "0.1")  # both workers get runs
        monkeypatch.setenv("FAKE_PERF_FLAKY", str(tmp_path / "flaky"))  # every 3rd run multiplexed: re-queued
    else:
        request.getfixturevalue("software_perf")
    db = tmp_path / "c.db"
    rec = RecordingProgress()
    res = collect(plan, ["true"], db, runs=3, options=CollectOptions(cluster="local:2", timeout=60), progress=rec)
    assert res.complete and res.added_valid == 18, res.line()
    stored = _complete_once(db)
    invalid = stored[stored["status"] == "invalid"]
    assert len(invalid) == res.added_invalid and (len(invalid) > 0) == (perf == "fake")
    assert invalid["reason"].str.contains("multiplexed").all()
    with CollectionDB(db) as handle:
        machines = handle.tidy_and_machines()[1]  # the machine stored with each valid run: the worker's
    assert len(machines) == 18 and set(machines["host"]) == {platform.node()}
    assert machines["kernel"].eq(platform.release()).all() and machines["perf_version"].str.contains("perf").all()
    assert len(res.per_worker) == 2 and sum(res.per_worker.values()) == 18
    assert rec.events[-1][1:3] == (18, 18) and "runs per worker: " in rec.events[-1][3]
    # the round-robin order is kept (runs are sent in it; a slow one may return a little late)
    position = (
        stored.sort_values("id").reset_index(drop=True).groupby("rep").apply(lambda r: r.index.to_series().median())
    )
    assert position.is_monotonic_increasing and position.is_unique, position


def test_invalid_runs_in_a_row_stop_as_locally(local_cluster, plan, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_PERF_MPX", "always")
    db = tmp_path / "c.db"
    options = CollectOptions(cluster=local_cluster.scheduler_address, max_attempts=2)
    with pytest.raises(MeasurementError, match=r"group \d \(.*\): 2 invalid runs in a row, last: .*multiplexed"):
        collect(plan, ["true"], db, runs=1, options=options)
    assert not db.exists()  # made by this call and holding no valid run


def test_a_worker_killed_mid_collection_loses_and_duplicates_nothing(
    local_cluster, plan, tmp_path, monkeypatch, valid_runs
):
    monkeypatch.setenv("FAKE_PERF_SLEEP", "0.4")  # every moment is mid-run on both workers
    monkeypatch.setenv("HEMKIT_TEST_VAR", "sent")  # set after the workers started: the caller's environment goes
    db = tmp_path / "c.db"
    seen = tmp_path / "seen.txt"
    command = ["sh", "-c", f'echo "$HEMKIT_TEST_VAR $(pwd)" >> {shlex.quote(str(seen))}']
    monkeypatch.chdir(tmp_path)
    with distributed.Client(local_cluster) as client:
        pids = client.run(os.getpid)
    outcome = {}

    def run():
        try:
            outcome["res"] = collect(
                plan, command, db, runs=3, options=CollectOptions(cluster=local_cluster.scheduler_address)
            )
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome["exc"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    t0 = time.time()
    while valid_runs(db) < 3:  # read while the collector writes (no checksum pass)
        assert thread.is_alive() and time.time() - t0 < 120, outcome
        time.sleep(0.05)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    thread.join(timeout=180)
    assert not thread.is_alive() and "exc" not in outcome, outcome
    assert outcome["res"].complete
    stored = _complete_once(db)
    assert len(stored) == 18  # nothing invalid, nothing stored twice
    with distributed.Client(local_cluster) as client:
        assert victim not in client.run(os.getpid).values()  # it is really gone (the nanny started another)
    lines = seen.read_text().splitlines()
    assert len(lines) >= 18 and set(lines) == {f"sent {tmp_path}"}


def test_ctrl_c_cancels_the_runs_in_flight_and_the_same_command_continues(
    fake_perf, plan_file, tmp_path, spawn_cli, wait_for_runs
):
    db = tmp_path / "plan.db"
    env = dict(os.environ, FAKE_PERF_SLEEP="0.3")
    args = ["collect", plan_file, "--runs", "3", "--cluster", "local:2", "--quiet", "--", "true"]
    proc = spawn_cli(args, env)
    wait_for_runs(db, 3, proc, limit=120)
    os.killpg(proc.pid, signal.SIGINT)  # the client and its local workers, as a terminal does
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    line = [x for x in err.splitlines() if x.startswith("hemkit: ")]
    assert len(line) == 1 and line[0].startswith("hemkit: interrupted: ") and "Traceback" not in err, err
    hint = line[0].split("continue with: ")[1]
    assert hint == f"hemkit collect {shlex.quote(str(plan_file))} --cluster local:2"
    stored = _runs(db)
    assert (stored["status"] == "valid").all() and 3 <= len(stored) < 18
    proc = spawn_cli([*shlex.split(hint)[1:], "--quiet"], env)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert out.splitlines()[0] == f"continued {db}: true (in {os.getcwd()})"
    _complete_once(db)


def test_ctrl_c_pressed_again_as_the_local_workers_close_stops_at_once_saying_what_was_stored(
    fake_perf, plan_file, tmp_path, spawn_cli, wait_for_runs
):
    """The first Ctrl-C stops the collection, which then closes its local cluster (about half a second); the
    second, which the terminal invites, cut that close short: Dask's exit hook then waited ~10 s for the
    half-closed workers, and the message lost the count of runs stored.  Now the close is not cut short."""
    psutil = pytest.importorskip("psutil")  # a dependency of distributed
    db = tmp_path / "plan.db"
    args = ["collect", plan_file, "--runs", "3", "--cluster", "local:2", "--quiet", "--", "true"]
    proc = spawn_cli(args, dict(os.environ, FAKE_PERF_SLEEP="0.3"))
    wait_for_runs(db, 3, proc, limit=120)
    tree = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does
    t0 = time.monotonic()
    for _ in range(8):  # and again, and again, while the cluster closes
        time.sleep(0.15)
        if proc.poll() is not None:
            break
        os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    took = time.monotonic() - t0
    assert proc.returncode in (130, -signal.SIGINT), err
    assert "Traceback" not in err, err
    line = [x for x in err.splitlines() if x.startswith("hemkit: ")]
    assert len(line) == 1 and " of 18 runs are stored in " in line[0], err
    assert took < 6, f"stopped {took:.1f} s after the first Ctrl-C"
    _, alive = psutil.wait_procs(tree, timeout=30)
    assert not alive, [p.cmdline() for p in alive if p.is_running()]


def test_ctrl_c_while_the_local_workers_start_prints_no_traceback(fake_perf, plan_file, tmp_path, spawn_cli):
    """A Ctrl-C as the workers started reached each of them while it imported Dask: a traceback from every one
    (and from Dask's exit hook, which could not close the half-made cluster).  Now the workers are born ignoring
    it; this process ignores that one too, so the collection goes on, and a Ctrl-C after it stops it as ever."""
    db = tmp_path / "plan.db"
    proc = _collect_on_local_workers_until(spawn_cli, plan_file, _starting_worker)
    os.killpg(proc.pid, signal.SIGINT)  # the client and its starting workers, as a terminal does
    out, err = proc.communicate(timeout=180)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert all(line.startswith("hemkit: ") for line in err.splitlines()), err
    assert proc.returncode in (0, 130), err
    if proc.returncode == 0:
        _complete_once(db)


def test_sigterm_while_the_local_workers_start_ends_in_one_line(fake_perf, plan_file, tmp_path, spawn_cli):
    """A SIGTERM inside the local cluster's start left it half made: Dask's exit hook failed to close it (a traceback,
    'AssertionError: Status.init', 'Nanny failed to start') and the resource tracker warned of a leaked semaphore.
    Now the signal waits for the start (a second or two), and ends the command as ever: one line, exit 130."""
    proc = _collect_on_local_workers_until(spawn_cli, plan_file, _spawned)
    time.sleep(0.2)  # inside the start: the workers' nannies are being made
    os.kill(proc.pid, signal.SIGTERM)  # this process alone, as a job manager or kill does
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err
    assert err.splitlines() == ["hemkit: interrupted: nothing was stored; run the same command again to start"], err
    assert not (tmp_path / "plan.db").exists()


def _collect_on_local_workers_until(spawn_cli, plan_file, started):
    """``collect --cluster local:2`` in a subprocess, returned once one of its processes is ``started``."""
    psutil = pytest.importorskip("psutil")  # a dependency of distributed
    args = ["collect", plan_file, "--runs", "3", "--cluster", "local:2", "--quiet", "--", "true"]
    proc = spawn_cli(args, dict(os.environ, FAKE_PERF_SLEEP="0.3"))
    parent, deadline = psutil.Process(proc.pid), time.monotonic() + 120
    while not any(started(p) for p in parent.children(recursive=True)):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.002)
    return proc


def _spawned(process):
    """A process started by multiprocessing (a worker, or the resource tracker): the cluster is being made."""
    import psutil

    try:
        return any(w in " ".join(process.cmdline()) for w in ("spawn_main", "resource_tracker"))
    except psutil.Error:
        return False


def _starting_worker(process):
    """A worker process whose Python has set what SIGINT does (caught, as by default, or ignored): it imports Dask."""
    import psutil

    try:
        if "spawn_main" not in " ".join(process.cmdline()):
            return False
        with open(f"/proc/{process.pid}/status") as f:
            masks = dict(line.split(":\t") for line in f if line.startswith(("SigCgt", "SigIgn")))
    except (OSError, psutil.Error):  # gone, or a zombie
        return False
    return any(int(m, 16) & (1 << (signal.SIGINT - 1)) for m in masks.values())


def test_sigkill_of_the_client_leaves_no_process_and_the_same_command_continues(
    fake_perf, plan_file, tmp_path, spawn_cli, wait_for_runs
):
    psutil = pytest.importorskip("psutil")  # a dependency of distributed
    db = tmp_path / "plan.db"
    env = dict(os.environ, FAKE_PERF_SLEEP="0.3")
    args = ["collect", plan_file, "--runs", "3", "--cluster", "local:2", "--quiet", "--", "true"]
    proc = spawn_cli(args, env)
    wait_for_runs(db, 3, proc, limit=120)
    tree = psutil.Process(proc.pid).children(recursive=True)  # the local workers, their perf and programs
    assert len(tree) >= 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    _, alive = psutil.wait_procs(tree, timeout=30)
    assert not alive, [p.cmdline() for p in alive if p.is_running()]
    proc = spawn_cli(args, env)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    _complete_once(db)


@pytest.mark.parametrize(
    ("extra", "names"),
    [
        (["--cluster", "nonsense"], ["--cluster 'nonsense'", "local:N"]),
        (["--cluster", "tcp://127.0.0.1:1"], ["tcp://127.0.0.1:1", "no Dask scheduler answered"]),
        (["--cluster", "lcal:2"], ["--cluster 'lcal:2'", "no host named 'lcal'", "local:N"]),  # a typo: at once
        (["--cluster", "local:2", "--corunner", "sleep 100"], ["co-runner", "cannot be used with --cluster"]),
        (["--cluster", "local:2", "--pin", "0"], ["--pin 0 with 2 local workers", "one CPU", "--cluster local:1"]),
    ],
)
def test_bad_cluster_one_error_line_no_file(fake_perf, plan_file, tmp_path, bad_input, monkeypatch, extra, names):
    monkeypatch.setattr("hemkit.external.cluster.CONNECT_TIMEOUT", 2.0)
    bad_input(["collect", plan_file, "--runs", "2", *extra, "--", "true"], names=names, watch=[tmp_path])


def test_the_database_is_the_last_guard_against_a_run_stored_twice(tmp_path):
    import pandas as pd

    from hemkit.core.errors import HemkitError
    from hemkit.io.collection import StoredRun, WriterLock

    path = tmp_path / "c.db"
    counts = pd.DataFrame({"event": ["a"], "value": [1.0], "percent": [100.0], "run_time_ns": [1e6], "status": ["ok"]})
    with WriterLock(path) as lock, CollectionDB.create(path, [["a"]], {"runs": 1}, lock=lock) as db:
        db.record_run(StoredRun(0, 0), counts)
        db.record_run(StoredRun(0, 0, "invalid", "multiplexed"), counts)  # invalid attempts may repeat
        with pytest.raises(HemkitError, match="UNIQUE"):
            db.record_run(StoredRun(0, 0), counts)
    stored = _runs(path)
    assert stored["status"].tolist() == ["valid", "invalid"]


def test_workers_of_several_threads_are_refused_before_any_file(fake_perf, plan, tmp_path):
    from hemkit.core.errors import SetupError

    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None, silence_logs=50
    ) as cluster:
        with pytest.raises(SetupError, match=r"has 2 threads, so it would measure several runs at once.*--nthreads 1"):
            collect(
                plan, ["true"], tmp_path / "c.db", runs=1, options=CollectOptions(cluster=cluster.scheduler_address)
            )
    assert not list(tmp_path.glob("c.db*"))  # neither the database nor its lock


def test_a_worker_of_another_hemkit_is_refused(local_cluster, plan, tmp_path, monkeypatch):
    from hemkit.core.errors import SetupError

    monkeypatch.setattr("hemkit.__version__", "0.0.other")  # this process only: the workers import the real one
    options = CollectOptions(cluster=local_cluster.scheduler_address)
    with pytest.raises(SetupError, match=r"worker .* runs hemkit .*, this process hemkit 0\.0\.other"):
        collect(plan, ["true"], tmp_path / "c.db", runs=1, options=options)
    assert not list(tmp_path.glob("c.db*"))


def test_a_scheduler_lost_mid_collection_is_one_error_naming_the_cluster_and_the_runs_stay(
    fake_perf, plan, tmp_path, monkeypatch
):
    """A remote scheduler killed while runs were in flight surfaced as Dask's own 'RuntimeError: ConnectionPool is
    closed' (or 'OSError: Timed out trying to connect'): an internal error, exit 1, after Dask's ERROR log line.
    It is a failed measurement: a MeasurementError naming the cluster; the runs stored stay, and continue."""
    import socket
    import subprocess
    import sys

    monkeypatch.setattr("hemkit.external.cluster.CONNECT_TIMEOUT", 3.0)  # how long the client tries to reconnect
    monkeypatch.setenv("FAKE_PERF_SLEEP", "0.3")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "dask"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        [*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **quiet
    )
    worker = subprocess.Popen([*dask, "worker", address, "--nthreads", "1", "--no-dashboard"], **quiet)
    db = tmp_path / "c.db"
    try:

        def kill_the_scheduler_after_3_runs():
            deadline = time.monotonic() + 120
            while count_valid(db) < 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            scheduler.kill()

        killer = threading.Thread(target=kill_the_scheduler_after_3_runs)
        killer.start()
        with pytest.raises(MeasurementError, match=rf"cluster '{address}': the Dask scheduler stopped answering"):
            collect(plan, ["true"], db, runs=3, options=CollectOptions(cluster=address), progress=False)
        killer.join()
        assert 3 <= count_valid(db) < 18  # what was stored stays, for the same command to continue
    finally:
        for p in (worker, scheduler):
            p.kill()
            p.wait(timeout=60)


# ------------------------------------------------------------------ refused before any worker
@pytest.fixture
def clusters_started(monkeypatch):
    """The clusters ``collect`` starts or reaches, in order: each is recorded, then started as ever (real Dask)."""
    import contextlib

    from hemkit.external.cluster import dask_client

    started = []

    @contextlib.contextmanager
    def recorded(cluster):
        started.append(str(cluster))
        with dask_client(cluster) as client:
            yield client

    monkeypatch.setattr("hemkit.collect.collector.dask_client", recorded)
    return started


def test_what_needs_no_worker_is_refused_before_the_cluster_starts(
    fake_perf, plan, plan_file, tmp_path, monkeypatch, bad_input, clusters_started
):
    """collect --cluster local:2 started its Dask workers (seconds) before it refused a database made with a
    co-runner, one made in another folder, one of another command, a damaged one or one in use, and a pin with
    several local workers: every such refusal came only after the cluster was up.  Now none starts a cluster."""
    from hemkit.io.collection import WriterLock

    from .test_folder import READ, _folders

    a, b = _folders(tmp_path)
    monkeypatch.chdir(a)
    made_with_corunner, here, damaged = tmp_path / "co.db", tmp_path / "here.db", tmp_path / "damaged.db"
    collect(plan, READ, made_with_corunner, runs=1, options=CollectOptions(corunner="sleep 100"))
    collect(plan, READ, here, runs=1)
    collect(plan, READ, damaged, runs=1)
    con = __import__("sqlite3").connect(damaged)
    con.execute("UPDATE readings SET value = value + 1 WHERE rowid = 1")  # a reading changed outside hemkit
    con.commit()
    con.close()
    on_cluster = ["--runs", "2", "--cluster", "local:2"]
    cases = [
        (a, [plan_file, "-o", made_with_corunner, *on_cluster], ["co.db", "co-runner", "--cluster"]),
        (b, [plan_file, "-o", here, *on_cluster], ["here.db", f"folder {a}", "--allow-other-folder"]),
        (a, [plan_file, "-o", here, *on_cluster, "--", "false"], ["here.db", "was collected with command"]),
        (a, [plan_file, "-o", damaged, *on_cluster], ["damaged.db"]),
        (a, [plan_file, "-o", tmp_path / "new.db", *on_cluster, "--pin", "0", "--", "true"], ["--pin 0", "local:1"]),
    ]
    watch = [tmp_path / "a", tmp_path / "b", *tmp_path.glob("*.db")]
    for cwd, args, names in cases:
        bad_input(["collect", *args], names=names, watch=watch, cwd=cwd)
        assert clusters_started == [], (args, clusters_started)
    with WriterLock(here):  # another collector writes it
        bad_input(["collect", plan_file, "-o", here, *on_cluster], names=["here.db", "in use by pid"], cwd=a)
    assert clusters_started == []
    res = collect(None, None, here, runs=2, options=CollectOptions(cluster="local:2", timeout=60))  # and a good one
    assert clusters_started == ["local:2"] and res.complete
