"""Speed of ``hemkit compare`` end to end: 2 x 1e5 runs x 64 events (issue 23: < 2 s here).

Writes two tidy Parquet files (one group of 64 events, 1e5 runs each; counts of sizes from
10 to 1e9, integer and not, some tied) into a temporary folder once, then times the command
in a fresh process (imports, reading both files, the comparison, the table on stdout), the
best of ``--reps``, and the library call alone on the readings.

    python benchmarks/compare_speed.py [--runs 100000] [--events 64] [--reps 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def _side(rng: np.random.Generator, runs: int, events: int, shift: float) -> pd.DataFrame:
    scales = np.logspace(1, 9, events)
    cols = {}
    for i, s in enumerate(scales):
        x = rng.lognormal(np.log(s), 0.05 + 0.3 * (i % 4 == 0), runs) * (1 + shift * (i % 8 == 0))
        cols[f"event_{i:02d}"] = np.round(x) if i % 2 else x
    wide = pd.DataFrame(cols)
    tidy = wide.stack().reset_index()
    tidy.columns = ["run", "event", "value"]
    tidy.insert(0, "group", 1)
    return tidy


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--events", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "a.parquet", Path(tmp) / "b.parquet"
        _side(rng, args.runs, args.events, 0.0).to_parquet(a, index=False)
        _side(rng, args.runs, args.events, 0.02).to_parquet(b, index=False)
        cmd = [sys.executable, "-m", "hemkit", "compare", str(a), str(b), "--seed", "0"]
        best = np.inf
        for _ in range(args.reps):
            t = time.perf_counter()
            res = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
            best = min(best, time.perf_counter() - t)
            if res.returncode:
                raise SystemExit(res.stderr)
        print(res.stdout.strip().splitlines()[-1])
        from hemkit.compare import compare
        from hemkit.io import read_readings

        t = time.perf_counter()
        ra, rb = read_readings(a), read_readings(b)
        read = time.perf_counter() - t
        lib = np.inf
        for _ in range(args.reps):
            t = time.perf_counter()
            compare(ra, rb, seed=0)
            lib = min(lib, time.perf_counter() - t)
    load = os.getloadavg()[0]
    print(
        f"hemkit compare, 2 x {args.runs} runs x {args.events} events: end to end {best:.2f} s (best of {args.reps}); "
        f"reading both files {read:.2f} s; compare() alone {lib:.2f} s; {os.cpu_count()} CPUs, load average {load:.1f}"
    )


if __name__ == "__main__":
    main()
