"""Two-sample statistics of counter readings: did an event change, by how much, and what could be seen.

What :mod:`hemkit.compare` (and any area comparing two sets of runs) computes per event,
vectorised over events (one sort per sample; no resampling of the runs themselves):

- :func:`brunner_munzel` -- the Brunner-Munzel test (Brunner & Munzel 2000; scipy's
  ``brunnermunzel``) of ``p = P(A < B) + P(A = B) / 2 = 1/2``, from the placements of each
  sample in the other.  It holds with unequal spreads and with discrete, tied counts (mid-ranks),
  where the t-test and the Mann-Whitney test do not.  Two samples that are each constant and
  differ get the exact permutation p-value ``2 / C(n_a + n_b, n_a)``, never a division by 0.
  With ``method="auto"`` (what compare uses), events with few runs or heavily tied counts take
  the studentized permutation p-value (Neubert & Brunner 2007), exact in an A/A comparison:
  the statistic depends only on each side's counts per distinct value, so a permutation is
  one multivariate hypergeometric draw.
- :func:`median_ratio` -- the ratio of medians ``median(B) / median(A)`` with a percentile
  bootstrap interval.  The bootstrap distribution of a sample median is drawn exactly without
  resampling: the median of a resample of ``n`` sorted values is the value at index
  ``floor(n U)`` with ``U ~ Beta(m, n + 1 - m)``, ``m = (n + 1) // 2`` (the m-th of n uniform
  order statistics), so 2000 bootstrap medians of 1e5 runs cost 2000 draws.  Where a median is 0
  the ratio is that of the means (delta-method interval on the log scale), and where a side is 0
  in every run the ratio is infinite; the ``basis`` says which, so no ratio is ever NaN.
- :func:`fdr_bh` -- Benjamini-Hochberg adjusted p-values (checked against statsmodels).
- :func:`detectable_change` -- per event, the smallest relative change the test detects with the
  given power at the given error rate, and the runs per side that would detect a given change
  (the asymptotic power of Brunner-Munzel: the shift moves ``p`` by ``p(delta) - 1/2``, estimated
  from side A scaled by ``1 + delta`` against itself, rounded for integer counts, against the
  standard error the two samples show).

No SciPy: the t distribution's tail is computed here (:func:`t_sf`), the normal quantile by
:mod:`hemkit.core.normal`; importing ``scipy.special`` took longer than comparing 64 events of
1e5 runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import erfc, exp, lgamma, log, log1p, sqrt
from typing import Any, Literal

import numpy as np

from hemkit.core.normal import ndtri
from hemkit.core.rng import SeedLike, as_generator

#: ``basis`` of a ratio: medians, means (a median is 0), constant samples, or a side 0 in every run
BASES = ("median", "mean", "constant", "zero")


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 2000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """``P(T > t)`` for Student's t with ``df`` degrees of freedom, ``t >= 0`` (no SciPy: it costs 0.2-1 s to import).

    Through the incomplete beta function, ``0.5 I_{df / (df + t^2)}(df / 2, 1 / 2)`` (Numerical
    Recipes' continued fraction; equal to SciPy's ``stdtr`` to 1e-7 relative up to df = 1e7, tested).

    Examples
    --------
    >>> round(t_sf(2.0, 10), 10), round(t_sf(0.0, 3), 10)
    (0.0366940174, 0.5)
    """
    return 0.5 * _betai(df / 2.0, 0.5, df / (df + t * t))


def _exact_separated(na: int, nb: int) -> float:
    """Two-sided permutation p-value of two completely separated samples: ``2 / C(na + nb, na)``."""
    log_c = lgamma(na + nb + 1) - lgamma(na + 1) - lgamma(nb + 1)
    return float(min(1.0, 2.0 * np.exp(-log_c)))


@dataclass(frozen=True)
class Placements:
    """Per event, what the Brunner-Munzel test and its power need from two sorted samples.

    Attributes
    ----------
    superiority : ndarray
        ``P(A < B) + P(A = B) / 2`` estimated (0.5: no tendency; above: B tends to be larger).
    var_a, var_b : ndarray
        Variance (ddof 1) of each A value's placement among B (the fraction of B below it,
        ties halved), and of each B value's among A.
    n_a, n_b : ndarray
        Runs per side.
    """

    superiority: np.ndarray
    var_a: np.ndarray
    var_b: np.ndarray
    n_a: np.ndarray
    n_b: np.ndarray

    @property
    def se(self) -> np.ndarray:
        """Standard error of :attr:`superiority` (Brunner-Munzel's)."""
        return np.sqrt(self.var_a / self.n_a + self.var_b / self.n_b)


def _runs(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted array and how often each occurs."""
    first = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    return s[first], np.diff(np.r_[first, len(s)])


def _share_stats(values: np.ndarray, counts: np.ndarray, other: np.ndarray) -> tuple[float, float]:
    """Mean and variance (ddof 1) of each value's share of ``other`` below it (ties halved).

    The sample is given as its distinct values and their counts; ``other`` is sorted.
    """
    share = (np.searchsorted(other, values, "left") + np.searchsorted(other, values, "right")) / (2.0 * len(other))
    n = counts.sum()
    mean = float((counts * share).sum() / n)
    var = float((counts * (share - mean) ** 2).sum() / (n - 1))
    return mean, var


def _placement_stats(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Superiority of B, and the variances of A's placements in B and of B's in A (sorted samples).

    A stable merge of the two sorted runs (timsort: linear) puts the i-th A value at position
    ``k`` with ``k - i`` B values before it: those strictly below it when A comes first (equal B
    values follow), those at most equal to it when B comes first.  Without ties one merge
    suffices; many ties (few distinct values) are placed by binary search of the distinct values.
    """
    na, nb = len(a), len(b)
    ia, ib = np.arange(na), np.arange(nb)
    both = np.concatenate([a, b])
    order = np.argsort(both, kind="stable")
    merged = both[order]
    in_a = order < na
    a_pos, b_pos = np.flatnonzero(in_a), np.flatnonzero(~in_a)
    b_below = a_pos - ia  # B values strictly below each A value
    a_upto = b_pos - ib  # A values at most each B value
    distinct = np.count_nonzero(a[1:] != a[:-1]) + np.count_nonzero(b[1:] != b[:-1]) + 2
    if distinct < (na + nb) // 8:  # heavily tied counts: place the distinct values
        ua, ca = _runs(a)
        ub, cb = _runs(b)
        _, var_a = _share_stats(ua, ca, b)
        sup, var_b = _share_stats(ub, cb, a)
        return sup, var_a, var_b
    if (merged[1:] == merged[:-1]).any():  # ties: the counts at most each value need the other order
        order2 = np.argsort(np.concatenate([b, a]), kind="stable")
        in_b2 = order2 < nb
        b_upto = np.flatnonzero(~in_b2) - ia  # B values at most each A value
        a_below = np.flatnonzero(in_b2) - ib  # A values strictly below each B value
    else:
        b_upto, a_below = b_below, a_upto
    pa = (b_below + b_upto) / (2.0 * nb)
    pb = (a_below + a_upto) / (2.0 * na)
    return float(pb.mean()), float(pa.var(ddof=1)), float(pb.var(ddof=1))


#: work (values in all) below which per-event loops run in this thread
THREADED_WORK = 200_000


def _map(fn: Callable[..., Any], *columns: Sequence[Any]) -> list[Any]:
    """``[fn(*args) for args in zip(*columns)]``, on up to 4 threads when the samples are large.

    NumPy's sorts and merges release the GIL, so per-event work on samples of 1e5 runs runs
    in parallel (1.8x on 2 cores); the results are the same in the same order (nothing random).
    """
    work = sum(len(x) for x in columns[0])
    workers = min(4, os.cpu_count() or 1, len(columns[0]))
    if work < THREADED_WORK or workers < 2:
        return [fn(*args) for args in zip(*columns)]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, *columns))


