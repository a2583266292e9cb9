"""One check for a scalar parameter (as scikit-learn's ``check_scalar``) and one error for an unknown name.

Every library function that takes a count, a size, a level or a threshold checks it here, so a
bad value is refused the same way everywhere: an :class:`~hemkit.core.errors.InputError` that
names the parameter as the Python argument (``n_sims``, ``level``), the range it must be in and
the value given.  Booleans are not integers here (``True`` is refused where a count is asked
for), and numpy integers and floats are taken as Python's.  A name that is not among the
choices (a method, a backend, a kernel family) is refused by :func:`unknown_choice`, naming the
choices and, for a typo, the closest one.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Iterable
from typing import Any, Literal

from hemkit.core.errors import InputError

Kind = Literal["int", "real"]
Closed = Literal["both", "neither", "left", "right"]


def _bound(value: float, closed: bool, above: bool) -> str:
    if above:
        return f"of at least {value:g}" if closed else f"above {value:g}"
    return f"of at most {value:g}" if closed else f"below {value:g}"


def _wanted(kind: Kind, low: float | None, high: float | None, closed: Closed) -> str:
    """``an integer of at least 1``, ``a number in (0, 1)``, ``a positive number`` ..."""
    left = closed in ("both", "left")
    right = closed in ("both", "right")
    if kind == "int":
        if low is not None and high is not None:
            return f"an integer from {low:g} to {high:g}"
        if low is not None:
            return f"an integer {_bound(low, left, True)}"
        if high is not None:
            return f"an integer {_bound(high, right, False)}"
        return "an integer"
    if low is not None and high is not None:
        return f"a number in {'[' if left else '('}{low:g}, {high:g}{']' if right else ')'}"
    if low == 0 and not left:
        return "a positive number"
    if low == 0 and left:
        return "a non-negative number"
    if low is not None:
        return f"a number {_bound(low, left, True)}"
    if high is not None:
        return f"a number {_bound(high, right, False)}"
    return "a finite number"


def check_scalar(  # noqa: PLR0913 - one keyword per part of the range, as scikit-learn's check_scalar
    value: Any,
    name: str,
    kind: Kind = "int",
    *,
    min_val: float | None = None,
    max_val: float | None = None,
    closed: Closed = "both",
    allow_none: bool = False,
    what: str = "",
) -> Any:
    """``value`` checked as the parameter ``name``: an integer or a finite number within the bounds.

    Parameters
    ----------
    value : object
        What the caller passed.
    name : str
        The parameter's Python name, as the message says it (``n_sims``, ``level``).
    kind : {"int", "real"}
        An integer (``bool`` refused; numpy integers taken), or a finite real number (an
        integer is a real too; NaN and infinities refused).
    min_val, max_val : float, optional
        Bounds of the allowed range; None: unbounded on that side.
    closed : {"both", "neither", "left", "right"}
        Which bounds are allowed values themselves.
    allow_none : bool
        Whether None is allowed (it is returned as is: "the default").
    what : str
        A few words said after the name, e.g. ``"merged runs"`` -> ``rows (merged runs) must be ...``.

    Returns
    -------
    int, float or None
        The value as a Python ``int`` (kind ``"int"``) or ``float``.

    Raises
    ------
    InputError
        ``NAME must be an integer of at least 1, got 0``.

    Examples
    --------
    >>> check_scalar(3, "n_sims", min_val=1)
    3
    >>> check_scalar(0.9, "level", "real", min_val=0, max_val=1, closed="neither")
    0.9
    >>> check_scalar(0, "n_sims", min_val=1)
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: n_sims must be an integer of at least 1, got 0
    >>> check_scalar(1.5, "level", "real", min_val=0, max_val=1, closed="neither")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: level must be a number in (0, 1), got 1.5
    """
    if value is None and allow_none:
        return None
    label = f"{name} ({what})" if what else name
    wanted = _wanted(kind, min_val, max_val, closed)
    if kind == "int":
        ok_type = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    else:
        ok_type = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(float(value))
    if not ok_type:
        raise InputError(f"{label} must be {wanted}{' (or None)' if allow_none else ''}, got {value!r}", param=name)
    x = int(value) if kind == "int" else float(value)
    left = closed in ("both", "left")
    right = closed in ("both", "right")
    too_low = min_val is not None and (x < min_val if left else x <= min_val)
    too_high = max_val is not None and (x > max_val if right else x >= max_val)
    if too_low or too_high:
        raise InputError(f"{label} must be {wanted}, got {x!r}", param=name)
    return x


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the choice closest to a mistyped ``value``, or ``""`` when none is close.

    Examples
    --------
    >>> did_you_mean("jiont", ["joint", "copula", "much"])
    "; did you mean 'joint'?"
    >>> did_you_mean("magic", ["joint", "copula", "much"])
    ''
    """
    close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown_choice(kind: str, value: Any, choices: Iterable[str]) -> InputError:
    """The error for a ``value`` of ``kind`` not among ``choices``: it names the value, the choices and the closest.

    Examples
    --------
    >>> str(unknown_choice("method", "jiont", ["joint", "copula"]))
    "unknown method 'jiont'; choose from joint, copula; did you mean 'joint'?"
    """
    names = [str(c) for c in choices]
    return InputError(f"unknown {kind} {value!r}; choose from {', '.join(names)}{did_you_mean(str(value), names)}")


__all__ = ["check_scalar", "did_you_mean", "unknown_choice"]
