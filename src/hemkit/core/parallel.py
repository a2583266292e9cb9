"""Optional threads (``jobs``) for the row-wise steps of large merges (sorts, ranks, placing).

hemkit runs on one thread unless asked: inside ``with jobs(n):`` (or ``merge(..., jobs=n)``,
``hemkit merge --jobs N``; ``jobs`` is the word every hemkit command uses for its own
parallel work, as ``hemkit derive --jobs``) the steps that treat each event's row on its
own -- argsorts, ranks, placing readings -- split the rows over ``n`` threads.  NumPy
releases the GIL in those loops, so two cores sort two rows at once.  Every row is computed
exactly as on one thread, so the results do not depend on the number of jobs (nor does any
random draw happen inside a split step).

The setting is a :class:`contextvars.ContextVar`: it holds for the block (and the current
thread or task) only, never for the whole process.  Inside the block the BLAS library NumPy
and SciPy call (OpenBLAS, MKL) is held to one thread, whatever the number of jobs, through
``threadpoolctl``: hemkit's matrices are events x events (a few hundred at most), where BLAS
threads gain nothing, and on a loaded machine two spinning OpenBLAS threads made 100
eigendecompositions of 100 x 100 17 times slower (0.29 s against 5.0 s, load average 8,
2 cores; BENCHMARKS.md, issue 28).  Nor would the numbers stay the same: a threaded BLAS
splits a long sum (``frame @ frame.T`` over 24 000 runs in MUCH) by its thread count, so its
rounding, and with it the order of near-tied draws, changed with ``jobs``.

Examples
--------
>>> import numpy as np
>>> x = np.random.default_rng(0).random((4, 50_000))
>>> with jobs(2):
...     a = rowwise(lambda r: np.argsort(r, axis=-1), x, dtype=np.intp)
>>> bool((a == np.argsort(x, axis=-1)).all())
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from hemkit.core.checks import check_scalar

_JOBS: ContextVar[int] = ContextVar("hemkit_jobs", default=1)

#: the variables a BLAS library reads its thread count from when it loads
_BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: arrays smaller than this many elements are never split: a thread costs more than it saves
MIN_SPLIT = 200_000


def check_jobs(n: Any) -> int:
    """``n`` jobs as an int >= 1 (None: one per CPU this process may use), or an :class:`InputError`.

    Examples
    --------
    >>> check_jobs(2)
    2
    """
    if n is None:
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    return check_scalar(n, "jobs", min_val=1, what="None: one per CPU")


@contextmanager
def jobs(n: int | None) -> Iterator[int]:
    """Split hemkit's row-wise steps over up to ``n`` threads inside the block (None: one per CPU)."""
    token = _JOBS.set(check_jobs(n))
    # a BLAS loaded inside the block (SciPy's own OpenBLAS, imported when an optimiser first
    # runs) reads its thread count from the environment when it loads; the user's setting wins
    unset = [v for v in _BLAS_VARIABLES if v not in os.environ]
    for v in unset:
        os.environ[v] = "1"
    try:
        with blas_threads():
            yield _JOBS.get()
    finally:
        for v in unset:
            os.environ.pop(v, None)
        _JOBS.reset(token)


@contextmanager
def blas_threads() -> Iterator[None]:
    """Every BLAS loaded now (OpenBLAS, MKL; SciPy's bundled one too) held to one thread, restored after.

    One, not :func:`job_count`: a BLAS's sums depend on its thread count, and the results of
    hemkit's work may not depend on its jobs (see the module docstring).

    :func:`jobs` holds them for its block; code whose BLAS may load later (SciPy's
    L-BFGS-B routine, :mod:`hemkit.merge.lbfgsb`) holds them again around its work.
    """
    from threadpoolctl import threadpool_limits

    limits = threadpool_limits(limits=1, user_api="blas")
    try:
        yield
    finally:
        limits.restore_original_limits()


def job_count() -> int:
    """Threads the row-wise steps may use here (1 unless inside :func:`jobs`)."""
    return _JOBS.get()


def row_ranges(fn: Callable[[int, int], None], rows: int, size: int) -> None:
    """Call ``fn(a, b)`` on ``[0, rows)`` cut into one contiguous range per thread.

    One call ``fn(0, rows)`` on one thread or when the work is small (``size`` elements
    below :data:`MIN_SPLIT`).  ``fn`` writes its rows' results itself (into an array
    allocated once), so nothing is joined afterwards.
    """
    n = min(job_count(), rows)
    if n <= 1 or size < MIN_SPLIT:
        fn(0, rows)
        return
    bounds = [rows * i // n for i in range(n + 1)]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=n) as pool:
        for f in [pool.submit(fn, a, b) for a, b in zip(bounds[:-1], bounds[1:])]:
            f.result()  # re-raise a worker's error here


def rowwise(fn: Callable[[Any], Any], x: Any, dtype: Any = None) -> Any:
    """``fn(x)`` for a function that treats each row (all axes but the last) on its own.

    ``fn`` must return an array of its input's shape (of ``dtype``, default ``x``'s).  With
    more than one thread and a large ``x``, the rows (flattened over the leading axes) are
    cut into one contiguous chunk per thread, each written straight into the result.
    """
    import numpy as np

    x = np.asarray(x)
    if x.ndim == 0 or job_count() <= 1 or x.size < MIN_SPLIT:
        return fn(x)
    flat = x.reshape(-1, x.shape[-1])
    out = np.empty(flat.shape, dtype=x.dtype if dtype is None else dtype)

    def chunk(a: int, b: int) -> None:
        out[a:b] = fn(flat[a:b])

    row_ranges(chunk, len(flat), x.size)
    return out.reshape(x.shape)


__all__ = ["MIN_SPLIT", "check_jobs", "job_count", "jobs", "row_ranges", "rowwise"]
