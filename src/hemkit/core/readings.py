"""The readings model: several groups, each a table of runs x events.

A *group* (a "sub-experiment" in the HRM/MUCH papers) is one set of events that were read
together, run after run.  Rows of different groups are **different runs**: row k of one
group has nothing to do with row k of another.  :class:`Readings` holds one
``runs x events`` :class:`pandas.DataFrame` per group and converts to and from the tidy
table with columns exactly ``group, run, event, value`` that every area of hemkit reads
and writes.

Construction validates the data and raises :class:`hemkit.InputError` naming the
culprit: a duplicate event in a group, NaN/inf, non-numeric or negative counts, an
event that is constant within a group, a group with fewer than ``min_runs`` runs.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning, InputError

TIDY_COLUMNS = ("group", "run", "event", "value")


def _q(value) -> str:
    """Quote an id for a message: ``'a'`` or ``3``, never ``np.int64(3)``."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _numeric_columns(table: pd.DataFrame, where: str) -> pd.DataFrame:
    """``table`` as float64, each non-numeric column parsed, or an error naming event, value and run."""
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


def _check_group(
    gid: Hashable, table: pd.DataFrame, min_runs: int, source: str, drop_constant: bool = False
) -> pd.DataFrame:
    where = f"{source}: group {_q(gid)}" if source else f"group {_q(gid)}"
    dup = table.columns[table.columns.duplicated()]
    if len(dup):
        raise InputError(f"{where}: event {_q(dup[0])} appears twice in the same group")
    if table.shape[1] == 0:
        raise InputError(f"{where}: has no events")
    dtypes = table.dtypes
    if all(d == np.float32 for d in dtypes):
        # float32 stays float32 (half the memory, the user's dtype back); every float32 value is
        # a float64 exactly, so computations upcast where they need to without losing anything
        values = table.astype(np.float32)
    elif all(pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in dtypes):
        values = table.astype(np.float64)  # one block, no per-column copies (6e5 x 6 in milliseconds)
    else:
        values = _numeric_columns(table, where)
    arr = values.to_numpy()
    if not np.isfinite(arr).all():
        r, c = np.argwhere(~np.isfinite(arr))[0]
        kind = "NaN" if np.isnan(arr[r, c]) else "an infinite value"
        raise InputError(f"{where}: event {_q(values.columns[c])} has {kind} in run {_q(values.index[r])}")
    if (arr < 0).any():
        r, c = np.argwhere(arr < 0)[0]
        raise InputError(
            f"{where}: event {_q(values.columns[c])} has a negative count {arr[r, c]:g} in run {_q(values.index[r])}"
        )
    if len(values) < min_runs:
        raise InputError(f"{where}: has {len(values)} runs; at least {min_runs} are needed")
    if values.index.has_duplicates:
        raise InputError(f"{where}: run {_q(values.index[values.index.duplicated()][0])} appears twice")
    const = np.ptp(arr, axis=0) == 0
    if const.any() and drop_constant:
        dropped = list(values.columns[const])
        warnings.warn(f"{where}: dropped constant event(s) {', '.join(map(_q, dropped))}", HemkitWarning, stacklevel=3)
        values = values.loc[:, ~const]
    elif const.any():
        e = values.columns[np.argmax(const)]
        raise InputError(
            f"{where}: event {_q(e)} is constant ({arr[0, np.argmax(const)]:g}) in every run; "
            "it carries no correlation information, drop it"
        )
    values.index.name = "run"
    values.columns.name = "event"
    return values


