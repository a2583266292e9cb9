"""Record the real-program data of the compare calibration (benchmarks/data/compare/kernel/).

A small C kernel (kernel.c) touches N pages and loops L times over them.  Three sides are
recorded *interleaved*, one run of each in turn, so that the machine's load drifts alike over
all three: ``base1`` and ``base2`` (N = 20000, L = 5000: the same program twice, an A/A pair)
and ``changed`` (N = 21000 = 1.05 N, L = 6500 = 1.3 L).  Each run is one ``perf stat -x,`` file
(page-faults, minor-faults, task-clock), so a side is a folder of perf stat files.

    python benchmarks/compare_record.py [--runs 50]

(Recorded sequentially instead, as two ``hemkit collect`` databases a minute apart on this
loaded machine, the same program's task-clock differed by 10 %: see BENCHMARKS.md.)
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).parent / "data" / "compare"
SIDES = {"base1": (20000, 5000), "base2": (20000, 5000), "changed": (21000, 6500)}
EVENTS = "page-faults,minor-faults,task-clock"
KERNEL = HERE / "kernel.c"


def record(sides: dict[str, tuple[int, int]], out: Path, runs: int) -> None:
    """``runs`` perf stat files per side under ``out/SIDE/``, one run of each side in turn (interleaved)."""
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "kernel"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(KERNEL)], check=True)
        for side in sides:
            (out / side).mkdir(parents=True, exist_ok=True)
        for run in range(runs):
            for side, (pages, loops) in sides.items():
                path = out / side / f"run_{run:03d}.csv"
                cmd = ["perf", "stat", "-x,", "-e", EVENTS, "-o", str(path), str(exe), str(pages), str(loops)]
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args()
    record(SIDES, HERE / "kernel", args.runs)
    print(f"wrote {args.runs} runs of {', '.join(SIDES)} under {HERE / 'kernel'}")


if __name__ == "__main__":
    main()
