"""Per-pair correlation differences between merged data and a reference (Pearson and Spearman).

The MUCH paper (Sec. 5.2) scores a merge by ``|rho_merged(i, j) - rho_real(i, j)|`` over all
pairs of events and summarises with the MSE; users check merged data with Pearson
correlations of raw counts, rank-based views use Spearman, so both are reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from hemkit.errors import HemkitError
from hemkit.merge.correlation import pair_labels, pairwise_correlation, upper
from hemkit.readings import Readings

KINDS = ("pearson", "spearman")


def correlations(table: pd.DataFrame | Readings) -> dict[str, pd.DataFrame]:
    """Pearson and Spearman correlation matrices of a full table, or observed pairwise ones of readings.

    For :class:`Readings` each pair is estimated from every group that read both events,
    each group centred (Pearson) or ranked (Spearman) on its own; pairs never read together
    are NaN.
    """
    if isinstance(table, Readings):
        return {kind: pairwise_correlation(table, kind=kind)[0] for kind in KINDS}
    x = table.to_numpy(dtype=float)
    cols = list(table.columns)
    return {
        "pearson": pd.DataFrame(np.corrcoef(x, rowvar=False), index=cols, columns=cols),
        "spearman": pd.DataFrame(np.corrcoef(stats.rankdata(x, axis=0), rowvar=False), index=cols, columns=cols),
    }


@dataclass(frozen=True)
class Evaluation:
    """Per-pair correlations of a merge and its reference.

    Attributes
    ----------
    pairs : DataFrame
        Index ``(event_a, event_b)``; columns ``merged_<kind>``, ``truth_<kind>`` and
        ``diff_<kind>`` (merged - truth) for kind in pearson, spearman.
    """

    pairs: pd.DataFrame
    label: str = ""

    def mse(self, kind: str = "pearson") -> float:
        """Mean squared difference over the pairs with a reference value."""
        return float(np.nanmean(self.pairs[f"diff_{kind}"] ** 2))

    def max_abs(self, kind: str = "pearson") -> float:
        """Largest absolute difference."""
        return float(np.nanmax(np.abs(self.pairs[f"diff_{kind}"])))

    def summary(self) -> pd.DataFrame:
        """One row per correlation kind: pairs compared, MSE, mean |diff|, max |diff|."""
        rows = {}
        for kind in KINDS:
            d = self.pairs[f"diff_{kind}"]
            rows[kind] = {
                "pairs": int(d.notna().sum()),
                "mse": self.mse(kind),
                "mean_abs": float(np.nanmean(np.abs(d))),
                "max_abs": self.max_abs(kind),
            }
        return pd.DataFrame(rows).T


def evaluate(merged: pd.DataFrame, truth: pd.DataFrame | Readings, *, label: str = "") -> Evaluation:
    """Compare the pairwise correlations of ``merged`` with a reference.

    Parameters
    ----------
    merged : DataFrame
        Runs x events, as returned by the merge methods.
    truth : DataFrame or Readings
        A ground-truth table (every event read in the same runs) or grouped readings,
        whose observed pairwise correlations are the reference.  Only events present in
        both are compared.

    Examples
    --------
    >>> from hemkit.datasets.synthetic import make_truth
    >>> truth = make_truth(n_events=4, n_runs=2000, seed=0)
    >>> round(evaluate(truth, truth).mse(), 12)
    0.0
    """
    if merged.shape[1] < 2:
        raise HemkitError("the merged table has fewer than 2 events: nothing to compare")
    ref = correlations(truth)
    common = [e for e in merged.columns if e in ref["pearson"].columns]
    if len(common) < 2:
        raise HemkitError("merged data and reference share fewer than 2 events; check the event names")
    mine = correlations(merged[common])
    data = {}
    for kind in KINDS:
        m = upper(mine[kind].loc[common, common].to_numpy())
        t = upper(ref[kind].loc[common, common].to_numpy())
        data[f"merged_{kind}"] = m
        data[f"truth_{kind}"] = t
        data[f"diff_{kind}"] = m - t
    return Evaluation(pd.DataFrame(data, index=pair_labels(common)), label=label)


def holdout(
    readings: Readings,
    methods: Mapping[str, Callable[[Readings], pd.DataFrame]] | Sequence[str],
    *,
    fraction: float = 0.5,
    seed: int | None = 0,
    **options,
) -> dict[str, Evaluation]:
    """Merge one part of each group's runs and compare with the other part's observed correlations.

    Parameters
    ----------
    readings : Readings
    methods : mapping name -> callable(Readings) -> DataFrame, or method names
        Names go to :func:`hemkit.merge.merge` with ``options``.
    fraction : float, default 0.5
        Share of each group's runs given to the merge.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> res = holdout(t2080_much(), ["much", "copula"], seed=0)
    >>> sorted(res)
    ['copula', 'much']
    """
    from hemkit.merge import merge

    part, reference = readings.split_runs(fraction, seed=seed)
    if not isinstance(methods, Mapping):
        methods = {name: (lambda r, name=name: merge(r, name, **options)) for name in methods}
    return {name: evaluate(fn(part), reference, label=name) for name, fn in methods.items()}
