"""Merges at scale (issue 15): 1e6 runs x 16 events from Parquet end to end, and 256 events x 1e5 runs.

Run:  nice .venv/bin/python benchmarks/merge_scale.py [--data /tmp/hemkit-scale] [--repeat 3] [--float32]   (~10 min)

1. 16 events read in the 10 groups of a MUCH design on 6 counters (C(16,6,2) = 10), 1e5 runs
   per group (1e6 runs, 6e6 readings) in one tidy Parquet file.  ``hemkit merge FILE -m
   METHOD -o OUT.parquet -q`` runs in a fresh process (import, read, merge, write): wall time
   (median of ``--repeat``) and the process's peak RSS.  The same steps are then timed one by
   one in-process (read_readings, merge, write_table) to show where the time goes.
2. 256 events in three groups of ~171 (thirds A+B, A+C, B+C: every pair read together),
   1e5 runs each, merged with MUCH (n_sims=100; criterion auto = sample at this size) in a
   fresh process: seconds of the merge and the process's peak RSS (which includes building
   the readings).

``--float32``: step 1 only, on the same readings with the value column stored as float32
(``runs16_f32.parquet``), for the copula and MUCH cases: readings and merged table stay float32.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

MAKE = r"""
import sys
import numpy as np, pandas as pd
from hemkit.datasets.synthetic import make_truth
from hemkit.plan import much_design
truth = make_truth(16, 1_000_000, marginals="gamma", seed=0)
ev = list(truth.columns)
groups = much_design(ev, 6)
assert len(groups) == 10, groups
perm = np.random.default_rng(1).permutation(len(truth))
parts = []
for gi, g in enumerate(groups):
    sub = truth.iloc[perm[gi * 100_000:(gi + 1) * 100_000]][g].reset_index(drop=True)
    n, k = sub.shape
    parts.append(pd.DataFrame({"group": np.full(n * k, gi + 1, dtype=np.int64), "run": np.repeat(np.arange(n), k),
                               "event": np.tile(np.array(g, dtype=object), n), "value": sub.to_numpy().ravel()}))
table = pd.concat(parts, ignore_index=True)
if len(sys.argv) > 2 and sys.argv[2] == "float32":
    table["value"] = table["value"].astype(np.float32)
table.to_parquet(sys.argv[1], index=False)
"""

CLI = r"""
import resource, runpy, sys, time
t = time.perf_counter()
sys.argv = ["hemkit", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("hemkit", run_name="__main__")
except SystemExit as exc:
    code = exc.code
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT", time.perf_counter() - t, rss, code, file=sys.stderr)
"""

STEPS = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
from hemkit.io import read_readings, write_table
from hemkit.merge import merge
t1 = time.perf_counter()
r = read_readings(sys.argv[1])
t2 = time.perf_counter()
res = merge(r, sys.argv[2], seed=0, **json.loads(sys.argv[3]))
t3 = time.perf_counter()
write_table(res.data, sys.argv[4])
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "read": t2 - t1, "merge": t3 - t2, "write": t4 - t3,
                  "criterion": res.params.get("criterion"), "rows": len(res.data)}))
"""

WIDE = r"""
import json, resource, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from hemkit.core.readings import Readings
from hemkit.merge import merge_much
k, n = 256, 100_000
rng = np.random.default_rng(0)
w = rng.normal(size=(k, 8))
x = rng.standard_normal((n * 3, 8)) @ w.T + rng.standard_normal((n * 3, k))
x = np.round(1000 * np.exp(0.3 * x / x.std(axis=0)))
ev = [f"e{i:03d}" for i in range(k)]
a, b, c = np.array_split(np.arange(k), 3)
parts = [np.r_[a, b], np.r_[a, c], np.r_[b, c]]
import pandas as pd
data = Readings({g: pd.DataFrame(x[g * n:(g + 1) * n][:, cols], columns=[ev[i] for i in cols])
                 for g, cols in enumerate(parts)})
del x
t = time.perf_counter()
res = merge_much(data, n_sims=100, seed=0)
print(json.dumps({"seconds": time.perf_counter() - t, "criterion": res.params["criterion"], "rows": len(res.data),
                  "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/tmp/hemkit-scale")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--float32", action="store_true", help="the 1e6 x 16 file with float32 values (copula, much)")
    args = ap.parse_args()
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    src = data / ("runs16_f32.parquet" if args.float32 else "runs16.parquet")
    if not src.exists():
        subprocess.run([sys.executable, "-c", MAKE, str(src), "float32" if args.float32 else "float64"], check=True)
    kind = "float32 values, " if args.float32 else ""
    print(
        f"## 1e6 runs x 16 events (10 groups x 1e5, {kind}{src.stat().st_size / 2**20:.0f} MiB Parquet), end to end\n"
    )
    print("| command | seconds (median) | peak RSS MiB |\n|---|---|---|")
    cases = [
        ("copula", ["-m", "copula", "--pearson-weight", "0"], {"pearson_weight": 0.0}),
        ("copula (auto weight)", ["-m", "copula"], {}),
        ("copula (auto weight), 2 jobs", ["-m", "copula", "--jobs", "2"], {"jobs": 2}),
        ("much", ["-m", "much"], {}),
        ("much, 2 jobs", ["-m", "much", "--jobs", "2"], {"jobs": 2}),
        ("joint", ["-m", "joint"], {}),
    ]
    if args.float32:
        cases = [c for c in cases if c[0].split()[0] in ("copula", "much")]
    for label, opts, _ in cases:
        secs, rss = [], []
        for _ in range(args.repeat):
            out = data / "merged.parquet"
            p = subprocess.run(
                [sys.executable, "-c", CLI, "merge", str(src), *opts, "-o", str(out), "-q"],
                capture_output=True,
                text=True,
            )
            line = [x for x in p.stderr.splitlines() if x.startswith("RESULT")][-1].split()
            secs.append(float(line[1]))
            rss.append(float(line[2]))
        cmd = f"hemkit merge {src.name} {' '.join(opts)} -o merged.parquet -q"
        print(f"| `{cmd}` ({label}) | {statistics.median(secs):.2f} | {max(rss):.0f} |", flush=True)
    print("\nWhere the time goes (one in-process run each):\n")
    print("| method | import | read_readings | merge | write_table | criterion | rows |\n|---|---|---|---|---|---|---|")
    for label, _, kwargs in cases:
        method = label.split()[0].rstrip(",")
        p = subprocess.run(
            [sys.executable, "-c", STEPS, str(src), method, json.dumps(kwargs), str(data / "m.parquet")],
            capture_output=True,
            text=True,
        )
        r = json.loads(p.stdout.strip().splitlines()[-1])
        print(
            f"| {label} | {r['import']:.2f} | {r['read']:.2f} | {r['merge']:.2f} | {r['write']:.2f} "
            f"| {r['criterion']} | {r['rows']} |",
            flush=True,
        )
    if args.float32:
        return
    print("\n## 256 events x 1e5 runs (3 groups of ~171 events), MUCH n_sims=100\n")
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", WIDE], capture_output=True, text=True)
    if p.returncode:
        print(p.stderr[-2000:])
        return
    r = json.loads(p.stdout.strip().splitlines()[-1])
    print("| merge seconds | criterion | rows | peak RSS MiB (incl. building the readings) | wall s |")
    print("|---|---|---|---|---|")
    wall = time.perf_counter() - t
    print(f"| {r['seconds']:.1f} | {r['criterion']} | {r['rows']} | {r['maxrss_mib']:.0f} | {wall:.0f} |")


if __name__ == "__main__":
    main()
