"""Self-checked estimation: each series from the estimators that best predict its own hidden slices.

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
2. **Choose per series.**  The series is put together from the candidates (of ``series``)
   by their hidden relative errors (:func:`combine`): by default the gaps get a weighted
   geometric mean of the candidates that check about as well as the best one (weights
   ``exp(-(error - best) / 0.02)``; one that checks clearly worse has no weight), which
   spreads the risk of a wrong choice made on a few hidden slices; ``temperature=0`` takes
   the best one alone.  The total is the sum of the known counts plus the gap counts of the
   candidate whose hidden sums were closest (of ``totals``).  A series with fewer than two
   blocks cannot be checked: it takes the first candidate of each.
3. **Ask the other runs.**  Runs of one workload are the same program, so which candidate
   suits an event is much the same in each, while a few hidden slices of one run say it
   with noise.  Each series' hidden errors are averaged with those of the same event in the
   other runs of its workload, each other run weighing :data:`RUNS_CHOICE` of the run itself
   (:func:`runs_checks`); the values filled in are still the run's own candidates'.

The default series candidates are ``phase``, ``min``, ``zero``, local interpolation over 4
and 12 slices (:class:`hemkit.mpx.estimators.LocalInterpolation`: the value with the smallest
relative error against the slices around a gap, so a burst in one slice does not spread) and
``phase*``, phase-aware interpolation with its gaps scaled per series by the factor that best
fits the series' own hidden slices (checked on passes it was not fitted to:
:func:`scaled_checks`).  So the series and the total of one event can come from different
estimators: the total is *not* always the sum of the series
(:meth:`CheckedEstimation.estimate_with_totals`).  Ties go to the first candidate.  The
candidates, their order and the temperature were chosen by leaving whole workloads out
(``benchmarks/mpx_eval.py``, BENCHMARKS.md); a candidate may also be a fitted estimator (an
MLP: :mod:`hemkit.mpx.learned`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from hemkit.core.errors import InputError
from hemkit.mpx.emulate import MpxData
from hemkit.mpx.estimators import LocalInterpolation, MpxEstimator, check_data
from hemkit.mpx.phase import INTERPOLATIONS
from hemkit.mpx.runs import other_runs, start_from_runs
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


def can_check(full: np.ndarray) -> np.ndarray:
    """Per series, whether it has two blocks of exact slices or more: one can be hidden and checked.

    Examples
    --------
    >>> can_check(np.array([[True, False, True], [True, True, False], [False, False, False]])).tolist()
    [True, False, False]
    """
    return blocks(full).max(axis=1, initial=0) >= 2


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


def hidden_passes(mpx: MpxData, *, ends: bool = True) -> list[tuple[MpxData, np.ndarray, bool]]:
    """The hiding passes: ``(data with slices hidden, hidden mask, whole blocks?)``, those that hide anything.

    Every second block (two passes) and, with ``ends``, the first and the last slice of every
    block (two passes).
    """
    passes = [(*hide_blocks(mpx, p), True) for p in (0, 1)]
    if ends:
        passes += [(*hide_ends(mpx, e), False) for e in (False, True)]
    return [(m, hidden, whole) for m, hidden, whole in passes if hidden.any()]


def hidden_estimates(
    mpx: MpxData, estimator: MpxEstimator, *, ends: bool = True
) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """``estimator``'s estimates with slices hidden: ``(hidden mask, estimate, whole blocks?)`` per pass."""
    return [(hidden, estimator.estimate_array(m), whole) for m, hidden, whole in hidden_passes(mpx, ends=ends)]


def _capped_errors(est: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Relative errors (Eq. 4) of ``est`` against ``counts``, undefined ones 0, capped at 1000 per slice."""
    with np.errstate(invalid="ignore"):
        return np.minimum(np.nan_to_num(relative_errors(est, counts), nan=0.0, posinf=1e3), 1e3)


def _pass_errors(
    mpx: MpxData, passes: Sequence[tuple[np.ndarray, np.ndarray, bool]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean relative error on the hidden slices, relative error of the hidden block sums, hidden count."""
    S = len(mpx.keys)
    rel, tot, n, mass = np.zeros(S), np.zeros(S), np.zeros(S), np.zeros(S)
    counts = np.nan_to_num(mpx.raw)
    for hidden, est, whole in passes:
        rel += np.where(hidden, _capped_errors(est, counts), 0.0).sum(axis=1)
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
    return _pass_errors(mpx, hidden_estimates(mpx, estimator, ends=ends))


FACTORS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5)
"""The factors a scaled candidate (``"phase*"``) may put on its base's gap values, per series."""


