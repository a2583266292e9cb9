"""MUCH: merge by a multivariate Gaussian model of all pairwise correlations.

Implements MUCH as described in Vilardell et al., "MUCH: exploiting pairwise hardware event
monitor correlations for improving timing analysis of complex MPSoCs", ACM SAC 2021,
Sec. 4.3-4.4:

1. every pair of events was read together in at least one group (step 1, the design);
2. each event's readings, pooled over the groups that read it (the "grouped sample"), are
   mapped to normal scores ``Phi^-1(F_emp)`` with ``n + 1`` in the denominator (Eq. 1); the
   pairwise correlations of the scores, from the groups that read both events, form
   ``Sigma_0`` (step 2);
3. ``n`` runs are drawn from ``N(0, Sigma_0)`` (Eq. 2, step 3), ``n`` = the number of
   readings of each event (Sec. 4.3: "as many merged HEM vectors as actual values have
   been observed for each HEM");
4. steps 3 is repeated ``n_sims`` times and the draw closest (mean squared error over the
   pairs) to the measured correlations ``S^`` is kept (step 4);
5. each event's **actual readings** are placed in the rank order of the kept draw (step 5).

Two modes:

``mode="paper"``
    The paper as written: ``Sigma_0`` and ``S^`` from the concatenated readings of the groups
    that read both events; step 4 judges each draw by the correlation matrix of the Gaussian
    sample itself (``criterion="sample"``, drawn literally, ``n_sims`` times).
``mode="hemkit"`` (default)
    The same algorithm with two measured improvements: each group is centred on its own
    means before pooling (drift between groups is not taken for correlation), and step 4
    judges each draw by the Pearson correlations of the *readings arranged by it*
    (``criterion="arranged"``, as ``mergingTools::simulate_and_merge`` does), which targets
    what users check.  On the real Zen 5 truth (``br_64kb``, MUCH designs with 3 and 4
    counters) the arranged criterion gives 0.8x the paper's MSE (``BENCHMARKS.md``).

What made hemkit's earlier MUCH 1.27x worse than the paper: it drew only as many rows as the
largest group has runs (the reading count "in a sub-experiment", step 3's other option) and
resampled each event's pooled readings down to that; the paper's own example uses every
reading.  Fewer rows leave more arrangement noise in every merged correlation (1.5x the MSE
on ``br_64kb``).  Both modes now use every reading (:func:`hemkit.merge.reorder.default_rows`).

Kept from hemkit in both modes: no event is dropped (a non positive definite ``Sigma_0`` is
repaired with the nearest correlation matrix, Higham 2002 -- the paper does not say what to
do; ``mergingTools``' ``dep_lvl`` dropping is an opt-in), the merged values are the readings
themselves (``mergingTools`` bootstraps them), and outliers are handled by an explicit policy
(default: keep all readings) without the reference's zero-row bug.
"""

from __future__ import annotations

import warnings
from dataclasses import InitVar, asdict, dataclass
from typing import Any

import numpy as np

from hemkit.core.checks import check_scalar
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.normal import rank_scores
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.readings import Readings
from hemkit.core.rng import SeedLike, as_generator
from hemkit.merge.checks import check_rows, need_mergeable, take_old_n
from hemkit.merge.correlation import (
    OUTLIER_POLICIES,
    assemble_target,
    drop_dependent,
    nearest_correlation,
    pairwise_matrices,
    standardized,
    upper,
)
from hemkit.merge.reorder import batch_correlation, default_rows, event_values, place
from hemkit.merge.result import MergeResult, make_result

MODES = ("hemkit", "paper")
CRITERIA = ("arranged", "sample")
#: hemkit mode judges draws on the arranged readings up to this many values sorted (n x k x n_sims)
ARRANGED_BUDGET = 40_000_000
#: fewer simulations than this draw a warning: best-of-n gains most of its accuracy by ~30 draws
MIN_SIMS = 30


