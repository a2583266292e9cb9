"""valgrind's cachegrind: exact, deterministic event counts where no PMU exists.

``valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes`` simulates an L1 instruction
cache, an L1 data cache and a last-level cache (LL), and a branch predictor, and counts per
function: ``Ir`` (instructions), ``I1mr``/``ILmr`` (their L1 / LL misses), ``Dr``/``Dw`` (data
reads / writes), ``D1mr``/``D1mw`` and ``DLmr``/``DLmw`` (their L1 / LL misses), ``Bc``/``Bcm``
(conditional branches executed / mispredicted), ``Bi``/``Bim`` (indirect branches / mispredicted).
hemkit's metric derivation uses them as raw events with a documented meaning.

The cache geometry is given explicitly (:class:`CacheGeometry`), because valgrind's own
detection is unreliable under virtualisation (on a KVM guest here it simulates a 256 MiB
direct-mapped LL).  cachegrind needs a power-of-two number of sets; :meth:`CacheSpec.simulable`
adjusts the associativity the way valgrind does for odd-sized last-level caches.

Examples
--------
>>> CacheSpec.parse("32k,8,64").option()
'32768,8,64'
>>> counts = run_cachegrind(["true"], geometry=CacheGeometry.default())   # doctest: +SKIP
>>> counts.functions.loc["main", "Ir"]                                       # doctest: +SKIP
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from hemkit.core.errors import InputError, MeasurementError, SetupError
from hemkit.external.process import describe_status, find_tool, run

#: cachegrind's events with ``--cache-sim=yes --branch-sim=yes``, in the order of its output
CACHEGRIND_EVENTS = ("Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw", "Bc", "Bcm", "Bi", "Bim")

_SIZE = re.compile(r"^\s*([0-9]+)\s*([kKmMgG]?)(?:i?[bB])?\s*$")


def _size(text: str, what: str) -> int:
    m = _SIZE.match(text)
    if not m:
        raise InputError(f"{what}: {text!r} is not a size (like 32768, 32k or 8M)")
    return int(m.group(1)) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[m.group(2).lower()]


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@dataclass(frozen=True)
class CacheSpec:
    """One simulated cache: total size in bytes, associativity (ways) and line size in bytes.

    Examples
    --------
    >>> CacheSpec(12 * 2**20, 12, 64).simulable()        # 16384 sets: fine as it is
    CacheSpec(size=12582912, assoc=12, line=64)
    >>> CacheSpec(30 * 2**20, 20, 64).simulable()        # 24576 sets: 30 ways of 16384 sets
    CacheSpec(size=31457280, assoc=30, line=64)
    """

    size: int
    assoc: int
    line: int = 64

    @classmethod
    def parse(cls, text: str, what: str = "cache") -> CacheSpec:
        """``SIZE,ASSOC,LINE`` (``32k,8,64``); raises :class:`InputError` naming ``what``."""
        parts = [p.strip() for p in str(text).split(",")]
        if len(parts) != 3:
            raise InputError(f"{what}: expected SIZE,ASSOC,LINE like 32k,8,64, got {text!r}")
        size = _size(parts[0], what)
        try:
            assoc, line = int(parts[1]), _size(parts[2], what)
        except ValueError:
            raise InputError(f"{what}: associativity {parts[1]!r} is not a whole number") from None
        return cls(size, assoc, line).checked(what)

    def checked(self, what: str = "cache") -> CacheSpec:
        """The simulable form of this spec (:meth:`simulable`), or an :class:`InputError` naming ``what``."""
        if self.line < 4 or not _power_of_two(self.line):
            raise InputError(f"{what}: line size {self.line} must be a power of two >= 4")
        if self.assoc < 1:
            raise InputError(f"{what}: associativity must be at least 1, got {self.assoc}")
        if self.size < self.line * self.assoc or self.size % (self.line * self.assoc):
            raise InputError(
                f"{what}: size {self.size} must be a multiple of associativity x line = {self.assoc * self.line}"
            )
        spec = self.simulable()
        if not _power_of_two(spec.size // (spec.assoc * spec.line)):
            raise InputError(
                f"{what}: {self.size} bytes, {self.assoc} ways cannot be simulated (sets not a power of 2)"
            )
        return spec

    def simulable(self) -> CacheSpec:
        """The same size with the associativity adjusted so that the number of sets is a power of two."""
        sets = self.size // (self.assoc * self.line)
        if _power_of_two(sets) or sets < 1:
            return self
        p2 = 1 << (sets.bit_length() - 1)
        assoc = self.size // (p2 * self.line)
        return CacheSpec(self.size, assoc, self.line) if assoc * p2 * self.line == self.size else self

    def option(self) -> str:
        """Cachegrind's ``SIZE,ASSOC,LINE`` form."""
        return f"{self.size},{self.assoc},{self.line}"


