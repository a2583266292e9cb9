"""Why no statistic of a profile sees its error when calls are shorter than the sampling interval.

    .venv/bin/python benchmarks/sampling_short_calls.py [--lines 40] [--samples 1600]

Noise-free periodic sampling of simulated running states (4 functions at 10/20/30/40 %, calls of
U[g/2, 3g/2] units interleaved at random, as the known-share workload does), interval T = 100
units, R = mean call / interval from 0.05 to 8.  For each line of states the exact error of every
start phase is known (:func:`hemkit.sampling.model.start_phase_profiles`: the profiled share at
phase p minus the line's own share), so per R this prints:

- ``exact/binom``: the RMS error over all phases and lines over the binomial SD ``sqrt(p(1-p)/n)``;
- ``r1``: the lag-1 variogram ratio of the sampled key sequence (what ``--method systematic``
  reads; 1 for independent draws), and ``ac1``..``ac3``: the sequence's autocorrelations at lags
  1-3 (for the 30 % function);
- ``se/binom``: the systematic SE (model alone, floor 0) over the binomial SD, and the coverage and
  width / ideal of its 95 % intervals.

Below R = 1 the sampled sequence is that of independent draws at every R (r1 = 1, no
autocorrelation), while the exact error falls with R: the information that would narrow the
interval is not in the profile.  (A call shorter than the interval is sampled at most once, and
successive samples fall in calls a whole interval apart.)
"""

from __future__ import annotations

import argparse

import numpy as np

from hemkit.sampling import Task, generate_states
from hemkit.sampling.model import start_phase_profiles
from hemkit.sampling.profile import systematic_variance

SHARES = (0.1, 0.2, 0.3, 0.4)
T = 100


def one_r(r: float, lines: int, samples: int, seed: int) -> dict[str, float]:
    tasks = [Task(f"f{i}", s, r * T, "uniform") for i, s in enumerate(SHARES)]
    err, se, binom, cover, r1s, acs = [], [], [], [], [], []
    rng = np.random.default_rng(seed)
    for line in range(lines):
        st = generate_states(tasks, samples * T, seed=seed * 1000 + line)
        prof = start_phase_profiles(st, T)
        states = np.asarray(st.states)
        own = np.bincount(states, minlength=len(st.names)) / states.size
        names = list(st.names)
        cols = [names.index(f"f{i}") for i in range(len(SHARES))]
        e = prof.to_numpy()[:, cols] - own[cols]
        err.append(e)
        for phase in rng.choice(T, 5, replace=False):
            seq = states[phase::T]
            var, iid = systematic_variance(seq, np.ones(seq.size), n_keys=len(names), floor=0.0)
            s = np.sqrt(var[cols])
            b = np.sqrt(iid[cols])
            se.append(s)
            binom.append(b)
            cover.append(np.abs(e[phase]) <= 1.96 * s)
            x = (seq == cols[2]).astype(float)
            x -= x.mean()
            d = np.mean(np.diff(x) ** 2) / (2 * np.mean(x * x))
            r1s.append(d)
            acs.append([np.mean(x[:-k] * x[k:]) / np.mean(x * x) for k in (1, 2, 3)])
    err_a, se_a, b_a = np.concatenate(err), np.array(se), np.array(binom)
    rms = np.sqrt(np.mean(err_a**2, axis=0))
    b_mean = b_a.mean(axis=0)
    return {
        "R": r,
        "exact/binom": float(np.mean(rms / b_mean)),
        "r1": float(np.mean(r1s)),
        "ac1": float(np.mean([a[0] for a in acs])),
        "ac2": float(np.mean([a[1] for a in acs])),
        "ac3": float(np.mean([a[2] for a in acs])),
        "se/binom": float(np.mean(se_a.mean(axis=0) / b_mean)),
        "cover": float(np.mean(cover)),
        "width/ideal": float(np.mean(np.median(se_a, axis=0) / rms)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=40)
    ap.add_argument("--samples", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cols = ["R", "exact/binom", "r1", "ac1", "ac2", "ac3", "se/binom", "cover", "width/ideal"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in (0.05, 0.2, 0.35, 0.5, 0.8, 2.0, 8.0):
        row = one_r(r, a.lines, a.samples, a.seed)
        print("| " + " | ".join(f"{row[c]:.3g}" if c != "R" else f"{row[c]:g}" for c in cols) + " |", flush=True)


if __name__ == "__main__":
    main()
