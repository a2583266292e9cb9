"""One entry point to every merge method by name, optionally with per-pair intervals."""

from __future__ import annotations

import dataclasses
import importlib
from typing import TYPE_CHECKING, Any

from hemkit.core.errors import InputError
from hemkit.core.progress import ProgressLike
from hemkit.core.readings import Readings
from hemkit.core.rng import SeedLike
from hemkit.merge.result import MergeResult

if TYPE_CHECKING:
    import pandas as pd

    from hemkit.merge.intervals import IntervalOptions

#: every merge method, the default first
METHODS = ("joint", "copula", "much", "hrm")
DEFAULT_METHOD = "joint"

#: method -> (its module, its options dataclass): each loads when its method is asked for
_OPTIONS: dict[str, tuple[str, str]] = {
    "much": ("hemkit.merge.much", "MuchOptions"),
    "copula": ("hemkit.merge.copula", "CopulaOptions"),
    "joint": ("hemkit.merge.joint", "JointOptions"),
}
_TOP: dict[str, tuple[str, ...]] = {
    "much": ("n_sims", "mode", "progress"),
    "copula": ("pearson_weight",),
    "joint": ("progress",),
    "hrm": ("anchor", "rows"),
}


def _split_options(method: str, options: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """Top-level keyword arguments of the method, and the rest as its options dataclass."""
    if "n" in options:
        from hemkit.merge.checks import renamed_n

        options["rows"] = renamed_n(options.pop("n"), stacklevel=4)
    top = {k: v for k, v in options.items() if k in _TOP[method]}
    rest = {k: v for k, v in options.items() if k not in _TOP[method]}
    if method == "hrm":
        if rest:
            raise InputError(f"option {next(iter(rest))!r} does not apply to hrm (it takes anchor and rows)")
        return top, None
    module, name = _OPTIONS[method]
    cls = getattr(importlib.import_module(module), name)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = [k for k in rest if k not in names]
    if unknown:
        allowed = ", ".join(sorted(names | set(_TOP[method])))
        raise InputError(f"option {unknown[0]!r} does not apply to {method} (it takes {allowed})")
    return top, cls(**rest)


def merge(
    readings: Readings,
    method: str = DEFAULT_METHOD,
    *,
    seed: SeedLike = 0,
    level: float | None = None,
    jobs: int | None = 1,
    **options: Any,
) -> MergeResult:
    """Merge with the named method; with ``level``, also per-pair intervals.

    Parameters
    ----------
    readings : Readings
    method : {"joint", "copula", "much", "hrm"}
    seed : int, Generator or None
        Randomness of the merge and of its intervals (separate streams by name).
    level : float in (0, 1), optional
        Attach per-pair intervals at this level (:func:`pair_intervals`).
    jobs : int or None, default 1
        Threads for the row-wise steps (argsorts, ranks, placing readings); None: one per
        CPU.  The result is the same for any number (:mod:`hemkit.core.parallel`).
    **options
        The method's keyword arguments (``anchor`` for hrm, ``n_sims``/``mode`` for much,
        ``pearson_weight`` for copula) and the fields of its options dataclass
        (:class:`MuchOptions`, :class:`CopulaOptions`, :class:`JointOptions`), e.g. ``rows``.

    Examples
    --------
    >>> from hemkit.datasets import t2080_hrm
    >>> merge(t2080_hrm(), "hrm", anchor="PROCESSOR_CYCLES").data.shape
    (1000, 16)
    """
    from hemkit.core.parallel import jobs as use_jobs

    if method not in METHODS:
        raise InputError(f"unknown merge method {method!r}; choose one of {', '.join(METHODS)}")
    top, opts = _split_options(method, dict(options))
    with use_jobs(jobs):
        return _merge(readings, method, seed, level, (top, opts))


def _merge(readings: Readings, method: str, seed: SeedLike, level: float | None, split: tuple) -> MergeResult:
    from hemkit.core.rng import child

    top, opts = split
    stream = child(seed, method)  # by name: the merge's numbers do not depend on the intervals' and vice versa
    progress: ProgressLike = top.pop("progress", None)
    if method == "hrm":
        from hemkit.merge.hrm import merge_hrm

        if not top.get("anchor"):
            raise InputError("HRM needs an anchor event (read in every group)")
        res = merge_hrm(readings, top["anchor"], rows=top.get("rows"))
    elif method == "much":
        from hemkit.merge.much import merge_much

        res = merge_much(readings, seed=stream, options=opts, progress=progress, **top)
    elif method == "copula":
        from hemkit.merge.copula import merge_copula

        res = merge_copula(readings, seed=stream, options=opts, **top)
    else:
        from hemkit.merge.joint import merge_joint

        res = merge_joint(readings, seed=stream, options=opts, progress=progress)
    if level is not None:
        from hemkit.merge.intervals import IntervalOptions, with_intervals

        res = with_intervals(res, readings, IntervalOptions(level=level), seed=child(seed, "intervals"))
    return res


def pair_intervals(
    readings: Readings,
    method: str = DEFAULT_METHOD,
    *,
    seed: SeedLike = 0,
    options: IntervalOptions | None = None,
    merge_options: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Merge ``readings`` with ``method`` and return its per-pair intervals (:mod:`hemkit.merge.intervals`).

    Parameters
    ----------
    readings : Readings
    method : {"joint", "copula", "much", "hrm"}
    seed : int, Generator or None
        Randomness of the merge (the intervals themselves draw nothing).
    options : IntervalOptions, optional
        Level and widths of the intervals (default ``IntervalOptions()``: 90 %).
    merge_options : dict, optional
        Keyword arguments of the merge, as ``**options`` of :func:`merge` (``anchor`` for
        hrm, ``n_sims`` for much, ``rows``, ...).

    Returns
    -------
    DataFrame
        One row per pair of events, columns :data:`INTERVAL_COLUMNS`: ``estimate`` is the
        merged correlation, ``runs_together`` the runs that read both events.

    Raises
    ------
    InputError
        An unknown method or merge option, hrm without an anchor, or a level or width
        out of range.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> iv = pair_intervals(t2080_much(), "much", seed=0, merge_options={"rows": 1000, "n_sims": 30})
    >>> list(iv.columns)
    ['event_a', 'event_b', 'estimate', 'lower', 'upper', 'runs_together']
    """
    from hemkit.merge.intervals import IntervalOptions

    opts = options or IntervalOptions()
    res = merge(readings, method, seed=seed, level=opts.level, **dict(merge_options or {}))
    assert res.pair_intervals is not None
    return res.pair_intervals


__all__ = ["DEFAULT_METHOD", "METHODS", "merge", "pair_intervals"]