def _group_blocks(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """Group ids and row bounds when each group's rows are contiguous (numeric ids), else None."""
    if not pd.api.types.is_integer_dtype(col.dtype):
        return None
    arr = col.to_numpy()
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
    if m % k or not pd.api.types.is_integer_dtype(runs.dtype):
        return None
    r = runs.reshape(-1, k)
    e = ev.reshape(-1, k)
    if not ((r == r[:, :1]).all() and (e == e[0]).all() and len(np.unique(e[0])) == k):
        return None
    ids = r[:, 0]
    if len(ids) > 1 and not (ids[1:] > ids[:-1]).all() and pd.Index(ids).has_duplicates:
        return None
    return ids, e[0]


class FrozenGroups(Mapping):
    """A read-only mapping group id -> DataFrame that hands out copies.

    The copies are shallow (pandas copy-on-write): free to take, and writing into one never
    changes the readings it came from.
    """

    __slots__ = ("_frames",)

    def __init__(self, frames: Mapping[Hashable, pd.DataFrame]):
        self._frames = dict(frames)

    def __getitem__(self, gid: Hashable) -> pd.DataFrame:
        return self._frames[gid].copy(deep=False)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._frames)

    def __len__(self) -> int:
        return len(self._frames)

    def __repr__(self) -> str:
        return f"FrozenGroups({list(self._frames)!r})"


