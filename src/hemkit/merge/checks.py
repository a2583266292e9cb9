"""Checks shared by the merge methods: each raises :class:`~hemkit.core.errors.InputError` naming the culprit."""

from __future__ import annotations

from typing import Any

import numpy as np

from hemkit.core.errors import InputError
from hemkit.core.readings import Readings


def need_two_events(readings: Readings) -> None:
    """Raise unless there are at least two events to merge.

    Examples
    --------
    >>> import pandas as pd
    >>> need_two_events(Readings({1: pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]})}))
    """
    if len(readings.events) < 2:
        raise InputError(f"the readings have one event ({readings.events[0]!r}): merging needs at least two events")


def check_rows(n: Any, name: str = "n") -> int | None:
    """``n`` merged runs: None (the method's default) or an integer >= 3.

    Examples
    --------
    >>> check_rows(None), check_rows(10)
    (None, 10)
    """
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 3:
        raise InputError(f"{name} (merged runs) must be an integer of at least 3, got {n!r}")
    return int(n)


__all__ = ["check_rows", "need_two_events"]
