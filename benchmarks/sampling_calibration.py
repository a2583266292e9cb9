"""Calibration of the profile intervals on real perf record samples of the known-share workload.

    # 1. record (resumable: runs already in the folder are kept; rounds go over every cell)
    .venv/bin/python benchmarks/sampling_calibration.py record --dir /tmp/hemkit-cal --rounds 10
    # 2. coverage and width / ideal per cell of every interval method on the stored runs
    .venv/bin/python benchmarks/sampling_calibration.py evaluate --dir /tmp/hemkit-cal

Cells: perf record ``-e cpu-clock`` (``cycles`` on a PMU machine) at ``-c`` 5e4, 2.5e5, 1e6, 4e6
and ``-F`` 997, 4999; running granularity 5, 50, 500 units (~1.5 us each); 1 or 2 threads.
Each run stores the samples it needs (tid, time, sym, period) as Parquet and the measured truth
(thread CPU time per function) beside it, so that the interval methods are evaluated on the
same profiles.  Rounds go over every cell once, so a stopped recording leaves balanced cells.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import pandas as pd

from hemkit.core.rng import child, integer_seed
from hemkit.sampling.record import DEFAULT_UNITS, record_known_shares

SETTINGS = (("-c", 50_000), ("-c", 250_000), ("-c", 1_000_000), ("-c", 4_000_000), ("-F", 997), ("-F", 4999))
GRANULARITIES = (5, 50, 500)
THREADS = (1, 2)


def cell_name(flag: str, value: int, g: int, threads: int) -> str:
    return f"{flag[1]}{value}_g{g}_t{threads}"


def record(folder: str, rounds: int, seed: int = 0) -> None:
    os.makedirs(folder, exist_ok=True)
    t0 = time.time()
    for r in range(rounds):
        for flag, value in SETTINGS:
            for g in GRANULARITIES:
                for th in THREADS:
                    name = f"{cell_name(flag, value, g, th)}_r{r}"
                    path = os.path.join(folder, name + ".parquet")
                    if os.path.exists(path):
                        continue
                    s = integer_seed(child(seed, f"{flag} {value}", f"granularity {g}", f"threads {th}", f"run {r}"))
                    kw = {"period": value} if flag == "-c" else {"freq": value}
                    one = record_known_shares(DEFAULT_UNITS, granularity=g, seed=s, threads=th, **kw)
                    cols = [c for c in ("tid", "time", "sym", "period", "event") if c in one.samples.columns]
                    samples = one.samples[cols]
                    with open(os.path.join(folder, name + ".json"), "w") as fh:
                        json.dump({"truth": one.truth.to_dict(), "event": one.event}, fh)
                    samples.to_parquet(path + ".tmp", index=False)
                    os.replace(path + ".tmp", path)
                    print(f"{time.time() - t0:7.0f} s  {name}: {len(samples)} samples", flush=True)


def load(folder: str) -> list[dict]:
    runs = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".parquet"):
            continue
        stem = name[: -len(".parquet")]
        with open(os.path.join(folder, stem + ".json")) as fh:
            meta = json.load(fh)
        setting, g, th, r = stem.split("_")
        runs.append(
            {
                "samples": pd.read_parquet(os.path.join(folder, name)),
                "truth": pd.Series(meta["truth"]),
                "event": meta["event"],
                "setting": ("-c " if setting[0] == "c" else "-F ") + setting[1:],
                "granularity": int(g[1:]),
                "threads": int(th[1:]),
                "run": int(r[1:]),
            }
        )
    return runs


def cases(runs: list[dict], methods, level: float = 0.95) -> pd.DataFrame:
    """One row per (run, function, method); a method ``systematic:K`` uses the power K."""
    from hemkit.sampling import profile

    frames = []
    default = profile.IID_POWER
    for one in runs:
        funcs = one["truth"].index
        mine = one["samples"][one["samples"]["sym"].isin(funcs)]
        for m in methods:
            name, _, power = m.partition(":")
            profile.IID_POWER = float(power) if power else default
            try:
                t = profile.profile_shares(mine, by="sym", level=level, method=name).table.reindex(funcs)
            finally:
                profile.IID_POWER = default
            frames.append(
                pd.DataFrame(
                    {
                        "function": funcs,
                        "truth": one["truth"].to_numpy(),
                        "share": t["share"].to_numpy(),
                        "low": t["low"].to_numpy(),
                        "high": t["high"].to_numpy(),
                        "n": len(mine),
                        "setting": one["setting"],
                        "granularity": one["granularity"],
                        "threads": one["threads"],
                        "run": one["run"],
                        "method": m,
                    }
                )
            )
    c = pd.concat(frames, ignore_index=True)
    c["covered"] = (c["low"] <= c["truth"]) & (c["truth"] <= c["high"])
    c["half"] = (c["high"] - c["low"]) / 2
    c["err2"] = (c["share"] - c["truth"]) ** 2
    return c


def table(c: pd.DataFrame, z: float = 1.959964) -> pd.DataFrame:
    def agg(d: pd.DataFrame) -> pd.Series:
        ideal = z * np.sqrt(d["err2"].mean())
        return pd.Series({"cases": len(d), "coverage": d["covered"].mean(), "width/ideal": d["half"].median() / ideal})

    keys = ["setting", "granularity", "threads", "method"]
    t = c.groupby(keys, sort=False)[["covered", "half", "err2"]].apply(agg)
    return t


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--dir", default="/tmp/hemkit-cal")
    rec.add_argument("--rounds", type=int, default=10)
    ev = sub.add_parser("evaluate")
    ev.add_argument("--dir", default="/tmp/hemkit-cal")
    ev.add_argument("--methods", default="wilson")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.dir, args.rounds)
        return
    pd.set_option("display.width", 200)
    c = cases(load(args.dir), args.methods.split(","))
    print(table(c).unstack("method").round(3).to_string())


if __name__ == "__main__":
    main()
