"""Reliability of ``hemkit collect`` (issue 11): kills, signals, two collectors, damaged files.

Everything runs the ``hemkit`` command as a user would, with the real perf on software events
(this VM has no PMU) and the bundled microbenchmark:

    .venv/bin/python benchmarks/collect_reliability.py --kills 20 --data /tmp/hemkit-collect-reliability

1. **SIGKILL at random moments**: the collector is started ``--kills`` times and killed with
   SIGKILL after a random delay (0-4 s: start-up, opening, measuring, committing);
   after each kill the database must open and pass every check, and hold every valid run it
   held before; at the end one run completes the collection.  Counted: runs lost (held before
   a kill, missing after), duplicated (group, repetition), damaged databases.
2. **Ctrl-C and SIGTERM**: exit code 130, one line with the command that continues, no
   temporary folder left, and the printed command completes the collection.
3. **Two collectors** started at once on one database: one is refused ("in use by pid N",
   exit 2), the other completes; never an IntegrityError, never a damaged file.
4. **Changed bytes**: one random byte of a finished database changed, ``--flips`` times: the
   readings come out identical, or the file is refused (never different numbers).
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEMKIT = str(Path(sys.executable).with_name("hemkit"))
EVENTS = ["task-clock", "page-faults", "minor-faults", "syscalls:sys_enter_write"]
WORKLOAD = "iadd:L2:200000:0.5"


def hemkit(args, **kw):
    return subprocess.Popen([HEMKIT, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def valid_set(db: Path) -> set[tuple[int, int, str]]:
    """(group, repetition, checksum) of every valid run, after the database passed every check."""
    from hemkit.io.collection import CollectionDB

    with CollectionDB(db) as handle:
        checked = handle.verify()
    return {(int(r[1]), int(r[2]), str(r[8])) for r, _ in checked if r[3] == "valid"}


def duplicates(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return con.execute(
            "SELECT COUNT(*) - COUNT(DISTINCT gid || '/' || rep) FROM runs NOT INDEXED WHERE status='valid'"
        ).fetchone()[0]


def kills(data: Path, n: int, runs: int, rng: random.Random) -> dict:
    plan, db = data / "kill.toml", data / "kill.db"
    first = ["collect", plan, "--runs", runs, "--workload", WORKLOAD, "--quiet"]
    again = ["collect", plan, "--quiet"]
    held: set = set()
    out = {"kills": 0, "before_db": 0, "during_runs": 0, "lost": 0, "damaged": 0, "max_delay": 0.0}
    t0 = time.perf_counter()
    for _ in range(10 * n):
        if out["kills"] == n:
            break
        proc = hemkit(first if not db.exists() else again)
        delay = rng.uniform(0.0, 4.0)
        out["max_delay"] = max(out["max_delay"], delay)
        time.sleep(delay)
        if proc.poll() is not None:  # finished (or failed) before the kill
            proc.communicate()
            if proc.returncode != 0:
                raise SystemExit(f"collector failed on its own: {proc.returncode}")
            out["finished_before_the_kill"] = out.get("finished_before_the_kill", 0) + 1
            continue
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        out["kills"] += 1
        if not db.exists():
            out["before_db"] += 1
            continue
        out["during_runs"] += 1
        try:
            now = valid_set(db)
        except Exception as exc:  # a damaged database
            out["damaged"] += 1
            print(f"damaged after a kill: {exc}", flush=True)
            continue
        out["lost"] += len(held - now)
        held = now
    proc = hemkit(first if not db.exists() else again)
    _, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"the final run failed: {err}")
    final = valid_set(db)
    out["lost"] += len(held - final)
    groups = len({g for g, _, _ in final})
    out.update(
        valid=len(final),
        expected=groups * runs,
        duplicated=duplicates(db),
        complete=sorted((g, r) for g, r, _ in final) == [(g, r) for g in range(groups) for r in range(runs)],
        seconds=time.perf_counter() - t0,
    )
    return out


def startup_kills(data: Path, n: int, rng: random.Random) -> dict:
    """SIGKILL a collector of a new database early: while Python starts, the lock is taken, the file is made."""
    out = {"kills": n, "no_database": 0, "whole_database": 0, "damaged": 0, "left_files": 0}
    for k in range(n):
        folder = data / f"fresh{k}"
        folder.mkdir()
        db = folder / "c.db"
        proc = hemkit(["collect", data / "kill.toml", "-o", db, "--runs", 2, "--workload", WORKLOAD, "--quiet"])
        time.sleep(rng.uniform(0.5, 3.0))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        if not db.exists():
            out["no_database"] += 1
        else:
            try:
                valid_set(db)
                out["whole_database"] += 1
            except Exception:
                out["damaged"] += 1
        # what a SIGKILL can leave besides the database and SQLite's own journal: the lock file
        # (harmless: its lock died with the process) and the half-made temporary file of the
        # database being created -- which the next collector removes
        left = [f for f in folder.iterdir() if f.name.startswith(".c.db.")]
        out["left_files"] += len(left)
        if left:
            rerun = hemkit(["collect", data / "kill.toml", "-o", db, "--runs", 1, "--workload", WORKLOAD, "-q"])
            rerun.communicate()
            out["left_after_next_run"] = out.get("left_after_next_run", 0) + len(
                [f for f in folder.iterdir() if f.name.startswith(".c.db.")]
            )
            out["next_run_ok"] = out.get("next_run_ok", 0) + (rerun.returncode == 0)
    return out


def interrupts(data: Path, trials: int, runs: int) -> dict:
    out = {"trials": 0, "exit_130": 0, "one_line_with_command": 0, "no_temp_left": 0, "resumed_complete": 0}
    for k in range(trials):
        how = signal.SIGINT if k % 2 == 0 else signal.SIGTERM
        plan, db = data / "signal.toml", data / f"signal{k}.db"
        tmp = Path(tempfile.mkdtemp(prefix="hemkit-rel-tmp-"))
        env = dict(os.environ, TMPDIR=str(tmp))
        proc = hemkit(
            ["collect", plan, "-o", db, "--runs", runs, "--workload", WORKLOAD, "--quiet"],
            env=env,
            start_new_session=True,
        )
        while not db.exists() or valid_count(db) < 3:
            time.sleep(0.05)
            if proc.poll() is not None:
                break
        if how == signal.SIGINT:
            os.killpg(proc.pid, how)  # Ctrl-C at a terminal: the whole foreground group
        else:
            os.kill(proc.pid, how)
        _, err = proc.communicate()
        out["trials"] += 1
        out["exit_130"] += proc.returncode == 130
        lines = [x for x in err.splitlines() if x.strip()]
        if len(lines) == 1 and "continue with: " in lines[0]:
            out["one_line_with_command"] += 1
            hint = shlex.split(lines[0].split("continue with: ")[1])
            resumed = subprocess.run([HEMKIT, *hint[1:], "--quiet"], capture_output=True, text=True, env=env)
            if resumed.returncode == 0 and duplicates(db) == 0 and valid_count(db) == wanted(db):
                out["resumed_complete"] += 1
        out["no_temp_left"] += not any(tmp.iterdir())
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def wanted(db: Path) -> int:
    from hemkit.io.collection import collection_status

    return int(collection_status(db)["target"].sum())


def valid_count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as con:
            return con.execute("SELECT COUNT(*) FROM runs WHERE status='valid'").fetchone()[0]
    except sqlite3.Error:
        return 0


def two_collectors(data: Path, trials: int, runs: int) -> dict:
    out = {"trials": 0, "one_refused_in_use": 0, "integrity_error": 0, "damaged": 0, "complete": 0}
    for k in range(trials):
        plan, db = data / "two.toml", data / f"two{k}.db"
        cmd = ["collect", plan, "-o", db, "--runs", runs, "--workload", WORKLOAD, "--quiet"]
        a, b = hemkit(cmd), hemkit(cmd)
        res = [(p.pid, *p.communicate(), p.returncode) for p in (a, b)]
        out["trials"] += 1
        codes = sorted(r[3] for r in res)
        errs = " ".join(r[2] for r in res)
        out["integrity_error"] += "IntegrityError" in errs
        if codes == [0, 2]:
            winner = next(r[0] for r in res if r[3] == 0)
            out["one_refused_in_use"] += f"in use by pid {winner}" in errs
        try:
            final = valid_set(db)
            out["complete"] += len(final) == wanted(db) and duplicates(db) == 0
        except Exception:
            out["damaged"] += 1
    return out


def flips(data: Path, n: int, rng: random.Random) -> dict:
    import pandas as pd

    from hemkit.core.errors import InputError
    from hemkit.io.collection import CollectionDB

    src = data / "kill.db"
    with CollectionDB(src) as handle:
        reference = handle.tidy()
    raw = src.read_bytes()
    out = {"flips": n, "refused": 0, "identical": 0, "different": 0, "other_error": 0, "bytes": len(raw)}
    path = data / "flip.db"
    for _ in range(n):
        b = bytearray(raw)
        pos = rng.randrange(len(b))
        b[pos] = rng.choice([x for x in range(256) if x != b[pos]])
        path.write_bytes(bytes(b))
        try:
            with CollectionDB(path) as handle:
                got = handle.tidy()
        except InputError:
            out["refused"] += 1
            continue
        except Exception as exc:
            out["other_error"] += 1
            print(f"byte {pos}: {type(exc).__name__}: {exc}", flush=True)
            continue
        try:
            pd.testing.assert_frame_equal(got, reference)
            out["identical"] += 1
        except AssertionError:
            out["different"] += 1
            print(f"byte {pos}: different readings, not refused", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/tmp/hemkit-collect-reliability")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--runs", type=int, default=40, help="runs per group of the killed collection")
    ap.add_argument("--startup-kills", type=int, default=10)
    ap.add_argument("--signals", type=int, default=6)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--flips", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    data = Path(args.data)
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    for name in ("kill", "signal", "two"):
        subprocess.run(
            [HEMKIT, "plan", *EVENTS, "--pmcs", "2", "-o", data / f"{name}.toml"], check=True, capture_output=True
        )
    rng = random.Random(args.seed)
    k = kills(data, args.kills, args.runs, rng)
    print("kills:", k, flush=True)
    e = startup_kills(data, args.startup_kills, rng)
    print("start-up kills:", e, flush=True)
    s = interrupts(data, args.signals, 6)
    print("signals:", s, flush=True)
    t = two_collectors(data, args.pairs, 4)
    print("two collectors:", t, flush=True)
    f = flips(data, args.flips, rng)
    print("flips:", f, flush=True)
    print()
    print("| test | trials | outcome |")
    print("|---|---|---|")
    print(
        f"| SIGKILL at a random moment (0-4 s after start), then resume | {k['kills']} kills "
        f"({k['before_db']} before the database existed, {k['during_runs']} while measuring) | "
        f"{k['lost']} runs lost, {k['duplicated']} duplicated, {k['damaged']} damaged databases; "
        f"final {k['valid']}/{k['expected']} valid runs, complete: {k['complete']} ({k['seconds']:.0f} s) |"
    )
    print(
        f"| SIGKILL while starting a new collection (0.5-3 s after start) | {e['kills']} | no database: "
        f"{e['no_database']}; a whole database: {e['whole_database']}; damaged: {e['damaged']}; "
        f"temporary database files left: {e['left_files']}, after the next collector: "
        f"{e.get('left_after_next_run', 0)} |"
    )
    print(
        f"| Ctrl-C (SIGINT to the group) / SIGTERM while measuring | {s['trials']} | exit 130: {s['exit_130']}; "
        f"one line with the command that continues: {s['one_line_with_command']}; no temporary folder left: "
        f"{s['no_temp_left']}; that command completed the collection: {s['resumed_complete']} |"
    )
    print(
        f"| two collectors started at once on one database | {t['trials']} | one refused 'in use by pid N': "
        f"{t['one_refused_in_use']}; IntegrityError: {t['integrity_error']}; damaged: {t['damaged']}; "
        f"complete and without duplicates: {t['complete']} |"
    )
    print(
        f"| one random byte of a finished database ({f['bytes']} bytes) changed | {f['flips']} | "
        f"refused naming the file: {f['refused']}; identical readings: {f['identical']}; different readings: "
        f"{f['different']}; other errors: {f['other_error']} |"
    )
    ok = (
        k["lost"] == k["duplicated"] == k["damaged"] == e["damaged"] == 0
        and k["complete"]
        and s["exit_130"] == s["one_line_with_command"] == s["no_temp_left"] == s["resumed_complete"] == s["trials"]
        and t["integrity_error"] == t["damaged"] == 0
        and t["complete"] == t["trials"]
        and f["different"] == f["other_error"] == 0
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
