"""Synthetic readings with a known truth, for testing and comparing merge methods.

:func:`make_truth` draws complete vectors (every event read in every run) from a Gaussian
copula with a chosen correlation matrix and non-Gaussian marginals like real counters:
skewed (log-normal, gamma), bimodal, heavy-tailed (Lomax/Pareto II), uniform, normal.
:func:`split_into_groups` then hands disjoint runs to the groups of an HRM or MUCH design
(:mod:`hemkit.plan`),
each group seeing only its events, as a real collection would.  The truth's correlations
are the reference that merged data should keep.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from hemkit.core.checks import unknown_choice
from hemkit.core.errors import InputError
from hemkit.core.readings import Readings
from hemkit.core.rng import SeedLike, as_generator

MARGINALS = ("lognormal", "gamma", "bimodal", "heavy", "uniform", "normal")


def _marginal(kind: str, u: np.ndarray, scale: float) -> np.ndarray:
    if kind == "lognormal":
        x = stats.lognorm(s=0.6).ppf(u)
    elif kind == "gamma":
        x = stats.gamma(a=2.0).ppf(u)
    elif kind == "bimodal":  # two well separated modes, 40 % / 60 %
        p = 0.4
        lo = stats.norm.ppf(np.clip(u / p, 1e-12, 1 - 1e-12))
        hi = stats.norm.ppf(np.clip((u - p) / (1 - p), 1e-12, 1 - 1e-12))
        x = np.where(u < p, 10 + lo, 20 + hi)
    elif kind == "heavy":
        x = stats.lomax(c=3.0).ppf(u)
    elif kind == "uniform":
        x = u
    elif kind == "normal":
        x = 8 + stats.norm.ppf(u)
    else:
        raise unknown_choice("marginal", kind, MARGINALS)
    return np.round(scale * (1 + x))


def random_correlation(n_events: int, *, n_factors: int = 3, seed: SeedLike = 0) -> np.ndarray:
    """A random correlation matrix with strong and weak, positive and negative pairs (factor model).

    Examples
    --------
    >>> c = random_correlation(4, seed=1)
    >>> c.shape, bool(np.allclose(np.diag(c), 1))
    ((4, 4), True)
    """
    rng = as_generator(seed)
    w = rng.normal(size=(n_events, n_factors)) * rng.uniform(0.3, 1.5, size=(n_events, 1))
    cov = w @ w.T + np.diag(rng.uniform(0.05, 0.6, size=n_events))
    d = np.sqrt(np.diag(cov))
    return cov / np.outer(d, d)


def make_truth(
    n_events: int = 16,
    n_runs: int = 10_000,
    *,
    corr: np.ndarray | None = None,
    marginals: str | Sequence[str] = "mixed",
    seed: SeedLike = 0,
) -> pd.DataFrame:
    """Complete vectors of ``n_events`` counters over ``n_runs`` runs (the ground truth).

    Parameters
    ----------
    n_events : int
    n_runs : int
    corr : array, optional
        Correlation matrix of the Gaussian copula; default :func:`random_correlation`.
    marginals : "mixed", one name of :data:`MARGINALS`, or one name per event
        ``"mixed"`` cycles through all shapes.
    seed : int, optional

    Examples
    --------
    >>> t = make_truth(n_events=8, n_runs=100, seed=1)
    >>> t.shape, bool((t.to_numpy() >= 0).all())
    ((100, 8), True)
    """
    rng = as_generator(seed)
    if corr is None:
        corr = random_correlation(n_events, seed=int(rng.integers(2**31)))
    corr = np.asarray(corr, dtype=float)
    if corr.shape != (n_events, n_events):
        raise InputError(f"corr must be {n_events} x {n_events}, got {corr.shape}")
    if isinstance(marginals, str):
        kinds = (
            [MARGINALS[i % len(MARGINALS)] for i in range(n_events)] if marginals == "mixed" else [marginals] * n_events
        )
    else:
        kinds = list(marginals)
        if len(kinds) != n_events:
            raise InputError(f"{len(kinds)} marginals given for {n_events} events")
    z = rng.standard_normal((n_runs, n_events)) @ np.linalg.cholesky(corr).T
    u = stats.norm.cdf(z)
    scales = 10 ** rng.uniform(3, 6, size=n_events)
    data = {f"E{j:02d}_{kinds[j]}": _marginal(kinds[j], u[:, j], scales[j]) for j in range(n_events)}
    return pd.DataFrame(data)


def split_into_groups(
    truth: pd.DataFrame,
    groups: Sequence[Sequence[str]],
    runs_per_group: int,
    *,
    seed: SeedLike = 0,
) -> Readings:
    """Give each group its own disjoint runs of ``truth``, reading only the group's events.

    Examples
    --------
    >>> from hemkit.plan import hrm_design
    >>> t = make_truth(n_events=6, n_runs=400, seed=2)
    >>> r = split_into_groups(t, hrm_design(list(t.columns), 3), 100)
    >>> len(r), int(r.n_runs.sum())
    (3, 300)
    """
    need = runs_per_group * len(groups)
    if need > len(truth):
        raise InputError(f"{len(groups)} groups x {runs_per_group} runs need {need} runs; the truth has {len(truth)}")
    rng = as_generator(seed)
    rows = rng.permutation(len(truth))[:need].reshape(len(groups), runs_per_group)
    return Readings(
        {g + 1: truth.iloc[rows[g]][list(events)].reset_index(drop=True) for g, events in enumerate(groups)}
    )
