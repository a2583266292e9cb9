"""The readings model: several groups, each a table of runs x events.

A *group* (a "sub-experiment" in the HRM/MUCH papers) is one set of events that were read
together, run after run.  Rows of different groups are **different runs**: row k of one
group has nothing to do with row k of another.  :class:`Readings` holds one
:class:`Group` per group -- run ids, event names and a read-only ``runs x events`` NumPy
array -- shows each as a :class:`pandas.DataFrame` on request, and converts to and from the
tidy table with columns exactly ``group, run, event, value`` that every area of hemkit reads
and writes.  Nothing here imports pandas until a DataFrame is asked for or given, so a
command that reads a file, merges and writes (``hemkit merge raw.csv -m much``) never pays
for it.

Construction validates the data and raises :class:`hemkit.InputError` naming the
culprit: a duplicate event in a group, NaN/inf, non-numeric or negative counts, a group
with fewer than ``min_runs`` runs.  An event constant within a group (a tracepoint that
fires 45 times in every run, no migration in any run) is ordinary data and is kept
(:attr:`Readings.constant` lists them); only what needs variation -- a merge, a
correlation -- refuses it (:meth:`Readings.check_varying`), and ``drop_constant=True``
drops such events on reading.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.numbers import format_count, plural

if TYPE_CHECKING:
    import pandas as pd

TIDY_COLUMNS = ("group", "run", "event", "value")


@dataclass(frozen=True, eq=False)
class Group:
    """One group's readings as arrays: what :class:`Readings` keeps, and what the methods compute on.

    Attributes
    ----------
    runs : ndarray
        The run ids (one per row).
    events : tuple
        The event names (one per column).
    values : ndarray
        ``runs x events`` counts, float64 or float32; read-only inside :class:`Readings`.

    Examples
    --------
    >>> import numpy as np
    >>> g = Group(np.arange(3), ("a", "b"), np.array([[1.0, 5], [2, 4], [3, 9]]))
    >>> Readings({1: g}).arrays[1].values.flags.writeable
    False
    """

    runs: np.ndarray
    events: tuple
    values: np.ndarray

    def frame(self) -> pd.DataFrame:
        """The group as a DataFrame (index ``run``, columns ``event``), sharing the values."""
        import pandas as pd

        runs = self.runs
        n = len(runs)
        if runs.dtype.kind in "iu" and (n == 0 or (runs[0] == 0 and runs[-1] == n - 1 and (np.diff(runs) == 1).all())):
            index: pd.Index = pd.RangeIndex(n, name="run")
        else:
            index = pd.Index(runs, name="run")
        return pd.DataFrame(self.values, index=index, columns=pd.Index(list(self.events), name="event"), copy=False)


def _q(value) -> str:
    """Quote an id for a message: ``'a'`` or ``3``, never ``np.int64(3)``."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _numeric_columns(table: pd.DataFrame, where: str) -> pd.DataFrame:
    """``table`` as float64, each non-numeric column parsed, or an error naming event, value and run."""
    import pandas as pd

    out = {}
    for event in table.columns:
        col = table[event]
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            num = pd.to_numeric(col, errors="coerce")
            bad = col[num.isna() & col.notna()]
            if len(bad):
                raise InputError(
                    f"{where}: event {_q(event)} has a non-numeric value {_q(bad.iloc[0])} in run {_q(bad.index[0])}"
                )
            col = num
        out[event] = col.astype(np.float64)
    return pd.DataFrame(out, index=table.index)


def _frame_values(gid: Hashable, table: Any, where: str) -> Group:
    """A DataFrame's runs, events and values (float32 if every column is, else float64; text parsed)."""
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise InputError(f"{where}: a group must be a DataFrame (runs x events) or a Group, got {type(table).__name__}")
    dup = table.columns[table.columns.duplicated()]
    if len(dup):
        raise InputError(f"{where}: event {_q(dup[0])} appears twice in the same group")
    if table.shape[1] == 0:
        raise InputError(f"{where}: has no events")
    dtypes = table.dtypes
    if all(d == np.float32 for d in dtypes):
        # float32 stays float32 (half the memory, the user's dtype back); every float32 value is
        # a float64 exactly, so computations upcast where they need to without losing anything
        values = table.to_numpy(dtype=np.float32)
    elif all(pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in dtypes):
        values = table.to_numpy(dtype=np.float64)  # one block, no per-column copies
    else:
        values = _numeric_columns(table, where).to_numpy()
    # a copy the caller cannot reach: readings never change when the caller's frame does
    return Group(np.array(table.index.to_numpy(), copy=True), tuple(table.columns), np.array(values, copy=True))


