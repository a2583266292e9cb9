"""Complete tables (every event read in every run) and their split into the groups of a design.

A *truth table* is runs x events, all read together: what a merge tries to reconstruct.
:func:`split_truth` hands disjoint runs of it to the groups of an HRM or MUCH design
(:mod:`hemkit.plan`), each group seeing only its events, as a real collection would; the
truth's own correlations are then the reference a merged table is judged by
(:mod:`hemkit.evaluate`).  :func:`hemkit.datasets.zen5_br_64kb` is a real one.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import Fix, HemkitWarning, InputError
from hemkit.core.numbers import plural
from hemkit.core.readings import Readings
from hemkit.core.rng import SeedLike, as_generator

DESIGNS = ("much", "hrm")


def check_truth_table(
    table: pd.DataFrame, source: str = "truth table", *, drop_constant: bool | None = None, counts: bool = False
) -> pd.DataFrame:
    """A numeric runs x events table without NaN, inf, duplicated or constant columns.

    Raises :class:`InputError` naming the column (and run) at fault.

    Parameters
    ----------
    table : DataFrame
        Runs x events, all read together: at least 3 runs and 2 events.
    source : str, default "truth table"
        Where the table came from, for messages (usually the file name).
    drop_constant : bool or None, default None
        True: drop the columns that are constant (a tracepoint that never fired: no correlation),
        with a :class:`~hemkit.core.errors.HemkitWarning` naming them; at least 2 events must
        remain.  False: refuse a constant column, naming ``drop_constant=True`` as the way out
        (for callers that take that parameter, :func:`hemkit.evaluate.read_truth`).  None:
        refuse it, saying to drop the column.
    counts : bool, default False
        The table holds counts, to be split into readings (:func:`split_truth`): a negative
        value is refused, naming the column and row (readings refuse it too, but name a group
        the table never had).

    Returns
    -------
    DataFrame
        A float64 copy with the column names as text.

    Raises
    ------
    InputError
        Not a DataFrame, a column repeated, fewer than 2 columns or 3 runs, or a column that
        is not numeric, has NaN or an infinite value, is constant (unless ``drop_constant``) or,
        with ``counts``, negative.

    Examples
    --------
    >>> check_truth_table(pd.DataFrame({"a": [1.0, 2, 3], "b": [2.0, 1, 3]})).shape
    (3, 2)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     check_truth_table(pd.DataFrame({"a": [1.0, 2, 3], "b": [2.0, 1, 3], "c": 7.0}), drop_constant=True).shape
    (3, 2)
    >>> print(w[0].message)
    truth table: dropped 1 constant event (no correlation): c (7)
    """
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"{source}: expected a table of runs x events, got {type(table).__name__}")
    cols = [str(c) for c in table.columns]
    dup = pd.Index(cols)[pd.Index(cols).duplicated()]
    if len(dup):
        raise InputError(f"{source}: column {dup[0]!r} appears twice")
    if table.shape[1] < 2:
        raise InputError(f"{source}: has {table.shape[1]} event column(s); at least 2 are needed")
    if len(table) < 3:
        raise InputError(f"{source}: has {plural(len(table), 'run')}; at least 3 are needed")
    constant: list[tuple[str, float]] = []
    for c in table.columns:
        col = table[c]
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            raise InputError(f"{source}: column {str(c)!r} is not numeric{_why_not_numeric(col, cols)}")
        x = col.to_numpy(dtype=float)
        bad = ~np.isfinite(x)
        if bad.any():
            r = int(np.argmax(bad))
            kind = "NaN" if np.isnan(x[r]) else "an infinite value"
            raise InputError(f"{source}: column {str(c)!r} has {kind} in row {r + 1}")
        if counts and (x < 0).any():
            r = int(np.argmax(x < 0))
            raise InputError(
                f"{source}: column {str(c)!r} has a negative value ({x[r]:g}) in row {r + 1}; "
                "a truth table to split into readings holds counts, which are never negative"
            )
        if np.ptp(x) == 0:
            if drop_constant is None:
                raise InputError(
                    f"{source}: column {str(c)!r} is constant ({x[0]:g}); it carries no correlation, drop it"
                )
            if not drop_constant:
                raise InputError(
                    f"{source}: column {str(c)!r} is constant ({x[0]:g}); it carries no correlation",
                    fix=Fix("drop_constant", True),
                )
            constant.append((str(c), float(x[0])))
    out = table.copy()
    out.columns = cols
    if constant:
        names = ", ".join(f"{c} ({v:g})" for c, v in constant)
        warnings.warn(
            f"{source}: dropped {len(constant)} constant event{'s' if len(constant) > 1 else ''} "
            f"(no correlation): {names}",
            HemkitWarning,
            stacklevel=2,
        )
        out = out.drop(columns=[c for c, _ in constant])
        if out.shape[1] < 2:
            raise InputError(
                f"{source}: {out.shape[1]} event(s) left after dropping the constant ones; at least 2 are needed"
            )
    result = out.astype(float)
    dropped = [*table.attrs.get("dropped_constant", []), *(c for c, _ in constant)]
    if dropped:
        result.attrs["dropped_constant"] = dropped  # what the command's summary line names
    return result


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _why_not_numeric(col: pd.Series, names: list[str]) -> str:
    """The first value that is no number and, when some column names are numbers, that the table has no header line.

    Examples
    --------
    >>> _why_not_numeric(pd.Series(["7", "cycles"]), ["1", "cycles", "4228393"])  # doctest: +ELLIPSIS
    " (row 2: 'cycles'); its first line (1,cycles,4228393) is data, not column names: ..."
    """
    bad = next(((k, v) for k, v in enumerate(col.astype(object)) if not _is_number(str(v))), None)
    said = f" (row {bad[0] + 1}: {str(bad[1])!r})" if bad is not None else ""
    if any(_is_number(n) for n in names):
        first = ",".join(names[:6]) + (",..." if len(names) > 6 else "")
        said += (
            f"; its first line ({first}) is data, not column names: the table needs a header line "
            "(run,E1,E2,... or run,event,value)"
        )
    return said


def split_truth(
    truth: pd.DataFrame,
    pmcs: int,
    *,
    design: str = "much",
    seed: SeedLike = 0,
    runs_per_group: int | None = None,
    anchor: str | None = None,
) -> Readings:
    """Split a truth table into the groups of a MUCH (or HRM) design on ``pmcs`` counters.

    Parameters
    ----------
    truth : DataFrame
        Runs x events, all read together.
    pmcs : int
        Counters per run.
    design : {"much", "hrm"}
    seed : int, Generator or None
        Which runs go to which group.
    runs_per_group : int, optional
        Default: every run used once (``len(truth) // groups`` each), the iso-runs
        comparison of the MUCH paper.
    anchor : str, optional
        HRM anchor; default the first column.

    Examples
    --------
    >>> from hemkit.datasets import zen5_br_64kb
    >>> r = split_truth(zen5_br_64kb(), 4, seed=0)
    >>> len(r), r.missing_pairs()
    (6, [])
    """
    from hemkit.plan import hrm_design, much_design

    truth = check_truth_table(truth, counts=True)
    events = list(truth.columns)
    check_scalar(pmcs, "pmcs", min_val=2)  # two counters read a pair together
    if design == "much":
        groups = much_design(events, int(pmcs)) if pmcs < len(events) else [events]
    elif design == "hrm":
        a = anchor or events[0]
        if a not in events:
            raise InputError(f"anchor {a!r} is not a column of the truth table")
        groups = hrm_design(events, int(pmcs), anchor=a)
    else:
        raise InputError(f"unknown design {design!r}; choose one of {', '.join(DESIGNS)}")
    per = int(runs_per_group) if runs_per_group is not None else len(truth) // len(groups)
    if per < 3 or per * len(groups) > len(truth):
        each = f"{per} a group" if runs_per_group is not None and per >= 3 else "at least 3 a group"
        raise InputError(
            f"a {design.upper()} design of {len(events)} events on {pmcs} counters has {len(groups)} groups, which "
            f"need {max(per, 3) * len(groups)} runs ({each}); the truth has {len(truth)}"
        )
    return split_into_runs(truth, groups, per, seed=seed)


def split_into_runs(
    truth: pd.DataFrame, groups: Sequence[Sequence[str]], runs_per_group: int, *, seed: SeedLike = 0
) -> Readings:
    """Give each group its own disjoint, randomly chosen runs of ``truth``, reading only its events.

    Constant events within a group (a count that happens not to change in its runs) are
    dropped from that group.

    Parameters
    ----------
    truth : DataFrame
        Runs x events, all read together (:func:`check_truth_table`).
    groups : sequence of sequences of str
        The events of each group (a design's groups); events of ``truth``.
    runs_per_group : int
        Runs each group gets; at least 3, and ``runs_per_group x len(groups)`` at most the
        runs of ``truth``.
    seed : int, Generator or None
        Which runs go to which group.

    Returns
    -------
    Readings
        Groups ``1, 2, ...`` in the order of ``groups``, runs numbered from 0 in each.

    Raises
    ------
    InputError
        Too few runs in ``truth`` for the groups, or fewer than 3 runs per group.

    Examples
    --------
    >>> t = pd.DataFrame({"a": range(12), "b": [5, 3, 1, 7, 2, 8, 4, 6, 0, 9, 11, 10]}, dtype=float)
    >>> split_into_runs(t, [["a", "b"], ["a"]], 4, seed=0).n_runs.tolist()
    [4, 4]
    """
    rng = as_generator(seed)
    need = runs_per_group * len(groups)
    if need > len(truth):
        raise InputError(f"{len(groups)} groups x {runs_per_group} runs need {need} runs; the truth has {len(truth)}")
    rows = rng.permutation(len(truth))[:need].reshape(len(groups), runs_per_group)
    import warnings

    from hemkit.core.errors import HemkitWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        return Readings(
            {g + 1: truth.iloc[rows[g]][list(ev)].reset_index(drop=True) for g, ev in enumerate(groups)},
            drop_constant=True,
        )


__all__ = ["DESIGNS", "check_truth_table", "split_into_runs", "split_truth"]
