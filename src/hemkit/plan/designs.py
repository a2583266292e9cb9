"""Group designs: which events to read together when only ``np`` counters exist.

Two designs from the HRM/MUCH papers (Vilardell et al., SAC 2021, Sec. 3-4):

- **HRM** (:func:`hrm_design`): one *anchor* event read in every group, the other
  ``nh - 1`` events spread over ``ceil((nh - 1) / (np - 1))`` groups of balanced size.
- **MUCH** (:func:`much_design`): a *pair-covering design* C(v, k, 2): groups of at most
  ``k = np`` events such that every pair of events is read together at least once
  (MUCH step 1).  Built by a greedy (the paper's "adding the lowest order HEM not yet
  observed" process, here picking the event that covers most new pairs) and then made
  smaller by simulated annealing in the style of Nurmela & Östergård (1993, "Upper bounds
  for covering designs by simulated annealing"): with ``b`` groups fixed, repeatedly take
  an uncovered pair ``{a, c}``, a group holding ``a`` and swap one of its other events for
  ``c``; cost = number of uncovered pairs; when it reaches 0, drop a group and go on.

The size is reported next to the Schönheim lower bound
``L(v, k) = ceil(v / k * ceil((v - 1) / (k - 1)))`` and, where known, the best size
published in the La Jolla Covering Repository (:data:`BEST_KNOWN`).

Constraints (:class:`Constraints`): events that must share a group (perf groups) are
treated as one unit that occupies several counters; events restricted to certain
counters make a group feasible only if a matching of events to counters exists; a
fixed event (e.g. ``cycles``) joins every group and takes one counter; a per-group
budget caps the group size below ``np``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from hemkit.errors import HemkitError

#: Best known sizes of pair coverings C(v, k, 2) from the La Jolla Covering Repository
#: (https://ljcr.dmgordon.org/cover/table.html), for the cases hemkit's docs and tests
#: name.  Values equal to the Schönheim bound are optimal.  For k = 2 the size is
#: v(v-1)/2 and for k = 3 it equals the Schönheim bound (Fort & Hedlund 1958); see
#: :func:`best_known`.
BEST_KNOWN: dict[tuple[int, int], int] = {
    (7, 3): 7,  # Fano plane
    (7, 4): 5,
    (9, 4): 8,
    (10, 4): 9,
    (13, 4): 13,  # projective plane of order 3
    (16, 4): 20,  # affine plane of order 4
    (16, 6): 10,
    (21, 5): 21,  # projective plane of order 4
    (25, 5): 30,  # affine plane of order 5
}


def schonheim_bound(v: int, k: int) -> int:
    """Schönheim lower bound on the number of groups of size ``k`` covering all pairs of ``v`` events.

    Examples
    --------
    >>> schonheim_bound(16, 6), schonheim_bound(10, 4)
    (8, 8)
    """
    if v <= 1:
        return 0
    if k >= v:
        return 1
    if k < 2:
        raise HemkitError(f"groups of {k} event(s) cannot cover pairs; need at least 2 counters")
    return math.ceil(v / k * math.ceil((v - 1) / (k - 1)))


def best_known(v: int, k: int) -> int | None:
    """Best published covering size C(v, k, 2), or None when hemkit does not know it."""
    if v <= 1:
        return 0
    if k >= v:
        return 1
    if k == 2:
        return v * (v - 1) // 2
    if k == 3:
        return schonheim_bound(v, 3)
    return BEST_KNOWN.get((v, k))


@dataclass(frozen=True)
class Constraints:
    """What limits the groups beyond the counter count.

    Parameters
    ----------
    must_share : sequence of sequences of str
        Sets of events that must be read in the same group (e.g. a perf group).
    counters : mapping of str -> sequence of int
        Event -> the counter indices (0 .. np-1) it may use.  Unlisted events may use any.
    fixed : str, optional
        An event read in every group (e.g. ``cycles``); it takes one counter.
    budget : int, optional
        Most events per group (including ``fixed``), when below ``np``.
    """

    must_share: Sequence[Sequence[str]] = ()
    counters: Mapping[str, Sequence[int]] = field(default_factory=dict)
    fixed: str | None = None
    budget: int | None = None


# --------------------------------------------------------------------- helpers
def _check_events(events: Sequence[str]) -> list[str]:
    events = [str(e) for e in events]
    if not events:
        raise HemkitError("no events to plan")
    seen: set[str] = set()
    for e in events:
        if not e.strip():
            raise HemkitError("an event name is empty")
        if e in seen:
            raise HemkitError(f"event {e!r} is given twice")
        seen.add(e)
    return events


def _counter_match(events: Sequence[str], counters: Mapping[str, Sequence[int]], n_counters: int) -> bool:
    """Whether each event can get its own counter (bipartite matching, augmenting paths)."""
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


class _Problem:
    """Units (events or must-share sets) with weights and a feasibility test for a group."""

    def __init__(self, events: Sequence[str], pmcs: int, constraints: Constraints):
        c = constraints
        if pmcs < 1:
            raise HemkitError(f"--pmcs must be at least 1, got {pmcs}")
        cap = pmcs if c.budget is None else min(pmcs, c.budget)
        if c.budget is not None and c.budget < 1:
            raise HemkitError(f"budget must be at least 1, got {c.budget}")
        self.fixed = c.fixed
        self.n_counters = pmcs
        self.counters = {str(k): list(v) for k, v in c.counters.items()}
        for e, cs in self.counters.items():
            if e not in events and e != c.fixed:
                raise HemkitError(f"counter restriction names unknown event {e!r}")
            bad = [x for x in cs if not 0 <= int(x) < pmcs]
            if bad or not cs:
                raise HemkitError(f"event {e!r} is restricted to counter(s) {list(cs)} outside 0..{pmcs - 1}")
        rest = [e for e in events if e != c.fixed]
        if c.fixed is not None:
            cap -= 1
            if cap < 1:
                raise HemkitError(f"fixed event {c.fixed!r} leaves no counter for other events (budget {cap + 1})")
        self.cap = cap
        parent: dict[str, str] = {}  # union-find: overlapping must-share sets become one unit

        def root(e: str) -> str:
            while parent.setdefault(e, e) != e:
                e = parent[e]
            return e

        for s in c.must_share:
            s = [str(e) for e in s]
            for e in s:
                if e not in events:
                    raise HemkitError(f"must-share set {s} names unknown event {e!r}")
            members = [e for e in s if e != c.fixed]
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
        self.units = units
        self.weights = [len(u) for u in units]
        for u, w in zip(units, self.weights):
            if w > cap:
                raise HemkitError(f"must-share set {u} needs {w} counters but a group has only {cap}")
            if not self.fits_events(u):
                raise HemkitError(f"must-share set {u} cannot be placed on the allowed counters")
        self.uniform = all(w == 1 for w in self.weights) and not self.counters

    def fits_events(self, evs: Sequence[str]) -> bool:
        full = list(evs) + ([self.fixed] if self.fixed else [])
        if len(full) > self.n_counters:
            return False
        if not self.counters:
            return True
        return _counter_match(full, self.counters, self.n_counters)

    def fits(self, block: Sequence[int]) -> bool:
        if sum(self.weights[u] for u in block) > self.cap:
            return False
        if self.uniform:
            return True
        return self.fits_events([e for u in block for e in self.units[u]])

    def groups(self, blocks: Sequence[Sequence[int]]) -> list[list[str]]:
        out = []
        for b in blocks:
            evs = [e for u in sorted(b) for e in self.units[u]]
            out.append(([self.fixed] if self.fixed else []) + evs)
        return out


# ------------------------------------------------------------------------ HRM
def hrm_design(
    events: Sequence[str], pmcs: int, *, anchor: str | None = None, constraints: Constraints | None = None
) -> list[list[str]]:
    """HRM groups: ``anchor`` in every group, the rest in ``ceil((nh-1)/(np-1))`` balanced groups.

    Parameters
    ----------
    events : sequence of str
    pmcs : int
        Counters per run (``np``).
    anchor : str, optional
        The event read in every group; default the first event.
    constraints : Constraints, optional
        ``must_share``, ``counters`` and ``budget`` apply; ``fixed`` must be the anchor if given.

    Examples
    --------
    >>> hrm_design(["cycles", "a", "b", "c", "d", "e"], 3)
    [['cycles', 'a', 'b'], ['cycles', 'c', 'd'], ['cycles', 'e']]
    """
    events = _check_events(events)
    c = constraints or Constraints()
    anchor = anchor or c.fixed or events[0]
    if anchor not in events:
        raise HemkitError(f"anchor {anchor!r} is not among the events")
    if c.fixed is not None and c.fixed != anchor:
        raise HemkitError(f"HRM has one event in every group, the anchor {anchor!r}; fixed event {c.fixed!r} differs")
    if pmcs < 2:
        raise HemkitError("HRM needs at least 2 counters (the anchor and one more)")
    prob = _Problem(events, pmcs, Constraints(c.must_share, c.counters, anchor, c.budget))
    n_units = len(prob.units)
    if n_units == 0:
        return [[anchor]]
    total = sum(prob.weights)
    n_groups = math.ceil(total / prob.cap)
    if prob.uniform:  # equal sizes: consecutive chunks whose sizes differ by at most one
        q, r = divmod(n_units, n_groups)
        bounds = [0]
        for g in range(n_groups):
            bounds.append(bounds[-1] + q + (g < r))
        return prob.groups([list(range(a, b)) for a, b in zip(bounds, bounds[1:])])
    while n_groups <= n_units:
        # balanced: largest units first into the currently lightest group that fits
        blocks: list[list[int]] = [[] for _ in range(n_groups)]
        load = [0] * n_groups
        ok = True
        for u in sorted(range(n_units), key=lambda u: (-prob.weights[u], u)):
            for g in sorted(range(n_groups), key=lambda g: (load[g], g)):
                if prob.fits(blocks[g] + [u]):
                    blocks[g].append(u)
                    load[g] += prob.weights[u]
                    break
            else:
                ok = False
                break
        if ok:
            return prob.groups([b for b in blocks if b])
        n_groups += 1
    raise HemkitError("no HRM grouping satisfies the counter restrictions")  # pragma: no cover


# ----------------------------------------------------------------------- MUCH
def _uncovered_pairs(prob: _Problem) -> list[tuple[int, int]]:
    """Pairs of units that cannot share any group (counter restrictions)."""
    bad = []
    for a, b in combinations(range(len(prob.units)), 2):
        if not prob.fits([a, b]):
            bad.append((a, b))
    return bad


def _greedy(prob: _Problem, rng: random.Random) -> list[list[int]]:
    """Greedy covering: grow each group with the unit that covers most new pairs."""
    n = len(prob.units)
    uncovered = [[a != b for b in range(n)] for a in range(n)]
    left = [n - 1] * n  # uncovered partners per unit
    blocks: list[list[int]] = []
    while any(left):
        top = max(left)
        start = rng.choice([u for u in range(n) if left[u] == top])
        block = [start]
        while True:
            best, best_gain = [], 0
            for u in range(n):
                if u in block:
                    continue
                gain = sum(uncovered[u][b] for b in block)
                if gain > best_gain:
                    best, best_gain = [u], gain
                elif gain == best_gain and gain > 0:
                    best.append(u)
            cands = [u for u in best if prob.fits(block + [u])]
            if not cands or best_gain == 0:
                # the best units do not fit: take the best that does
                alt = sorted(
                    (
                        (sum(uncovered[u][b] for b in block), u)
                        for u in range(n)
                        if u not in block and prob.fits(block + [u])
                    ),
                    reverse=True,
                )
                if not alt or alt[0][0] == 0:
                    break
                cands = [u for g, u in alt if g == alt[0][0]]
            u = rng.choice(cands)
            for b in block:
                if uncovered[u][b]:
                    uncovered[u][b] = uncovered[b][u] = False
                    left[u] -= 1
                    left[b] -= 1
            block.append(u)
        blocks.append(block)
    return blocks


def _prune(blocks: list[list[int]], n: int) -> list[list[int]]:
    """Drop groups whose pairs are all covered elsewhere."""
    count = [[0] * n for _ in range(n)]
    for b in blocks:
        for x, y in combinations(b, 2):
            count[x][y] += 1
            count[y][x] += 1
    keep = []
    for b in sorted(blocks, key=len):
        if len(b) > 1 and all(count[x][y] > 1 for x, y in combinations(b, 2)):
            for x, y in combinations(b, 2):
                count[x][y] -= 1
                count[y][x] -= 1
        else:
            keep.append(b)
    return keep


def _anneal(
    prob: _Problem,
    blocks: list[list[int]],
    rng: random.Random,
    iters: int,
    t0: float = 1.0,
    cool: float = 0.999,
    floor: float = 0.05,
) -> list[list[int]] | None:
    """Try to cover every pair with exactly ``len(blocks)`` groups; None if the budget runs out."""
    n = len(prob.units)
    blocks = [list(b) for b in blocks]
    # fill groups up to capacity with random units (more pairs, same count)
    for b in blocks:
        others = [u for u in range(n) if u not in b]
        rng.shuffle(others)
        for u in others:
            if prob.fits(b + [u]):
                b.append(u)
    count = [[0] * n for _ in range(n)]
    for b in blocks:
        for x, y in combinations(b, 2):
            count[x][y] += 1
            count[y][x] += 1
    # indexable set of uncovered pairs
    pos: dict[tuple[int, int], int] = {}
    unc: list[tuple[int, int]] = []

    def add(p):
        pos[p] = len(unc)
        unc.append(p)

    def remove(p):
        i = pos.pop(p)
        last = unc.pop()
        if i < len(unc):
            unc[i] = last
            pos[last] = i

    for x, y in combinations(range(n), 2):
        if count[x][y] == 0:
            add((x, y))
    holding: list[set[int]] = [set() for _ in range(n)]
    for i, b in enumerate(blocks):
        for u in b:
            holding[u].add(i)
    temp = t0
    for _ in range(iters):
        if not unc:
            return blocks
        a, c = rng.choice(unc)
        if rng.random() < 0.5:
            a, c = c, a
        if not holding[a]:
            continue
        bi = rng.choice(tuple(holding[a]))
        b = blocks[bi]
        x = rng.choice(b)
        if x == a:
            continue
        rest = [y for y in b if y != x]
        if not prob.uniform and not prob.fits(rest + [c]):
            continue
        delta = sum(count[x][y] == 1 for y in rest) - sum(count[c][y] == 0 for y in rest)
        if delta <= 0 or rng.random() < math.exp(-delta / temp):
            for y in rest:
                count[x][y] -= 1
                count[y][x] -= 1
                if count[x][y] == 0:
                    add((min(x, y), max(x, y)))
                if count[c][y] == 0:
                    remove((min(c, y), max(c, y)))
                count[c][y] += 1
                count[y][c] += 1
            b[b.index(x)] = c
            holding[x].discard(bi)
            holding[c].add(bi)
        temp = max(temp * cool, floor)
    return blocks if not unc else None


@dataclass
class CoveringResult:
    """A pair-covering design and how good it is."""

    groups: list[list[str]]
    greedy_size: int
    lower_bound: int
    best_known: int | None
    optimal: bool = False

    @property
    def size(self) -> int:
        return len(self.groups)

    def summary(self) -> str:
        known = "?" if self.best_known is None else str(self.best_known)
        return (
            f"{self.size} groups (greedy {self.greedy_size}, Schönheim bound {self.lower_bound}, "
            f"best known {known}{', proven optimal' if self.optimal else ''})"
        )


def _candidate_blocks(prob: _Problem, limit: int) -> list[tuple[int, ...]] | None:
    """Every feasible group that no other unit could join (None when more than ``limit``)."""
    n = len(prob.units)
    if math.comb(n, min(prob.cap, n)) > 4 * limit:
        return None
    out = []
    for size in range(min(prob.cap, n), 1, -1):
        for b in combinations(range(n), size):
            if prob.fits(list(b)) and not any(prob.fits([*b, u]) for u in range(n) if u not in b):
                out.append(b)
                if len(out) > limit:
                    return None
    return out


def _ilp(prob: _Problem, upper: int, time_limit: float, limit: int = 1500):
    """Exact covering by integer programming (scipy/HiGHS) over all maximal feasible groups.

    Minimise the number of groups such that every pair of units shares one.  Returns
    ``(blocks, proven_optimal)`` or None when the instance is too large or nothing better
    than ``upper`` was found in ``time_limit`` seconds.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_matrix

    cands = _candidate_blocks(prob, limit)
    if not cands:
        return None
    n = len(prob.units)
    pair_id = {p: i for i, p in enumerate(combinations(range(n), 2))}
    rows, cols = [], []
    for j, b in enumerate(cands):
        for p in combinations(b, 2):
            rows.append(pair_id[p])
            cols.append(j)
    a = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(pair_id), len(cands)))
    res = milp(
        np.ones(len(cands)),
        constraints=LinearConstraint(a, lb=1),
        integrality=np.ones(len(cands)),
        bounds=Bounds(0, 1),
        options={"time_limit": time_limit, "disp": False},
    )
    if res.x is None:
        return None
    chosen = [list(cands[j]) for j in np.flatnonzero(res.x > 0.5)]
    proven = res.status == 0
    # a time-limited answer is used only when it is smaller: results stay reproducible
    if len(chosen) > upper or (not proven and len(chosen) == upper):
        return None
    return chosen, proven


