"""Calibration of ``hemkit sampling diff`` (issue 24): A/A false flags and a known 3-point shift.

The bundled known-share workload (``hemkit.sampling.record``: functions ``work_k`` with identical
bodies running a known number of work units each, calls interleaved at random) is recorded
``--runs`` times with the base shares and ``--runs`` times with one function's share moved by
``--shift`` (work_0 from 30 % to 33 %, the others scaled down alike), with
``perf record -e cpu-clock -c PERIOD`` at about ``--samples`` samples a run.  Then:

1. A/A: every pair of two base runs, ``profile_diff`` at level 0.95: the share of keys flagged
   (the FDR is held at 5 %, so under no change at most 5 % of comparisons flag anything and a
   smaller share of keys), and the share of pairs flagging any key.
2. Shift: base run i against shifted run i (disjoint runs): how often work_0 is flagged, and
   the coverage of its difference interval of the true difference (the CPU time shares the
   workload measured itself).
3. ``perf diff`` on the first pairs, side by side with hemkit's difference and interval.
4. With ``--per-side K`` (K >= 2): the same with K recordings a side (``diff_recordings``, the
   moderated t): A/A of disjoint groups of K base runs, and base group g against shifted group g.

    python benchmarks/sampling_diff_calibration.py [--runs 20] [--samples 1600] [--granularity 50] [--per-side 3]
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import tempfile
import time
import warnings

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning
from hemkit.sampling.diff import diff_recordings, profile_diff
from hemkit.sampling.profile import read_samples
from hemkit.sampling.record import _parse_truth, default_event, workload

PERIOD_NS = 250_000  # cpu-clock: one sample per 0.25 ms of CPU time
NS_PER_UNIT = 2100.0  # about 2.1 us per work unit on this machine (hemkit.sampling.record.calibrate)


def record(path: str, units: list[int], granularity: int, seed: int, event: str) -> pd.Series:
    """One perf record of the workload into ``path``; returns each function's true share of CPU time."""
    cmd = ["perf", "record", "-q", "-e", event, "-c", str(PERIOD_NS), "-o", path, "--"]
    cmd += [workload(), str(granularity), str(seed), *map(str, units)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    t = _parse_truth(done.stdout)
    return t["cpu_ns"] / t["cpu_ns"].sum()


def perf_diff(a: str, b: str) -> dict[str, float]:
    """``perf diff``'s delta (percentage points) per symbol of the workload."""
    out = subprocess.run(["perf", "diff", a, b], capture_output=True, text=True).stdout
    deltas = {}
    for line in out.splitlines():
        parts = line.split()
        if line.startswith("#") or len(parts) < 3 or not parts[-1].startswith("work_"):
            continue
        delta = next((p for p in parts[1:] if p.endswith("%") and p[0] in "+-"), None)
        deltas[parts[-1]] = float(delta.rstrip("%")) if delta else 0.0
    return deltas


def run_one(args: argparse.Namespace, granularity: int, event: str, base_units: list, moved_units: list) -> None:
    """Record, then the three tables, at one running granularity."""
    with tempfile.TemporaryDirectory(prefix="hemkit-diff-") as tmp:
        paths = {"base": [], "moved": []}
        truths = {"base": [], "moved": []}
        for i in range(args.runs):
            for kind, units in (("base", base_units), ("moved", moved_units)):  # interleaved
                p = os.path.join(tmp, f"{kind}{i}.data")
                truths[kind].append(record(p, units, granularity, args.seed + 1000 * i + len(kind), event))
                paths[kind].append(p)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            samples = {k: [read_samples(p) for p in v] for k, v in paths.items()}
        n = [len(s) for s in samples["base"] + samples["moved"]]
        print(
            f"{2 * args.runs} recordings of {event} -c {PERIOD_NS}, granularity {granularity}: "
            f"{min(n)}-{max(n)} samples (median {int(np.median(n))})"
        )

        # 1. A/A
        keys_flagged = keys_all = pairs_any = pairs = 0
        for i, j in itertools.combinations(range(args.runs), 2):
            d = profile_diff(samples["base"][i], samples["base"][j])
            flagged = d.table["changed"].to_numpy(dtype=bool)
            keys_flagged += int(flagged.sum())
            keys_all += len(flagged)
            pairs_any += bool(flagged.any())
            pairs += 1
        print("\n## A/A: two base runs")
        print("| pairs | keys compared | keys flagged | pairs flagging any key |")
        print("|---|---|---|---|")
        print(f"| {pairs} | {keys_all} | {keys_flagged / keys_all:.3f} | {pairs_any / pairs:.3f} |")

        # 2. the shift
        flag = cover = 0
        rows = []
        for i in range(args.runs):
            d = profile_diff(samples["base"][i], samples["moved"][i])
            row = d.table.loc["work_0"]
            true = truths["moved"][i]["work_0"] - truths["base"][i]["work_0"]
            flag += bool(row["changed"])
            cover += bool(row["lower"] <= true <= row["upper"])
            rows.append((i, row, true))
        print(f"\n## Shift of work_0 by {100 * args.shift:.0f} points: base run i against shifted run i")
        print("| pairs | work_0 flagged | interval covers the true difference | median half-width (points) |")
        print("|---|---|---|---|")
        half = np.median([100 * (r["upper"] - r["lower"]) / 2 for _, r, _ in rows])
        print(f"| {args.runs} | {flag / args.runs:.3f} | {cover / args.runs:.3f} | {half:.2f} |")

        if args.per_side > 1:
            several(samples, truths, args.per_side)

        # 3. perf diff, side by side
        print("\n## perf diff on the first pairs (work_0, percentage points)")
        print("| pair | true difference | perf diff delta | hemkit difference [interval] | hemkit: changed |")
        print("|---|---|---|---|---|")
        for i, row, true in rows[:5]:
            pd_delta = perf_diff(paths["base"][i], paths["moved"][i]).get("work_0", float("nan"))
            print(
                f"| base{i} vs moved{i} | {100 * true:+.2f} | {pd_delta:+.2f} | {100 * row['difference']:+.2f} "
                f"[{100 * row['lower']:+.2f}, {100 * row['upper']:+.2f}] | {bool(row['changed'])} |"
            )


def several(samples: dict, truths: dict, k: int) -> None:
    """A/A and the shift with ``k`` recordings a side: disjoint groups of consecutive runs."""
    base, moved = samples["base"], samples["moved"]
    groups = [list(range(i, i + k)) for i in range(0, len(base) - k + 1, k)]
    aa = [(groups[i], groups[i + 1]) for i in range(0, len(groups) - 1, 2)]
    any_ = keys = flagged = 0
    for ga, gb in aa:
        d = diff_recordings([base[i] for i in ga], [base[i] for i in gb])
        ch = d.table["changed"].to_numpy(dtype=bool)
        any_ += bool(ch.any())
        keys += len(ch)
        flagged += int(ch.sum())
    flag = cover = 0
    half = []
    for g in groups:
        d = diff_recordings([base[i] for i in g], [moved[i] for i in g])
        row = d.table.loc["work_0"]
        true = np.mean([truths["moved"][i]["work_0"] for i in g]) - np.mean([truths["base"][i]["work_0"] for i in g])
        flag += bool(row["changed"])
        cover += bool(row["lower"] <= true <= row["upper"])
        half.append(100 * (row["upper"] - row["lower"]) / 2)
    print(f"\n## {k} recordings a side (moderated t)")
    print(
        "| A/A comparisons | keys compared | keys flagged | flagging any key | shift comparisons | work_0 flagged "
        "| interval covers the true difference | median half-width (points) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {len(aa)} | {keys} | {flagged} | {any_} | {len(groups)} | {flag} | {cover} | {np.median(half):.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--samples", type=int, default=1600)
    ap.add_argument("--granularity", type=int, nargs="+", default=[500, 50])
    ap.add_argument("--shift", type=float, default=0.03)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-side", type=int, default=1, help="also compare groups of this many recordings a side")
    args = ap.parse_args()
    t0 = time.perf_counter()
    event = default_event()
    total = int(args.samples * PERIOD_NS / NS_PER_UNIT)
    base_share = np.array([0.30, 0.20, 0.50])
    moved = base_share * (1 - base_share[0] - args.shift) / (1 - base_share[0])
    moved[0] = base_share[0] + args.shift
    base_units = [int(round(s * total)) for s in base_share]
    moved_units = [int(round(s * total)) for s in moved]
    for granularity in args.granularity:
        run_one(args, granularity, event, base_units, moved_units)
    print(f"\n({time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
