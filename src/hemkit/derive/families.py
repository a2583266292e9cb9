"""Kernel families: expectation bases E and metric signatures (Barry et al., Section III, Tables I-IV).

A family is what one CAT benchmark measures: its kernel loops (rows of E), the ideal events
those loops are built to exercise (columns of E, the *expectations*), the metrics users want
written in that basis (signatures), and the thresholds of the analysis.

- **flops**: {scalar, 128, 256, 512-bit} x {non-FMA, FMA} x {SP, DP}; each kernel has three
  loops with 24/48/96 instructions per iteration (12/24/48 for FMA).  E holds the number of
  instructions per iteration, so a signature's entry is what one instruction of that kernel
  contributes: 1 for an instruction count, the lane count (x2 for FMA) for an operation count.
  (Table I of the paper writes 2 for FMA kernels in the *instruction* signatures because Intel's
  FP_ARITH_INST_RETIRED counts an FMA twice; hemkit counts an FMA instruction once.)
- **branch**: the CE, CR, T, D, M basis (conditional executed, conditional retired, conditional
  taken, direct unconditional, mispredicted) over five loop bodies repeated 1, 2 and 4 times;
  E adds the loop's own back edge (one taken conditional per iteration).  Random branches use a
  balanced random bit array, so T is exact and M = 0.5 is the nominal rate of a predictor at chance.
- **dcache**: pointer chase over buffers in L1, L2, L3 and memory (three sizes each);
  expectations L1_DM, L1_DH, L2_DH, L3_DH per access.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError

WIDTHS = ("scalar", "128", "256", "512")
LANES = {"sp": {"scalar": 1, "128": 4, "256": 8, "512": 16}, "dp": {"scalar": 1, "128": 2, "256": 4, "512": 8}}
FLOPS_SIZES = (24, 48, 96)  # instructions per iteration of the non-FMA loops; FMA loops have half


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
    papi : dict
        metric name -> PAPI preset it corresponds to.
    tau, alpha, proj_tol, define_tol, coef_step : float
        Default analysis thresholds (see :func:`hemkit.derive.analysis.analyze_cube`).
        ``define_tol`` is 1e-4 for the exact families (FLOPs, branches): a least-squares fit
        of exact counts that misses by more is a combination of unrelated events, not a
        definition (Eq. 5 divides by ``||X|| ||y||``, so wild coefficients shrink the error);
        1e-2 for the noisy data caches.
    """

    name: str
    basis: pd.DataFrame
    signatures: pd.DataFrame
    papi: dict = field(default_factory=dict)
    tau: float = 1e-10
    alpha: float = 5e-4
    proj_tol: float = 1e-3
    define_tol: float = 1e-4
    coef_step: float = 1.0

    def params(self) -> dict:
        return {
            "tau": self.tau,
            "alpha": self.alpha,
            "proj_tol": self.proj_tol,
            "define_tol": self.define_tol,
            "coef_step": self.coef_step,
        }

    @property
    def loops(self) -> list[tuple[str, str]]:
        """(kernel, size) of every row of the basis, in order."""
        return [tuple(r.split("/", 1)) for r in self.basis.index]

    def signature(self, metric: str) -> np.ndarray:
        """Expected per-iteration value of a metric on every kernel loop: ``E @ s``."""
        if metric not in self.signatures.index:
            raise HemkitError(f"family {self.name} has no metric {metric!r}")
        return self.basis.to_numpy() @ self.signatures.loc[metric].to_numpy(dtype=float)


def flops_kernel(precision: str, width: str, fma: bool) -> str:
    """Kernel name, e.g. ``dp_256_fma``."""
    return f"{precision}_{width}" + ("_fma" if fma else "")


