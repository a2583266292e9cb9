"""The floor of a Python process for the MUCH-vs-R comparison (issue 15): MUCH with NumPy alone.

Run:  .venv/bin/python benchmarks/much_floor.py [--repeat 5]

``benchmarks/merge_vs_r.py`` times ``hemkit merge much_raw.csv --pmcs 6 --codes code2name.csv
-m much --rows 1000 --n-sims 100`` against ``mergingTools::MUCH_merge``.  This script asks how
fast *any* Python process could do that job: it imports only NumPy and click (as hemkit's CLI
does) and hemkit's NumPy normal quantile, reads the raw CSV with ``np.loadtxt``, runs MUCH's
steps (pooled normal scores, pairwise correlations, repair, 100 float32 draws judged on the
arranged readings, the best draw's arrangement) and writes the CSV with ``np.savetxt``.  It
does none of hemkit's validation, drift centring, warnings or summary table, so it is a lower
bound, not a second implementation: it is never used for results.

Prints the median wall time of ``--repeat`` fresh processes, and of ``python -c "import pandas"``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from hemkit.datasets import t2080_path
from merge_vs_r import wall  # the same wall clock as the R comparison (this folder is on sys.path)

JOB = r"""
import sys
import numpy as np
import click  # noqa: F401  (hemkit's CLI imports it before anything runs)
from hemkit.core.normal import rank_scores

raw, out = sys.argv[1], sys.argv[2]
pmcs, n, n_sims = 6, 1000, 100
with open(raw) as fh:
    header = [h.strip('"') for h in fh.readline().strip().split(",")]
data = np.loadtxt(raw, delimiter=",", skiprows=1)
codes = [int(h.lstrip("X").split(".")[0]) for h in header]
groups = [(codes[i:i + pmcs], data[:, i:i + pmcs]) for i in range(0, len(codes), pmcs)]
events = list(dict.fromkeys(c for g, _ in groups for c in g))
k = len(events)
idx = {e: i for i, e in enumerate(events)}
scores = [np.empty_like(x) for _, x in groups]
for e in events:  # pooled normal scores (MUCH Eq. 1)
    where = [(gi, g.index(e)) for gi, (g, _) in enumerate(groups) if e in g]
    pooled = np.concatenate([groups[gi][1][:, j] for gi, j in where])
    _, inv, cnt = np.unique(pooled, return_inverse=True, return_counts=True)
    z = rank_scores((np.cumsum(cnt) - (cnt - 1) / 2)[inv], len(pooled))
    s = 0
    for gi, j in where:
        m = len(groups[gi][1])
        scores[gi][:, j] = z[s:s + m]
        s += m


def pairwise(arrays):
    sxy, sxx, syy = np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k))
    for (g, _), x in zip(groups, arrays):
        xc = x - x.mean(0)
        ii = np.array([idx[e] for e in g])
        c = xc.T @ xc
        d = np.diag(c)
        sxy[np.ix_(ii, ii)] += c
        sxx[np.ix_(ii, ii)] += d[:, None]
        syy[np.ix_(ii, ii)] += d[None, :]
    return sxy / np.sqrt(sxx * syy)


sigma = pairwise(scores)
w, v = np.linalg.eigh(sigma)  # repair to a correlation matrix
sigma = (v * np.clip(w, 1e-6, None)) @ v.T
d = np.sqrt(np.diag(sigma))
chol = np.linalg.cholesky(sigma / np.outer(d, d))
scaled = [(x - np.median(x, 0)) / np.abs(x - np.median(x, 0)).max(0) for _, x in groups]
iu = np.triu_indices(k, 1)
goal = pairwise(scaled)[iu]
vals = np.empty((k, n))
for e in events:
    pooled = np.sort(np.concatenate([x[:, g.index(e)] for g, x in groups if e in g]))
    vals[idx[e]] = pooled[np.rint(np.linspace(0, len(pooled) - 1, n)).astype(int)]
std = vals - np.median(vals, 1, keepdims=True)
std = (std / np.abs(std).max(1, keepdims=True)).astype(np.float32)
rng = np.random.default_rng(0)
sample = chol.astype(np.float32) @ rng.standard_normal((n_sims, k, n), dtype=np.float32)
order = np.argsort(sample, axis=-1)
merged = np.empty(sample.shape, np.float32)
np.put_along_axis(merged, order, np.broadcast_to(std, sample.shape), axis=-1)
mc = merged - merged.mean(-1, keepdims=True)
cov = mc @ np.swapaxes(mc, -1, -2)
sd = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
corr = cov / (sd[..., :, None] * sd[..., None, :])
best = int(((corr[:, iu[0], iu[1]] - goal) ** 2).mean(1).argmin())
result = np.empty((k, n))
np.put_along_axis(result, order[best], vals, axis=-1)
np.savetxt(out, result.T, delimiter=",", header=",".join(map(str, events)), comments="", fmt="%.17g")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    raw = str(t2080_path("much_raw.csv"))
    with tempfile.TemporaryDirectory() as d:
        out = str(Path(d) / "floor.csv")
        job = [wall([sys.executable, "-c", JOB, raw, out]) for _ in range(args.repeat)]
        cols = len(Path(out).read_text().splitlines()[0].split(","))
    pandas = [wall([sys.executable, "-c", "import pandas"]) for _ in range(args.repeat)]
    print(f"MUCH with NumPy alone ({cols} events x 1000 rows, 100 draws): median {statistics.median(job):.3f} s")
    print(f"python -c 'import pandas': median {statistics.median(pandas):.3f} s")


if __name__ == "__main__":
    main()
