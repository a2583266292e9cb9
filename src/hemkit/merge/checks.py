"""Checks shared by the merge methods: each raises :class:`~hemkit.core.errors.InputError` naming the culprit."""

from __future__ import annotations

import warnings
from typing import Any

from hemkit.core.checks import check_scalar
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


__all__ = ["check_rows", "need_two_events", "renamed_n", "take_old_n"]