@dataclass(frozen=True)
class CacheGeometry:
    """The three caches cachegrind simulates: L1 instructions, L1 data, last level (LL).

    Examples
    --------
    >>> g = CacheGeometry(CacheSpec(32768, 8), CacheSpec(32768, 8), CacheSpec(32 * 2**20, 16))
    >>> g.options()
    ['--I1=32768,8,64', '--D1=32768,8,64', '--LL=33554432,16,64']
    """

    I1: CacheSpec
    D1: CacheSpec
    LL: CacheSpec

    def options(self) -> list[str]:
        """Cachegrind's command-line options for this geometry."""
        return [f"--I1={self.I1.option()}", f"--D1={self.D1.option()}", f"--LL={self.LL.option()}"]

    def line(self) -> str:
        """``L1 32768 B 8-way, LL 33554432 B 16-way, 64 B lines``."""
        return (
            f"L1d {self.D1.size} B {self.D1.assoc}-way, LL {self.LL.size} B {self.LL.assoc}-way, {self.D1.line} B lines"
        )

    @classmethod
    def default(cls) -> CacheGeometry:
        """A common x86 server geometry: 32 KiB 8-way L1s, 32 MiB 16-way LL, 64-byte lines."""
        return cls(CacheSpec(32768, 8), CacheSpec(32768, 8), CacheSpec(32 * 2**20, 16))


@dataclass(frozen=True)
class CachegrindResult:
    """One cachegrind run: per-function counts and how the program ended.

    Attributes
    ----------
    events : tuple of str
        The event names, in cachegrind's order.
    functions : DataFrame
        One row per function (index: name, counts summed over its source files), one column per event.
    returncode : int
    stdout, stderr : str
        The program's output (stdout) and valgrind's messages (stderr, last 4000 characters).
    seconds : float
        Wall time.
    """

    events: tuple[str, ...]
    functions: pd.DataFrame
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def find_valgrind(valgrind: str | None = None) -> str:
    """Path of ``valgrind`` (``$HEMKIT_VALGRIND``, then PATH), or a :class:`SetupError` saying how to install it."""
    return find_tool(
        valgrind, env="HEMKIT_VALGRIND", default="valgrind", install="Debian/Ubuntu: apt-get install valgrind"
    )


def valgrind_version(valgrind: str | None = None) -> str:
    """``valgrind --version`` (e.g. ``valgrind-3.19.0``), or ``"unknown"``."""
    try:
        return run([find_valgrind(valgrind), "--version"], timeout=30).stdout.strip() or "unknown"
    except (SetupError, MeasurementError):
        return "unknown"