def fit_factors(counts: np.ndarray, passes: Sequence[tuple[np.ndarray, np.ndarray, bool]]) -> np.ndarray:
    """Per series, the factor of :data:`FACTORS` whose multiple of the estimates fits the hidden slices best.

    Best: the smallest summed relative error (capped at 1000 per slice, as in
    :func:`hidden_errors`) over the hidden slices of ``passes``; ties go to the factor
    closest to 1, so a series with nothing hidden keeps 1.

    Examples
    --------
    >>> counts = np.array([[10.0, 20.0, 5.0], [10.0, 20.0, 5.0]])
    >>> hidden = np.array([[True, True, False], [False, False, False]])
    >>> fit_factors(counts, [(hidden, np.array([[20.0, 40.0, 5.0], [1.0, 1.0, 1.0]]), True)]).tolist()
    [0.5, 1.0]
    """
    S = counts.shape[0]
    cost = np.zeros((len(FACTORS), S))
    for hidden, est, _ in passes:
        for k, f in enumerate(FACTORS):
            cost[k] += np.where(hidden, _capped_errors(f * est, counts), 0.0).sum(axis=1)
    near_one = 1e-9 * np.abs(np.asarray(FACTORS) - 1.0)[:, None]
    return np.asarray(FACTORS)[np.argmin(cost + near_one, axis=0)]


