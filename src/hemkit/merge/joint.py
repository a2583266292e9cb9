"""The joint merge: a Gaussian copula fitted to all runs at once, ranks and tails placed to match.

MUCH and the copula merge estimate each pair's correlation from the runs that read that
pair only.  This merge uses every run jointly and places what decides the correlations
users check:

1. **Maximum likelihood with data missing by design.**  Each run read only its group's
   events; under a Gaussian copula the others are missing at random (by design).  The
   observed-data likelihood of the within-group normal scores depends on each group only
   through its scatter matrix, so it and its gradient cost ``O(groups x k^3)``; maximised
   by L-BFGS (:func:`ml_correlation`) it gives the copula's correlation matrix, each pair
   informed by every run that read either event and any event correlated with them.  The
   same fit to within-group uniform scores (ranks over ``n_g + 1``) estimates the
   Spearman correlations.
2. **Exact arrangement** of each event's actual readings (all of them, as the copula merge)
   by Iman-Conover (:mod:`hemkit.merge.copula`).
3. **Ranks as the data have them.**  Counters with ties (a count that is 0 in most runs, a
   handful of distinct page-fault counts) lose rank correlation when tied readings are
   placed by continuous scores; the score target is corrected by a fixed-point iteration
   until the merged table's Spearman correlations (ties averaged, as in the data) match
   the maximum-likelihood estimate.  On the real ``br_64kb`` truth this halves the Spearman error;
   off by default (``ranks=False``): over 15 truth tables it cost Pearson accuracy.
4. **Tails placed for Pearson.**  On heavy-tailed counters a handful of extreme runs decide
   the Pearson correlation, and whether extremes come together (tail dependence) is
   exactly what a Gaussian copula cannot know.  The pairwise data can: each pair's
   Pearson correlation is estimated twice (from the runs read together, and as their
   covariance over the events' variances from *all* their readings -- the available-case
   estimate), averaged, and shrunk toward the copula arrangement's own Pearson
   correlation by a positive-part James-Stein weight ``1 - var / diff^2`` (``var`` from a
   bootstrap of runs within groups).  Then only outlying readings (robust z above
   ``tails``, 6 by default) are moved, each swapped greedily with the row that brings the
   merged Pearson correlations closest to those goals.  The bulk keeps its ranks.
   With ``linear`` > 0 the goal is blended with a maximum-likelihood Gaussian fitted to the
   readings themselves, all groups at once (:func:`linear_correlation`): on software
   events, extremes come together in disturbed runs (context switches, interrupts, frees
   at once), so Pearson correlations of 0.5 sit beside rank correlations near 0; a pair
   whose own 17 runs missed the disturbed ones learns them through the events read with it.
5. **Factors common to the events.**  With ``factor="auto"`` (the default) the target of step 2
   and the goal of step 4 are each pulled toward a factor model of all pairs (:func:`factor_blend`):
   the number of factors (1-4) is chosen by cross-validation over halves of the runs, and each
   pair keeps the share of its own estimate its noise warrants (a linear Bayes weight, the
   model's risk estimated as Mallows' C_p does) -- a pair read in one group of 10-30 runs is
   mostly noise around what every pair of its two events says, a pair read in thousands of runs
   keeps most of its own value, and where no model fits the weights fall toward 0.

Measured on the real Zen 5 truth (``br_64kb``, MUCH designs with 3 and 4 counters, 10 split
seeds each) and on synthetic heavy-tailed data: see ``BENCHMARKS.md``.
"""

from __future__ import annotations

import warnings
from dataclasses import InitVar, asdict, dataclass
from typing import Any

import numpy as np

from hemkit.core.checks import check_scalar
from hemkit.core.errors import InputError
from hemkit.core.normal import rank_scores
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.readings import Readings
from hemkit.core.rng import SeedLike, as_generator, child, spawn
from hemkit.merge.checks import check_rows, need_mergeable, take_old_n
from hemkit.merge.copula import iman_conover, white_scores
from hemkit.merge.correlation import (
    _CACHE,
    assemble_target,
    clip_correlation,
    event_scales,
    fisher_z,
    group_normal_scores,
    nearest_correlation,
    pairwise_matrices,
    upper,
)
from hemkit.merge.lbfgsb import minimize
from hemkit.merge.reorder import batch_correlation, default_rows, event_values, place
from hemkit.merge.result import MergeResult, make_result

#: the fewest merged rows by default (``JointOptions.min_rows``)
MIN_ROWS = 2000

#: the linear fit (JointOptions.linear) is used up to this many events: past 40 it was worse on every
#: synthetic case measured (1.03-1.20x the MSE at 50-100 events) and 20-40 times slower
#: (benchmarks/merge_linear_scale.py, BENCHMARKS.md, issue 28)
LINEAR_MAX_EVENTS = 40
#: rows used to find the rank-matching target (the final arrangement uses all rows)
RANK_ROWS = 20_000
#: candidate partners of a tail swap (all rows of smaller tables)
POOL_ROWS = 4_000
#: outlying readings considered per event and pass
MAX_CANDIDATES = 32
#: partners whose gain (by the fast form) is within this of the best are compared by the old form (place_tails)
GAIN_MARGIN = 1e-8
#: above this many events the likelihood fit is skipped by default (pairwise estimate)
ML_MAX_EVENTS = 32

#: correlations at which a calibration's shifts are given (linear between them: :func:`calibrate_correlation`)
CALIBRATION_KNOTS = (-1.0, -0.6, -0.3, -0.1, 0.1, 0.3, 0.6, 0.85, 1.0)
#: runs read together up to which a pair takes its calibration whole; ``(20 - 3) / (m - 3)`` of it beyond
CALIBRATION_RUNS = 20
#: ridge weight pulling a fitted calibration's shifts toward 0 (:func:`fit_calibration`)
CALIBRATION_RIDGE = 50.0
#: a calibration for software-event counts of real programs (not the default: ``JointOptions.calibration``),
#: ``(score target shifts, Pearson goal shifts)`` at :data:`CALIBRATION_KNOTS`, fitted on 55 truth tables
#: (``benchmarks/merge_calibration.py``, BENCHMARKS.md)
CALIBRATION = (
    (0.0071, 0.0614, 0.1681, 0.0899, -0.0184, -0.0688, -0.0667, 0.0168, 0.0015),
    (0.0242, 0.0779, 0.1831, 0.0986, -0.0131, -0.0506, -0.0492, -0.0008, 0.0001),
)


