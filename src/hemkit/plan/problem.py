"""The constrained planning problem: events, counters and what limits a group.

:class:`Constraints` says what a group must respect beyond its number of counters:

- ``must_share`` -- sets of events read in the same group (a perf group ``{a,b}``); they
  become one *unit* that takes several counters (overlapping sets are merged);
- ``counters`` -- events that only some counters can count (``{"e": [0, 1]}``); a group is
  feasible only if its events can be matched to distinct allowed counters (bipartite
  matching by augmenting paths, Kuhn 1955);
- ``fixed`` -- an event read in every group (``cycles``); it takes one counter;
- ``budget`` -- the most events per group when below the number of counters.

:class:`Problem` turns events and constraints into units with weights and a feasibility
test the designs work on; it checks the input and names the event or constraint at
fault (:class:`~hemkit.core.errors.InputError`), or the pair no group can hold
(:class:`~hemkit.core.errors.DesignError`).

Examples
--------
>>> p = Problem(["cycles", "a", "b", "c"], 3, Constraints(must_share=[["a", "b"]], fixed="cycles"))
>>> p.units, p.weights, p.cap
([['a', 'b'], ['c']], [2, 1], 2)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from hemkit.core.checks import check_scalar
from hemkit.core.errors import DesignError, Fix, InputError
from hemkit.plan.bounds import schonheim_bound


def check_share_set(s: object) -> list[str]:
    """The event names of one must-share set, or :class:`InputError`: not a list, a bad name, or one event.

    A set of one event shares a group with nothing, so it would be accepted and do nothing.

    Examples
    --------
    >>> check_share_set(["a", "b"])
    ['a', 'b']
    >>> check_share_set(["a"])
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: must-share set ['a'] names one event, 'a', and so shares nothing; give two or more
    """
    if isinstance(s, str) or not isinstance(s, Sequence):
        raise InputError(f"must-share set {s!r} must be a list of event names")
    names = [check_name(e, "event") for e in s]
    if len(set(names)) < 2:
        one = f", {names[0]!r}," if names else ""
        raise InputError(f"must-share set {names} names one event{one} and so shares nothing; give two or more")
    return names


@dataclass(frozen=True)
class Constraints:
    """What limits the groups beyond the counter count.

    Parameters
    ----------
    must_share : sequence of sequences of str
        Sets of events that must be read in the same group (e.g. a perf group).
    counters : mapping of str -> sequence of int
        Event -> the counter indices (0 .. pmcs-1) it may use.  Unlisted events may use any.
    fixed : str, optional
        An event read in every group (e.g. ``cycles``); it takes one counter.  For HRM
        it is the anchor.
    budget : int, optional
        Most events per group (including ``fixed``), when below ``pmcs``.

    Examples
    --------
    >>> Constraints(must_share=[["a", "b"]], counters={"c": [0]}, budget=4).budget
    4
    """

    must_share: Sequence[Sequence[str]] = ()
    counters: Mapping[str, Sequence[int]] = field(default_factory=dict)
    fixed: str | None = None
    budget: int | None = None


def check_events(events: Sequence[str]) -> list[str]:
    """The event names as a list, or :class:`InputError` naming the first bad one.

    A name must be non-empty text without white space or control characters, and given once.

    Examples
    --------
    >>> check_events(["cycles", "cpu/event=0x3c,umask=0x0/"])
    ['cycles', 'cpu/event=0x3c,umask=0x0/']
    """
    if isinstance(events, str) or not isinstance(events, Sequence):
        raise InputError(f"events must be a list of event names, got {type(events).__name__}")
    out: list[str] = []
    seen: set[str] = set()
    for e in events:
        name = check_name(e, "event")
        if name in seen:
            raise InputError(f"event {name!r} is given twice")
        seen.add(name)
        out.append(name)
    if not out:
        raise InputError("no events to plan")
    return out


def check_name(e: object, what: str) -> str:
    """One event name, checked (see :func:`check_events`); ``what`` names it in messages.

    Examples
    --------
    >>> check_name("sched:sched_switch", "event")
    'sched:sched_switch'
    >>> check_name("cpu/event=0x3c,umask=0x0/", "event")
    'cpu/event=0x3c,umask=0x0/'
    """
    if not isinstance(e, str):
        raise InputError(f"{what} name must be text, got {e!r}")
    if not e:
        raise InputError(f"an {what} name is empty")
    if any(c.isspace() for c in e):
        raise InputError(f"{what} name {e!r} contains white space")
    if not e.isprintable():
        raise InputError(f"{what} name {e!r} contains a control or invalid character")
    if "," in re.sub(r"/[^/]*/", "", e):  # perf's -e list separator; a PMU's term list (cpu/event=..,umask=../) is one
        raise InputError(f"{what} name {e!r} holds several events; give each one apart")
    return e


def counter_match(events: Sequence[str], counters: Mapping[str, Sequence[int]], n_counters: int) -> bool:
    """Whether each event can get its own allowed counter (bipartite matching, augmenting paths).

    Examples
    --------
    >>> counter_match(["a", "b"], {"a": [0], "b": [0]}, 4), counter_match(["a", "b"], {"a": [0]}, 2)
    (False, True)
    """
    owner: dict[int, str] = {}

    def place(e: str, seen: set[int]) -> bool:
        for c in counters.get(e, range(n_counters)):
            if c in seen:
                continue
            seen.add(c)
            if c not in owner or place(owner[c], seen):
                owner[c] = e
                return True
        return False

    return all(place(e, set()) for e in events)


class Problem:
    """Units (events or must-share sets) with weights, a capacity and a feasibility test.

    Parameters
    ----------
    events : sequence of str
    pmcs : int
        Counters per run.
    constraints : Constraints

    Attributes
    ----------
    units : list of list of str
        The events of each unit, ``fixed`` excluded.
    weights : list of int
        Counters each unit takes.
    cap : int
        Counters per group left for units (``min(pmcs, budget)`` minus one for ``fixed``).
    uniform : bool
        Every unit takes one counter and no counter restrictions apply: the algebraic
        constructions and the fast paths apply.

    Examples
    --------
    >>> p = Problem(list("abcde"), 3, Constraints(counters={"a": [0], "b": [0]}))
    >>> p.fits([0, 2]), p.fits([0, 1]), p.impossible_pair(), p.groups([[0, 2, 3]])
    (True, False, ('a', 'b'), [['a', 'c', 'd']])
    >>> p.covering_bound(), p.packing_bound()
    (4, 2)
    """

    def __init__(self, events: Sequence[str], pmcs: int, constraints: Constraints):
        c = constraints
        self.events = check_events(events)
        known = set(self.events)
        self.n_counters = check_scalar(pmcs, "pmcs", min_val=1)
        budget = check_scalar(c.budget, "budget", min_val=1, allow_none=True)
        #: the group budget, when it (not pmcs) caps a group
        self.budget: int | None = budget if budget is not None and budget < self.n_counters else None
        cap = self.n_counters if budget is None else min(self.n_counters, budget)
        self.fixed = None if c.fixed is None else check_name(c.fixed, "fixed event")
        if self.fixed is not None and self.fixed not in known:
            raise InputError(f"event {self.fixed!r} to read in every group is not among the events")
        if not isinstance(c.counters, Mapping):
            raise InputError("counters must map event names to lists of counter numbers")
        self.counters: dict[str, list[int]] = {}
        for e, cs in c.counters.items():
            check_name(e, "event")
            if e not in known:
                raise InputError(f"counter restriction names unknown event {e!r}")
            if isinstance(cs, str | bytes) or not isinstance(cs, Sequence) or not cs:
                raise InputError(f"event {e!r}: allowed counters must be a non-empty list of counter numbers")
            self.counters[e] = sorted(
                # counters are numbered from 0
                {check_scalar(x, f"event {e!r}: counter", min_val=0, max_val=self.n_counters - 1) for x in cs}
            )
        rest = [e for e in self.events if e != self.fixed]
        if self.fixed is not None:
            cap -= 1
            if cap < 1 and rest:
                words, fix, param = self.group_limit(2)
                raise DesignError(
                    f"event {self.fixed!r} read in every group leaves no counter for the other events "
                    f"(groups of {cap + 1}: {words})",
                    fix=fix,
                    param=param,
                )
        self.cap = cap
        self.units = self._units(c.must_share, rest, known)
        self.weights = [len(u) for u in self.units]
        #: the must-share sets as perf groups: overlapping sets merged, the fixed event left out
        self.perf_groups = [list(u) for u in self.units if len(u) > 1]
        for u, w in zip(self.units, self.weights):
            if w > cap:
                words, fix, param = self.group_limit(w + (self.fixed is not None))
                raise DesignError(
                    f"must-share set {u} needs {w} counters but a group has only {cap} for it ({words})",
                    fix=fix,
                    param=param,
                )
            if not self.fits_events(u):
                raise DesignError(self._unplaceable(u))
        if self.fixed is not None and not self.fits_events([]):
            raise DesignError(f"event {self.fixed!r} cannot be counted on any allowed counter")  # pragma: no cover
        self.uniform = all(w == 1 for w in self.weights) and not self.counters

    def _unplaceable(self, unit: Sequence[str]) -> str:
        """Why ``unit`` (an event, or a must-share set) fits in no group, naming each event's allowed counters.

        Examples
        --------
        >>> p = Problem.__new__(Problem)
        >>> p.counters, p.fixed, p.n_counters = {"a": [2], "b": [2]}, "a", 4
        >>> p._unplaceable(["b"]).split(": ")[1]
        "'b' may use counter 2 only, 'a' counter 2 only"
        """
        full = [*unit, *([self.fixed] if self.fixed else [])]

        def allowed(e: str) -> str:
            cs = self.counters.get(e)
            if cs is None:
                return "any counter"
            return f"counter{'s' if len(cs) > 1 else ''} {','.join(map(str, cs))} only"

        each = ", ".join(f"{e!r} {'may use ' if k == 0 else ''}{allowed(e)}" for k, e in enumerate(full))
        if len(unit) == 1:  # only an event read in every group can keep a single event out of every group
            return f"event {unit[0]!r} can never be read with {self.fixed!r}, which is read in every group: {each}"
        beside = f" beside {self.fixed!r}, which is read in every group" if self.fixed else ""
        return f"must-share set {list(unit)} cannot be placed on the counters its events may use{beside}: {each}"

    def group_limit(self, needed: int) -> tuple[str, tuple[Fix, ...], str | None]:
        """What caps a group, in words, the fix that makes groups of ``needed`` counters, if one can, and the parameter.

        The budget, when it is below ``pmcs``, is the limit at fault (and raising it the fix, up
        to ``pmcs``); else ``pmcs``, the counters the machine has, which no option raises: it is
        the parameter named in the words (``param`` of the error, so the command line says
        ``--pmcs is 1``).

        Examples
        --------
        >>> Problem(list("abc"), 3, Constraints(budget=1)).group_limit(2)
        ('the budget allows 1 of the 3 counters', (Fix(param='budget', value=2),), None)
        >>> Problem(list("abc"), 1, Constraints()).group_limit(2)
        ('pmcs is 1', (), 'pmcs')
        """
        if self.budget is not None:
            fix = (Fix("budget", needed),) if needed <= self.n_counters else ()
            return f"the budget allows {self.budget} of the {self.n_counters} counters", fix, None
        return f"pmcs is {self.n_counters}", (), "pmcs"

    def _units(self, must_share: Sequence[Sequence[str]], rest: list[str], known: set[str]) -> list[list[str]]:
        if isinstance(must_share, str) or not isinstance(must_share, Sequence):
            raise InputError("must_share must be a list of lists of event names", param="must_share")
        parent: dict[str, str] = {}  # union-find: overlapping must-share sets become one unit

        def root(e: str) -> str:
            while parent.setdefault(e, e) != e:
                e = parent[e]
            return e

        for s in must_share:
            names = check_share_set(s)
            for e in names:
                if e not in known:
                    raise InputError(f"must-share set {names} names unknown event {e!r}")
            members = [e for e in names if e != self.fixed]
            for e in members[1:]:
                parent[root(e)] = root(members[0])
        by_root: dict[str, list[str]] = {}
        for e in rest:
            if e in parent:
                by_root.setdefault(root(e), []).append(e)
        units = [u for u in by_root.values() if len(u) > 1]
        grouped = {e for u in units for e in u}
        units += [[e] for e in rest if e not in grouped]
        order = {e: i for i, e in enumerate(rest)}
        units.sort(key=lambda u: min(order[e] for e in u))
        return units

    @property
    def n(self) -> int:
        """Number of units."""
        return len(self.units)

    def fits_events(self, evs: Sequence[str]) -> bool:
        """Whether these events (plus ``fixed``) can be read in one group."""
        full = list(evs) + ([self.fixed] if self.fixed else [])
        if len(full) > self.n_counters:
            return False
        if not self.counters:
            return True
        return counter_match(full, self.counters, self.n_counters)

    def fits(self, block: Sequence[int]) -> bool:
        """Whether these units can be read in one group."""
        if sum(self.weights[u] for u in block) > self.cap:
            return False
        if self.uniform:
            return True
        return self.fits_events([e for u in block for e in self.units[u]])

    def impossible_pair(self) -> tuple[str, str] | None:
        """Two events that no group can hold together (constraints), or None."""
        units = self._impossible_units()
        return None if units is None else (self.units[units[0]][0], self.units[units[1]][0])

    def _impossible_units(self) -> tuple[int, int] | None:
        if self.uniform:
            return None
        for a, b in combinations(range(self.n), 2):
            if not self.fits([a, b]):
                return a, b
        return None

    def why_apart(self) -> tuple[str, tuple[Fix, ...], str | None] | None:
        """Why two events can never share a group, in words, with the fix and parameter; None if every pair can.

        A must-share set too large to have the other event beside it is said as such (it is the
        constraint at fault, not the counters the events may use).

        Examples
        --------
        >>> p = Problem(list("abcde"), 3, Constraints(must_share=[["a", "b", "c"]]))
        >>> p.why_apart()[0].split(": ")[1]
        "must-share set ['a', 'b', 'c'] with 'd' needs 4 counters (pmcs is 3)"
        """
        units = self._impossible_units()
        if units is None:
            return None
        a, b = units
        head = f"events {self.units[a][0]!r} and {self.units[b][0]!r} can never be read together"
        weight = self.weights[a] + self.weights[b]
        if weight <= self.cap:
            return f"{head}: no group holds both on the counters their events may use", (), None
        sets = [self.units[u] for u in units if self.weights[u] > 1]
        other = [self.units[u][0] for u in units if self.weights[u] == 1]
        if other:
            named = f"must-share set {sets[0]} with {other[0]!r} needs"
        else:
            named = f"must-share sets {sets[0]} and {sets[1]} together need"
        besides = f" besides {self.fixed!r}" if self.fixed else ""
        words, fix, param = self.group_limit(weight + (self.fixed is not None))
        return f"{head}: {named} {weight} counters{besides} ({words})", fix, param

    def groups(self, blocks: Sequence[Sequence[int]]) -> list[list[str]]:
        """Event names of unit blocks, ``fixed`` first, units in event order."""
        out = []
        for b in blocks:
            evs = [e for u in sorted(b) for e in self.units[u]]
            out.append(([self.fixed] if self.fixed else []) + evs)
        return out

    def covering_bound(self) -> int:
        """A lower bound on the groups of a pair covering of the units.

        Schönheim's bound when units are uniform; otherwise its weighted form: a unit of
        weight ``w`` is in at least ``r = ceil((W - w) / (cap - w))`` groups (``W`` the total
        weight) and the groups hold at most ``cap`` each, so at least ``sum(w r) / cap``.
        """
        if self.n <= 1:
            return 1
        if self.uniform:
            return schonheim_bound(self.n, self.cap)
        # each unit of weight w must meet the other (total - w) counters' worth of events, at
        # most cap - w per group; a group holds at most cap counters (Schönheim's double count)
        total = sum(self.weights)
        reps = [math.ceil((total - w) / (self.cap - w)) if self.cap > w else 1 for w in self.weights]
        return max(1, max(reps), math.ceil(sum(w * r for w, r in zip(self.weights, reps)) / self.cap))

    def packing_bound(self) -> int:
        """A lower bound on the groups of an HRM design (every unit in one group).

        The total weight over the capacity, and for each set of allowed counters ``A`` the
        events restricted to counters within ``A`` over ``|A|``.
        """
        if self.n == 0:
            return 1
        lb = math.ceil(sum(self.weights) / self.cap)
        for allowed in {tuple(v) for v in self.counters.values()}:
            inside = [e for e, cs in self.counters.items() if set(cs) <= set(allowed) and e != self.fixed]
            lb = max(lb, math.ceil(len(inside) / len(allowed)))
        return lb


def missing_pairs(groups: Sequence[Sequence[str]], events: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs of ``events`` never read in the same group (empty when the design covers all).

    Parameters
    ----------
    groups : sequence of sequences of str
        The groups of a design; events not in ``events`` are ignored.
    events : sequence of str
        The events whose pairs should be covered, each once.

    Returns
    -------
    list of tuple of (str, str)
        The uncovered pairs, each in the order of ``events``, in the order of
        :func:`itertools.combinations`.

    Examples
    --------
    >>> missing_pairs([["a", "b"], ["b", "c"]], ["a", "b", "c"])
    [('a', 'c')]
    """
    index = {e: i for i, e in enumerate(events)}
    n = len(index)
    together = [0] * n
    for g in groups:
        idx = [index[e] for e in g if e in index]
        m = sum(1 << i for i in idx)
        for i in idx:
            together[i] |= m
    return [(a, b) for (i, a), (j, b) in combinations(enumerate(events), 2) if not (together[i] >> j) & 1]


__all__ = ["Constraints", "Problem", "check_events", "counter_match", "missing_pairs"]
