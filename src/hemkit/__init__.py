"""hemkit: hardware event counters when the counters are few.

Areas (one sub-package each): ``plan`` (which events to read together), ``collect``
(repeated, validated ``perf`` runs), ``merge`` (complete vectors from separate runs),
``mpx`` (multiplexing estimation), ``derive`` (metrics from raw events) and
``sampling`` (accuracy of sampling profiles).  The lingua franca between areas is the
tidy table with columns ``group, run, event, value`` held by :class:`Readings`.
"""

from hemkit.core.errors import (
    DesignError,
    HemkitError,
    HemkitWarning,
    InputError,
    MeasurementError,
    OutputError,
    SetupError,
)

__version__ = "0.1.0"

__all__ = [
    "DesignError",
    "HemkitError",
    "HemkitWarning",
    "InputError",
    "MeasurementError",
    "OutputError",
    "Readings",
    "SetupError",
    "__version__",
]


def __getattr__(name: str):
    # pandas loads on first use of Readings, so that ``import hemkit`` stays fast
    if name == "Readings":
        from hemkit.core.readings import Readings

        return Readings
    raise AttributeError(f"module 'hemkit' has no attribute {name!r}")
