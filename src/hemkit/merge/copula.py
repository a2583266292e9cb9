"""Copula merge: hemkit's own method, rank-exact where MUCH hopes for a lucky draw.

MUCH (see :mod:`hemkit.merge.much`) draws ``n_sims`` multivariate-normal samples and keeps
the one whose arrangement lands closest to the observed correlations; with ``n`` runs each
draw misses the target by ``O(1/sqrt(n))`` per pair, and best-of-``n_sims`` only trims that.
This method removes the sampling error and the mismatch between the Gaussian model and the
raw readings:

1. **Target from ranks.**  Each group's readings are turned into normal scores *within the
   group* (``Phi^-1(rank / (n_g + 1))``), which removes shifts and scale changes between
   groups (drift), and the pairwise correlation of the scores is pooled over every group
   that read both events.  This is the Gaussian-copula correlation, estimated robustly for
   skewed, bimodal or heavy-tailed counts.  (For a Gaussian copula it equals
   ``2 sin(pi rho_s / 6)`` of the Spearman correlation ``rho_s``.)  Missing pairs and a non
   positive-definite matrix are handled as in MUCH.
2. **Iman-Conover reordering** (Iman & Conover 1982): the van der Waerden scores, randomly
   permuted per event, are transformed by ``S P^-T L^T`` where ``P P^T`` is their own sample
   correlation and ``L L^T`` the target, so their correlation equals the target *exactly*;
   each event's actual readings are then placed in the rank order of its column.
3. **All readings.**  The merged table has by default as many rows as the event with the
   most readings (pooled over its groups), not one group's run count, so the merged
   correlations carry less sampling noise.
4. **Pearson refinement, as far as the data call for it.**  Users check merged data with
   Pearson correlations of the raw counts.  A second score-space target is found by a
   fixed-point iteration (``refine`` steps): the achieved Pearson matrix of the raw counts
   is compared with the observed pairwise Pearson correlations and the target corrected by
   the difference, until the raw-value correlations land on the observed ones.  The merge
   uses the blend ``(1 - w) * copula + w * refined`` (a convex combination of correlation
   matrices, so still one).  ``w = 0`` keeps the rank structure exactly (best when the
   counts follow a Gaussian copula and groups have few runs, since Pearson correlations of
   a few dozen skewed counts are noisy); ``w = 1`` matches Pearson (best for Pearson alone
   on real data whose dependence is not a Gaussian copula, at a cost in Spearman).  The
   default ``pearson_weight="auto"`` picks ``w`` from (0, 0.25, 0.5, 0.75, 1) by a holdout
   inside the data: half of each group's runs are merged with every ``w`` and scored by
   Pearson + Spearman MSE against the other half's observed correlations
   (:func:`choose_pearson_weight`).  On held-out T2080 runs this gives 0.59x MUCH's
   Pearson MSE but 1.3x its (small) Spearman MSE; on Gaussian-copula synthetic data it
   gives about 0.6x MUCH's MSE in both (BENCHMARKS.md).

"""

from __future__ import annotations

from dataclasses import InitVar, asdict, dataclass, field

import numpy as np

from hemkit.core.checks import check_scalar
from hemkit.core.errors import InputError
from hemkit.core.normal import ndtri
from hemkit.core.readings import Readings
from hemkit.core.rng import SeedLike, as_generator
from hemkit.merge.checks import check_rows, need_mergeable, take_old_n
from hemkit.merge.correlation import (
    assemble_target,
    average_ranks,
    clip_correlation,
    group_normal_scores,
    nearest_correlation,
    pairwise_correlation,
    standardized,
    upper,
)
from hemkit.merge.reorder import argsort_rows, batch_correlation, default_rows, event_values, place_by
from hemkit.merge.result import MergeResult, make_result

WEIGHT_GRID = (0.0, 0.25, 0.5, 0.75, 1.0)


def whiten(base: np.ndarray) -> np.ndarray:
    """Iman-Conover's first half: rows of ``base`` (``k x n``) made exactly uncorrelated (``P^-1 S``)."""
    return np.linalg.solve(np.linalg.cholesky(np.corrcoef(base)), base)


