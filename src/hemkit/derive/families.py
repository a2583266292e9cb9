"""Kernel families: expectation bases E and metric signatures (Barry et al., Section III, Tables I-IV).

A family is what one CAT benchmark measures: its kernel loops (rows of E), the ideal events
those loops are built to exercise (columns of E, the *expectations*), the metrics users want
written in that basis (signatures), the PAPI preset each metric corresponds to, and the
default thresholds of the analysis (:class:`AnalysisOptions`).

- **flops**: {scalar, 128, 256, 512-bit} x {non-FMA, FMA} x {SP, DP}; each kernel has three
  loops with 24/48/96 instructions per iteration (12/24/48 for FMA).  E holds instructions per
  iteration, so a signature's entry is what one instruction of that kernel contributes: 1 for
  an instruction count, the lane count for an operation count, twice the lane count for an
  FMA (an FMA is two operations, as in the paper's Table I).  hemkit counts an FMA
  *instruction* once; the paper's Table I writes 2 there because Intel's FP_ARITH events count
  an FMA twice (``--signatures paper`` uses the paper's table as printed, see
  :mod:`hemkit.derive.paper`).
- **branch**: the CE, CR, T, D, M basis (conditional executed, conditional retired, conditional
  taken, direct unconditional, mispredicted) over seven loop bodies repeated 1, 2 and 4 times
  (:data:`BRANCH_BODIES`, C source ``c/cat_kernels.c``).  Random branches read a balanced random
  byte array exactly once, so T is exact; CE differs from CR where, in CAT's model, the wrong
  path of a mispredicted branch executes a conditional; measured values are quantised to
  multiples of 0.25 per iteration, as CAT does (``quantum``).  The loop itself is ``dec; jz
  out; jmp top``: one conditional (not taken) and one direct jump per iteration.
- **dcache**: pointer chases (lines of a page in random order, pages in random order) over
  buffers inside each cache level and beyond the last; expectations ``L1_DM, L1_DH`` and a
  ``<level>_DH`` for each further level, per access.  With hardware counters the levels are
  L1, L2, L3 from sysfs; valgrind's cachegrind simulates two levels, L1 and LL.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import unknown_choice
from hemkit.core.errors import InputError, SetupError

WIDTHS = ("scalar", "128", "256", "512")
LANES = {"sp": {"scalar": 1, "128": 4, "256": 8, "512": 16}, "dp": {"scalar": 1, "128": 2, "256": 4, "512": 8}}
FLOPS_SIZES = (24, 48, 96)  # instructions per iteration of the non-FMA loops; FMA loops have half
FAMILIES = ("flops", "branch", "dcache")


@dataclass(frozen=True)
class AnalysisOptions:
    """Thresholds of the analysis; ``None`` takes the family's default.

    Attributes
    ----------
    tau : float
        Noise threshold on the max RNMSE (Eq. 4); events above it are dropped.
    alpha : float
        Rounding tolerance of the specially pivoted QR (Algorithm 2).
    proj_tol : float
        Largest relative residual of an event's projection onto the basis.
    define_tol : float
        Largest backward error (Eq. 5) of a defined metric.
    coef_step : float
        Grid the coefficients are rounded to for the rounded combination (1 = integers).
    quantum : float
        Measured values per iteration are rounded to multiples of this before the analysis
        (CAT rounds branch counts to 0.25); 0 = no rounding.

    Examples
    --------
    >>> AnalysisOptions(tau=1e-2).resolved(branch_family()).tau
    0.01
    """

    tau: float | None = None
    alpha: float | None = None
    proj_tol: float | None = None
    define_tol: float | None = None
    coef_step: float | None = None
    quantum: float | None = None

    def resolved(self, family: Family) -> AnalysisOptions:
        """Every ``None`` replaced by ``family``'s default, each value checked."""
        defaults = family.options()
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out = {k: getattr(defaults, k) if v is None else float(v) for k, v in values.items()}
        for name, value in out.items():
            if not np.isfinite(value) or value < 0:
                raise InputError(f"{name} must be a finite number >= 0, got {value:g}")
        for name in ("alpha", "coef_step"):
            if out[name] <= 0:
                raise InputError(f"{name} must be positive, got {out[name]:g}")
        return AnalysisOptions(**out)

    def as_dict(self) -> dict[str, float | None]:
        """The options as a plain dict."""
        return dataclasses.asdict(self)

    def values(self) -> tuple[float, float, float, float, float, float]:
        """``(tau, alpha, proj_tol, define_tol, coef_step, quantum)`` of resolved options."""
        out = tuple(getattr(self, f.name) for f in dataclasses.fields(self))
        if any(v is None for v in out):
            raise InputError("analysis options are not resolved; call resolved(family) first")
        tau, alpha, proj_tol, define_tol, coef_step, quantum = (float(v) for v in out)
        return tau, alpha, proj_tol, define_tol, coef_step, quantum


