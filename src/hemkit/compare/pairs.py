"""Whether the correlation of a pair of events changed between two sets of runs.

Per side and pair, the Pearson correlation where the two events were read together (Fisher z,
averaged over the groups that read both with weights ``n - 3``, and its Fisher interval), else
the default merge's correlation with its interval (:func:`hemkit.merge.merge` with ``level``).
The difference ``r_b - r_a`` gets Zou's (2007) interval, which combines the two sides'
intervals (exact Fisher theory where both are direct), and a p-value from the two Fisher-z
standard errors; ``changed`` controls the false discovery rate across pairs (Benjamini-Hochberg).
Pairs with an event constant on a side (no correlation) are left out, with a warning naming those events.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from hemkit.core.errors import HemkitError, HemkitWarning
from hemkit.core.normal import ndtri
from hemkit.core.readings import Readings
from hemkit.core.rng import SeedLike, child
from hemkit.core.stats import fdr_bh

if TYPE_CHECKING:
    import pandas as pd

CLIP = 1 - 1e-12


def _direct(readings: Readings, events: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fisher-z sum, weight sum (``sum of n - 3``) and varying-event mask per pair, over groups reading both."""
    index = {e: i for i, e in enumerate(events)}
    k = len(events)
    zsum, wsum = np.zeros((k, k)), np.zeros((k, k))
    varying = np.zeros(k, dtype=bool)
    constant = np.zeros(k, dtype=bool)
    for g in readings.arrays.values():
        cols = [c for c, e in enumerate(g.events) if e in index]
        if not cols:
            continue
        x = np.asarray(g.values[:, cols], dtype=np.float64)
        ids = np.array([index[g.events[c]] for c in cols])
        moving = np.ptp(x, axis=0) > 0
        varying[ids[moving]] = True
        constant[ids[~moving]] = True
        if moving.sum() < 2 or len(x) < 4:
            continue
        x, ids = x[:, moving], ids[moving]
        r = np.clip(np.corrcoef(x, rowvar=False), -CLIP, CLIP)
        w = len(x) - 3.0
        zsum[np.ix_(ids, ids)] += w * np.arctanh(r)
        wsum[np.ix_(ids, ids)] += w
    return zsum, wsum, varying & ~constant


