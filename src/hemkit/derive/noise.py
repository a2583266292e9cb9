"""Noise filter of the metric derivation: maximum RNMSE across repetitions (Barry et al., Eq. 4).

For every event the measurement vectors of all repetitions (one value per kernel loop) are
compared pairwise; the variability is the largest root normalised mean-square error

    max_{i != j} ||m_i - m_j||_2 / sqrt(N * mean(m_i) * mean(m_j)).

A zero mean in either vector gives variability 1 (100 % error); events whose every
measurement is zero are irrelevant and are reported as NaN (the caller drops them).  Events
above the family's threshold ``tau`` (1e-10 for FLOPs and branches, 1e-1 for caches) are
too noisy to be controlled by the kernels and leave the analysis.
"""

from __future__ import annotations

import numpy as np

from hemkit.errors import HemkitError


def max_rnmse(reps: np.ndarray) -> np.ndarray:
    """Maximum pairwise RNMSE of each event across repetitions (Eq. 4).

    Parameters
    ----------
    reps : array, shape (R, N, E)
        R >= 2 repetitions of N measurements (kernel loops) of E events.

    Returns
    -------
    ndarray, shape (E,)
        Variability per event; 1 where a repetition has zero mean, NaN where every value is zero.

    Examples
    --------
    >>> import numpy as np
    >>> reps = np.array([[[1.0, 2.0], [2.0, 0.0]], [[1.0, 2.0], [2.0, 0.0]]])
    >>> max_rnmse(reps).tolist()
    [0.0, 0.0]
    """
    reps = np.asarray(reps, dtype=float)
    if reps.ndim != 3:
        raise HemkitError(f"max_rnmse needs repetitions x loops x events, got shape {reps.shape}")
    n_rep, n, _ = reps.shape
    if n_rep < 2:
        raise HemkitError(f"the noise filter needs at least 2 repetitions, got {n_rep}")
    if not np.isfinite(reps).all():
        raise HemkitError("measurements contain NaN or infinite values")
    i, j = np.triu_indices(n_rep, k=1)
    diff = np.linalg.norm(reps[i] - reps[j], axis=1)  # (pairs, E)
    means = reps.mean(axis=1)  # (R, E)
    denom = np.sqrt(n * np.abs(means[i] * means[j]))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(denom > 0, diff / np.where(denom > 0, denom, 1.0), 1.0)
    out = r.max(axis=0)
    out[(reps == 0).all(axis=(0, 1))] = np.nan
    return out


def noise_mask(variability: np.ndarray, tau: float) -> np.ndarray:
    """True for events quiet enough to keep: not all-zero and variability <= ``tau``."""
    v = np.asarray(variability, dtype=float)
    return np.isfinite(v) & (v <= tau)