@dataclass(frozen=True)
class Family:
    """One kernel family: basis, signatures, PAPI presets to compare with, analysis thresholds.

    Attributes
    ----------
    name : str
    basis : DataFrame
        E, index ``kernel/size`` (kernel loops), columns = expectations.
    signatures : DataFrame
        index = metric names, columns = expectations.
    papi : Mapping
        metric name -> PAPI preset it corresponds to.
    tau, alpha, proj_tol, define_tol, coef_step, quantum : float
        Default analysis thresholds (see :class:`AnalysisOptions`).  ``define_tol`` is 1e-4
        for the exact families (FLOPs, branches): a least-squares fit of exact counts that
        misses by more is a combination of unrelated events, not a definition (Eq. 5 divides
        by ``||X|| ||y||``, so wild coefficients shrink the error); 1e-2 for the noisy caches.

    Examples
    --------
    >>> fam = branch_family()
    >>> fam.loops[:2], fam.signatures.columns.tolist()
    ([('nt', '1'), ('nt', '2')], ['CE', 'CR', 'T', 'D', 'M'])
    """

    name: str
    basis: pd.DataFrame
    signatures: pd.DataFrame
    papi: Mapping[str, str] = field(default_factory=dict)
    tau: float = 1e-10
    alpha: float = 5e-4
    proj_tol: float = 1e-3
    define_tol: float = 1e-4
    coef_step: float = 1.0
    quantum: float = 0.0

    def options(self) -> AnalysisOptions:
        """The family's default :class:`AnalysisOptions`."""
        return AnalysisOptions(
            tau=self.tau,
            alpha=self.alpha,
            proj_tol=self.proj_tol,
            define_tol=self.define_tol,
            coef_step=self.coef_step,
            quantum=self.quantum,
        )

    @property
    def loops(self) -> list[tuple[str, str]]:
        """(kernel, size) of every row of the basis, in order."""
        return [(k, s) for k, s in (str(r).split("/", 1) for r in self.basis.index)]

    def signature(self, metric: str) -> np.ndarray:
        """Expected per-iteration value of a metric on every kernel loop: ``E @ s``.

        Examples
        --------
        >>> flops_family().signature("DP Ops.")[:3].tolist()
        [0.0, 0.0, 0.0]
        """
        if metric not in self.signatures.index:
            raise InputError(f"family {self.name} has no metric {metric!r}")
        return self.basis.to_numpy() @ self.signatures.loc[metric].to_numpy(dtype=float)

    def with_signatures(self, signatures: pd.DataFrame, papi: Mapping[str, str] | None = None) -> Family:
        """The same family with other signatures (columns must be this basis's expectations)."""
        if list(signatures.columns) != list(self.basis.columns):
            raise InputError(
                f"these signatures are written in {', '.join(map(str, signatures.columns))}, but the {self.name} "
                f"measurements have the basis {', '.join(map(str, self.basis.columns))}"
            )
        return dataclasses.replace(self, signatures=signatures, papi=dict(papi if papi is not None else self.papi))

    def restricted(self, rows: Sequence[str]) -> Family:
        """The family on a subset of its kernel loops (rows of the basis), in that order."""
        missing = [r for r in rows if r not in self.basis.index]
        if missing:
            raise InputError(f"{self.name} measurements: kernel loop {missing[0]!r} is not in the family's basis")
        return dataclasses.replace(self, basis=self.basis.loc[list(rows)])


