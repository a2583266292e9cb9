"""Self-checked estimation: each series by the estimator that best predicts its own hidden slices.

No one interpolation is best for every event.  Phase-aware interpolation
(:mod:`hemkit.mpx.phase`) follows a program's phases; the smaller slice around a gap
(``min``) is right more often for a sparse event that comes in rare bursts; and the values
that are most often right interval by interval are not the ones whose *sum* is right
(relative accuracy punishes an overestimate without bound and an underestimate by at most
1, so a good series leans low, while a good total must not).  A multiplexed run itself
says which estimator suits each of its series:

1. **Hide slices the run did count.**  An event's slices on a counter come in *blocks* of
   consecutive intervals.  Four passes hide some of them: every second block (blocks 1, 3,
   5, ... in one pass, 2, 4, 6, ... in the other), then the first and then the last slice of
   every block.  Each candidate estimates the hidden slices from what is left.  Their counts
   are known exactly, so each candidate's error on them is known: its mean relative error
   (RA, Eq. 4) over the hidden slices, and the error of its sums over the hidden blocks.
2. **Choose per series.**  The series is the estimate of the candidate with the smallest
   hidden relative error (of ``series``); its total is the sum of the known counts plus the
   gap counts of the candidate whose hidden sums were closest (of ``totals``).  A series with
   fewer than two blocks cannot be checked: it takes the first candidate of each.

So the series and the total of one event can come from different estimators: the total is
*not* always the sum of the series (:meth:`CheckedEstimation.estimate_with_totals`).  Ties go
to the first candidate.  What the candidates are and which one is first were chosen by
leaving whole workloads out (BENCHMARKS.md); a candidate may also be a fitted estimator
(an MLP: :mod:`hemkit.mpx.learned`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from hemkit.core.errors import InputError
from hemkit.mpx.emulate import MpxData
from hemkit.mpx.estimators import MpxEstimator, check_data
from hemkit.mpx.phase import INTERPOLATIONS
from hemkit.mpx.scores import relative_errors


def blocks(full: np.ndarray) -> np.ndarray:
    """Number of the block of consecutive exact slices each interval belongs to (0 outside; 1, 2, ... within).

    Examples
    --------
    >>> blocks(np.array([[True, True, False, True, False, False, True]])).tolist()
    [[1, 1, 0, 2, 0, 0, 3]]
    """
    start = full & ~np.concatenate([np.zeros((len(full), 1), bool), full[:, :-1]], axis=1)
    return np.where(full, np.cumsum(start, axis=1), 0)


def hide_blocks(mpx: MpxData, parity: int) -> tuple[MpxData, np.ndarray]:
    """``mpx`` with every second block of exact slices hidden (those whose number has ``parity``), and the mask.

    Only series with at least two blocks lose any, so every series keeps a slice.

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": np.repeat(np.arange(6), 2), "event": ["a", "b"] * 6, "value": 1.0})
    >>> m, hidden = hide_blocks(emulate(tr, pmcs=1), 1)
    >>> hidden.astype(int).tolist(), m.observed.astype(int).tolist()
    ([[1, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1]], [[0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0]])
    """
    b = blocks(mpx.full)
    hidden = (b > 0) & (b % 2 == parity % 2) & (b.max(axis=1) >= 2)[:, None]
    return _hide(mpx, hidden), hidden


def hide_ends(mpx: MpxData, last: bool) -> tuple[MpxData, np.ndarray]:
    """``mpx`` with the first (or ``last``) slice of every block hidden, and the mask.

    A block of one slice is hidden in every second block instead (odd-numbered ones for
    the first, even for the last), and only where the series has two blocks or more, so
    every series keeps a slice.  The gaps grow by one interval: closer to the real ones than
    hiding whole blocks.

    Examples
    --------
    >>> full = np.array([[True, True, True, False, True, True, False, True]])
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": np.arange(8), "event": "a", "value": 1.0})
    >>> m = emulate(tr, pmcs=1)
    >>> from dataclasses import replace
    >>> m = replace(m, running=np.where(full, m.running, 0.0), raw=np.where(full, m.raw, np.nan))
    >>> hide_ends(m, last=False)[1].astype(int).tolist(), hide_ends(m, last=True)[1].astype(int).tolist()
    ([[1, 0, 0, 0, 1, 0, 0, 1]], [[0, 0, 1, 0, 0, 1, 0, 0]])
    """
    b = blocks(mpx.full)
    zero = np.zeros((len(b), 1), int)
    before = np.concatenate([zero, b[:, :-1]], axis=1)
    after = np.concatenate([b[:, 1:], zero], axis=1)
    first, end = (b > 0) & (before != b), (b > 0) & (after != b)
    single = first & end
    several = (b.max(axis=1) >= 2)[:, None]
    hidden = ((end if last else first) & ~single) | (single & several & (b % 2 == (0 if last else 1)))
    return _hide(mpx, hidden), hidden


def _hide(mpx: MpxData, hidden: np.ndarray) -> MpxData:
    return replace(mpx, raw=np.where(hidden, np.nan, mpx.raw), running=np.where(hidden, 0.0, mpx.running))


def hidden_errors(
    mpx: MpxData, estimator: MpxEstimator, *, ends: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per series: ``estimator``'s mean relative error on hidden slices, its error of their sums, the hidden count.

    Four passes each hide some exact slices and estimate them from the rest: every second
    block (two passes) and the first and the last slice of every block (two passes).  The
    relative error (Eq. 4's, with hemkit's zero rule, each capped at 1000) is averaged over
    every hidden slice of the four.  The sum error adds, over the two block passes,
    ``|sum of estimates - sum of counts|`` of the hidden blocks, relative to their counts (0
    where nothing could be hidden): whole blocks are what a total misses.

    Parameters
    ----------
    mpx : MpxData
        Multiplexed series (without truth: the hidden slices' own counts are the answers).
    estimator : MpxEstimator
        The candidate to check.
    ends : bool
        Also run the two passes that hide the ends of blocks (``False``: the block passes only).

    Returns
    -------
    tuple of ndarray (S,)
        Mean relative error on the hidden slices, relative error of the hidden sums, number
        of hidden slices.

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> from hemkit.mpx.estimators import FixedInterpolation, LinearInterpolation
    >>> tr = pd.DataFrame({"run": "r", "step": np.repeat(np.arange(20), 2), "event": ["a", "b"] * 20,
    ...                    "value": np.repeat(np.arange(20.0) + 1, 2)})
    >>> m = emulate(tr, pmcs=1).without_truth()
    >>> lin, fix = hidden_errors(m, LinearInterpolation()), hidden_errors(m, FixedInterpolation())
    >>> bool((lin[0] < fix[0]).all() and (lin[1] < fix[1]).all()), lin[2].tolist()   # a ramp: linear is closer
    (True, [20.0, 20.0])
    """
    S = len(mpx.keys)
    rel, tot, n, mass = np.zeros(S), np.zeros(S), np.zeros(S), np.zeros(S)
    counts = np.nan_to_num(mpx.raw)
    passes = [(hide_blocks(mpx, p), True) for p in (0, 1)]
    if ends:
        passes += [(hide_ends(mpx, e), False) for e in (False, True)]
    for (m, hidden), whole in passes:
        if not hidden.any():
            continue
        est = estimator.estimate_array(m)
        with np.errstate(invalid="ignore"):
            err = np.minimum(np.nan_to_num(relative_errors(est, counts), nan=0.0, posinf=1e3), 1e3)
        rel += np.where(hidden, err, 0.0).sum(axis=1)
        n += hidden.sum(axis=1)
        if whole:
            truth = np.where(hidden, counts, 0.0).sum(axis=1)
            tot += np.abs(np.where(hidden, est, 0.0).sum(axis=1) - truth)
            mass += truth
    with np.errstate(invalid="ignore", divide="ignore"):
        return (
            np.where(n > 0, rel / np.maximum(n, 1), 0.0),
            np.where(mass > 0, tot / np.where(mass > 0, mass, 1.0), np.where(tot > 0, np.inf, 0.0)),
            n,
        )


