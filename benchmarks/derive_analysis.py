"""Speed and accuracy of the metric-derivation analysis on a synthetic event matrix (issue 5).

    .venv/bin/python benchmarks/derive_analysis.py [--events 1000] [--loops 50] [--reps 3] [--repeat 5]

Builds a basis of LOOPS kernel loops x 16 expectations (FLOPs-like: three loop sizes per
expectation, the rest mixed rows), plants one event per expectation, then fills up to EVENTS
columns with duplicates, scaled copies, linear combinations, loop-overhead events (outside the
span of E), all-zero and noisy events, shuffled.  Times the whole analysis from the tidy table
(``kernel, size, rep, event, value``) to the definition table: cube, max RNMSE, projection,
pivoted QR, least squares of the 10 FLOPs signatures.  Checks that the QR picked one planted
event per expectation and that the rounded coefficients equal the planted signatures.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from hemkit.derive.analysis import analyze_cube, measurement_cube
from hemkit.derive.families import Family, flops_family


def synthetic(n_events: int, n_loops: int, reps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    fam = flops_family()
    k = fam.basis.shape[1]
    E = fam.basis.to_numpy()
    if n_loops > E.shape[0]:  # extra mixed loops (several kernels in one loop)
        extra = rng.integers(0, 3, (n_loops - E.shape[0], k)) * 12.0
        E = np.vstack([E, extra])
    E = E[:n_loops]
    rows = [f"k{i}/1" for i in range(n_loops)]
    basis = pd.DataFrame(E, index=rows, columns=fam.basis.columns)
    cols, names, dim = [E[:, i] for i in range(k)], [f"planted{i}" for i in range(k)], list(range(k))
    kinds = ["dup", "scaled", "comb", "overhead", "zero", "noisy"]
    while len(cols) < n_events:
        kind = kinds[len(cols) % len(kinds)]
        i, j = rng.choice(k, 2, replace=False)
        if kind == "dup":
            c = E[:, i].copy()
        elif kind == "scaled":
            c = E[:, i] * rng.choice([2.0, 4.0, 8.0, 0.25])
        elif kind == "comb":
            c = E[:, i] + rng.integers(1, 4) * E[:, j]
        elif kind == "overhead":
            c = np.full(n_loops, float(rng.integers(1, 5))) + E[:, i]
        elif kind == "zero":
            c = np.zeros(n_loops)
        else:
            c = rng.uniform(1, 1e3, n_loops)
        cols.append(c)
        names.append(f"{kind}{len(cols)}")
        dim.append(i if kind == "dup" else -1)
    M = np.array(cols).T
    cube = np.repeat(M[None], reps, axis=0)
    noisy = [n.startswith("noisy") for n in names]
    cube[:, :, noisy] *= rng.uniform(0.98, 1.02, (reps, n_loops, sum(noisy)))
    perm = rng.permutation(len(names))
    cube, names, dim = cube[:, :, perm], [names[p] for p in perm], [dim[p] for p in perm]
    truth = {n: (int(n[7:]) if n.startswith("planted") else d) for n, d in zip(names, dim, strict=True)}
    r, l_, e = np.meshgrid(np.arange(reps), np.arange(n_loops), np.arange(len(names)), indexing="ij")
    tidy = pd.DataFrame(
        {
            "kernel": np.array([f"k{i}" for i in range(n_loops)])[l_.ravel()],
            "size": "1",
            "run": r.ravel(),
            "event": np.array(names)[e.ravel()],
            "value": cube.ravel(),
        }
    )
    return fam, basis, tidy, truth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--loops", type=int, default=50)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    fam, basis, tidy, truth = synthetic(a.events, a.loops, a.reps)
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        cube, events = measurement_cube(tidy, list(basis.index))
        res = analyze_cube(cube, events, Family("synthetic", basis, fam.signatures))
        table = res.table()
        times.append(time.perf_counter() - t0)
    dims = sorted(truth[c] for c in res.chosen)
    ok_qr = dims == list(range(basis.shape[1]))
    ok_ls = True
    for _, row in res.definitions.iterrows():
        got = np.zeros(basis.shape[1])
        for ev, c in row["rounded_coefficients"].items():
            got[truth[ev]] += c
        ok_ls &= bool(np.allclose(got, fam.signatures.loc[row["metric"]].to_numpy()))
    print(f"{a.events} events x {a.loops} kernel loops x {a.reps} reps ({len(tidy)} tidy rows)")
    print(f"whole analysis: median {np.median(times):.3f} s, max {max(times):.3f} s over {a.repeat} repeats")
    print(
        f"kept {res.X.shape[1]} events, dropped {len(res.dropped)}; QR chose {len(res.chosen)}: "
        f"one planted event per expectation: {ok_qr}; LS recovered every signature: {ok_ls}"
    )
    print(f"defined metrics: {int((table['verdict'] == 'defined').sum())} of {len(table)}")


if __name__ == "__main__":
    main()
