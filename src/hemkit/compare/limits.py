"""What :func:`hemkit.compare.compare` and :func:`hemkit.compare.machines_check` share: limits, the margin, one note.

Both accept the same runs per side, level and margin, judge a change at a margin the same way
(:func:`verdicts`), and both say the same of an event 0 in most runs.

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


def check_margin(margin: Any) -> float:
    """``margin`` as a float in [0, 1), or InputError naming it.

    Examples
    --------
    >>> check_margin(0.01)
    0.01
    """
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= float(margin) < 1:
        raise InputError(f"margin must be a relative change in [0, 1) (0.01 for 1 %), got {margin!r}", param="margin")
    return float(margin)


def band(margin: float) -> tuple[float, float]:
    """The ratios within ``margin`` of 1: ``[1 / (1 + margin), 1 + margin]`` (a change by the margin either way).

    Examples
    --------
    >>> band(0.25)
    (0.8, 1.25)
    """
    return 1.0 / (1.0 + margin), 1.0 + margin


def verdicts(
    flagged: np.ndarray, lower: np.ndarray, upper: np.ndarray, margin: float, same: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``changed`` and the verdict (``changed``, ``alike``, ``unclear``) of each test at ``margin``.

    ``flagged``: the test's finding at no margin (Benjamini-Hochberg, or constant sides that
    differ); ``lower``, ``upper``: the ratio's interval at the level; ``same``: constant sides
    of one value (alike at any margin).  At margin 0 ``changed`` is ``flagged``.  With a margin
    ``m > 0`` a change counts where it is flagged and its interval lies wholly outside
    :func:`band`, so it is at least the margin at the interval's level; ``alike`` where the
    interval lies wholly inside the band (two one-sided tests at ``(1 - level) / 2`` each:
    equivalence within the margin); ``unclear`` otherwise (the runs cannot tell at this margin).
    At margin 0 the band is the point 1 and only ``same`` is alike.  Raising the margin never
    makes a change of what was not one, and never takes ``alike`` away.

    Examples
    --------
    >>> flagged = np.array([True, True, False, False])
    >>> lower, upper = np.array([1.002, 1.04, 0.97, 0.999]), np.array([1.003, 1.06, 1.05, 1.004])
    >>> verdicts(flagged, lower, upper, 0.0)[1].tolist()
    ['changed', 'changed', 'unclear', 'unclear']
    >>> changed, verdict = verdicts(flagged, lower, upper, 0.01)
    >>> changed.tolist(), verdict.tolist()
    ([False, True, False, False], ['alike', 'changed', 'unclear', 'alike'])
    """
    flagged = np.asarray(flagged, dtype=bool)
    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    same = np.zeros(flagged.shape, dtype=bool) if same is None else np.asarray(same, dtype=bool)
    if margin > 0:
        lo, hi = band(margin)
        changed = flagged & ((lower > hi) | (upper < lo))
        alike = ~changed & (((lower >= lo) & (upper <= hi)) | same)
    else:
        changed = flagged.copy()
        alike = ~changed & same
    verdict = np.where(changed, "changed", np.where(alike, "alike", "unclear")).astype(object)
    return changed, verdict


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


__all__ = ["FEW_RUNS", "MIN_RUNS", "band", "check_level", "check_margin", "mostly_zero_note", "verdicts"]
