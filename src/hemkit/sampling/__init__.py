"""Accuracy of sampling profiles (Wen, Cheng, Lin, Yin 2021).

- :mod:`hemkit.sampling.states` -- running states of tasks sharing one resource.
- :mod:`hemkit.sampling.simulate` -- simulated periodic profiles of those states.
- :mod:`hemkit.sampling.model` -- expectation and variance of profiled shares (Eqs. 1-9),
  intervals and samples needed.
"""

from hemkit.sampling.model import capture_variance, samples_needed, share_variance, wilson_interval
from hemkit.sampling.simulate import SimulationResult, simulate_profiles
from hemkit.sampling.states import RunningStates, Task, generate_states

__all__ = [
    "RunningStates",
    "SimulationResult",
    "Task",
    "capture_variance",
    "generate_states",
    "samples_needed",
    "share_variance",
    "simulate_profiles",
    "wilson_interval",
]
