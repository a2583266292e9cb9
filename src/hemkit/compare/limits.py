"""What :func:`hemkit.compare.compare` and :func:`hemkit.compare.machines_check` share: limits and one note.

Both accept the same runs per side and level, and both say the same of an event 0 in most runs.

Kept apart so that either module can use them without importing the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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


def mostly_zero_note(
    a: np.ndarray, b: np.ndarray, lower: float, upper: float, sides: tuple[str, str] = ("A", "B")
) -> str:
    """The note of an event whose median is 0 on a side (its ratio is the means'): how often each side read 0.

    Where a side has fewer than :data:`MIN_RUNS` non-zero runs (the fewest runs a comparison
    takes), or the ratio's interval holds both half and double, the non-zero runs are too few
    to judge a ratio at all, and the note says so plainly rather than letting the ratio speak
    (1 non-zero run in A and 2 in B give a ratio of 2; 1 in A and 11 in one run of B, 11).

    Examples
    --------
    >>> a, b = np.r_[np.zeros(29), 1.0], np.r_[np.zeros(28), 1.0, 1.0]
    >>> mostly_zero_note(a, b, 0.18, 21.7)
    '0 in 29 of 30 runs of A and 28 of 30 of B: too few non-zero runs to judge a ratio'
    >>> mostly_zero_note(np.r_[np.zeros(20), np.ones(20)], np.ones(40) * 2, 1.6, 2.5)
    '0 in 20 of 40 runs of A and 0 of 40 of B: ratio of means'
    """
    za, zb = int(np.count_nonzero(a == 0)), int(np.count_nonzero(b == 0))
    said = f"0 in {za} of {len(a)} runs of {sides[0]} and {zb} of {len(b)} of {sides[1]}"
    if min(len(a) - za, len(b) - zb) < MIN_RUNS or (lower <= 0.5 and upper >= 2.0):
        return f"{said}: too few non-zero runs to judge a ratio"
    return f"{said}: ratio of means"


__all__ = ["FEW_RUNS", "MIN_RUNS", "check_level", "mostly_zero_note"]
