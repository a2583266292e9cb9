"""What :func:`hemkit.compare.compare` and :func:`hemkit.compare.machines_check` both accept: runs per side, the level.

Kept apart so that either module can use them without importing the other.
"""

from __future__ import annotations

from typing import Any

from hemkit.core.errors import InputError

#: fewest runs per side and event a comparison accepts, and fewest it accepts without a warning
MIN_RUNS = 5
FEW_RUNS = 20


def check_level(level: Any) -> float:
    """``level`` as a float in (0, 1), or InputError naming it.

    Examples
    --------
    >>> check_level(0.9)
    0.9
    """
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < float(level) < 1:
        raise InputError(f"level must be a number in (0, 1), got {level!r}", param="level")
    return float(level)


__all__ = ["FEW_RUNS", "MIN_RUNS", "check_level"]
