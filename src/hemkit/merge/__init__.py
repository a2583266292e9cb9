"""Merge readings from separate runs into complete vectors.

- :func:`merge_hrm` -- order statistics of an anchor event (HRM, mergingTools-exact).
- :func:`merge_much` -- MUCH as published: Gaussian copula, best of ``n_sims`` draws.
- :func:`merge_copula` -- hemkit's method: rank-based copula target, exact Iman-Conover
  reordering and a Pearson refinement; beats MUCH on correlation accuracy at the same data.
- :func:`merge` -- one entry point by method name.

Every method returns a DataFrame (runs x events) whose columns hold actual readings.
"""

from __future__ import annotations

import pandas as pd

from hemkit.errors import HemkitError
from hemkit.merge.copula import merge_copula
from hemkit.merge.correlation import nearest_correlation, normal_scores, pairwise_correlation
from hemkit.merge.hrm import merge_hrm
from hemkit.merge.much import merge_much
from hemkit.merge.reorder import reorder
from hemkit.readings import Readings

METHODS = ("hrm", "much", "copula")


def merge(readings: Readings, method: str = "copula", **options) -> pd.DataFrame:
    """Merge with the named method (``hrm`` needs ``anchor=``).

    Examples
    --------
    >>> from hemkit.datasets import t2080_hrm
    >>> merge(t2080_hrm(), "hrm", anchor="PROCESSOR_CYCLES").shape
    (1000, 16)
    """
    if method == "hrm":
        if not options.get("anchor"):
            raise HemkitError("HRM needs an anchor event (--anchor NAME)")
        return merge_hrm(readings, options["anchor"], n=options.get("n"))
    if method == "much":
        return merge_much(readings, **options)
    if method == "copula":
        return merge_copula(readings, **options)
    raise HemkitError(f"unknown merge method {method!r}; choose one of {', '.join(METHODS)}")


__all__ = [
    "METHODS",
    "merge",
    "merge_copula",
    "merge_hrm",
    "merge_much",
    "nearest_correlation",
    "normal_scores",
    "pairwise_correlation",
    "reorder",
]
