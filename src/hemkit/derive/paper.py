"""The paper's own signatures and measurements (Barry, Danalis, Dongarra: Tables I-IV, Eq. 1 and 3, Sec. V).

``--signatures paper`` uses what the paper prints, so that its results can be reproduced:

- **Signatures**: Table I (CPU FLOPs; the FMA *instruction* entries are 2, as printed, because
  Intel's FP_ARITH_INST_RETIRED events count an FMA twice), Table III (branching) and Table IV
  (data caches), over the same expectations as hemkit's families.
- **Bases**: the FLOPs basis of Section III (24/48/96 instructions per loop, 12/24/48 for FMA;
  Eq. 1 gives D^SCAL = (24, 48, 96, 0, 0, 0) and D^256_FMA = (0, 0, 0, 12, 24, 48)) and the
  branching basis E of Eq. 3.  The text extraction of Eq. 3 shows ten rows, one of them with six
  numbers (``2.5 2.5 2.5 1.5 0 0.5``, a merge of its neighbours); the nine well-formed rows are
  used, matching CAT's kernels b1, b4, b4a, b4b, b5, b5a, b5b, b6 and b7.
- **Measurements**: the paper publishes no raw counts, only which events the QR chose on
  Sapphire Rapids (Sec. V) and what they mean.  The measurement vector of each chosen event is
  the basis times its documented meaning: ``FP_ARITH_INST_RETIRED:<W>_<P>`` counts one per
  instruction of width W and precision P and two per FMA; ``BR_INST_RETIRED:COND`` = CR,
  ``:COND_TAKEN`` = T, ``:ALL_BRANCHES`` = CR + D, ``BR_MISP_RETIRED`` = M.  Three identical
  runs, as the paper's exact events give.

From these, :func:`hemkit.derive.analyze` reproduces the paper's Table V (FLOPs) and Table VII
(branching) -- combinations, the 0.8 coefficients and 2.36e-1 error of the FMA metrics, the
error 1 of "Conditional Branches Executed" (tested in ``tests/derive/test_paper.py``).

Examples
--------
>>> from hemkit.derive import analyze
>>> res = analyze(paper_measurements("branch"), paper_family("branch"))
>>> res.summary().loc["Unconditional Branches.", "definition"]
'-1xBR_INST_RETIRED:COND + 1xBR_INST_RETIRED:ALL_BRANCHES'
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hemkit.core.checks import unknown_choice
from hemkit.core.errors import InputError
from hemkit.derive.families import (
    BRANCH_EXPECTATIONS,
    BRANCH_PAPI,
    BRANCH_SIGNATURES,
    FAMILIES,
    WIDTHS,
    Family,
    dcache_family,
    flops_family,
)

#: Table I: CPU FLOPs metric signatures over (S^SCAL ... S^512, D^SCAL ... D^512, S^SCAL_FMA ... D^512_FMA)
TABLE_I = {
    "SP Instrs.": (1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0),
    "SP Ops.": (1, 4, 8, 16, 0, 0, 0, 0, 2, 8, 16, 32, 0, 0, 0, 0),
    "SP FMA Instrs.": (0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0),
    "DP Instrs.": (0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2),
    "DP Ops.": (0, 0, 0, 0, 1, 2, 4, 8, 0, 0, 0, 0, 2, 4, 8, 16),
    "DP FMA Instrs.": (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2),  # printed with one zero lost
}

#: Table III: branching metric signatures over (CE, CR, T, D, M) -- hemkit's branch family uses the
#: same seven rows (and adds All Branches.); the printed values are checked in tests/derive/test_paper.py
TABLE_III = {m: BRANCH_SIGNATURES[m] for m in list(BRANCH_SIGNATURES)[:7]}

#: Table IV: data cache metric signatures over (L1_DM, L1_DH, L2_DH, L3_DH)
TABLE_IV = {
    "L1 Misses.": (1, 0, 0, 0),
    "L1 Hits.": (0, 1, 0, 0),
    "L1 Reads.": (1, 1, 0, 0),
    "L2 Hits.": (0, 0, 1, 0),
    "L2 Misses.": (1, 0, -1, 0),
    "L3 Hits.": (0, 0, 0, 1),
}

#: Eq. 3: the branching basis E over (CE, CR, T, D, M), the nine well-formed rows, with CAT's kernel names
EQ3_BRANCH_BASIS = {
    "b1": (2, 2, 1.5, 0, 0),
    "b4": (2, 2, 1.5, 0, 0.5),
    "b4a": (2.5, 2.5, 1.5, 0, 0.5),
    "b4b": (2.5, 2.5, 2, 0, 0.5),
    "b5": (3, 2.5, 1.5, 0, 0.5),
    "b5a": (3, 2.5, 1.5, 0, 0.5),
    "b5b": (3, 2.5, 2, 0, 0.5),
    "b6": (2, 2, 1, 1, 0),
    "b7": (1, 1, 1, 0, 0),
}

#: Sec. V-C: the branching events the QR chose on Sapphire Rapids, in the paper's order, and what they count
BRANCH_EVENTS = {
    "BR_MISP_RETIRED": (0, 0, 0, 0, 1),
    "BR_INST_RETIRED:COND": (0, 1, 0, 0, 0),
    "BR_INST_RETIRED:COND_TAKEN": (0, 0, 1, 0, 0),
    "BR_INST_RETIRED:ALL_BRANCHES": (0, 1, 0, 1, 0),
}

_PRECISION = {"sp": "SINGLE", "dp": "DOUBLE"}
_WIDTH = {"scalar": "SCALAR", "128": "128B_PACKED", "256": "256B_PACKED", "512": "512B_PACKED"}


def flops_events() -> dict[str, np.ndarray]:
    """Sec. V-A: the FP_ARITH_INST_RETIRED events the QR chose, as vectors over the FLOPs expectations.

    Each counts 1 per instruction of its width and precision and 2 per FMA instruction
    (Intel's documented meaning); the events are in alphabetical order, as PAPI lists them.

    Examples
    --------
    >>> flops_events()["FP_ARITH_INST_RETIRED:SCALAR_DOUBLE"].tolist()
    [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0]
    """
    cols = list(flops_family().basis.columns)
    out = {}
    for p in ("sp", "dp"):
        for w in WIDTHS:
            v = np.zeros(len(cols))
            v[cols.index(f"{p}_{w}".upper())] = 1.0
            v[cols.index(f"{p}_{w}_fma".upper())] = 2.0
            out[f"FP_ARITH_INST_RETIRED:{_WIDTH[w]}_{_PRECISION[p]}"] = v
    return dict(sorted(out.items()))


def paper_family(name: str) -> Family:
    """The paper's basis and signatures (Tables I, III, IV) for ``flops``, ``branch`` or ``dcache``.

    Examples
    --------
    >>> paper_family("branch").basis.shape, paper_family("flops").signatures.shape
    ((9, 5), (6, 16))
    """
    if name == "flops":
        fam = flops_family()
        sig = pd.DataFrame(TABLE_I, index=list(fam.basis.columns), dtype=float).T
        return fam.with_signatures(sig)
    if name == "branch":
        cols = list(BRANCH_EXPECTATIONS)
        basis = pd.DataFrame(
            list(EQ3_BRANCH_BASIS.values()), index=[f"{k}/1" for k in EQ3_BRANCH_BASIS], columns=cols, dtype=float
        )
        sig = pd.DataFrame(TABLE_III, index=cols, dtype=float).T
        return Family("branch", basis, sig, BRANCH_PAPI)
    if name == "dcache":
        fam = dcache_family({1: 48 * 1024, 2: 2 << 20, 3: 105 << 20})  # Sapphire Rapids sizes; rows are nominal
        sig = pd.DataFrame(TABLE_IV, index=list(fam.basis.columns), dtype=float).T
        return fam.with_signatures(sig)
    raise unknown_choice("kernel family", name, FAMILIES)


def paper_signatures(name: str) -> pd.DataFrame:
    """The paper's signature table of a family: Table I, III or IV.

    Examples
    --------
    >>> paper_signatures("dcache").loc["L2 Misses."].tolist()
    [1.0, 0.0, -1.0, 0.0]
    """
    return paper_family(name).signatures


def paper_measurements(name: str, runs: int = 3) -> pd.DataFrame:
    """Tidy measurements (``family, backend, kernel, size, run, event, value``) of the events the paper chose.

    Only ``flops`` and ``branch``: for the data caches the paper gives neither the kernels'
    sizes nor counts (its Table VIII comes from noisy measurements).

    Parameters
    ----------
    name : {"flops", "branch"}
        The family.
    runs : int, default 3
        Runs of every kernel loop, at least 2; every run has the same values (no noise).

    Returns
    -------
    DataFrame
        One row per (run, event, kernel loop); ``value`` is the loop's count of the event as
        the paper's basis and event expressions give it; ``backend`` is ``"paper"``.

    Raises
    ------
    InputError
        Another family, or fewer than 2 runs.

    Examples
    --------
    >>> m = paper_measurements("flops")
    >>> one = (m["kernel"] == "dp_256_fma") & (m["run"] == 0) & m["event"].str.endswith("256B_PACKED_DOUBLE")
    >>> m[one]["value"].tolist()
    [24.0, 48.0, 96.0]
    """
    if name == "flops":
        fam, events = paper_family("flops"), flops_events()
    elif name == "branch":
        fam, events = paper_family("branch"), {k: np.asarray(v, float) for k, v in BRANCH_EVENTS.items()}
    else:
        raise InputError(f"the paper publishes no measurements for the {name!r} family (only flops and branch)")
    if runs < 2:
        raise InputError(f"runs must be at least 2, got {runs}", param="runs")
    E = fam.basis.to_numpy(dtype=float)
    rows = []
    for run in range(runs):
        for event, x in events.items():
            for (kernel, size), value in zip(fam.loops, E @ x, strict=True):
                rows.append((name, "paper", kernel, size, run, event, float(value)))
    return pd.DataFrame(rows, columns=["family", "backend", "kernel", "size", "run", "event", "value"])


__all__ = [
    "EQ3_BRANCH_BASIS",
    "TABLE_I",
    "TABLE_III",
    "TABLE_IV",
    "flops_events",
    "paper_family",
    "paper_measurements",
    "paper_signatures",
]
