"""Issue 3 "done when" on this machine: probe, plan 12 events in MUCH groups, collect >= 50 runs per
group with a SIGKILL in the middle, resume, check nothing was lost or duplicated, merge the database.

Everything goes through the ``hemkit`` command line, as a user would run it:

    .venv/bin/python benchmarks/collect_done_when.py --data /tmp/hemkit-done-when

This VM has no PMU driver: the 12 events are software events and tracepoints, and the
budget is given explicitly (``--pmcs 5``, what ``hemkit probe`` finds on the Zen 5 machines
of notes/perf.md); the probe is run to show what it reports here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

EVENTS = [
    "task-clock",
    "page-faults",
    "context-switches",
    "syscalls:sys_enter_write",
    "raw_syscalls:sys_enter",
    "kmem:mm_page_alloc",
    "kmem:mm_page_free",
    "kmem:rss_stat",
    "timer:hrtimer_expire_entry",
    "sched:sched_stat_runtime",
    "irq:softirq_entry",
    "sched:sched_wakeup",
]
HARDWARE = ["cycles", "instructions", "branches", "branch-misses", "L1-dcache-loads", "dTLB-loads"]
WORKLOAD = "iadd:L3:3000000:0.5"
HEMKIT = [str(Path(sys.executable).with_name("hemkit"))]


def sh(args, **kw):
    print("$ hemkit " + " ".join(args), flush=True)
    out = subprocess.run(HEMKIT + args, text=True, capture_output=True, **kw)
    print(out.stdout + out.stderr, flush=True)
    if out.returncode != 0:
        sys.exit(f"failed with exit code {out.returncode}")
    return out


def valid_runs(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=10) as con:
            return con.execute("SELECT COUNT(*) FROM runs WHERE status='valid'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/tmp/hemkit-done-when")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--kill-after", type=int, default=150, help="SIGKILL the collector after this many valid runs")
    args = ap.parse_args()
    data = Path(args.data)
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    t_all = time.perf_counter()
    sh(["probe", *EVENTS[:3], *HARDWARE, "--runs", "2", "--workload", WORKLOAD])
    plan = data / "plan12.toml"
    sh(["plan", *EVENTS, "--pmcs", "5", "--design", "much", "-o", str(plan)])
    db = data / "plan12.db"
    cmd = ["collect", str(plan), "--runs", str(args.runs), "--workload", WORKLOAD, "--quiet"]
    print("$ hemkit " + " ".join(cmd) + f"   # killed with SIGKILL after {args.kill_after} valid runs", flush=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(HEMKIT + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while valid_runs(db) < args.kill_after and proc.poll() is None:
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = valid_runs(db)
    print(f"killed: {before} valid runs in the database after {time.perf_counter() - t0:.0f} s\n", flush=True)
    sh(["collect", "--status", str(db)])
    sh(["collect", str(plan), "--runs", str(args.runs), "--quiet"])  # continues with the stored command
    collect_s = time.perf_counter() - t0
    with sqlite3.connect(db) as con:
        n_groups = con.execute("SELECT COUNT(*) FROM groups").fetchone()[0]
        valid = con.execute(
            "SELECT COUNT(*), COUNT(DISTINCT gid || '/' || rep) FROM runs WHERE status='valid'"
        ).fetchone()
        invalid = con.execute("SELECT COUNT(*) FROM runs WHERE status='invalid'").fetchone()[0]
        holes = con.execute(
            "SELECT COUNT(*) FROM (SELECT gid, COUNT(*) c, MIN(rep) lo, MAX(rep) hi FROM runs "
            "WHERE status='valid' GROUP BY gid) WHERE c != ? OR lo != 0 OR hi != ?",
            (args.runs, args.runs - 1),
        ).fetchone()[0]
    print(
        f"groups {n_groups}; valid runs {valid[0]} (distinct group/rep {valid[1]}; expected "
        f"{n_groups * args.runs}); invalid runs {invalid}; groups with missing or extra runs {holes}"
    )
    ok = valid[0] == valid[1] == n_groups * args.runs and holes == 0
    print("resume after SIGKILL: " + ("nothing lost, nothing duplicated" if ok else "FAILED"), flush=True)
    sh(["collect", "--status", str(db)])
    sh(["merge", str(db), "-m", "much", "-o", str(data / "merged_much.csv")])
    sh(["merge", str(db), "-m", "copula", "-o", str(data / "merged_copula.csv")])
    print(f"collection {collect_s:.0f} s ({n_groups * args.runs} runs), total {time.perf_counter() - t_all:.0f} s")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
