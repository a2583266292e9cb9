"""Record the real-program data of the machines-check calibration (benchmarks/data/machines/kernel/).

Five emulated hosts run the compare calibration's C kernel (``benchmarks/data/compare/kernel.c``:
touch N pages, loop L times over them), recorded *interleaved*, one run of each in turn, so that
the machine's load drifts alike over all of them:

- ``a``, ``b``, ``c``: N = 20000, L = 5000 -- alike (the A/A case);
- ``d``: N = 20200 (1 % more pages) -- one worker's program given a slightly larger input;
- ``e``: L = 5500 (10 % more loops) -- one worker's program given more work, the same pages.

Each run is one ``perf stat -x,`` file (page-faults, minor-faults, task-clock), so a host is a
folder of perf stat files.

    python benchmarks/machines_record.py [--runs 50]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

KERNEL = Path(__file__).parent / "data" / "compare" / "kernel.c"
HERE = Path(__file__).parent / "data" / "machines"
HOSTS = {"a": (20000, 5000), "b": (20000, 5000), "c": (20000, 5000), "d": (20200, 5000), "e": (20000, 5500)}
EVENTS = "page-faults,minor-faults,task-clock"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args()
    out = HERE / "kernel"
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "kernel"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(KERNEL)], check=True)
        for host in HOSTS:
            (out / host).mkdir(parents=True, exist_ok=True)
        for run in range(args.runs):
            for host, (pages, loops) in HOSTS.items():
                path = out / host / f"run_{run:03d}.csv"
                cmd = ["perf", "stat", "-x,", "-e", EVENTS, "-o", str(path), str(exe), str(pages), str(loops)]
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    print(f"wrote {args.runs} runs of hosts {', '.join(HOSTS)} under {out}")


if __name__ == "__main__":
    main()