class CheckedEstimation(MpxEstimator):
    """Each series (and each total) by the candidate that best predicts the series' own hidden slices.

    Parameters
    ----------
    series : sequence of str or estimator
        Candidates for the interval values, by name (an interpolation: ``fixed``, ``linear``,
        ``growth``, ``min``, ``phase``, ``zero``) or fitted estimators; the first one is used
        where nothing can be checked.
    totals : sequence of str or estimator
        Candidates for each series' total (its known counts plus the candidate's gap counts).

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> m = emulate(synthetic_trace(runs=2, steps=60, seed=1), pmcs=2)
    >>> values, totals = CheckedEstimation().estimate_with_totals(m.without_truth())
    >>> values.shape == m.truth.shape and totals.shape == (len(m.keys),)
    True
    """

    name = "checked"

    def __init__(
        self,
        series: Sequence[str | MpxEstimator] = ("phase", "min", "zero"),
        totals: Sequence[str | MpxEstimator] = ("phase", "linear"),
    ):
        self.series = series
        self.totals = totals

    def get_params(self) -> dict[str, Any]:
        """The candidates, by name (a fitted estimator by its name)."""
        out: dict[str, Any] = {}
        for k in ("series", "totals"):
            v = getattr(self, k)
            out[k] = v if isinstance(v, str) else tuple(_label(c) for c in v)
        return out

    def _candidates(self) -> dict[str, MpxEstimator]:
        out: dict[str, MpxEstimator] = {}
        for what in ("series", "totals"):
            chosen = getattr(self, what)
            if isinstance(chosen, str) or not len(chosen):
                raise InputError(f"checked estimation: {what} takes a non-empty list of estimators, got {chosen!r}")
            for c in chosen:
                if isinstance(c, str):
                    if c == self.name:
                        raise InputError("checked estimation: 'checked' cannot be its own candidate")
                    if c not in INTERPOLATIONS:
                        raise InputError(
                            f"checked estimation: unknown estimator {c!r} ({', '.join(INTERPOLATIONS)}, "
                            "or a fitted estimator object)"
                        )
                    out.setdefault(c, INTERPOLATIONS[c]())
                elif isinstance(c, MpxEstimator):
                    out.setdefault(_label(c), c)
                else:
                    raise InputError(f"checked estimation: {what} candidate {c!r} is not an estimator")
        return out

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """The chosen candidate's values for every series, (S, T)."""
        return self.estimate_with_totals(mpx)[0]

    def estimate_with_totals(self, mpx: MpxData) -> tuple[np.ndarray, np.ndarray]:
        """The chosen values (S, T) and the chosen totals (S,) (see the module docstring)."""
        check_data(mpx)
        cands = self._candidates()
        values = {n: c.estimate_array(mpx) for n, c in cands.items()}
        s_names = [_label(c) for c in self.series]
        t_names = [_label(c) for c in self.totals]
        S = len(mpx.keys)
        checks = {  # only what a choice needs: one candidate is no choice
            n: hidden_errors(mpx, c, ends=len(s_names) > 1 and n in s_names)
            if (len(s_names) > 1 and n in s_names) or (len(t_names) > 1 and n in t_names)
            else (np.zeros(S), np.zeros(S), np.zeros(S))
            for n, c in cands.items()
        }
        rows = np.arange(S)

        def pick(names: list[str], which: int) -> np.ndarray:
            loss = np.vstack([checks[n][which] for n in names])
            return np.argmin(loss, axis=0)  # ties (and unchecked series, all 0) go to the first

        stack = np.stack([values[n] for n in s_names])
        est = stack[pick(s_names, 0), rows]
        gap = mpx.valid & ~mpx.known
        known = np.where(mpx.valid & mpx.known, est, 0.0).sum(axis=1)
        gaps = np.vstack([np.where(gap, values[n], 0.0).sum(axis=1) for n in t_names])
        totals = known + gaps[pick(t_names, 1), rows]
        return est, totals


def _label(c: str | MpxEstimator) -> str:
    return c if isinstance(c, str) else getattr(c, "name", type(c).__name__)


__all__ = ["CheckedEstimation", "blocks", "hidden_errors", "hide_blocks", "hide_ends"]
