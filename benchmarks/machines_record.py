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
from pathlib import Path

from compare_record import record  # the same kernel, recorded the same way (run from benchmarks/ or by path)

HERE = Path(__file__).parent / "data" / "machines"
HOSTS = {"a": (20000, 5000), "b": (20000, 5000), "c": (20000, 5000), "d": (20200, 5000), "e": (20000, 5500)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args()
    record(HOSTS, HERE / "kernel", args.runs)
    print(f"wrote {args.runs} runs of hosts {', '.join(HOSTS)} under {HERE / 'kernel'}")


if __name__ == "__main__":
    main()
