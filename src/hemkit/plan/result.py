"""The plan: which groups of events to read together, how it was made, and how good it is.

:class:`Plan` is the result object of :mod:`hemkit.plan` (DESIGN.md §5): frozen, with
``summary()`` (the few numbers a user reads first), ``to_frame()`` (one row per group) and
a readable ``repr``.  It never writes files itself: :func:`hemkit.io.planfile.write_plan_file`
does, from :meth:`Plan.to_dict`, and :meth:`Plan.from_file` reads one back with every key
checked (a malformed plan file is an :class:`~hemkit.core.errors.InputError` naming the
file and the key).

Examples
--------
>>> p = Plan([["cycles", "a", "b"], ["cycles", "c"]], design="hrm", pmcs=3, anchor="cycles")
>>> p.events, p.size
(['cycles', 'a', 'b', 'c'], 2)
>>> Plan.from_dict(p.to_dict()) == p
True
"""

from __future__ import annotations

import dataclasses
import numbers
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

import pandas as pd

from hemkit.core.errors import InputError
from hemkit.core.numbers import plural
from hemkit.core.results import Result
from hemkit.io.perf_files import core_pmu_of
from hemkit.plan.problem import check_name, missing_pairs

#: the keys of a plan file / :meth:`Plan.to_dict`
PLAN_KEYS = (
    "design",
    "pmcs",
    "events",
    "anchor",
    "fixed_counters",
    "lower_bound",
    "best_known",
    "optimal",
    "perf_groups",
    "groups",
)


class PlanKeyError(InputError):
    """A plan that breaks a rule, with the plan-file key the rule is about (``.key``).

    Examples
    --------
    >>> PlanKeyError("pmcs", "pmcs must be a non-negative integer, got -1").key
    'pmcs'
    """

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