@dataclass(frozen=True)
class JointOptions:
    """Options of :func:`merge_joint`.

    Attributes
    ----------
    rows : int, optional
        Merged rows; default every reading of the event read most often, at least
        ``min_rows``.  (``n``: its old name, deprecated.)
    min_rows : int
        The fewest merged rows by default (``rows=None``).  An event read in fewer runs is spread
        evenly over them: its order statistics, each reading repeated alike
        (:func:`hemkit.merge.reorder.event_values`).  A table of 100 rows (10 events, a MUCH design
        of 300 runs) adds its own arrangement noise of about ``1 / 100`` to every correlation's
        squared error, as much as half the error of the estimates.  Over 39 truth tables, left out
        one at a time (``benchmarks/merge_lowo.py --pool``): Pearson error 0.642x -> 0.583x the MUCH
        paper's, Spearman 0.727x -> 0.654x; on 8 programs held out, 0.727x -> 0.683x.  0 makes
        every reading one row, as before.
    impute : {None, "maxdet"}
        Pairs never read together: an error naming the pair, or the maximum-determinant
        completion as the likelihood fit's start.
    ranks : bool
        Correct the score target so the merged Spearman correlations match (step 3).  Off by
        default since issue 26: chosen leave one workload out on Pearson accuracy over 15 truth
        tables, where it cost more Pearson accuracy than it gained (``BENCHMARKS.md``); on
        ``br_64kb`` it halves the Spearman error.
    tails : float or None
        Robust z (``|x - median| / (1.4826 MAD)``) above which a reading counts as an
        outlier that may be moved to match Pearson (step 4); ``None`` leaves tails as the
        copula placed them.  Over 39 truth tables (``benchmarks/merge_lowo.py --pool``) 4 has 2 %
        less Pearson error (0.628x against 0.642x the MUCH paper's) but 0.5 % more Spearman error, so the
        default stays 6.
    boot : int
        Bootstrap resamples behind the shrinkage weights of step 4.
    ml_iter : int
        Most iterations of the maximum-likelihood fit; 0 skips it (the pairwise estimate is
        used).  By default it is skipped above :data:`ML_MAX_EVENTS` events, where its
        ``k (k + 1) / 2`` parameters make it slow for a gain measured at a few per cent.
    linear : float in [0, 1]
        Weight, in the Pearson goal of step 4, of the maximum-likelihood fit of a Gaussian
        to the readings themselves (not their ranks; :func:`linear_correlation`): extreme
        runs that come together in every group they were read in (a disturbed run: many
        context switches, interrupts and frees at once) make Pearson correlations far
        above the rank ones, and only a model of the raw readings fitted to all groups at
        once carries that to pairs whose own runs missed the extremes.  0 leaves the goal
        to the pairwise estimates.  The default 0.5 (with ``linear_target`` and without
        ``ranks``) was chosen leave one workload out over 15 truth tables
        (``benchmarks/merge_lowo.py``).  Above :data:`LINEAR_MAX_EVENTS` events it is not
        used (``diagnostics["linear"]`` says the weight applied): at 50-100 events it made
        merges worse and 20-40 times slower (``benchmarks/merge_linear_scale.py``).
    linear_target : bool
        Blend the same fit, with the same weight, into the target of the arrangement (step
        2) too: without outliers (a count driven by a varying input) no reading is moved by
        step 4, and the rank-based target of 10-30 runs a group understates strong
        correlations (0.84 for a pair at 0.98, measured).
    factor : "auto" or float in [0, 1]
        ``"auto"`` (default): the target of step 2 and the Pearson goal of step 4 are pulled toward
        a factor model of all pairs, the number of factors chosen by cross-validation over
        halves of the runs (:func:`cv_factors`) and each pair's weight from its noise and the
        model's estimated risk (:func:`factor_blend`; ``diagnostics["factor_model"]`` says what
        was chosen).  Over 15 truth tables, left out one at a time (``benchmarks/merge_lowo.py``),
        Pearson error 0.68x -> 0.60x the MUCH paper's, Spearman 0.82x -> 0.73x; on synthetic
        truth with several clusters 0.54-0.66x the error without it, where a fixed one-factor
        weight of 0.35 was 1.3-2.2x (``benchmarks/merge_linear_scale.py --factors auto,0.35``).
        A number is the fixed weight of one factor (:func:`one_factor`) for every pair, the blend
        of the first issue-26 pass (0.35 suits events that all scale with one quantity); 0
        leaves the estimates as they are.
    factor_runs : float, optional
        The same blend with a weight per pair, ``factor_runs / (factor_runs + m)`` (``m`` the
        runs that read the pair together; replaces ``factor``): a pair read in many runs keeps
        more of its own estimate, a pair never read together takes the fit.  None (default):
        ``factor`` for every pair.
    calibration : pair of sequences, or None
        Shifts of the score target (step 2) and of the Pearson goal (step 4) as functions of the
        correlation, at :data:`CALIBRATION_KNOTS` (:func:`calibrate_correlation`), each pair's
        shift weighted by how few runs read it together; ``None`` (default) shifts nothing.
        :data:`CALIBRATION` is a *prior of a population*: fitted to the truth of 55 programs'
        all-at-once tables of software events (:func:`fit_calibration`,
        ``benchmarks/merge_calibration.py``), where a merged correlation below 0 is mostly noise
        (merged -0.29 for a true -0.20 on average), it pulls negative ones toward 0 and moves
        moderate positive ones down.  Each of those programs left out of the fit and split anew,
        it cut the Pearson error by 3.4 % and the Spearman error by 2.6 %; on synthetic clusters
        with real negative correlations it made merges 20-40 % worse, and its positive side alone
        helped nowhere.  So it is not the default: use it only for events like those (BENCHMARKS.md).
    pearson_steps : int
        Corrections of the arrangement's target so that the merged Pearson correlations of the
        whole table (not only of the outliers step 4 moves) approach the Pearson goal
        (:func:`match_pearson`); 0 (default) arranges by the score target alone.  With
        ``factor_runs=14`` it has the lowest Pearson error over the 15 truth tables (0.58x the
        MUCH paper's, left out) but costs rank accuracy (Spearman 0.95x against 0.72x), so it is
        off by default.

    Examples
    --------
    >>> JointOptions(tails=None).ranks
    False
    """

    rows: int | None = None
    min_rows: int = MIN_ROWS
    impute: str | None = None
    ranks: bool = False
    tails: float | None = 6.0
    boot: int = 40
    ml_iter: int | None = None
    linear: float = 0.5
    linear_target: bool = True
    factor: float | str = "auto"
    factor_runs: float | None = None
    calibration: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    pearson_steps: int = 0
    n: InitVar[int | None] = None

    def __post_init__(self, n: int | None) -> None:
        take_old_n(self, n)


def _check(opts: JointOptions) -> None:
    check_rows(opts.rows)
    check_scalar(opts.min_rows, "min_rows", min_val=0)
    check_scalar(opts.tails, "tails", "real", min_val=0, closed="neither", allow_none=True, what="robust z")
    check_scalar(opts.boot, "boot", min_val=1)
    it = opts.ml_iter
    check_scalar(it, "ml_iter", min_val=0, allow_none=True)
    check_scalar(opts.linear, "linear", "real", min_val=0, max_val=1, what="weight")
    if isinstance(opts.factor, str):
        if opts.factor != "auto":
            raise InputError(f"factor {opts.factor!r} is neither a weight in [0, 1] nor 'auto'", param="factor")
    else:
        check_scalar(opts.factor, "factor", "real", min_val=0, max_val=1, what="weight")
    check_scalar(opts.factor_runs, "factor_runs", "real", min_val=0, allow_none=True, what="runs")
    check_scalar(opts.pearson_steps, "pearson_steps", min_val=0)
    cal = opts.calibration
    if cal is not None:
        k = len(CALIBRATION_KNOTS)
        try:
            ok = len(cal) == 2 and all(np.shape(c) == (k,) and np.isfinite(np.asarray(c, float)).all() for c in cal)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise InputError(
                f"calibration must be None or two sequences of {k} finite shifts (score target, Pearson goal)"
            )


# ----------------------------------------------------------------- calibration
def _calibration_weights(together: np.ndarray, runs: float = CALIBRATION_RUNS) -> np.ndarray:
    """Per pair, the share of its calibration: 1 up to ``runs`` runs together, ``(runs - 3) / (m - 3)`` after."""
    return np.clip((runs - 3) * _z_noise(np.asarray(together, float), 1.0), 0.0, 1.0)


def _knot_basis(x: np.ndarray) -> np.ndarray:
    """Hat functions at :data:`CALIBRATION_KNOTS` evaluated at ``x`` (shape ``x.shape + (knots,)``)."""
    knots = np.asarray(CALIBRATION_KNOTS)
    eye = np.eye(len(knots))
    return np.stack([np.interp(x, knots, eye[i]) for i in range(len(knots))], axis=-1)