def flops_kernel(precision: str, width: str, fma: bool) -> str:
    """Kernel name, e.g. ``dp_256_fma``.

    Examples
    --------
    >>> flops_kernel("dp", "256", True)
    'dp_256_fma'
    """
    return f"{precision}_{width}" + ("_fma" if fma else "")


def flops_family(widths: Sequence[str] = WIDTHS) -> Family:
    """The CPU-FLOPs family (Table I) for the given vector widths.

    Examples
    --------
    >>> fam = flops_family()
    >>> fam.basis.shape, fam.signatures.shape
    ((48, 16), (10, 16))
    >>> float(fam.signatures.loc["DP Ops.", "DP_256_FMA"])   # an AVX256 FMA is 8 double operations
    8.0
    """
    widths = tuple(widths)
    if not widths:
        raise SetupError("no FLOPs width to run: this CPU lacks SSE2 + FMA (see /proc/cpuinfo flags)")
    bad = [w for w in widths if w not in WIDTHS]
    if bad:
        raise unknown_choice("FLOPs width", bad[0], WIDTHS)
    order = [(p, w, f) for f in (False, True) for p in ("sp", "dp") for w in WIDTHS if w in widths]
    kernels = [flops_kernel(p, w, f) for p, w, f in order]
    rows, data = [], []
    for j, (_, _, f) in enumerate(order):
        for size in FLOPS_SIZES:
            n = size // 2 if f else size
            rows.append(f"{kernels[j]}/{n}")
            v = np.zeros(len(order))
            v[j] = n
            data.append(v)
    cols = [k.upper() for k in kernels]
    basis = pd.DataFrame(data, index=rows, columns=cols)

    def sig(fn: Any) -> list[float]:
        return [float(fn(p, w, f)) for p, w, f in order]

    sigs = {
        "SP Instrs.": sig(lambda p, w, f: p == "sp"),
        "SP Ops.": sig(lambda p, w, f: (p == "sp") * LANES["sp"][w] * (2 if f else 1)),
        "SP FMA Instrs.": sig(lambda p, w, f: p == "sp" and f),
        "DP Instrs.": sig(lambda p, w, f: p == "dp"),
        "DP Ops.": sig(lambda p, w, f: (p == "dp") * LANES["dp"][w] * (2 if f else 1)),
        "DP FMA Instrs.": sig(lambda p, w, f: p == "dp" and f),
        "FP Instrs.": sig(lambda p, w, f: 1),
        "FP Ops.": sig(lambda p, w, f: LANES[p][w] * (2 if f else 1)),
        "Vector Instrs.": sig(lambda p, w, f: w != "scalar"),
        "FMA Instrs.": sig(lambda p, w, f: f),
    }
    signatures = pd.DataFrame(sigs, index=cols).T
    return Family("flops", basis, signatures, FLOPS_PAPI)


#: per-copy contribution of each branch loop body to (CE, CR, T, D, M), CAT's model
BRANCH_BODIES: dict[str, tuple[float, float, float, float, float]] = {
    "nt": (1.0, 1.0, 0.0, 0.0, 0.0),  # conditional, never taken
    "tk": (1.0, 1.0, 1.0, 0.0, 0.0),  # conditional, always taken
    "jmp": (0.0, 0.0, 0.0, 1.0, 0.0),  # direct unconditional jump
    "rnd": (1.0, 1.0, 0.5, 0.0, 0.5),  # random conditional, busy work (CAT b4)
    "rndx": (2.5, 2.0, 0.5, 0.0, 0.5),  # random conditional, a conditional the wrong path also runs (CAT b5)
    "rnd2": (2.5, 2.0, 0.5, 0.5, 0.5),  # random choice of two paths, each with a conditional, one with a jump
    "busy": (0.0, 0.0, 0.0, 0.0, 0.0),  # busy work only: instructions but no branch
}
#: the loop's own branches per iteration: ``dec; jz out`` (not taken) and ``jmp top``
BRANCH_LOOP = (1.0, 1.0, 0.0, 1.0, 0.0)
BRANCH_COPIES = (1, 2, 4)
#: instructions per copy of each body and of the loop (the C source; checked with valgrind in the tests)
BRANCH_INSTRUCTIONS = {"nt": 2.0, "tk": 2.0, "jmp": 1.0, "rnd": 69.5, "rndx": 71.5, "rnd2": 71.5, "busy": 64.0}
BRANCH_LOOP_INSTRUCTIONS = 3.0
BRANCH_EXPECTATIONS = ("CE", "CR", "T", "D", "M")

