"""What the merged rows cost (issue 26, ``JointOptions.min_rows``): the joint merge and its intervals, timed.

Run (after ``benchmarks/report_scale.py`` has made its readings into ``/tmp/hemkit-report``)::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/merge_rows_time.py /tmp/hemkit-report/r100.parquet
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/merge_rows_time.py /tmp/hemkit-report/r200.parquet

One BLAS thread, as ``hemkit report`` sets it: two spinning OpenBLAS threads on a loaded 2-core
machine make these numbers meaningless (an 18 s merge of 100 events that takes 1.6 s alone).
"""

from __future__ import annotations

import argparse
import time
import warnings

from hemkit.core.errors import HemkitWarning
from hemkit.io import read_readings
from hemkit.merge.intervals import compute_intervals
from hemkit.merge.joint import JointOptions, merge_joint
from hemkit.merge.reorder import default_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("readings", help="a readings file (report_scale.py's r100.parquet or r200.parquet)")
    ap.add_argument("--rows", default="0,2000,5000", help="min_rows to time, comma-separated")
    args = ap.parse_args()
    warnings.simplefilter("ignore", HemkitWarning)
    r = read_readings(args.readings)
    print(f"{len(r.events)} events, {len(r)} groups; every reading once: {default_rows(r)} rows", flush=True)
    for mr in (int(x) for x in args.rows.split(",")):
        t = time.perf_counter()
        res = merge_joint(r, seed=0, options=JointOptions(min_rows=mr))
        merge_s = time.perf_counter() - t
        t = time.perf_counter()
        compute_intervals(res, r)
        took = time.perf_counter() - t
        print(f"min_rows={mr}: {res.data.shape[0]} rows, merge {merge_s:.2f} s, intervals {took:.2f} s")


if __name__ == "__main__":
    main()
