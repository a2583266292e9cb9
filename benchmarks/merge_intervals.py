"""Which per-pair interval to give merged correlations: calibration on data with a known truth (issue 16).

Run:  nice .venv/bin/python benchmarks/merge_intervals.py [--merge-boot 0]   (~5 min; --merge-boot 40: ~1 h)

For every split of a truth table into a MUCH design (the real ``br_64kb``: np 3 and 4, 20
splits each; synthetic heavy-tailed, log-normal and mixed truths of 900 runs: np 3 and 4)
the joint merge is run once, and 90 % intervals for every pair are made by each candidate:

- ``naive``: percentile bootstrap of the pooled pairwise Pearson correlation (runs resampled
  within groups, 400 resamples) -- the textbook way, and the one the issue measured;
- ``fisher-textbook``: Fisher z around the pairwise correlation, ``se = 1/sqrt(m - 3)``;
- ``fisher-merged``: the same around the merged correlation;
- ``boot-se-merged``: Fisher z around the merged correlation, ``se`` = bootstrap sd of
  ``atanh`` of the pairwise correlation;
- ``jackknife-merged``: ``se`` = jackknife sd of ``atanh`` of the pairwise correlation
  (leave one of the runs read together out, within its group);
- ``jackknife-all-runs`` (hemkit's): ``se`` = jackknife sd of ``atanh`` of the average of
  the pairwise and the available-case correlation, leaving out every run of either event;
- ``jackknife-hull``: the union of the jackknife intervals around the merged and the
  pairwise correlation;
- ``jackknife+gap``: around the merged correlation, ``se^2 = se_jack^2 + (z_merged - z_pairwise)^2``
  (the disagreement of the two estimates counted as possible error);
- ``merge-bootstrap`` (with ``--merge-boot B``): percentile interval of the merged
  correlation over ``B`` merges of resampled runs (B whole merges: slow).

Coverage = share of pairs whose true correlation (of the complete table) lies inside;
width = median width, and its ratio to the naive interval's.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from scipy.special import ndtri

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.readings import Readings
from hemkit.datasets import split_truth, zen5_br_64kb
from hemkit.datasets.synthetic import make_truth
from hemkit.merge import merge
from hemkit.merge.intervals import mix_jackknife, pairwise_jackknife
from hemkit.merge.joint import _pearson_estimates

LEVEL = 0.9
SPLITS = 20  # real splits per counter budget


def cases():
    """(label, truth, pmcs, seed) for every split."""
    real = zen5_br_64kb()
    for pmcs in (3, 4):
        for s in range(SPLITS):
            yield "br_64kb", real, pmcs, s
    for family in ("heavy", "lognormal", "mixed"):
        for s in range(3):
            truth = make_truth(8, 900, marginals=family, seed=100 + s)
            for pmcs in (3, 4):
                yield family, truth, pmcs, s


def intervals(truth: pd.DataFrame, pmcs: int, seed: int, merge_boot: int) -> pd.DataFrame:
    """Every candidate's interval for every pair of one split."""
    r = split_truth(truth, pmcs, seed=seed)
    ev = r.events
    k = len(ev)
    i, j = np.triu_indices(k, 1)
    true = truth[ev].corr().to_numpy()[i, j]
    rng = np.random.default_rng(seed)
    merged = merge(r, "joint", seed=seed).data[ev].corr().to_numpy()[i, j]
    pw, se_jack, m = pairwise_jackknife(r)
    pw, se_jack, m = pw[i, j], se_jack[i, j], m[i, j]
    se_mix = mix_jackknife(r)[i, j]
    weights = {
        g: rng.multinomial(len(t), np.full(len(t), 1 / len(t)), size=400).astype(float) for g, t in r.groups.items()
    }
    boot = _pearson_estimates(r, weights)[0][:, i, j]
    q = float(ndtri((1 + LEVEL) / 2))
    z = np.arctanh(np.clip(merged, -0.999999, 0.999999))
    zp = np.arctanh(np.clip(pw, -0.999999, 0.999999))
    se_boot = np.nanstd(np.arctanh(np.clip(boot, -0.999999, 0.999999)), axis=0)
    se_text = 1 / np.sqrt(np.maximum(m - 3, 1))
    out = {
        "naive": (np.nanquantile(boot, (1 - LEVEL) / 2, axis=0), np.nanquantile(boot, (1 + LEVEL) / 2, axis=0)),
        "fisher-textbook": (np.tanh(zp - q * se_text), np.tanh(zp + q * se_text)),
        "fisher-merged": (np.tanh(z - q * se_text), np.tanh(z + q * se_text)),
        "boot-se-merged": (np.tanh(z - q * se_boot), np.tanh(z + q * se_boot)),
        "jackknife-merged": (np.tanh(z - q * se_jack), np.tanh(z + q * se_jack)),
        "jackknife-all-runs (hemkit)": (np.tanh(z - q * se_mix), np.tanh(z + q * se_mix)),
        "jackknife-hull": (
            np.minimum(np.tanh(z - q * se_jack), np.tanh(zp - q * se_jack)),
            np.maximum(np.tanh(z + q * se_jack), np.tanh(zp + q * se_jack)),
        ),
        "jackknife+gap": (
            np.tanh(z - q * np.sqrt(se_jack**2 + (z - zp) ** 2)),
            np.tanh(z + q * np.sqrt(se_jack**2 + (z - zp) ** 2)),
        ),
    }
    if merge_boot:
        draws = []
        for b in range(merge_boot):
            rb = {g: t.iloc[rng.integers(0, len(t), len(t))].reset_index(drop=True) for g, t in r.groups.items()}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", HemkitWarning)
                    mb = merge(Readings(rb, drop_constant=True), "joint", seed=b, impute="maxdet").data
                draws.append(mb[ev].corr().to_numpy()[i, j])
            except (InputError, KeyError):
                continue
        d = np.array(draws)
        out["merge-bootstrap"] = (np.quantile(d, (1 - LEVEL) / 2, axis=0), np.quantile(d, (1 + LEVEL) / 2, axis=0))
    rows = []
    for name, (lo, hi) in out.items():
        for p in range(len(i)):
            rows.append({"candidate": name, "pair": p, "truth": true[p], "lower": lo[p], "upper": hi[p]})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--merge-boot", type=int, default=0, help="whole-merge bootstrap resamples (0: skip)")
    args = ap.parse_args()
    parts = []
    for label, truth, pmcs, seed in cases():
        t = intervals(truth, pmcs, seed, args.merge_boot)
        parts.append(t.assign(data="br_64kb (real)" if label == "br_64kb" else "synthetic", family=label, pmcs=pmcs))
        print(f"{label} np={pmcs} split {seed}", flush=True)
    df = pd.concat(parts, ignore_index=True)
    df["covered"] = (df["lower"] <= df["truth"]) & (df["truth"] <= df["upper"])
    df["width"] = df["upper"] - df["lower"]
    naive_w = df[df["candidate"] == "naive"].groupby("data")["width"].median()
    table = df.groupby(["data", "candidate"], sort=False).agg(
        coverage=("covered", "mean"), median_width=("width", "median")
    )
    table["width_vs_naive"] = table["median_width"] / naive_w.reindex(table.index.get_level_values(0)).to_numpy()
    print("\n| data | candidate | coverage | median width | width / naive |\n|---|---|---|---|---|")
    for (data, cand), row in table.iterrows():
        print(f"| {data} | {cand} | {row['coverage']:.3f} | {row['median_width']:.3f} | {row['width_vs_naive']:.2f} |")
    per = df.groupby(["family", "pmcs", "candidate"], sort=False)["covered"].mean().unstack(2)
    print("\nCoverage per data set and counters:\n")
    print(per.round(3).to_string())


if __name__ == "__main__":
    main()
