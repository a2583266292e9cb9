"""Multiplexing (MPX) estimation: interval traces, exact emulation, estimators and scores.

Implements Wang, Wang & Lin (2022), "Hardware counter multiplexing estimation algorithm
using deep learning": fixed interpolation (PAPI/perf, Eq. 2), linear and growth-rate
interpolation, MLP and Bi-GRU estimators (section 3), data cleaning (section 2.2),
run-to-run correlation (section 2.4), RA (Eq. 4) and DTW-cost (section 4.2); phase-aware
interpolation (:mod:`hemkit.mpx.phase`); and hemkit's default estimator, which weighs per
series phase, min, zero fill, local and scaled phase interpolation, and chooses per total
between phase and linear, by how well each predicts the series' own hidden slices
(:mod:`hemkit.mpx.checked`).

The learned estimators (:mod:`hemkit.mpx.learned`) need PyTorch and are imported on use.

>>> from hemkit.mpx import emulate, synthetic_trace, make_estimator, score_traces
>>> mpx = emulate(synthetic_trace(runs=2, steps=50), pmcs=2)
>>> est = make_estimator("phase").estimate(mpx.without_truth())
>>> scores = score_traces(synthetic_trace(runs=3, steps=60), {n: make_estimator(n) for n in ("fixed", "phase")})
>>> sorted(scores.summary().index)
['fixed', 'phase']
"""

from hemkit.mpx.checked import CheckedEstimation
from hemkit.mpx.emulate import MpxData, Rotation, emulate, emulate_many, schedule
from hemkit.mpx.estimators import (
    FixedInterpolation,
    GrowthInterpolation,
    LinearInterpolation,
    MinInterpolation,
    MpxEstimator,
    ZeroFill,
)
from hemkit.mpx.evaluation import ScoreOptions, score_traces
from hemkit.mpx.fitting import FitOptions, MpxFit, fit_estimator
from hemkit.mpx.phase import PhaseInterpolation
from hemkit.mpx.record import TraceOptions, TraceRecording, TracesInterrupted, record_traces
from hemkit.mpx.registry import DEFAULT_ESTIMATOR, load_estimator, make_estimator
from hemkit.mpx.results import MpxEstimate
from hemkit.mpx.scores import MpxScores, dtw_cost, relative_accuracy, run_to_run, score_table, total_error
from hemkit.mpx.synthetic import synthetic_trace
from hemkit.mpx.totals import MpxTotals, total_intervals
from hemkit.mpx.traces import clean_runs, read_multiplexed, split_workloads

__all__ = [
    "CheckedEstimation",
    "DEFAULT_ESTIMATOR",
    "FitOptions",
    "MpxFit",
    "ScoreOptions",
    "TraceOptions",
    "TraceRecording",
    "TracesInterrupted",
    "clean_runs",
    "fit_estimator",
    "read_multiplexed",
    "record_traces",
    "score_traces",
    "split_workloads",
    "FixedInterpolation",
    "GrowthInterpolation",
    "LinearInterpolation",
    "MinInterpolation",
    "MpxData",
    "MpxEstimate",
    "MpxEstimator",
    "MpxScores",
    "PhaseInterpolation",
    "Rotation",
    "dtw_cost",
    "emulate",
    "emulate_many",
    "load_estimator",
    "make_estimator",
    "relative_accuracy",
    "run_to_run",
    "schedule",
    "score_table",
    "synthetic_trace",
    "total_error",
    "ZeroFill",
    # intervals on totals (issue 26, item 4)
    "MpxTotals",
    "total_intervals",
]
