"""False warnings of ``compare`` on sides of several hosts that read alike, and what a real difference gives.

``compare(a, b, hosts=...)`` warns about a side whose hosts read an event differently (the
machines check of issue 25 on each side).  Two parts:

- **A/A, fake hosts** (``--splits``): each data set of compare's calibration
  (``compare_calibration.load()``) split at random into two halves A and B, and each half's
  runs dealt at random to two fake hosts (half each; and 80/20): every host reads the same
  distribution, so every warning is false.  Counted: sides warned, of 2 per split.
- **Real hosts running the same program** (``--alike FOLDER``): the databases of one
  collection measured on two (emulated) hosts with the same program and input, split at random
  into halves that keep each run's host; counted as above.
- **A real difference** (``--differs FOLDER``, with ``--alike``): one ``compare`` of a collection
  whose second host was given another input against the alike one; its warning and verdict.

    python benchmarks/compare_hosts.py --splits 100 --seed 1 [--alike DIR --differs DIR]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from compare_calibration import binom_ci, halves, load
from hemkit.compare import compare
from hemkit.core.errors import HemkitWarning
from hemkit.core.readings import Readings
from hemkit.io import read_machines, read_readings
from machines_check import SETUPS, fake_hosts

LEVEL = 0.95


def _run(a: Readings, b: Readings, hosts: tuple, seed: int) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HemkitWarning)
        res = compare(a, b, level=LEVEL, seed=seed, hosts=hosts)
    return res, [str(w.message) for w in caught if "pools runs" in str(w.message)]


def aa_fake(name: str, r: Readings, setup: str, splits: int, rng: np.random.Generator) -> dict:
    warned = comparisons = 0
    t0 = time.perf_counter()
    for s in range(splits):
        a, b = halves(r, rng)
        hosts = (fake_hosts(a, SETUPS[setup], rng), fake_hosts(b, SETUPS[setup], rng))
        res, said = _run(a, b, hosts, s)
        warned += len(res.mixed_hosts)
        comparisons += bool(said)
    return {
        "data": name,
        "hosts": setup,
        "events": len(r.events),
        "splits": splits,
        "sides warned": f"{warned}/{2 * splits} = {warned / (2 * splits):.3f} {binom_ci(warned, 2 * splits)}",
        "comparisons warned": f"{comparisons / splits:.3f}",
        "s/split": f"{(time.perf_counter() - t0) / splits:.2f}",
    }


def aa_real(folder: str, splits: int, rng: np.random.Generator) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        r = read_readings(folder, min_runs=1)
    hosts = read_machines(folder)
    warned = 0
    for s in range(splits):
        a, b = halves(r, rng)
        res, _ = _run(a, b, (hosts, hosts), s)
        warned += len(res.mixed_hosts)
    runs = ", ".join(f"{h} {n}" for h, n in hosts["host"].value_counts().sort_index().items())
    return {
        "data": f"{folder} (real hosts: {runs} runs)",
        "hosts": "2 real",
        "events": len(r.events),
        "splits": splits,
        "sides warned": f"{warned}/{2 * splits} = {warned / (2 * splits):.3f} {binom_ci(warned, 2 * splits)}",
    }


def real_difference(differs: str, alike: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        a, b = read_readings(differs, min_runs=1), read_readings(alike, min_runs=1)
    res, said = _run(a, b, (read_machines(differs), read_machines(alike)), 0)
    plain = compare(a, b, level=LEVEL, seed=0)
    print(f"\ncompare {differs} {alike}:")
    for line in said:
        print(f"  warning: {line}")
    cols = ["event", "median_a", "median_b", "ratio", "lower", "upper", "p_value", "changed"]
    print(res.to_frame()[cols].to_string(index=False))
    print(f"  verdict the same as without hosts: {res.to_frame().equals(plain.to_frame())}")
    print(f"  summary hosts_differ: {res.row()['hosts_differ']}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", nargs="*", help="Only these data sets (t2080 zen5 gzip kernel).")
    ap.add_argument("--setups", nargs="*", default=["2 hosts", "2 hosts 80/20"])
    ap.add_argument("--alike", help="A folder of collection databases of two hosts running the same program.")
    ap.add_argument("--differs", help="The same, its second host given another input (needs --alike).")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = []
    for name, r in load().items():
        if args.only and name not in args.only:
            continue
        for setup in args.setups:
            rows.append(aa_fake(name, r, setup, args.splits, rng))
            print(rows[-1], flush=True)
    if args.alike:
        rows.append(aa_real(args.alike, args.splits, rng))
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows).fillna("")
    print("| " + " | ".join(table.columns) + " |\n|" + "---|" * len(table.columns))
    for row in table.itertuples(index=False):
        print("| " + " | ".join(map(str, row)) + " |")
    if args.differs and args.alike:
        real_difference(args.differs, args.alike)


if __name__ == "__main__":
    main()
