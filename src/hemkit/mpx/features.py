"""Per-interval input features of the learned estimators (:mod:`hemkit.mpx.learned`).

The paper's networks read the multiplexed series itself on a ``log10`` scale (section 3.4,
step 1).  hemkit gives them the same and what the interpolations already make of it, so a
network learns a correction rather than the whole mapping; all counts are ``log10(1 + x)``:

===========================  ===============================================================
feature                      meaning
===========================  ===============================================================
fixed, linear, growth, min   the interpolation estimators' counts
phase                        the phase-aware estimate (:mod:`hemkit.mpx.phase`)
observed                     1 where the event was on a counter
since, until                 intervals since the last / until the next slice (/ 10)
position                     position in the run (0..1)
mean                         the series' mean observed count
enabled                      the interval's enabled time / the run's typical one
siblings (x 4)               the other events of the run (in rotation order): their level
                             ``log10(1 + phase) - log10(1 + mean)`` and whether they were on
                             a counter -- multiplexing sees *some* events in every interval
===========================  ===============================================================

The event's identity is added by the estimator (one-hot over the events it was trained on).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hemkit.mpx.emulate import MpxData
from hemkit.mpx.estimators import (
    FixedInterpolation,
    GrowthInterpolation,
    LinearInterpolation,
    MinInterpolation,
    neighbours,
)
from hemkit.mpx.phase import PhaseInterpolation

N_SIBLINGS = 4
FEATURES = (
    "fixed",
    "linear",
    "growth",
    "min",
    "phase",
    "observed",
    "since",
    "until",
    "position",
    "mean",
    "enabled",
    *(f"sibling{k}_level" for k in range(1, N_SIBLINGS + 1)),
    *(f"sibling{k}_observed" for k in range(1, N_SIBLINGS + 1)),
)


def sibling_index(keys: pd.DataFrame, n: int = N_SIBLINGS) -> np.ndarray:
    """(S, n) index of the other events of each series' run, in the run's event order.

    Positions + 1, + 2, ... modulo the run's events after each series; -1 where the run has
    fewer events.

    Examples
    --------
    >>> sibling_index(pd.DataFrame({"run": ["a", "a", "a", "b"], "event": ["x", "y", "z", "x"]}), n=2).tolist()
    [[1, 2], [2, 0], [0, 1], [-1, -1]]
    """
    run_code = pd.factorize(keys["run"])[0]
    pos = pd.Series(run_code).groupby(run_code, sort=False).cumcount().to_numpy()
    size = np.bincount(run_code)[run_code]
    table = np.full((run_code.max() + 1, int(size.max())), -1)
    table[run_code, pos] = np.arange(len(keys))
    k = np.arange(1, n + 1)[None, :]
    sib = table[run_code[:, None], (pos[:, None] + k) % size[:, None]]
    return np.where(k < size[:, None], sib, -1)


def interpolation_features(mpx: MpxData) -> np.ndarray:
    """Features (S, T, len(FEATURES)), float32, 0 after the end of a series (see the module docstring).

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> interpolation_features(emulate(synthetic_trace(runs=1, steps=20), pmcs=2)).shape
    (5, 20, 19)
    """
    obs = mpx.observed
    S, T = obs.shape

    def lg(x: np.ndarray) -> np.ndarray:
        return np.log10(1 + np.nan_to_num(np.maximum(x, 0)))

    ests = [
        lg(cls().estimate_array(mpx))
        for cls in (FixedInterpolation, LinearInterpolation, GrowthInterpolation, MinInterpolation)
    ]
    phase = lg(PhaseInterpolation().estimate_array(mpx))
    prev, nxt = neighbours(obs)
    t = np.arange(T)[None, :]
    since = np.where(prev >= 0, t - prev, 10) / 10.0
    until = np.where(nxt < T, nxt - t, 10) / 10.0
    pos = t / np.maximum(mpx.length[:, None], 1)
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(np.where(obs, mpx.perf_values(), np.nan), axis=1)
    lmean = np.log10(1 + np.nan_to_num(mean))[:, None]
    ena = np.where(mpx.valid, np.nan_to_num(mpx.enabled), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        typical = np.array([np.median(r[r > 0]) if (r > 0).any() else 1.0 for r in ena])
    rel_ena = ena / typical[:, None]
    level = np.where(mpx.valid, phase - lmean, 0.0)
    sib = sibling_index(mpx.keys)
    has = (sib >= 0)[:, :, None]
    sib_level = np.where(has, level[sib.clip(0)], 0.0)  # (S, n, T)
    sib_obs = np.where(has, obs[sib.clip(0)], 0.0)
    own = np.stack(
        [
            *ests,
            phase,
            obs.astype(float),
            since,
            until,
            np.broadcast_to(pos, (S, T)),
            np.broadcast_to(lmean, (S, T)),
            rel_ena,
        ],
        axis=-1,
    )
    feats = np.concatenate([own, sib_level.transpose(0, 2, 1), sib_obs.transpose(0, 2, 1)], axis=-1)
    return np.where(mpx.valid[..., None], feats, 0.0).astype(np.float32)


__all__ = ["FEATURES", "N_SIBLINGS", "interpolation_features", "sibling_index"]