def first_repeat(items: Sequence | np.ndarray) -> Any:
    """The first item that repeats an earlier one, or None (run ids, event names, column names).

    Examples
    --------
    >>> first_repeat(["a", "b", "b", "a"]), first_repeat(np.array([3, 1, 2])), first_repeat([1, "x", 1])
    ('b', None, 1)
    >>> first_repeat([("cpu", 0), ("cpu", 1), ("cpu", 0)])
    ('cpu', 0)
    """
    if isinstance(items, np.ndarray):
        runs = items
    else:  # one object per item, also when an item is a tuple
        runs = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):
            runs[i] = item
    try:
        _, first = np.unique(runs, return_index=True)
    except TypeError:  # ids of mixed, unorderable kinds
        seen: set = set()
        for r in runs.tolist():
            if r in seen:
                return r
            seen.add(r)
        return None
    if len(first) == len(runs):
        return None
    repeat = np.ones(len(runs), dtype=bool)
    repeat[first] = False
    return runs[int(np.argmax(repeat))]


def unread_pairs_error(pairs: Sequence[tuple[Any, Any]], *, source: str = "", why: Any = None) -> InputError:
    """The error for pairs of events never read together: up to ten named, all in ``details``, the fix ``impute``.

    ``why(a, b)`` may say why a pair is unread (a constant event dropped from its only group).

    Examples
    --------
    >>> str(unread_pairs_error([("a", "b")], source="x.csv"))[:50]
    "x.csv: events 'a' and 'b' were never read together"
    """
    from hemkit.core.errors import Fix

    def reason(a: Any, b: Any) -> str:
        return why(a, b) if why is not None else ""

    def name(a: Any, b: Any) -> str:
        text = reason(a, b)
        return f"{_q(a)} and {_q(b)}" + (f" ({text})" if text else "")

    n = len(pairs)
    shown = "; ".join(name(a, b) for a, b in pairs[:10])
    more = f" (and {n - 10} more)" if n > 10 else ""
    head = "events" if n == 1 else f"{n} pairs of events were never read together:"
    its = "its correlation" if n == 1 else "their correlations"
    tail = " were never read together" if n == 1 else ""
    return InputError(
        f"{source + ': ' if source else ''}{head} {shown}{more}{tail}; "
        f"no merge can know {its}: add a group with both to the plan, or fill it from the others",
        fix=Fix("impute", "maxdet"),
        details=[f"{a}\t{b}\t{reason(a, b)}".rstrip("\t") for a, b in pairs] if n > 10 else None,
    )


def _check_group(gid: Hashable, group: Group, min_runs: int, source: str, drop_constant: bool = False) -> Group:
    where = f"{source}: group {_q(gid)}" if source else f"group {_q(gid)}"
    events = group.events
    dup = first_repeat(events) if len(set(events)) != len(events) else None
    if dup is not None:
        raise InputError(f"{where}: event {_q(dup)} appears twice in the same group")
    if not events:
        raise InputError(f"{where}: has no events")
    arr, runs = group.values, group.runs
    if arr.ndim != 2 or arr.shape != (len(runs), len(events)):
        raise InputError(f"{where}: values of shape {arr.shape} do not match {len(runs)} runs x {len(events)} events")
    if arr.dtype not in (np.float32, np.float64):
        if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
            raise InputError(f"{where}: values must be numbers, got {arr.dtype}")
        arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        r, c = np.argwhere(~np.isfinite(arr))[0]
        kind = "NaN" if np.isnan(arr[r, c]) else "an infinite value"
        raise InputError(f"{where}: event {_q(events[c])} has {kind} in run {_q(runs[r])}")
    if (arr < 0).any():
        r, c = np.argwhere(arr < 0)[0]
        raise InputError(f"{where}: event {_q(events[c])} has a negative count {arr[r, c]:g} in run {_q(runs[r])}")
    if len(arr) < min_runs:
        raise InputError(f"{where}: has {plural(len(arr), 'run')}; at least {min_runs} are needed")
    repeat = first_repeat(runs)
    if repeat is not None:
        raise InputError(f"{where}: run {_q(repeat)} appears twice")
    if drop_constant:
        const = np.ptp(arr, axis=0) == 0
        if const.any():
            dropped = [e for e, c in zip(events, const) if c]
            warnings.warn(
                f"{where}: dropped constant event(s) {', '.join(map(_q, dropped))}", HemkitWarning, stacklevel=3
            )
            gone = tuple((e, float(v)) for e, v, c in zip(events, arr[0], const) if c)
            arr = arr[:, ~const]
            events = tuple(e for e, c in zip(events, const) if not c)
            arr.flags.writeable = False
            runs.flags.writeable = False
            kept = Group(runs, events, arr)
            object.__setattr__(kept, "_dropped", gone)
            return kept
    arr.flags.writeable = False
    runs.flags.writeable = False
    return Group(runs, events, arr)