def covering_design(
    events: Sequence[str],
    pmcs: int,
    *,
    constraints: Constraints | None = None,
    seed: int = 0,
    effort: float = 1.0,
    exact_time: float = 5.0,
) -> CoveringResult:
    """MUCH groups: every pair of events read together at least once, as few groups as found.

    Parameters
    ----------
    events : sequence of str
    pmcs : int
        Counters per run (``np``): the most events per group.
    constraints : Constraints, optional
    seed : int
        Seeds the greedy's tie-breaking and the annealing.
    effort : float
        Scales the annealing's iteration budget (0 = greedy only).
    exact_time : float
        Seconds for an exact integer program (scipy's HiGHS) when the annealed design is
        above the lower bound and the instance is small (at most 1500 candidate groups);
        it proves the size optimal or finds a smaller design.  0 turns it off.

    Returns
    -------
    CoveringResult
        ``.groups`` plus the greedy size, the Schönheim bound and the best known size.

    Examples
    --------
    >>> r = covering_design([f"e{i}" for i in range(7)], 3)
    >>> r.size, r.lower_bound
    (7, 7)
    """
    events = _check_events(events)
    prob = _Problem(events, pmcs, constraints or Constraints())
    n = len(prob.units)
    rng = random.Random(seed)
    if prob.cap < 2 and n >= 2:
        raise HemkitError(
            f"groups of {prob.cap} event(s) besides fixed ones cannot cover pairs; MUCH needs at least 2 counters"
        )
    impossible = _uncovered_pairs(prob)
    if impossible:
        a, b = impossible[0]
        raise HemkitError(
            f"events {prob.units[a][0]!r} and {prob.units[b][0]!r} can never be read together "
            "(counter restrictions or group budget); no MUCH design covers that pair"
        )
    k = prob.cap
    if n <= 1:
        return CoveringResult(prob.groups([list(range(n))]), 1, 1, 1)
    blocks = _prune(_greedy(prob, rng), n)
    greedy_size = len(blocks)
    for _ in range(4 if effort > 0 else 0):  # a few seeded greedy restarts
        other = _prune(_greedy(prob, rng), n)
        if len(other) < len(blocks):
            blocks = other
    greedy_size = min(greedy_size, len(blocks))
    lb = schonheim_bound(n, k) if prob.uniform else _weighted_bound(prob)
    known = best_known(n, k) if prob.uniform else None
    target = max(lb, known or 0)
    iters = int(effort * 4000 * n * k)
    while effort > 0 and len(blocks) > target:
        trial = [list(b) for b in blocks]
        # drop a smallest group; the annealing then has to cover its pairs elsewhere
        trial.sort(key=len)
        trial = trial[1:]
        found = None
        # attempts with different schedules: a quick quench, then a warmer, slower search
        for cool, floor in ((0.999, 0.05), (0.9995, 0.3), (0.9995, 0.15)):
            found = _anneal(prob, trial, rng, iters, cool=cool, floor=floor)
            if found is not None:
                break
        if found is None:
            break
        blocks = _prune(found, n)
    optimal = len(blocks) <= lb
    if not optimal and effort > 0 and exact_time > 0:
        exact = _ilp(prob, len(blocks), exact_time)
        if exact is not None:
            blocks, optimal = exact
    blocks = [sorted(b) for b in blocks]
    blocks.sort()
    return CoveringResult(prob.groups(blocks), greedy_size, lb, known, optimal)


def _weighted_bound(prob: _Problem) -> int:
    """A lower bound with unequal unit sizes: a unit of weight w meets at most cap - w others per group."""
    n = len(prob.units)
    if n <= 1:
        return 1
    per_unit = [math.ceil((n - 1) / max(1, prob.cap - w)) if prob.cap > w else n for w in prob.weights]
    # every unit needs enough groups to meet all others
    return max(1, math.ceil(max(per_unit)))


def much_design(events: Sequence[str], pmcs: int, **kwargs) -> list[list[str]]:
    """Groups of a MUCH pair-covering design; see :func:`covering_design`.

    Examples
    --------
    >>> len(much_design([f"e{i}" for i in range(10)], 4))
    9
    """
    return covering_design(events, pmcs, **kwargs).groups


def pairs_covered(groups: Sequence[Sequence[str]], events: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs of ``events`` never read in the same group (empty when the design covers all)."""
    together = set()
    for g in groups:
        together.update(frozenset(p) for p in combinations(g, 2))
    return [(a, b) for a, b in combinations(events, 2) if frozenset((a, b)) not in together]