class FrozenList(list[Any]):
    """A list that cannot be changed (it still compares equal to, and serialises as, a list).

    Examples
    --------
    >>> g = FrozenList(["a", "b"])
    >>> g == ["a", "b"], isinstance(g, list)
    (True, True)
    """

    def _frozen(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a Plan cannot be changed; make a new one (e.g. Plan(groups, ...))")

    append = extend = insert = remove = pop = clear = sort = reverse = _frozen
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _frozen


def _names(value: object, what: str, key: str) -> FrozenList:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise PlanKeyError(key, f"{what} must be a list of event names, got {_short(value)}")
    try:
        return FrozenList(check_name(e, "event") for e in value)
    except InputError as exc:
        raise PlanKeyError(key, f"{what}: {exc}") from None


def _lists(value: object, what: str, key: str) -> FrozenList:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise PlanKeyError(key, f"{what}s must be a list of lists of event names, got {_short(value)}")
    return FrozenList(_names(g, f"{what} {i}", key) for i, g in enumerate(value))


def _opt_int(value: object, key: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 0:
        raise PlanKeyError(key, f"{key} must be a non-negative integer, got {_short(value)}")
    return int(value)


# the frozen dataclass of hemkit.core.results.result, spelled out so that type checkers see the fields
@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class Plan(Result):
    """Groups of events to read together, with how they were made.

    Parameters
    ----------
    groups : list of list of str
        Each group is read in one ``perf stat`` run.
    design : str
        ``"much"``, ``"hrm"`` or ``"manual"`` (any label is kept).
    pmcs : int
        Counters per run the plan was made for (0: unknown).
    anchor : str, optional
        The event read in every group (HRM anchor, or MUCH's fixed event).
    perf_groups : list of list of str
        Events that must be scheduled together (the must-share sets); the collector puts
        each in ``{...}``.
    lower_bound : int, optional
        The fewest groups any plan of this kind can have (Schönheim bound for MUCH).
    best_known : int, optional
        The best published size, where known (MUCH).
    event_order : list of str
        The events in the order given when planning (default: order of first appearance).
    optimal : bool
        The size is proven optimal (it meets the bound, or an exact search proved it).
    diagnostics : mapping
        How the plan was made: ``construction``, ``start_size``, ``steps``, ``seconds``,
        ``stopped`` (why the search ended: ``"optimal"``, ``"step budget"``, ``"time
        budget"``), ``seed``.
    fixed_counters : list of str
        Events on the CPU's fixed counters (Intel: instructions, cycles, ref-cycles): read in
        every group without taking one of its ``pmcs`` general counters.

    Attributes
    ----------
    events : list of str
    size : int
        Number of groups.
    must_share : list of list of str
        Same as ``perf_groups``.

    Raises
    ------
    InputError
        An empty plan or group, an event twice in a group, a group larger than ``pmcs``,
        an anchor missing from a group, an event list that disagrees with the groups, a
        perf group split between groups.

    Examples
    --------
    >>> p = Plan([["a", "b"], ["a", "c"], ["b", "c"]], design="much", pmcs=2, lower_bound=3)
    >>> p.missing_pairs(), p.size, p.groups[0]
    ([], 3, ['a', 'b'])
    """

    groups: Sequence[Sequence[str]]
    design: str = "manual"
    pmcs: int = 0
    anchor: str | None = None
    perf_groups: Sequence[Sequence[str]] = ()
    lower_bound: int | None = None
    best_known: int | None = None
    event_order: Sequence[str] = ()
    optimal: bool = False
    diagnostics: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    fixed_counters: Sequence[str] = ()

    def __post_init__(self) -> None:  # noqa: PLR0912 - one check per rule of a plan, each naming its key
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 - frozen dataclass
        groups = _lists(self.groups, "group", "groups")
        if not groups:
            raise PlanKeyError("groups", "plan has no groups")
        fixed = _names(self.fixed_counters, "fixed-counter event list", "fixed_counters")
        for e in fixed:
            missing = next((i for i, g in enumerate(groups) if e not in g), None)
            if missing is not None:
                raise PlanKeyError("fixed_counters", f"group {missing} does not read the fixed-counter event {e!r}")
        if isinstance(self.pmcs, bool) or not isinstance(self.pmcs, numbers.Integral) or self.pmcs < 0:
            raise PlanKeyError("pmcs", f"pmcs must be a non-negative integer, got {_short(self.pmcs)}")
        for i, g in enumerate(groups):
            if not g:
                raise PlanKeyError("groups", f"group {i} is empty")
            dup = next((e for j, e in enumerate(g) if e in g[:j]), None)
            if dup is not None:
                raise PlanKeyError("groups", f"group {i} names event {dup!r} twice")
            per_pmu = Counter(core_pmu_of(e) for e in g if e not in fixed)  # a hybrid CPU: pmcs per core PMU
            pmu, general = per_pmu.most_common(1)[0] if per_pmu else ("", 0)
            if self.pmcs and general > self.pmcs:
                on_fixed = f" besides {len(g) - sum(per_pmu.values())} on fixed counters" if fixed else ""
                of = f" of {pmu}" if pmu else ""
                raise PlanKeyError("groups", f"group {i} has {general} events{of}{on_fixed} but pmcs is {self.pmcs}")
        seen = list(dict.fromkeys(e for g in groups for e in g))
        read = set(seen)
        order = _names(self.event_order, "event list", "events")
        if order:
            dup = next((e for j, e in enumerate(order) if e in order[:j]), None)
            if dup is not None:
                raise PlanKeyError("events", f"event list names {dup!r} twice")
            known = set(order)
            stray = next((e for e in seen if e not in known), None)
            if stray is not None:
                gi = next(i for i, g in enumerate(groups) if stray in g)
                raise PlanKeyError("groups", f"group {gi} reads event {stray!r}, which is not in the event list")
            unread = next((e for e in order if e not in read), None)
            if unread is not None:
                raise PlanKeyError("events", f"event {unread!r} of the event list is in no group")
        if not isinstance(self.design, str) or not self.design.strip():
            raise PlanKeyError("design", f"design must be a name such as 'much' or 'hrm', got {_short(self.design)}")
        if self.anchor is not None:
            try:
                anchor = check_name(self.anchor, "anchor")
            except InputError as exc:
                raise PlanKeyError("anchor", str(exc)) from None
            missing = next((i for i, g in enumerate(groups) if anchor not in g), None)
            if missing is not None:
                raise PlanKeyError("anchor", f"group {missing} does not read the anchor {anchor!r}")
        perf = _lists(self.perf_groups, "perf group", "perf_groups")
        for j, pg in enumerate(perf):
            unknown = next((e for e in pg if e not in read), None)
            if unknown is not None:
                raise PlanKeyError("perf_groups", f"perf group {j} names event {unknown!r}, which no group reads")
            for i, g in enumerate(groups):
                inside = [e for e in pg if e in g]
                if inside and len(inside) != len(pg):
                    raise PlanKeyError("perf_groups", f"group {i} reads only part of perf group {j} {list(pg)}")
        for name in ("lower_bound", "best_known"):
            set_(name, _opt_int(getattr(self, name), name))
        if not isinstance(self.optimal, bool):
            raise PlanKeyError("optimal", f"optimal must be true or false, got {_short(self.optimal)}")
        set_("groups", groups)
        set_("event_order", FrozenList(order or seen))
        set_("perf_groups", perf)
        set_("fixed_counters", FrozenList(fixed))
        set_("pmcs", int(self.pmcs))
        set_("diagnostics", MappingProxyType(dict(self.diagnostics)))

    # ----------------------------------------------------------------- the plan
    @property
    def events(self) -> list[str]:
        """All events: in the order given when planning, else of first appearance."""
        return list(self.event_order)

    @property
    def size(self) -> int:
        """Number of groups (runs of every repetition)."""
        return len(self.groups)

    @property
    def must_share(self) -> list[list[str]]:
        """The must-share sets (perf groups)."""
        return [list(g) for g in self.perf_groups]

    def missing_pairs(self) -> list[tuple[str, str]]:
        """Pairs of events never read together (a MUCH plan has none)."""
        return missing_pairs(self.groups, self.events)

    # ------------------------------------------------------------------- tables
    def summary(self) -> pd.DataFrame:
        """Design, events, groups, counters, bound, best known, and how the search ended.

        Examples
        --------
        >>> Plan([["a", "b"]], design="much", pmcs=2, lower_bound=1).summary().loc["groups", "value"]
        1
        """
        d = self.diagnostics
        rows: dict[str, Any] = {
            "design": self.design,
            "events": len(self.events),
            "groups": self.size,
            "pmcs": self.pmcs,
            "lower bound": self.lower_bound,
            "best known": self.best_known,
            "optimal": self.optimal,
        }
        for key in ("construction", "start_size", "stopped", "seconds"):
            if key in d:
                rows[key.replace("_", " ")] = round(d[key], 2) if isinstance(d[key], float) else d[key]
        frame = pd.DataFrame({"value": pd.Series(rows, dtype=object)})
        frame.index.name = "plan"
        return frame

    def to_frame(self) -> pd.DataFrame:
        """One row per group: its number of events and the events.

        Examples
        --------
        >>> Plan([["a", "b"], ["a", "c"]]).to_frame()["events"].tolist()
        ['a, b', 'a, c']
        """
        frame = pd.DataFrame(
            {"size": [len(g) for g in self.groups], "events": [", ".join(g) for g in self.groups]},
            index=pd.RangeIndex(len(self.groups), name="group"),
        )
        return frame

    def line(self) -> str:
        """One line: events, groups, counters, bound and best known.

        Examples
        --------
        >>> Plan([["a", "b"], ["a", "c"], ["b", "c"]], design="much", pmcs=2, lower_bound=3, optimal=True).line()
        'much plan: 3 events in 3 groups of at most 2 counters (lower bound 3, optimal)'

        A plan made with a group budget below ``pmcs`` (``diagnostics["budget"]``) says so:

        >>> Plan([["a", "b"], ["a", "c"], ["b", "c"]], design="much", pmcs=3, diagnostics={"budget": 2}).line()
        'much plan: 3 events in 3 groups of at most 2 of the 3 counters'
        """
        extra = []
        if self.lower_bound is not None:
            extra.append(f"lower bound {self.lower_bound}")
        if self.best_known is not None:
            extra.append(f"best known {self.best_known}")
        if self.optimal:
            extra.append("optimal")
        elif self.diagnostics.get("stopped") == "time budget":
            extra.append("search stopped by the time budget")
        tail = f" ({', '.join(extra)})" if extra else ""
        budget = self.diagnostics.get("budget")
        if self.pmcs and isinstance(budget, int) and budget < self.pmcs:
            pm = f" of at most {budget} of the {self.pmcs} counters"
        else:
            pm = f" of at most {self.pmcs} counters" if self.pmcs else ""
        if self.fixed_counters:
            pm += f" + {len(self.fixed_counters)} fixed ({', '.join(self.fixed_counters)})"
        return f"{self.design} plan: {plural(len(self.events), 'event')} in {plural(self.size, 'group')}{pm}{tail}"

    # --------------------------------------------------------------- plain data
    def to_dict(self) -> dict[str, Any]:
        """The plan as plain data (the keys of a plan file; ``None`` and defaults left out).

        Examples
        --------
        >>> Plan([["a", "b"]], design="much", pmcs=2).to_dict()
        {'design': 'much', 'pmcs': 2, 'events': ['a', 'b'], 'groups': [['a', 'b']]}
        """
        d: dict[str, Any] = {"design": self.design, "pmcs": self.pmcs, "events": self.events}
        if self.anchor:
            d["anchor"] = self.anchor
        if self.fixed_counters:
            d["fixed_counters"] = list(self.fixed_counters)
        if self.lower_bound is not None:
            d["lower_bound"] = self.lower_bound
        if self.best_known is not None:
            d["best_known"] = self.best_known
        if self.optimal:
            d["optimal"] = True
        if self.perf_groups:
            d["perf_groups"] = [list(g) for g in self.perf_groups]
        d["groups"] = [list(g) for g in self.groups]
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "plan") -> Plan:
        """A plan from plain data (a plan file's keys); every key is checked.

        Raises
        ------
        InputError
            Naming ``source`` and the key at fault: an unknown or missing key, a value of
            the wrong type, or a plan that breaks the rules of :class:`Plan`.

        Examples
        --------
        >>> Plan.from_dict({"groups": [["a", "b"]], "pmcs": 1}, "p.toml")
        Traceback (most recent call last):
        ...
        hemkit.core.errors.InputError: p.toml: key 'groups': group 0 has 2 events but pmcs is 1
        """
        if not isinstance(data, Mapping):
            raise InputError(f"{source}: not a plan (expected a table of keys)")
        unknown = [k for k in data if k not in PLAN_KEYS]
        if unknown:
            raise InputError(f"{source}: unknown key {unknown[0]!r} (a plan has {', '.join(PLAN_KEYS)})")
        if "groups" not in data:
            raise InputError(f"{source}: no 'groups' key (the list of groups of events)")
        checks: dict[str, Any] = {
            "design": lambda v: isinstance(v, str),
            "pmcs": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "anchor": lambda v: isinstance(v, str),
            "lower_bound": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "best_known": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "optimal": lambda v: isinstance(v, bool),
            "events": lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v),
            "fixed_counters": lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v),
            "groups": lambda v: (
                isinstance(v, list) and all(isinstance(g, list) and all(isinstance(e, str) for e in g) for g in v)
            ),
            "perf_groups": lambda v: (
                isinstance(v, list) and all(isinstance(g, list) and all(isinstance(e, str) for e in g) for g in v)
            ),
        }
        kinds = {
            "design": "a name",
            "pmcs": "an integer",
            "anchor": "an event name",
            "lower_bound": "an integer",
            "best_known": "an integer",
            "optimal": "true or false",
            "events": "a list of event names",
            "fixed_counters": "a list of event names",
            "groups": "a list of lists of event names",
            "perf_groups": "a list of lists of event names",
        }
        for key, ok in checks.items():
            if key in data and not ok(data[key]):
                raise InputError(f"{source}: key {key!r} must be {kinds[key]}, got {_short(data[key])}")
        try:
            return cls(
                groups=data["groups"],
                design=data.get("design", "manual"),
                pmcs=data.get("pmcs", 0),
                anchor=data.get("anchor"),
                perf_groups=data.get("perf_groups", ()),
                lower_bound=data.get("lower_bound"),
                best_known=data.get("best_known"),
                event_order=data.get("events", ()),
                optimal=data.get("optimal", False),
                fixed_counters=data.get("fixed_counters", ()),
            )
        except PlanKeyError as exc:
            raise InputError(f"{source}: key {exc.key!r}: {exc}") from None

    @classmethod
    def from_file(cls, path: str | Path) -> Plan:
        """Read a TOML or JSON plan file (see :mod:`hemkit.io.planfile`), every key checked.

        Examples
        --------
        >>> import os, tempfile
        >>> path = Plan([["a", "b"], ["a", "c"]], pmcs=2).to_file(os.path.join(tempfile.mkdtemp(), "p.toml"))
        >>> Plan.from_file(path).groups
        [['a', 'b'], ['a', 'c']]
        """
        from hemkit.io.planfile import read_plan_file

        return cls.from_dict(read_plan_file(path), source=str(path))

    def to_file(self, path: str | Path) -> Path:
        """Write the plan file (TOML, or JSON for a ``.json`` name) through :mod:`hemkit.io.planfile`.

        A convenience for ``write_plan_file(path, plan.to_dict(), header=...)``; the writing
        itself is io's (see :meth:`from_file` for an example).
        """
        from hemkit.io.planfile import write_plan_file

        return write_plan_file(path, self.to_dict(), header=f"hemkit {self.line()}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Plan):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["PLAN_KEYS", "FrozenList", "Plan", "PlanKeyError"]
