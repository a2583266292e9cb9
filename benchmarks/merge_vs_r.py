"""hemkit's MUCH against mergingTools::MUCH_merge (R), end to end on the T2080 example (issue 15).

Run:  nice .venv/bin/python benchmarks/merge_vs_r.py --r-lib /tmp/Rlib [--repeat 5]

Needs ``Rscript`` (Debian: ``apt-get install r-base-core r-cran-dplyr r-cran-purrr
r-cran-tidyr r-cran-stringr r-cran-rlang r-cran-mass``) and mergingTools 1.0.1 installed in
``--r-lib`` (CRAN itself, or its GitHub mirror ``cran/mergingTools``: ``R CMD INSTALL -l LIB
mergingTools``); hemkit never ships or runs its code otherwise.  Both read the bundled
``much_raw.csv`` (24 groups x 6 counters x 1000 runs), merge 16 events into 1000 rows with
100 simulations (``n_runs = 1000, n_sims = 100``; ``dep_lvl = 1`` keeps all 16 events, as
hemkit does), and write a CSV: wall time of the whole process, median of ``--repeat`` runs
of each, taken in turn (R, hemkit, R, hemkit...) so that a change in the load of this shared
guest falls on both.

hemkit is byte-compiled first (``python -m compileall``), as ``pip install`` does and as R
does when it installs a package: an editable install run with ``PYTHONDONTWRITEBYTECODE=1``
(these machines set it) would otherwise compile hemkit's sources again in every process
(~50 ms, measured in BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import hemkit
from hemkit.datasets import t2080_path

R_SCRIPT = """
suppressMessages(library(mergingTools, lib.loc = "{lib}"))
args <- commandArgs(trailingOnly = TRUE)
raw <- read.csv(args[1])
set.seed(1)
data <- mergingTools::process_raw_experiments(data = raw, n_pmcs = 6)
merged <- mergingTools::MUCH_merge(splitted_data = data, n_runs = 1000, n_sims = 100, dep_lvl = {dep})
write.csv(merged, args[2], row.names = FALSE)
"""


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--r-lib", required=True, help="R library holding mergingTools")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dep-lvl", type=float, default=1.0)
    args = ap.parse_args()
    if shutil.which("Rscript") is None:
        sys.exit("Rscript not found: apt-get install r-base-core (and the r-cran-* packages above)")
    raw = str(t2080_path("much_raw.csv"))
    codes = str(t2080_path("code2name.csv"))
    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "much.R"
        script.write_text(R_SCRIPT.format(lib=args.r_lib, dep=args.dep_lvl))
        r_cmd = ["Rscript", str(script), raw, str(Path(d) / "r.csv")]
        h_cmd = [sys.executable, "-m", "hemkit", "merge", raw, "--pmcs", "6", "--codes", codes, "-m", "much"]
        h_cmd += ["--rows", "1000", "--n-sims", "100", "-o", str(Path(d) / "h.csv"), "-q"]
        package = str(Path(hemkit.__file__).parent)  # writes __pycache__ beside the sources (ignored by git)
        subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True, capture_output=True)
        # interleaved, R then hemkit, so that both see the same state of this shared guest
        r_times, h_times = [], []
        for _ in range(args.repeat):
            r_times.append(wall(r_cmd))
            h_times.append(wall(h_cmd))
        r_cols = len(Path(d, "r.csv").read_text().splitlines()[0].split(","))
        h_cols = len(Path(d, "h.csv").read_text().splitlines()[0].split(","))
    r, h = statistics.median(r_times), statistics.median(h_times)
    print("| tool | command | events kept | seconds (median) |\n|---|---|---|---|")
    print(f"| mergingTools 1.0.1 | `Rscript much.R` (MUCH_merge, dep_lvl={args.dep_lvl:g}) | {r_cols} | {r:.2f} |")
    print(f"| hemkit | `hemkit merge much_raw.csv --pmcs 6 -m much --rows 1000` | {h_cols} | {h:.2f} |")
    pairs = sorted(a / b for a, b in zip(r_times, h_times))
    print(f"\nhemkit is {r / h:.1f}x faster end to end (run by run: {pairs[0]:.1f}x to {pairs[-1]:.1f}x)")


if __name__ == "__main__":
    main()