@dataclass(frozen=True, eq=False)
class Readings:
    """Readings of several groups of events, each a table of runs x events.

    Parameters
    ----------
    groups : mapping of group id -> DataFrame
        One table per group: index = run ids, columns = event names, numeric counts.
    source : str, optional
        Where the readings came from (a file name); used in error messages.
    min_runs : int, default 3
        Fewest runs a group may have.
    drop_constant : bool, default False
        Drop events that are constant within a group (with a warning; a group left without
        events is dropped) instead of raising.  Such events carry no correlation information.

    A group whose every column is float32 is kept float32 (e.g. a float32 Parquet column:
    half the memory, and merged columns come back float32, see :attr:`event_dtypes`); any
    other group (integers, float64, a mix, parsed text) is float64.  Every float32 value is
    exactly a float64, so the methods compute in float64 where accuracy needs it.

    Readings are immutable: ``readings[g]`` and ``readings.groups[g]`` hand out copies, so
    writing into one never changes the readings.

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

    groups: Mapping[Any, pd.DataFrame]
    source: str = ""
    min_runs: int = 3
    drop_constant: bool = False
    _events: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.groups:
            raise InputError(f"{self.source or 'readings'}: no groups")
        checked = {
            gid: _check_group(gid, t, self.min_runs, self.source, self.drop_constant) for gid, t in self.groups.items()
        }
        checked = {gid: t for gid, t in checked.items() if t.shape[1]}
        if not checked:
            raise InputError(f"{self.source or 'readings'}: every event is constant")
        object.__setattr__(self, "groups", FrozenGroups(checked))
        events: dict[str, None] = {}
        for t in checked.values():
            events.update(dict.fromkeys(t.columns))
        object.__setattr__(self, "_events", tuple(events))

    # ------------------------------------------------------------------ views
    @property
    def events(self) -> list[str]:
        """All events, in order of first appearance."""
        return list(self._events)

    @property
    def group_ids(self) -> list[Hashable]:
        """Group ids in their order."""
        return list(self.groups)

    @property
    def n_runs(self) -> pd.Series:
        """Number of runs of each group."""
        return pd.Series({g: len(t) for g, t in self.groups.items()}, name="runs")

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
        single = dict.fromkeys(self._events, True)
        for t in self.groups.values():
            f32 = bool((t.dtypes == np.float32).all())
            for e in t.columns:
                single[e] = single[e] and f32
        return pd.Series(
            {e: np.dtype(np.float32 if f else np.float64) for e, f in single.items()}, dtype=object, name="dtype"
        )

    def __len__(self) -> int:
        return len(self.groups)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.groups)

    def __getitem__(self, gid: Hashable) -> pd.DataFrame:
        return self.groups[gid]

    def __repr__(self) -> str:
        n = self.n_runs
        return (
            f"Readings({len(self.groups)} groups, {len(self._events)} events, "
            f"{int(n.min())}-{int(n.max())} runs per group)"
        )

    def membership(self) -> pd.DataFrame:
        """Boolean table groups x events: which group read which event."""
        m = pd.DataFrame(False, index=pd.Index(self.group_ids, name="group"), columns=self.events)
        for g, t in self.groups.items():
            m.loc[g, list(t.columns)] = True
        return m

    def coverage(self) -> pd.DataFrame:
        """Events x events: in how many groups each pair of events was read together."""
        m = self.membership().to_numpy(dtype=np.int64)
        c = m.T @ m
        return pd.DataFrame(c, index=self.events, columns=self.events)

    def missing_pairs(self) -> list[tuple[str, str]]:
        """Pairs of events never read together in any group."""
        c = self.coverage().to_numpy()
        i, j = np.nonzero(np.triu(c == 0, 1))
        ev = self.events
        return [(ev[a], ev[b]) for a, b in zip(i, j)]

    def check_anchor(self, anchor: str) -> None:
        """Raise unless ``anchor`` is read in every group."""
        if anchor not in self._events:
            raise InputError(
                f"unknown anchor {_q(anchor)}: not among the events ({', '.join(self._events[:8])}"
                f"{', ...' if len(self._events) > 8 else ''})"
            )
        for g, t in self.groups.items():
            if anchor not in t.columns:
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
        value = values.to_numpy(dtype=dtype, na_value=np.nan)
        e_codes, e_names = pd.factorize(t["event"], sort=False)
        runs_col = t["run"].to_numpy()
        blocks = _group_blocks(t["group"])
        spans: list[Any]  # per group its rows: an index array, or a slice when they are contiguous
        if blocks is None:
            g_codes, g_ids = pd.factorize(t["group"], sort=False)
            order = np.argsort(g_codes, kind="stable")
            bounds = np.searchsorted(g_codes[order], np.arange(len(g_ids) + 1))
            spans = [order[bounds[gi] : bounds[gi + 1]] for gi in range(len(g_ids))]
        else:
            g_ids, starts = blocks
            spans = [slice(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:])]
        groups = {}
        for gid, rows in zip(g_ids, spans):  # a loop over groups; each step is vectorised over rows
            ev = e_codes[rows]
            laid_out = _run_blocks(runs_col[rows], ev)
            if laid_out is not None:
                r_ids, ev_order = laid_out
                wide = pd.DataFrame(
                    value[rows].reshape(len(r_ids), len(ev_order)),
                    index=pd.Index(r_ids, name="run"),
                    columns=list(e_names[ev_order]),
                )
                if not np.isnan(wide.to_numpy()).any():
                    groups[gid] = wide
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
            wide = pd.DataFrame(dense, index=pd.Index(r_ids, name="run"), columns=list(e_names[ev_order]))
            groups[gid] = wide
        return cls(groups, source=source, min_runs=min_runs, drop_constant=drop_constant)

    def to_tidy(self) -> pd.DataFrame:
        """The tidy table ``group, run, event, value`` (one row per reading)."""
        parts = []
        for g, t in self.groups.items():
            n, k = t.shape
            parts.append(
                pd.DataFrame(
                    {
                        "group": np.repeat(np.array([g], dtype=object), n * k),
                        "run": np.repeat(t.index.to_numpy(), k),
                        "event": np.tile(t.columns.to_numpy(dtype=object), n),
                        "value": t.to_numpy().ravel(),
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
        keep = {}
        for g, t in self.groups.items():
            cols = [e for e in t.columns if e in set(events)]
            if cols:
                keep[g] = t[cols]
        return Readings(keep, source=self.source, min_runs=self.min_runs)

    def split_runs(self, fraction: float = 0.5, *, seed: int | None = 0) -> tuple[Readings, Readings]:
        """Split each group's runs at random into two disjoint parts.

        Used by the holdout evaluation: merge one part, measure the other.
        """
        if not 0 < fraction < 1:
            raise InputError(f"fraction must be in (0, 1), got {fraction}")
        rng = np.random.default_rng(seed)
        a, b = {}, {}
        for g, t in self.groups.items():
            perm = rng.permutation(len(t))
            k = int(round(fraction * len(t)))
            a[g] = t.iloc[np.sort(perm[:k])]
            b[g] = t.iloc[np.sort(perm[k:])]
        try:
            return Readings(a, source=self.source, min_runs=self.min_runs), Readings(
                b, source=self.source, min_runs=self.min_runs
            )
        except InputError as exc:
            raise InputError(f"cannot split the runs in two parts: {exc}") from exc
