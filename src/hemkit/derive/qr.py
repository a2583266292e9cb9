"""Specially pivoted QR of the metric derivation (Barry et al., Algorithm 2).

Standard column-pivoted QR picks the column of largest norm; for defining metrics we want
the events closest to single expectations instead (values 1 and 0).  Each entry is first
rounded to the grid of the noise tolerance alpha, ``R(u) = alpha * floor(u / alpha + 0.5)``,
and each column scored with ``Sc(v) = v`` (v >= 1), ``1/v`` (0 < v < 1), ``0`` (v = 0) summed
over ``v = |x_ij|``.  The pivot is the column of minimum score, ties broken by the smallest
norm; a column whose (rounded) remaining part after orthogonalisation against the chosen
pivots has norm below ``beta = ||(alpha, ..., alpha)||_2`` carries no new information and is
skipped; the factorisation stops when no column is left.

Interpretation (the paper leaves it open): scores and the tie-breaking norm are those of the
rounded *original* columns -- their closeness to the expectation basis -- while eligibility
uses the remaining part after orthogonalisation (modified Gram-Schmidt in the basis
coordinates), as QRCP uses the trailing norms.  Thus an event equal to the sum of two chosen
events is never chosen, and a planted single-expectation event always beats a combination.
"""

from __future__ import annotations

import numpy as np

from hemkit.core.errors import InputError


def round_alpha(u: np.ndarray | float, alpha: float) -> np.ndarray:
    """Round to the nearest multiple of ``alpha``: ``alpha * floor(u / alpha + 0.5)``.

    Parameters
    ----------
    u : array_like or float
        The values.
    alpha : float
        The grid's step (the noise tolerance), > 0.

    Returns
    -------
    numpy.ndarray of float
        The shape of ``u`` (0-d for a number); halves round up.

    Raises
    ------
    InputError
        ``alpha`` not positive.

    Examples
    --------
    >>> round_alpha([1.002, 0.001, -0.5, 1.5], 0.01).round(12).tolist()
    [1.0, 0.0, -0.5, 1.5]
    """
    if not alpha > 0:
        raise InputError(f"alpha must be positive, got {alpha}", param="alpha")
    return alpha * np.floor(np.asarray(u, dtype=float) / alpha + 0.5)


def pivot_scores(X: np.ndarray, alpha: float) -> np.ndarray:
    """Score of each column of ``X`` (or of a single vector) after rounding with ``alpha``.

    Each entry ``v = |R(x)|`` scores ``v`` when ``v >= 1``, ``1/v`` when ``0 < v < 1`` and 0
    when ``v = 0`` (see the module docstring); a column's score is the sum over its entries,
    the lowest the closest to a single expectation.

    Parameters
    ----------
    X : array_like, shape (k, n) or (k,)
        Events in the expectation basis, one column per event.
    alpha : float
        The rounding grid's step (:func:`round_alpha`), > 0.

    Returns
    -------
    numpy.ndarray of float
        One score per column, shape (n,); 0-d for a vector.

    Raises
    ------
    InputError
        ``alpha`` not positive.

    Examples
    --------
    >>> float(pivot_scores([1.002, 0.001, -0.5, 1.5], 0.01))
    4.5
    """
    v = np.abs(round_alpha(X, alpha))
    # snap to the grid again so that 1.0 computed as 100 * 0.01 scores exactly 1
    v = np.round(v, 12)
    with np.errstate(divide="ignore"):
        sc = np.where(v >= 1, v, np.where(v > 0, 1.0 / np.where(v > 0, v, 1.0), 0.0))
    return sc.sum(axis=0)


def special_qrcp(X: np.ndarray, alpha: float) -> np.ndarray:
    """Indices of the linearly independent columns chosen by Algorithm 2, in pivot order.

    Parameters
    ----------
    X : array, shape (k, n)
        Events represented in the expectation basis (one column per event).
    alpha : float
        Noise tolerance of the rounding.

    Returns
    -------
    ndarray of int
        Chosen column indices (at most ``min(k, n)``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0]])
    >>> special_qrcp(X, 1e-3).tolist()   # (1,0) and (0,1); the scaled copy and the sum are dependent
    [0, 3]
    """
    A = np.asarray(X, dtype=float)
    if A.ndim != 2:
        raise InputError(f"special_qrcp needs a 2-D matrix, got shape {A.shape}")
    if not np.isfinite(A).all():
        raise InputError("the event matrix contains NaN or infinite values")
    k, n = A.shape
    A = round_alpha(A, alpha)
    beta = alpha * np.sqrt(k)
    score = pivot_scores(A, alpha)
    norm0 = np.linalg.norm(A, axis=0)
    # static preference order: score, then norm, then index
    order_key = np.lexsort((np.arange(n), norm0, np.round(score, 9)))
    rank = np.empty(n, dtype=int)
    rank[order_key] = np.arange(n)
    active = np.ones(n, dtype=bool)
    chosen: list[int] = []
    resid = A.copy()
    for _ in range(min(k, n)):
        rn = np.linalg.norm(round_alpha(resid, alpha), axis=0)
        cand = active & (rn >= beta * (1 - 1e-12)) & (rn > 0)
        if not cand.any():
            break
        j = int(np.argmin(np.where(cand, rank, n)))
        chosen.append(j)
        active[j] = False
        q = resid[:, j] / np.linalg.norm(resid[:, j])
        resid = resid - np.outer(q, q @ resid)
    return np.array(chosen, dtype=int)
