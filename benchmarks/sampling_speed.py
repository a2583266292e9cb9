"""Sampling speed: the simulator (1e6 units x 1000 profiles, target < 10 s) and reading real profiles.

    .venv/bin/python benchmarks/sampling_speed.py                  # both
    .venv/bin/python benchmarks/sampling_speed.py --only simulator
    .venv/bin/python benchmarks/sampling_speed.py --only profile --samples 1000000 250000

Simulator: times state generation and the 1000 profiles separately, for time-based sampling,
with jitter and noise, and event-based sampling; best of 3.

Profile (issue 24 item 4, target: within 3x ``perf report --stdio`` end to end): records a
``perf.data`` of about N samples with ``perf record -e cpu-clock -c 10000`` of a busy Python
program (about 3000 symbols of libpython, libc and the kernel), then times ``perf report
--stdio`` and ``hemkit sampling profile -q`` on it, each a fresh process, best of 3, and the
peak resident memory of hemkit (its own, from wait4).  Prints the load average before and
after: the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from hemkit.sampling import Sampler, generate_states, simulate_profiles
from hemkit.sampling.paper import mixed_tasks

#: a busy Python program: sorting, dicts and string formatting for a given CPU time
BUSY = """
import random, sys, time
def f_sort(n):
    a = [random.random() for _ in range(n)]; a.sort(); return a[0]
def f_dict(n):
    d = {}
    for i in range(n): d[str(i)] = i
    return len(d)
def f_str(n):
    return sum(len(("x%d" % i).upper()) for i in range(n))
t0 = time.process_time()
while time.process_time() - t0 < float(sys.argv[1]):
    f_sort(20000); f_dict(20000); f_str(20000)
"""
PERIOD_NS = 10_000  # -c 10000: a sample every 10 us of the program's CPU time


def best(f, n=3):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


def simulator() -> None:
    tasks = mixed_tasks()
    t_gen = best(lambda: generate_states(tasks, 1_000_000, seed=0))
    rs = generate_states(tasks, 1_000_000, seed=0)
    print(f"generate 1e6 units (mixed tasks): {t_gen:.3f} s")
    for label, kw in [
        ("time-based", {}),
        ("time-based + jitter 5 + noise N(0,2)", {"jitter": 5.0, "noise": 2.0}),
        ("event-based", {"mode": "event"}),
    ]:
        t = best(lambda kw=kw: simulate_profiles(rs, Sampler(100, **kw), 1000, seed=1))
        print(f"1e6 units x 1000 repetitions, {label}: {t:.2f} s")


def timed(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident memory (bytes) of one run of ``args``, output discarded."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: exit {proc.returncode}")
    return wall, usage.ru_maxrss * 1024


def record(path: str, samples: int) -> None:
    """Write a perf.data of about ``samples`` samples to ``path``."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(BUSY)
    seconds = samples * PERIOD_NS / 1e9
    cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-c", str(PERIOD_NS), "-o", path, "--"]
    subprocess.run([*cmd, sys.executable, fh.name, f"{seconds:g}"], check=True, stdout=subprocess.DEVNULL)
    os.unlink(fh.name)
    report = subprocess.run(["perf", "report", "-i", path, "--stdio"], capture_output=True, text=True).stdout
    said = [line[2:] for line in report.splitlines() if line.startswith(("# Samples:", "# Total Lost"))]
    print(f"  recorded {path}: {'; '.join(said)}")


def profile(sizes: list[int], reps: int) -> None:
    hemkit = shutil.which("hemkit", path=os.path.dirname(sys.executable)) or "hemkit"
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="hemkit-speed-") as tmp:
        for n in sizes:
            data = os.path.join(tmp, f"perf-{n}.data")
            record(data, n)
            timed([hemkit, "sampling", "profile", data, "-q"])  # compiles the dlfilter once, warms the cache
            report, ours, rss = [], [], []
            for _ in range(reps):  # interleaved, so that a change of load hits both
                report.append(timed(["perf", "report", "-i", data, "--stdio"])[0])
                wall, mem = timed([hemkit, "sampling", "profile", data, "-q"])
                ours.append(wall)
                rss.append(mem)
            r, h = min(report), min(ours)
            print(
                f"~{n:.0e} samples: perf report --stdio {r:.2f} s, hemkit sampling profile {h:.2f} s "
                f"({h / r:.2f}x), hemkit peak RSS {min(rss) / 2**20:.0f} MiB"
            )
    print(f"load average after: {os.getloadavg()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["simulator", "profile"])
    ap.add_argument("--samples", type=int, nargs="+", default=[1_000_000], help="perf.data sizes to record")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    if args.only != "profile":
        simulator()
    if args.only != "simulator":
        profile(args.samples, args.reps)


if __name__ == "__main__":
    main()