def scaled_checks(
    mpx: MpxData, values: np.ndarray, passes: Sequence[tuple[np.ndarray, np.ndarray, bool]]
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A candidate's values with its gaps scaled per series (:func:`fit_factors`), and its hidden errors.

    The factor of the values is fitted on every pass; each pass's hidden errors use the factor
    fitted on the *other* passes (cross-fitting), so that the scaled candidate is not checked
    on the slices it was fitted to.
    """
    gap = mpx.valid & ~mpx.known
    counts = np.nan_to_num(mpx.raw)
    factor = fit_factors(counts, passes)
    scaled = np.where(gap, values * factor[:, None], values)
    crossed = []
    for i, (hidden, est, whole) in enumerate(passes):
        f = fit_factors(counts, [p for j, p in enumerate(passes) if j != i])
        crossed.append((hidden, np.where(hidden, est * f[:, None], est), whole))
    return scaled, _pass_errors(mpx, crossed)


def combine(
    mpx: MpxData, values: Sequence[np.ndarray], errors: np.ndarray, checked: np.ndarray, temperature: float
) -> np.ndarray:
    """The series from candidates' ``values`` (K of (S, T)) weighted by their hidden ``errors`` (K, S).

    ``temperature`` 0: per series the candidate with the smallest error (ties: the first).
    Otherwise the gaps get the weighted geometric mean of ``1 + value`` with weights
    ``exp(-(error - smallest error) / temperature)``: candidates that check almost as well
    share the gap, one that checks clearly worse drops out (below 0.001, exactly).  A series not ``checked`` (nothing
    could be hidden) takes the first candidate.  Known slices stay as counted.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> m = emulate(synthetic_trace(runs=1, steps=40, events=3), pmcs=2)
    >>> a, b = np.full(m.raw.shape, 9.0), np.full(m.raw.shape, 99.0)
    >>> hard = combine(m, [a, b], np.array([[0.2, 0.2, 0.2], [0.1, 0.3, 0.1]]), np.ones(3, bool), 0.0)
    >>> gap = m.valid & ~m.known
    >>> [np.unique(hard[s][gap[s]]).tolist() for s in range(3)]
    [[99.0], [9.0], [99.0]]
    >>> soft = combine(m, [a, b], np.array([[0.2, 0.2, 0.2], [0.2, 0.2, 0.2]]), np.ones(3, bool), 0.02)
    >>> np.unique(np.round(soft[gap], 6)).tolist()    # equal errors: the geometric mean of 10 and 100, minus 1
    [30.622777]
    """
    errors = np.asarray(errors, float)
    S = errors.shape[1]
    if temperature <= 0 or len(values) == 1:
        pick = np.where(checked, np.argmin(errors, axis=0), 0)
        est = np.stack(values)[pick, np.arange(S)]
    else:
        w = np.exp(-(errors - errors.min(axis=0)) / temperature)
        w = np.where(w >= 1e-3, w, 0.0)  # a candidate that checks clearly worse has no say at all
        w = np.where(checked, w, np.eye(len(values), 1)[:, :1])
        w = w / w.sum(axis=0)
        with np.errstate(invalid="ignore"):
            logs = sum(w[k][:, None] * np.log1p(np.maximum(v, 0.0)) for k, v in enumerate(values))
        one = (w > 0).sum(axis=0) == 1  # one candidate alone: its values as they are
        est = np.where(one[:, None], np.stack(values)[np.argmax(w, axis=0), np.arange(S)], np.expm1(np.asarray(logs)))
    gap = mpx.valid & ~mpx.known
    return np.where(gap, est, values[0])


RUNS_CHOICE = 0.5
"""How much each other run of a series' workload weighs in its choice, against the run itself (:func:`runs_checks`).

Chosen on the 27 sets of traces read by then among 0, 0.25, 0.5 and 1 (BENCHMARKS.md, multiplexing's
twenty-eighth pass)."""
SUM_ERROR_CAP = 10.0
"""The error of hidden sums an unbounded one counts as when runs' errors are averaged (:func:`runs_checks`)."""


def runs_checks(
    mpx: MpxData, checks: dict[str, tuple[np.ndarray, ...]], weight: float = RUNS_CHOICE
) -> dict[str, tuple[np.ndarray, ...]]:
    """``checks`` with each series' hidden errors averaged with those of the other runs of its workload.

    Runs are the same program when they share ``workload`` (no ``workload`` column: ``checks``
    as they are); views of one recorded run (``trace_run``) are one run, and emulations on
    different counter counts (``pmcs``) are kept apart.  For series ``i`` and each other run
    ``j`` of its workload and event, with ``w = weight``: the mean relative error becomes
    ``(n_i e_i + w sum n_j e_j) / (n_i + w sum n_j)`` (``n``: hidden slices) and the error of the
    hidden sums ``(t_i + w sum t_j) / (1 + w k)`` over the ``k`` other runs, an unbounded one
    (a sum hidden where nothing was counted) taken as :data:`SUM_ERROR_CAP`.  The hidden counts
    stay the series' own: one that could not be checked still takes the first series
    candidate.

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"workload": "w", "run": np.repeat(["r1", "r2"], 4), "step": [0, 1, 2, 3] * 2,
    ...                    "event": "a", "value": 1.0})
    >>> m = emulate(tr, pmcs=1)
    >>> checks = {"x": (np.array([0.1, 0.4]), np.array([0.0, np.inf]), np.array([2.0, 2.0]))}
    >>> rel, tot, n = runs_checks(m, checks, 1.0)["x"]
    >>> rel.round(3).tolist(), tot.tolist(), n.tolist()   # alike runs: their mean; the unbounded sum as the cap
    ([0.25, 0.25], [5.0, 5.0], [2.0, 2.0])
    """
    groups = other_runs(mpx.keys, apart=("pmcs",)) if weight > 0 else []
    if not groups:
        return checks
    out: dict[str, tuple[np.ndarray, ...]] = {}
    for name, (rel, tot, n) in checks.items():
        rel2, tot2 = rel.astype(float).copy(), tot.astype(float).copy()
        capped = np.minimum(np.where(np.isnan(tot), 0.0, tot), SUM_ERROR_CAP)
        for idx, other in groups:
            k = other.sum(axis=1)
            nn = n[idx].astype(float)
            num = nn * rel[idx] + weight * (other * (nn * rel[idx])[None, :]).sum(axis=1)
            den = nn + weight * (other * nn[None, :]).sum(axis=1)
            rel2[idx] = np.where((k > 0) & (den > 0), num / np.where(den > 0, den, 1.0), rel[idx])
            t = capped[idx]
            pooled = (t + weight * (other * t[None, :]).sum(axis=1)) / (1.0 + weight * k)
            tot2[idx] = np.where(k > 0, pooled, tot[idx])
        out[name] = (rel2, tot2, n)
    return out


SERIES = ("phase", "min", "zero", "local4", "local", "phase*")
"""The default candidates for the series (chosen by leaving workloads out: BENCHMARKS.md)."""
TEMPERATURE = 0.02
"""The default temperature of :func:`combine` (chosen with :data:`SERIES`)."""


class CheckedEstimation(MpxEstimator):
    """Each series (and each total) from the candidates that best predict the series' own hidden slices.

    Parameters
    ----------
    series : sequence of str or estimator
        Candidates for the interval values, by name (an interpolation: ``fixed``, ``linear``,
        ``growth``, ``min``, ``phase``, ``zero``, ``local``; ``localN`` for local interpolation
        over N slices; a name with ``*``, e.g. ``phase*``, for that candidate with its gap
        values scaled per series by the factor that fits its hidden slices best,
        :func:`scaled_checks`) or fitted estimators; the first one is used where nothing can be
        checked.
    totals : sequence of str or estimator
        Candidates for each series' total (its known counts plus the candidate's gap counts).
    temperature : float
        >= 0: how the series candidates are put together (:func:`combine`): 0 takes the one
        with the smallest hidden error; above 0 a weighted geometric mean of those that check
        about as well.
    runs_start : bool
        Fill each series' unseen start (the intervals before its event was first on a counter)
        from the other runs of its workload that counted it there (:mod:`hemkit.mpx.runs`).
    runs_choice : float
        >= 0: how much each other run of a series' workload weighs in its choice of candidates,
        against the run itself (:func:`runs_checks`); 0: each series by its own hidden slices.

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
        series: Sequence[str | MpxEstimator] = SERIES,
        totals: Sequence[str | MpxEstimator] = ("phase", "linear"),
        temperature: float = TEMPERATURE,
        runs_start: bool = True,
        runs_choice: float = RUNS_CHOICE,
    ):
        self.series = series
        self.totals = totals
        self.temperature = temperature
        self.runs_start = runs_start
        self.runs_choice = runs_choice

    def get_params(self) -> dict[str, Any]:
        """The candidates, by name (a fitted estimator by its name), and the temperature."""
        out: dict[str, Any] = {}
        for k in ("series", "totals"):
            v = getattr(self, k)
            out[k] = v if isinstance(v, str) else tuple(_label(c) for c in v)
        out["temperature"] = self.temperature
        out["runs_start"] = self.runs_start
        out["runs_choice"] = self.runs_choice
        return out

    def _candidates(self) -> dict[str, MpxEstimator]:
        """Every base estimator the candidates need, by label (a scaled candidate ``x*`` needs ``x``)."""
        out: dict[str, MpxEstimator] = {}
        for what in ("series", "totals"):
            chosen = getattr(self, what)
            if isinstance(chosen, str) or not len(chosen):
                raise InputError(f"checked estimation: {what} takes a non-empty list of estimators, got {chosen!r}")
            for c in chosen:
                if isinstance(c, str):
                    base = c[:-1] if c.endswith("*") else c
                    out.setdefault(base, _by_name(base, self.name))
                elif isinstance(c, MpxEstimator):
                    out.setdefault(_label(c), c)
                else:
                    raise InputError(f"checked estimation: {what} candidate {c!r} is not an estimator")
        temperature = self.temperature
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature >= 0:
            raise InputError(f"checked estimation: temperature must be a number >= 0, got {temperature!r}")
        if not isinstance(self.runs_start, (bool, np.bool_)):
            raise InputError(f"checked estimation: runs_start must be True or False, got {self.runs_start!r}")
        w = self.runs_choice
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w < np.inf:
            raise InputError(f"checked estimation: runs_choice must be a number >= 0, got {w!r}")
        return out

    def checks(self, mpx: MpxData) -> tuple[dict[str, np.ndarray], dict[str, tuple[np.ndarray, ...]]]:
        """Every candidate's values (S, T) and hidden errors (:func:`hidden_errors`: relative, of sums, count).

        Only what a choice needs is checked: one candidate is no choice (its errors are 0).
        """
        check_data(mpx)
        cands = self._candidates()
        s_names = [_label(c) for c in self.series]
        t_names = [_label(c) for c in self.totals]
        S = len(mpx.keys)
        zeros = (np.zeros(S), np.zeros(S), np.zeros(S))
        values = {n: c.estimate_array(mpx) for n, c in cands.items()}
        checks: dict[str, tuple[np.ndarray, ...]] = {}
        for n, c in cands.items():
            in_s, in_t = len(s_names) > 1 and n in s_names, len(t_names) > 1 and n in t_names
            scaled = f"{n}*" in s_names or f"{n}*" in t_names
            if not (in_s or in_t or scaled):
                checks[n] = zeros
                continue
            passes = hidden_estimates(mpx, c, ends=in_s or scaled)
            checks[n] = _pass_errors(mpx, passes)
            if scaled:
                values[f"{n}*"], checks[f"{n}*"] = scaled_checks(mpx, values[n], passes)
        return values, checks

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """The chosen candidate's values for every series, (S, T)."""
        return self.estimate_with_totals(mpx)[0]

    def estimate_with_totals(self, mpx: MpxData) -> tuple[np.ndarray, np.ndarray]:
        """The series (S, T) from the candidates and the chosen totals (S,) (see the module docstring)."""
        values, checks = self.checks(mpx)
        return series_and_totals(
            mpx,
            values,
            checks,
            [_label(c) for c in self.series],
            [_label(c) for c in self.totals],
            self.temperature,
            runs_start=bool(self.runs_start),
            runs_choice=float(self.runs_choice),
        )


def series_and_totals(  # noqa: PLR0913 - the candidates' checks, the choice, and the other runs' start
    mpx: MpxData,
    values: dict[str, np.ndarray],
    checks: dict[str, tuple[np.ndarray, ...]],
    series: Sequence[str],
    totals: Sequence[str],
    temperature: float,
    *,
    runs_start: bool = True,
    runs_choice: float = RUNS_CHOICE,
) -> tuple[np.ndarray, np.ndarray]:
    """The series (:func:`combine` of ``series``) and the totals (``totals``' smallest hidden sum error).

    ``values`` and ``checks`` as :meth:`CheckedEstimation.checks` returns them (for any superset
    of the candidates: ``benchmarks/mpx_eval.py`` puts several sets together from one run).
    ``runs_start``: each series' unseen start from the other runs of its workload
    (:func:`hemkit.mpx.runs.start_from_runs`), in the series and in every total.
    ``runs_choice``: the other runs' weight in each choice (:func:`runs_checks`).
    """
    S = len(mpx.keys)
    rows = np.arange(S)
    checked = checks[series[0]][2] > 0 if len(series) > 1 else np.zeros(S, bool)
    checks = runs_checks(mpx, {n: checks[n] for n in {*series, *totals}}, runs_choice)
    est = combine(mpx, [values[n] for n in series], np.vstack([checks[n][0] for n in series]), checked, temperature)
    fill = start_from_runs(mpx) if runs_start else np.full(est.shape, np.nan)
    use = np.isfinite(fill)
    est = np.where(use, fill, est)
    gap = mpx.valid & ~mpx.known
    known = np.where(mpx.valid & mpx.known, est, 0.0).sum(axis=1)
    gaps = np.vstack([np.where(gap, np.where(use, fill, values[n]), 0.0).sum(axis=1) for n in totals])
    pick = np.argmin(np.vstack([checks[n][1] for n in totals]), axis=0)  # ties (and unchecked, all 0): the first
    return est, known + gaps[pick, rows]


def _by_name(name: str, own: str) -> MpxEstimator:
    """An interpolation candidate by name (``localN``: local interpolation over N slices)."""
    if name == own:
        raise InputError("checked estimation: 'checked' cannot be its own candidate")
    if name in INTERPOLATIONS:
        return INTERPOLATIONS[name]()
    if name.startswith("local") and name[5:].isdigit():
        est = LocalInterpolation(slices=int(name[5:]))
        est._check_params()
        return est
    raise InputError(
        f"checked estimation: unknown estimator {name!r} ({', '.join(INTERPOLATIONS)}, localN, "
        "a name with * for its scaled version, or a fitted estimator object)"
    )


def _label(c: str | MpxEstimator) -> str:
    return c if isinstance(c, str) else getattr(c, "name", type(c).__name__)


__all__ = [
    "FACTORS",
    "RUNS_CHOICE",
    "SERIES",
    "SUM_ERROR_CAP",
    "TEMPERATURE",
    "CheckedEstimation",
    "blocks",
    "combine",
    "fit_factors",
    "hidden_errors",
    "hidden_estimates",
    "hidden_passes",
    "hide_blocks",
    "hide_ends",
    "runs_checks",
    "scaled_checks",
    "series_and_totals",
]