def _group_blocks(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Group ids and row bounds when each group's rows are contiguous (integer ids), else None."""
    if arr.dtype.kind not in "iu" or not len(arr):
        return None
    starts = np.r_[0, np.flatnonzero(arr[1:] != arr[:-1]) + 1]
    ids = arr[starts]
    if len(np.unique(ids)) != len(ids):  # a group comes back later: not contiguous
        return None
    return ids, np.r_[starts, len(arr)]


def _run_blocks(runs: np.ndarray, ev: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Run ids and event codes when rows come run by run, each run's events in one order, else None.

    Then the group's table is the values reshaped (runs x events), without hashing runs.
    Anything else (runs interleaved, events missing or repeated, a run id twice) is left to
    the general fill, which also names what is wrong.
    """
    m = len(runs)
    k = int(np.argmax(runs != runs[0])) or m
    if m % k or runs.dtype.kind not in "iu":
        return None
    r = runs.reshape(-1, k)
    e = ev.reshape(-1, k)
    if not ((r == r[:, :1]).all() and (e == e[0]).all() and len(np.unique(e[0])) == k):
        return None
    ids = r[:, 0]
    if len(ids) > 1 and not (ids[1:] > ids[:-1]).all() and len(np.unique(ids)) < len(ids):
        return None
    return ids, e[0]


def _laid_out_block(
    runs: np.ndarray, ev: np.ndarray, values: np.ndarray, names: Any
) -> tuple[np.ndarray, list, np.ndarray] | None:
    """One group's ``(run ids, events, runs x events values)`` when its rows are laid out, else None.

    Laid out: run by run, every run's events in one order (:func:`_run_blocks`), no NaN.
    ``values`` are the group's values in row order; ``names`` maps event codes to names.
    """
    laid_out = _run_blocks(runs, ev)
    if laid_out is None:
        return None
    r_ids, ev_order = laid_out
    block = values.reshape(len(r_ids), len(ev_order))
    if np.isnan(block).any():
        return None
    return r_ids.copy(), list(names[ev_order]), block  # r_ids: a view of the caller's


class FrozenGroups(Mapping):
    """A read-only mapping group id -> DataFrame that hands out copies.

    Each DataFrame is made on first use from the group's arrays (sharing them) and handed
    out as a shallow copy (pandas copy-on-write): free to take, and writing into one never
    changes the readings it came from.
    """

    __slots__ = ("_frames", "_groups")

    def __init__(self, groups: Mapping[Hashable, Group]):
        self._groups = dict(groups)
        self._frames: dict[Hashable, pd.DataFrame] = {}

    def __getitem__(self, gid: Hashable) -> pd.DataFrame:
        frame = self._frames.get(gid)
        if frame is None:
            frame = self._frames[gid] = self._groups[gid].frame()
        return frame.copy(deep=False)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._groups)

    def __len__(self) -> int:
        return len(self._groups)

    def __repr__(self) -> str:
        return f"FrozenGroups({list(self._groups)!r})"


@dataclass(frozen=True, eq=False)
class Readings:
    """Readings of several groups of events, each a table of runs x events.

    Parameters
    ----------
    groups : mapping of group id -> DataFrame or Group
        One table per group: index = run ids, columns = event names, numeric counts (or a
        :class:`Group` of arrays, which needs no pandas).
    source : str, optional
        Where the readings came from (a file name); used in error messages.
    min_runs : int, default 3
        Fewest runs a group may have.
    drop_constant : bool, default False
        Drop events that are constant within a group (with a warning; a group left without
        events is dropped).  By default they are kept as the data they are (see
        :attr:`constant`); what needs variation (a merge) refuses them.

    A group whose every column is float32 is kept float32 (e.g. a float32 Parquet column:
    half the memory, and merged columns come back float32, see :attr:`event_dtypes`); any
    other group (integers, float64, a mix, parsed text) is float64.  Every float32 value is
    exactly a float64, so the methods compute in float64 where accuracy needs it.

    Readings are immutable: they keep their own read-only arrays (:attr:`arrays`), and
    ``readings[g]`` and ``readings.groups[g]`` hand out DataFrame copies, so writing into
    one never changes the readings.

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit import Readings
    >>> g1 = pd.DataFrame({"cycles": [10, 12, 11], "instructions": [5, 6, 7]})
    >>> g2 = pd.DataFrame({"cycles": [9, 13, 12], "branches": [1, 3, 2]})
    >>> r = Readings({1: g1, 2: g2})
    >>> r.events
    ['cycles', 'instructions', 'branches']
    >>> r.to_tidy().head(2)
       group  run         event  value
    0      1    0        cycles   10.0
    1      1    0  instructions    5.0
    """

    groups: Mapping[Any, Any]
    source: str = ""
    min_runs: int = 3
    drop_constant: bool = False
    _events: tuple = field(init=False, repr=False)
    _arrays: Mapping[Any, Group] = field(init=False, repr=False)
    _dropped: tuple = field(init=False, repr=False, default=())

    def __post_init__(self) -> None:
        if not self.groups:
            raise InputError(f"{self.source or 'readings'}: no groups")
        checked = {gid: self._checked(gid, t) for gid, t in self.groups.items()}
        dropped = [(gid, e, v) for gid, g in checked.items() for e, v in getattr(g, "_dropped", ())]
        object.__setattr__(self, "_dropped", tuple(dropped))
        checked = {gid: g for gid, g in checked.items() if g.events}
        if not checked:
            raise InputError(f"{self.source or 'readings'}: every event is constant in every run of its group")
        object.__setattr__(self, "_arrays", MappingProxyType(checked))
        object.__setattr__(self, "groups", FrozenGroups(checked))
        events: dict[str, None] = {}
        for g in checked.values():
            events.update(dict.fromkeys(g.events))
        object.__setattr__(self, "_events", tuple(events))

    def _checked(self, gid: Hashable, table: Any) -> Group:
        where = f"{self.source}: group {_q(gid)}" if self.source else f"group {_q(gid)}"
        if isinstance(table, Group):
            owned = getattr(table, "_owned", False)  # made here by hemkit: the arrays are nobody else's
            runs, values = np.asarray(table.runs), np.asarray(table.values)
            group = (
                table if owned else Group(np.array(runs, copy=True), tuple(table.events), np.array(values, copy=True))
            )
        else:
            group = _frame_values(gid, table, where)
        return _check_group(gid, group, self.min_runs, self.source, self.drop_constant)

    @classmethod
    def from_arrays(
        cls,
        groups: Mapping[Any, tuple[np.ndarray, Sequence, np.ndarray]],
        *,
        source: str = "",
        copy: bool = True,
        **kwargs: Any,
    ) -> Readings:
        """Readings from ``gid -> (runs, events, values)`` arrays, checked as any readings are (no pandas).

        ``copy=False`` hands the arrays over without copying them (a reader that made them
        for this): they become read-only, and nobody may change them afterwards.
        ``kwargs`` are ``min_runs`` and ``drop_constant``.

        Examples
        --------
        >>> r = Readings.from_arrays({1: (np.arange(3), ["a", "b"], np.array([[1.0, 4], [2, 5], [3, 7]]))})
        >>> r.events, r.arrays[1].values.flags.writeable
        (['a', 'b'], False)
        """
        made = {}
        for gid, (runs, events, values) in groups.items():
            g = Group(np.asarray(runs), tuple(events), np.asarray(values))
            if not copy:  # the constructor copies any other Group
                object.__setattr__(g, "_owned", True)
            made[gid] = g
        return cls(made, source=source, **kwargs)

    def __reduce__(self) -> tuple:
        """Pickle and deep-copy as the arrays (checked again on the way back)."""
        groups = {g: (grp.runs, grp.events, grp.values) for g, grp in self._arrays.items()}
        return (_restore, (groups, self.source, self.min_runs))

    # ------------------------------------------------------------------ views
    @property
    def arrays(self) -> Mapping[Hashable, Group]:
        """Group id -> :class:`Group` (run ids, events, read-only values): the readings without pandas."""
        return self._arrays

    @property
    def run_counts(self) -> dict[Hashable, int]:
        """Group id -> number of runs (as :attr:`n_runs`, without pandas)."""
        return {gid: len(g.runs) for gid, g in self._arrays.items()}

    def dtype_of(self, event: Hashable) -> np.dtype:
        """float32 if every group that read ``event`` is float32, else float64 (see :attr:`event_dtypes`)."""
        f32 = all(g.values.dtype == np.float32 for g in self._arrays.values() if event in g.events)
        return np.dtype(np.float32 if f32 else np.float64)

    def pooled(self, event: Hashable, dtype: Any = None) -> np.ndarray:
        """Every reading of ``event``, group after group (in group order), as one array."""
        parts = [g.values[:, g.events.index(event)] for g in self._arrays.values() if event in g.events]
        return np.concatenate(parts, dtype=dtype)

    @property
    def constant(self) -> tuple[tuple[Hashable, str, float], ...]:
        """``(group, event, value)`` of every event constant in every run of a group, in group order.

        Examples
        --------
        >>> import pandas as pd
        >>> Readings({7: pd.DataFrame({"a": [1.0, 2, 3], "b": [0.0, 0, 0]})}).constant
        ((7, 'b', 0.0),)
        """
        found = []
        for gid, g in self._arrays.items():
            if len(g.values):
                const = np.flatnonzero(np.ptp(g.values, axis=0) == 0)
                found += [(gid, g.events[c], float(g.values[0, c])) for c in const]
        return tuple(found)

    @property
    def dropped_constant(self) -> tuple[tuple[Hashable, str, float], ...]:
        """``(group, event, value)`` of every constant event ``drop_constant=True`` dropped on reading.

        Examples
        --------
        >>> import pandas as pd, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     r = Readings({1: pd.DataFrame({"a": [1.0, 2, 3], "b": [0.0, 0, 0]})}, drop_constant=True)
        >>> r.dropped_constant, r.events
        (((1, 'b', 0.0),), ['a'])
        """
        return self._dropped

    def check_varying(self, purpose: str = "a merge") -> None:
        """Raise :class:`InputError` naming every event constant within a group (``purpose`` needs variation).

        The error carries the fix ``drop_constant=True`` (drop them on reading) and, where
        dropping them would leave a pair of events never read together, names that pair and
        the group whose constant event was its only reading.

        Examples
        --------
        >>> import pandas as pd
        >>> r = Readings({1: pd.DataFrame({"a": [1.0, 2, 3], "b": [4.0, 4, 4]})}, source="x.csv")
        >>> try:
        ...     r.check_varying()
        ... except InputError as exc:
        ...     print(exc.message.split("; ")[0], exc.fixes)
        x.csv: event 'b' is constant (4) in every run of group 1 (Fix(param='drop_constant', value=True),)
        """
        const = self.constant
        if not const:
            return
        from hemkit.core.errors import Fix

        where = f"{self.source}: " if self.source else ""
        by_event: dict[str, list] = {}
        for g, e, v in const:
            by_event.setdefault(e, []).append((g, v))
        parts = []
        for e, found in by_event.items():
            values = sorted({format_count(v) for _, v in found})
            groups = ", ".join(_q(g) for g, _ in found[:8]) + (f" ... ({len(found)} groups)" if len(found) > 8 else "")
            parts.append(
                f"event {_q(e)} is constant ({', '.join(values[:3])}) in every run of "
                f"group{'s' if len(found) > 1 else ''} {groups}"
            )
        lost = self.pairs_lost_by_dropping()
        fixes = [Fix("drop_constant", True)]
        why = ""
        if lost:
            (a, b), (g, e) = next(iter(lost.items()))
            n = len(lost)
            why = (
                f"; dropping them leaves {n} pair{'s' if n > 1 else ''} never read together, e.g. {_q(a)} and "
                f"{_q(b)} (constant {_q(e)} in group {_q(g)} was their only reading together), to be filled "
                "from the others"
            )
            fixes.append(Fix("impute", "maxdet"))
        raise InputError(
            f"{where}{'; '.join(parts)}; {purpose} cannot use an event constant within a group "
            f"(it shows no correlation){why}",
            fix=fixes,
        )

    def pairs_lost_by_dropping(self) -> dict[tuple[str, str], tuple[Hashable, str]]:
        """Pairs read together only where one of them is constant: ``(a, b) -> (group, constant event)``.

        Dropping the constant events (``drop_constant=True``) leaves these pairs never read
        together; a merge then needs them imputed.

        Examples
        --------
        >>> import pandas as pd
        >>> r = Readings({1: pd.DataFrame({"a": [1.0, 2, 3], "b": [0.0, 0, 0]}),
        ...               2: pd.DataFrame({"a": [1.0, 2, 5], "b": [1.0, 0, 2]}),
        ...               3: pd.DataFrame({"a": [1.0, 3, 2], "c": [0.0, 0, 0]}),
        ...               4: pd.DataFrame({"b": [1.0, 3, 2], "c": [0.0, 1, 0]})})
        >>> r.pairs_lost_by_dropping()  # a-b stays read in group 2; a-c only in group 3, where c is constant
        {('a', 'c'): (3, 'c')}
        """
        varying: set[tuple[str, str]] = set()
        only: dict[tuple[str, str], tuple[Hashable, str]] = {}
        const = set((g, e) for g, e, _ in self.constant)
        order = {e: i for i, e in enumerate(self._events)}
        for gid, g in self._arrays.items():
            ev = sorted(g.events, key=order.__getitem__)
            for i, a in enumerate(ev):
                for b in ev[i + 1 :]:
                    if (gid, a) in const or (gid, b) in const:
                        only.setdefault((a, b), (gid, a if (gid, a) in const else b))
                    else:
                        varying.add((a, b))
        everywhere = self.constant_everywhere()
        return {
            pair: why
            for pair, why in only.items()
            if pair not in varying and pair[0] not in everywhere and pair[1] not in everywhere
        }

    def constant_everywhere(self) -> list[str]:
        """Events constant in every run of every group that read them (their merged column would be constant)."""
        const = {(g, e) for g, e, _ in self.constant}
        return [e for e in self._events if all((g, e) in const for g, grp in self._arrays.items() if e in grp.events)]

    @property
    def events(self) -> list[str]:
        """All events, in order of first appearance."""
        return list(self._events)

    @property
    def group_ids(self) -> list[Hashable]:
        """Group ids in their order."""
        return list(self._arrays)

    @property
    def n_runs(self) -> pd.Series:
        """Number of runs of each group."""
        import pandas as pd

        return pd.Series(self.run_counts, name="runs")

    @property
    def event_dtypes(self) -> pd.Series:
        """Per event the dtype of its readings: float32 if every group that read it is float32, else float64.

        Examples
        --------
        >>> import pandas as pd
        >>> g1 = pd.DataFrame({"a": [1, 2, 3], "b": [3, 1, 2]}, dtype="float32")
        >>> g2 = pd.DataFrame({"b": [1.0, 2, 3], "c": [3.0, 1, 2]})
        >>> Readings({1: g1, 2: g2}).event_dtypes.astype(str).tolist()
        ['float32', 'float64', 'float64']
        """
        import pandas as pd

        return pd.Series({e: self.dtype_of(e) for e in self._events}, dtype=object, name="dtype")

    def __len__(self) -> int:
        return len(self._arrays)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._arrays)

    def __getitem__(self, gid: Hashable) -> pd.DataFrame:
        return self.groups[gid]

    def __repr__(self) -> str:
        n = self.run_counts.values()
        return f"Readings({len(self._arrays)} groups, {len(self._events)} events, {min(n)}-{max(n)} runs per group)"

    def _membership(self) -> np.ndarray:
        index = {e: i for i, e in enumerate(self._events)}
        m = np.zeros((len(self._arrays), len(self._events)), dtype=bool)
        for row, g in enumerate(self._arrays.values()):
            m[row, [index[e] for e in g.events]] = True
        return m

    def membership(self) -> pd.DataFrame:
        """Boolean table groups x events: which group read which event."""
        import pandas as pd

        return pd.DataFrame(self._membership(), index=pd.Index(self.group_ids, name="group"), columns=self.events)

    def coverage(self) -> pd.DataFrame:
        """Events x events: in how many groups each pair of events was read together."""
        import pandas as pd

        m = self._membership().astype(np.int64)
        return pd.DataFrame(m.T @ m, index=self.events, columns=self.events)

    def missing_pairs(self) -> list[tuple[str, str]]:
        """Pairs of events never read together in any group."""
        m = self._membership().astype(np.int64)
        i, j = np.nonzero(np.triu(m.T @ m == 0, 1))
        ev = self.events
        return [(ev[a], ev[b]) for a, b in zip(i, j)]

    def why_missing(self, a: str, b: str) -> str:
        """Why ``a`` and ``b`` are never read together: the constant event dropped from their only group, or ''."""
        dropped = {(g, e) for g, e, _ in self._dropped}
        for gid, e, _ in self._dropped:  # in group order: the first group that explains it
            other = b if e == a else a if e == b else None
            if other is None:
                continue
            grp = self._arrays.get(gid)
            if (grp is not None and other in grp.events) or (gid, other) in dropped:
                return f"dropping constant {_q(e)} in group {_q(gid)} removed the only reading of {_q(a)} with {_q(b)}"
        return ""

    def check_pairs(self, impute: str | None = None) -> list[tuple[str, str]]:
        """The pairs never read together; raise :class:`InputError` naming them all unless ``impute`` fills them.

        The message names up to ten pairs (every pair is in the error's ``details``), says for
        each why it is unread when a dropped constant event explains it, and carries the fix
        ``impute='maxdet'``.

        Examples
        --------
        >>> import pandas as pd
        >>> r = Readings({1: pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]}),
        ...               2: pd.DataFrame({"a": [1.0, 2, 3], "c": [3.0, 1, 2]})})
        >>> r.check_pairs("maxdet")
        [('b', 'c')]
        >>> try:
        ...     r.check_pairs()
        ... except InputError as exc:
        ...     print(str(exc)[:43], "...", str(exc)[-20:])
        events 'b' and 'c' were never read together ... pass impute='maxdet'
        """
        missing = self.missing_pairs()
        if not missing or impute is not None:
            return missing
        raise unread_pairs_error(missing, source=self.source, why=self.why_missing)

    def check_anchor(self, anchor: str) -> None:
        """Raise unless ``anchor`` is read in every group."""
        if anchor not in self._events:
            from hemkit.core.checks import did_you_mean

            where = f"{self.source}: " if self.source else ""
            raise InputError(
                f"{where}unknown anchor {_q(anchor)}: not among the events ({', '.join(self._events[:8])}"
                f"{', ...' if len(self._events) > 8 else ''}){did_you_mean(str(anchor), self._events)}"
            )
        for g, grp in self._arrays.items():
            if anchor not in grp.events:
                raise InputError(f"anchor {_q(anchor)} is not read in group {_q(g)}; HRM needs it in every group")

    # ------------------------------------------------------------ conversions
    @classmethod
    def from_tidy(
        cls, table: pd.DataFrame, *, source: str = "", min_runs: int = 3, drop_constant: bool = False
    ) -> Readings:
        """Build from a tidy table with columns ``group, run, event, value``.

        Extra columns are ignored.  Every (group, run) must have a value for every event of
        its group; a missing one is an error naming group, run and event.  A float32 ``value``
        column gives float32 groups; any other gives float64 groups.
        """
        import pandas as pd

        where = source or "tidy table"
        missing = [c for c in TIDY_COLUMNS if c not in table.columns]
        if missing:
            raise InputError(f"{where}: missing column(s) {', '.join(missing)}; expected {', '.join(TIDY_COLUMNS)}")
        if table.empty:
            raise InputError(f"{where}: has no rows")
        t = table.loc[:, list(TIDY_COLUMNS)]
        for c in ("group", "run", "event"):
            if t[c].isna().any():
                raise InputError(f"{where}: column {_q(c)} has an empty value in row {int(np.argmax(t[c].isna()))}")
        values = pd.to_numeric(t["value"], errors="coerce")
        bad = values.isna() & t["value"].notna()
        if bad.any():
            row = t[bad].iloc[0]
            raise InputError(
                f"{where}: event {_q(row['event'])} has a non-numeric value {_q(row['value'])} "
                f"in run {_q(row['run'])} of group {_q(row['group'])}"
            )
        # one factorize per column and a dense fill per group (no hashing of row triples, no
        # pivot); rows already laid out group by group and run by run (as hemkit and most
        # tools write them) skip the factorize of groups and runs: 6e6 rows in a fraction of a second
        dtype = np.float32 if values.dtype == np.float32 else np.float64
        # a copy: the groups are views of it, and the caller's table may change later
        value = np.array(values.to_numpy(dtype=dtype, na_value=np.nan), copy=True)
        e_codes, e_names = pd.factorize(t["event"], sort=False)
        runs_col = t["run"].to_numpy()
        g_col = t["group"]
        blocks = _group_blocks(g_col.to_numpy()) if pd.api.types.is_integer_dtype(g_col.dtype) else None
        spans: list[Any]  # per group its rows: an index array, or a slice when they are contiguous
        if blocks is None:
            g_codes, g_ids = pd.factorize(t["group"], sort=False)
            order = np.argsort(g_codes, kind="stable")
            bounds = np.searchsorted(g_codes[order], np.arange(len(g_ids) + 1))
            spans = [order[bounds[gi] : bounds[gi + 1]] for gi in range(len(g_ids))]
        else:
            g_ids, starts = blocks
            spans = [slice(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:])]
        groups: dict[Any, tuple[np.ndarray, list, np.ndarray]] = {}
        for gid, rows in zip(g_ids, spans):  # a loop over groups; each step is vectorised over rows
            ev = e_codes[rows]
            fast = _laid_out_block(runs_col[rows], ev, value[rows], e_names)
            if fast is not None:
                groups[gid] = fast
                continue
            r_codes, r_ids = pd.factorize(runs_col[rows], sort=False)
            present, first = np.unique(ev, return_index=True)
            ev_order = present[np.argsort(first)]  # events in order of first appearance
            local = np.empty(len(e_names), dtype=np.int64)
            local[ev_order] = np.arange(len(ev_order))
            ec = local[ev]
            k = len(ev_order)
            cell = r_codes.astype(np.int64) * k + ec
            counts = np.bincount(cell, minlength=len(r_ids) * k)
            if (counts > 1).any():
                ri, ci = divmod(int(np.argmax(counts > 1)), k)
                event, run = _q(e_names[ev_order[ci]]), _q(r_ids[ri])
                raise InputError(f"{where}: event {event} is read twice in run {run} of group {_q(gid)}")
            flat = np.full(len(r_ids) * k, np.nan, dtype=value.dtype)
            flat[cell] = value[rows]
            dense = flat.reshape(len(r_ids), k)
            holes = np.isnan(dense)
            if holes.any():
                ri, ci = (int(x) for x in np.argwhere(holes)[0])
                what = "has NaN" if counts[ri * k + ci] else "is missing"
                raise InputError(
                    f"{where}: event {_q(e_names[ev_order[ci]])} {what} in run {_q(r_ids[ri])} of group {_q(gid)}"
                )
            groups[gid] = (np.asarray(r_ids), list(e_names[ev_order]), dense)
        return cls.from_arrays(groups, source=source, min_runs=min_runs, drop_constant=drop_constant, copy=False)

    @classmethod
    def from_laid_out(
        cls,
        columns: Mapping[str, np.ndarray],
        event_names: Sequence[str],
        *,
        source: str = "",
        min_runs: int = 3,
        drop_constant: bool = False,
    ) -> Readings | None:
        """Readings from the tidy columns as NumPy arrays, when they are laid out as hemkit writes them.

        ``columns`` holds ``group``, ``run``, ``event`` (codes indexing ``event_names``) and
        ``value``.  Laid out: integer group ids whose rows are contiguous, each group's rows
        run by run with integer run ids, every run of a group with its events in one order,
        no NaN.  Then each group's table is its values reshaped (runs x events): no hashing,
        no pandas (a Parquet reader hands its columns straight over).  Anything else returns
        None, and the caller reads the table through :meth:`from_tidy`, which also names what
        is wrong.  A float32 ``value`` gives float32 groups.

        Examples
        --------
        >>> cols = {"group": np.array([1, 1, 1, 1]), "run": np.array([0, 0, 1, 1]),
        ...         "event": np.array([0, 1, 0, 1]), "value": np.array([1.0, 5, 2, 7])}
        >>> r = Readings.from_laid_out(cols, ["a", "b"], min_runs=2)
        >>> r.events, r.arrays[1].values.tolist()
        (['a', 'b'], [[1.0, 5.0], [2.0, 7.0]])
        >>> Readings.from_laid_out({**cols, "event": np.zeros(4, int)}, ["a"]) is None
        True
        """
        group, run, event_codes, value = (np.asarray(columns[c]) for c in TIDY_COLUMNS)
        blocks = _group_blocks(np.asarray(group))
        if blocks is None or run.dtype.kind not in "iu" or len(run) != len(group):
            return None
        if value.dtype.kind not in "fiu" or len(value) != len(group) or len(event_codes) != len(group):
            return None
        dtype = np.float32 if value.dtype == np.float32 else np.float64
        names = np.asarray(event_names, dtype=object)
        groups: dict[Any, tuple[np.ndarray, list, np.ndarray]] = {}
        g_ids, starts = blocks
        for gid, a, b in zip(g_ids, starts[:-1], starts[1:]):
            fast = _laid_out_block(run[a:b], event_codes[a:b], np.array(value[a:b], dtype=dtype), names)
            if fast is None:
                return None
            groups[gid] = fast
        return cls.from_arrays(groups, source=source, min_runs=min_runs, drop_constant=drop_constant, copy=False)

    def to_tidy(self) -> pd.DataFrame:
        """The tidy table ``group, run, event, value`` (one row per reading)."""
        import pandas as pd

        parts = []
        for g, grp in self._arrays.items():
            n, k = grp.values.shape
            parts.append(
                pd.DataFrame(
                    {
                        "group": np.repeat(np.array([g], dtype=object), n * k),
                        "run": np.repeat(grp.runs, k),
                        "event": np.tile(np.array(grp.events, dtype=object), n),
                        "value": grp.values.ravel(),
                    }
                )
            )
        out = pd.concat(parts, ignore_index=True)
        out["group"] = pd.Series(out["group"].tolist())  # restore a natural dtype (int/str)
        return out

    # ---------------------------------------------------------------- editing
    def select_events(self, events: Sequence[str]) -> Readings:
        """Keep only ``events`` (groups left with none are dropped)."""
        unknown = [e for e in events if e not in self._events]
        if unknown:
            raise InputError(f"unknown event {_q(unknown[0])}")
        wanted = set(events)
        keep = {}
        for g, grp in self._arrays.items():
            cols = [j for j, e in enumerate(grp.events) if e in wanted]
            if cols:
                keep[g] = (grp.runs.copy(), [grp.events[j] for j in cols], grp.values[:, cols])
        return Readings.from_arrays(keep, source=self.source, min_runs=self.min_runs, copy=False)

    def split_runs(self, fraction: float = 0.5, *, seed: int | None = 0) -> tuple[Readings, Readings]:
        """Split each group's runs at random into two disjoint parts.

        Used by the holdout evaluation: merge one part, measure the other.  Raises
        :class:`InputError` when a part has too few runs, or an event constant within a group
        of a part (its correlations there would be undefined).
        """
        if not 0 < fraction < 1:
            raise InputError(f"fraction must be in (0, 1), got {fraction}")
        rng = np.random.default_rng(seed)
        a, b = {}, {}
        for g, grp in self._arrays.items():
            n = len(grp.runs)
            k = int(round(fraction * n))
            if min(k, n - k) < self.min_runs:  # said of the group, which has n runs, not of a part
                raise InputError(
                    f"cannot split the runs in two parts: {self.source + ': ' if self.source else ''}group {_q(g)} "
                    f"has {n} runs, parts of {k} and {n - k}; each part needs at least {self.min_runs} runs"
                )
            perm = rng.permutation(n)
            first, rest = np.sort(perm[:k]), np.sort(perm[k:])
            a[g] = (grp.runs[first], grp.events, grp.values[first])
            b[g] = (grp.runs[rest], grp.events, grp.values[rest])
        try:
            kw: dict[str, Any] = {"source": self.source, "min_runs": self.min_runs, "copy": False}
            parts = Readings.from_arrays(a, **kw), Readings.from_arrays(b, **kw)
            self._check_varying_in_parts(parts)
            for part in parts:  # both parts are for correlations: an event must vary in each
                part.check_varying("a correlation in each part")
            return parts
        except InputError as exc:
            raise exc.reworded(f"cannot split the runs in two parts: {exc.message}") from exc

    def _check_varying_in_parts(self, parts: tuple[Readings, Readings]) -> None:
        """Refuse an event that varies within a group but is constant in one part of it (split by chance).

        ``drop_constant`` cannot help there (it drops events constant in the whole group), so the
        error says what is wrong and what does help: another split, more runs, or no such event.
        """
        whole = {(g, e) for g, e, _ in self.constant}
        for part in parts:
            for g, e, v in part.constant:
                if (g, e) in whole:
                    continue  # constant in the whole group: check_varying says so, with drop_constant
                grp = self._arrays[g]
                col = grp.values[:, grp.events.index(e)]
                values, counts = np.unique(col, return_counts=True)
                others = len(col) - int(counts.max())
                where = f"{self.source}: " if self.source else ""
                raise InputError(
                    f"{where}event {_q(e)} varies in group {_q(g)} but is constant ({format_count(v)}) in the "
                    f"{part.run_counts[g]} runs of one part (of the group's {len(col)} runs, only {others} differ "
                    f"from {format_count(values[counts.argmax()])}); a correlation in each part needs it to vary in "
                    f"both, and dropping constant events does not drop it: another seed may split it so, as may more "
                    f"runs of group {_q(g)}; or leave the event out"
                )


def _restore(groups: dict, source: str, min_runs: int) -> Readings:
    """Readings back from :meth:`Readings.__reduce__` (the arrays are fresh copies: no copy needed)."""
    return Readings.from_arrays(groups, source=source, min_runs=min_runs, copy=False)
