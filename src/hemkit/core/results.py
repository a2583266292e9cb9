"""The base of every result object hemkit returns (statsmodels style).

A method returns one frozen, documented dataclass that carries everything a user asks
next, e.g. :class:`hemkit.merge.MergeResult` (the merged table, the method, its parameters
and diagnostics).  Each result

- has ``summary() -> pandas.DataFrame``: the few numbers a user reads first;
- has ``line() -> str``: the same in one line, what a command prints last (a default here
  from the summary; a result overrides it with a sentence of its own);
- prints readably (``repr`` shows the class and the summary table, ``_repr_html_`` the same
  in a notebook);
- has ``to_frame()`` where a table is its natural form, and ``plot(ax=None) -> Axes`` where
  a figure is;
- never writes files: saving is :mod:`hemkit.io`'s job.

Define one with the :func:`result` decorator (a frozen dataclass that keeps this repr)::

    @result
    class PlanResult(Result):
        \"\"\"Groups of events to read together.\"\"\"
        groups: tuple[tuple[str, ...], ...]

        def summary(self) -> pd.DataFrame: ...

Examples
--------
>>> import pandas as pd
>>> @result
... class Demo(Result):
...     '''A demo result.'''
...     value: float
...     def summary(self) -> pd.DataFrame:
...         return pd.DataFrame({"value": [self.value]}, index=["demo"])
>>> Demo(1.5)
Demo
      value
demo    1.5
>>> Demo(1.5).line()
'Demo demo: value 1.5'
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, TypeVar, dataclass_transform

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

T = TypeVar("T", bound=type)


class Result:
    """Mixin for result dataclasses: ``summary()`` and a readable ``repr``.

    A subclass defines :meth:`summary`; :meth:`line`, the ``repr`` and the notebook view
    come from it.

    Examples
    --------
    Every result hemkit returns is one, so each is read the same way:

    >>> from hemkit.plan import make_plan
    >>> plan = make_plan([f"e{i}" for i in range(6)], pmcs=3, design="much")
    >>> isinstance(plan, Result)
    True
    >>> plan.summary().loc[["events", "groups", "optimal"], "value"].tolist()
    [6, 6, True]
    >>> plan.line()
    'much plan: 6 events in 6 groups of at most 3 counters (lower bound 6, best known 6, optimal)'
    """

    def summary(self) -> pd.DataFrame:  # pragma: no cover - every result defines it
        """The few numbers a user reads first, as a DataFrame."""
        raise NotImplementedError

    def line(self) -> str:
        """One line saying what the result holds (by default its summary's rows, shortened)."""
        try:
            table = self.summary()
        except Exception as exc:  # a summary line must never raise either
            return f"{type(self).__name__} (summary unavailable: {exc})"
        name = type(self).__name__
        if len(table) == 1:
            cells = ", ".join(f"{c} {_cell(v)}" for c, v in table.iloc[0].items())
            return f"{name} {table.index[0]}: {cells}"
        shown = ", ".join(map(str, table.index[:5])) + (", ..." if len(table) > 5 else "")
        return f"{name}: {len(table)} rows ({shown})"

    def describe(self) -> str:
        """The old name of :meth:`line` (deprecated)."""
        import warnings

        warnings.warn("describe() is deprecated; use line()", FutureWarning, stacklevel=2)
        return self.line()

    def __repr__(self) -> str:
        try:
            table = self.summary().to_string()
        except Exception as exc:  # a repr must never raise
            table = f"(summary unavailable: {exc})"
        return f"{type(self).__name__}\n{table}"

    def _repr_html_(self) -> str:
        return f"<b>{type(self).__name__}</b>" + self.summary().to_html()


def _cell(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


@dataclass_transform(eq_default=False, frozen_default=True)
def result(cls: T) -> T:
    """Decorator: a frozen dataclass (no generated repr or eq) for a :class:`Result` subclass.

    Parameters
    ----------
    cls : type
        A subclass of :class:`Result` with annotated fields and a ``summary`` method.

    Returns
    -------
    type
        ``cls`` as a frozen dataclass whose ``repr`` is :class:`Result`'s.

    Examples
    --------
    >>> import pandas as pd
    >>> @result
    ... class Timing(Result):
    ...     '''How long a kernel ran.'''
    ...     kernel: str
    ...     seconds: float
    ...     def summary(self) -> pd.DataFrame:
    ...         return pd.DataFrame({"seconds": [self.seconds]}, index=[self.kernel])
    >>> t = Timing("axpy", 0.25)
    >>> t.line()
    'Timing axpy: seconds 0.25'
    >>> t.seconds = 1.0
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'seconds'
    """
    return dataclasses.dataclass(frozen=True, repr=False, eq=False)(cls)  # type: ignore[return-value]


__all__ = ["Result", "result"]
