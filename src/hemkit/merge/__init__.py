"""Merge readings from separate runs into complete vectors.

- :func:`merge_hrm` -- order statistics of an anchor event (HRM, mergingTools-exact).
- :func:`merge_much` -- MUCH (Vilardell et al. 2021): Gaussian copula, best of ``n_sims``
  draws; ``mode="paper"`` is the paper as written.
- :func:`merge_copula` -- rank-based copula target, exact Iman-Conover reordering and a
  Pearson refinement.
- :func:`merge_joint` -- the default: a Gaussian copula fitted to all runs jointly (maximum
  likelihood with
  data missing by design), ranks and heavy tails placed to match the data.
- :func:`merge` -- one entry point by method name, optionally with per-pair intervals.
- :func:`pair_intervals` -- per-pair intervals for any method (:mod:`hemkit.merge.intervals`).

Every method returns a :class:`MergeResult` whose ``data`` columns hold actual readings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hemkit.core.lazy import lazy_attributes

# eager: the submodule hemkit.merge.reorder would otherwise shadow the function of its name
# (NumPy only, no pandas)
from hemkit.merge.reorder import reorder

if TYPE_CHECKING:
    from hemkit.merge.api import DEFAULT_METHOD, METHODS, merge, pair_intervals
    from hemkit.merge.copula import CopulaOptions, merge_copula
    from hemkit.merge.correlation import nearest_correlation, normal_scores, pairwise_correlation
    from hemkit.merge.hrm import merge_hrm
    from hemkit.merge.intervals import IntervalOptions, with_intervals
    from hemkit.merge.joint import JointOptions, merge_joint
    from hemkit.merge.much import MuchOptions, merge_much
    from hemkit.merge.result import INTERVAL_COLUMNS, MergeResult, observed_pairs

# every name loads its module on first use, so that importing one method (or the CLI) does not
# import every method and pandas
_LAZY = {
    "DEFAULT_METHOD": "hemkit.merge.api",
    "METHODS": "hemkit.merge.api",
    "merge": "hemkit.merge.api",
    "pair_intervals": "hemkit.merge.api",
    "CopulaOptions": "hemkit.merge.copula",
    "merge_copula": "hemkit.merge.copula",
    "nearest_correlation": "hemkit.merge.correlation",
    "normal_scores": "hemkit.merge.correlation",
    "pairwise_correlation": "hemkit.merge.correlation",
    "merge_hrm": "hemkit.merge.hrm",
    "IntervalOptions": "hemkit.merge.intervals",
    "with_intervals": "hemkit.merge.intervals",
    "JointOptions": "hemkit.merge.joint",
    "merge_joint": "hemkit.merge.joint",
    "MuchOptions": "hemkit.merge.much",
    "merge_much": "hemkit.merge.much",
    "INTERVAL_COLUMNS": "hemkit.merge.result",
    "MergeResult": "hemkit.merge.result",
    "observed_pairs": "hemkit.merge.result",
}

__getattr__ = lazy_attributes("hemkit.merge", _LAZY)


__all__ = [
    "DEFAULT_METHOD",
    "INTERVAL_COLUMNS",
    "METHODS",
    "CopulaOptions",
    "IntervalOptions",
    "JointOptions",
    "MergeResult",
    "MuchOptions",
    "merge",
    "merge_copula",
    "merge_hrm",
    "merge_joint",
    "merge_much",
    "nearest_correlation",
    "normal_scores",
    "observed_pairs",
    "pair_intervals",
    "pairwise_correlation",
    "reorder",
    "with_intervals",
]
