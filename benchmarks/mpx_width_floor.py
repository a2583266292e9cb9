"""How narrow can 90 % intervals on multiplexed totals be? Oracle scales against the shipped one (issue 26, item 4).

Item 4 asks for intervals that cover 85-97 % of the true totals with a median half-width at most 3x
the median |error| of the totals.  The shipped intervals cover, at 3-4.4x.  The errors are heavy-tailed
(a burst that lands in a gap), so a width that holds 90 % of them is many times the typical one
unless the interval knows *which* totals are the hard ones.  This script asks how much knowing that
would give, on the series tables ``mpx_intervals.py`` writes (``series.parquet``: every run x event x
estimator with its total, truth and interval), per set, C and estimator (``checked`` per run,
``checked+pool`` pooled over the runs of a workload).  Each scale below gets the multiplier that
makes it cover **exactly** 90 % of that set's totals (chosen with the truth, so the coverage is
given to all of them alike), and the table reports its median half-width over the median |error|
(relative to the true total, as ``mpx_intervals.py`` does):

- ``no scale``: one width for every total (the errors' 90th percentile over their median);
- ``event oracle``: each total's scale is the median |error| of its event over the set's workloads
  (from the truth: how hard the event is);
- ``shipped scale, one multiplier``: the package's own scale of each total (from the run), with one multiplier
  for all (the package has one per count class);
- ``workload x event oracle``: the median |error| of the runs of the same workload and event, the
  run itself included (from the truth: how hard this event is in this program; what an interval
  could know at best from other runs of the same program, short of which run had a burst in a gap).

    OPENBLAS_NUM_THREADS=1 nice -n 5 .venv/bin/python benchmarks/mpx_intervals.py --out /tmp/iv \
        --fresh fresh4=/work/mpx-data/fresh4 ... --fresh fresh10=/work/mpx-data/fresh10         # 4 min
    .venv/bin/python benchmarks/mpx_width_floor.py /tmp/iv/series.parquet                     # 5 s
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from hemkit.mpx.scores import markdown_table

LEVEL = 0.9


def width_at(scale: np.ndarray, err: np.ndarray, level: float = LEVEL) -> float:
    """Median half-width over median |error| of intervals ``q x scale`` covering exactly ``level`` of ``err``."""
    ok = np.isfinite(scale) & (scale > 0)
    q = np.quantile(err[ok] / scale[ok], level)
    half = np.where(ok, q * np.where(ok, scale, 0.0), np.inf)  # no scale: no interval
    return float(np.median(half) / np.median(err))


def group_median(frame: pd.DataFrame, by: list[str]) -> np.ndarray:
    return frame.groupby(by)["rel_err"].transform(lambda x: x.abs().median()).to_numpy()


def rows(series: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (name, pmcs, estimator), e in series.groupby(["set", "pmcs", "estimator"], sort=True):
        if estimator not in ("checked", "checked+pool"):
            continue
        e = e[np.isfinite(e["rel_err"])]
        err = e["rel_err"].abs().to_numpy()
        out.append(
            {
                "set": name,
                "C": pmcs,
                "totals": "pooled" if estimator.endswith("+pool") else "each run",
                "shipped: coverage": e["covered"].mean(),
                "shipped: width / error": e["rel_half"].median() / np.median(err),
                "no scale": float(np.quantile(err, LEVEL) / np.median(err)),
                "event oracle": width_at(group_median(e, ["event"]), err),
                "shipped scale, one multiplier": width_at((e["rel_half"] / e["q"]).to_numpy(), err),
                "workload x event oracle": width_at(group_median(e, ["workload", "event"]), err),
            }
        )
    return pd.DataFrame(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("series", nargs="+", help="series.parquet files written by mpx_intervals.py")
    args = ap.parse_args()
    table = rows(pd.concat([pd.read_parquet(f) for f in args.series], ignore_index=True))
    print("median half-width / median |error| of intervals covering exactly 90 % (shipped: as shipped)\n")
    label = table["set"] + ", C = " + table["C"].astype(str) + ", " + table["totals"]
    print(markdown_table(table.drop(columns=["set", "C", "totals"]).set_index(label.rename("set, C, totals"))))
    print("\nmedian over the sets:\n")
    med = table.drop(columns="set").groupby(["totals", "C"]).median()
    med.index = pd.Index([f"{t}, C = {c}" for t, c in med.index], name="totals, C")
    print(markdown_table(med))


if __name__ == "__main__":
    main()
