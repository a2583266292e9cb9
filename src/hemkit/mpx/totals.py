"""How far to trust a multiplexed total: an interval around each (run, event) total (issue 26, item 4).

Under multiplexing an event's total is its counted slices (exact) plus what an estimator puts
in its gaps (guessed).  The interval says how far the guess may be off, from what the run
itself holds, scaled by a multiplier chosen on traces whose true totals are known:

* **The gaps.**  Each stretch the event was off its counter -- a slice's own unobserved part
  (a partly counted interval) and the intervals up to the next slice -- is one *gap unit* of
  ``U`` interval-equivalents (the share of each interval's enabled time not on a counter).
* **How much the rate moves.**  ``S`` is the event's typical change from one counted slice to
  the next (successive differences of perf's per-interval values ``raw x enabled / running``:
  ``S^2 = mean(dy^2) / 2``, the successive-difference variance of systematic sampling, which
  a trend does not inflate); ``L`` is the change over each gap itself (the slices on either
  side), times the gap's size.
* **How much estimators disagree.**  ``d = |total - perf's scaled total|``: where the
  estimator moved far from perf's scaling, one of them is far from the truth.

* **How well the run predicts itself.**  ``h`` is phase-aware interpolation's relative error
  on the sums of counted blocks it was made to estimate with the blocks hidden (every second
  block, as :mod:`hemkit.mpx.checked` checks its candidates), times the estimated part of the
  total (``total - counted``): what the run's own slices say about how far a gap can be off.
* **How much the interpolations disagree.**  ``r`` is the range of the gap counts of phase,
  linear, fixed and min interpolation.

The *base* scale ``b = sqrt(S^2 sum U^2 + sum (U dy_gap)^2 + d^2)`` suits smooth rates.  Which
of these parts make the scale of a series, and with what weight, depends on its count class
(below; :data:`SCALE_FORMS`), chosen by leaving whole workloads out (BENCHMARKS.md): few counted
events -- ``h`` of the better-checking totals candidate, phase or linear (the rate says little,
the hidden blocks more); some -- ``b^(3/4) rc^(1/4)`` with ``rc`` the range of the gap counts of
the self-checked estimator's series candidates; some-half -- ``(b^2 h r)^(1/4)``; many -- ``r``;
millions -- ``sqrt(sum (U dy)^2)``.
The interval is ``[max(total - q s, counted), total + q s]`` with ``counted`` the exact count of
the slices (the true total cannot be below it).  An event on a counter the whole run has
``s = 0``: its total is exact and ``lower = upper = total``.

``q`` is the ``level`` quantile of ``|total - truth| / s`` over series whose truth is known
(split-conformal), taken apart for *count classes* of series (Mondrian conformal: the
class is read from the data, never from the truth): ``none`` (every slice read 0), ``few``
(1-29 events counted), ``some`` (up to 10^4), ``many`` (up to 10^6) and ``huge``; ``some``
series on a counter at least half of their enabled time (3 counters for 5 events) are
``some-half``, with their own multiplier (their gaps are fewer and shorter, their totals'
errors smaller against the same scale).  And a series whose run's first intervals passed
before its event was on a counter, with no other run to fill them (:mod:`hemkit.mpx.runs`),
has its class's multiplier for a *blind start* (``some-start``, ...: :data:`START`): a burst
at exec hides there from the run's own slices.  And ``some``, ``some-half`` and ``many`` series whose
counted slices show a *steady rate* (its change from slice to slice below its mean: :func:`steady_rate`)
have their own multipliers (``some-steady``, ``many-start-steady``, ...: :data:`STEADY`): what a gap
hides there is the noise the slices show, which averages out over the gaps, while a bursty rate's gaps
may hold or miss a burst whole.  Few counted events mean Poisson noise and bursts
that a slice catches or misses; millions (hardware events) mean a rate that moves smoothly.
:data:`MULTIPLIERS` holds ``q`` per estimator and class at a grid of levels, measured by
``benchmarks/mpx_intervals.py`` (BENCHMARKS.md says on which traces and how the intervals
cover workloads left out); :func:`calibrate` measures it for any estimator.  Between grid
levels ``q`` is interpolated on the normal-quantile scale.

**Several runs of one workload** say more together than each alone: an event's true total varies
little from run to run (1-4 % on the traces of BENCHMARKS.md) while which of its bursts fall in a
run's gaps is chance.  So, where the runs' workload is known, each total is pooled with the other
runs' totals of its workload and event (:func:`pool_runs`, empirical Bayes: each run weighed by the
standard error of its own interval, and moved toward the others only as far as the runs' true totals
agree: how far they spread is read from the runs' totals against perf's end-of-run totals, a second
estimate of each run whose errors are not the run's own).  The pooled total's interval is ``q``
times its pooled standard error, ``q`` measured the same way (``<estimator>+pool`` in
:data:`MULTIPLIERS`).  ``total_intervals(..., pool=False)`` (``hemkit mpx estimate --per-run``)
keeps every run's own total.  The runs also say how far a run's own total may be off: with at least
:data:`MIN_RUNS` runs of the workload, the scale of a total left on its own may hold how far the
runs put the event's total (:func:`runs_spread`; :data:`RUNS_SCALE_FORMS`, with multipliers
``<estimator>+runs``), which narrowed the intervals of runs left on their own by 13 % at no less
coverage on workloads left out (BENCHMARKS.md).  Not where the runs' totals spread far more than
their own intervals explain (:func:`runs_scale_applies`): such runs truly differ, and their spread
is how far the programs differ.  The pooling itself weighs each run by the scale of the run alone:
weighed by the runs' spread, the pooled totals came out worse.

What no interval from the run can bound: counts that all fell while the event was off its
counter -- typically a burst at the program's start before the event first got a counter
(``kmem:kmem_cache_alloc`` or ``brk`` at exec), or at its end.  An event whose slices all read
0 (class ``none``) had such counts in most of the calibration runs, so its ``upper`` is
``inf``: the run says nothing about it.  ``unseen_start`` is the share of the run before the
event's first slice.
"""

from __future__ import annotations

from collections.abc import Mapping
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import InputError
from hemkit.core.results import Result, result
from hemkit.mpx.emulate import MpxData
from hemkit.mpx.results import MpxEstimate
from hemkit.mpx.runs import start_from_runs, unseen_start

LEVELS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99)
"""The levels at which :data:`MULTIPLIERS` holds the quantile of ``|error| / scale``."""

COUNT_CLASSES = ("none", "few", "some", "many", "huge", "some-half")
"""Series by their counted events: none (every slice read 0), fewer than 30, 10^4, 10^6, more;
``some-half``: ``some`` on a counter at least half of its enabled time (:data:`HALF_SPLIT`)."""
COUNT_EDGES = (1.0, 30.0, 1e4, 1e6)
"""Lower edges of the count classes after ``none`` (see :data:`COUNT_CLASSES`)."""
START = "-start"
"""The suffix of a count class (``some-start``, ...) whose series have a *blind start*: the run's first
intervals, before the event was first on a counter, that no other run filled (:func:`blind_start`).

Over the 16 sets of the fourteenth refit (left out by workload, runs listed alike), the intervals of one
multiplier per class held 0.94 of the totals counted from the start and 0.85-0.87 of those with an
unseen start (at 2 counters 3 of 5 series): a burst at exec hides there.  Their own multipliers hold
0.90 of both at the same median width (BENCHMARKS.md, fifteenth pass).  They apply to the multipliers
only; the scale's forms (:data:`SCALE_FORMS`) are the count class's."""
STEADY = "-steady"
"""The suffix of a class (``some-steady``, ``many-start-steady``, ...) whose series' counted slices show a *steady
rate*: the rate's typical change from one slice to the next (``S`` of the scale) is below :data:`STEADY_LIMIT`
times its mean over the slices, read on at least :data:`STEADY_SLICES` slices (:func:`steady_rate`).

A steady rate (a loop of hundreds of short processes, a program in one long phase) hides little in a gap beyond
the noise the slices show, and that noise averages out over the gaps; a bursty one (counts that come in bursts a
gap may hold or miss whole) hides more than its slices' changes say.  With one multiplier for both, the totals
of steady series were over-covered (0.93-0.98 at 4-9x their median error on loops of short processes) and those
of bursty ones under-covered (0.80-0.86 on the early sets); their own multipliers made the intervals 4-7 %
narrower and their coverage more even, left out by workload over 206 programs (BENCHMARKS.md, twenty-fifth pass).
Only the classes of :data:`STEADY_SPLIT` are split: ``few`` series are almost never steady (a few counts a slice
are Poisson noise) and ``huge`` (hardware counts) almost always."""
STEADY_LIMIT = 1.0
"""A rate is steady where its typical change from slice to slice is below this many times its mean (:data:`STEADY`).
Chosen with the classes split (0.1-1.5 and cuts at two or three places tried: all within 2 % of each other), on the
206 programs of the twenty-fifth pass: one cut, at the rate changing by its own size."""
STEADY_SLICES = 3
"""The fewest counted slices from which a series' rate can be called steady: fewer show nothing of it."""
STEADY_SPLIT = ("some", "some-half", "many")
"""The count classes split by a steady rate (with and without :data:`START`): see :data:`STEADY`."""
Q_CLASSES = (
    *COUNT_CLASSES,
    *(c + START for c in COUNT_CLASSES if c != "none"),
    *(c + STEADY for c in STEADY_SPLIT),
    *(c + START + STEADY for c in STEADY_SPLIT),
)
"""Every class :data:`MULTIPLIERS` may hold: the count classes, each but ``none`` with :data:`START`, and those of
:data:`STEADY_SPLIT` (with and without :data:`START`) with :data:`STEADY`."""
HALF_SPLIT = ("some",)
"""The count classes split by time on a counter (``<class>-half`` from a running fraction of 0.5).

With fewer events than counters' worth of time off a counter (3 counters for 5 events: 60 %
on a counter) the gaps are shorter and fewer and the totals' errors smaller relative to what
a run shows; the number of counters is in the multiplexed file itself (enabled against
running time).  Split where leaving workloads out said it narrows the intervals
(BENCHMARKS.md)."""

SCALE_FORMS: dict[str, tuple[str, ...]] = {
    "none": ("base",),  # no upper bound: the scale does not matter
    "few": ("hidden_chosen",),
    "some": ("base", "base", "base", "spread_candidates"),
    "some-half": ("base", "base", "hidden_chosen", "spread"),
    "many": ("spread",),
    "huge": ("gap_jumps",),
}
"""The parts of :func:`scale_parts` whose geometric mean is the scale of a series, per count class.

A part named more than once weighs more: ``("base", "base", "base", "spread_candidates")`` is
``base^(3/4) x spread_candidates^(1/4)``.  Chosen by leaving workloads out on the ``sw``,
``fresh``, ``fresh2``, ``fresh3`` and ``zen5`` traces, among weighted geometric means of up to
four parts in steps of 1/4 (``benchmarks/mpx_interval_scales.py --size 4``); ``huge`` (hardware
counts: ``zen5`` alone) keeps the form chosen before, which leaving a ``zen5`` workload out did not
improve on (BENCHMARKS.md).
"""
SPREAD_ESTIMATORS = ("phase", "linear", "fixed", "min")
"""The interpolations whose gap counts' range is the ``spread`` part of the scale."""
SPREAD_CANDIDATES = ("phase", "min", "local4", "local", "phase*")
"""The candidates whose gap counts' range is the ``spread_candidates`` part: the self-checked
estimator's series candidates (:data:`hemkit.mpx.checked.SERIES`) but ``zero``, whose gaps hold
nothing."""