#: metric -> signature over (CE, CR, T, D, M): Table III (+ All Branches)
BRANCH_SIGNATURES = {
    "Unconditional Branches.": (0, 0, 0, 1, 0),
    "Conditional Branches Taken.": (0, 0, 1, 0, 0),
    "Conditional Branches Not Taken.": (0, 1, -1, 0, 0),
    "Mispredicted Branches.": (0, 0, 0, 0, 1),
    "Correctly Predicted Branches.": (0, 1, 0, 0, -1),
    "Conditional Branches Retired.": (0, 1, 0, 0, 0),
    "Conditional Branches Executed.": (1, 0, 0, 0, 0),
    "All Branches.": (0, 1, 0, 1, 0),
}


def branch_family() -> Family:
    """The branching family (Table III) with hemkit's seven loop bodies.

    Examples
    --------
    >>> fam = branch_family()
    >>> fam.basis.loc["rnd2/4"].tolist()     # loop (1, 1, 0, 1, 0) + 4 x (2.5, 2, 0.5, 0.5, 0.5)
    [11.0, 9.0, 2.0, 3.0, 2.0]
    >>> int(np.linalg.matrix_rank(fam.basis.to_numpy()))
    5
    """
    rows, data = [], []
    for k, body in BRANCH_BODIES.items():
        for c in BRANCH_COPIES:
            rows.append(f"{k}/{c}")
            data.append(np.asarray(BRANCH_LOOP) + c * np.asarray(body))
    basis = pd.DataFrame(data, index=rows, columns=list(BRANCH_EXPECTATIONS))
    signatures = pd.DataFrame(BRANCH_SIGNATURES, index=list(BRANCH_EXPECTATIONS), dtype=float).T
    return Family("branch", basis, signatures, BRANCH_PAPI, quantum=0.25)


def branch_instructions(loops: Iterable[tuple[str, str]] | None = None) -> np.ndarray:
    """Instructions per iteration of each branch kernel loop (the model of the C source).

    Examples
    --------
    >>> branch_instructions([("rnd", "4"), ("busy", "1")]).tolist()
    [281.0, 67.0]
    """
    loops = branch_family().loops if loops is None else list(loops)
    return np.array([BRANCH_LOOP_INSTRUCTIONS + int(c) * BRANCH_INSTRUCTIONS[k] for k, c in loops])


# --------------------------------------------------------------------------- data caches
@dataclass(frozen=True)
class CacheLevel:
    """One cache of the hierarchy: its name, size in bytes, associativity and line size.

    Examples
    --------
    >>> CacheLevel("L1", 32 * 1024, 8, 64).sets
    64
    """

    name: str
    size: int
    assoc: int = 8
    line: int = 64

    @property
    def sets(self) -> int:
        """Number of sets: size / (associativity x line)."""
        return self.size // (self.assoc * self.line)