def parse_cachegrind_out(text: str, source: str = "cachegrind output") -> tuple[tuple[str, ...], pd.DataFrame]:
    """Per-function counts of a ``cachegrind.out`` file: (events, DataFrame function x event).

    Lines ``fn=NAME`` (or ``fn=(N) NAME`` in compressed form) start a function; each count line
    ``LINE c1 c2 ...`` adds to it (missing trailing counts are zero).

    Raises
    ------
    MeasurementError
        No ``events:`` line, or a count line that is not numbers.

    Examples
    --------
    >>> ev, f = parse_cachegrind_out("events: Ir Bc\\nfl=a.c\\nfn=main\\n1 5 1\\n2 3\\nfn=hk\\n0 7 2\\n")
    >>> ev, f.loc["main"].tolist(), f.loc["hk"].tolist()
    (('Ir', 'Bc'), [8, 1], [7, 2])
    """
    events: tuple[str, ...] = ()
    sums: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    current: list[int] | None = None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("events:"):
            events = tuple(line.split(":", 1)[1].split())
        elif line.startswith("fn="):
            if not events:
                raise MeasurementError(f"{source}: function before the events line (line {n})")
            name = line[3:].strip()
            m = re.match(r"^\((\d+)\)\s*(.*)$", name)
            if m:
                name = m.group(2) or names.get(m.group(1), m.group(1))
                names.setdefault(m.group(1), name)
            current = sums.setdefault(name, [0] * len(events))
        elif line[:1].isdigit() and current is not None:
            parts = line.split()
            try:
                values = [int(p) for p in parts[1:]]
            except ValueError:
                raise MeasurementError(f"{source}: line {n} is not a count line: {line[:60]!r}") from None
            if len(values) > len(events):
                raise MeasurementError(f"{source}: line {n} has {len(values)} counts for {len(events)} events")
            for i, v in enumerate(values):
                current[i] += v
    if not events:
        raise MeasurementError(f"{source}: no 'events:' line (not a cachegrind output file)")
    frame = pd.DataFrame.from_dict(sums, orient="index", columns=list(events)) if sums else pd.DataFrame(columns=events)
    return events, frame


def run_cachegrind(
    command: Sequence[str],
    *,
    geometry: CacheGeometry,
    timeout: float | None = None,
    valgrind: str | None = None,
    what: str | None = None,
) -> CachegrindResult:
    """Run ``command`` under ``valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes``.

    Parameters
    ----------
    command : sequence of str
        The program and its arguments (run with the user's environment).
    geometry : CacheGeometry
        The simulated I1, D1 and LL caches.
    timeout : float, optional
        Seconds before the run is stopped (then a :class:`MeasurementError`).
    valgrind : str, optional
        valgrind binary (default ``$HEMKIT_VALGRIND`` or ``valgrind`` on PATH).
    what : str, optional
        How to name the program in messages.

    Raises
    ------
    SetupError
        valgrind is missing.
    MeasurementError
        The program exited non-zero or was killed, valgrind failed, or wrote no counts.
    """
    if not command:
        raise InputError("no command to run under valgrind")
    exe = find_valgrind(valgrind)
    name = what or os.path.basename(command[0])
    with tempfile.TemporaryDirectory(prefix="hemkit-cachegrind-") as tmp:
        out = os.path.join(tmp, "cachegrind.out")
        args = [
            exe,
            "--tool=cachegrind",
            "--cache-sim=yes",
            "--branch-sim=yes",
            f"--cachegrind-out-file={out}",
            *geometry.options(),
            "--",
            *command,
        ]
        t0 = time.perf_counter()
        try:
            proc = run(args, timeout=timeout, what=f"valgrind ({name})")
        except MeasurementError as exc:
            raise MeasurementError(f"{name} under valgrind: {exc}") from None
        seconds = time.perf_counter() - t0
        text = Path(out).read_text(errors="replace") if os.path.exists(out) else ""
    err = proc.stderr or ""
    if proc.returncode != 0:
        lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("==", "--"))]
        tail = lines[-1] if lines else (err.strip().splitlines() or [""])[-1]
        raise MeasurementError(
            f"{name} failed under valgrind ({describe_status(proc.returncode)}){': ' + tail if tail else ''}"
        )
    if not text:
        raise MeasurementError(f"valgrind wrote no cachegrind counts for {name}")
    events, functions = parse_cachegrind_out(text, source=f"cachegrind output of {name}")
    return CachegrindResult(events, functions, proc.returncode, proc.stdout, err[-4000:], seconds)


__all__ = [
    "CACHEGRIND_EVENTS",
    "CacheGeometry",
    "CacheSpec",
    "CachegrindResult",
    "find_valgrind",
    "parse_cachegrind_out",
    "run_cachegrind",
    "valgrind_version",
]