def calibrate_correlation(corr: np.ndarray, together: np.ndarray, shifts: Any) -> np.ndarray:
    """``corr`` plus each pair's calibration shift: ``w(m) x g(r)``, ``g`` linear between the knots.

    ``g`` takes ``shifts`` at :data:`CALIBRATION_KNOTS`; ``w(m)`` is 1 for a pair read together
    in up to :data:`CALIBRATION_RUNS` runs and ``(20 - 3) / (m - 3)`` beyond (the noise of a
    correlation from ``m`` runs, in Fisher's z, relative to 20 runs'), so a pair read in many runs
    keeps its estimate.  The result is clipped to [-0.999, 0.999] off the diagonal (1 on it); it
    may need :func:`hemkit.merge.correlation.nearest_correlation` to be a correlation matrix.

    Examples
    --------
    >>> c = np.array([[1.0, 0.85], [0.85, 1.0]])
    >>> shifts = (0, 0, 0, 0, 0, 0, 0, 0.05, 0)
    >>> calibrate_correlation(c, np.full((2, 2), 17.0), shifts)[0, 1].round(3)   # few runs: the whole shift
    np.float64(0.9)
    >>> calibrate_correlation(c, np.full((2, 2), 173.0), shifts)[0, 1].round(3)  # 170 runs: a tenth of it
    np.float64(0.855)
    """
    corr = np.asarray(corr, float)
    out = corr + _calibration_weights(together) * (_knot_basis(corr) @ np.asarray(shifts, float))
    out = np.clip(out, -0.999, 0.999)
    np.fill_diagonal(out, 1.0)
    return out


def fit_calibration(
    estimate: np.ndarray,
    truth: np.ndarray,
    together: np.ndarray,
    *,
    ridge: float = CALIBRATION_RIDGE,
    lowest: float = -1.0,
) -> np.ndarray:
    """Shifts at :data:`CALIBRATION_KNOTS` that bring ``estimate`` closest to ``truth`` (one entry per pair).

    Least squares of ``truth - estimate`` on the hat functions of ``estimate``, each pair's row
    weighted by its share ``w(m)`` (:func:`calibrate_correlation`), with a ridge penalty
    ``ridge x |shifts|^2`` so a knot few pairs reach stays near 0.  Knots below ``lowest`` keep
    a shift of 0.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> est = rng.uniform(-1, 1, 20_000)
    >>> truth = est + np.interp(est, CALIBRATION_KNOTS, [0, 0, 0, 0, 0, 0, 0, 0.05, 0])   # strong ones 0.05 low
    >>> f = fit_calibration(est, truth, np.full(est.shape, 10.0))
    >>> f[7].round(3), bool(np.abs(np.delete(f, 7)).max() < 0.002)   # the ridge keeps it a little short
    (np.float64(0.048), True)
    """
    est = np.asarray(estimate, float).ravel()
    w = _calibration_weights(np.asarray(together, float).ravel())
    free = np.asarray(CALIBRATION_KNOTS) >= lowest
    h = (_knot_basis(est) * w[:, None])[:, free]
    out = np.zeros(len(CALIBRATION_KNOTS))
    out[free] = np.linalg.solve(h.T @ h + ridge * np.eye(h.shape[1]), h.T @ (np.asarray(truth, float).ravel() - est))
    return out


# ----------------------------------------------------------- maximum likelihood
def _patterns(readings: Readings, arrays: dict) -> tuple[list[tuple[np.ndarray, np.ndarray, int]], int]:
    """Per distinct event set: its event indices, summed scatter matrix (groups centred) and runs."""
    index = {e: i for i, e in enumerate(readings.events)}
    acc: dict[tuple[int, ...], list] = {}
    total = 0
    for gid, grp in readings.arrays.items():
        x = np.asarray(arrays[gid], dtype=float)
        x = x - x.mean(axis=0)
        key = tuple(index[e] for e in grp.events)
        order = np.argsort(key)
        key_sorted = tuple(np.asarray(key)[order])
        s = (x.T @ x)[np.ix_(order, order)]
        if key_sorted in acc:
            acc[key_sorted][1] += s
            acc[key_sorted][2] += len(x)
        else:
            acc[key_sorted] = [np.array(key_sorted), s, len(x)]
        total += len(x)
    return [(o, s, n) for o, s, n in acc.values()], total


def ml_correlation(
    readings: Readings, arrays: dict, *, start: np.ndarray | None = None, max_iter: int = 500
) -> tuple[np.ndarray, int]:
    """Maximum-likelihood correlation of a Gaussian whose runs each saw only their group's events.

    ``arrays`` holds per group a runs x events array (e.g. normal scores), centred per
    group here.  The observed-data log-likelihood ``-1/2 sum_g [n_g log det S_oo +
    tr(S_oo^-1 C_g)]`` (``C_g`` the group's scatter matrix, ``S_oo`` the model's block of
    its events) is maximised over ``S = L L^T`` by SciPy's L-BFGS-B (:mod:`hemkit.merge.lbfgsb`:
    without importing ``scipy.optimize``) with its exact gradient
    ``dS_oo = 1/2 (n_g S_oo^-1 - S_oo^-1 C_g S_oo^-1)``, every group's block at once.  (EM
    reaches the same maximum in principle, but with most of each run missing it crawls:
    hundreds of iterations and still far off, measured.)  ``start``: the first correlation
    estimate (default: the pairwise estimate repaired to a correlation matrix).  Returns the
    correlation matrix and the iterations used.  When the fit does not converge within
    ``max_iter`` (a flat likelihood near a singular matrix, as on the T2080 data whose L2
    events are almost duplicates; the path of such a fit passes estimates far worse than its
    start, measured on held-out runs) ``start`` is returned with minus the iterations.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> r = t2080_much()
    >>> c, it = ml_correlation(r, group_normal_scores(r))
    >>> c.shape, bool(np.allclose(np.diag(c), 1))
    ((16, 16), True)
    """
    k = len(readings.events)
    pats, _ = _patterns(readings, arrays)
    t = np.zeros((k, k))
    c = np.zeros((k, k))
    for o, s, n in pats:
        t[np.ix_(o, o)] += s
        c[np.ix_(o, o)] += n
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.diag(t) / np.diag(c)
    scale = np.sqrt(np.where(var > 0, var, 1.0))
    if start is None:
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = (t / c) / np.outer(scale, scale)
        corr[~np.isfinite(corr)] = 0.0
        np.fill_diagonal(corr, 1.0)
        start = nearest_correlation(corr)[0]
    # work on unit variances: every group's scatter scaled by the pooled standard deviations
    objective = _likelihood(k, [(o, s / np.outer(scale[o], scale[o]), n) for o, s, n in pats])
    il = np.tril_indices(k)
    diag = il[0] == il[1]
    p0 = np.linalg.cholesky(np.asarray(start, dtype=float))[il]
    p0[diag] = np.log(p0[diag])
    x, nit, converged = minimize(objective, p0, max_iter=max_iter)  # SciPy's L-BFGS-B, step for step
    lower = _unpack(x, k)
    with np.errstate(over="ignore", invalid="ignore"):
        sigma = lower @ lower.T
        d = np.sqrt(np.diag(sigma))
        corr = sigma / np.outer(d, d)
    # not converged (a flat, near-singular likelihood) or run off to an infinite scale (a pair of identical
    # events): keep the pairwise estimate
    if not converged or not np.isfinite(corr).all():
        return np.asarray(start, dtype=float), -nit
    np.fill_diagonal(corr, 1.0)
    return np.clip((corr + corr.T) / 2, -1.0, 1.0), nit


def _unpack(p: np.ndarray, k: int) -> np.ndarray:
    """The lower-triangular factor ``L`` of the parameters (its diagonal on the log scale)."""
    il = np.tril_indices(k)
    lower = np.zeros((k, k))
    v = p.copy()
    diag = il[0] == il[1]
    with np.errstate(over="ignore"):  # a wild line-search step: rejected by the objective, not a warning
        v[diag] = np.exp(v[diag])
    lower[il] = v
    return lower