RUNS = "+runs"
"""The suffix of an estimator's entry in :data:`MULTIPLIERS` for the scale that also reads the other runs of its
workload (:data:`RUNS_SCALE_FORMS`)."""
MIN_RUNS = 3
"""Runs of a workload (with the event) from which a series' scale reads how far the runs' totals spread: the
traces it was chosen and measured on have 3 or 4 runs a workload (BENCHMARKS.md); with 2 the spread of two
numbers says too little."""
RUNS_EXCESS = 4.0
"""The runs' totals of a workload and event whose true spread (``tau^2`` of :func:`pool_runs`) is more than
this many times their errors' mean variance truly differ: their intervals keep the run's own scale
(:func:`runs_scale_applies`).  Chosen among 0.5, 1, 2, 4 and 10 (and never) by leaving each of 14 sets out
(``benchmarks/mpx_interval_scales.py --runs-excess``; BENCHMARKS.md): the narrowest that held 0.85 on every set."""
RUNS_PARTS = ("runs_sd", "runs_mad", "runs_loo")
"""The parts of the scale read from the other runs of the workload (:func:`runs_spread`)."""
RUNS_SCALE_FORMS: dict[str, tuple[str, ...]] = {
    "none": ("base",),  # no upper bound: the scale does not matter
    "few": ("hidden_chosen", "spread_candidates", "spread_candidates", "spread_candidates"),
    "some": ("base", "base", "runs_sd", "runs_loo"),
    "some-half": ("base", "base", "runs_mad", "runs_loo"),
    "many": ("base", "base", "spread", "runs_loo"),
    "huge": ("gap_jumps",),
}
""":data:`SCALE_FORMS` for a series whose workload has at least :data:`MIN_RUNS` runs with the event: the parts
may also be how far the runs put the event's total (:func:`runs_spread`).  A run's total is off by the bursts its
gaps hid, which differ from run to run, while the true totals of a program's runs vary by 1-4 % (BENCHMARKS.md):
so how far the other runs are from this one, and from each other, says how far this run's guess of its gaps may
be off, which the run alone cannot.  Chosen as :data:`SCALE_FORMS` were (leaving workloads out, weights in steps
of 1/4, ``benchmarks/mpx_interval_scales.py --size 4 --parts ... runs_sd runs_mad runs_loo``) on 14 sets;
``few`` came out with parts of the run alone (its own form, with other weights), ``huge`` (hardware counts:
``zen5`` alone) keeps its form.
"""

