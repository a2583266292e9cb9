"""Checks shared by the merge methods: each raises :class:`~hemkit.core.errors.InputError` naming the culprit."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hemkit.core.checks import check_scalar
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.readings import Readings


def need_two_events(readings: Readings) -> None:
    """Raise unless there are at least two events to merge.

    Examples
    --------
    >>> import pandas as pd
    >>> need_two_events(Readings({1: pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]})}))
    """
    if len(readings.events) < 2:
        what = f"{readings.source}: has" if readings.source else "the readings have"
        raise InputError(f"{what} one event ({readings.events[0]!r}): merging needs at least two events")


#: the MUCH paper's step 1: at least 30 runs per group "to allow the use of the Central Limit Theorem"
MIN_GROUP_RUNS = 30


def observed_noise(runs: int, level: float = 0.95) -> float:
    """Half-width of the interval of a correlation of 0 observed in ``runs`` runs (Fisher z).

    Examples
    --------
    >>> round(observed_noise(10), 2), round(observed_noise(1000), 3)
    (0.63, 0.062)
    """
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2)
    return float(np.tanh(z / np.sqrt(max(runs - 3, 1))))


def warn_small_groups(readings: Readings, minimum: int = MIN_GROUP_RUNS) -> None:
    """Warn (once) when groups have fewer than ``minimum`` runs: how noisy their observed correlations are."""
    small = {g: n for g, n in readings.run_counts.items() if n < minimum}
    if not small:
        return
    g, n = min(small.items(), key=lambda item: item[1])
    others = len(small) - 1
    more = f" (and {others} more group{'s' if others > 1 else ''} under {minimum})" if others else ""
    name = repr(g.item() if isinstance(g, np.generic) else g)
    warnings.warn(
        f"group {name} has {n} runs{more}: a correlation observed in {n} runs is uncertain by "
        f"+-{observed_noise(n):.2f} (95 %), so merged-vs-observed differences that large are noise in the observed "
        f"correlations, not merge error; the MUCH paper asks for at least {minimum} runs per group",
        HemkitWarning,
        stacklevel=4,
    )


def need_mergeable(readings: Readings, impute: str | None = None, *, pairs: bool = True) -> None:
    """Raise unless a merge can use ``readings``: two events, none constant within a group, every pair read.

    Each error names every culprit and carries its fix (``drop_constant=True`` on reading,
    ``impute='maxdet'``); a pair left unread by dropping a constant event says so.

    Examples
    --------
    >>> import pandas as pd
    >>> need_mergeable(Readings({1: pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]})}))
    """
    need_two_events(readings)
    readings.check_varying()
    warn_small_groups(readings)
    if pairs:
        readings.check_pairs(impute)


def renamed_n(n: Any, stacklevel: int = 3) -> Any:
    """The value of the deprecated ``n=``, with a :class:`FutureWarning` saying its new name ``rows=``."""
    warnings.warn("n= is deprecated; use rows= (the rows of the merged table)", FutureWarning, stacklevel=stacklevel)
    return n


def take_old_n(options: Any, n: Any) -> None:
    """An options dataclass given the deprecated ``n=``: its value becomes ``rows``."""
    if n is not None:
        object.__setattr__(options, "rows", renamed_n(n, stacklevel=5))


def check_rows(n: Any, name: str = "rows") -> int | None:
    """``n`` merged rows: None (the method's default) or an integer >= 3.

    Examples
    --------
    >>> check_rows(None), check_rows(10)
    (None, 10)
    """
    return check_scalar(n, name, min_val=3, allow_none=True, what="merged runs")


__all__ = [
    "check_rows",
    "need_mergeable",
    "need_two_events",
    "observed_noise",
    "renamed_n",
    "take_old_n",
    "warn_small_groups",
]
