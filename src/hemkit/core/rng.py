"""One randomness policy for all of hemkit.

Every function that draws random numbers takes one argument ``seed`` of type
:data:`SeedLike`: an ``int`` (the same int gives the same numbers in any process, in any
order of calls), a :class:`numpy.random.Generator` (used as is, so a caller can thread one
stream through several calls), a :class:`numpy.random.SeedSequence`, or ``None`` (fresh
entropy: different every time).  It is turned into a Generator once, at the top of the
public function, with :func:`as_generator`; sub-tasks get independent streams from
:func:`spawn` (by position) or :func:`child` (by name, so a sub-task's stream does not
depend on which other sub-tasks ran before it).  Nothing touches a global seed: not
``numpy.random.seed``, not the stdlib :mod:`random`, not ``torch.manual_seed``; PyTorch
code takes a local :class:`torch.Generator` from :func:`torch_generator`.

Examples
--------
>>> from hemkit.core.rng import as_generator, child, spawn
>>> a, b = spawn(3, 2)
>>> float(a.random()) == float(spawn(3, 2)[0].random())
True
>>> float(child(3, "copula").random()) == float(child(3, "copula").random())
True
"""

from __future__ import annotations

import numbers
import zlib
from typing import TYPE_CHECKING

import numpy as np

from hemkit.core.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import torch

SeedLike = int | np.integer | np.random.SeedSequence | np.random.Generator | None
"""What every ``seed`` argument accepts."""


def _check_int(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise InputError(f"seed must be a non-negative integer, a numpy Generator or None, got {seed!r}", param="seed")
    value = int(seed)
    if value < 0:
        raise InputError(f"seed must be a non-negative integer, got {value}", param="seed")
    return value


def seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """The :class:`numpy.random.SeedSequence` behind ``seed``.

    A Generator contributes a new child of its own seed sequence (so its stream is
    "spawned", not copied).
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        ss = seed.bit_generator.seed_seq
        if isinstance(ss, np.random.SeedSequence):
            return ss.spawn(1)[0]
        return np.random.SeedSequence(int(seed.integers(2**63)))  # pragma: no cover - exotic bit generators
    if seed is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(_check_int(seed))


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A Generator for ``seed``: a given Generator is returned as is.

    Parameters
    ----------
    seed : int, Generator, SeedSequence or None
        See :data:`SeedLike`.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    InputError
        A negative or non-integer seed.

    Examples
    --------
    The same int gives the same numbers; a Generator is passed through, so one stream can be
    threaded through several calls:

    >>> as_generator(7).integers(100, size=3).tolist() == as_generator(7).integers(100, size=3).tolist()
    True
    >>> g = np.random.default_rng(1)
    >>> as_generator(g) is g
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed_sequence(seed))


def spawn(seed: SeedLike, n: int) -> list[np.random.Generator]:
    """``n`` independent Generators derived from ``seed`` (by position).

    Parameters
    ----------
    seed : int, Generator, SeedSequence or None
        See :data:`SeedLike`; a Generator gives new children of its seed sequence.
    n : int
        How many.

    Returns
    -------
    list of numpy.random.Generator

    Raises
    ------
    InputError
        A negative or non-integer seed.

    Examples
    --------
    >>> gens = spawn(0, 3)
    >>> len(gens), len({float(g.random()) for g in gens})
    (3, 3)
    """
    return [np.random.default_rng(s) for s in seed_sequence(seed).spawn(n)]


def _key(part: str | int) -> int:
    if isinstance(part, str):
        return zlib.crc32(part.encode("utf-8")) | (1 << 32)  # never equal to a small spawn index
    return _check_int(part)


def child(seed: SeedLike, *keys: str | int) -> np.random.Generator:
    """A Generator derived from ``seed`` and the names ``keys``.

    The same seed and keys give the same stream whatever else was drawn before, so e.g. the
    copula merge inside a holdout gets the same numbers whether or not MUCH ran first.

    Parameters
    ----------
    seed : int, Generator, SeedSequence or None
        See :data:`SeedLike`; a Generator gives a new child of its seed sequence, so two
        calls with the same Generator give different streams.
    *keys : str or int
        Names (any text) or non-negative integers; the stream depends on them and their order.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    InputError
        A negative or non-integer seed or integer key.

    Examples
    --------
    >>> float(child(0, "much").random()) == float(child(0, "much").random())
    True
    >>> float(child(0, "much").random()) == float(child(0, "copula").random())
    False
    """
    ss = seed_sequence(seed)
    key = tuple(_key(k) for k in keys)
    return np.random.default_rng(np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + key))


def integer_seed(seed: SeedLike) -> int:
    """One 63-bit integer drawn from ``seed`` (for libraries that want an int)."""
    return int(as_generator(seed).integers(2**63))


def torch_generator(seed: SeedLike) -> torch.Generator:
    """A local :class:`torch.Generator` seeded from ``seed`` (never the global torch seed)."""
    import torch

    g = torch.Generator()
    g.manual_seed(integer_seed(seed))
    return g


__all__ = ["SeedLike", "as_generator", "child", "integer_seed", "seed_sequence", "spawn", "torch_generator"]
