"""The standard normal quantile ``Phi^-1`` in NumPy, and normal scores of ranks, without SciPy.

Every merge turns ranks into normal scores; importing ``scipy.special`` for its ``ndtri``
alone costs about 0.2 s of each ``hemkit merge`` (SciPy 1.17 loads its array-API layer and
``numpy.f2py`` with it), more than the MUCH merge of the bundled T2080 data.  :func:`ndtri`
is Wichura's algorithm AS241 (PPND16, *Applied Statistics* 37, 1988, the one Python's
``statistics.NormalDist.inv_cdf`` uses): a relative error near 1e-16 over the whole of
``(0, 1)``, tested against ``scipy.special.ndtri``.

:func:`rank_scores` maps average ranks (whole or half numbers) to ``Phi^-1(rank / (n + 1))``
through a table of the ``2n - 1`` possible values, so a column of a million readings costs
one table of its distinct ranks and a gather.

Examples
--------
>>> ndtri(np.array([0.025, 0.5, 0.975])).round(6)
array([-1.959964,  0.      ,  1.959964])
"""

from __future__ import annotations

import threading

import numpy as np

# AS241 (PPND16) coefficients: central region |q| <= 0.425, then the tails in r = sqrt(-log p)
_A = (
    3.387132872796366608,
    133.14166789178437745,
    1971.5909503065514427,
    13731.693765509461125,
    45921.953931549871457,
    67265.770927008700853,
    33430.575583588128105,
    2509.0809287301226727,
)
_B = (
    1.0,
    42.313330701600911252,
    687.1870074920579083,
    5394.1960214247511077,
    21213.794301586595867,
    39307.89580009271061,
    28729.085735721942674,
    5226.495278852545925,
)
_C = (
    1.42343711074968357734,
    4.6303378461565452959,
    5.7694972214606914055,
    3.64784832476320460504,
    1.27045825245236838258,
    0.24178072517745061177,
    0.0227238449892691845833,
    7.7454501427834140764e-4,
)
_D = (
    1.0,
    2.05319162663775882187,
    1.6763848301838038494,
    0.68976733498510000455,
    0.14810397642748007459,
    0.0151986665636164571966,
    5.475938084995344946e-4,
    1.05075007164441684324e-9,
)
_E = (
    6.6579046435011037772,
    5.4637849111641143699,
    1.7848265399172913358,
    0.29656057182850489123,
    0.026532189526576123093,
    0.0012426609473880784386,
    2.71155556874348757815e-5,
    2.01033439929228813265e-7,
)
_F = (
    1.0,
    0.59983220655588793769,
    0.13692988092273580531,
    0.0148753612908506148525,
    7.868691311456132591e-4,
    1.8463183175100546818e-5,
    1.4215117583164458887e-7,
    2.04426310338993978564e-15,
)


def _poly(coef: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    out = np.full_like(x, coef[-1])
    for c in coef[-2::-1]:
        out *= x
        out += c
    return out


def ndtri(p: np.ndarray | float) -> np.ndarray:
    """``Phi^-1(p)``, elementwise (float64): ``-inf`` at 0, ``inf`` at 1, NaN outside ``[0, 1]``.

    Examples
    --------
    >>> float(ndtri(0.8413447460685429))
    1.0
    >>> ndtri(np.array([0.0, 1.0, 1.5]))
    array([-inf,  inf,  nan])
    """
    p = np.asarray(p, dtype=np.float64)
    q = p - 0.5
    out = np.empty_like(q)
    central = np.abs(q) <= 0.425
    qc = q[central]
    r = 0.180625 - qc * qc
    out[central] = qc * _poly(_A, r) / _poly(_B, r)
    tail = ~central
    qt = q[tail]
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(-np.log(np.where(qt <= 0, p[tail], 1.0 - p[tail])))
        near = r <= 5.0
        x = np.empty_like(r)
        rn = r[near] - 1.6
        x[near] = _poly(_C, rn) / _poly(_D, rn)
        rf = r[~near] - 5.0
        x[~near] = _poly(_E, rf) / _poly(_F, rf)
    x[np.isinf(r)] = np.inf
    out[tail] = np.where(qt < 0, -x, x)
    out[(p < 0) | (p > 1) | np.isnan(p)] = np.nan
    return out if out.ndim else out[()]


def rank_scores(ranks: np.ndarray, n: int) -> np.ndarray:
    """Van der Waerden scores ``Phi^-1(rank / (n + 1))`` of average ranks of ``n`` values.

    Average ranks are whole or half numbers in ``[1, n]``; their scores come from a table
    of those ``2n - 1`` values, made when the ranks outnumber it or on the second call for
    the same ``n`` (kept for a few sizes: a merge scores many events and groups of one size).
    Anything else (not a rank of ``n`` values) is computed directly.

    Examples
    --------
    >>> rank_scores(np.array([1.0, 2.5, 2.5, 4.0]), 4).round(3)
    array([-0.842,  0.   ,  0.   ,  0.842])
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    twice = 2 * ranks - 2
    if not (ranks.size and np.all(twice == np.rint(twice)) and twice.min() >= 0 and twice.max() <= 2 * n - 2):
        return ndtri(ranks / (n + 1))
    with _LOCK:
        table = _TABLES.get(n)
        first = table is None and ranks.size <= 2 * n and n not in _SEEN
        if first:
            if len(_SEEN) >= 4096:
                _SEEN.clear()
            _SEEN.add(n)
    if first:  # once: fewer values than the table would hold
        return ndtri(ranks / (n + 1))
    if table is None:
        # k / (2 (n + 1)) is exactly (k / 2) / (n + 1): the table holds the very scores ndtri gives
        table = ndtri(np.arange(2, 2 * n + 1) / (2.0 * (n + 1)))
        table.flags.writeable = False
        with _LOCK:
            if len(_TABLES) >= 8:
                _TABLES.pop(next(iter(_TABLES)))
            _TABLES[n] = table
    return table[twice.astype(np.intp)]


#: score tables by n, kept for the next event or group of the same size (a few, ~16 n bytes each)
_TABLES: dict[int, np.ndarray] = {}
_SEEN: set[int] = set()
_LOCK = threading.Lock()


__all__ = ["ndtri", "rank_scores"]
