"""Evaluate every multiplexing estimator on workloads held out from training (issue 4).

    .venv/bin/python benchmarks/mpx_eval.py --traces /work/data/mpx/traces.parquet --out /work/data/mpx/eval

Protocol: the OCOE traces (benchmarks/mpx_collect.py) are cleaned as in the paper, the
workloads are split into 2 folds (each fold mixes bundled C kernels and real programs);
for each fold the learned estimators are trained on the other fold's runs, emulated with 2
and 3 counters over the 5 events of each set at every rotation offset (data augmentation),
and every estimator is scored on the held-out fold emulated with 2 and 3 counters
(offset 0).  Writes scores.parquet, markdown tables (tables.md) and timing (timing.json).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.mpx import ScoreResult, clean_runs, emulate, make_estimator, read_trace, score
from hemkit.mpx.emulate import emulate_many
from hemkit.mpx.scores import markdown_table

FOLDS = [
    ["ph-alloc-compute", "ph-burst", "ph-pipe", "gzip", "bzip2", "gcc", "tar"],
    ["ph-io-sleep", "ph-mixed", "ph-cycle", "xz", "sort", "python"],
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--traces", default="/work/data/mpx/traces.parquet")
    ap.add_argument("--out", default="/work/data/mpx/eval")
    ap.add_argument("--mlp-epochs", type=int, default=40)
    ap.add_argument("--gru-epochs", type=int, default=25)
    ap.add_argument("--gru-hidden", type=int, default=64)
    ap.add_argument("--gru-layers", type=int, default=3)
    ap.add_argument("--counters", type=int, nargs="+", default=[2, 3])
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    trace = clean_runs(read_trace(args.traces))
    names = ["fixed", "linear", "growth", "min", "mlp", "mlp-ra", "bigru", "bigru-ra"]
    gru = {"epochs": args.gru_epochs, "hidden": args.gru_hidden, "layers": args.gru_layers}
    # "-ra": trained on the RA loss, starting from the min-of-slices rule; plain: the paper's MSE
    params = {
        "mlp": {"epochs": args.mlp_epochs},
        "mlp-ra": {"epochs": args.mlp_epochs, "loss": "ra", "base": "min"},
        "bigru": gru,
        "bigru-ra": gru | {"loss": "ra", "base": "min"},
    }
    tables, timing = [], {"fit_seconds": {}, "estimates_per_second": {n: [] for n in names}}
    for k, test_wl in enumerate(FOLDS):
        train_tr = trace[~trace["workload"].isin(test_wl)]
        test_tr = trace[trace["workload"].isin(test_wl)]
        train = emulate_many(train_tr, args.counters, range(5))
        fitted = {}
        for n in names:
            t0 = time.perf_counter()
            fitted[n] = make_estimator(n.removesuffix("-ra"), **params.get(n, {})).fit(train)
            timing["fit_seconds"].setdefault(n, []).append(time.perf_counter() - t0)
            print(f"fold {k}: fitted {n} in {time.perf_counter() - t0:.1f} s", flush=True)
        for c in args.counters:
            test = emulate(test_tr, c)
            ests = {}
            for n, est in fitted.items():
                t0 = time.perf_counter()
                ests[n] = est.estimate_array(test.without_truth())
                dt = time.perf_counter() - t0
                timing["estimates_per_second"][n].append(int(test.valid.sum()) / dt)
            sc = score(test, ests)
            sc["counters"] = c
            sc["fold"] = k
            tables.append(sc)
            print(ScoreResult(sc).overall().round(4), flush=True)
    scores = pd.concat(tables, ignore_index=True)
    scores.to_parquet(out / "scores.parquet", index=False)
    res = ScoreResult(scores)
    md = []
    for c in [None, *args.counters]:
        sub = ScoreResult(scores if c is None else scores[scores["counters"] == c])
        title = "all" if c is None else f"{c} counters / 5 events"
        md += [f"### Overall ({title})", "", markdown_table(sub.overall(), 4), ""]
    for key in ("event", "workload"):
        for metric in ("ra", "dtw"):
            md += [
                f"### {metric.upper()} per {key} (2 and 3 counters pooled)",
                "",
                markdown_table(res.by(key, metric)[names]),
                "",
            ]
    (out / "tables.md").write_text("\n".join(md))
    timing["fit_seconds"] = {n: float(np.mean(v)) for n, v in timing["fit_seconds"].items()}
    timing["estimates_per_second"] = {n: float(np.median(v)) for n, v in timing["estimates_per_second"].items()}
    (out / "timing.json").write_text(json.dumps(timing, indent=1))
    print(res.overall().round(4))
    print(json.dumps(timing, indent=1))


if __name__ == "__main__":
    main()