def cache_levels(root: str | Path = "/sys/devices/system/cpu/cpu0/cache") -> dict[int, CacheLevel]:
    """Data or unified cache of each level (1, 2, 3 ...), read from sysfs.

    Raises
    ------
    SetupError
        The sysfs directory is missing or lists no data cache.

    Examples
    --------
    >>> levels = cache_levels()          # doctest: +SKIP
    >>> levels[1]                        # doctest: +SKIP
    CacheLevel(name='L1', size=32768, assoc=8, line=64)
    """
    root = Path(root)
    out: dict[int, CacheLevel] = {}
    for d in sorted(root.glob("index*")):
        try:
            kind = (d / "type").read_text().strip()
            level = int((d / "level").read_text())
            size_text = (d / "size").read_text().strip()
            assoc = int((d / "ways_of_associativity").read_text()) if (d / "ways_of_associativity").exists() else 8
            line = int((d / "coherency_line_size").read_text()) if (d / "coherency_line_size").exists() else 64
        except (OSError, ValueError):
            continue
        if kind == "Instruction" or not size_text:
            continue
        mult = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(size_text[-1:].upper(), 1)
        try:
            size = int(size_text.rstrip("KMGkmg")) * mult
        except ValueError:
            continue
        out[level] = CacheLevel(f"L{level}", size, max(assoc, 1), max(line, 1))
    if 1 not in out or len(out) < 2:
        raise SetupError(f"{root}: cannot read the data cache sizes (found levels {sorted(out)})")
    return out


def cache_sizes(root: str | Path = "/sys/devices/system/cpu/cpu0/cache") -> dict[int, int]:
    """Data/unified cache size in bytes per level, read from sysfs (see :func:`cache_levels`).

    Examples
    --------
    >>> sorted(cache_sizes())[:2]     # doctest: +SKIP
    [1, 2]
    """
    return {k: v.size for k, v in cache_levels(root).items()}