@dataclass(frozen=True)
class MuchOptions:
    """Less common options of :func:`merge_much`.

    Attributes
    ----------
    rows : int, optional
        Merged rows; default every reading of the event read most often
        (:func:`hemkit.merge.reorder.default_rows`).  (``n``: its old name, deprecated.)
    criterion : {"arranged", "sample"}, optional
        How draws are judged (step 4); default in hemkit mode ``"arranged"`` up to
        :data:`ARRANGED_BUDGET` sorted values (``rows x events x n_sims``, e.g. the bundled
        T2080 data at 24 000 rows) and ``"sample"`` above it; ``"sample"`` in paper mode.
        ``arranged``: the Pearson correlations of the readings arranged by each draw (one
        sort of the table per draw).  ``sample``: the correlation matrix of the Gaussian
        draw itself; in hemkit mode its draws come from the Bartlett
        decomposition of their scatter matrix, so judging costs ``O(n_sims k^3)`` and only
        the chosen draw is realised (for large tables).
    outliers : {"keep", "zscore"}
        Policy for estimating correlations (:func:`hemkit.merge.pairwise_correlation`); the
        merged table always holds every reading.
    z : float
        Threshold of the ``zscore`` policy.
    impute : {None, "maxdet"}
        Pairs never read together: ``None`` raises an error naming the pair; ``"maxdet"``
        fills them with the maximum-determinant completion.
    dep_lvl : float in (0, 1], optional
        ``mergingTools`` compatibility: drop every event whose correlation with an earlier
        kept event exceeds ``dep_lvl`` (0.85 in the reference).  Off: hemkit keeps every event.

    Examples
    --------
    >>> MuchOptions(rows=1000, criterion="sample").criterion
    'sample'
    """

    rows: int | None = None
    criterion: str | None = None
    outliers: str = "keep"
    z: float = 3.0
    impute: str | None = None
    dep_lvl: float | None = None
    n: InitVar[int | None] = None

    def __post_init__(self, n: int | None) -> None:
        take_old_n(self, n)


def pooled_normal_scores(readings: Readings) -> dict:
    """Normal scores of each event over its pooled readings (Eq. 1), split back per group."""
    groups = readings.arrays
    parts: dict = {g: np.empty(grp.values.shape) for g, grp in groups.items()}
    for e in readings.events:  # a loop over events; each step is vectorised over runs
        where = [(g, grp.events.index(e)) for g, grp in groups.items() if e in grp.events]
        pooled = np.concatenate([groups[g].values[:, j] for g, j in where])
        # average ranks of ties (as scipy's rankdata), from one np.unique: 4x faster here
        _, inverse, counts = np.unique(pooled, return_inverse=True, return_counts=True)
        ranks = (np.cumsum(counts) - (counts - 1) / 2)[inverse]
        z = rank_scores(ranks, len(pooled))
        start = 0
        for g, j in where:
            m = len(groups[g].runs)
            parts[g][:, j] = z[start : start + m]
            start += m
    return parts