def _likelihood(k: int, plan: list[tuple[np.ndarray, np.ndarray, int]]) -> Any:
    """Minus the observed-data log-likelihood of :func:`ml_correlation` and its gradient in ``L``'s parameters.

    ``plan``: per distinct event set its (sorted) event indices, scaled scatter matrix and
    runs.  Sets of one size are evaluated as one stack (one Cholesky and one inverse call
    for all of them); the terms are summed in the order of ``plan``, so the value and
    gradient are those of a loop over the sets, to the last bit.
    """
    il = np.tril_indices(k)
    diag = il[0] == il[1]
    blocks = []  # per size of event set: positions in plan, indices, scatters, runs, gradient slots
    offsets = np.cumsum([0] + [len(o) ** 2 for o, _, _ in plan])
    for size in sorted({len(o) for o, _, _ in plan}):
        at = [i for i, (o, _, _) in enumerate(plan) if len(o) == size]
        idx = np.array([plan[i][0] for i in at], dtype=np.int64)
        scatter = np.ascontiguousarray(np.array([plan[i][1] for i in at], dtype=np.float64))
        runs = np.array([plan[i][2] for i in at])
        slots = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in at])
        blocks.append((np.array(at), idx[:, :, None], idx[:, None, :], scatter, runs, slots))
    flat = np.concatenate([(o[:, None] * k + o[None, :]).ravel() for o, _, _ in plan])
    n_sets = len(plan)

    def objective(p: np.ndarray) -> tuple[float, np.ndarray]:
        lower = _unpack(p, k)
        with np.errstate(invalid="ignore", over="ignore"):
            sigma = lower @ lower.T
        if not np.isfinite(sigma).all():
            return 1e300, np.zeros_like(p)
        terms = np.empty(n_sets)
        weights = np.empty(len(flat))
        for at, rows, cols, scatter, runs, slots in blocks:  # sizes of event sets (one, for a MUCH design)
            so = sigma[rows, cols]
            try:
                chol = np.linalg.cholesky(so)
                inv = np.linalg.inv(so)
            except np.linalg.LinAlgError:  # a step out of the positive-definite cone: rejected
                return 1e300, np.zeros_like(p)
            if not np.isfinite(inv).all():
                return 1e300, np.zeros_like(p)
            logdet = np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
            trace = (inv * scatter).reshape(len(at), -1).sum(axis=1)
            terms[at] = 0.5 * (2 * runs * logdet + trace)
            weights[slots] = (0.5 * (runs[:, None, None] * inv - inv @ scatter @ inv)).ravel()
        value = 0.0
        for term in terms.tolist():  # in the order of the sets, as a loop over them adds
            value += term
        grad = np.bincount(flat, weights=weights, minlength=k * k).reshape(k, k)
        d_lower = 2 * grad @ lower
        g = d_lower[il]
        g[diag] *= np.diag(lower)
        return value, g

    return objective


def _ml_start(readings: Readings, arrays: dict, impute: str | None) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """The pairwise estimate, checked for pairs never read together, completed if asked, repaired."""
    pairwise, _ = pairwise_matrices(readings, kind="scores", scores=arrays)  # arrays: no pandas
    corr, imputed = assemble_target(pairwise, impute=impute, events=readings.events)
    return nearest_correlation(corr)[0], imputed


# ------------------------------------------------------------------ Pearson goals
def linear_correlation(readings: Readings, *, max_iter: int = 500) -> np.ndarray:
    """Maximum-likelihood Pearson correlation of the readings themselves, all groups at once.

    :func:`ml_correlation` on each group's readings mapped by :func:`event_scales` (one
    affine map per event, so correlations are those of the counts), started from the
    average of the pairwise and available-case estimates (:func:`pearson_estimates`;
    pairs never read together start at 0).  A Gaussian fitted to raw counts: each pair is
    informed by every run that read either event and by the events read with them.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> c = linear_correlation(t2080_much())
    >>> c.shape, bool(np.allclose(np.diag(c), 1))
    ((16, 16), True)
    """
    cache = _CACHE.setdefault(readings, {})
    key = ("linear", max_iter)
    if key in cache:  # one fit per Readings: merges with other seeds or options reuse it
        return cache[key].copy()
    scales = event_scales(readings)
    arrays = {}
    for gid, grp in readings.arrays.items():
        centre = np.array([scales[e][0] for e in grp.events])
        scale = np.array([scales[e][1] for e in grp.events])
        arrays[gid] = (grp.values.astype(np.float64) - centre) / scale
    pw, av = _pearson_estimates(readings, None)
    start = np.nan_to_num((pw[0] + av[0]) / 2)
    np.fill_diagonal(start, 1.0)
    corr, _ = ml_correlation(readings, arrays, start=nearest_correlation(start)[0], max_iter=max_iter)
    cache[key] = corr
    return corr.copy()


def pearson_estimates(readings: Readings) -> tuple[np.ndarray, np.ndarray]:
    """Two estimates of each pair's Pearson correlation from the runs that read it.

    ``pairwise``: the pooled correlation of the runs read together (each group centred).
    ``available``: their covariance over the two events' standard deviations from *all*
    their readings (the available-case estimate, Little & Rubin 2002, Sec. 3.4): when the
    runs read together miss an extreme reading seen elsewhere, it is not mistaken for a
    tighter correlation.  NaN for pairs never read together.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> pw, ac = pearson_estimates(t2080_much())
    >>> pw.shape == ac.shape == (16, 16)
    True
    """
    pw, av = _pearson_estimates(readings, None)
    return pw[0], av[0]


def bootstrap_counts(n: int, boot: int, rng: np.random.Generator) -> np.ndarray:
    """``boot`` bootstrap resamples of ``n`` runs as counts per run (``boot x n``, float).

    Each row counts how often each run was drawn in ``n`` draws with replacement (a
    multinomial with equal probabilities), from one ``bincount`` of all of them.

    Examples
    --------
    >>> c = bootstrap_counts(5, 3, np.random.default_rng(0))
    >>> c.shape, c.sum(axis=1).tolist()
    ((3, 5), [5.0, 5.0, 5.0])
    """
    draws = rng.integers(0, n, size=(boot, n))
    # one bincount for all resamples: resample b counts its draws in bins b * n ... b * n + n - 1
    shifted = draws + (np.arange(boot, dtype=draws.dtype) * n)[:, None]
    return np.bincount(shifted.ravel(), minlength=boot * n).reshape(boot, n).astype(np.float64)