def iman_conover(white: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Iman-Conover's second half: whitened rows given exactly the correlation ``target`` (``L P^-1 S``)."""
    return np.linalg.cholesky(target) @ white


@dataclass
class _Problem:
    """Everything one copula merge needs, computed once.

    Every arrangement is a permutation of each event's sorted readings, so what a
    correlation of it needs per event (median and scale, ranks) is computed once on the
    sorted readings and placed with the arrangement's order: no sort or median per candidate.
    """

    events: list[str]
    values: np.ndarray  # k x n sorted readings
    white: np.ndarray  # k x n whitened van der Waerden scores
    copula: np.ndarray  # k x k rank-based target
    goal: np.ndarray  # observed pairwise Pearson, upper triangle (observed pairs only)
    observed: np.ndarray  # which upper-triangle pairs were observed
    repaired: bool
    imputed: list[tuple[str, str]]
    scaled: np.ndarray = field(init=False)  # values in [-1, 1] (standardized: any permutation keeps it)

    def __post_init__(self) -> None:
        self.scaled = standardized(self.values)

    def order(self, target: np.ndarray) -> np.ndarray:
        """Where each sorted reading goes (per event) to follow the Iman-Conover scores of ``target``."""
        return argsort_rows(iman_conover(self.white, target))

    def arrange(self, target: np.ndarray) -> np.ndarray:
        return place_by(self.order(target), self.values)

    def correlation(self, order: np.ndarray) -> np.ndarray:
        """Pearson correlations of the readings arranged by ``order`` (k x k)."""
        return batch_correlation(place_by(order, self.scaled), standardize=False)

    def pearson_error(self, corr: np.ndarray) -> float:
        if not self.goal.size:
            return 0.0
        return float(((upper(corr)[self.observed] - self.goal) ** 2).mean())

    def pearson_target(self, refine: int) -> tuple[np.ndarray, list[float]]:
        """Score-space target whose arrangement's raw Pearson correlations match the observed ones."""
        k = len(self.events)
        iu = np.triu_indices(k, 1)
        obs_i, obs_j = iu[0][self.observed], iu[1][self.observed]
        target = self.copula.copy()
        achieved = self.correlation(self.order(target))
        best_target, history = target, [self.pearson_error(achieved)]
        for _ in range(refine):  # a handful of whole-matrix corrections, not a loop over pairs
            step = np.zeros((k, k))
            step[obs_i, obs_j] = self.goal - achieved[obs_i, obs_j]
            target = np.clip(target + step + step.T, -0.9999, 0.9999)
            np.fill_diagonal(target, 1.0)
            target = clip_correlation(target)
            achieved = self.correlation(self.order(target))
            history.append(self.pearson_error(achieved))
            if history[-1] <= min(history[:-1]):
                best_target = target
            # stop when converged: no 1 % gain over the last three steps
            if history[-1] < 1e-10 or (len(history) > 3 and min(history[-3:]) > 0.99 * min(history[:-3])):
                break
        return best_target, history


@dataclass(frozen=True)
class CopulaOptions:
    """Less common options of :func:`merge_copula`.

    Attributes
    ----------
    rows : int, optional
        Merged rows (``n``: its old name, deprecated); default every reading of the event read most often
        (:func:`hemkit.merge.reorder.default_rows`): all readings are used, so the merged
        correlations carry less sampling noise (events read less often are spread over
        their order statistics, see :func:`hemkit.merge.reorder.event_values`).  This is
        why the bundled T2080 data (1000 runs per group, ``PROCESSOR_CYCLES`` read in all
        24 groups) merges into 24 000 rows.
    refine : int
        Most refinement steps of the Pearson-matching target.
    outliers, z, impute
        As in :class:`hemkit.merge.MuchOptions`.

    Examples
    --------
    >>> CopulaOptions(rows=1000).rows
    1000
    """

    rows: int | None = None
    refine: int = 10
    outliers: str = "keep"
    z: float = 3.0
    impute: str | None = None
    n: InitVar[int | None] = None

    def __post_init__(self, n: int | None) -> None:
        take_old_n(self, n)


def _problem(readings: Readings, rng: np.random.Generator, opts: CopulaOptions) -> _Problem:
    events = readings.events
    k = len(events)
    scores = group_normal_scores(readings)
    copula_frame, _ = pairwise_correlation(readings, kind="scores", scores=scores, outliers=opts.outliers, z=opts.z)
    copula, imputed = assemble_target(copula_frame.loc[events, events], impute=opts.impute)
    copula, repaired = nearest_correlation(copula)
    pearson, _ = pairwise_correlation(readings, kind="pearson", outliers=opts.outliers, z=opts.z)
    goal = upper(pearson.loc[events, events].to_numpy())
    observed = ~np.isnan(goal)
    n = int(opts.rows) if opts.rows is not None else default_rows(readings)
    if n < 3:
        raise InputError(f"cannot merge into {n} runs; at least 3 are needed")
    white = white_scores(k, n, rng)
    return _Problem(
        events, event_values(readings, events, n), white, copula, goal[observed], observed, repaired, imputed
    )


def white_scores(k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` randomly permuted copies of the ``n`` van der Waerden scores, made exactly uncorrelated.

    Needs ``n > k`` (``k`` centred rows of rank ``k``); a draw whose permutations happen to
    be linearly dependent (possible for tiny ``n``) is redrawn.

    Examples
    --------
    >>> w = white_scores(3, 50, np.random.default_rng(0))
    >>> bool(np.allclose(np.corrcoef(w), np.eye(3)))
    True
    """
    if n <= k:
        raise InputError(
            f"cannot arrange {k} events in {n} merged runs: at least {k + 1} are needed (pass more rows, n)"
        )
    vdw = ndtri(np.arange(1, n + 1) / (n + 1))
    for _ in range(50):  # redraw permutations that happen to be dependent (tiny n only)
        try:
            return whiten(rng.permuted(np.broadcast_to(vdw, (k, n)), axis=1))
        except np.linalg.LinAlgError:
            continue
    raise InputError(f"cannot arrange {k} events in {n} merged runs independently; pass more rows (n)")


def _check(opts: CopulaOptions) -> None:
    check_rows(opts.rows)
    check_scalar(opts.refine, "refine", min_val=0)


HOLDOUT_RUNS = 10_000
"""Runs per group in each half of the inner holdout of :func:`choose_pearson_weight`, at most.

Below this the choice is unchanged (the bundled T2080 and Zen 5 collections have at most a
few thousand runs a group). Above it, the candidates' holdout MSEs differ by less than
their own noise whatever the size (a 1e6-run synthetic collection picks a different weight
with each seed, capped or not), so merging more runs only costs time.
"""


def _at_most(readings: Readings, runs: int, rng: np.random.Generator) -> Readings:
    """``readings`` with each group cut to at most ``runs`` runs drawn at random (in order)."""
    if max(readings.run_counts.values()) <= runs:
        return readings
    groups = {}
    for g, grp in readings.arrays.items():
        n = len(grp.runs)
        keep = np.arange(n) if n <= runs else np.sort(rng.choice(n, runs, replace=False))
        groups[g] = (grp.runs[keep], grp.events, grp.values[keep])
    return Readings.from_arrays(groups, source=readings.source, min_runs=readings.min_runs, copy=False)


def choose_pearson_weight(
    readings: Readings,
    *,
    seed: SeedLike = 0,
    grid: tuple[float, ...] = WEIGHT_GRID,
    options: CopulaOptions | None = None,
) -> tuple[float, dict[float, float]]:
    """Pick the Pearson weight of :func:`merge_copula` by a holdout inside the data.

    Each group's runs (at most ``2 * HOLDOUT_RUNS`` of them, drawn at random, for long
    collections) are split in halves; the first half is merged with every weight in ``grid``
    and each merge scored by Pearson + Spearman MSE against the observed pairwise
    correlations of the second half.  When the runs cannot be split (a group with fewer than
    6 runs, or a half in which an event never changes) the weight is 0.

    Returns the chosen weight and the holdout MSE of each weight.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> w, scores = choose_pearson_weight(t2080_much(), seed=0)
    >>> w in WEIGHT_GRID and len(scores) == len(WEIGHT_GRID)
    True
    """
    opts = options or CopulaOptions()
    if int(readings.n_runs.min()) < 6:
        return 0.0, {}
    rng = as_generator(seed)
    try:  # both halves of at most HOLDOUT_RUNS runs a group
        part, reference = _at_most(readings, 2 * HOLDOUT_RUNS, rng).split_runs(0.5, seed=int(rng.integers(2**32)))
    except InputError:  # a half in which some event never changes: no holdout possible
        return 0.0, {}
    prob = _problem(part, rng, CopulaOptions(None, opts.refine, opts.outliers, opts.z, opts.impute))
    refined, _ = prob.pearson_target(opts.refine) if any(w > 0 for w in grid) else (prob.copula, [])
    ref = {
        kind: upper(pairwise_correlation(reference, kind=kind)[0].loc[prob.events, prob.events].to_numpy())
        for kind in ("pearson", "spearman")
    }
    # the ranks of an arrangement are the (sorted) readings' ranks, placed the same way
    ranks = standardized(average_ranks(prob.values, axis=1))
    scores = {}
    for w in grid:  # a handful of candidate weights
        order = prob.order((1 - w) * prob.copula + w * refined)
        mine = {
            "pearson": upper(prob.correlation(order)),
            "spearman": upper(batch_correlation(place_by(order, ranks), standardize=False)),
        }
        scores[float(w)] = sum(float(np.nanmean((mine[k] - ref[k]) ** 2)) for k in ref)
    best = min(scores, key=lambda w: scores[w])
    return best, scores


def merge_copula(
    readings: Readings,
    *,
    seed: SeedLike = 0,
    pearson_weight: float | str = "auto",
    options: CopulaOptions | None = None,
) -> MergeResult:
    """Merge by a rank-based Gaussian copula with exact (Iman-Conover) reordering.

    Parameters
    ----------
    readings : Readings
        Groups covering every pair of events (a MUCH design).
    seed : int, Generator or None
        Randomness (the random permutation of the base scores, the holdout split).
    pearson_weight : float in [0, 1] or "auto", default "auto"
        Blend between the rank target (0) and the target refined to match the observed
        Pearson correlations of the raw counts (1); ``"auto"`` chooses by a holdout inside
        the data (:func:`choose_pearson_weight`).
    options : CopulaOptions, optional
        ``n`` (merged rows), ``refine``, ``outliers``, ``z``, ``impute``.

    Returns
    -------
    MergeResult
        ``data``: ``n`` rows x events; every column holds the event's actual readings.
        ``diagnostics``: ``pearson_weight`` (used), ``holdout_mse`` (of each candidate
        weight, for ``"auto"``), ``mse_to_observed`` (against the observed Pearson
        correlations), ``refine_mse``, ``repaired``, ``imputed``.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> merged = merge_copula(t2080_much(), seed=1, pearson_weight=0.5)
    >>> merged.data.shape   # every reading: PROCESSOR_CYCLES was read in 24 groups of 1000 runs
    (24000, 16)
    """
    opts = options or CopulaOptions()
    _check(opts)
    need_mergeable(readings, opts.impute)
    rng = as_generator(seed)
    holdout_scores: dict = {}
    if isinstance(pearson_weight, str):
        if pearson_weight != "auto":
            raise InputError(
                f"pearson_weight must be a number in [0, 1] or 'auto', got {pearson_weight!r}", param="pearson_weight"
            )
        pearson_weight, holdout_scores = choose_pearson_weight(readings, seed=rng, options=opts)
    try:
        w = float(pearson_weight)
    except (TypeError, ValueError):
        raise InputError(
            f"pearson_weight must be a number in [0, 1] or 'auto', got {pearson_weight!r}", param="pearson_weight"
        ) from None
    if not 0 <= w <= 1:
        raise InputError(f"pearson_weight must be in [0, 1], got {w}", param="pearson_weight")
    prob = _problem(readings, rng, opts)
    target = prob.copula
    history: list[float] = []
    if w > 0:
        refined, history = prob.pearson_target(opts.refine)
        target = (1 - w) * prob.copula + w * refined
    order = prob.order(target)
    merged = place_by(order, prob.values)
    params = {"pearson_weight": w, "auto": bool(holdout_scores), **asdict(opts)}
    params["rows"] = merged.shape[1]
    diagnostics = {
        "pearson_weight": w,
        "holdout_mse": {str(k): v for k, v in holdout_scores.items()},
        "mse_to_observed": prob.pearson_error(prob.correlation(order)),
        "refine_mse": history,
        "repaired": bool(prob.repaired),
        "imputed": [(str(a), str(b)) for a, b in prob.imputed],
    }
    return make_result(dict(zip(prob.events, merged)), "copula", params, diagnostics, readings)


__all__ = ["CopulaOptions", "choose_pearson_weight", "iman_conover", "merge_copula", "white_scores", "whiten"]
