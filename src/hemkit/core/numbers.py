"""Numbers in messages: one way to print a count, a level and a number of things.

:func:`format_count` prints a count, :func:`format_percent` a level, :func:`plural` a number
of things (``1 group``, ``3 groups``).

A count a counter can hold (below 2^64) is printed with all its digits, because the digits
tell a wrap-around (2^47 + 6122 = 140737488361450) from a real count; anything larger,
fractional, infinite or NaN is printed compactly (``5.8e+90``), never as 90 digits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

#: counts of 64-bit counters are below this; larger numbers are no count perf can print
COUNTER_LIMIT = 2.0**64


def format_count(value: Any) -> str:
    """A count for a message: every digit of a whole count below 2^64, else compact.

    Examples
    --------
    >>> format_count(140737488361450.0), format_count(5.8e90), format_count(5.82), format_count(float("nan"))
    ('140737488361450', '5.8e+90', '5.82', 'nan')
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isfinite(v) and v.is_integer() and abs(v) < COUNTER_LIMIT:
        return str(int(v))
    return f"{v:g}"


def format_percent(fraction: float) -> str:
    """A level or rate for a message, as a percentage with the digits it needs (``.0%`` made 0.001 '0%').

    Examples
    --------
    >>> format_percent(0.95), format_percent(1 - 0.95), format_percent(0.999), format_percent(1 - 0.999)
    ('95%', '5%', '99.9%', '0.1%')
    """
    return f"{100 * float(fraction):.4g}%"


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and ``noun``, in the plural unless ``n`` is 1 (``many``: a plural other than noun + s).

    The one way summary lines say how many: ``1 event in 1 group``, never ``1 events in 1 groups``.

    Examples
    --------
    >>> plural(1, "group"), plural(3, "event"), plural(0, "run"), plural(2, "series", "series")
    ('1 group', '3 events', '0 runs', '2 series')
    """
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def exact_sum(values: Iterable[float]) -> float:
    """The sum of counts as the numbers they were written as, with no digit of float rounding added.

    Whole numbers are summed as integers (exact at any size, and the result is the whole
    number).  Otherwise each value is taken as the shortest decimal that reads back as it
    (``repr``: the digits perf printed, ``5.82``), those are summed exactly, and the result
    is the float nearest that decimal: ``3.14 + 5.9 + 4.33`` is ``13.37``, where adding the
    floats gives ``13.370000000000001`` (and so does :func:`math.fsum`, which sums the floats'
    binary values exactly, not the decimals they stand for).

    Examples
    --------
    >>> exact_sum([3.14, 5.9, 4.33]), sum([3.14, 5.9, 4.33])
    (13.37, 13.370000000000001)
    >>> exact_sum([3928.0, 5753.0]), exact_sum([])
    (9681.0, 0.0)
    """
    vals = list(values)
    if all(v.is_integer() for v in map(float, vals)):
        return float(sum(int(v) for v in vals))
    if not all(math.isfinite(v) for v in vals):
        return math.fsum(vals)  # inf or NaN: what adding them gives
    return float(sum((Decimal(repr(float(v))) for v in vals), Decimal(0)))


__all__ = ["COUNTER_LIMIT", "exact_sum", "format_count", "format_percent", "plural"]
