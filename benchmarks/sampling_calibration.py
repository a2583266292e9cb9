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
    """One row per (run, function, method); a method ``systematic:K:F`` uses the power K and the floor F."""
    from hemkit.sampling import profile

    frames = []
    default = (profile.IID_POWER, profile.FLOOR)
    for one in runs:
        funcs = one["truth"].index
        mine = one["samples"][one["samples"]["sym"].isin(funcs)]
        for m in methods:
            name, *params = m.split(":")
            profile.IID_POWER = float(params[0]) if params else default[0]
            profile.FLOOR = float(params[1]) if len(params) > 1 else default[1]
            try:
                t = profile.profile_shares(mine, by="sym", level=level, method=name).table.reindex(funcs)
            finally:
                profile.IID_POWER, profile.FLOOR = default
            frames.append(
                pd.DataFrame(
                    {
                        "function": funcs,
                        "truth": one["truth"].to_numpy(),
                        "share": t["share"].to_numpy(),
                        "se": t["se"].to_numpy(),
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
    c["z2"] = c["err2"] / c["se"] ** 2
    return c


def table(c: pd.DataFrame, z: float = 1.959964) -> pd.DataFrame:
    """Per cell and method: cases, coverage, width/ideal (median half-width over z x RMS error), RMS of error / se.

    The overall rows pool the cases for coverage and RMS z and take the largest width/ideal of the cells.
    """

    def agg(d: pd.DataFrame) -> pd.Series:
        ideal = z * np.sqrt(d["err2"].mean())
        return pd.Series(
            {
                "cases": len(d),
                "coverage": d["covered"].mean(),
                "width/ideal": d["half"].median() / ideal,
                "rms_z": np.sqrt(d["z2"].mean()),
            }
        )

    keys = ["setting", "granularity", "threads", "method"]
    cols = ["covered", "half", "err2", "z2"]
    t = c.groupby(keys, sort=False)[cols].apply(agg)
    overall = c.groupby("method", sort=False)[cols].apply(agg)
    overall["width/ideal"] = t.groupby("method", sort=False)["width/ideal"].max()
    overall.index = pd.MultiIndex.from_tuples([("all", "", "", m) for m in overall.index], names=keys)
    return pd.concat([t, overall])


#: The cells the power and floor of the systematic interval are chosen on; every other cell checks them.
CHOICE = (("-F 997", 1), ("-c 50000", 1))
POWERS = (2, 4, 8, 16, 32)
FLOORS = (0.0, 0.002, 0.005, 0.01, 0.02)


def is_choice(run: dict) -> bool:
    return (run["setting"], run["threads"]) in CHOICE


def choose(runs: list[dict]) -> tuple[float, float]:
    """Power and floor that make the SE match the actual error best: least mean log(RMS z)^2 over the choice cells."""
    grid = [(k, f) for k in POWERS for f in FLOORS]
    c = cases([r for r in runs if is_choice(r)], [f"systematic:{k}:{f}" for k, f in grid])
    rows = []
    for k, f in grid:
        d = c[c["method"] == f"systematic:{k}:{f}"]
        t = table(d).drop(index="all", level="setting")
        rows.append(
            {
                "power": k,
                "floor": f,
                "coverage": d["covered"].mean(),
                "worst cell coverage": t["coverage"].min(),
                "max width/ideal": t["width/ideal"].max(),
                "loss": float(np.mean(np.log(t["rms_z"]) ** 2)),
            }
        )
    out = pd.DataFrame(rows)
    best = out.sort_values(["loss", "power"]).iloc[0]
    print("choice cells: " + ", ".join(f"{s} {t} thread(s)" for s, t in CHOICE))
    print(out.round(3).to_string(index=False))
    print(f"chosen: power {best['power']:g}, floor {best['floor']:g}")
    return float(best["power"]), float(best["floor"])


def markdown(t: pd.DataFrame, methods) -> str:
    """One row per cell: samples, then coverage and width/ideal of each method."""
    cells = t.index.droplevel("method").unique()
    head = "| perf record | gran | threads | cases | " + " | ".join(f"cover {m} | width/ideal {m}" for m in methods)
    lines = [head + " |", "|" + " --- |" * (4 + 2 * len(methods))]
    for cell in cells:
        row = [str(x) for x in cell] + [f"{int(t.loc[(*cell, methods[0]), 'cases'])}"]
        for m in methods:
            row += [f"{t.loc[(*cell, m), 'coverage']:.3f}", f"{t.loc[(*cell, m), 'width/ideal']:.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--dir", default="/tmp/hemkit-cal")
    rec.add_argument("--rounds", type=int, default=10)
    ev = sub.add_parser("evaluate")
    ev.add_argument("--dir", default="/tmp/hemkit-cal")
    ev.add_argument("--methods", default="systematic,wilson,bound")
    ev.add_argument("--choose", action="store_true", help="also choose the power on the choice cells")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.dir, args.rounds)
        return
    pd.set_option("display.width", 250)
    t0 = time.time()
    runs = load(args.dir)
    methods = args.methods.split(",")
    if args.choose:
        choose(runs)
    c = cases(runs, methods)
    t = table(c)
    print(t.unstack("method").round(3).to_string())
    print(markdown(t, methods))
    held = c[[not is_choice({"setting": s_, "threads": t_}) for s_, t_ in zip(c["setting"], c["threads"])]]
    print("held-out cells only:")
    print(table(held).xs("all", level="setting").round(3).to_string())
    print(f"{len(runs)} runs, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