def dcache_buffer_sizes(levels: Sequence[CacheLevel], *, max_bytes: int = 1 << 30) -> dict[str, list[int]]:
    """Three pointer-chase buffer sizes (bytes) per region, well inside each cache level.

    The first level: 1/4, 1/2, 3/4 of it; every further level: geometric points between twice
    the level below and this one (so the level below misses, this one hits); memory: 2, 3,
    4 x the last level (capped at ``max_bytes``).  Regions are named after the levels
    (``l1``, ``l2``, ``ll`` ...) and ``mem``.

    Examples
    --------
    >>> dcache_buffer_sizes([CacheLevel("L1", 32768), CacheLevel("LL", 1 << 20, 16)])["mem"]
    [2097152, 3145728, 4194304]
    """
    if not levels:
        raise InputError("no cache level to size the pointer-chase buffers from")
    line = 64

    def geo(lo: float, hi: float) -> list[int]:
        return [int(lo * (hi / lo) ** f) // line * line for f in (0.35, 0.55, 0.75)]

    out: dict[str, list[int]] = {}
    first = levels[0].size
    out[levels[0].name.lower()] = [first // 4 // line * line, first // 2 // line * line, 3 * first // 4 // line * line]
    for below, level in zip(levels[:-1], levels[1:]):
        if level.size < 4 * below.size:
            raise InputError(
                f"cache {level.name} ({level.size} bytes) must be at least 4 x {below.name} ({below.size} bytes)"
            )
        out[level.name.lower()] = geo(2 * below.size, level.size)
    last = levels[-1].size
    mem = [min(m * last, max_bytes) // line * line for m in (2, 3, 4)]
    if mem[0] <= 1.5 * last:
        raise InputError(
            f"memory buffers need more than 1.5 x {levels[-1].name} = {1.5 * last:.0f} bytes; raise max_bytes"
        )
    out["mem"] = sorted(set(mem)) if len(set(mem)) == 3 else [mem[0], mem[0] + line, mem[0] + 2 * line]
    return out


def _dcache_signatures(names: Sequence[str]) -> tuple[list[str], dict[str, list[float]], dict[str, str]]:
    """Expectations, signatures and PAPI presets of a hierarchy with levels ``names`` (first = L1)."""
    cols = ["L1_DM", "L1_DH"] + [f"{n}_DH" for n in names[1:]]
    k = len(cols)

    def vec(**kw: float) -> list[float]:
        v = [0.0] * k
        for c, x in kw.items():
            v[cols.index(c)] = x
        return v

    sigs = {"L1 Misses.": vec(L1_DM=1), "L1 Hits.": vec(L1_DH=1), "L1 Reads.": vec(L1_DM=1, L1_DH=1)}
    papi = {"L1 Misses.": "PAPI_L1_DCM", "L1 Hits.": "PAPI_L1_DCH", "L1 Reads.": "PAPI_L1_DCR"}
    hits_so_far: dict[str, float] = {}
    for n in names[1:]:
        hits_so_far[f"{n}_DH"] = -1.0
        sigs[f"{n} Hits."] = vec(**{f"{n}_DH": 1.0})
        sigs[f"{n} Misses."] = vec(L1_DM=1.0, **hits_so_far)
        level = "3" if n == "LL" else n[1:]  # cachegrind's LL is the last level: L3 on current x86
        if level in ("2", "3"):
            papi[f"{n} Hits."] = f"PAPI_L{level}_DCH"
            papi[f"{n} Misses."] = f"PAPI_L{level}_DCM"
    return cols, sigs, papi


def dcache_family(
    levels: Sequence[CacheLevel] | Mapping[int, int] | None = None,
    *,
    max_bytes: int = 1 << 30,
    buffers: Mapping[str, Sequence[int]] | None = None,
) -> Family:
    """The data-cache family (Table IV) for a cache hierarchy (default: L1, L2, L3 from sysfs).

    Parameters
    ----------
    levels : sequence of CacheLevel, or {level: bytes}, optional
        The caches from L1 outwards; names give the regions (``L1`` -> ``l1``).
    max_bytes : int
        Cap of the memory buffers.
    buffers : mapping region -> sizes, optional
        Buffer sizes to use instead of those derived from ``levels`` (region names
        ``l1``, ``l2``/``l3``/``ll``, ``mem``).

    Examples
    --------
    >>> fam = dcache_family({1: 48 * 1024, 2: 1 << 20, 3: 32 << 20})
    >>> fam.basis.columns.tolist(), fam.basis.loc["l2/" + fam.loops[4][1]].tolist()
    (['L1_DM', 'L1_DH', 'L2_DH', 'L3_DH'], [1.0, 0.0, 1.0, 0.0])
    >>> sim = dcache_family([CacheLevel("L1", 32768), CacheLevel("LL", 32 << 20, 16)])
    >>> sim.signatures.loc["LL Misses."].tolist(), sim.papi["LL Misses."]
    ([1.0, 0.0, -1.0], 'PAPI_L3_DCM')
    """
    if buffers is not None:
        regions = [r for r in buffers if r != "mem"]
        names = [r.upper() for r in regions]
        bufs = {r: list(buffers[r]) for r in list(regions) + (["mem"] if "mem" in buffers else [])}
    else:
        if levels is None:
            found = cache_levels()
            lv = [found[k] for k in sorted(found) if k <= 3]
        elif isinstance(levels, Mapping):
            lv = [CacheLevel(f"L{k}", int(v)) for k, v in sorted(levels.items())]
        else:
            lv = list(levels)
        names = [x.name for x in lv]
        bufs = dcache_buffer_sizes(lv, max_bytes=max_bytes)
    if not names or names[0] != "L1":
        raise InputError(f"the dcache family needs an L1 region first, got {', '.join(names) or 'none'}")
    cols, sigs, papi = _dcache_signatures(names)
    rows, data = [], []
    for region, sizes in bufs.items():
        exp = np.zeros(len(cols))
        if region == "l1":
            exp[cols.index("L1_DH")] = 1
        else:
            exp[cols.index("L1_DM")] = 1
            if region != "mem":
                exp[cols.index(f"{region.upper()}_DH")] = 1
        for b in sizes:
            rows.append(f"{region}/{int(b)}")
            data.append(exp.copy())
    basis = pd.DataFrame(data, index=rows, columns=cols, dtype=float)
    signatures = pd.DataFrame(sigs, index=cols, dtype=float).T
    return Family("dcache", basis, signatures, papi, tau=1e-1, alpha=5e-2, proj_tol=1e-1, define_tol=1e-2)


DCACHE_REGIONS = ("l1", "l2", "l3", "ll", "mem")


def get_family(name: str, **kwargs: Any) -> Family:
    """Family by name: ``flops``, ``branch`` or ``dcache`` (keyword arguments go to its maker).

    Parameters
    ----------
    name : {"flops", "branch", "dcache"}
        The kernel family.
    **kwargs
        Keyword arguments of :func:`flops_family` (``widths``) or :func:`dcache_family`
        (``levels``, ``max_bytes``, ``buffers``); :func:`branch_family` takes none.  Without
        ``levels`` or ``buffers`` the dcache family reads the caches from sysfs.

    Returns
    -------
    Family

    Raises
    ------
    InputError
        An unknown family (with the nearest name), an unknown FLOPs width, or dcache levels
        without an L1 first.
    SetupError
        No FLOPs width given (``widths=()``), or the dcache family's caches cannot be read
        from sysfs.

    Examples
    --------
    >>> get_family("branch").name
    'branch'
    """
    makers = {"flops": flops_family, "branch": branch_family, "dcache": dcache_family}
    if name not in makers:
        raise unknown_choice("kernel family", name, FAMILIES)
    return makers[name](**kwargs)


def family_for_loops(name: str, loops: Iterable[tuple[Any, Any]]) -> Family:
    """The family whose basis rows are exactly the measured ``(kernel, size)`` loops.

    FLOPs: the widths present; dcache: the regions and buffer sizes measured; branch: the
    standard basis restricted to the loops measured.

    Raises
    ------
    InputError
        A loop the family does not know.

    Examples
    --------
    >>> family_for_loops("dcache", [("l1", 8192), ("ll", 1 << 20), ("mem", 1 << 26)]).basis.columns.tolist()
    ['L1_DM', 'L1_DH', 'LL_DH']
    """
    seen = sorted({(str(k), str(s)) for k, s in loops})
    if name == "flops":
        widths = tuple(w for w in WIDTHS if any(k.split("_")[1:2] == [w] for k, _ in seen))
        fam = flops_family(widths=widths or WIDTHS)
    elif name == "dcache":
        bufs: dict[str, list[int]] = {}
        for k, s in seen:
            if k not in DCACHE_REGIONS or not s.isdigit():
                raise InputError(f"dcache measurements: unknown kernel loop {k}/{s}")
            bufs.setdefault(k, []).append(int(s))
        order = [r for r in DCACHE_REGIONS if r in bufs]
        fam = dcache_family(buffers={r: sorted(bufs[r]) for r in order})
    else:
        fam = get_family(name)
    rows = [f"{k}/{s}" for k, s in seen]
    unknown = [r for r in rows if r not in fam.basis.index]
    if unknown:
        raise InputError(f"{name} measurements: kernel loop {unknown[0]!r} is not in the family's basis")
    return fam.restricted([r for r in fam.basis.index if r in set(rows)])


#: metric -> PAPI preset of the flops family
FLOPS_PAPI = {
    "FP Ops.": "PAPI_FP_OPS",
    "SP Ops.": "PAPI_SP_OPS",
    "DP Ops.": "PAPI_DP_OPS",
    "FP Instrs.": "PAPI_FP_INS",
    "Vector Instrs.": "PAPI_VEC_INS",
    "FMA Instrs.": "PAPI_FMA_INS",
}

#: metric -> PAPI preset of the branch family
BRANCH_PAPI = {
    "All Branches.": "PAPI_BR_INS",
    "Conditional Branches Retired.": "PAPI_BR_CN",
    "Unconditional Branches.": "PAPI_BR_UCN",
    "Conditional Branches Taken.": "PAPI_BR_TKN",
    "Conditional Branches Not Taken.": "PAPI_BR_NTK",
    "Mispredicted Branches.": "PAPI_BR_MSP",
    "Correctly Predicted Branches.": "PAPI_BR_PRC",
}

__all__ = [
    "BRANCH_BODIES",
    "BRANCH_COPIES",
    "BRANCH_INSTRUCTIONS",
    "FAMILIES",
    "AnalysisOptions",
    "CacheLevel",
    "Family",
    "branch_family",
    "branch_instructions",
    "cache_levels",
    "cache_sizes",
    "dcache_buffer_sizes",
    "dcache_family",
    "family_for_loops",
    "flops_family",
    "get_family",
]
