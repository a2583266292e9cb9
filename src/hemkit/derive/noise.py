"""Noise filter of the metric derivation: maximum RNMSE across repetitions (Barry et al., Eq. 4).

For every event the measurement vectors of all repetitions (one value per kernel loop) are
compared pairwise; the variability is the largest root normalised mean-square error

    max_{i != j} ||m_i - m_j||_2 / sqrt(N * mean(m_i) * mean(m_j)).

A zero mean in either vector gives variability 1 (100 % error); events whose every
measurement is zero are irrelevant and are reported as NaN (the caller drops them).  Events
above the family's threshold ``tau`` (1e-10 for FLOPs and branches, 1e-1 for caches) are
too noisy to be controlled by the kernels and leave the analysis.

Before the filter, :func:`quantise` rounds per-iteration counts to CAT's quarter steps
(branch family), as CAT's branch benchmark does in its output.
"""

from __future__ import annotations

import numpy as np

from hemkit.core.errors import InputError


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
        raise InputError(f"max_rnmse needs repetitions x loops x events, got shape {reps.shape}")
    n_rep, n, _ = reps.shape
    if n_rep < 2:
        raise InputError(f"the noise filter needs at least 2 runs, got {n_rep}")
    if not np.isfinite(reps).all():
        raise InputError("measurements contain NaN or infinite values")
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
    """True for events quiet enough to keep: not all-zero and variability <= ``tau``.

    Examples
    --------
    >>> noise_mask(np.array([0.0, 1e-3, np.nan]), 1e-10).tolist()
    [True, False, False]
    """
    v = np.asarray(variability, dtype=float)
    return np.isfinite(v) & (v <= tau)


def quantise(values: np.ndarray, quantum: float) -> np.ndarray:
    """Round per-iteration counts to multiples of ``quantum`` as CAT does (``floor(v/q + 0.499) * q``).

    CAT's branch benchmark writes each event's average count per iteration rounded to a
    quarter (``round = floor(avg*4.0+0.499)/4.0`` in PAPI's ``branch.h``): the expected counts
    are multiples of 0.25, and what a loop's start and end add (a mispredicted exit, a few
    instructions around the loop) falls below the step.  ``quantum = 0`` leaves values as they are.

    Parameters
    ----------
    values : numpy.ndarray
        Counts per iteration.
    quantum : float
        The step, a finite number >= 0 (0.25 for CAT's branch benchmark).

    Returns
    -------
    numpy.ndarray of float
        The shape of ``values``.

    Raises
    ------
    InputError
        A negative or non-finite ``quantum``.

    Examples
    --------
    >>> quantise(np.array([0.5004, 1.99, 2.126, 0.0001]), 0.25).tolist()
    [0.5, 2.0, 2.25, 0.0]
    """
    v = np.asarray(values, dtype=float)
    if quantum < 0 or not np.isfinite(quantum):
        raise InputError(f"quantum must be a finite number >= 0, got {quantum}", param="quantum")
    if quantum == 0:
        return v
    return np.floor(v / quantum + 0.499) * quantum