def flops_family(widths: tuple[str, ...] = WIDTHS) -> Family:
    """The CPU-FLOPs family (Table I) for the given vector widths.

    Examples
    --------
    >>> fam = flops_family()
    >>> fam.basis.shape, fam.signatures.shape
    ((48, 16), (10, 16))
    """
    if not widths:
        raise HemkitError("no FLOPs width to run: this CPU lacks SSE2 + FMA (see /proc/cpuinfo flags)")
    bad = [w for w in widths if w not in WIDTHS]
    if bad:
        raise HemkitError(f"unknown FLOPs width {bad[0]!r}; choose from {', '.join(WIDTHS)}")
    order = [(p, w, f) for f in (False, True) for p in ("sp", "dp") for w in WIDTHS if w in widths]
    kernels = [flops_kernel(p, w, f) for p, w, f in order]
    rows, data = [], []
    for j, (p, w, f) in enumerate(order):
        for size in FLOPS_SIZES:
            n = size // 2 if f else size
            rows.append(f"{kernels[j]}/{n}")
            v = np.zeros(len(order))
            v[j] = n
            data.append(v)
    cols = [k.upper() for k in kernels]
    basis = pd.DataFrame(data, index=rows, columns=cols)

    def sig(fn):
        return [fn(p, w, f) for p, w, f in order]

    sigs = {
        "SP Instrs.": sig(lambda p, w, f: float(p == "sp")),
        "SP Ops.": sig(lambda p, w, f: float(p == "sp") * LANES["sp"][w] * (2 if f else 1)),
        "SP FMA Instrs.": sig(lambda p, w, f: float(p == "sp" and f)),
        "DP Instrs.": sig(lambda p, w, f: float(p == "dp")),
        "DP Ops.": sig(lambda p, w, f: float(p == "dp") * LANES["dp"][w] * (2 if f else 1)),
        "DP FMA Instrs.": sig(lambda p, w, f: float(p == "dp" and f)),
        "FP Instrs.": sig(lambda p, w, f: 1.0),
        "FP Ops.": sig(lambda p, w, f: LANES[p][w] * (2.0 if f else 1.0)),
        "Vector Instrs.": sig(lambda p, w, f: float(w != "scalar")),
        "FMA Instrs.": sig(lambda p, w, f: float(f)),
    }
    signatures = pd.DataFrame(sigs, index=cols).T
    return Family("flops", basis, signatures, FLOPS_PAPI)


#: per-copy contribution of each branch loop body to (CE, CR, T, D, M)
BRANCH_BODIES = {
    "nt": (1.0, 1.0, 0.0, 0.0, 0.0),  # conditional, never taken
    "tk": (1.0, 1.0, 1.0, 0.0, 0.0),  # conditional, always taken
    "jmp": (0.0, 0.0, 0.0, 1.0, 0.0),  # direct unconditional jump
    "rnd": (1.0, 1.0, 0.5, 0.0, 0.5),  # conditional on a random bit
    "rnd2": (2.5, 2.0, 0.5, 0.5, 0.5),  # random conditional choosing between two paths with one conditional each
}
BRANCH_LOOP = (1.0, 1.0, 1.0, 0.0, 0.0)  # the loop's back edge: a taken conditional
BRANCH_COPIES = (1, 2, 4)


def branch_family() -> Family:
    """The branching family (Table III) with hemkit's five loop bodies.

    Examples
    --------
    >>> fam = branch_family()
    >>> fam.basis.loc["rnd2/4"].tolist()
    [11.0, 9.0, 3.0, 2.0, 2.0]
    """
    cols = ["CE", "CR", "T", "D", "M"]
    rows, data = [], []
    for k, body in BRANCH_BODIES.items():
        for c in BRANCH_COPIES:
            rows.append(f"{k}/{c}")
            data.append(np.asarray(BRANCH_LOOP) + c * np.asarray(body))
    basis = pd.DataFrame(data, index=rows, columns=cols)
    sigs = {
        "Unconditional Branches.": (0, 0, 0, 1, 0),
        "Conditional Branches Taken.": (0, 0, 1, 0, 0),
        "Conditional Branches Not Taken.": (0, 1, -1, 0, 0),
        "Mispredicted Branches.": (0, 0, 0, 0, 1),
        "Correctly Predicted Branches.": (0, 1, 0, 0, -1),
        "Conditional Branches Retired.": (0, 1, 0, 0, 0),
        "Conditional Branches Executed.": (1, 0, 0, 0, 0),
        "All Branches.": (0, 1, 0, 1, 0),
    }
    signatures = pd.DataFrame(sigs, index=cols, dtype=float).T
    return Family("branch", basis, signatures, BRANCH_PAPI)


