"""Timing and memory of the merge methods: the T2080 data and a scaling series.

Run:  nice .venv/bin/python benchmarks/merge.py        (all cases, ~15 min on 2 cores)
      .venv/bin/python benchmarks/merge.py --quick    (T2080 only)

Each case runs in a fresh subprocess, so its peak RSS (ru_maxrss) is its own: it includes
building the synthetic readings, so it is an upper bound for the merge itself.

Scaling readings: k events split into thirds A, B, C read in three groups (A+B, A+C, B+C),
each with n runs: every pair is read together (a pair-covering design for a machine with
2k/3 counters), so the merge works at exactly k events x n runs.  HRM gets groups of an
anchor + 5 events, n runs each.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASE = r"""
import json, resource, sys, time, warnings
from dataclasses import replace
import numpy as np, pandas as pd
warnings.simplefilter("ignore")
from hemkit.core.readings import Readings
from hemkit.merge import CopulaOptions, MuchOptions, merge_copula, merge_hrm, merge_joint, merge_much
spec = json.loads(sys.argv[1])
method, k, n = spec["method"], spec["k"], spec["n"]
def timed(fn, repeat):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter(); fn(); best = min(best, time.perf_counter() - t)
    return best
if k == 0:
    from hemkit.datasets import t2080_hrm, t2080_much
    data = t2080_hrm() if method == "hrm" else t2080_much()
else:
    from hemkit.datasets.synthetic import make_truth
    truth = make_truth(k, n, seed=0, marginals="gamma")
    ev = list(truth.columns)
    if method == "hrm":
        groups = [[ev[0], *ev[i:i + 5]] for i in range(1, k, 5)]
        rng = np.random.default_rng(1)
        data = Readings({g: truth[cols].iloc[rng.permutation(n)].reset_index(drop=True)
                         for g, cols in enumerate(groups)})
    else:
        a, b, c = np.array_split(np.array(ev), 3)
        parts = [list(a) + list(b), list(a) + list(c), list(b) + list(c)]
        data = Readings({g: truth[cols].sample(frac=1.0, random_state=g).reset_index(drop=True)
                         for g, cols in enumerate(parts)})
    del truth
n_rows = spec.get("rows")
rows = MuchOptions(rows=n_rows)
fns = {
    "hrm": lambda: merge_hrm(data, data.events[0]),
    "much": lambda: merge_much(data, n_sims=100, seed=0, options=rows),
    "much-arranged": lambda: merge_much(data, n_sims=100, seed=0, options=replace(rows, criterion="arranged")),
    "much-sample": lambda: merge_much(data, n_sims=100, seed=0, options=replace(rows, criterion="sample")),
    "much-paper": lambda: merge_much(data, n_sims=100, seed=0, mode="paper", options=rows),
    "copula": lambda: merge_copula(data, seed=0, pearson_weight=0.0, options=CopulaOptions(rows=n_rows)),
    "copula-auto": lambda: merge_copula(data, seed=0, options=CopulaOptions(rows=n_rows)),
    "joint": lambda: merge_joint(data, seed=0),
}
seconds = timed(fns[method], spec["repeat"])
print(json.dumps({"seconds": seconds, "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(method: str, k: int, n: int, repeat: int, rows: int | None = None) -> dict:
    spec = json.dumps({"method": method, "k": k, "n": n, "repeat": repeat, "rows": rows})
    p = subprocess.run([sys.executable, "-c", CASE, spec], capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        return {"seconds": float("nan"), "maxrss_mib": float("nan"), "error": p.stderr.strip().splitlines()[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print("## T2080 (1000 runs per group; best of 3)\n")
    print("| method | data | merged rows | seconds | peak RSS MiB |\n|---|---|---|---|---|")
    for method, label, rows in [
        ("hrm", "hrm_raw (3 groups)", None),
        ("much", "much_raw (24 groups), n_sims=100 (criterion auto: arranged)", None),
        ("much", "much_raw, n_sims=100, as mergingTools' vignette", 1000),
        ("much-sample", "much_raw, n_sims=100, criterion=sample", None),
        ("much-paper", "much_raw, n_sims=100, the paper as written", None),
        ("copula", "much_raw, pearson_weight=0", None),
        ("copula-auto", "much_raw, pearson_weight=auto", None),
        ("joint", "much_raw (the default method)", None),
    ]:
        r = run(method, 0, 0, 3, rows)
        shown = rows or ("1000 (the anchor's quantiles)" if method == "hrm" else "every reading (24 000)")
        print(f"| {method} | {label} | {shown} | {r['seconds']:.3f} | {r['maxrss_mib']:.0f} |", flush=True)
    if args.quick:
        return
    print("\n## Scaling (one run each; n_sims=100)\n")
    print("| events | runs | method | seconds | peak RSS MiB |\n|---|---|---|---|---|")
    for k in (16, 64, 256):
        for n in (1_000, 10_000, 100_000):
            for method in ("hrm", "much", "much-sample", "copula", "copula-auto", "joint"):
                if method == "joint" and k * n > 2_000_000:
                    print(
                        f"| {k} | {n:,} | joint | skipped (its likelihood fit and tail swaps grow with k) | |",
                        flush=True,
                    )
                    continue
                r = run(method, k, n, 1)
                note = f" ({r['error']})" if "error" in r else ""
                print(f"| {k} | {n:,} | {method} | {r['seconds']:.2f}{note} | {r['maxrss_mib']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