INF = float("inf")
# quantiles of |total - truth| / scale at LEVELS, over every series of fresh, fresh10, fresh11, fresh12, fresh13,
# fresh14, fresh15, fresh16, fresh17, fresh18, fresh19, fresh2, fresh20, fresh21, fresh22, fresh23, fresh24, fresh3,
# fresh4, fresh5, fresh6, fresh7, fresh8, fresh9, sw, zen5 (C = 2, 3)
MULTIPLIERS: dict[str, dict[str, tuple[float, ...]]] = {
    "checked": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 976 series
        "few": (0.675, 0.939, 1, 1.48, 2, 3, 6.05, 21.3, 39.8),  # 1247 series
        "some": (0.287, 0.408, 0.525, 0.708, 0.829, 0.99, 1.28, 1.75, 3.47),  # 1815 series
        "many": (0.26, 0.347, 0.44, 0.555, 0.634, 0.755, 0.966, 1.36, 1.56),  # 191 series
        "huge": (0.198, 0.281, 0.335, 0.524, 0.563, 0.975, 1.18, 1.58, 1.58),  # 40 series
        "some-half": (0.332, 0.459, 0.607, 0.809, 0.956, 1.21, 1.83, 2.72, 4.53),  # 2637 series
        "few-start": (2.01, 3.01, 5.59, 12.2, 21.1, 42.7, 129, 400, 1.13e03),  # 1145 series
        "some-start": (0.478, 0.631, 0.83, 1.13, 1.42, 1.9, 3.02, 4.72, 8.27),  # 1652 series
        "many-start": (0.323, 0.382, 0.504, 0.627, 0.689, 0.968, 1.32, 1.7, 2.46),  # 240 series
        "huge-start": (0.218, 0.313, 0.449, 0.5, 0.592, 0.735, 1.07, 1.38, 1.5),  # 78 series
        "some-half-start": (0.713, 0.933, 1.22, 1.78, 2.23, 3.05, 5.08, 8.17, 13.3),  # 1118 series
        "some-steady": (0.0778, 0.127, 0.196, 0.301, 0.377, 0.47, 0.709, 0.908, 1.29),  # 1933 series
        "some-half-steady": (0.183, 0.28, 0.394, 0.547, 0.667, 0.827, 1.1, 1.4, 1.85),  # 2732 series
        "many-steady": (0.115, 0.157, 0.207, 0.277, 0.338, 0.424, 0.546, 0.673, 1.09),  # 2090 series
        "some-start-steady": (0.274, 0.348, 0.455, 0.59, 0.699, 0.864, 1.26, 1.97, 5.4),  # 3226 series
        "some-half-start-steady": (0.397, 0.506, 0.624, 0.813, 0.955, 1.16, 1.56, 2.43, 3.72),  # 2004 series
        "many-start-steady": (0.145, 0.197, 0.26, 0.353, 0.419, 0.53, 0.728, 0.912, 1.32),  # 2246 series
    },
    "checked+pool": {
        "none": (0.379, 0.748, 1.32, 2.87, 4.93, 6.89, 8.52, 15.5, 23.7),  # 136 series
        "few": (0.358, 0.531, 0.733, 0.951, 1.06, 1.33, 2.57, 9.61, 31.4),  # 1080 series
        "some": (0.672, 0.886, 1.12, 1.44, 1.61, 1.83, 2.29, 2.82, 4.19),  # 1752 series
        "many": (0.607, 0.778, 0.976, 1.28, 1.57, 1.83, 2.28, 2.41, 3.04),  # 191 series
        "huge": (0.422, 0.508, 0.663, 1.05, 1.24, 1.48, 2.05, 2.66, 2.66),  # 40 series
        "some-half": (0.54, 0.739, 0.971, 1.29, 1.52, 1.87, 2.58, 3.68, 6.05),  # 2507 series
        "few-start": (0.0975, 0.149, 0.229, 0.399, 0.572, 1.15, 3.63, 7.18, 12.8),  # 902 series
        "some-start": (0.588, 0.729, 0.922, 1.23, 1.5, 1.95, 2.49, 3.79, 5.57),  # 1523 series
        "many-start": (0.581, 0.86, 1.07, 1.4, 1.57, 1.96, 2.4, 3.16, 3.55),  # 236 series
        "huge-start": (0.57, 0.812, 1.01, 1.18, 1.42, 1.92, 2.1, 3.01, 3.17),  # 77 series
        "some-half-start": (0.509, 0.678, 0.917, 1.3, 1.57, 1.89, 2.82, 4.28, 6.88),  # 1004 series
        "some-steady": (0.362, 0.551, 0.767, 1.1, 1.31, 1.75, 2.42, 3.1, 4.36),  # 1924 series
        "some-half-steady": (0.418, 0.598, 0.855, 1.18, 1.42, 1.75, 2.23, 2.74, 3.47),  # 2722 series
        "many-steady": (0.573, 0.736, 0.93, 1.18, 1.34, 1.6, 2.07, 2.61, 4.23),  # 2086 series
        "some-start-steady": (0.594, 0.76, 0.933, 1.2, 1.39, 1.74, 2.48, 3.83, 10.2),  # 3138 series
        "some-half-start-steady": (0.651, 0.81, 1.02, 1.29, 1.47, 1.74, 2.45, 3.69, 7.1),  # 1963 series
        "many-start-steady": (0.559, 0.715, 0.935, 1.24, 1.46, 1.77, 2.31, 2.99, 4.13),  # 2232 series
    },
    "checked+runs": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 976 series
        "few": (0.667, 0.959, 1, 1.52, 2.23, 4.17, 13.8, 32.1, 72.6),  # 1192 series
        "some": (0.49, 0.646, 0.825, 1.02, 1.16, 1.42, 1.84, 2.66, 5.22),  # 1800 series
        "many": (0.434, 0.54, 0.635, 0.804, 0.862, 0.969, 1.12, 1.32, 1.72),  # 186 series
        "huge": (0.198, 0.248, 0.335, 0.421, 0.563, 0.784, 0.975, 1.58, 1.58),  # 24 series
        "some-half": (0.555, 0.726, 0.936, 1.18, 1.37, 1.63, 2.11, 2.62, 4.04),  # 2580 series
        "few-start": (1.64, 2.46, 5.02, 11, 20.4, 50.8, 149, 348, 1.3e03),  # 1143 series
        "some-start": (0.742, 0.926, 1.17, 1.5, 1.83, 2.35, 3.55, 5.01, 7.41),  # 1633 series
        "many-start": (0.506, 0.616, 0.738, 0.861, 0.998, 1.21, 1.36, 1.46, 1.85),  # 236 series
        "huge-start": (0.202, 0.278, 0.429, 0.536, 0.595, 0.815, 1.1, 1.38, 1.5),  # 60 series
        "some-half-start": (0.925, 1.18, 1.53, 2.08, 2.43, 3.06, 3.94, 6.06, 9.42),  # 1091 series
        "some-steady": (0.304, 0.416, 0.534, 0.684, 0.782, 0.97, 1.27, 1.66, 2.21),  # 1011 series
        "some-half-steady": (0.458, 0.579, 0.767, 1.02, 1.17, 1.37, 1.82, 2.25, 3.08),  # 1427 series
        "many-steady": (0.255, 0.326, 0.421, 0.542, 0.609, 0.708, 0.859, 1.04, 1.42),  # 1805 series
        "some-start-steady": (0.461, 0.578, 0.728, 0.912, 1.06, 1.32, 1.84, 2.63, 6.74),  # 2844 series
        "some-half-start-steady": (0.557, 0.71, 0.892, 1.17, 1.35, 1.61, 2.26, 3.15, 6.38),  # 1687 series
        "many-start-steady": (0.274, 0.361, 0.468, 0.58, 0.693, 0.817, 1.03, 1.22, 1.52),  # 1963 series
    },
    "phase": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 976 series
        "few": (0.941, 1, 1.64, 3.47, 6.2, 13.3, 29.4, 67.7, 242),  # 1247 series
        "some": (0.344, 0.457, 0.608, 0.793, 0.928, 1.09, 1.44, 1.95, 3.7),  # 1815 series
        "many": (0.356, 0.476, 0.624, 0.736, 0.828, 0.946, 1.37, 1.51, 2.1),  # 191 series
        "huge": (0.198, 0.248, 0.369, 0.437, 0.563, 0.784, 1.13, 1.18, 1.18),  # 40 series
        "some-half": (0.458, 0.665, 0.963, 1.35, 1.6, 1.97, 2.86, 3.84, 6.16),  # 2637 series
        "few-start": (2.5, 4.03, 7.42, 16.1, 25.8, 55.9, 158, 521, 1.22e03),  # 1145 series
        "some-start": (0.732, 0.909, 1.13, 1.41, 1.72, 2.17, 3.27, 5.41, 11),  # 1652 series
        "many-start": (0.52, 0.616, 0.721, 0.87, 1.05, 1.25, 1.64, 1.9, 2.79),  # 240 series
        "huge-start": (0.449, 0.563, 0.633, 0.8, 0.932, 1.05, 1.43, 1.85, 2.11),  # 78 series
        "some-half-start": (1.08, 1.36, 1.79, 2.53, 3.09, 4.02, 6.39, 9.44, 13.5),  # 1118 series
        "some-steady": (0.0778, 0.132, 0.196, 0.299, 0.375, 0.474, 0.719, 0.951, 1.36),  # 1933 series
        "some-half-steady": (0.193, 0.288, 0.399, 0.561, 0.672, 0.86, 1.13, 1.45, 1.84),  # 2732 series
        "many-steady": (0.119, 0.159, 0.213, 0.299, 0.36, 0.45, 0.607, 0.763, 1.05),  # 2090 series
        "some-start-steady": (0.287, 0.369, 0.477, 0.606, 0.72, 0.881, 1.3, 1.98, 5.36),  # 3226 series
        "some-half-start-steady": (0.392, 0.514, 0.653, 0.857, 1, 1.2, 1.6, 2.44, 4.14),  # 2004 series
        "many-start-steady": (0.156, 0.209, 0.285, 0.372, 0.447, 0.558, 0.744, 0.923, 1.19),  # 2246 series
    },
    "fixed": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 976 series
        "few": (0.691, 0.945, 1, 1.67, 2.19, 3.67, 14.2, 46.3, 659),  # 1247 series
        "some": (0.654, 0.834, 1.01, 1.24, 1.43, 1.84, 3.79, 5.82, 6.6),  # 1815 series
        "many": (0.391, 0.518, 0.625, 0.694, 0.775, 0.875, 1.06, 1.23, 1.62),  # 191 series
        "huge": (0.481, 0.729, 0.893, 1.06, 1.28, 1.39, 1.96, 2.16, 2.16),  # 40 series
        "some-half": (0.563, 0.707, 0.829, 0.899, 1, 1.18, 1.63, 2.53, 5.63),  # 2637 series
        "few-start": (1.33, 2.25, 3.85, 7.18, 12.3, 28.6, 69, 158, 608),  # 1145 series
        "some-start": (0.519, 0.652, 0.838, 1.11, 1.3, 1.63, 2.59, 4.29, 7.13),  # 1652 series
        "many-start": (0.328, 0.42, 0.545, 0.647, 0.722, 0.908, 1.19, 1.4, 2.56),  # 240 series
        "huge-start": (0.343, 0.488, 0.583, 0.773, 0.893, 0.99, 1.15, 2.05, 2.23),  # 78 series
        "some-half-start": (0.636, 0.811, 1.06, 1.42, 1.73, 2.43, 4.44, 7.92, 10.8),  # 1118 series
        "some-steady": (0.39, 0.484, 0.583, 0.69, 0.752, 0.82, 0.951, 1.11, 1.38),  # 1933 series
        "some-half-steady": (0.649, 0.803, 1.04, 1.34, 1.57, 1.92, 2.77, 3.61, 5),  # 2732 series
        "many-steady": (0.246, 0.306, 0.381, 0.472, 0.529, 0.618, 0.741, 0.893, 1.16),  # 2090 series
        "some-start-steady": (0.391, 0.481, 0.594, 0.731, 0.831, 0.99, 1.32, 1.94, 5.03),  # 3226 series
        "some-half-start-steady": (0.552, 0.694, 0.85, 1.07, 1.22, 1.43, 1.76, 2.56, 3.7),  # 2004 series
        "many-start-steady": (0.25, 0.316, 0.399, 0.507, 0.587, 0.721, 0.909, 1.07, 1.38),  # 2246 series
    },
    "fixed-cumulative": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 976 series
        "few": (0.995, 1, 1, 1.08, 1.34, 1.67, 2.72, 5.39, 38.5),  # 1247 series
        "some": (0.664, 0.831, 0.982, 1.26, 1.57, 2.08, 3, 3.54, 5.04),  # 1815 series
        "many": (0.31, 0.398, 0.501, 0.589, 0.733, 0.922, 1.15, 1.33, 1.47),  # 191 series
        "huge": (0.262, 0.387, 0.711, 0.851, 0.988, 1.06, 1.3, 1.74, 1.74),  # 40 series
        "some-half": (0.466, 0.608, 0.77, 0.903, 1.09, 1.32, 1.74, 2.18, 3.03),  # 2637 series
        "few-start": (1.3, 1.98, 3.22, 5.93, 9.83, 25, 76.2, 235, 1.27e03),  # 1145 series
        "some-start": (0.415, 0.532, 0.694, 0.94, 1.18, 1.62, 3.24, 5.69, 17),  # 1652 series
        "many-start": (0.282, 0.337, 0.395, 0.54, 0.631, 0.733, 1.15, 1.39, 2.07),  # 240 series
        "huge-start": (0.273, 0.384, 0.446, 0.542, 0.604, 0.769, 1.02, 1.37, 1.7),  # 78 series
        "some-half-start": (0.516, 0.677, 0.839, 1.12, 1.44, 1.87, 3.17, 5.52, 12.5),  # 1118 series
        "some-steady": (0.0431, 0.107, 0.183, 0.296, 0.385, 0.512, 0.764, 0.95, 1.22),  # 1933 series
        "some-half-steady": (0.143, 0.238, 0.358, 0.528, 0.656, 0.816, 1.15, 1.44, 1.93),  # 2732 series
        "many-steady": (0.117, 0.149, 0.199, 0.27, 0.331, 0.401, 0.524, 0.658, 1.05),  # 2090 series
        "some-start-steady": (0.26, 0.344, 0.442, 0.591, 0.71, 0.869, 1.34, 2.25, 5.99),  # 3226 series
        "some-half-start-steady": (0.361, 0.486, 0.613, 0.79, 0.906, 1.13, 1.64, 2.54, 3.93),  # 2004 series
        "many-start-steady": (0.143, 0.193, 0.254, 0.336, 0.41, 0.502, 0.663, 0.858, 1.09),  # 2246 series
    },
    "linear": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 976 series
        "few": (0.583, 0.863, 0.996, 1.22, 1.67, 2.41, 5, 26.2, 90.3),  # 1247 series
        "some": (0.434, 0.54, 0.675, 0.877, 1, 1.26, 2.42, 3.24, 3.74),  # 1815 series
        "many": (0.3, 0.362, 0.454, 0.555, 0.634, 0.755, 0.966, 1.18, 1.42),  # 191 series
        "huge": (0.335, 0.483, 0.524, 0.821, 0.975, 1.29, 1.43, 1.58, 1.58),  # 40 series
        "some-half": (0.418, 0.512, 0.569, 0.694, 0.793, 0.938, 1.34, 1.94, 3.8),  # 2637 series
        "few-start": (1.26, 1.93, 2.97, 5.5, 8, 19.2, 53, 110, 252),  # 1145 series
        "some-start": (0.415, 0.531, 0.691, 0.908, 1.11, 1.51, 2.71, 4.39, 7),  # 1652 series
        "many-start": (0.282, 0.363, 0.436, 0.551, 0.625, 0.728, 1.02, 1.56, 2.46),  # 240 series
        "huge-start": (0.311, 0.411, 0.493, 0.594, 0.625, 0.823, 0.99, 1.38, 1.5),  # 78 series
        "some-half-start": (0.524, 0.682, 0.902, 1.23, 1.52, 1.98, 3.27, 5.46, 11.1),  # 1118 series
        "some-steady": (0.31, 0.385, 0.46, 0.573, 0.64, 0.733, 0.876, 1.02, 1.3),  # 1933 series
        "some-half-steady": (0.515, 0.677, 0.846, 1.1, 1.3, 1.67, 2.26, 3.06, 3.91),  # 2732 series
        "many-steady": (0.186, 0.233, 0.293, 0.375, 0.431, 0.506, 0.626, 0.782, 1.12),  # 2090 series
        "some-start-steady": (0.315, 0.403, 0.505, 0.64, 0.743, 0.892, 1.24, 1.88, 5.29),  # 3226 series
        "some-half-start-steady": (0.467, 0.581, 0.712, 0.912, 1.07, 1.3, 1.69, 2.41, 3.69),  # 2004 series
        "many-start-steady": (0.202, 0.255, 0.33, 0.441, 0.511, 0.625, 0.815, 1.02, 1.33),  # 2246 series
    },
    "growth": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 976 series
        "few": (0.68, 0.942, 1, 1.46, 1.94, 2.82, 5.89, 45.9, 166),  # 1247 series
        "some": (0.305, 0.428, 0.585, 0.804, 0.935, 1.08, 1.35, 1.84, 3.2),  # 1815 series
        "many": (0.396, 0.538, 0.621, 0.762, 0.864, 0.956, 1.37, 1.53, 2.06),  # 191 series
        "huge": (0.447, 0.598, 0.73, 1.05, 1.29, 1.32, 1.47, 1.81, 1.81),  # 40 series
        "some-half": (0.342, 0.488, 0.729, 1.02, 1.22, 1.51, 2.03, 2.75, 4.44),  # 2637 series
        "few-start": (1.71, 2.57, 4.01, 7, 10.8, 22.3, 58.7, 131, 294),  # 1145 series
        "some-start": (0.679, 0.836, 1.05, 1.31, 1.56, 1.98, 3.02, 4.69, 7.37),  # 1652 series
        "many-start": (0.557, 0.66, 0.787, 0.976, 1.11, 1.32, 1.68, 1.97, 3.01),  # 240 series
        "huge-start": (0.611, 0.735, 0.82, 1, 1.14, 1.21, 1.55, 2.34, 2.41),  # 78 series
        "some-half-start": (0.901, 1.17, 1.48, 2.01, 2.32, 3.02, 4.45, 7.22, 11.5),  # 1118 series
        "some-steady": (0.323, 0.401, 0.486, 0.589, 0.651, 0.733, 0.884, 1.03, 1.37),  # 1933 series
        "some-half-steady": (0.569, 0.721, 0.923, 1.18, 1.38, 1.71, 2.35, 3.06, 4.07),  # 2732 series
        "many-steady": (0.228, 0.289, 0.36, 0.439, 0.508, 0.587, 0.714, 0.868, 1.21),  # 2090 series
        "some-start-steady": (0.369, 0.457, 0.554, 0.693, 0.791, 0.945, 1.31, 2, 5.26),  # 3226 series
        "some-half-start-steady": (0.522, 0.656, 0.82, 1.02, 1.16, 1.38, 1.75, 2.61, 3.86),  # 2004 series
        "many-start-steady": (0.258, 0.321, 0.397, 0.493, 0.574, 0.668, 0.866, 1.04, 1.42),  # 2246 series
    },
    "min": {
        "none": (INF, INF, INF, INF, INF, INF, INF, INF, INF),  # 976 series
        "few": (0.783, 2.4, 4.25, 8.17, 13.5, 21.4, 48, 129, 499),  # 1247 series
        "some": (0.489, 0.645, 0.778, 0.966, 1.09, 1.23, 1.53, 2.02, 3.6),  # 1815 series
        "many": (0.763, 0.888, 0.987, 1.13, 1.27, 1.44, 1.91, 2.05, 2.29),  # 191 series
        "huge": (1.91, 2.02, 2.34, 2.66, 3.56, 10.3, 11.4, 12.3, 12.3),  # 40 series
        "some-half": (0.847, 1.15, 1.48, 1.95, 2.24, 2.72, 3.52, 4.56, 7.31),  # 2637 series
        "few-start": (4.64, 7.06, 12.4, 25, 38, 62.7, 180, 523, 1.22e03),  # 1145 series
        "some-start": (0.953, 1.09, 1.27, 1.51, 1.76, 2.11, 3.05, 4.7, 7.77),  # 1652 series
        "many-start": (0.889, 1.02, 1.13, 1.32, 1.41, 1.65, 1.9, 2.4, 3.38),  # 240 series
        "huge-start": (2.29, 2.81, 3.6, 10.2, 10.6, 10.8, 11.2, 12.2, 12.2),  # 78 series
        "some-half-start": (1.71, 2.03, 2.51, 3.34, 3.86, 4.86, 7.26, 10.5, 16),  # 1118 series
        "some-steady": (0.794, 0.843, 0.887, 0.929, 0.953, 0.993, 1.14, 1.33, 1.48),  # 1933 series
        "some-half-steady": (1.42, 1.63, 1.88, 2.36, 2.79, 3.45, 4.37, 5.28, 6.27),  # 2732 series
        "many-steady": (0.902, 0.963, 1.02, 1.09, 1.13, 1.2, 1.35, 1.46, 1.73),  # 2090 series
        "some-start-steady": (0.808, 0.882, 0.966, 1.07, 1.13, 1.25, 1.53, 2.2, 4.53),  # 3226 series
        "some-half-start-steady": (1.32, 1.48, 1.64, 1.86, 1.98, 2.16, 2.57, 3.31, 4.54),  # 2004 series
        "many-start-steady": (0.867, 0.941, 1.01, 1.07, 1.12, 1.21, 1.36, 1.6, 1.86),  # 2246 series
    },
}
"""Quantiles of ``|total - truth| / scale`` at :data:`LEVELS`, per estimator and count class.

Measured by ``benchmarks/mpx_intervals.py --update-package`` on the traces kept in
``benchmarks/data/mpx`` (BENCHMARKS.md).  An estimator not listed (a model file, or one added
later) gets the largest multiplier of the listed ones at each level and class.
"""
TOTAL_COLUMNS = (
    "run",
    "event",
    "total",
    "lower",
    "upper",
    "perf_total",
    "counted",
    "count_class",
    "running_fraction",
    "gaps",
    "unseen_start",
    "scale",
    "run_total",
    "runs_pooled",
    "scale_from",
)


