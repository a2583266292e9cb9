"""hemkit's core: the readings model, errors, randomness, progress and result objects.

Everything else in hemkit builds on these; they import nothing from the rest of hemkit.

- :mod:`hemkit.core.readings` -- :class:`Readings`, groups of runs x events.
- :mod:`hemkit.core.errors` -- :class:`HemkitError` and its kinds.
- :mod:`hemkit.core.rng` -- the ``seed`` policy (:func:`as_generator`, :func:`spawn`, :func:`child`).
- :mod:`hemkit.core.progress` -- the ``progress`` protocol.
- :mod:`hemkit.core.results` -- the :class:`Result` base of every result object.
- :mod:`hemkit.core.checks` -- :func:`check_scalar`, the one check of an integer or number parameter.
- :mod:`hemkit.core.lazy` -- package attributes loaded on first use.
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
from hemkit.core.lazy import lazy_attributes

# everything but the errors loads on first use, so that ``import hemkit`` (and ``hemkit --help``)
# stays fast
_LAZY = {
    "ProgressLike": "hemkit.core.progress",
    "as_progress": "hemkit.core.progress",
    "check_scalar": "hemkit.core.checks",
    "Result": "hemkit.core.results",
    "result": "hemkit.core.results",
    "TIDY_COLUMNS": "hemkit.core.readings",
    "Readings": "hemkit.core.readings",
    "SeedLike": "hemkit.core.rng",
    "as_generator": "hemkit.core.rng",
    "child": "hemkit.core.rng",
    "spawn": "hemkit.core.rng",
}

__getattr__ = lazy_attributes("hemkit.core", _LAZY)


__all__ = [
    "TIDY_COLUMNS",
    "DesignError",
    "HemkitError",
    "HemkitWarning",
    "InputError",
    "MeasurementError",
    "OutputError",
    "ProgressLike",
    "Readings",
    "Result",
    "SeedLike",
    "SetupError",
    "as_generator",
    "as_progress",
    "child",
    "result",
    "spawn",
]