def bartlett_scatter(chol: np.ndarray, df: int, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``size`` Wishart(``L L^T``, ``df``) scatter matrices by the Bartlett decomposition.

    The scatter matrix of ``df + 1`` centred draws of ``N(0, L L^T)`` is ``L A A^T L^T`` with
    ``A`` lower triangular, ``A_ii ~ sqrt(chi2(df - i))`` and ``A_ij ~ N(0, 1)`` below the
    diagonal.  Returns the factors ``L A`` and the scatter matrices (``size x k x k``).

    Examples
    --------
    >>> la, w = bartlett_scatter(np.eye(2), 10, 3, np.random.default_rng(0))
    >>> w.shape
    (3, 2, 2)
    """
    k = len(chol)
    a = np.tril(rng.standard_normal((size, k, k)), -1)
    a[:, np.arange(k), np.arange(k)] = np.sqrt(rng.chisquare(df - np.arange(k), size=(size, k)))
    la = chol @ a
    return la, la @ np.swapaxes(la, -1, -2)


def _sims_per_chunk(n: int, k: int, budget_bytes: float = 256e6) -> int:
    # a chunk holds the sample, its argsort and the merged values (float32 + int64 + float32)
    return max(1, int(budget_bytes // (16 * n * k)))


def check_n_sims(n_sims: Any) -> int:
    """``n_sims`` as an int >= 1, with a warning under :data:`MIN_SIMS`."""
    n_sims = check_scalar(n_sims, "n_sims", min_val=1)
    if n_sims < MIN_SIMS:
        warnings.warn(
            HemkitWarning(
                f"n_sims {int(n_sims)} is below {MIN_SIMS}: MUCH keeps the best of only {int(n_sims)} draws, "
                "so its merged correlations carry more arrangement noise (hemkit.evaluate.sims_curve shows how much)",
                param="n_sims",
            ),
            stacklevel=3,
        )
    return int(n_sims)


def _check_options(opts: MuchOptions, mode: str) -> str | None:
    if mode not in MODES:
        raise InputError(f"unknown MUCH mode {mode!r}; choose one of {', '.join(MODES)}")
    criterion = opts.criterion or ("sample" if mode == "paper" else None)
    if criterion is not None and criterion not in CRITERIA:
        raise InputError(f"unknown criterion {criterion!r}; choose 'arranged' or 'sample'")
    if opts.outliers not in OUTLIER_POLICIES:
        raise InputError(f"unknown outlier policy {opts.outliers!r}; choose one of {', '.join(OUTLIER_POLICIES)}")
    check_scalar(opts.dep_lvl, "dep_lvl", "real", min_val=0, max_val=1, closed="right", allow_none=True)
    check_rows(opts.rows)
    return criterion


def merge_much(
    readings: Readings,
    *,
    n_sims: int = 100,
    seed: SeedLike = 0,
    mode: str = "hemkit",
    options: MuchOptions | None = None,
    progress: ProgressLike = None,
) -> MergeResult:
    """Merge with MUCH: Gaussian-copula reordering of each event's readings, best of ``n_sims`` draws.

    Parameters
    ----------
    readings : Readings
        Groups covering every pair of events (a MUCH design).
    n_sims : int, default 100
        Multivariate-normal draws tried (step 4); fewer than 30 draws a warning.
    seed : int, Generator or None
        Randomness; the same seed gives the same merge.
    mode : {"hemkit", "paper"}
        ``paper``: the paper's algorithm as written; ``hemkit``: per-group centring and the
        arranged criterion (see the module docstring for the measured difference).
    options : MuchOptions, optional
        ``rows``, ``criterion``, ``outliers``, ``z``, ``impute``, ``dep_lvl``.
    progress : bool or Progress, optional
        Reports the simulations (:mod:`hemkit.core.progress`).

    Returns
    -------
    MergeResult
        ``data``: ``rows`` rows x events.  ``diagnostics``: ``mse_to_observed`` (the kept draw
        against the measured correlations), ``sim_mse`` (every draw's), ``criterion``,
        ``repaired`` (``Sigma_0`` was not positive definite), ``imputed`` pairs and
        ``dropped`` events (``dep_lvl``).

    Raises
    ------
    InputError
        A pair never read together (without ``impute``), fewer than two events, an option
        out of range.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> res = merge_much(t2080_much(), n_sims=30, seed=1, options=MuchOptions(rows=1000))
    >>> res.data.shape
    (1000, 16)
    """
    opts = options or MuchOptions()
    criterion = _check_options(opts, mode)
    n_sims = check_n_sims(n_sims)
    need_mergeable(readings, opts.impute, pairs=opts.dep_lvl is None)
    paper = mode == "paper"
    rng = as_generator(seed)
    target, _ = pairwise_matrices(readings, kind="pearson", outliers=opts.outliers, z=opts.z, centre=not paper)
    all_events = readings.events
    if opts.dep_lvl is not None:
        keep = drop_dependent(target, float(opts.dep_lvl), events=all_events)
        if len(keep) < 2:
            raise InputError(
                f"dep_lvl {opts.dep_lvl} keeps only event {keep[0]!r}; raise it to keep two or more", param="dep_lvl"
            )
        readings = readings.select_events(keep)
    events = readings.events
    at = [all_events.index(e) for e in events]
    target = target[np.ix_(at, at)]
    sigma0_raw, _ = pairwise_matrices(
        readings,
        kind="scores",
        scores=pooled_normal_scores(readings),
        outliers=opts.outliers,
        z=opts.z,
        centre=not paper,
    )
    sigma0, imputed = assemble_target(sigma0_raw, impute=opts.impute, events=events)
    sigma0, repaired = nearest_correlation(sigma0)
    chol = np.linalg.cholesky(sigma0)
    goal_all = upper(target)
    observed = ~np.isnan(goal_all)
    goal = goal_all[observed]

    n = int(opts.rows) if opts.rows is not None else default_rows(readings)
    k = len(events)
    if criterion is None:
        criterion = "arranged" if n * k * n_sims <= ARRANGED_BUDGET else "sample"
    values = event_values(readings, events, n)
    iu = np.triu_indices(k, 1)
    progress_ = as_progress(progress)
    with progress_.task("MUCH simulations", total=n_sims) as task:
        draws = _Draws(values, chol, goal, observed)
        if criterion == "arranged":
            best, errors = _arranged(draws, n_sims, rng, task)
        elif paper:
            best, errors = _paper_sample(draws, n_sims, rng, task)
        else:
            la, scatter = bartlett_scatter(chol, n - 1, n_sims, rng)
            d = np.sqrt(np.diagonal(scatter, axis1=-2, axis2=-1))
            corr = scatter / (d[:, :, None] * d[:, None, :])
            sq = (corr[:, iu[0], iu[1]][:, observed] - goal) ** 2
            errors = sq.mean(axis=1) if goal.size else np.zeros(n_sims)
            pick = int(np.argmin(errors))
            # the sample itself: an exactly white, centred Gaussian frame coloured by L A
            frame = rng.standard_normal((k, n))
            frame -= frame.mean(axis=1, keepdims=True)
            frame = np.linalg.solve(np.linalg.cholesky(frame @ frame.T), frame)
            best = place(values, la[pick] @ frame)
            task.update(completed=n_sims)
    # in float64 (batch_correlation of float32 readings works in float32, meant for judging draws)
    best_corr = batch_correlation(np.asarray(best, dtype=np.float64))
    best_err = float(((upper(best_corr)[observed] - goal) ** 2).mean()) if goal.size else 0.0
    params = {**asdict(opts), "n_sims": n_sims, "mode": mode, "rows": n, "criterion": criterion}
    diagnostics = {
        "mse_to_observed": best_err,
        "sim_mse": [float(e) for e in errors],
        "criterion": criterion,
        "repaired": bool(repaired),
        "imputed": [(str(a), str(b)) for a, b in imputed],
        "dropped": [e for e in all_events if e not in events],
    }
    return make_result(dict(zip(events, best)), "much", params, diagnostics, readings)


@dataclass(frozen=True)
class _Draws:
    """What judging draws needs: sorted readings (k x n), the Cholesky factor of Sigma_0, the measured goal."""

    values: np.ndarray
    chol: np.ndarray
    goal: np.ndarray  # measured correlations of the observed pairs (upper-triangle order)
    observed: np.ndarray  # which upper-triangle pairs were observed


def _arranged(d: _Draws, n_sims: int, rng: np.random.Generator, task: Any) -> tuple[np.ndarray, np.ndarray]:
    """Best draw by the Pearson correlations of the readings it arranges (float32, chunked)."""
    values, chol, goal, observed = d.values, d.chol, d.goal, d.observed
    k, n = values.shape
    iu = np.triu_indices(k, 1)
    # draws are judged in float32 on readings scaled to [-1, 1] (exact enough to rank draws,
    # also for counts near the float32 limit or large stable counters); the chosen draw
    # arranges the readings themselves (float64, or float32 as given)
    values32 = standardized(values).astype(np.float32)
    chol32 = chol.astype(np.float32)
    best_sample, best_err, errors = None, np.inf, []
    step = _sims_per_chunk(n, k)
    for start in range(0, n_sims, step):  # chunks of simulations, each vectorised
        s = min(step, n_sims - start)
        sample = chol32 @ rng.standard_normal((s, k, n), dtype=np.float32)
        merged = place(values32, sample)
        corr = batch_correlation(merged, standardize=False)
        sq = (corr[:, iu[0], iu[1]][:, observed] - goal) ** 2
        err = np.nan_to_num(sq.mean(axis=1), nan=np.inf) if goal.size else np.zeros(s)
        errors.append(err.astype(float))
        if best_sample is None or err.min() < best_err:
            best_err, best_sample = float(err.min()), sample[int(err.argmin())].copy()
        task.advance(s)
    assert best_sample is not None
    return place(values, best_sample), np.concatenate(errors)


def _paper_sample(d: _Draws, n_sims: int, rng: np.random.Generator, task: Any) -> tuple[np.ndarray, np.ndarray]:
    """The paper's step 4 as written: best literal draw by its own correlation matrix."""
    values, chol, goal, observed = d.values, d.chol, d.goal, d.observed
    k, n = values.shape
    iu = np.triu_indices(k, 1)
    best_sample, best_err, errors = None, np.inf, []
    step = _sims_per_chunk(n, k)
    for start in range(0, n_sims, step):
        s = min(step, n_sims - start)
        sample = chol @ rng.standard_normal((s, k, n))
        corr = batch_correlation(sample, standardize=False)
        sq = (corr[:, iu[0], iu[1]][:, observed] - goal) ** 2
        err = sq.mean(axis=1) if goal.size else np.zeros(s)
        errors.append(err)
        if best_sample is None or err.min() < best_err:
            best_err, best_sample = float(err.min()), sample[int(err.argmin())].copy()
        task.advance(s)
    assert best_sample is not None
    return place(values, best_sample), np.concatenate(errors)


__all__ = ["CRITERIA", "MODES", "MuchOptions", "bartlett_scatter", "merge_much", "pooled_normal_scores"]
