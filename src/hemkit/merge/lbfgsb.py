"""SciPy's L-BFGS-B without importing ``scipy.optimize``: its compiled routine, driven as SciPy drives it.

The joint merge fits its likelihoods (:func:`hemkit.merge.joint.ml_correlation`) with SciPy's
L-BFGS-B, and whether a fit converges within its iterations decides what the merge uses, so
the optimiser must stay SciPy's, step for step (a re-implementation in NumPy that rounds a
product differently, checked on the fits of 15 truth tables, changed the verdict of about
one fit in twenty).  But ``import scipy.optimize`` loads most of SciPy (``sparse``,
``linalg``, ``linprog``, ``spatial``): about 0.5 s on our machines, more than the rest of a
merge of the bundled T2080 data.

:func:`minimize` loads only the compiled routine (``scipy/optimize/_lbfgsb``, whose
``setulb`` SciPy 1.15 and later call with the arguments below) and runs the loop of
``scipy.optimize._lbfgsb_py._minimize_lbfgsb`` for a problem without bounds and with
SciPy's defaults, so it takes SciPy's steps and stops where SciPy stops (tested against
``scipy.optimize.minimize``).  With an older SciPy, or where the routine cannot be loaded
by itself, it calls ``scipy.optimize.minimize``.

The routine's small matrix steps call the OpenBLAS that SciPy's wheels bundle; with its
default of one thread per CPU, on a busy machine its idle worker threads take the CPU the
fit needs (10-30x slower on 2 busy cores, measured).  While it runs, that library is held to
one thread (:func:`hemkit.core.parallel.blas_threads`, whatever hemkit's jobs) and given
back its setting after; the numbers do not depend on it (the T2080 merge is byte-identical
either way).

Examples
--------
>>> a = np.array([[3.0, 1.0], [1.0, 2.0]])
>>> x, nit, ok = minimize(lambda x: (0.5 * x @ a @ x - x.sum(), a @ x - 1), np.zeros(2), max_iter=100)
>>> ok, np.round(x, 6).tolist()
(True, [0.2, 0.4])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

MAXCOR = 10  # SciPy's defaults of method="L-BFGS-B"
FTOL = 2.2204460492503131e-09
GTOL = 1e-5
MAXFUN = 15000
MAXLS = 20

_SETULB: list[Any] = []  # the compiled routine once loaded (None: use scipy.optimize)


def _setulb() -> Any:
    """SciPy's compiled ``setulb`` (SciPy >= 1.15), loaded without ``scipy.optimize``; None if it cannot be."""
    if not _SETULB:
        _SETULB.append(_load())
    return _SETULB[0]


def _load() -> Any:
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    import scipy

    try:
        major, minor = (int(p) for p in scipy.__version__.split(".")[:2])
    except ValueError:
        return None
    if (major, minor) < (1, 15):  # the Fortran routine of older SciPy takes other arguments
        return None
    name = "scipy.optimize._lbfgsb"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = Path(scipy.__file__).parent / "optimize" / f"_lbfgsb{suffix}"
        if path.is_file():
            try:
                loader = importlib.machinery.ExtensionFileLoader(name, str(path))
                spec = importlib.util.spec_from_file_location(name, path, loader=loader)
                if spec is None:
                    return None
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                return module.setulb
            except (ImportError, OSError, AttributeError):
                return None
    return None


def minimize(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray, *, max_iter: int
) -> tuple[np.ndarray, int, bool]:
    """``scipy.optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})``.

    Returns the last point, the iterations and whether it converged (SciPy's ``x``, ``nit``
    and ``success``).

    Examples
    --------
    >>> x, nit, ok = minimize(lambda x: (float((x - 3) @ (x - 3)), 2 * (x - 3)), np.zeros(3), max_iter=50)
    >>> ok, x.round(6).tolist()
    (True, [3.0, 3.0, 3.0])
    """
    setulb = _setulb()
    if setulb is None:
        from scipy import optimize

        res = optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
        return np.asarray(res.x), int(res.nit), bool(res.success)
    from hemkit.core.parallel import blas_threads

    with blas_threads():
        return _drive(setulb, fun, x0, max_iter)


def _drive(setulb: Any, fun: Callable, x0: np.ndarray, max_iter: int) -> tuple[np.ndarray, int, bool]:
    """The loop of ``scipy.optimize._lbfgsb_py._minimize_lbfgsb`` without bounds or callback."""
    n = len(x0)
    m = MAXCOR
    factr = FTOL / np.finfo(float).eps
    x = np.array(x0, dtype=np.float64).ravel()
    f: Any = np.array(0.0, dtype=np.float64)
    g = np.zeros((n,), dtype=np.float64)
    wa = np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m, np.float64)
    iwa = np.zeros(3 * n, dtype=np.int32)
    task = np.zeros(2, dtype=np.int32)
    ln_task = np.zeros(2, dtype=np.int32)
    lsave = np.zeros(4, dtype=np.int32)
    isave = np.zeros(44, dtype=np.int32)
    dsave = np.zeros(29, dtype=np.float64)
    nbd = np.zeros(n, np.int32)  # no bounds
    low, up = np.zeros(n, np.float64), np.zeros(n, np.float64)
    nit = nfev = 0
    seen: tuple[np.ndarray, float, np.ndarray] | None = None
    while True:  # one call per request of the routine: an evaluation or a new iterate
        g = g.astype(np.float64)
        setulb(m, x, low, up, nbd, f, g, factr, GTOL, wa, iwa, task, lsave, isave, dsave, MAXLS, ln_task)
        if task[0] == 3:  # evaluate at x (SciPy evaluates each point once)
            if seen is None or not np.array_equal(seen[0], x):
                value, grad = fun(x.copy())
                seen = (x.copy(), float(value), np.atleast_1d(np.asarray(grad, dtype=np.float64)).copy())
                nfev += 1
            f, g = seen[1], seen[2].copy()
        elif task[0] == 1:  # a new iterate
            nit += 1
            if nit >= max_iter:
                task[0], task[1] = 5, 504
            elif nfev > MAXFUN:
                task[0], task[1] = 5, 502
        else:
            break
    return x, nit, bool(task[0] == 4)


__all__ = ["minimize"]
