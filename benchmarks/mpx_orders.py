"""Does listing the events in a different order in each run make the pooled totals better?  (issue 26)

    OPENBLAS_NUM_THREADS=1 nice -n 5 .venv/bin/python benchmarks/mpx_orders.py --out /tmp/orders \\
        --set fresh2=/work/mpx-data/fresh2 --set fresh5=/work/mpx-data/fresh5 ...     # about 2.5 min a set

perf multiplexes the events of ``perf stat -e a,b,c,d,e`` in the order they are listed: the first C
start on the counters and the kernel rotates the list by one at each tick.  Every run of a program
listed alike therefore has its gaps at the same places of the program: a burst at its start (exec,
the loader's ``mmap`` and ``openat``) falls in the gap of the same events in every run, and pooling
the runs' totals (``hemkit mpx estimate --totals``, the default) cannot average it out.  Listing the
events from a different one in each run (run k of a workload starts its list at its k-th event)
moves the gaps, so the runs' errors are less alike.

Each set's traces are multiplexed exactly as in ``mpx_intervals.py`` (hemkit's reader, the paper's
cleaning, the Linux rotation) under ten orders: **same K** (every run's list rotated by K, K = 0 to
4: the recorded order and the four others) and **varied K** (run k of its workload and event set
rotated by k + K).  Printed per set and C, each scheme's mean over its five K:

* the median relative |total error| of perf's scaling (``fixed``), of the default each run alone
  and pooled over the runs (as ``total_intervals`` pools them), and the pooled one over perf's;
* coverage and width / error of the default's 90 % intervals with the shipped multipliers (fitted on
  runs listed alike), each run alone (with the other runs' spread) and pooled.

With ``--held-out SERIES`` (the ``series.parquet`` of ``mpx_intervals.py`` over the same sets, runs listed
alike) the multipliers of each workload's intervals are instead fitted on the series of every *other*
workload in SERIES (leave one workload out), so that the intervals of runs listed apart are scored on
workloads their multipliers never saw; ``--shifts 0`` scores one rotation of each scheme (faster).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.mpx.registry import DEFAULT_ESTIMATOR
from hemkit.mpx.scores import markdown_table
from hemkit.mpx.totals import POOLED, RUNS
from mpx_intervals import _read as read_set  # benchmarks run as scripts from this folder
from mpx_intervals import covered, series_table, shipped

#: rotations of the event list tried per scheme (5 events a run in every set of these traces)
SHIFTS = range(5)


def reorder(trace: pd.DataFrame, shift: int, varied: bool) -> pd.DataFrame:
    """``trace`` with each run's events listed from a later one (perf's ``-e`` order is the order of first
    appearance): rotated by ``shift``, plus the run's rank within its workload and event set if ``varied``.

    Examples
    --------
    >>> tr = pd.DataFrame({"workload": "w", "run": ["r1"] * 3 + ["r2"] * 3, "step": 0, "event": list("abc") * 2,
    ...                    "value": 1.0})
    >>> reorder(tr, 0, True).groupby("run", sort=False)["event"].apply("".join).tolist()
    ['abc', 'bca']
    >>> reorder(tr, 1, False).groupby("run", sort=False)["event"].apply("".join).tolist()
    ['bca', 'bca']
    >>> tr2 = pd.concat([tr, tr.assign(run=tr["run"] + "x", event=tr["event"].str.upper())])
    >>> reorder(tr2, 0, True).groupby("run", sort=False)["event"].apply("".join).tolist()   # each event set apart
    ['abc', 'bca', 'ABC', 'BCA']
    """
    tr = trace.copy()
    tr["_run"] = pd.factorize(tr["run"])[0]
    first = tr.drop_duplicates(["run", "event"])
    pos = first.groupby("run", sort=False).cumcount()
    n = first.groupby("run", sort=False)["event"].transform("size")
    # a run's event set: the events it lists, in any order
    events = first.groupby("run", sort=False)["event"].agg(lambda e: "\n".join(sorted(e)))
    runs = first.drop_duplicates("run").copy()
    runs["_events"] = runs["run"].map(events)
    group = [c for c in ("workload",) if c in runs.columns] + ["_events"]
    run_rank = dict(zip(runs["run"], runs.groupby(group, sort=False).cumcount()))
    by = shift + (first["run"].map(run_rank) if varied else 0)
    new = ((pos - by) % n).to_numpy()
    tr["_pos"] = pd.MultiIndex.from_frame(tr[["run", "event"]]).map(dict(zip(zip(first["run"], first["event"]), new)))
    return tr.sort_values(["_run", "step", "_pos"], kind="stable").drop(columns=["_run", "_pos"])


def left_out(series: pd.DataFrame, fitted: pd.DataFrame, level: float) -> pd.DataFrame:
    """Every row's interval with multipliers fitted on ``fitted``'s series of the other workloads (as
    ``mpx_intervals.held_out`` fits them: the ``level`` quantile of ``z`` per estimator and count class)."""
    fitted = fitted[fitted["q_as"] == fitted["estimator"]]  # a pooled estimator's unpooled rows: not twice
    parts = []
    for (label, workload), test in series.groupby(["set", "workload"], sort=False):
        train = fitted[~((fitted["set"] == label) & (fitted["workload"] == workload))]
        z_of = train.groupby(["estimator", "count_class"])["z"]
        q_of = z_of.quantile(level, interpolation="higher")
        for (est, cls), tt in test.groupby(["q_as", "count_class"]):
            parts.append(covered(tt, float(q_of.get((est, cls), np.inf))))
    return pd.concat(parts, ignore_index=True)


def scheme_scores(
    label: str,
    folder: str,
    trace: pd.DataFrame,
    pmcs: list[int],
    level: float,
    shifts: list[int],
    fitted: pd.DataFrame | None = None,
) -> pd.DataFrame:
    rows = []
    own, pooled, runs = DEFAULT_ESTIMATOR, DEFAULT_ESTIMATOR + POOLED, DEFAULT_ESTIMATOR + RUNS
    for varied in (False, True):
        for k in shifts:
            t = reorder(trace, k, varied)
            series = series_table(label, folder, pmcs, [DEFAULT_ESTIMATOR, "fixed"], trace=t)
            res = shipped(series, level) if fitted is None else left_out(series, fitted, level)
            for c, g in res[res["truth"] > 0].groupby("pmcs"):
                e = {name: g[g["estimator"] == name] for name in (own, pooled, runs, "fixed")}
                med = {name: v["rel_err"].median() for name, v in e.items()}
                rows.append(
                    {
                        "set": label,
                        "C": c,
                        "order": "varied" if varied else "same",
                        "K": k,
                        "perf's scaling": med["fixed"],
                        "default, each run": med[own],
                        "default, pooled": med[pooled],
                        "pooled vs perf's": med[pooled] / med["fixed"],
                        "each run: coverage": e[runs]["covered"].mean(),
                        "each run: width / error": e[runs]["rel_half"].median() / med[own],
                        "pooled: coverage": e[pooled]["covered"].mean(),
                        "pooled: width / error": e[pooled]["rel_half"].median() / med[pooled],
                    }
                )
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", default=[], required=True, help="LABEL=FOLDER")
    ap.add_argument("--out", default=os.path.expanduser("~/mpx-data/orders"))
    ap.add_argument("--pmcs", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--level", type=float, default=0.9)
    ap.add_argument("--shifts", type=int, nargs="+", default=list(SHIFTS), help="rotations K of each scheme")
    ap.add_argument(
        "--held-out",
        type=Path,
        help="series.parquet of mpx_intervals.py (runs listed alike): "
        "fit each workload's multipliers on the others' series instead of shipping them",
    )
    args = ap.parse_args()
    fitted = pd.read_parquet(args.held_out) if args.held_out else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    frames = []
    for s in args.set:
        label, folder = s.split("=", 1)
        frames.append(scheme_scores(label, folder, read_set(folder), args.pmcs, args.level, args.shifts, fitted))
        print(f"[{label}] {time.perf_counter() - t0:.0f} s", flush=True)
    allres = pd.concat(frames, ignore_index=True)
    allres.to_csv(out / "orders.csv", index=False)
    mean = allres.drop(columns="K").groupby(["set", "C", "order"], sort=False).mean()
    # over the sets: geometric means of the errors and ratios, plain means of coverage
    ratio = [c for c in mean.columns if "coverage" not in c]
    over = mean.groupby(["C", "order"]).agg(
        {c: (lambda x: float(np.exp(np.log(x).mean()))) if c in ratio else "mean" for c in mean.columns}
    )
    md = ["#### Per set and C: the mean over the five rotations of each order", "", markdown_table(mean, 3), ""]
    md += ["#### Over the sets (geometric means; coverage: plain means)", "", markdown_table(over, 3), ""]
    (out / "tables.md").write_text("\n".join(md))
    print("\n".join(md))
    print(f"done in {time.perf_counter() - t0:.0f} s; wrote {out}", flush=True)


if __name__ == "__main__":
    main()
