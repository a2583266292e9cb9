"""The plan file: which groups of events ``hemkit collect`` reads, as TOML or JSON.

A plan is small and meant to be read and edited by hand::

    # hemkit plan: 12 events, 9 groups of at most 5 (MUCH design)
    design = "much"
    pmcs = 5
    events = ["task-clock", "page-faults", ...]
    lower_bound = 8
    groups = [
      ["task-clock", "page-faults", "minor-faults", "context-switches", "kmem:kmalloc"],
      ...
    ]

TOML is read with :mod:`tomllib`; it is written by hand here because the structure is
flat (strings, integers, lists of lists of strings).  ``.json`` files hold the same keys.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hemkit.errors import HemkitError
from hemkit.plan.designs import (
    Constraints,
    best_known,
    covering_design,
    hrm_design,
    pairs_covered,
    schonheim_bound,
)


def _toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to a plan file")


@dataclass(frozen=True)
class Plan:
    """Groups of events to read together, with how they were made.

    Parameters
    ----------
    groups : list of list of str
        Each group is read in one ``perf stat`` run.
    design : str
        ``"much"``, ``"hrm"`` or ``"manual"``.
    pmcs : int
        Counters per run the plan was made for.
    anchor : str, optional
        HRM anchor / fixed event read in every group.
    perf_groups : list of list of str
        Events that must be scheduled together; the collector puts them in ``{...}``.
    lower_bound, best_known : int, optional
        Schönheim bound and best published size, for MUCH designs.

    Examples
    --------
    >>> p = make_plan(["a", "b", "c", "d", "e"], pmcs=3, design="much")
    >>> len(p.groups), p.missing_pairs()
    (4, [])
    """

    groups: list[list[str]]
    design: str = "manual"
    pmcs: int = 0
    anchor: str | None = None
    perf_groups: list[list[str]] = field(default_factory=list)
    lower_bound: int | None = None
    best_known: int | None = None
    event_order: list[str] = field(default_factory=list)
    optimal: bool = False

    def __post_init__(self) -> None:
        if not self.groups:
            raise HemkitError("plan has no groups")
        for i, g in enumerate(self.groups):
            if not g:
                raise HemkitError(f"plan group {i} is empty")
            if len(set(g)) != len(g):
                raise HemkitError(f"plan group {i} names an event twice: {g}")
            if self.pmcs and len(g) > self.pmcs:
                raise HemkitError(f"plan group {i} has {len(g)} events but pmcs is {self.pmcs}")

    @property
    def events(self) -> list[str]:
        """All events: in the order given when planning, else of first appearance."""
        seen = list(dict.fromkeys(e for g in self.groups for e in g))
        if sorted(self.event_order) == sorted(seen):
            return list(self.event_order)
        return seen

    def missing_pairs(self) -> list[tuple[str, str]]:
        """Pairs of events never read together (MUCH needs none)."""
        return pairs_covered(self.groups, self.events)

    def to_dict(self) -> dict:
        d = {"design": self.design, "pmcs": self.pmcs, "events": self.events}
        if self.anchor:
            d["anchor"] = self.anchor
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
    def from_dict(cls, d: dict, source: str = "plan") -> Plan:
        if "groups" not in d:
            raise HemkitError(f"{source}: no 'groups' list")
        groups = d["groups"]
        if not isinstance(groups, list) or not all(
            isinstance(g, list) and all(isinstance(e, str) for e in g) for g in groups
        ):
            raise HemkitError(f"{source}: 'groups' must be a list of lists of event names")
        try:
            return cls(
                groups=[list(g) for g in groups],
                design=str(d.get("design", "manual")),
                pmcs=int(d.get("pmcs", 0)),
                anchor=d.get("anchor"),
                perf_groups=[list(g) for g in d.get("perf_groups", [])],
                lower_bound=d.get("lower_bound"),
                best_known=d.get("best_known"),
                event_order=[str(e) for e in d.get("events", [])],
                optimal=bool(d.get("optimal", False)),
            )
        except HemkitError as exc:
            raise HemkitError(f"{source}: {exc}") from None

    def to_toml(self) -> str:
        d = self.to_dict()
        lines = [
            f"# hemkit plan: {len(self.events)} events, {len(self.groups)} groups"
            f"{f' of at most {self.pmcs}' if self.pmcs else ''} ({self.design} design)"
        ]
        for k, v in d.items():
            if k in ("groups", "perf_groups"):
                lines.append(f"{k} = [")
                lines += [f"  {_toml_value(g)}," for g in v]
                lines.append("]")
            else:
                lines.append(f"{k} = {_toml_value(v)}")
        return "\n".join(lines) + "\n"

    def to_file(self, path: str | Path) -> Path:
        """Write as TOML (or JSON when the name ends in ``.json``)."""
        path = Path(path)
        text = json.dumps(self.to_dict(), indent=2) + "\n" if path.suffix.lower() == ".json" else self.to_toml()
        path.write_text(text)
        return path

    @classmethod
    def from_file(cls, path: str | Path) -> Plan:
        """Read a TOML or JSON plan file."""
        path = Path(path)
        if not path.exists():
            raise HemkitError(f"{path}: no such plan file")
        text = path.read_text()
        try:
            d = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
        except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
            raise HemkitError(f"{path}: not a valid plan file ({str(exc).splitlines()[0]})") from None
        return cls.from_dict(d, source=str(path))

    def summary(self) -> str:
        lines = [
            f"{self.design} plan: {len(self.events)} events in {len(self.groups)} groups"
            + (f" of at most {self.pmcs}" if self.pmcs else "")
        ]
        if self.lower_bound is not None:
            lines.append(
                f"Schönheim lower bound {self.lower_bound}, best known "
                f"{self.best_known if self.best_known is not None else '?'}"
                f"{', proven optimal' if self.optimal else ''}"
            )
        lines += [f"  {i}: {', '.join(g)}" for i, g in enumerate(self.groups)]
        return "\n".join(lines)


def make_plan(
    events: Sequence[str],
    pmcs: int,
    *,
    design: str = "much",
    anchor: str | None = None,
    constraints: Constraints | None = None,
    seed: int = 0,
) -> Plan:
    """Design groups for ``events`` on ``pmcs`` counters and wrap them in a :class:`Plan`.

    Parameters
    ----------
    events : sequence of str
    pmcs : int
    design : {"much", "hrm"}
    anchor : str, optional
        HRM anchor (default first event); for MUCH, an event to read in every group.
    constraints : Constraints, optional
    seed : int

    Examples
    --------
    >>> make_plan(["cycles", "a", "b", "c"], 3, design="hrm").groups
    [['cycles', 'a', 'b'], ['cycles', 'c']]
    """
    c = constraints or Constraints()
    if design == "hrm":
        groups = hrm_design(events, pmcs, anchor=anchor, constraints=c)
        return Plan(
            groups,
            "hrm",
            pmcs,
            anchor or c.fixed or list(events)[0],
            [list(s) for s in c.must_share],
            event_order=list(events),
        )
    if design == "much":
        if anchor is not None:
            if c.fixed not in (None, anchor):
                raise HemkitError(f"two events to read in every group: {anchor!r} and {c.fixed!r}")
            c = Constraints(c.must_share, c.counters, anchor, c.budget)
        res = covering_design(events, pmcs, constraints=c, seed=seed)
        return Plan(
            res.groups,
            "much",
            pmcs,
            c.fixed,
            [list(s) for s in c.must_share],
            res.lower_bound,
            res.best_known,
            list(events),
            res.optimal,
        )
    raise HemkitError(f"unknown design {design!r}; use 'much' or 'hrm'")


__all__ = ["Plan", "make_plan", "schonheim_bound", "best_known"]
