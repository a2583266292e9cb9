"""Accuracy of sampling profiles (Wen, Cheng, Lin, Yin 2021).

- :mod:`hemkit.sampling.states` -- running states of tasks sharing one resource.
- :mod:`hemkit.sampling.simulate` -- simulated periodic profiles of those states
  (time- or event-based, random start, jitter, noise on the unit of events).
- :mod:`hemkit.sampling.model` -- expectation and variance of profiled shares (Eqs. 1-9),
  the exact start-phase distribution, intervals and samples needed.
- :mod:`hemkit.sampling.paper` -- the paper's Tables 2-6 re-run beside its figures.
- :mod:`hemkit.sampling.profile` -- per-symbol shares of real profiles with intervals.
- :mod:`hemkit.sampling.record` -- perf record of a known-share C workload; interval coverage.
- :mod:`hemkit.sampling.plots` -- the figures (``ax=None`` -> Axes).

Examples
--------
>>> from hemkit.sampling import Task, generate_states, simulate_profiles
>>> rs = generate_states([Task("a", 0.3, 150)], 100_000, seed=0)
>>> abs(float(simulate_profiles(rs, 100, reps=100, seed=1).summary().loc["a", "bias"])) < 0.002
True
"""

from hemkit.sampling.model import (
    bound_interval,
    capture_variance,
    samples_needed,
    share_variance,
    start_phase_profiles,
    wilson_interval,
)
from hemkit.sampling.profile import ProfileShares, profile_shares
from hemkit.sampling.simulate import SimulationResult, simulate_profiles
from hemkit.sampling.states import RunningStates, Task, generate_states

__all__ = [
    "ProfileShares",
    "RunningStates",
    "SimulationResult",
    "Task",
    "bound_interval",
    "capture_variance",
    "generate_states",
    "profile_shares",
    "samples_needed",
    "share_variance",
    "simulate_profiles",
    "start_phase_profiles",
    "wilson_interval",
]