def sort_samples(samples: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each sample sorted ascending, as float64 (on several threads for large samples).

    Examples
    --------
    >>> [x.tolist() for x in sort_samples([np.array([3, 1, 2])])]
    [[1.0, 2.0, 3.0]]
    """
    return _map(lambda x: np.sort(x).astype(np.float64, copy=False), samples)


def placements(a_sorted: Sequence[np.ndarray], b_sorted: Sequence[np.ndarray]) -> Placements:
    """Placements of each sorted sample in the other, per event (lists of sorted 1-D arrays).

    Examples
    --------
    >>> p = placements([np.array([1.0, 2, 3])], [np.array([2.0, 3, 4])])
    >>> round(float(p.superiority[0]), 4)
    0.7778
    """
    k = len(a_sorted)
    sup, va, vb = np.empty(k), np.empty(k), np.empty(k)
    na = np.array([len(a) for a in a_sorted], dtype=np.float64)
    nb = np.array([len(b) for b in b_sorted], dtype=np.float64)
    for i, stats in enumerate(_map(_placement_stats, a_sorted, b_sorted)):
        sup[i], va[i], vb[i] = stats
    return Placements(sup, va, vb, na, nb)


def null_placements(a_sorted: Sequence[np.ndarray], b_sorted: Sequence[np.ndarray]) -> Placements:
    """Each side's placements among its own runs, per event: the Brunner-Munzel standard error with no change.

    What the power of the test rests on (:func:`detectable_change`): the noise of the runs on
    each side, whatever the change between them.  The placements of a comparison
    (:func:`placements`) have no variance left where B moved far from A (every B reading
    above every A reading: a standard error of 0), which would make any change look
    detectable.  ``superiority`` is 0.5.

    Examples
    --------
    >>> a, b = [np.array([1.0, 2, 3, 4])], [np.array([10.0, 20, 30, 40])]
    >>> float(placements(a, b).se[0]), round(float(null_placements(a, b).se[0]), 4)
    (0.0, 0.2282)
    """
    same_a, same_b = placements(a_sorted, a_sorted), placements(b_sorted, b_sorted)
    return Placements(np.full(len(same_a.n_a), 0.5), same_a.var_a, same_b.var_a, same_a.n_a, same_b.n_a)


#: samples with at most this many distinct values between them get the permutation p-value (``method="auto"``)
PERMUTATION_CLASSES = 1000
#: samples with this many runs on a side keep the t approximation
PERMUTATION_RUNS = 1000
#: first permutations drawn per event; more where the p-value must be resolved below ``20 / PERMUTATIONS``
PERMUTATIONS = 2000
#: most permutations drawn for one event
MAX_PERMUTATIONS = 100_000


def _class_t(counts_a: np.ndarray, counts_b: np.ndarray) -> np.ndarray:
    """Brunner-Munzel's studentized statistic from class counts (rows: samples, columns: sorted distinct values).

    Every reading of class ``j`` has the same placement, so the statistic depends on the counts
    alone: a permutation of the pooled runs is a draw of A's counts (multivariate hypergeometric).
    """
    na = counts_a.sum(axis=-1, keepdims=True).astype(np.float64)
    nb = counts_b.sum(axis=-1, keepdims=True).astype(np.float64)
    cum_a = np.cumsum(counts_a, axis=-1) - 0.5 * counts_a  # A below each class, ties halved
    cum_b = np.cumsum(counts_b, axis=-1) - 0.5 * counts_b
    place_a, place_b = cum_b / nb, cum_a / na  # an A reading's share of B below it, and a B reading's of A
    sup = (counts_b * place_b).sum(axis=-1) / nb[..., 0]
    mean_a = (counts_a * place_a).sum(axis=-1) / na[..., 0]
    var_a = (counts_a * (place_a - mean_a[..., None]) ** 2).sum(axis=-1) / (na[..., 0] - 1)
    var_b = (counts_b * (place_b - sup[..., None]) ** 2).sum(axis=-1) / (nb[..., 0] - 1)
    se = np.sqrt(var_a / na[..., 0] + var_b / nb[..., 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (sup - 0.5) / se
    # no variance left: completely separated (infinite), or the same single value (0)
    return np.where(se > 0, t, np.where(sup == 0.5, 0.0, np.copysign(np.inf, sup - 0.5)))


def _small_or_tied(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two sorted samples take the permutation p-value: few runs, or heavily tied counts.

    Fewer than :data:`PERMUTATION_RUNS` runs on a side, at most :data:`PERMUTATION_CLASSES`
    distinct values between them, and fewer than 100 runs on a side or at most one distinct
    value per 4 runs.  The t approximation is good for many runs (tied or not), and the
    permutations would cost draws x distinct values (1e5 runs: seconds).
    """
    if min(len(a), len(b)) >= PERMUTATION_RUNS:
        return False
    distinct = np.count_nonzero(a[1:] != a[:-1]) + np.count_nonzero(b[1:] != b[:-1]) + 2
    if distinct > 2 * PERMUTATION_CLASSES:
        return False
    k = len(np.union1d(a, b))
    return k <= PERMUTATION_CLASSES and (min(len(a), len(b)) < 100 or 4 * k <= len(a) + len(b))


def _class_counts(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each sorted sample's counts over the distinct values of both (what :func:`_class_t` takes)."""
    va, counts_a = _runs(a)
    vb, counts_b = _runs(b)
    pooled = np.union1d(va, vb)
    ca = np.zeros(len(pooled), dtype=np.int64)
    cb = np.zeros(len(pooled), dtype=np.int64)
    ca[np.searchsorted(pooled, va)] = counts_a
    cb[np.searchsorted(pooled, vb)] = counts_b
    return ca, cb


def _permutation_p(a: np.ndarray, b: np.ndarray, resolution: float, rng: np.random.Generator) -> float:
    """Studentized permutation p-value of Brunner-Munzel (Neubert & Brunner 2007), two-sided.

    Exact in level where the two sides are exchangeable (the null of an A/A comparison), and
    asymptotically valid under unequal spreads as the t approximation is; with few runs or
    few distinct counts it holds its level where the t approximation does not (BENCHMARKS.md).
    ``PERMUTATIONS`` draws, then more (up to ``20 / resolution``) while fewer than 20 exceed
    the observed statistic, so that a p-value near ``resolution`` is resolved.
    """
    ca, cb = _class_counts(a, b)
    colors = ca + cb
    t_obs = abs(float(_class_t(ca[None, :], cb[None, :])[0]))
    tol = 1e-9 * max(1.0, t_obs)
    drawn = exceed = 0
    need = min(MAX_PERMUTATIONS, int(np.ceil(20.0 / resolution)))
    batch = PERMUTATIONS
    how: Literal["count", "marginals"] = "count" if len(a) + len(b) <= 20 * len(colors) + 10_000 else "marginals"
    while True:
        draw_a = rng.multivariate_hypergeometric(colors, len(a), size=batch, method=how)
        exceed += int(np.count_nonzero(np.abs(_class_t(draw_a, colors - draw_a)) >= t_obs - tol))
        drawn += batch
        if exceed >= 20 or drawn >= need:
            break
        batch = min(need - drawn, 4 * batch)
    return (1.0 + exceed) / (1.0 + drawn)


def brunner_munzel(
    a_sorted: Sequence[np.ndarray],
    b_sorted: Sequence[np.ndarray],
    *,
    method: str = "asymptotic",
    resolution: float = 0.001,
    seed: SeedLike = 0,
) -> tuple[np.ndarray, Placements]:
    """Two-sided Brunner-Munzel p-values per event, and the placements they come from.

    Parameters
    ----------
    a_sorted, b_sorted : sequences of sorted 1-D arrays
        Side A's and side B's readings of each event, each sorted ascending (at least 2 each).
    method : {"asymptotic", "auto"}, default "asymptotic"
        ``"asymptotic"``: the t approximation with Welch's degrees of freedom (SciPy's
        ``brunnermunzel``).  ``"auto"``: the studentized permutation p-value for events with
        few runs or heavily tied counts (:func:`_small_or_tied`), where the t approximation
        need not hold its level, the t approximation for the others.  Where the t approximation is already
        below ``resolution / 1000``, and 1000 times above the smallest p-value a permutation of these
        runs can give (``2 / C(n_a + n_b, n_a)``), the change is decisive and it is kept.
    resolution : float, default 0.001
        The smallest p-value that must be told apart (the first Benjamini-Hochberg threshold,
        ``q / m``): permutations are drawn until a p-value near it is resolved.
    seed : int, Generator or None, default 0
        The permutations (``method="auto"``).

    Returns
    -------
    p_value : ndarray
        1 where the samples cannot be told apart (the same constant on both sides); the exact
        permutation p-value where both placement variances are 0 (complete separation).
    placements : Placements

    Examples
    --------
    >>> from scipy.stats import brunnermunzel
    >>> a, b = np.array([1.0, 2, 2, 3, 5]), np.array([2.0, 3, 4, 4, 6, 7])
    >>> p, _ = brunner_munzel([a], [b])
    >>> bool(np.isclose(p[0], brunnermunzel(a, b).pvalue))
    True
    """
    if method not in ("asymptotic", "auto"):
        raise ValueError(f"method must be 'asymptotic' or 'auto', got {method!r}")
    pl = placements(a_sorted, b_sorted)
    na, nb = pl.n_a, pl.n_b
    ua, ub = pl.var_a / na, pl.var_b / nb
    se2 = ua + ub
    p = np.ones(len(na))
    ok = se2 > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        w = (pl.superiority - 0.5) / np.sqrt(se2)
        df = se2**2 / (ua**2 / (na - 1) + ub**2 / (nb - 1))
    p[ok] = [min(1.0, 2.0 * t_sf(abs(x), d)) for x, d in zip(w[ok], df[ok])]
    apart = ~ok & (np.abs(pl.superiority - 0.5) > 0)  # every A below every B (or above): no variance left
    p[apart] = [_exact_separated(int(x), int(y)) for x, y in zip(na[apart], nb[apart])]
    if method == "auto":
        rng = as_generator(seed)
        # the t approximation is kept where it is decisive: far below the resolution, and far above the
        # smallest p-value a permutation of these runs can give (with few runs it can be ~1e-7 where
        # no split of 6 + 6 runs is rarer than 2 / 924: an A/A comparison of 100 events then flagged some)
        floor = np.array([_exact_separated(int(x), int(y)) for x, y in zip(na, nb)])
        decisive = (p < resolution / 1000.0) & (p >= 1000.0 * floor)
        for i in np.flatnonzero(ok & ~decisive).tolist():
            a, b = a_sorted[i], b_sorted[i]
            if _small_or_tied(a, b):
                p[i] = _permutation_p(a, b, resolution, rng)
    return p, pl


def _lower_median(s: np.ndarray) -> float:
    n = len(s)
    return float(0.5 * (s[(n - 1) // 2] + s[n // 2]))


def bootstrap_medians(sorted_sample: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``n_boot`` bootstrap medians of a sorted sample, drawn exactly through the Beta order statistic.

    The m-th smallest of n resampled values (``m = (n + 1) // 2``) is ``sorted[floor(n U)]``
    with ``U ~ Beta(m, n + 1 - m)``: the bootstrap distribution of the (lower) median without
    resampling ``n`` values ``n_boot`` times.

    Examples
    --------
    >>> s = np.sort(np.random.default_rng(0).normal(size=101))
    >>> m = bootstrap_medians(s, 4000, np.random.default_rng(1))
    >>> bool(abs(m.std() - 1.2533 / np.sqrt(101)) < 0.03)
    True
    """
    n = len(sorted_sample)
    m = (n + 1) // 2
    idx = np.minimum((rng.beta(m, n + 1 - m, size=n_boot) * n).astype(np.int64), n - 1)
    return sorted_sample[idx]


#: integer samples with at most this many distinct values, tied at the median, use the grouped median
GROUPED_DISTINCT = 256


def _grouped(values: np.ndarray, counts: np.ndarray, half: np.ndarray | float) -> np.ndarray:
    """Grouped medians: in the median's class ``[v - 1/2, v + 1/2]`` at the share of it below ``n / 2``.

    ``counts`` is one row of counts per sample (over ``values``); ``half`` is ``n / 2``.
    """
    cum = np.cumsum(counts, axis=-1)
    j = np.argmax(cum >= np.expand_dims(half, -1), axis=-1)
    rows = np.arange(counts.shape[0])
    below = np.where(j > 0, cum[rows, np.maximum(j - 1, 0)], 0)
    return values[j] - 0.5 + (half - below) / counts[rows, j]


def _center_draws(s: np.ndarray, n_boot: int, rng: np.random.Generator) -> tuple[float, np.ndarray]:
    """A sorted sample's median and ``n_boot`` bootstrap medians.

    Counts tied at the median (integers with at most :data:`GROUPED_DISTINCT` distinct values,
    the median value read more than once) take the *grouped* median, the median of the counts
    spread evenly over their unit classes: it moves continuously with the share of runs at each
    count, where the plain median of 75s and 76s jumps between them and a bootstrap of it
    collapses onto one value (its intervals then missed the true ratio in 30 % of the shifted
    Zen 5 and gzip cases; BENCHMARKS.md).  Its bootstrap resamples the counts (multinomial).
    Any other sample: the plain median, bootstrapped through :func:`bootstrap_medians`.
    """
    n = len(s)
    m = _lower_median(s)
    lo, hi = np.searchsorted(s, m, side="left"), np.searchsorted(s, m, side="right")
    if hi - lo > 1 and s[0] == np.floor(s[0]) and s[-1] == np.floor(s[-1]):
        values, counts = _runs(s)
        if len(values) <= GROUPED_DISTINCT and np.all(values == np.round(values)):
            point = float(_grouped(values, counts[None, :], n / 2.0)[0])
            # only the counts near the median matter: those more than 8 bootstrap sd of the share
            # away are pooled into one class below and one above (a median there: p < 1e-15)
            share = np.cumsum(counts) / n
            w = 8.0 * 0.5 / np.sqrt(n)
            first = int(np.searchsorted(share, 0.5 - w))
            last = int(np.searchsorted(share, 0.5 + w))
            last = min(last, len(values) - 1)
            kept = counts[first : last + 1]
            classes = np.r_[counts[:first].sum(), kept, counts[last + 1 :].sum()]
            at = np.r_[values[first] - 1.0, values[first : last + 1], values[last] + 1.0]
            draws = rng.multinomial(n, classes / n, size=n_boot)
            return point, _grouped(at, draws, n / 2.0)
    return m, bootstrap_medians(s, n_boot, rng)


def center(sorted_sample: np.ndarray) -> float:
    """The median compare reports: grouped for counts tied at the median, else the plain median.

    Examples
    --------
    >>> center(np.array([75.0, 75, 75, 76, 76])), center(np.array([1.0, 2.5, 4.0]))
    (75.33333333333333, 2.5)
    """
    return _center_draws(np.asarray(sorted_sample, dtype=np.float64), 1, np.random.default_rng(0))[0]


@dataclass(frozen=True)
class Ratios:
    """Per event: medians, the ratio B / A with its interval, and on what it is based.

    Attributes
    ----------
    median_a, median_b, mean_a, mean_b : ndarray
    ratio, lower, upper : ndarray
        ``median_b / median_a`` and its interval; the means' ratio where a median is 0 (``basis``
        ``"mean"``); ``inf`` where A is 0 in every run and B is not (``"zero"``); never NaN.
    basis : ndarray of str
        One of :data:`BASES` per event.
    boot_p : ndarray
        The bootstrap's own two-sided p-value of ``ratio = 1`` (the alternative test that
        calibration compared with Brunner-Munzel; see BENCHMARKS.md).
    log_se : ndarray
        Standard error of ``log(ratio)`` (what the interval's width says).
    """

    median_a: np.ndarray
    median_b: np.ndarray
    mean_a: np.ndarray
    mean_b: np.ndarray
    ratio: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    basis: np.ndarray
    boot_p: np.ndarray
    log_se: np.ndarray


def median_ratio(
    a_sorted: Sequence[np.ndarray],
    b_sorted: Sequence[np.ndarray],
    *,
    level: float = 0.95,
    n_boot: int = 2000,
    seed: SeedLike = 0,
) -> Ratios:
    """Ratio of medians ``B / A`` per event with a percentile bootstrap interval at ``level``.

    Parameters
    ----------
    a_sorted, b_sorted : sequences of sorted 1-D arrays
        Each event's readings on side A and side B, sorted ascending.
    level : float
        Interval level, in (0, 1).
    n_boot : int
        Bootstrap medians per side and event.
    seed : int, Generator or None, default 0

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a, b = np.sort(rng.lognormal(3, 0.1, 400)), np.sort(1.1 * rng.lognormal(3, 0.1, 400))
    >>> r = median_ratio([a], [b], seed=1)
    >>> bool(r.lower[0] < 1.1 < r.upper[0]), r.basis[0]
    (True, 'median')
    """
    rng = as_generator(seed)
    k = len(a_sorted)
    out = {name: np.empty(k) for name in ("median_a", "median_b", "mean_a", "mean_b", "ratio", "lower", "upper")}
    out["boot_p"] = np.ones(k)
    out["log_se"] = np.zeros(k)
    basis = np.empty(k, dtype=object)
    tail = (1.0 - level) / 2.0
    z = float(ndtri(1.0 - tail))
    for i, (a, b) in enumerate(zip(a_sorted, b_sorted)):
        ma, mb = _lower_median(a), _lower_median(b)
        xa, xb = float(a.mean()), float(b.mean())
        out["median_a"][i], out["median_b"][i], out["mean_a"][i], out["mean_b"][i] = ma, mb, xa, xb
        if a[0] == a[-1] and b[0] == b[-1]:  # each side one value
            r = mb / ma if ma > 0 else (1.0 if mb == ma else np.inf)
            out["ratio"][i] = out["lower"][i] = out["upper"][i] = r
            out["boot_p"][i] = 1.0 if ma == mb else 0.0
            basis[i] = "constant"
            continue
        if ma > 0 and mb > 0:
            ma, ba = _center_draws(a, n_boot, rng)
            mb, bb = _center_draws(b, n_boot, rng)
            out["median_a"][i], out["median_b"][i] = ma, mb
            with np.errstate(divide="ignore", invalid="ignore"):
                lr = np.log(bb) - np.log(ba)
            lr = np.where(np.isnan(lr), 0.0, lr)  # both draws 0: no change
            lo, hi = np.quantile(lr, [tail, 1.0 - tail])
            out["ratio"][i], out["lower"][i], out["upper"][i] = mb / ma, np.exp(lo), np.exp(hi)
            below, at = float(np.mean(lr < 0)), float(np.mean(lr == 0))
            out["boot_p"][i] = max(min(1.0, 2.0 * min(below + at / 2, 1.0 - below - at / 2)), 1.0 / n_boot)
            finite = lr[np.isfinite(lr)]
            out["log_se"][i] = float(finite.std()) if len(finite) > 1 else 0.0
            basis[i] = "median"
            continue
        if xa > 0 and xb > 0:  # a median is 0: the means' ratio, delta method on the log scale
            se = np.sqrt(a.var(ddof=1) / (len(a) * xa**2) + b.var(ddof=1) / (len(b) * xb**2))
            r = xb / xa
            out["ratio"][i], out["lower"][i], out["upper"][i] = r, r * np.exp(-z * se), r * np.exp(z * se)
            out["log_se"][i] = se
            out["boot_p"][i] = float(2.0 * normal_sf(abs(np.log(r)) / se)) if se > 0 else float(r == 1.0)
            basis[i] = "mean"
            continue
        # a side is 0 in every run (the other is not): the ratio is 0 or infinite
        r = 0.0 if xb == 0 else np.inf
        out["ratio"][i] = out["lower"][i] = out["upper"][i] = r
        out["boot_p"][i] = 0.0
        basis[i] = "zero"
    return Ratios(basis=basis, **out)


def normal_sf(x: float) -> float:
    """``P(Z > x)`` for a standard normal ``Z`` (no SciPy).

    Examples
    --------
    >>> round(normal_sf(1.959964), 6)
    0.025
    """
    return 0.5 * erfc(x / sqrt(2.0))


def fdr_bh(p_values: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (reject where adjusted <= alpha controls the FDR at alpha).

    Examples
    --------
    >>> fdr_bh(np.array([0.01, 0.04, 0.03, 0.5])).round(3).tolist()
    [0.04, 0.053, 0.053, 0.5]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adj = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def _is_integer(x: np.ndarray) -> bool:
    return bool(np.all(x == np.round(x)))


def _shift_superiority(ref: np.ndarray, deltas: np.ndarray, integer: bool) -> np.ndarray:
    """``P(X < X' (1 + delta)) + P(=) / 2`` for two different runs X, X' of the sorted sample ``ref``, per delta."""
    out = np.empty(len(deltas))
    n = len(ref)
    for j, d in enumerate(deltas):
        y = ref * (1.0 + d)
        if integer:
            y = np.round(y)
        count = (np.searchsorted(ref, y, "left") + np.searchsorted(ref, y, "right")) / 2.0
        self_pair = np.where(y > ref, 1.0, np.where(y == ref, 0.5, 0.0))  # X' = X: not a pair of runs
        out[j] = (count - self_pair).sum() / (n * (n - 1.0))
    return out


@dataclass(frozen=True)
class Power:
    """What the runs could detect, per event.

    Attributes
    ----------
    detectable : ndarray
        Smallest relative increase (0.05: 5 %) the test flags with probability ``power`` at
        error rate ``alpha`` with these runs and this noise (inf: none up to 10x).
    runs_needed : ndarray
        Runs per side that would flag a change of ``change`` with probability ``power`` (inf:
        the change moves no reading, e.g. a 1 % change of a count of 20).
    alpha, power, change : float
    """

    detectable: np.ndarray
    runs_needed: np.ndarray
    alpha: float
    power: float
    change: float


def detectable_change(
    a_sorted: Sequence[np.ndarray],
    pl: Placements,
    *,
    alpha: float,
    power: float = 0.9,
    change: float = 0.01,
    seed: SeedLike = 0,
) -> Power:
    """Per event: the smallest change the Brunner-Munzel test detects, and the runs a ``change`` needs.

    The asymptotic power of the test at a shift ``delta`` is
    ``Phi(|p(delta) - 1/2| / se - z(1 - alpha / 2))`` with ``se`` the standard error of the
    runs' own noise (:attr:`Placements.se` of :func:`null_placements`) and ``p(delta)`` the
    superiority of side A scaled by ``1 + delta`` (rounded for integer counts, as real counts
    move) over side A itself, estimated on at most 2000 of A's readings.

    Parameters
    ----------
    a_sorted : sequence of sorted 1-D arrays
        Side A's readings of each event.
    pl : Placements
        The samples' own (:func:`null_placements`), not the comparison's (:func:`brunner_munzel`'s
        second value): those have no variance left where B moved far from A.
    alpha : float
        The per-test error rate (for one change among ``m`` events under Benjamini-Hochberg at
        ``q``, ``q / m``).
    power : float
        Probability of flagging the change.
    change : float
        The relative change for :attr:`Power.runs_needed`.
    seed : int, Generator or None, default 0
        Chooses the readings the shift is estimated on, where there are more than 2000.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a, b = np.sort(rng.normal(100, 1, 200)), np.sort(rng.normal(100, 1, 200))
    >>> pw = detectable_change([a], null_placements([a], [b]), alpha=0.05, power=0.9)
    >>> bool(0.002 < pw.detectable[0] < 0.006)
    True
    """
    rng = as_generator(seed)
    need = float(ndtri(1.0 - alpha / 2.0) + ndtri(power))
    k = len(a_sorted)
    se = pl.se
    detectable, runs = np.full(k, np.inf), np.full(k, np.inf)
    for i, a in enumerate(a_sorted):
        ref = a if len(a) <= 2000 else np.sort(rng.choice(a, 2000, replace=False))
        integer = _is_integer(ref)
        target = max(need * se[i], 1e-12)  # a constant side: the smallest change that moves a reading
        lo, hi = 0.0, 10.0
        if _shift_superiority(ref, np.array([hi]), integer)[0] - 0.5 >= target:
            for _ in range(40):  # bisection on the monotone p(delta)
                mid = np.sqrt(max(lo, 1e-7) * hi)
                if _shift_superiority(ref, np.array([mid]), integer)[0] - 0.5 >= target:
                    hi = mid
                else:
                    lo = mid
                if hi - lo < 1e-4 * hi:
                    break
            detectable[i] = hi
        gain = _shift_superiority(ref, np.array([change]), integer)[0] - 0.5
        if gain > 0:
            v = pl.var_a[i] + pl.var_b[i]
            runs[i] = max(5.0, np.ceil(need**2 * v / gain**2))
    return Power(detectable, runs, alpha, power, change)


__all__ = [
    "BASES",
    "Placements",
    "Power",
    "Ratios",
    "bootstrap_medians",
    "brunner_munzel",
    "center",
    "t_sf",
    "detectable_change",
    "fdr_bh",
    "median_ratio",
    "null_placements",
    "placements",
]
