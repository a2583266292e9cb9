"""Text forms of metric definitions: ``1xA + 8xB - 1xC`` and Markdown tables.

The lowest module of :mod:`hemkit.derive` (it imports nothing else from it): the analysis
writes combinations with :func:`format_combination`, the report reads preset definitions
back with :func:`parse_combination`, and both render tables with :func:`to_markdown`.

Examples
--------
>>> format_combination([1.0, 8.0, -1.0], ["A", "B", "C"])
'1xA + 8xB - 1xC'
>>> parse_combination("1xA + 8xB - 1xC")
{'A': 1.0, 'B': 8.0, 'C': -1.0}
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from hemkit.core.errors import InputError

_NUMBER = r"[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"
_TERM = re.compile(rf"^\s*([-+]?)\s*({_NUMBER})\s*[x×*]\s*(\S+)\s*$")
# a new term starts at a space and a sign followed by NUMBERxEVENT ("1xA - 2xB", as
# format_combination writes); a sign glued to a name is part of it (L1-dcache, A-0x0, 2.5e-17)
_SPLIT = re.compile(rf"\s+(?=[-+]\s*{_NUMBER}\s*[x×*]\S)")


def format_combination(
    coefs: Sequence[float] | np.ndarray, names: Sequence[str], *, rel_cut: float = 1e-12, abs_cut: float = 0.0
) -> str:
    """``1xA + 8xB - 1xC`` from coefficients; terms below ``rel_cut`` x the largest, or ``abs_cut``, are left out.

    Parameters
    ----------
    coefs : sequence of float
        One coefficient per event.
    names : sequence of str
        The events, in the same order.
    rel_cut : float
        Relative size below which a term is dropped (0 keeps every non-zero term).
    abs_cut : float
        Absolute size below which a term is dropped (rounding noise of a zero coefficient).

    Returns
    -------
    str
        ``"0"`` when every coefficient is zero.

    Examples
    --------
    >>> format_combination([0.8, 0.0, 2.5e-17], ["A", "B", "C"], rel_cut=0)
    '0.8xA + 2.5e-17xC'
    >>> format_combination([2.2e-16, 1e-17], ["A", "B"], abs_cut=1e-12)
    '0'
    """
    c = np.asarray(coefs, dtype=float)
    if c.size == 0 or not np.any(c):
        return "0"
    cut = max(rel_cut * np.abs(c).max(), abs_cut)
    parts = []
    for value, name in zip(c, names, strict=True):
        if value == 0 or abs(value) < cut:
            continue
        parts.append(("- " if value < 0 else "+ ") + f"{abs(value):.4g}x{name}")
    if not parts:
        return "0"
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def parse_combination(text: str, *, source: str = "definition") -> dict[str, float]:
    """``'1xA - 2xB'`` -> ``{'A': 1.0, 'B': -2.0}``; ``'0'`` -> ``{}``.

    Raises
    ------
    InputError
        A term that is not ``[+|-] NUMBER x EVENT``, or an empty definition (named with
        ``source``).

    Examples
    --------
    >>> parse_combination("2 x r00c2 + 0.5xBc - 1xBc")
    {'r00c2': 2.0, 'Bc': -0.5}
    """
    text = str(text).strip()
    if text == "0":
        return {}
    if not text or text.lower() == "nan":
        raise InputError(f"{source}: empty definition")
    out: dict[str, float] = {}
    for term in (t for t in _SPLIT.split(text) if t.strip()):
        m = _TERM.match(term)
        if not m:
            raise InputError(f"{source}: cannot read the term {term.strip()!r} of {text!r} (expected like 2xEVENT)")
        out[m.group(3)] = out.get(m.group(3), 0.0) + float(m.group(1) + m.group(2))
    return out


def show_value(value: object) -> str:
    """A cell as a user wrote it: text quoted, numbers plain (``nan``, ``-1``, ``2.5``), missing as ``empty``.

    Examples
    --------
    >>> show_value("two"), show_value(np.float64(-1.0)), show_value(float("nan")), show_value(None)
    ("'two'", '-1', 'nan', 'empty')
    """
    if value is None:
        return "empty"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return f"{float(value):g}"
    return str(value)


def to_markdown(table: pd.DataFrame) -> str:
    """A DataFrame as a Markdown table (floats as ``%.2e``, index left out).

    Examples
    --------
    >>> print(to_markdown(pd.DataFrame({"metric": ["L1 Misses."], "error": [1e-17]})), end="")
    | metric | error |
    | --- | --- |
    | L1 Misses. | 1.00e-17 |
    """
    cols = [str(c) for c in table.columns]
    out = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for row in table.itertuples(index=False):
        cells = [f"{v:.2e}" if isinstance(v, float) else ("" if v is None else str(v)) for v in row]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out) + "\n"


__all__ = ["format_combination", "parse_combination", "show_value", "to_markdown"]
