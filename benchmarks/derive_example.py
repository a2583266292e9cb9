"""Make the bundled example of ``hemkit derive``: the branch and dcache families measured with valgrind.

    .venv/bin/python benchmarks/derive_example.py [--out src/hemkit/derive/data/example]

Runs exactly what ``hemkit derive run --family F --backend valgrind --runs 3 --seed 0
--cache L1=32k,8,64 --cache LL=32M,16,64`` runs and writes ``branch-valgrind.csv`` and
``dcache-valgrind.csv``, read by :func:`hemkit.derive.example_measurements` and by
``hemkit derive analyze --family branch``.  cachegrind is deterministic: the same kernel binary
gives the same bytes.  Another compiler (or a changed C source) moves the branches' addresses,
and the simulated predictor, indexed by address, may then mispredict a few branches more or
less per run (raw counts, e.g. 32726 instead of 32727 of 65536); CAT's quantisation removes
that, so the analysis gives the same definitions.
The geometry is fixed (a 32 KiB 8-way L1, a 32 MiB 16-way LL, 64-byte lines: this machine's
sysfs values) so that the example does not depend on where it is made.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hemkit.derive import MeasureOptions, cache_geometry, run_family
from hemkit.io.derive import write_measurements

GEOMETRY = ("L1=32k,8,64", "LL=32M,16,64")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "src/hemkit/derive/data/example"))
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    options = MeasureOptions(runs=3, seed=0, cache=cache_geometry(GEOMETRY))
    for family in ("branch", "dcache"):
        t0 = time.perf_counter()
        m = run_family(family, backend="valgrind", options=options, progress=not args.quiet)
        # the CPU and timing stay out of the file: the example must not depend on where it was made
        path = write_measurements(m.data, out / f"{family}-valgrind.csv")
        print(f"{m.line()}: wrote {path} ({path.stat().st_size} bytes) in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