def cache_sizes(root: str | Path = "/sys/devices/system/cpu/cpu0/cache") -> dict[int, int]:
    """Data/unified cache size in bytes per level, read from sysfs.

    Raises
    ------
    HemkitError
        The sysfs directory is missing or lists no data cache.
    """
    root = Path(root)
    out: dict[int, int] = {}
    for d in sorted(root.glob("index*")):
        try:
            kind = (d / "type").read_text().strip()
            level = int((d / "level").read_text())
            size = (d / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        if kind == "Instruction":
            continue
        mult = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(size[-1:].upper(), 1)
        out[level] = int(size.rstrip("KMGkmg")) * mult
    if not {1, 2, 3} <= set(out):
        raise HemkitError(f"{root}: cannot read L1/L2/L3 data cache sizes (found levels {sorted(out)})")
    return out


DCACHE_REGIONS = {
    "l1": (0.0, 1.0, 0.0, 0.0),
    "l2": (1.0, 0.0, 1.0, 0.0),
    "l3": (1.0, 0.0, 0.0, 1.0),
    "mem": (1.0, 0.0, 0.0, 0.0),
}


def dcache_buffer_sizes(sizes: dict[int, int], *, max_bytes: int = 1 << 30) -> dict[str, list[int]]:
    """Three pointer-chase buffer sizes (bytes) per region, well inside each cache level.

    L1: 1/4, 1/2, 3/4 of L1; L2 and L3: geometric points between the level below and this one;
    memory: 2, 3, 4 x L3 (capped at ``max_bytes``).
    """
    l1, l2, l3 = sizes[1], sizes[2], sizes[3]
    line = 64

    def geo(lo, hi):
        return [int(lo * (hi / lo) ** f) // line * line for f in (0.35, 0.55, 0.75)]

    mem = [min(m * l3, max_bytes) // line * line for m in (2, 3, 4)]
    if mem[0] <= 1.5 * l3:
        raise HemkitError(f"memory buffers need more than 1.5 x L3 = {1.5 * l3 / 2**20:.0f} MiB; raise max_bytes")
    return {
        "l1": [l1 // 4, l1 // 2, 3 * l1 // 4],
        "l2": geo(2 * l1, l2),
        "l3": geo(2 * l2, l3),
        "mem": sorted(set(mem)) if len(set(mem)) == 3 else [mem[0], mem[0] + line, mem[0] + 2 * line],
    }


def dcache_family(
    sizes: dict[int, int] | None = None, *, max_bytes: int = 1 << 30, buffers: dict[str, list[int]] | None = None
) -> Family:
    """The data-cache family (Table IV) with buffer sizes from sysfs (or ``sizes``, or ``buffers``).

    Examples
    --------
    >>> fam = dcache_family({1: 48 * 1024, 2: 1 << 20, 3: 32 << 20})
    >>> fam.basis.loc["l2/" + fam.loops[4][1]].tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    bufs = buffers or dcache_buffer_sizes(sizes or cache_sizes(), max_bytes=max_bytes)
    cols = ["L1_DM", "L1_DH", "L2_DH", "L3_DH"]
    rows, data = [], []
    for region, exp in DCACHE_REGIONS.items():
        for b in bufs.get(region, []):
            rows.append(f"{region}/{b}")
            data.append(exp)
    basis = pd.DataFrame(data, index=rows, columns=cols, dtype=float)
    sigs = {
        "L1 Misses.": (1, 0, 0, 0),
        "L1 Hits.": (0, 1, 0, 0),
        "L1 Reads.": (1, 1, 0, 0),
        "L2 Hits.": (0, 0, 1, 0),
        "L2 Misses.": (1, 0, -1, 0),
        "L3 Hits.": (0, 0, 0, 1),
        "L3 Misses.": (1, 0, -1, -1),
    }
    signatures = pd.DataFrame(sigs, index=cols, dtype=float).T
    return Family("dcache", basis, signatures, DCACHE_PAPI, tau=1e-1, alpha=5e-2, proj_tol=1e-1, define_tol=1e-2)


def get_family(name: str, **kwargs) -> Family:
    """Family by name: ``flops``, ``branch`` or ``dcache``."""
    makers = {"flops": flops_family, "branch": branch_family, "dcache": dcache_family}
    if name not in makers:
        raise HemkitError(f"unknown kernel family {name!r}; choose from flops, branch, dcache")
    return makers[name](**kwargs)


def family_for_loops(name: str, loops) -> Family:
    """The family whose basis rows are exactly the measured ``(kernel, size)`` loops.

    FLOPs: the widths present; dcache: the buffer sizes measured; branch: the standard basis.
    Raises :class:`HemkitError` naming a loop the family does not know.
    """
    loops = sorted({(str(k), str(s)) for k, s in loops})
    if name == "flops":
        widths = tuple(w for w in WIDTHS if any(k.split("_")[1] == w for k, _ in loops if "_" in k))
        fam = flops_family(widths=widths or WIDTHS)
    elif name == "dcache":
        bufs: dict[str, list[int]] = {}
        for k, s in loops:
            if k not in DCACHE_REGIONS or not s.isdigit():
                raise HemkitError(f"dcache measurements: unknown kernel loop {k}/{s}")
            bufs.setdefault(k, []).append(int(s))
        fam = dcache_family(buffers={k: sorted(v) for k, v in bufs.items()})
    else:
        fam = get_family(name)
    unknown = sorted({f"{k}/{s}" for k, s in loops} - set(fam.basis.index))
    if unknown:
        raise HemkitError(f"{name} measurements: kernel loop {unknown[0]!r} is not in the family's basis")
    return fam


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


#: metric -> PAPI preset of the dcache family
DCACHE_PAPI = {
    "L1 Misses.": "PAPI_L1_DCM",
    "L1 Hits.": "PAPI_L1_DCH",
    "L1 Reads.": "PAPI_L1_DCR",
    "L2 Hits.": "PAPI_L2_DCH",
    "L2 Misses.": "PAPI_L2_DCM",
    "L3 Hits.": "PAPI_L3_DCH",
    "L3 Misses.": "PAPI_L3_DCM",
}

PAPI = {"flops": FLOPS_PAPI, "branch": BRANCH_PAPI, "dcache": DCACHE_PAPI}