def count_class(counted: np.ndarray, running_fraction: np.ndarray | None = None) -> np.ndarray:
    """The count class of each series (:data:`COUNT_CLASSES`) from its counted events and time on a counter.

    Parameters
    ----------
    counted : ndarray (S,)
        The exact count of each series' slices.
    running_fraction : ndarray (S,), optional
        Time on a counter / time enabled; from 0.5 a class of :data:`HALF_SPLIT` becomes
        ``<class>-half`` (not given: no split).

    Examples
    --------
    >>> count_class(np.array([0.0, 5.0, 300.0, 2e4, 2e6])).tolist()
    ['none', 'few', 'some', 'many', 'huge']
    >>> count_class(np.array([5.0, 300.0, 300.0]), np.array([0.6, 0.4, 0.6])).tolist()
    ['few', 'some', 'some-half']
    """
    idx = np.searchsorted(np.asarray(COUNT_EDGES), np.asarray(counted, float), side="right")
    out = np.asarray(COUNT_CLASSES[: len(COUNT_EDGES) + 1], dtype=object)[idx]
    if running_fraction is not None:
        half = np.asarray(running_fraction, float) >= 0.5
        for c in HALF_SPLIT:
            out = np.where((out == c) & half, f"{c}-half", out).astype(object)
    return out


def _prev_observed(observed: np.ndarray) -> np.ndarray:
    """Index of the last observed interval strictly before each interval (-1 when none)."""
    S, T = observed.shape
    last = np.maximum.accumulate(np.where(observed, np.arange(T)[None, :], -1), axis=1)
    return np.concatenate([np.full((S, 1), -1), last[:, :-1]], axis=1)


def scale_inputs(mpx: MpxData) -> pd.DataFrame:
    """The parts of the scale that do not depend on the estimator: spreads and hidden errors.

    Parameters
    ----------
    mpx : MpxData
        The multiplexed series (``truth`` is not used).

    Returns
    -------
    DataFrame
        One row per series: ``spread`` (range of the gap counts of :data:`SPREAD_ESTIMATORS`),
        ``spread_candidates`` (range of the gap counts of :data:`SPREAD_CANDIDATES`, the
        self-checked estimator's series candidates), ``hidden_error`` (phase-aware
        interpolation's relative error on the sums of the counted blocks it estimated with them
        hidden; 1 where no block could be hidden), ``hidden_chosen_error`` (the smaller of
        phase's and linear interpolation's: the totals candidates of :mod:`hemkit.mpx.checked`)
        and ``phase_gap`` (what phase-aware interpolation adds to the counted part of the total).

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx.emulate import emulate
    >>> tr = pd.DataFrame({"run": "r", "step": np.repeat(np.arange(30), 2), "event": ["a", "b"] * 30, "value": 7.0})
    >>> inp = scale_inputs(emulate(tr, pmcs=1))     # constant rates: nothing to disagree on
    >>> inp.columns.tolist()
    ['spread', 'spread_candidates', 'hidden_error', 'hidden_chosen_error', 'phase_gap']
    >>> float(inp.drop(columns="phase_gap").abs().to_numpy().max().round(9)), inp["phase_gap"].round(9).tolist()
    (0.0, [105.0, 105.0])
    """
    from hemkit.mpx.checked import CheckedEstimation, can_check
    from hemkit.mpx.phase import INTERPOLATIONS

    blind = mpx.without_truth()
    gap = blind.valid & ~blind.known
    # one run of the checks gives the candidates' values and phase's and linear's hidden block-sum errors
    values, checks = CheckedEstimation(series=SPREAD_CANDIDATES, totals=("phase", "linear")).checks(blind)
    values.update({n: INTERPOLATIONS[n]().estimate_array(blind) for n in SPREAD_ESTIMATORS if n not in values})

    def spread(names: tuple[str, ...]) -> np.ndarray:
        sums = np.vstack([np.where(gap, values[n], 0.0).sum(axis=1) for n in names])
        return sums.max(axis=0) - sums.min(axis=0)

    two_blocks = can_check(blind.full)  # a block can be hidden and the sum checked

    def checked_sums(error: np.ndarray) -> np.ndarray:
        return np.where(two_blocks & np.isfinite(error), error, 1.0)

    counted = np.where(blind.observed, np.nan_to_num(blind.raw), 0.0).sum(axis=1)
    phase_gap = np.maximum(np.where(blind.valid, values["phase"], 0.0).sum(axis=1) - counted, 0.0)
    return pd.DataFrame(
        {
            "spread": spread(SPREAD_ESTIMATORS),
            "spread_candidates": spread(SPREAD_CANDIDATES),
            "hidden_error": checked_sums(checks["phase"][1]),
            "hidden_chosen_error": checked_sums(np.minimum(checks["phase"][1], checks["linear"][1])),
            "phase_gap": phase_gap,
        }
    )


def runs_spread(keys: pd.DataFrame, totals: np.ndarray) -> pd.DataFrame:
    """How far the runs of each series' workload put the same event's total: the ``runs_*`` parts of the scale.

    Parameters
    ----------
    keys : DataFrame
        ``workload`` and ``event`` per series (without ``workload`` every series is a run alone).
    totals : ndarray (S,)
        Each run's total.

    Returns
    -------
    DataFrame
        One row per series: ``runs`` (runs of the workload with a finite total of the event, this one
        included; 1 without a workload), ``runs_sd`` (the standard deviation of their totals),
        ``runs_mad`` (the median distance of their totals from their median) and ``runs_loo`` (this
        run's distance from the mean of the others); the three are NaN where ``runs`` is below
        :data:`MIN_RUNS`.

    Examples
    --------
    >>> keys = pd.DataFrame({"workload": ["w"] * 3 + ["v"] * 2, "event": ["e"] * 5})
    >>> runs_spread(keys, np.array([90.0, 100.0, 110.0, 5.0, 7.0])).round(3).to_dict("list")
    {'runs': [3, 3, 3, 2, 2], 'runs_sd': [10.0, 10.0, 10.0, nan, nan], 'runs_mad': [10.0, 10.0, 10.0, nan, nan], \
'runs_loo': [15.0, 0.0, 15.0, nan, nan]}
    """
    totals = np.asarray(totals, float)
    S = len(totals)
    out = pd.DataFrame({"runs": np.ones(S, dtype=int), **{c: np.full(S, np.nan) for c in RUNS_PARTS}})
    if "workload" not in keys.columns or not S:
        return out
    finite = np.isfinite(totals)
    x = pd.Series(np.where(finite, totals, np.nan))
    g = x.groupby([keys["workload"].astype(str).to_numpy(), keys["event"].astype(str).to_numpy()], sort=False)
    n = g.transform("count").to_numpy()
    total_sum = g.transform("sum").to_numpy()
    sd = g.transform(lambda v: v.std(ddof=1)).to_numpy()
    mad = g.transform(lambda v: (v - v.median()).abs().median()).to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        loo = np.abs(totals - (total_sum - totals) / np.maximum(n - 1, 1))
    enough = finite & (n >= MIN_RUNS)
    out["runs"] = np.where(finite, n, 1).astype(int)
    for c, v in zip(RUNS_PARTS, (sd, mad, loo), strict=True):
        out[c] = np.where(enough, v, np.nan)
    return out


