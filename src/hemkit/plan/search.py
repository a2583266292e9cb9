"""Local search that makes a pair covering smaller: tabu search on uncovered pairs.

The search keeps ``b`` blocks and minimises the number of pairs no block covers, in the
style of Nurmela & Östergård (1993, "Upper bounds for covering designs by simulated
annealing") with the pair-directed neighbourhood of min-conflicts local search: take an
uncovered pair ``{a, c}``; every block holding ``a`` may swap one of its other points for
``c`` (and every block holding ``c`` one for ``a``); the swap that uncovers the fewest and
covers the most pairs wins, a swap is not undone for a few steps (tabu), and now and then a
random swap is taken instead (noise).  When no pair is left uncovered the design is
recorded and the block whose pairs are best covered elsewhere is dropped.

The bookkeeping is bitsets: for each point ``x``, ``unc[x]`` has bit ``z`` set when the
pair ``{x, z}`` is covered by no block, ``one[x]`` when it is covered by exactly one, and
each block is a bit mask too, so the change of a swap is a handful of ``&`` and
``int.bit_count`` operations, whatever the number of points.

Blocks may hold *units* of several counters (events that must share a group) and may have
to pass a feasibility test (counters only some events may use): ``weights`` and ``fits``.

Examples
--------
>>> import numpy as np
>>> from hemkit.plan.constructions import greedy_covering
>>> s = CoverSearch(16, 6, greedy_covering(16, 6), rng=np.random.default_rng(0))
>>> best = s.run(stop_at=10, max_steps=200_000)
>>> len(best)
10
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from hemkit.plan.constructions import pair_counts

Blocks = list[list[int]]

#: probability of a random move instead of the best one
NOISE = 0.02
#: steps a point swapped out of a block may not come back (plus a random 0..TENURE)
TENURE = 3


def _bits(row: np.ndarray) -> int:
    """A boolean row as a Python int bitset (bit i = row[i])."""
    return int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little")


class _Random:
    """Uniform numbers from a numpy Generator, drawn in batches (one call per 4096 numbers)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.buf: list[float] = []

    def __call__(self) -> float:
        if not self.buf:
            self.buf = self.rng.random(4096).tolist()
        return self.buf.pop()

    def below(self, n: int) -> int:
        return min(int(self() * n), n - 1)


