"""Cold start of the command line: ``hemkit --help`` and ``import hemkit.cli`` (issue 15).

Prints the median wall time of ``hemkit --help`` over ``--runs`` runs (target <= 0.15 s),
and the heaviest modules that ``import hemkit.cli`` loads (``python -X importtime``).

    .venv/bin/python benchmarks/cold_start.py --runs 21
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def wall(cmd: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    exe = str(Path(sys.executable).with_name("hemkit"))
    wall([exe, "--help"], 3)  # warm the file cache and .pyc files
    help_t = wall([exe, "--help"], args.runs)
    bare = wall([sys.executable, "-c", "pass"], args.runs)
    print(
        f"hemkit --help: median {statistics.median(help_t):.3f} s (min {min(help_t):.3f}, max {max(help_t):.3f}) "
        f"over {args.runs} runs; bare python: median {statistics.median(bare):.3f} s"
    )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import hemkit.cli"], capture_output=True, text=True, check=True
    )
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cum, name = line.split("|")
            if cum.strip().isdigit():
                rows.append((int(cum), name.rstrip()))
    rows.sort(reverse=True)
    print("import hemkit.cli, heaviest cumulative imports (us):")
    for cum, name in rows[:8]:
        print(f"  {cum:8d} {name}")


if __name__ == "__main__":
    main()