def _merged(readings: Readings, events: list[str], level: float, seed: SeedLike, side: str) -> pd.DataFrame:
    """The default merge's pair intervals of one side, of its varying events among ``events``."""
    from hemkit.merge import merge

    groups = {}
    for gid, g in readings.arrays.items():
        keep = [c for c, e in enumerate(g.events) if e in set(events)]
        if keep:
            groups[gid] = (g.runs, [g.events[c] for c in keep], g.values[:, keep])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        sub = Readings.from_arrays(groups, source=readings.source, min_runs=1, drop_constant=True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = merge(sub, seed=seed, level=level, impute="maxdet")
    except HemkitError as exc:
        raise exc.reworded(f"{side}: correlations of pairs never read together need a merge: {exc.message}") from exc
    # the merge's warnings (e.g. 'group 1 has 3 runs ...') name a group of one side: say which side
    where = f"{side}: {readings.source}" if readings.source else side
    for w in caught:
        if isinstance(w.message, HemkitWarning):
            m = w.message
            again = HemkitWarning(f"{where}: {m.message}", fix=m.fixes, ignored=m.ignored, param=m.param)
            warnings.warn(again, stacklevel=4)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    assert res.pair_intervals is not None
    return res.pair_intervals


def _side(readings: Readings, events: list[str], level: float, seed: SeedLike, side: str) -> tuple[np.ndarray, ...]:
    """Per pair (upper triangle): r, lower, upper, the standard error of z, read together, usable; per event: varies."""
    k = len(events)
    zq = float(ndtri(0.5 + level / 2))
    zsum, wsum, varying = _direct(readings, events)
    i, j = np.triu_indices(k, 1)
    direct = wsum[i, j] > 0
    usable = varying[i] & varying[j]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = zsum[i, j] / wsum[i, j]
        se = 1.0 / np.sqrt(wsum[i, j])
    r, lo, hi = np.tanh(z), np.tanh(z - zq * se), np.tanh(z + zq * se)
    need = usable & ~direct
    if need.any():
        iv = _merged(readings, [e for e, v in zip(events, varying) if v], level, seed, side)
        got = {
            (a, b): (est, lw, up)
            for a, b, est, lw, up in iv[["event_a", "event_b", "estimate", "lower", "upper"]].itertuples(index=False)
        }
        for p in np.flatnonzero(need):
            a, b = events[i[p]], events[j[p]]
            est, lw, up = got.get((a, b)) or got.get((b, a)) or (np.nan, np.nan, np.nan)
            r[p], lo[p], hi[p] = est, lw, up
            za = np.arctanh(np.clip([lw, up], -CLIP, CLIP))
            se[p] = (za[1] - za[0]) / (2 * zq)
    return r, lo, hi, se, direct, usable & np.isfinite(r), varying


def correlation_changes(
    a: Readings, b: Readings, events: list[str], *, level: float = 0.95, seed: SeedLike = 0
) -> pd.DataFrame:
    """Per pair of ``events``: the correlation in A and in B, its change with an interval, and ``changed``.

    Parameters
    ----------
    a, b : Readings
    events : list of str
        Events read on both sides.
    level : float
        Interval level; ``changed`` controls the false discovery rate at ``1 - level``.
    seed : int, Generator or None, default 0
        Of the merges (for pairs never read together on a side).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> x, e1, e2 = rng.normal(size=(3, 300))
    >>> a = Readings({1: pd.DataFrame({"x": 100 + x, "y": 100 + 0.2 * x + e1})})
    >>> b = Readings({1: pd.DataFrame({"x": 100 + x, "y": 100 + 2 * x + e2})})
    >>> t = correlation_changes(a, b, ["x", "y"])
    >>> bool(t["changed"].iloc[0]), t["how_a"].iloc[0]
    (True, 'direct')
    """
    import pandas as pd

    k = len(events)
    i, j = np.triu_indices(k, 1)
    ra, la, ua, sa, da, oka, va = _side(a, events, level, child(seed, "A"), "A")
    rb, lb, ub, sb, db, okb, vb = _side(b, events, level, child(seed, "B"), "B")
    ok = oka & okb
    if not ok.all():
        _warn_left_out(int((~ok).sum()), len(ok), {"A": va, "B": vb}, events)
    diff = rb - ra
    lower = diff - np.sqrt((rb - lb) ** 2 + (ua - ra) ** 2)  # Zou (2007)
    upper = diff + np.sqrt((ub - rb) ** 2 + (ra - la) ** 2)
    zc = np.arctanh(np.clip(rb, -CLIP, CLIP)) - np.arctanh(np.clip(ra, -CLIP, CLIP))
    se = np.sqrt(sa**2 + sb**2)
    from math import erfc, sqrt

    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.abs(zc) / se
    p = np.array([erfc(s / sqrt(2.0)) if np.isfinite(s) else (1.0 if s != np.inf else 0.0) for s in stat])
    p = np.where(ok, p, np.nan)
    q = np.full(len(p), np.nan)
    if ok.any():
        q[ok] = fdr_bh(p[ok])
    table = pd.DataFrame(
        {
            "event_a": [events[x] for x in i],
            "event_b": [events[x] for x in j],
            "r_a": ra,
            "lower_a": la,
            "upper_a": ua,
            "how_a": np.where(da, "direct", "merged"),
            "r_b": rb,
            "lower_b": lb,
            "upper_b": ub,
            "how_b": np.where(db, "direct", "merged"),
            "difference": diff,
            "lower": lower,
            "upper": upper,
            "p_value": p,
            "changed": np.where(ok, q <= 1.0 - level, False),
        }
    )
    return table[ok].reset_index(drop=True)


def _warn_left_out(left: int, pairs: int, varying: dict[str, np.ndarray], events: list[str]) -> None:
    """Say how many pairs the table leaves out, and the events without a correlation that cost them."""
    said = []
    for side, v in varying.items():
        still = [e for e, moves in zip(events, v) if not moves]
        if still:
            shown = ", ".join(map(repr, still[:5])) + (f" ... ({len(still)} in all)" if len(still) > 5 else "")
            said.append(f"{shown} constant within a group of {side}")
    why = "; ".join(said) if said else "no correlation could be estimated"
    warnings.warn(
        f"{left} of {pairs} pairs left out of the pair table, having no correlation on a side ({why})",
        HemkitWarning,
        stacklevel=4,
    )


__all__ = ["correlation_changes"]