def _pearson_estimates(
    readings: Readings, boot: tuple[int, np.random.Generator] | None, weights: list[np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise and available-case Pearson estimates, for every bootstrap resample at once.

    ``boot``: ``(B, rng)``, resample each group's runs ``B`` times (:func:`bootstrap_counts`,
    one stream per group, drawn as the group comes), or None (B = 1, every run once).
    ``weights``: instead, per group (in ``readings.arrays`` order) a ``B x n`` array of each
    run's weight in each of ``B`` estimates (0/1: a subset of the runs, :func:`_half_correlations`).
    Returns two ``B x k x k`` arrays.
    """
    events = readings.events
    index = {e: i for i, e in enumerate(events)}
    k = len(events)
    scales = event_scales(readings)
    nb = len(weights[0]) if weights else 1 if boot is None else boot[0]
    streams = iter(spawn(boot[1], len(readings))) if boot is not None else None
    given = iter(weights) if weights else None
    sxy = np.zeros((nb, k, k))  # co-moment sums over runs read together
    vxx = np.zeros((nb, k, k))  # [i, j]: sum of squares of i over runs where j is read too
    cnt = np.zeros((k, k))
    var = np.zeros((nb, k))  # sum of squares of each event over all its runs
    vcnt = np.zeros(k)
    for grp in readings.arrays.values():
        centre = np.array([scales[e][0] for e in grp.events])
        scale = np.array([scales[e][1] for e in grp.events])
        x = (grp.values.astype(np.float64) - centre) / scale
        n, kg = x.shape
        if given is not None:
            w = next(given)
        else:
            w = np.ones((1, n)) if streams is None else bootstrap_counts(n, nb, next(streams))
        total = w.sum(axis=1)[:, None, None]  # n for every resample (the runs drawn), fewer for a subset
        mean = (w @ x) / total[:, 0]  # B x k_g
        # weighted co-moments of all resamples from one product: (B x n) @ (n x k_g^2)
        s = (w @ (x[:, :, None] * x[:, None, :]).reshape(n, kg * kg)).reshape(nb, kg, kg)
        s -= total * mean[:, :, None] * mean[:, None, :]
        idx = np.array([index[e] for e in grp.events])
        ix = np.ix_(idx, idx)
        sxy[:, ix[0], ix[1]] += s
        diag = np.diagonal(s, axis1=1, axis2=2)
        vxx[:, ix[0], ix[1]] += diag[:, :, None]
        cnt[ix] += n
        var[:, idx] += diag
        vcnt[idx] += n
    with np.errstate(invalid="ignore", divide="ignore"):
        pairwise = sxy / np.sqrt(vxx * np.swapaxes(vxx, 1, 2))
        sd = np.sqrt(var / vcnt)
        available = (sxy / cnt) / (sd[:, :, None] * sd[:, None, :])
    for a in (pairwise, available):
        a[:, cnt == 0] = np.nan
        a[:, np.arange(k), np.arange(k)] = 1.0
    return np.clip(pairwise, -1, 1), np.clip(available, -1, 1)


def pearson_goal(readings: Readings, implied: np.ndarray, *, boot: int, rng: np.random.Generator) -> np.ndarray:
    """Per pair the Pearson correlation the tails should reach, shrunk toward ``implied``.

    The average of the two estimates of :func:`pearson_estimates` is pulled toward the
    copula arrangement's own Pearson correlation ``implied`` by the positive-part
    James-Stein weight ``max(0, 1 - var / diff^2)``; ``var`` is the variance of the average
    over ``boot`` bootstrap resamples of runs within groups.  Pairs never read together
    keep ``implied``.
    """
    return _pearson_goal(readings, implied, boot=boot, rng=rng)[0]


def _pearson_goal(
    readings: Readings, implied: np.ndarray, *, boot: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pearson_goal` and the bootstrap variance of each pair's estimate (NaN: never read together)."""
    pw, av = _pearson_estimates(readings, None)
    est = (pw[0] + av[0]) / 2
    bpw, bav = _pearson_estimates(readings, (boot, rng))
    with warnings.catch_warnings():  # pairs never read together: all-NaN, handled below
        warnings.simplefilter("ignore", RuntimeWarning)
        var = np.nanvar((bpw + bav) / 2, axis=0)
    diff2 = (est - implied) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        shrink = np.clip(1 - var / diff2, 0.0, 1.0)
    shrink[~np.isfinite(shrink) | np.isnan(est)] = 0.0
    goal = implied + shrink * np.nan_to_num(est - implied)
    np.fill_diagonal(goal, 1.0)
    return goal, var


def place_tails(
    x: np.ndarray, goal: np.ndarray, *, threshold: float, rng: np.random.Generator, rounds: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """Swap outlying readings within their column so the Pearson correlations approach ``goal``.

    ``x`` is events x runs.  A reading is a candidate when its robust z exceeds
    ``threshold`` (at most 32 per event and round, the most extreme first); it is swapped
    with the row (among all rows, or 4 000 drawn at random for larger tables) whose swap
    lowers ``sum_j (r_ij - goal_ij)^2`` most, if any does.  A swap keeps every column a
    permutation of its readings, and every mean and variance, so each ``r_ij`` moves by
    ``(x_ib - x_ia)(x_ja - x_jb) / (n s_i s_j)``.  Returns the new table and the swaps
    made per event.
    """
    x = np.array(x, dtype=float)
    k, n = x.shape
    med = np.median(x, axis=1, keepdims=True)
    c = x - med
    scale = np.max(np.abs(c), axis=1, keepdims=True)
    c = c / np.where(scale > 0, scale, 1.0)  # [-1, 1]: overflow-safe, correlations unchanged
    mean = c.mean(axis=1, keepdims=True)
    c = c - mean
    sd = np.sqrt((c * c).mean(axis=1))
    sd = np.where(sd > 0, sd, 1.0)
    r = (c @ c.T) / n / np.outer(sd, sd)
    mad = np.median(np.abs(c - np.median(c, axis=1, keepdims=True)), axis=1, keepdims=True) * 1.4826
    rz = np.abs(c - np.median(c, axis=1, keepdims=True)) / np.where(mad > 0, mad, sd[:, None])
    pool = np.arange(n) if n <= POOL_ROWS else rng.choice(n, POOL_ROWS, replace=False)
    others = np.ones((k, k))
    np.fill_diagonal(others, 0.0)
    swaps = np.zeros(k, dtype=np.int64)
    cp = c[:, pool]  # the partners' readings, kept equal to c[:, pool] through the swaps
    cp2 = cp * cp
    where = np.full(n, -1, dtype=np.int64)
    where[pool] = np.arange(len(pool))
    for _ in range(rounds):  # a few passes over the outliers, not over runs
        changed = 0
        for i in range(k):  # events
            cand = np.flatnonzero(rz[i] > threshold)
            if not len(cand):
                continue
            cand = cand[np.argsort(-rz[i, cand])][:MAX_CANDIDATES]
            denom = n * sd[i] * sd[:, None]
            for a in cand:  # the most extreme readings of event i, each swap vectorised over rows
                best, move = _best_swap(c, (cp, cp2), i, int(a), denom, (r[i], goal[i], others[i]))
                if best < 0:
                    continue
                b = int(pool[best])
                r[i] += move
                r[:, i] = r[i]
                r[i, i] = 1.0
                c[i, a], c[i, b] = c[i, b], c[i, a]
                x[i, a], x[i, b] = x[i, b], x[i, a]
                rz[i, a], rz[i, b] = rz[i, b], rz[i, a]
                for row, col in ((b, best), (a, where[a])):
                    if col >= 0:
                        cp[i, col] = c[i, row]
                        cp2[i, col] = c[i, row] * c[i, row]
                swaps[i] += 1
                changed += 1
        if not changed:
            break
    return x, swaps


def _best_swap(
    c: np.ndarray, partners: tuple[np.ndarray, np.ndarray], i: int, a: int, denom: np.ndarray, row: tuple
) -> tuple[int, np.ndarray]:
    """The partner (index in the pool) whose swap with reading ``a`` of event ``i`` gains most, and ``r_i``'s move.

    The gain of swapping with partner ``b`` is ``sum_j now_j^2 - sum_j new_jb^2`` with
    ``new_jb = (r_ij + dr_jb - goal_ij) o_j`` and ``dr_jb = d_b (c_ja - c_jb) / (n s_i s_j)``,
    ``d_b = c_ib - c_ia``.  Expanded, it is ``-(2 d_b (A - (u C)_b) + d_b^2 (B - 2 ((v c_a) C)_b
    + (v C^2)_b))`` with ``u = o (r_i - goal_i) / (n s_i s)`` and ``v = o / (n s_i s)^2``: two
    products of the events x partners matrix instead of eight passes over it.  That form rounds
    differently, so the partners within :data:`GAIN_MARGIN` of its best (the margin is 1e6 times
    any rounding error of either form) get their gains again in the old form, element for
    element, and the first of the largest wins, as before: the same partner, the same move
    (tested against the old loop).  -1 when no swap gains more than 1e-12.
    """
    cp, cp2 = partners
    r_i, goal_i, others_i = row
    w = 1.0 / denom[:, 0]
    u = others_i * (r_i - goal_i) * w
    v = others_i * w * w
    ca = c[:, a]
    d = cp[i] - c[i, a]
    lin = float(u @ ca) - u @ cp
    quad = float(v @ (ca * ca)) - 2.0 * ((v * ca) @ cp) + v @ cp2
    approx = -(2.0 * d * lin + d * d * quad)
    top = float(approx.max())
    if top + GAIN_MARGIN <= 1e-12:  # no partner can gain more than 1e-12
        return -1, ca
    near = np.flatnonzero(approx >= top - GAIN_MARGIN)
    if not len(near):  # not finite: every partner the old way
        near = np.arange(len(approx))
    # the old arithmetic on those partners (per partner it does not depend on the others)
    dn = cp[i, near] - c[i, a]
    dr = dn[None, :] * (ca[:, None] - cp[:, near]) / denom
    now = (r_i - goal_i) * others_i
    new = (r_i[:, None] + dr - goal_i[:, None]) * others_i[:, None]
    sq = new**2
    total = sq[0].copy()
    for j in range(1, len(sq)):  # rows added one after the other, as numpy's sum over axis 0 adds them
        total += sq[j]
    gain = (now**2).sum() - total
    pick = int(np.argmax(gain))
    if gain[pick] <= 1e-12:
        return -1, ca
    return int(near[pick]), dr[:, pick]


def one_factor(corr: np.ndarray, *, iters: int = 50) -> np.ndarray:
    """The correlation matrix of a one-factor model fitted to ``corr`` (principal axis factoring).

    Loadings ``l`` from the leading eigenvector of ``corr`` with its diagonal replaced by the
    communalities ``l_i^2`` (iterated from 0.5, kept in [0.01, 1]); the fit is ``l l^T`` off
    the diagonal and 1 on it, positive semidefinite.  Each pair's fitted value ``l_i l_j``
    draws on every pair of either event, so it is far less noisy than the pair's own
    estimate -- and wrong where a pair departs from the common factor; :class:`JointOptions`
    ``factor`` blends the two.

    Examples
    --------
    >>> l = np.array([0.9, 0.8, 0.5, 0.3])
    >>> c = np.outer(l, l)
    >>> np.fill_diagonal(c, 1.0)
    >>> bool(np.allclose(one_factor(c), c, atol=1e-3))
    True
    """
    return factor_model(corr, 1, iters=iters)


def factor_model(corr: np.ndarray, factors: int, *, iters: int = 50) -> np.ndarray:
    """The correlation matrix of a ``factors``-factor model fitted to ``corr`` (principal axis factoring).

    As :func:`one_factor` with the leading ``factors`` eigenvectors: loadings ``L`` (events x
    factors), communalities ``sum_f L_if^2`` on the diagonal, iterated; the fit is ``L L^T`` off
    the diagonal, 1 on it.  Several clusters of events (caches, branches, stalls) need as many
    factors; :func:`factor_blend` chooses how many from the data.

    Examples
    --------
    >>> a, b = np.array([0.9, 0.8, 0.7, 0, 0, 0]), np.array([0, 0, 0, 0.9, 0.6, 0.8])
    >>> c = np.outer(a, a) + np.outer(b, b)
    >>> np.fill_diagonal(c, 1.0)
    >>> bool(np.allclose(factor_model(c, 2), c, atol=1e-3)), bool(np.allclose(factor_model(c, 1), c, atol=0.1))
    (True, False)
    """
    a = np.array(corr, dtype=float, copy=True)
    k = len(a)
    f = max(1, min(int(factors), k))
    h = np.full(k, 0.5)
    load = np.zeros((k, f))
    for _ in range(iters):  # a fixed-point iteration on a k x k matrix
        np.fill_diagonal(a, h)
        w, v = np.linalg.eigh(a)
        load = v[:, -f:] * np.sqrt(np.maximum(w[-f:], 0.0))
        h_new = np.clip((load**2).sum(axis=1), 0.01, 1.0)
        if np.allclose(h_new, h, atol=1e-8):
            break
        h = h_new
    fit = np.clip(load @ load.T, -1.0, 1.0)
    np.fill_diagonal(fit, 1.0)
    return fit


#: at least this many factors are tried (0 would be "no correlation at all": on counts whose correlations come
#: from a few disturbed runs, halves of the runs disagree so much that cross-validation chose it, and the merge
#: pulled correlations of 0.9 toward 0; one factor with small loadings fits correlations near 0 as well)
MIN_FACTORS = 1
#: at most this many factors are tried by :func:`factor_blend`
MAX_FACTORS = 4


def factor_blend(
    corr: np.ndarray, noise: np.ndarray, *, factors: int | None = None
) -> tuple[np.ndarray, dict[str, float]]:
    """Each pair pulled toward a factor model of all pairs, as far as its noise and the model's fit warrant.

    ``corr`` is a correlation matrix of estimates, ``noise`` per pair the variance of its
    estimate on the Fisher-z scale (``inf``: a pair never read together).  For ``f`` = 1 ...
    :data:`MAX_FACTORS` factors (fewer than leave the model with fewer parameters than
    pairs), the risk of the fit ``F_f`` (:func:`factor_model`) as an estimate of the true
    correlations is estimated from the residuals, as Mallows' C_p does::

        R_f = mean (z - z_F)^2 - s^2 + 2 s^2 df_f / P

    (``z`` the pairs' Fisher z, ``s^2`` their mean noise over the ``P`` pairs read together,
    ``df_f = k f - f (f - 1) / 2`` the model's parameters).  With the ``f`` of the smallest
    ``R_f``, each pair keeps ``1 - w`` of its own estimate, ``w = s_ij^2 / (s_ij^2 + R_f)``
    (the linear Bayes weight: a pair read in many runs keeps its own, a noisy one takes the
    model, a pair never read together takes the model).  Where no model fits better than the
    pairs' own noise (``R_f`` large: many clusters, or every pair read in thousands of runs)
    the weights go to 0.  Returns the blend (repair to a correlation matrix is the caller's)
    and ``{"factors", "risk", "noise", "weight"}`` (``weight``: the mean over pairs).
    ``factors``: that many factors (as chosen by :func:`cv_factors`; the merge passes it), only
    the weights from C_p: on its own, C_p with the normal-theory noise of a likelihood fit
    (which is smaller) chose too few factors on synthetic truth with three clusters.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> l = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    >>> truth = np.outer(l, l); np.fill_diagonal(truth, 1.0)
    >>> x = rng.multivariate_normal(np.zeros(6), truth, size=20)
    >>> est = np.corrcoef(x.T)
    >>> noise = np.full((6, 6), 1 / 17)
    >>> out, info = factor_blend(est, noise)
    >>> int(info["factors"]), bool(np.mean((out - truth) ** 2) < np.mean((est - truth) ** 2))
    (1, True)
    """
    k = len(corr)
    i, j = np.triu_indices(k, 1)
    z = fisher_z(corr[i, j])
    s2 = np.asarray(noise, dtype=float)[i, j]
    seen = np.isfinite(s2) & np.isfinite(z)
    n_pairs = int(seen.sum())
    info = {"factors": 0.0, "risk": float("nan"), "noise": float("nan"), "weight": 0.0}
    if k < 4 or n_pairs < 6:
        return np.array(corr, dtype=float), info
    mean_s2 = float(np.mean(s2[seen]))
    best: tuple[float, int, np.ndarray] | None = None
    for f in range(MIN_FACTORS, MAX_FACTORS + 1) if factors is None else [factors]:
        df = k * f - f * (f - 1) / 2
        if df >= n_pairs:
            break
        fit = factor_model(corr, f) if f else np.eye(k)
        zf = fisher_z(fit[i, j])
        risk = float(np.mean((z[seen] - zf[seen]) ** 2)) - mean_s2 + 2 * mean_s2 * df / n_pairs
        risk = max(risk, mean_s2 * max(df, 1) / n_pairs)  # the fit is never better than its own noise
        if best is None or risk < best[0]:
            best = (risk, f, zf)
    if best is None:
        return np.array(corr, dtype=float), info
    risk, f, zf = best
    with np.errstate(invalid="ignore"):
        w = np.where(np.isfinite(s2), s2 / (s2 + risk), 1.0)
    w = np.where(np.isfinite(z), w, 1.0)
    zb = w * zf + (1 - w) * np.nan_to_num(z)
    out = np.eye(k)
    # the change added to each estimate, so that a pair the model does not move keeps its value exactly
    own = np.asarray(corr, dtype=float)[i, j]
    out[i, j] = out[j, i] = np.where(np.isfinite(z), own + (np.tanh(zb) - np.tanh(np.nan_to_num(z))), np.tanh(zb))
    info = {"factors": float(f), "risk": risk, "noise": mean_s2, "weight": float(np.mean(w))}
    return out, info


def runs_together(readings: Readings) -> np.ndarray:
    """Events x events: how many runs read each pair together (the diagonal: each event's runs).

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> r = t2080_much()
    >>> m = runs_together(r)
    >>> m.shape, bool((m == m.T).all())
    ((16, 16), True)
    """
    index = {e: i for i, e in enumerate(readings.events)}
    k = len(index)
    out = np.zeros((k, k))
    for grp in readings.arrays.values():
        o = np.array([index[e] for e in grp.events])
        out[np.ix_(o, o)] += len(grp.values)
    return out


def _half_correlations(readings: Readings, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pooled pairwise Pearson correlations of two random halves of every group's runs (NaN: not defined)."""
    weights = []
    for grp in readings.arrays.values():
        n = len(grp.values)
        perm = rng.permutation(n)
        w = np.zeros((2, n))
        w[0, perm[: n // 2]] = w[1, perm[n // 2 :]] = 1.0
        weights.append(w)
    pairwise, _ = _pearson_estimates(readings, None, weights)
    return pairwise[0], pairwise[1]


def cv_factors(readings: Readings, rng: np.random.Generator, *, splits: int = 2) -> int:
    """How many factors (:data:`MIN_FACTORS` to :data:`MAX_FACTORS`) of a model of the correlations the data support.

    Each group's runs are split in two halves at random (``splits`` times); a model of ``f``
    factors (:func:`factor_model`) fitted to one half's pairwise correlations predicts the other
    half's (Fisher z, squared error per pair, both ways): the halves' noise is independent, so
    unlike the residuals of a fit this error does not fall with every factor added.  The fewest
    factors whose mean error is within one standard error (of the paired differences over
    pairs) of the smallest (the one-standard-error rule, Hastie, Tibshirani & Friedman 2009,
    Sec. 7.10).  Models with at least as many parameters as pairs are not tried.
    """
    k = len(readings.events)
    i, j = np.triu_indices(k, 1)
    per_pair: list[list[np.ndarray]] = [[] for _ in range(MAX_FACTORS + 1)]
    for _ in range(splits):
        a, b = _half_correlations(readings, rng)
        za, zb = (fisher_z(x[i, j]) for x in (a, b))
        seen = np.isfinite(za) & np.isfinite(zb)
        if seen.sum() < 6:
            return 0
        # each half's estimates repaired to a correlation matrix once, for every model fitted to them
        a, b = (nearest_correlation(np.where(np.isfinite(x), x, 0.0))[0] for x in (a, b))
        for f in range(MIN_FACTORS, MAX_FACTORS + 1):
            if k * f - f * (f - 1) / 2 >= seen.sum():
                break
            for x, y in ((a, zb), (b, za)):
                fit = factor_model(x, f) if f else np.eye(k)
                zf = fisher_z(fit[i, j])
                per_pair[f].append((y[seen] - zf[seen]) ** 2)
    tried = [f for f in range(MAX_FACTORS + 1) if len(per_pair[f]) == 2 * splits]
    if not tried:
        return 0
    errors = {f: np.concatenate(per_pair[f]) for f in tried}
    best = min(tried, key=lambda f: float(errors[f].mean()))
    for f in tried:  # the one-standard-error rule: the fewest factors within one standard error of the best
        diff = errors[f] - errors[best]
        if f == best or diff.mean() <= diff.std(ddof=1) / np.sqrt(len(diff)):
            return f
    return best


def _z_noise(together: np.ndarray, inflation: float) -> np.ndarray:
    """Per pair the Fisher-z variance ``inflation / (m - 3)`` of a pair read in ``m`` runs (inf: 3 or fewer)."""
    with np.errstate(divide="ignore"):
        return np.where(together > 3, inflation / np.maximum(together - 3, 1e-9), np.inf)


def _inflation(goal: np.ndarray, var: np.ndarray, together: np.ndarray) -> float:
    """How much noisier the Pearson estimates are than normal theory says (at least 1).

    The median over the pairs of ``var_z (m - 3)``; heavy-tailed counts give several times 1.
    """
    i, j = np.triu_indices(len(goal), 1)
    m = together[i, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        vz = var[i, j] / (1 - np.clip(goal[i, j], -0.999, 0.999) ** 2) ** 2 * (m - 3)
    vz = vz[np.isfinite(vz) & (m > 3)]
    return max(1.0, float(np.median(vz))) if len(vz) else 1.0


def factor_weights(readings: Readings, opts: JointOptions) -> np.ndarray | None:
    """Per pair, the weight of the one-factor fit (``factor``, or ``factor_runs`` per pair); None: no blend."""
    if opts.factor_runs is not None:
        a = float(opts.factor_runs)
        return a / (a + runs_together(readings)) if a > 0 else None
    if isinstance(opts.factor, str):  # "auto": factor_blend, weights from the data
        return None
    return np.full((len(readings.events),) * 2, float(opts.factor)) if opts.factor > 0 else None


def match_pearson(
    values: np.ndarray, white: np.ndarray, target: np.ndarray, goal: np.ndarray, steps: int
) -> tuple[np.ndarray, list[float]]:
    """The arrangement whose Pearson correlations come closest to ``goal``, by correcting its score target.

    ``values`` (events x rows, each event's readings) are placed by Iman-Conover on ``white``
    scores with ``target``; on skewed or tied readings the Pearson correlations of the result
    fall short of the score correlation (a pair at 0.98 in scores lands near 0.9 in counts).
    A fixed-point iteration moves the target by ``goal - achieved`` (repaired to a
    correlation matrix) ``steps`` times and keeps the arrangement with the lowest MSE to
    ``goal``.  Returns it and the MSE after each arrangement.
    """
    merged = place(values, iman_conover(white, target))
    best = merged
    hist: list[float] = []
    t = target.copy()
    for step in range(steps + 1):  # a handful of whole-matrix corrections
        achieved = batch_correlation(np.asarray(merged, dtype=np.float64))
        err = float(np.mean((upper(achieved) - upper(goal)) ** 2))
        if not hist or err < min(hist):
            best = merged
        hist.append(err)
        if step == steps or err < 1e-8:
            break
        t = clip_correlation(np.clip(t + (goal - achieved), -0.9999, 0.9999))
        np.fill_diagonal(t, 1.0)
        merged = place(values, iman_conover(white, t))
    return best, hist


# ----------------------------------------------------------------------- ranks
def _tie_ranks(sorted_values: np.ndarray) -> np.ndarray:
    """Average ranks of each position of sorted rows (ties share their mean rank)."""
    out = np.empty(sorted_values.shape)
    for i, v in enumerate(sorted_values):  # a loop over events
        _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
        out[i] = (np.cumsum(counts) - (counts - 1) / 2)[inverse]
    return out


def rank_target(
    readings: Readings, start: np.ndarray, goal: np.ndarray, rng: np.random.Generator, steps: int = 8
) -> tuple[np.ndarray, list[float]]:
    """Score-space target whose arrangement of the readings has normal-score correlations ``goal``, ties as in the data.

    Iman-Conover hits a target exactly for continuous scores; tied readings (a count that is
    0 in most runs) are placed by continuous scores and then share one value, which loses
    correlation.  A fixed-point iteration on at most :data:`RANK_ROWS` evenly spaced order
    statistics of each event: arrange, measure the correlation of the arrangement's normal
    scores with ties averaged (as ``goal`` was estimated), move the target by the
    difference.  Without ties the first arrangement already matches and nothing moves.
    Returns the best target and the MSE after each step.
    """
    events = readings.events
    k = len(events)
    m = min(default_rows(readings), RANK_ROWS)
    scores = rank_scores(_tie_ranks(event_values(readings, events, m)), m)
    white = white_scores(k, m, rng)
    target = start.copy()
    best, best_err, history = start, np.inf, []
    for step in range(steps + 1):  # a handful of whole-matrix corrections
        achieved = batch_correlation(place(scores, iman_conover(white, target)), standardize=False)
        err = float(np.mean((upper(achieved) - upper(goal)) ** 2))
        history.append(err)
        if err < best_err:
            best, best_err = target, err
        if step == steps or err < 1e-8:
            break
        target = np.clip(target + (goal - achieved), -0.9999, 0.9999)
        np.fill_diagonal(target, 1.0)
        target = clip_correlation(target)
    return best, history


# ----------------------------------------------------------------------- merge
def merge_joint(
    readings: Readings,
    *,
    seed: SeedLike = 0,
    options: JointOptions | None = None,
    progress: ProgressLike = None,
) -> MergeResult:
    """Merge by a Gaussian copula fitted to all runs jointly (maximum likelihood), ranks and tails placed to match.

    Parameters
    ----------
    readings : Readings
        Groups covering every pair of events (a MUCH design).
    seed : int, Generator or None
        Randomness (the base scores, the bootstrap of the shrinkage weights).
    options : JointOptions, optional
        ``n``, ``impute``, ``ranks``, ``tails``, ``boot``, ``ml_iter``.
    progress : bool or Progress, optional
        Reports the steps.

    Returns
    -------
    MergeResult
        ``data``: ``n`` rows x events, every column the event's actual readings.
        ``diagnostics``: ``ml_iterations`` (negative: not converged, pairwise estimate used), ``linear`` (the
        weight of the linear fit applied: 0 above :data:`LINEAR_MAX_EVENTS` events), ``rank_mse`` (merged
        Spearman vs its goal after each correction), ``tail_swaps`` (per event),
        ``mse_to_observed`` (merged vs observed Pearson), ``repaired``, ``imputed``.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> res = merge_joint(t2080_much(), seed=0, options=JointOptions(rows=2000))
    >>> res.data.shape, res.method
    ((2000, 16), 'joint')
    """
    opts = options or JointOptions()
    _check(opts)
    need_mergeable(readings, opts.impute)
    rng = as_generator(seed)
    events = readings.events
    k = len(events)
    n = int(opts.rows) if opts.rows is not None else max(default_rows(readings), int(opts.min_rows))
    prog = as_progress(progress)
    with prog.task("joint merge", total=4) as task:
        scores = group_normal_scores(readings)
        start, imputed = _ml_start(readings, scores, opts.impute)
        repaired = bool(np.linalg.eigvalsh(start)[0] < 1e-6)
        ml_iter = opts.ml_iter if opts.ml_iter is not None else (200 if k <= ML_MAX_EVENTS else 0)
        corr_z, it_z = ml_correlation(readings, scores, start=start, max_iter=ml_iter) if ml_iter else (start, 0)
        task.advance(info="likelihood")
        linear = opts.linear if k <= LINEAR_MAX_EVENTS else 0.0
        if linear > 0 and opts.linear_target:
            corr_z = (1 - linear) * corr_z + linear * linear_correlation(readings)
        fw = factor_weights(readings, opts)
        auto = opts.factor == "auto" and opts.factor_runs is None
        together = runs_together(readings)
        model: dict[str, dict[str, float]] = {}
        nf = 0
        if fw is not None:
            corr_z = (1 - fw) * corr_z + fw * one_factor(nearest_correlation(corr_z)[0])
        elif auto:  # scores are normal: the Fisher-z variance of a pair read in m runs is 1 / (m - 3)
            nf = cv_factors(readings, child(rng, "factors"))
            corr_z, model["target"] = factor_blend(nearest_correlation(corr_z)[0], _z_noise(together, 1.0), factors=nf)
        target = nearest_correlation(corr_z)[0]
        if opts.calibration is not None:
            target = nearest_correlation(calibrate_correlation(target, together, opts.calibration[0]))[0]
        rank_hist: list[float] = []
        if opts.ranks:
            target, rank_hist = rank_target(readings, target, target, child(rng, "ranks"))
        task.advance(info="ranks")
        values = event_values(readings, events, n)
        white = white_scores(k, n, child(rng, "scores"))
        merged = place(values, iman_conover(white, target))
        task.advance(info="arranged")
        swaps = np.zeros(k, dtype=np.int64)
        if opts.tails is not None:
            # float64 correlations: batch_correlation works in float32 on float32 readings
            implied = batch_correlation(np.asarray(merged, dtype=np.float64))
            goal_p, goal_var = _pearson_goal(readings, implied, boot=opts.boot, rng=child(rng, "bootstrap"))
            if linear > 0:
                goal_p = (1 - linear) * goal_p + linear * linear_correlation(readings)
            if fw is not None:
                goal_p = (1 - fw) * goal_p + fw * one_factor(goal_p)
            elif auto:
                noise = _z_noise(together, _inflation(goal_p, goal_var, together))
                goal_p, model["goal"] = factor_blend(goal_p, noise, factors=nf)
            if opts.pearson_steps:
                merged, _ = match_pearson(values, white, target, goal_p, int(opts.pearson_steps))
            if opts.calibration is not None:
                goal_p = calibrate_correlation(goal_p, together, opts.calibration[1])
            swapped, swaps = place_tails(merged, goal_p, threshold=float(opts.tails), rng=child(rng, "tails"))
            merged = swapped.astype(merged.dtype, copy=False)  # swaps only move readings: exact
        task.advance(info="tails")
    obs = upper(pairwise_matrices(readings, kind="pearson")[0])
    mine = upper(batch_correlation(np.asarray(merged, dtype=np.float64)))
    ok = ~np.isnan(obs)
    params: dict[str, Any] = {**asdict(opts), "rows": n}
    diagnostics = {
        "ml_iterations": it_z,
        "linear": linear,
        "rank_mse": rank_hist,
        "tail_swaps": {e: int(s) for e, s in zip(events, swaps)},
        "mse_to_observed": float(np.mean((mine[ok] - obs[ok]) ** 2)) if ok.any() else 0.0,
        "factor_model": model,
        "repaired": repaired,
        "imputed": [(str(a), str(b)) for a, b in imputed],
    }
    return make_result(dict(zip(events, merged)), "joint", params, diagnostics, readings)


__all__ = [
    "CALIBRATION",
    "CALIBRATION_KNOTS",
    "JointOptions",
    "calibrate_correlation",
    "fit_calibration",
    "bootstrap_counts",
    "linear_correlation",
    "ml_correlation",
    "cv_factors",
    "factor_blend",
    "factor_model",
    "one_factor",
    "merge_joint",
    "pearson_estimates",
    "pearson_goal",
    "place_tails",
]
