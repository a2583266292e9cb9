"""Result objects of the multiplexing area: :class:`MpxEstimate`.

The others are beside the functions that make them: :class:`hemkit.mpx.scores.MpxScores`,
:class:`hemkit.mpx.fitting.MpxFit`, :class:`hemkit.mpx.record.TraceRecording`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.results import Result, result
from hemkit.mpx.emulate import MpxData


@result
class MpxEstimate(Result):
    """Full series estimated from multiplexed counts.

    Attributes
    ----------
    keys : DataFrame
        One row per series (``run, event``, and ``workload`` when known).
    values : ndarray (S, T)
        Estimated count per interval (NaN after the end of a series).
    length : ndarray (S,)
        Intervals per series.
    estimator : str
        The estimator's name.
    params : mapping
        Its parameters.
    perf_totals : ndarray (S,)
        perf's own total of each series (``sum raw x sum enabled / sum running``).
    observed : ndarray (S,)
        Share of the intervals each event was on a counter.
    series_totals : ndarray (S,) or None
        Each series' total as the estimator estimated it, when apart from the sum of its
        values (None: the sum of the values).

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=1, steps=30, events=3), pmcs=2).without_truth()
    >>> est = make_estimator("fixed").estimate(m)
    >>> est.summary().columns.tolist()
    ['intervals', 'on a counter', 'total', 'perf total', 'vs perf']
    """

    keys: pd.DataFrame
    values: np.ndarray
    length: np.ndarray
    estimator: str
    params: Mapping[str, Any] = field(default_factory=dict)
    perf_totals: np.ndarray = field(default_factory=lambda: np.zeros(0))
    observed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    series_totals: np.ndarray | None = None

    @classmethod
    def from_array(
        cls,
        mpx: MpxData,
        values: np.ndarray,
        estimator: str,
        params: Mapping[str, Any],
        totals: np.ndarray | None = None,
    ) -> MpxEstimate:
        """Wrap an (S, T) array of estimates of ``mpx``'s series (and their totals, when estimated apart)."""
        v = mpx.valid
        with np.errstate(invalid="ignore", divide="ignore"):
            share = mpx.observed.sum(axis=1) / np.maximum(v.sum(axis=1), 1)
        return cls(
            mpx.keys.reset_index(drop=True),
            np.where(v, values, np.nan),
            mpx.length.copy(),
            estimator,
            dict(params),
            mpx.perf_totals(),
            share,
            None if totals is None else np.asarray(totals, float).copy(),
        )

    def totals(self) -> np.ndarray:
        """Estimated total of each series (the estimator's own, else the sum of its values)."""
        if self.series_totals is not None:
            return np.asarray(self.series_totals, float)
        return np.nansum(self.values, axis=1)

    def summary(self) -> pd.DataFrame:
        """Per series: intervals, share on a counter, estimated total, perf's total, their ratio."""
        out = self.keys[[c for c in ("workload", "run", "event") if c in self.keys.columns]].copy()
        out["intervals"] = self.length
        out["on a counter"] = np.round(self.observed, 4)
        out["total"] = self.totals()
        out["perf total"] = self.perf_totals
        with np.errstate(invalid="ignore", divide="ignore"):
            out["vs perf"] = np.round(out["total"] / out["perf total"], 4)
        return out.set_index([c for c in ("workload", "run", "event") if c in out.columns])

    def to_frame(self) -> pd.DataFrame:
        """Tidy estimates: the series keys, ``step``, ``estimate`` (one row per interval)."""
        v = np.arange(self.values.shape[1])[None, :] < self.length[:, None]
        s_idx, t_idx = np.nonzero(v)
        out = self.keys.iloc[s_idx].reset_index(drop=True).copy()
        out["step"] = t_idx
        out["estimate"] = self.values[v]
        return out


__all__ = ["MpxEstimate"]
