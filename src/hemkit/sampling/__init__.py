"""Accuracy of sampling profiles (Wen, Cheng, Lin, Yin 2021).

- :mod:`hemkit.sampling.states` -- running states of tasks sharing one resource
  (:class:`Task`, :class:`Workload`, :func:`generate_states`).
- :mod:`hemkit.sampling.simulate` -- simulated periodic profiles of those states
  (time- or event-based, random start, jitter, noise on the unit of events;
  :class:`Sampler`, :func:`simulate_profiles`, :func:`simulate_workload`).
- :mod:`hemkit.sampling.model` -- expectation and variance of profiled shares (Eqs. 1-9),
  the exact start-phase distribution, intervals and samples needed (:func:`share_model`).
- :mod:`hemkit.sampling.paper` -- the paper's Tables 2-6 and Fig. 11 re-run beside its figures.
- :mod:`hemkit.sampling.profile` -- shares of real ``perf record`` profiles by symbol, DSO,
  command or thread, with standard errors and intervals calibrated for periodic sampling
  (:func:`profile_shares`, :func:`systematic_variance`).
- :mod:`hemkit.sampling.diff` -- which shares changed between two profiles, with intervals
  from both profiles' errors and the false discovery rate held across keys (:func:`profile_diff`),
  or between several recordings a side, the spread between executions measured
  (:func:`diff_recordings`, a moderated t).
- :mod:`hemkit.sampling.record` -- perf record of a known-share C workload; interval coverage.
- :mod:`hemkit.sampling.plots` -- the figures (``ax=None`` -> Axes).

Every analysis returns a result object (:class:`SimulationResult`, :class:`SamplingProfile`,
:class:`ShareModel`, :class:`CoverageResult`, :class:`ProfileDiff`, :class:`~hemkit.sampling.paper.PaperReproduction`)
with ``summary()``, ``to_frame()`` and ``plot(ax=None)``.

Examples
--------
>>> from hemkit.sampling import Task, generate_states, simulate_profiles
>>> rs = generate_states([Task("a", 0.3, 150)], 100_000, seed=0)
>>> abs(float(simulate_profiles(rs, 100, reps=100, seed=1).summary().loc["a", "bias"])) < 0.002
True
"""

from hemkit.sampling.diff import DiffOptions, ProfileDiff, diff_recordings, profile_diff
from hemkit.sampling.model import (
    ShareModel,
    bound_interval,
    capture_variance,
    samples_needed,
    share_model,
    share_variance,
    start_phase_profiles,
    wilson_interval,
)
from hemkit.sampling.profile import SamplingProfile, profile_shares, read_samples, systematic_variance
from hemkit.sampling.record import CheckOptions, CoverageResult, KnownShareRun, record_known_shares, validate_coverage
from hemkit.sampling.simulate import Sampler, SimulationResult, simulate_profiles, simulate_workload
from hemkit.sampling.states import RunningStates, Task, Workload, generate_states

__all__ = [
    "CheckOptions",
    "CoverageResult",
    "DiffOptions",
    "KnownShareRun",
    "ProfileDiff",
    "RunningStates",
    "Sampler",
    "SamplingProfile",
    "ShareModel",
    "SimulationResult",
    "Task",
    "Workload",
    "bound_interval",
    "capture_variance",
    "diff_recordings",
    "generate_states",
    "profile_diff",
    "profile_shares",
    "read_samples",
    "record_known_shares",
    "samples_needed",
    "share_model",
    "share_variance",
    "simulate_profiles",
    "simulate_workload",
    "start_phase_profiles",
    "systematic_variance",
    "validate_coverage",
    "wilson_interval",
]