def _geometric_scale(
    forms: Mapping[str, tuple[str, ...]], parts: Mapping[str, np.ndarray], classes: np.ndarray
) -> np.ndarray:
    """The geometric mean of the parts ``forms`` names for each series' class.

    ``base`` where that is 0 and ``base`` is not; 0 without gaps.
    """
    scale = np.zeros(len(classes))
    for c, form in forms.items():
        here = classes == c
        scale[here] = np.prod([parts[p][here] for p in form], axis=0) ** (1 / len(form))
    # a series with gaps never claims an exact total: where the parts give no room (spreads that vanish, hidden
    # blocks that came out exact because every slice next to a gap read 0, runs that agree) the base scale gives
    # it.  On the traces of BENCHMARKS.md a quarter of such sparse series missed a burst in a gap (sha256's
    # page-faults: 208 counted of 463)
    scale = np.where((scale <= 0) & (parts["base"] > 0), parts["base"], scale)
    return np.where(parts["gap_size"] > 0, scale, 0.0)


def scale_parts(mpx: MpxData, totals: np.ndarray, inputs: pd.DataFrame | None = None) -> pd.DataFrame:
    """What the scale of each series is made of, from the multiplexed data alone (no truth).

    Parameters
    ----------
    mpx : MpxData
        The multiplexed series (``truth`` is not used).
    totals : ndarray (S,)
        The estimator's total of each series.
    inputs : DataFrame, optional
        :func:`scale_inputs` of ``mpx`` (computed when not given; pass it to score several
        estimators' totals of the same data).

    Returns
    -------
    DataFrame
        One row per series: ``counted`` (exact count of the slices), ``running_fraction``
        (time on a counter / time enabled), ``gaps`` (gap units), ``unseen_start`` (share of
        the enabled time before the first slice), ``rate_change`` (``S``), ``gap_size``
        (``sqrt(sum U^2)``), ``gap_jumps`` (``sqrt(sum (U dy)^2)``), ``vs_perf`` (``d``),
        ``perf_total``, ``base`` (``sqrt(S^2 sum U^2 + sum (U dy)^2 + d^2)``), ``spread``,
        ``hidden`` (``hidden_error x (total - counted)``, or ``x phase_gap`` where the total is not above
        the counted part), ``hidden_chosen`` (the same with ``hidden_chosen_error``),
        ``spread_candidates``, ``count_class``, ``steady`` (:func:`steady_rate`), ``scale`` (the
        geometric mean of the parts :data:`SCALE_FORMS` names for the class; ``base`` where that is 0
        and ``base`` is not: a series with gaps never claims an exact total), ``runs``, ``runs_sd``, ``runs_mad``,
        ``runs_loo`` (:func:`runs_spread` of ``totals``, by ``mpx.keys``' ``workload``) and
        ``scale_runs`` (the same with :data:`RUNS_SCALE_FORMS`; NaN where the workload has fewer than
        :data:`MIN_RUNS` runs with the event).

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> m = emulate(synthetic_trace(runs=1, steps=40, events=3), pmcs=3)   # every event always counted
    >>> scale_parts(m, m.perf_totals())["scale"].tolist()
    [0.0, 0.0, 0.0]
    """
    v = mpx.valid
    S, T = v.shape
    obs = mpx.observed
    ena = np.where(v, np.nan_to_num(mpx.enabled), 0.0)
    run = np.where(obs, np.nan_to_num(mpx.running), 0.0)
    active = v & (ena > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        missing = np.where(active, np.clip((ena - run) / np.where(active, ena, 1.0), 0.0, 1.0), 0.0)
    counted = np.where(obs, np.nan_to_num(mpx.raw), 0.0).sum(axis=1)
    # gap units: intervals from a slice (its own unobserved part) up to the next slice
    unit = np.cumsum(obs, axis=1)
    flat = (np.arange(S)[:, None] * (T + 1) + unit).ravel()
    U = np.bincount(flat, weights=missing.ravel(), minlength=S * (T + 1)).reshape(S, T + 1)
    y, prev, pair, dy, rate_change = _slice_changes(mpx)
    rows = np.arange(S)[:, None]
    u_between = np.where(pair, U[rows, unit[rows, prev.clip(0)]], 0.0)
    gap_jumps = np.sqrt(((u_between * dy) ** 2).sum(axis=1))
    gap_size = np.sqrt((U**2).sum(axis=1))
    first = np.where(obs.any(axis=1), obs.argmax(axis=1), T)
    before = np.arange(T)[None, :] < first[:, None]
    e_total = ena.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        running_fraction = np.where(e_total > 0, run.sum(axis=1) / e_total, 1.0)
        unseen_start = np.where(e_total > 0, np.where(before, ena, 0.0).sum(axis=1) / e_total, 0.0)
    perf = np.nan_to_num(mpx.perf_totals())
    totals = np.asarray(totals, float)
    d = np.abs(totals - perf)
    if inputs is None:
        inputs = scale_inputs(mpx)
    # the estimated part of the total; where the estimator put nothing beyond the counted part (min
    # leans low), phase's: a hidden error is a share of what the gaps may hold, not of one estimate
    mass = np.where(totals > counted, totals - counted, inputs["phase_gap"].to_numpy(float))
    parts = {
        "base": np.sqrt((rate_change * gap_size) ** 2 + gap_jumps**2 + d**2),
        "gap_jumps": gap_jumps,
        "spread": inputs["spread"].to_numpy(float),
        "hidden": inputs["hidden_error"].to_numpy(float) * mass,
        "hidden_chosen": inputs["hidden_chosen_error"].to_numpy(float) * mass,
        "spread_candidates": inputs["spread_candidates"].to_numpy(float),
    }
    parts["gap_size"] = gap_size
    classes = count_class(counted, running_fraction)
    scale = _geometric_scale(SCALE_FORMS, parts, classes)
    spread = runs_spread(mpx.keys.reset_index(drop=True), totals)
    parts.update({c: spread[c].to_numpy(float) for c in RUNS_PARTS})
    with np.errstate(invalid="ignore"):
        scale_runs = np.where(spread["runs"] >= MIN_RUNS, _geometric_scale(RUNS_SCALE_FORMS, parts, classes), np.nan)
    return pd.DataFrame(
        {
            "counted": counted,
            "running_fraction": running_fraction,
            "gaps": (U > 0).sum(axis=1),
            "unseen_start": unseen_start,
            "rate_change": rate_change,
            "gap_size": gap_size,
            "gap_jumps": gap_jumps,
            "vs_perf": d,
            "perf_total": perf,
            "base": parts["base"],
            "spread": parts["spread"],
            "hidden": parts["hidden"],
            "hidden_chosen": parts["hidden_chosen"],
            "spread_candidates": parts["spread_candidates"],
            "count_class": classes,
            "steady": _steady(y, obs, rate_change),
            "scale": scale,
            "runs": spread["runs"].to_numpy(),
            **{c: parts[c] for c in RUNS_PARTS},
            "scale_runs": scale_runs,
        }
    )


def blind_start(mpx: MpxData, values: np.ndarray | None = None) -> np.ndarray:
    """Boolean (S,): the series with an unseen start that the other runs did not fill.

    An unseen start is :func:`hemkit.mpx.runs.unseen_start`; it is filled where ``values`` (S, T)
    equal :func:`hemkit.mpx.runs.start_from_runs` all through it (``values`` not given: every
    series with an unseen start is blind there).

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> m = emulate(synthetic_trace(runs=1, steps=40, events=4), pmcs=2)
    >>> blind_start(m).tolist()     # the two events listed last are off their counters at first
    [False, False, True, True]
    """
    start = unseen_start(mpx)
    has: np.ndarray = np.asarray(start.any(axis=1), bool)
    if values is None or not has.any():
        return has
    fill = start_from_runs(mpx)
    with np.errstate(invalid="ignore"):
        same = np.isfinite(fill) & np.isclose(np.asarray(values, float), fill, rtol=1e-9, atol=1e-9)
    return has & ~(same | ~start).all(axis=1)


def with_start(classes: np.ndarray, blind: np.ndarray) -> np.ndarray:
    """The classes of the multipliers: ``classes`` with :data:`START` where ``blind`` (not ``none``).

    Examples
    --------
    >>> with_start(np.array(["some", "none", "few"], dtype=object), np.array([True, True, False])).tolist()
    ['some-start', 'none', 'few']
    """
    classes = np.asarray(classes, dtype=object)
    return np.where(np.asarray(blind, bool) & (classes != "none"), classes + START, classes)


def steady_rate(mpx: MpxData) -> np.ndarray:
    """Boolean (S,): the series whose counted slices show a steady rate (:data:`STEADY`).

    The rate of a slice is perf's per-interval value ``raw x enabled / running``; a series is steady where the
    root mean square of its changes from one counted slice to the next, over the square root of 2 (the scale's
    ``S``), is below :data:`STEADY_LIMIT` times the slices' mean rate, on at least :data:`STEADY_SLICES` slices.

    Examples
    --------
    >>> tr = pd.DataFrame({"run": "r", "step": np.repeat(np.arange(40), 2), "event": ["a", "b"] * 40,
    ...                    "value": np.column_stack([np.full(40, 100.0), np.tile([0.0, 0, 0, 400], 10)]).ravel()})
    >>> from hemkit.mpx.emulate import emulate
    >>> steady_rate(emulate(tr, pmcs=1)).tolist()     # a: the same count each interval; b: bursts
    [True, False]
    """
    y, _, _, _, rate_change = _slice_changes(mpx)
    return _steady(y, mpx.observed, rate_change)


def _slice_changes(mpx: MpxData) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The counted slices' values and their changes from one slice to the next.

    Returns perf's per-interval value ``raw x enabled / running`` of each counted slice (0 elsewhere), the index
    of the counted slice before each interval (-1: none), where a slice has one, its change from it (0 elsewhere),
    and each series' ``S``: the root mean square of those changes over sqrt(2) (0 with none).
    """
    obs = mpx.observed
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(obs, np.nan_to_num(mpx.raw) * np.nan_to_num(mpx.enabled) / np.where(obs, mpx.running, 1.0), 0.0)
    prev = _prev_observed(obs)
    pair = obs & (prev >= 0)
    dy = np.where(pair, y - y[np.arange(len(y))[:, None], prev.clip(0)], 0.0)
    n_pairs = pair.sum(axis=1)
    rate_change = np.sqrt(np.where(n_pairs > 0, (dy**2).sum(axis=1) / np.maximum(2 * n_pairs, 1), 0.0))
    return y, prev, pair, dy, rate_change


def _steady(y: np.ndarray, obs: np.ndarray, rate_change: np.ndarray) -> np.ndarray:
    """:func:`steady_rate` from :func:`_slice_changes`' values and ``S``."""
    n = obs.sum(axis=1)
    mean = np.where(obs, y, 0.0).sum(axis=1) / np.maximum(n, 1)
    return np.asarray((n >= STEADY_SLICES) & (mean > 0) & (rate_change < STEADY_LIMIT * mean), bool)


def with_steady(classes: np.ndarray, steady: np.ndarray) -> np.ndarray:
    """The classes of the multipliers: ``classes`` with :data:`STEADY` where ``steady`` (in :data:`STEADY_SPLIT`).

    ``classes`` may carry :data:`START` already (:func:`with_start`).

    Examples
    --------
    >>> with_steady(np.array(["some-start", "few", "many"], dtype=object), np.array([True, True, False])).tolist()
    ['some-start-steady', 'few', 'many']
    """
    classes = np.asarray(classes, dtype=object)
    split = np.isin(np.array([str(c).removesuffix(START) for c in classes], dtype=object), STEADY_SPLIT)
    return np.where(np.asarray(steady, bool) & split, classes + STEADY, classes)


def multiplier_classes(parts: pd.DataFrame) -> np.ndarray:
    """The class of each series' multiplier (:data:`Q_CLASSES`) from :func:`scale_parts`.

    Its ``count_class`` with :data:`STEADY` where ``steady``, and :data:`START` where its ``blind_start``
    column (:func:`blind_start`, if there) says so.

    Examples
    --------
    >>> parts = pd.DataFrame({"count_class": ["some", "some", "few"], "steady": [True, False, True],
    ...                       "blind_start": [True, False, False]})
    >>> multiplier_classes(parts).tolist()
    ['some-start-steady', 'some', 'few']
    """
    classes = parts["count_class"].to_numpy()
    if "blind_start" in parts.columns:
        classes = with_start(classes, parts["blind_start"].to_numpy(bool))
    if "steady" in parts.columns:
        classes = with_steady(classes, parts["steady"].to_numpy(bool))
    return np.asarray(classes, dtype=object)


def multiplier(estimator: str, level: float, count: str = "many") -> float:
    """The multiplier ``q`` of ``estimator``'s scale at ``level`` for series of count class ``count``.

    From :data:`MULTIPLIERS`: interpolated between its levels on the normal-quantile scale,
    scaled with the normal quantile beyond them; ``inf`` where the calibration data had too
    many misses at any width (events that never counted one event while on a counter).

    Examples
    --------
    >>> multiplier("phase", 0.9, "some") == MULTIPLIERS["phase"]["some"][LEVELS.index(0.9)]
    True
    >>> multiplier("my-model", 0.9) >= multiplier("phase", 0.9)
    True
    """
    level = check_scalar(level, "level", "real", min_val=0, max_val=1, closed="neither")
    if count not in Q_CLASSES:
        raise InputError(f"count must be one of {', '.join(Q_CLASSES)}, got {count!r}")

    def of(table: Mapping[str, tuple[float, ...]]) -> tuple[float, ...]:
        # a class with a steady rate or a blind start: else without the one, then without both
        plain = count.removesuffix(STEADY)
        for c in (count, plain, plain.removesuffix(START)):
            if c in table:
                return table[c]
        return table[count.split("-")[0]]  # a split class: its parent's

    if estimator in MULTIPLIERS:
        qs = np.asarray(of(MULTIPLIERS[estimator]), float)
    else:  # the largest of the listed estimators' own (a pooled scale is another kind of scale)
        own = [of(m) for name, m in MULTIPLIERS.items() if not name.endswith((POOLED, RUNS))]
        qs = np.max(np.asarray(own, float), axis=0)
    ppf = NormalDist().inv_cdf
    z = np.array([ppf((1 + lv) / 2) for lv in LEVELS])
    zl = ppf((1 + level) / 2)
    if level <= LEVELS[0]:
        return float(qs[0] * zl / z[0]) if np.isfinite(qs[0]) else INF
    if level >= LEVELS[-1]:
        return float(qs[-1] * zl / z[-1]) if np.isfinite(qs[-1]) else INF
    k = int(np.searchsorted(z, zl))
    if not (np.isfinite(qs[k - 1]) and np.isfinite(qs[k])):
        return INF
    return float(np.interp(zl, z[k - 1 : k + 1], qs[k - 1 : k + 1]))


POOLED = "+pool"
"""The suffix of an estimator's entry in :data:`MULTIPLIERS` for its totals pooled over runs (:func:`pool_runs`)."""
POOL_LEVEL = 0.9
"""The level of the interval a run's own total has, whose half-width over its normal quantile is the
standard error :func:`pool_runs` weighs the run by."""


def _workload_events(keys: pd.DataFrame) -> list[np.ndarray]:
    """The series of each workload and event (``keys`` has both), as index arrays."""
    groups = pd.DataFrame({"w": keys["workload"].astype(str).to_numpy(), "e": keys["event"].astype(str).to_numpy()})
    return list(groups.groupby(["w", "e"], sort=False).indices.values())


def _log_errors(totals: np.ndarray, se: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Totals on the log scale of :func:`pool_runs`.

    ``x = max(total, 0)``, ``y = log(1 + x)``, the errors' variances ``s^2 = (se / (1 + x))^2`` there, and
    which runs have a finite positive one (and a finite ``y``).
    """
    x = np.maximum(totals, 0.0)
    y = np.log1p(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = (se / (1.0 + x)) ** 2
    return x, y, s2, np.isfinite(s2) & (s2 > 0) & np.isfinite(y)


def _true_spread(y: np.ndarray, s2: np.ndarray, reference: np.ndarray | None = None) -> float:
    """``tau^2``: how far the runs' true totals spread on the log scale.

    With a ``reference`` estimate of each run's total (finite for at least two runs): the covariance
    of ``y`` with ``log(1 + reference)`` over those runs, at least 0 (:func:`pool_runs`).  Otherwise
    by the method of moments: ``max(0, var(y) - mean(s^2))``.
    """
    if reference is not None:
        ok = np.isfinite(reference)
        if ok.sum() >= 2:
            r = np.log1p(np.maximum(reference[ok], 0.0))
            return max(0.0, float(np.cov(y[ok], r)[0, 1]))
    return max(0.0, float(np.var(y, ddof=1) - np.mean(s2)))


def pool_runs(
    keys: pd.DataFrame,
    totals: np.ndarray,
    se: np.ndarray,
    counted: np.ndarray,
    reference: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each total pooled with the other runs' totals of the same workload and event (empirical Bayes).

    Runs of one program mostly count about the same (the true totals of an event vary by 1-4 % from
    run to run on the traces of BENCHMARKS.md) while a multiplexed total is off by 6-14 %, because
    which bursts fall in the gaps is chance, run by run.  So the runs say more together. On the
    scale of ``y = log(1 + total)``, run ``i`` has standard error ``s_i = se_i / (1 + total_i)``;
    the true totals of the workload spread by ``tau^2`` (below); each total moves toward ``m``, the
    log of the runs' mean total (each run weighs the same: weights ``1 / s_i^2`` would favour the
    runs that guessed low, whose errors look smaller), by the share ``1 - b_i``, ``b_i = tau^2 /
    (tau^2 + s_i^2)``: not at all when the runs differ more than their errors explain, all the way
    when they do not.  Its standard error on that scale becomes ``sqrt(b_i s_i^2 + (1 - b_i)^2
    var(m))``, and a run whose error the others would make larger (one far more precise than their
    mean) keeps its own total.  A total with no bound (``se = inf``: nothing counted while on a
    counter) takes ``m``.  An exact total (``se = 0``) and one whose error the run cannot tell
    (``se`` NaN) stay as they are and do not weigh in: an exact run says nothing about how far the
    others' true totals spread.  A pooled total is never below its run's exact ``counted`` part.

    ``tau^2`` is, given a ``reference`` (a second estimate of each run's total whose error is not
    the run's own: perf's end-of-run total ``count x enabled / running``), the covariance of the
    runs' ``y`` with ``log(1 + reference)``: what the two estimates share from run to run is the
    runs' true spread.  Without it, ``max(0, var(y) - mean(s^2))`` (method of moments), which rests
    on the errors ``s`` being right: where they are too large (the intervals too wide) it calls
    runs alike that truly differ and pools them.  On the development pool of BENCHMARKS.md the
    covariance made the pooled totals 3 % closer (geometric mean over the sets), and, on a set of
    steady programs whose intervals were 6-8x their errors, 24 % closer.

    Parameters
    ----------
    keys : DataFrame
        ``workload`` and ``event`` per series (without ``workload``: nothing is pooled).
    totals, se, counted : ndarray (S,)
        Each run's own total, its standard error and its exactly counted part.
    reference : ndarray (S,), optional
        A second estimate of each run's total (perf's end-of-run total) that tells the runs' true
        spread; NaN where there is none.  Without it (or with fewer than two a workload and
        event), the method of moments.

    Returns
    -------
    pooled : ndarray (S,)
    pooled_se : ndarray (S,)
        In counts (``(1 + pooled)`` times the standard error on the log scale).
    runs : ndarray of int (S,)
        How many runs (with a finite standard error) each total was pooled over; 1: left as it was.

    Examples
    --------
    >>> keys = pd.DataFrame({"workload": ["w"] * 4, "event": ["e"] * 4})
    >>> t, se, n = pool_runs(keys, np.array([90.0, 110, 100, 100]), np.full(4, 10.0), np.zeros(4))
    >>> np.round(t, 1).tolist(), n.tolist()   # the runs agree within their errors: one total for all
    ([100.0, 100.0, 100.0, 100.0], [4, 4, 4, 4])
    >>> t, se, n = pool_runs(keys, np.array([50.0, 200, 100, 400]), np.full(4, 10.0), np.zeros(4))
    >>> np.round(t).tolist()   # they differ far more: each keeps (almost) its own
    [53.0, 200.0, 101.0, 400.0]
    >>> ref = np.array([91.0, 109, 100, 100])   # perf's end-of-run totals: the runs differ after all
    >>> t, se, n = pool_runs(keys, np.array([90.0, 110, 100, 100]), np.full(4, 10.0), np.zeros(4), ref)
    >>> np.round(t, 1).tolist()
    [96.6, 104.1, 100.0, 100.0]
    """
    totals = np.asarray(totals, float)
    se = np.asarray(se, float)
    out, out_se = totals.copy(), se.copy()
    runs = np.ones(len(totals), dtype=int)
    if "workload" not in keys.columns or not len(totals):
        return out, out_se, runs
    x_all, y_all, s2_all, usable_all = _log_errors(totals, se)
    ref_all = np.full(len(totals), np.nan) if reference is None else np.asarray(reference, float)
    for idx in _workload_events(keys):
        x, y, s2, usable = x_all[idx], y_all[idx], s2_all[idx], usable_all[idx]
        unbounded = np.isinf(se[idx])
        k = int(usable.sum())
        if k < 2:
            continue
        tau2 = _true_spread(y[usable], s2[usable], ref_all[idx][usable])
        # the runs' plain mean, not weighted by their errors: a run's error grows with its own guess
        # of the gaps, so weights 1 / s^2 would favour the runs that guessed low (BENCHMARKS.md)
        mean = float(np.log1p(x[usable].mean()))
        var_mean = float((s2[usable] + tau2).sum() / k**2)
        b = np.where(usable, tau2 / (tau2 + np.where(usable, s2, 1.0)), 0.0)
        post = np.sqrt(b * np.where(usable, s2, 0.0) + (1 - b) ** 2 * var_mean)
        pooled = np.maximum(np.expm1(mean + b * (np.where(usable, y, mean) - mean)), counted[idx])
        # an exact total (se 0), one without a usable error (NaN) and one the others would make less
        # certain (a run far more precise than the runs' mean) stay
        moved = (usable & (post < np.sqrt(np.where(usable, s2, 0.0)))) | unbounded
        out[idx] = np.where(moved, pooled, totals[idx])
        out_se[idx] = np.where(moved, post * (1.0 + out[idx]), se[idx])
        runs[idx] = np.where(moved, k, 1)
    return out, out_se, runs


def run_errors(estimator: str, parts: pd.DataFrame) -> np.ndarray:
    """Each run's standard error from its own interval at :data:`POOL_LEVEL` (the scale of the run alone).

    ``parts`` is :func:`scale_parts` of the estimator's totals, with a ``blind_start`` column
    (:func:`blind_start`) where known: the run's own multiplier is its class's (:func:`multiplier_classes`:
    with :data:`START` there, and :data:`STEADY` where its rate is steady).  The error is the half-width
    ``q x scale`` over the level's normal quantile: 0 for an
    exact total (on a counter the whole run), ``inf`` with no bound, NaN where a guessed total has
    a zero scale (which says nothing about its error).
    """
    scale = parts["scale"].to_numpy()
    classes, exact = multiplier_classes(parts), parts["gap_size"].to_numpy() <= 0
    z = NormalDist().inv_cdf((1 + POOL_LEVEL) / 2)
    q_own = np.array([multiplier(estimator, POOL_LEVEL, c) for c in classes], float)
    with np.errstate(invalid="ignore"):
        return np.where(exact, 0.0, np.where(np.isinf(q_own), np.inf, np.where(scale > 0, q_own * scale / z, np.nan)))


def pool_totals(
    keys: pd.DataFrame, estimator: str, totals: np.ndarray, parts: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pool_runs` with each run's standard error from its own interval (:func:`run_errors`).

    ``parts`` is :func:`scale_parts` of ``totals``; its ``perf_total`` (perf's end-of-run total) is the
    reference that tells the runs' true spread.  Returns what :func:`pool_runs` returns.
    """
    reference = parts["perf_total"].to_numpy(float) if "perf_total" in parts.columns else None
    return pool_runs(keys, totals, run_errors(estimator, parts), parts["counted"].to_numpy(), reference)


def runs_excess(keys: pd.DataFrame, totals: np.ndarray, se: np.ndarray) -> np.ndarray:
    """How far the runs' totals of each series' workload and event spread beyond their own errors.

    On :func:`pool_runs`' scale ``y = log(1 + total)`` with the runs' errors ``s_i = se_i / (1 +
    total_i)``: ``tau^2 / mean(s^2)``, ``tau^2 = max(0, var(y) - mean(s^2))`` (the true totals'
    spread by the method of moments), over the runs with a finite positive error; NaN where fewer
    than two have one, or without a workload.

    Examples
    --------
    >>> keys = pd.DataFrame({"workload": ["w"] * 4, "event": ["e"] * 4})
    >>> float(runs_excess(keys, np.array([90.0, 110, 100, 100]), np.full(4, 10.0))[0])   # within their errors
    0.0
    >>> float(runs_excess(keys, np.array([50.0, 200, 100, 400]), np.full(4, 10.0))[0]) > 10   # far beyond
    True
    """
    totals = np.asarray(totals, float)
    out = np.full(len(totals), np.nan)
    if "workload" not in keys.columns or not len(totals):
        return out
    _, y, s2, usable = _log_errors(totals, np.asarray(se, float))
    for idx in _workload_events(keys):
        u = idx[usable[idx]]
        if len(u) >= 2:
            out[idx] = _true_spread(y[u], s2[u]) / float(s2[u].mean())
    return out


def listed_alike(keys: pd.DataFrame) -> list[str]:
    """The workloads whose runs of one event set all list their events in one order (at least two such runs).

    perf multiplexes the events of ``-e`` in the order they are listed: the first ``C`` start on the
    counters and the list rotates by one at each tick, so runs listed alike have their gaps at the same
    places of the program, and the bursts one run's gaps hide (at its start, say) the others' hide too.
    Pooling the runs then averages less of that error out: listing the events from a different one in
    each run made the pooled totals 13-15 % closer on 14 sets of traces (``benchmarks/mpx_orders.py``,
    BENCHMARKS.md).  ``keys`` (``workload, run, event``) lists each run's events in the order read
    (perf's); without ``workload``, none.

    Examples
    --------
    >>> keys = pd.DataFrame({"workload": ["w"] * 4 + ["v"] * 4, "run": list("aabbccdd"),
    ...                      "event": ["x", "y", "x", "y", "x", "y", "y", "x"]})
    >>> listed_alike(keys)   # w's runs both list x first; v's runs start at different events
    ['w']
    """
    if "workload" not in keys.columns or not len(keys):
        return []
    runs = keys.groupby("run", sort=False).agg(
        workload=("workload", "first"), order=("event", lambda e: "\n".join(map(str, e)))
    )
    runs["events"] = runs["order"].map(lambda o: "\n".join(sorted(o.split("\n"))))
    g = runs.groupby(["workload", "events"], sort=False)["order"].agg(["size", "nunique"])
    alike = g[(g["size"] >= 2) & (g["nunique"] == 1)]
    return list(dict.fromkeys(str(w) for w in alike.index.get_level_values("workload")))


@result
class MpxTotals(Result):
    """Each (run, event) total of a multiplexed input with an interval (see the module docstring).

    Attributes
    ----------
    table : DataFrame
        One row per series: ``workload`` (when known), ``run, event, total, lower, upper,
        perf_total`` (perf's scaled total, ``count x enabled / running``), ``counted`` (the
        exact count of the slices), ``running_fraction``, ``gaps``, ``unseen_start``,
        ``scale`` (of the half-width: ``half = q x scale``), ``run_total`` (the run's own
        total, before pooling), ``runs_pooled`` (1: not pooled; :func:`pool_runs`) and ``scale_from``
        (``run``: the run alone, ``runs``: with how far its workload's runs spread, ``pooled``).
    level : float
        The intervals' level.
    estimator : str
        The estimator whose totals they are.
    multiplier : mapping
        ``q`` of each count class: half-width = ``q x scale``.
    not_pooled : str
        Why totals were not pooled although pooling was asked for (a workload of one run, runs
        of no known workload, an estimator without a pooled calibration), in words; ``""`` when
        every workload's runs were pooled as far as they agree, or pooling was not asked for.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=1, steps=60, events=4), pmcs=2).without_truth()
    >>> res = total_intervals(m, make_estimator("phase").estimate(m), level=0.9)
    >>> bool(((res.table["lower"] <= res.table["total"]) & (res.table["total"] <= res.table["upper"])).all())
    True
    """

    table: pd.DataFrame
    level: float
    estimator: str
    multiplier: Mapping[str, float]
    not_pooled: str = ""

    def summary(self) -> pd.DataFrame:
        """Per event: series, exact ones (counted the whole run), median total and half-width (% of the total)."""
        t = self.table
        with np.errstate(invalid="ignore", divide="ignore"):
            half = 100 * (t["upper"] - t["lower"]) / 2 / t["total"].where(t["total"] > 0)
        g = t.assign(half=half, exact=t["gaps"] == 0).groupby("event", sort=False)
        return pd.DataFrame(
            {
                "series": g.size(),
                "exact": g["exact"].sum(),
                "median total": g["total"].median(),
                f"median half-width ({self.level:.0%}, % of total)": g["half"].median().round(2),
                "median running fraction": g["running_fraction"].median().round(3),
            }
        )

    def alike_workloads(self) -> list[str]:
        """The workloads with pooled totals whose runs list their events in one order (:func:`listed_alike`)."""
        t = self.table
        shared = t["runs_pooled"] > 1
        return listed_alike(t[t["workload"].isin(t.loc[shared, "workload"])]) if shared.any() else []

    def line(self) -> str:
        """One line: series, level, estimator, how many are exact, pooled, scaled by the runs, unbounded.

        Where runs were pooled, also the workloads whose runs list their events alike (:meth:`alike_workloads`).
        """
        t = self.table
        unbounded = int(np.isinf(t["upper"]).sum())
        pooled = int((t["runs_pooled"] > 1).sum())
        runs = int((t["scale_from"] == "runs").sum()) if "scale_from" in t.columns else 0
        alike = self.alike_workloads()
        return (
            f"{len(t)} {self.estimator} totals with {self.level:g} intervals "
            f"({int((t['gaps'] == 0).sum())} exact"
            + (f", {pooled} pooled over the runs of their workload" if pooled else "")
            + (f", {runs} scaled by how far their workload's runs spread" if runs else "")
            + (f", {unbounded} without an upper bound: never counted while on a counter" if unbounded else "")
            + ")"
            + (f"; not pooled: {self.not_pooled}" if self.not_pooled else "")
            + (
                f"; the runs of {len(alike)} workload{'s' if len(alike) > 1 else ''} list their events in one "
                "order, so their gaps fall alike: listed from a different event in each run (as 'hemkit mpx "
                "trace' records them), each run's first intervals come from the runs that counted them and "
                "pooled totals are closer (BENCHMARKS.md)"
                if alike
                else ""
            )
        )

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def plot(self, ax: Any = None) -> Any:
        """Each total with its interval, divided by perf's scaled total, per series (error bars)."""
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=(max(6.0, 0.35 * len(self.table) + 3), 4))
        t = self.table
        with np.errstate(invalid="ignore", divide="ignore"):
            base = t["perf_total"].where(t["perf_total"] > 0).to_numpy(float)
            mid, lo, hi = (t[c].to_numpy(float) / base for c in ("total", "lower", "upper"))
        x = np.arange(len(t))
        bounded = np.isfinite(hi)
        yerr = [np.clip(mid - lo, 0, None)[bounded], np.clip(hi - mid, 0, None)[bounded]]
        ax.errorbar(x[bounded], mid[bounded], yerr=yerr, fmt="o", ms=3, capsize=2, label=f"{self.estimator} total")
        if (~bounded).any():
            top = float(np.nanmax(np.where(bounded, hi, mid))) if np.isfinite(mid).any() else 1.0
            ax.plot(x[~bounded], np.full(int((~bounded).sum()), top), "^", color="grey", label="no upper bound")
        ax.axhline(1.0, color="black", lw=1, ls="--", label="perf's scaled total")
        one_run = t["run"].nunique() == 1
        labels = t["event"] if one_run else t["run"].astype(str) + " " + t["event"]
        ax.set_xticks(x, [str(s)[:36] for s in labels], rotation=60, ha="right", fontsize=7)
        ax.set_xlabel("event" if one_run else "run and event")
        ax.set_ylabel("total / perf's scaled total (ratio)")
        ax.set_title(f"Totals with {self.level:.0%} intervals ({self.estimator})")
        ax.legend(fontsize="small")
        return ax


def runs_scale_applies(keys: pd.DataFrame, estimator: str, totals: np.ndarray, parts: pd.DataFrame) -> np.ndarray:
    """Whether each series' interval takes the scale read with the other runs (``scale_runs`` of ``parts``).

    Where the workload has :data:`MIN_RUNS` runs with the event, unless the runs' totals spread far
    more than the runs' own intervals explain (:func:`runs_excess` above :data:`RUNS_EXCESS`, with the
    errors of :func:`run_errors`): then the runs truly differ (other inputs, another machine load)
    and their spread says how far the programs differ, not how far a run's guess of its gaps is off.
    """
    applies = np.isfinite(parts["scale_runs"].to_numpy())
    excess = runs_excess(keys, totals, run_errors(estimator, parts))
    return applies & ~(excess > RUNS_EXCESS)


def total_intervals(mpx: MpxData, estimate: MpxEstimate, *, level: float = 0.9, pool: bool = True) -> MpxTotals:
    """Each series' total of ``estimate`` with an interval at ``level`` (see the module docstring).

    Parameters
    ----------
    mpx : MpxData
        The multiplexed series the estimate was made from (``truth`` is not used).
    estimate : MpxEstimate
        Any estimator's estimate of ``mpx`` (its name picks the multiplier).
    level : float
        In (0, 1): the share of true totals the intervals should hold.
    pool : bool, default True
        Pool each total with the other runs' totals of its workload and event (:func:`pool_runs`),
        where the workload of the runs is known and the estimator has a pooled calibration
        (``<name>+pool`` in :data:`MULTIPLIERS`); the table keeps each run's own total as
        ``run_total``.  ``False``: every run's own total (its interval still reads how far the
        workload's runs spread where there are :data:`MIN_RUNS` of them and the estimator has a
        ``<name>+runs`` calibration).

    Returns
    -------
    MpxTotals

    Raises
    ------
    InputError
        ``level`` outside (0, 1), or an estimate of other series.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=1, steps=60, events=4), pmcs=4).without_truth()
    >>> t = total_intervals(m, make_estimator("fixed").estimate(m)).table
    >>> bool((t["lower"] == t["upper"]).all())    # every event counted the whole run: exact
    True
    """
    level = check_scalar(level, "level", "real", min_val=0, max_val=1, closed="neither")
    keys = mpx.keys.reset_index(drop=True)
    same = len(estimate.keys) == len(keys) and all(
        (estimate.keys[c].astype(str).to_numpy() == keys[c].astype(str).to_numpy()).all() for c in ("run", "event")
    )
    if not same:
        raise InputError("the estimate is not of these multiplexed series (its runs and events differ)")
    name = calibration_name(estimate)
    totals = estimate.totals()
    parts = scale_parts(mpx, totals)
    parts["blind_start"] = blind_start(mpx, estimate.values)
    scale = parts["scale"].to_numpy()
    counted = parts["counted"].to_numpy()
    classes = multiplier_classes(parts)
    used = {c: multiplier(name, level, c) for c in Q_CLASSES}
    q = np.array([used[c] for c in classes], float)
    scale_from = np.full(len(totals), "run", dtype=object)
    exact = parts["gap_size"].to_numpy() <= 0  # on a counter the whole run: nothing was estimated
    if name + RUNS in MULTIPLIERS:  # where the workload's other runs say how far the runs' totals spread
        with_runs = runs_scale_applies(keys, name, totals, parts) & ~exact
        q_runs = {c: multiplier(name + RUNS, level, c) for c in Q_CLASSES}
        q = np.where(with_runs, np.array([q_runs[c] for c in classes], float), q)
        scale = np.where(with_runs, parts["scale_runs"].to_numpy(), scale)
        scale_from[with_runs] = "runs"
        if with_runs.any():
            used.update({c + RUNS: q_runs[c] for c in Q_CLASSES})
    with np.errstate(invalid="ignore"):
        half = np.where(exact, 0.0, np.where(np.isinf(q), np.inf, np.where(scale > 0, q * scale, 0.0)))
    own = totals.copy()
    runs = np.ones(len(totals), dtype=int)
    not_pooled = _not_pooled(keys[~exact], name) if pool else ""
    if pool and name + POOLED in MULTIPLIERS and "workload" in keys.columns:
        pooled, pooled_se, runs = pool_totals(keys, name, totals, parts)
        shared = runs > 1
        qp = np.array([multiplier(name + POOLED, level, c) for c in classes], float)
        with np.errstate(invalid="ignore"):
            half_p = np.where(np.isinf(qp), np.inf, qp * pooled_se)
        totals = np.where(shared, pooled, totals)
        half = np.where(shared, half_p, half)
        scale = np.where(shared, pooled_se, scale)
        scale_from[shared] = "pooled"
        used.update({c + POOLED: multiplier(name + POOLED, level, c) for c in Q_CLASSES})
    lower = np.maximum(np.minimum(np.maximum(totals - half, counted), totals), 0.0)
    out = keys[[c for c in ("workload", "run", "event") if c in keys.columns]].copy()
    out["total"] = totals
    out["lower"] = lower
    out["upper"] = totals + half
    out["count_class"] = classes
    for c in TOTAL_COLUMNS[5:]:
        if c not in ("count_class", "scale", "run_total", "runs_pooled", "scale_from"):
            out[c] = parts[c].to_numpy()
    out["scale"] = scale
    out["run_total"] = own
    out["runs_pooled"] = runs
    out["scale_from"] = scale_from
    out = out[[c for c in ("workload",) if c in out.columns] + list(TOTAL_COLUMNS)]
    return MpxTotals(out, level, name, used, not_pooled)


def _not_pooled(keys: pd.DataFrame, name: str) -> str:
    """Why :func:`total_intervals` cannot pool (some of) these totals, in words (``""``: nothing stops it).

    ``keys`` are those of the estimated totals (exact ones need no pooling).

    >>> keys = pd.DataFrame({"workload": ["a", "a", "b"], "run": ["a_r1", "a_r2", "b_r1"], "event": "e"})
    >>> _not_pooled(keys, "checked")
    'workload b has one run (record several: hemkit mpx trace --runs N)'
    >>> _not_pooled(keys.assign(workload=["a", "c", "b"]), "checked")[:38]
    'workloads a, c, b have one run (record'
    >>> _not_pooled(keys, "fixed")
    "fixed's totals have no pooled calibration (only checked's)"
    """
    if not len(keys):
        return ""
    if name + POOLED not in MULTIPLIERS:
        known = ", ".join(k[: -len(POOLED)] + "'s" for k in MULTIPLIERS if k.endswith(POOLED))
        return f"{name}'s totals have no pooled calibration (only {known})"
    if "workload" not in keys.columns:
        return "the runs' workloads are unknown (give --workload or name files WORKLOAD_r<k>)"
    runs = keys.groupby("workload", sort=False)["run"].nunique()
    lone = [str(w) for w in runs.index[runs.to_numpy() < 2]]
    if not lone:
        return ""
    shown = ", ".join(lone[:5]) + (f" and {len(lone) - 5} more" if len(lone) > 5 else "")
    has = "has" if len(lone) == 1 else "have"
    fix = "record several: hemkit mpx trace --runs N"
    if len(lone) > 1:  # perhaps runs of one workload whose files the default pattern does not name alike
        fix += "; or say which runs are one workload's: --workload-pattern"
    return f"workload{'s' if len(lone) > 1 else ''} {shown} {has} one run ({fix})"


def calibration_name(estimate: MpxEstimate) -> str:
    """The name :data:`MULTIPLIERS` knows ``estimate``'s estimator by (``fixed-cumulative`` apart from ``fixed``)."""
    if estimate.estimator == "fixed" and estimate.params.get("mode") == "cumulative":
        return "fixed-cumulative"
    return estimate.estimator


def calibrate(mpx: MpxData, estimates: Mapping[str, np.ndarray], levels: tuple[float, ...] = LEVELS) -> pd.DataFrame:
    """The multipliers of each estimator on data whose truth is known: quantiles of ``|error| / scale``.

    Parameters
    ----------
    mpx : MpxData
        Emulated multiplexing (with ``truth``).
    estimates : mapping
        Estimator name -> its totals (S,) of ``mpx``'s series, or its (S, T) estimates (summed), made
        without the truth (an estimator that estimates totals apart: ``estimate(mpx).totals()``).
    levels : tuple of float
        The levels to measure at.

    Returns
    -------
    DataFrame
        Rows ``(estimator, count class)``, columns the levels: the (higher) empirical quantile
        of ``|error| / scale`` (a series of scale 0 counts as 0 when its total is exact, as
        ``inf`` when not), with a column ``series``.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace, make_estimator
    >>> m = emulate(synthetic_trace(runs=4, steps=80, events=4), pmcs=2)
    >>> q = calibrate(m, {"fixed": make_estimator("fixed").estimate_array(m.without_truth())}, (0.5, 0.9))
    >>> bool((q[0.5] <= q[0.9]).all())
    True
    """
    if mpx.truth is None:
        raise InputError("calibration needs the true counts: emulate from an OCOE trace")
    for lv in levels:
        check_scalar(lv, "levels", "real", min_val=0, max_val=1, closed="neither")
    truth = np.nansum(np.where(mpx.valid, mpx.truth, np.nan), axis=1)
    rows = {}
    inputs = scale_inputs(mpx)
    for name, values in estimates.items():
        values = np.asarray(values, float)
        totals = values if values.ndim == 1 else np.nansum(np.where(mpx.valid, values, np.nan), axis=1)
        z = error_ratios(mpx, totals, truth, inputs)
        parts = scale_parts(mpx, totals, inputs)
        parts["blind_start"] = blind_start(mpx, values if values.ndim == 2 else None)
        classes = multiplier_classes(parts)
        for c in Q_CLASSES:
            zc = z[classes == c]
            if len(zc):
                rows[(name, c)] = [*(float(np.quantile(zc, lv, method="higher")) for lv in levels), len(zc)]
    index = pd.MultiIndex.from_tuples(list(rows), names=["estimator", "count_class"])
    return pd.DataFrame(list(rows.values()), index=index, columns=[*levels, "series"])


def error_ratios(mpx: MpxData, totals: np.ndarray, truth: np.ndarray, inputs: pd.DataFrame | None = None) -> np.ndarray:
    """``|total - truth| / scale`` per series (0 where both are 0, ``inf`` where only the scale is)."""
    err = np.abs(np.asarray(totals, float) - np.asarray(truth, float))
    s = scale_parts(mpx, totals, inputs)["scale"].to_numpy()
    tol = 1e-9 * np.maximum(np.abs(truth), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s > 0, err / np.where(s > 0, s, 1.0), np.where(err <= tol, 0.0, np.inf))


__all__ = [
    "COUNT_CLASSES",
    "HALF_SPLIT",
    "LEVELS",
    "MIN_RUNS",
    "MULTIPLIERS",
    "Q_CLASSES",
    "RUNS_EXCESS",
    "RUNS_PARTS",
    "RUNS_SCALE_FORMS",
    "SCALE_FORMS",
    "SPREAD_CANDIDATES",
    "SPREAD_ESTIMATORS",
    "START",
    "STEADY",
    "STEADY_LIMIT",
    "STEADY_SLICES",
    "STEADY_SPLIT",
    "MpxTotals",
    "blind_start",
    "calibrate",
    "calibration_name",
    "count_class",
    "error_ratios",
    "multiplier",
    "multiplier_classes",
    "pool_runs",
    "pool_totals",
    "run_errors",
    "runs_excess",
    "runs_scale_applies",
    "runs_spread",
    "scale_inputs",
    "scale_parts",
    "steady_rate",
    "total_intervals",
    "with_start",
    "with_steady",
]
