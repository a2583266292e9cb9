"""Multiplexing (MPX) estimation: interval traces, exact emulation, estimators and scores.

Implements Wang, Wang & Lin (2022), "Hardware counter multiplexing estimation algorithm
using deep learning": fixed interpolation (PAPI/perf, Eq. 2), linear and growth-rate
interpolation, MLP and Bi-GRU estimators (section 3), data cleaning (section 2.2), RA
(Eq. 4) and DTW-cost (section 4.2).

>>> from hemkit.mpx import emulate, synthetic_trace, LinearInterpolation, score
>>> mpx = emulate(synthetic_trace(runs=2, steps=50), counters=2)
>>> est = LinearInterpolation().fit(mpx).estimate_array(mpx)
"""

from hemkit.mpx.emulate import MpxData, emulate, schedule
from hemkit.mpx.estimators import (
    FixedInterpolation,
    GrowthInterpolation,
    LinearInterpolation,
    MpxEstimator,
    make_estimator,
)
from hemkit.mpx.scores import ScoreResult, dtw_cost, relative_accuracy, score, total_error
from hemkit.mpx.synthetic import synthetic_trace
from hemkit.mpx.traces import clean_runs, collect_traces, parse_trace, read_trace, write_trace

__all__ = [
    "MpxData",
    "emulate",
    "schedule",
    "FixedInterpolation",
    "GrowthInterpolation",
    "LinearInterpolation",
    "MpxEstimator",
    "make_estimator",
    "ScoreResult",
    "dtw_cost",
    "relative_accuracy",
    "score",
    "total_error",
    "synthetic_trace",
    "clean_runs",
    "collect_traces",
    "parse_trace",
    "read_trace",
    "write_trace",
]