class CoverSearch:
    """Tabu search for a pair covering of ``n`` points with blocks of total weight ``<= cap``.

    Parameters
    ----------
    n : int
        Number of points (units).
    cap : int
        Most weight (counters) per block.
    blocks : list of list of int
        A starting covering (every pair covered); it is filled up to ``cap`` at random.
    weights : sequence of int, optional
        Counters each unit takes (default 1).
    fits : callable, optional
        ``fits(block) -> bool`` for constraints beyond the weight.
    rng : numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> from hemkit.plan.constructions import greedy_covering
    >>> s = CoverSearch(9, 3, greedy_covering(9, 3), rng=np.random.default_rng(1))
    >>> len(s.run(stop_at=12, max_steps=5000)), s.stopped
    (12, 'target')
    """

    def __init__(
        self,
        n: int,
        cap: int,
        blocks: Blocks,
        *,
        weights: Sequence[int] | None = None,
        fits: Callable[[Sequence[int]], bool] | None = None,
        rng: np.random.Generator,
    ):
        self.n, self.cap = n, cap
        self.w = list(weights) if weights is not None else [1] * n
        self.uniform = fits is None and all(x == 1 for x in self.w)  # no test needed but the size
        self.fits_fn = fits
        self.rand = _Random(rng)
        self.blocks = [sorted(set(b)) for b in blocks]
        self.mask = [sum(1 << x for x in b) for b in self.blocks]
        self.load = [sum(self.w[x] for x in b) for b in self.blocks]
        self.where: list[set[int]] = [set() for _ in range(n)]
        for i, b in enumerate(self.blocks):
            for x in b:
                self.where[x].add(i)
        cnt = pair_counts(self.blocks, n)
        np.fill_diagonal(cnt, -1)
        self.cnt: list[list[int]] = cnt.tolist()
        self.unc = [_bits(row) for row in cnt == 0]
        self.one = [_bits(row) for row in cnt == 1]
        a, c = np.nonzero(np.triu(cnt == 0, 1))
        self.pairs: list[int] = (a * n + c).tolist()
        self.pos = {p: i for i, p in enumerate(self.pairs)}
        self.steps = 0
        self.stopped = ""
        self._fill()

    # ---------------------------------------------------------------- bookkeeping
    def _add_pair(self, a: int, c: int) -> None:
        p = a * self.n + c if a < c else c * self.n + a
        self.pos[p] = len(self.pairs)
        self.pairs.append(p)

    def _drop_pair(self, a: int, c: int) -> None:
        p = a * self.n + c if a < c else c * self.n + a
        i = self.pos.pop(p)
        last = self.pairs.pop()
        if i < len(self.pairs):
            self.pairs[i] = last
            self.pos[last] = i

    def _inc(self, x: int, z: int) -> None:
        row = self.cnt[x]
        c = row[z] + 1
        row[z] = c
        self.cnt[z][x] = c
        if c == 1:
            bx, bz = 1 << x, 1 << z
            self.unc[x] &= ~bz
            self.unc[z] &= ~bx
            self.one[x] |= bz
            self.one[z] |= bx
            self._drop_pair(x, z)
        elif c == 2:
            self.one[x] &= ~(1 << z)
            self.one[z] &= ~(1 << x)

    def _dec(self, x: int, z: int) -> None:
        row = self.cnt[x]
        c = row[z] - 1
        row[z] = c
        self.cnt[z][x] = c
        if c == 1:
            self.one[x] |= 1 << z
            self.one[z] |= 1 << x
        elif c == 0:
            bx, bz = 1 << x, 1 << z
            self.one[x] &= ~bz
            self.one[z] &= ~bx
            self.unc[x] |= bz
            self.unc[z] |= bx
            self._add_pair(x, z)

    def _remove_block(self, i: int) -> None:
        b = self.blocks[i]
        for j, x in enumerate(b):
            for z in b[:j]:
                self._dec(x, z)
            self.where[x].discard(i)
        last = len(self.blocks) - 1
        if i != last:  # move the last block into slot i
            for x in self.blocks[last]:
                self.where[x].discard(last)
                self.where[x].add(i)
            self.blocks[i], self.mask[i], self.load[i] = self.blocks[last], self.mask[last], self.load[last]
        self.blocks.pop()
        self.mask.pop()
        self.load.pop()

    def _fits(self, block: Sequence[int], load: int) -> bool:
        if load > self.cap:
            return False
        return self.fits_fn is None or self.fits_fn(block)

    def _fill(self) -> None:
        """Add units to blocks with room, most newly covered pairs first, else at random."""
        for i in range(len(self.blocks)):
            while True:
                b, m = self.blocks[i], self.mask[i]
                room = self.cap - self.load[i]
                if room <= 0:
                    break
                order = [u for u in range(self.n) if not (m >> u) & 1 and self.w[u] <= room]
                if not order:
                    break
                order.sort(key=lambda u: (-(self.unc[u] & m).bit_count(), self.rand()))
                for u in order:
                    if self._fits([*b, u], self.load[i] + self.w[u]):
                        self._put(i, u)
                        break
                else:
                    break

    def _put(self, i: int, q: int) -> None:
        for z in self.blocks[i]:
            self._inc(q, z)
        self.blocks[i].append(q)
        self.mask[i] |= 1 << q
        self.load[i] += self.w[q]
        self.where[q].add(i)

    def _swap(self, i: int, x: int, q: int) -> None:
        b = self.blocks[i]
        b.remove(x)
        for z in b:
            self._dec(x, z)
            self._inc(q, z)
        b.append(q)
        self.mask[i] = (self.mask[i] & ~(1 << x)) | (1 << q)
        self.load[i] += self.w[q] - self.w[x]
        self.where[x].discard(i)
        self.where[q].add(i)

    # ---------------------------------------------------------------------- moves
    def _candidates(self, a: int, c: int) -> list[tuple[int, int, int, int]]:
        """All moves that cover ``{a, c}``: ``(delta, block, out or -1, in)``."""
        out = []
        one, w, cap = self.one, self.w, self.cap
        for p, q in ((a, c), (c, a)):
            uq = self.unc[q]
            wq = w[q]
            for i in self.where[p]:
                m = self.mask[i]
                g = (uq & m).bit_count()
                if self.load[i] + wq <= cap:
                    out.append((-g, i, -1, q))
                for x in self.blocks[i]:
                    if x != p:
                        out.append(((one[x] & m).bit_count() - g + ((uq >> x) & 1), i, x, q))
        return out

    def _step(self, tabu: dict[int, int], best_cost: int) -> None:
        """One move: cover a random uncovered pair by the best allowed swap (or a random one)."""
        n = self.n
        a, c = divmod(self.pairs[self.rand.below(len(self.pairs))], n)
        cands = self._candidates(a, c)
        if not cands:
            return
        cost, step = len(self.pairs), self.steps
        if self.rand() < NOISE:
            order = [cands[self.rand.below(len(cands))]]
        else:
            best_d: int | None = None
            ties: list[tuple[int, int, int, int]] = []
            for cand in cands:
                d, i, _x, q = cand
                if tabu.get(i * n + q, -1) > step and cost + d >= best_cost:
                    continue  # tabu, unless it beats the best cost of this level (aspiration)
                if best_d is None or d < best_d:
                    best_d, ties = d, [cand]
                elif d == best_d:
                    ties.append(cand)
            if not ties:
                return
            order = [ties[self.rand.below(len(ties))]]
        if not self.uniform:  # the chosen move may break a constraint: then the next best
            order += sorted(cands, key=lambda t: t[0])
        for _d, i, x, q in order:
            if not self.uniform:
                new = [y for y in self.blocks[i] if y != x] + [q]
                if not self._fits(new, self.load[i] - (self.w[x] if x >= 0 else 0) + self.w[q]):
                    continue
            if x < 0:
                self._put(i, q)
            else:
                self._swap(i, x, q)
                tabu[i * n + x] = step + TENURE + self.rand.below(TENURE + 1)
            return

    def _cheapest_block(self) -> int:
        """The block whose removal leaves the fewest pairs uncovered."""
        one = self.one
        best_i, best_loss = 0, None
        for i, b in enumerate(self.blocks):
            m = self.mask[i]
            loss = sum((one[x] & m).bit_count() for x in b)
            if best_loss is None or loss < best_loss:
                best_i, best_loss = i, loss
        return best_i

    # ------------------------------------------------------------------------ run
    def run(
        self,
        *,
        stop_at: int = 1,
        max_steps: int = 1_000_000,
        deadline: float | None = None,
        on_level: Callable[[int], None] | None = None,
    ) -> Blocks:
        """Search until ``stop_at`` blocks, ``max_steps`` steps without a smaller design, or ``deadline``.

        Returns the smallest covering found (the starting one if none is smaller);
        ``self.stopped`` says why it ended (``"target"``, ``"step budget"``, ``"time budget"``).
        ``on_level(b)`` is called with each new size (and about every 2000 steps with the
        current best size, so a progress display can follow the clock).
        """
        best: Blocks = [sorted(b) for b in self.blocks] if not self.pairs else []
        tabu: dict[int, int] = {}
        since = 0
        best_cost = len(self.pairs)
        while True:
            if not self.pairs:
                best = [sorted(b) for b in self.blocks]
                if on_level is not None:
                    on_level(len(best))
                if len(best) <= stop_at:
                    self.stopped = "target"
                    break
                self._remove_block(self._cheapest_block())
                tabu.clear()
                since = 0
                best_cost = len(self.pairs)
                continue
            if since >= max_steps:
                self.stopped = "step budget"
                break
            if since % 100 == 0 and since:
                if deadline is not None and time.monotonic() > deadline:
                    self.stopped = "time budget"
                    break
                if on_level is not None and best and since % 2000 == 0:
                    on_level(len(best))
            self._step(tabu, best_cost)
            best_cost = min(best_cost, len(self.pairs))
            self.steps += 1
            since += 1
        return best


__all__ = ["CoverSearch"]
