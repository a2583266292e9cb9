"""The default merge of the bundled T2080 data against the floor: Python and NumPy reading the same file (issue 28).

The floor is a fresh ``python`` process that imports NumPy and reads ``much_raw.csv`` (24 groups
x 6 counters x 1000 runs: 1000 rows x 144 columns) with ``np.loadtxt``, as hemkit reads it; no
program that reads the file can take less.  Against it, in the same run, alternating one with the
other so that both see the same load:

- ``hemkit merge -o out.csv --pair-intervals pairs.csv -q``: the README's main job (the default
  joint merge of the bundled data with its 90 % per-pair intervals);
- ``hemkit merge -o out.csv -q``: the same without intervals (the command computes them only
  when ``--pair-intervals`` or ``--plot`` asks for them).

Each is started ``--runs`` times in a fresh process (median wall time, peak RSS of the process
from ``wait4``); the ratio is median over median.  ``--blas-threads 1`` sets
``OPENBLAS_NUM_THREADS=1`` for every process (the floor uses no BLAS): on 2 busy cores a
threaded OpenBLAS makes SciPy's L-BFGS-B routine 10-30x slower (its worker threads wait for
the CPU the fit needs).  Then one fresh process profiles the stages of
the main job in the library (import, read, merge, intervals, write) and, with ``--profile``,
lists the functions that take the most time (``cProfile``).

    nice -n 5 .venv/bin/python benchmarks/merge_floor.py --runs 9 [--profile] [--blas-threads 1]

Issue 28's target: the main job within 6x the floor.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENV = dict(os.environ)
FLOOR = "import numpy as np, sys; x = np.loadtxt(sys.argv[1], delimiter=',', skiprows=1); assert x.shape == (1000, 144)"

STAGES = r"""
import sys, time
t0 = time.perf_counter()
import numpy
t_numpy = time.perf_counter()
import hemkit.cli.merge
from hemkit import datasets
from hemkit.io import write_table
from hemkit.merge import merge
t1 = time.perf_counter()
readings = datasets.t2080_much()
t2 = time.perf_counter()
res = merge(readings, seed=0)
t3 = time.perf_counter()
from hemkit.merge.intervals import IntervalOptions, with_intervals
from hemkit.core.rng import child
res = with_intervals(res, readings, IntervalOptions(level=0.9), seed=child(0, "intervals"))
t4 = time.perf_counter()
write_table(res.arrays, sys.argv[1] + "/out.csv")
write_table(getattr(res, "interval_arrays", None) or res.pair_intervals, sys.argv[1] + "/pairs.csv")
t5 = time.perf_counter()
heavy = [m for m in ("pandas", "scipy", "scipy.optimize", "pyarrow", "rich", "matplotlib") if m in sys.modules]
print(f"numpy {t_numpy - t0:.3f} import {t1 - t_numpy:.3f} read {t2 - t1:.3f} merge {t3 - t2:.3f} "
      f"intervals {t4 - t3:.3f} write {t5 - t4:.3f} total {t5 - t0:.3f} loaded {','.join(heavy) or 'none'}")
"""


def run(cmd: list[str], cwd: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one fresh process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err}")
    return wall, usage.ru_maxrss / 1024


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.node()}: {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9, help="fresh processes per command (median; at least 7)")
    ap.add_argument("--profile", action="store_true", help="also list the slowest functions of the main job")
    ap.add_argument("--blas-threads", type=int, default=None, help="OPENBLAS_NUM_THREADS of every process")
    args = ap.parse_args()
    if args.blas_threads is not None:
        ENV["OPENBLAS_NUM_THREADS"] = str(args.blas_threads)
    from hemkit.datasets import t2080_path

    data = str(t2080_path("much_raw.csv"))
    exe = str(Path(sys.executable).with_name("hemkit"))
    commands = {
        "floor (python + numpy.loadtxt)": [sys.executable, "-c", FLOOR, data],
        "hemkit merge -o out.csv --pair-intervals pairs.csv -q": [
            exe,
            "merge",
            "-o",
            "out.csv",
            "--pair-intervals",
            "pairs.csv",
            "-q",
        ],
        "hemkit merge -o out.csv -q": [exe, "merge", "-o", "out.csv", "-q"],
    }
    times: dict[str, list[float]] = {k: [] for k in commands}
    rss: dict[str, list[float]] = {k: [] for k in commands}
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for cmd in commands.values():  # warm the file cache and the .pyc files
            run(cmd, tmp)
        for _ in range(max(args.runs, 1)):  # alternating: every command sees the same load
            for name, cmd in commands.items():
                wall, peak = run(cmd, tmp)
                times[name].append(wall)
                rss[name].append(peak)
        load1 = os.getloadavg()
        floor = statistics.median(times["floor (python + numpy.loadtxt)"])
        print(machine())
        print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} {load1[1]:.2f}")
        blas = ENV.get("OPENBLAS_NUM_THREADS", "unset (OpenBLAS default: one per CPU)")
        print(f"{args.runs} fresh processes each, alternating; OPENBLAS_NUM_THREADS {blas}; data {data}")
        print(f"{'command':58s} {'median s':>9s} {'min s':>7s} {'max s':>7s} {'x floor':>8s} {'peak RSS MiB':>13s}")
        for name in commands:
            med = statistics.median(times[name])
            print(
                f"{name:58s} {med:9.3f} {min(times[name]):7.3f} {max(times[name]):7.3f} {med / floor:8.2f} "
                f"{max(rss[name]):13.0f}"
            )
        out = subprocess.run([sys.executable, "-c", STAGES, tmp], capture_output=True, text=True, check=True, env=ENV)
        print("stages of the main job in one fresh process (s):", out.stdout.strip())
        if args.profile:
            prof = subprocess.run(
                [sys.executable, "-m", "cProfile", "-s", "tottime", exe, *list(commands.values())[1][1:]],
                cwd=tmp,
                env=ENV,
                capture_output=True,
                text=True,
                check=True,
            )
            lines = prof.stdout.splitlines()
            start = next(i for i, line in enumerate(lines) if "ncalls" in line)
            print("\n".join(lines[start : start + 16]))


if __name__ == "__main__":
    main()
