"""Define performance metrics from raw hardware events (Barry, Danalis, Dongarra: CAT data analysis).

Measure raw events on kernels with known behaviour (:mod:`hemkit.derive.kernels`,
:mod:`hemkit.derive.measure`), then :func:`analyze`: max-RNMSE noise filter (Eq. 4), projection
onto the family's expectation basis, the specially pivoted QR (Algorithm 2), least squares of
each metric signature with its backward error (Eq. 5).

Examples
--------
>>> import numpy as np
>>> from hemkit.derive import branch_family, analyze_cube
>>> fam = branch_family()
>>> cube = np.stack([fam.basis[["CR", "T"]].to_numpy()] * 3)   # two ideal events, 3 repetitions
>>> res = analyze_cube(cube, ["COND", "COND_TAKEN"], fam.basis, fam.signatures)
>>> res.table().set_index("metric").loc["Conditional Branches Not Taken.", "definition"]
'1xCOND - 1xCOND_TAKEN'
"""

from hemkit.derive.analysis import DerivationResult, analyze, analyze_cube, backward_error, project_onto_basis
from hemkit.derive.families import Family, branch_family, dcache_family, flops_family, get_family
from hemkit.derive.noise import max_rnmse
from hemkit.derive.qr import pivot_scores, round_alpha, special_qrcp

__all__ = [
    "DerivationResult",
    "Family",
    "analyze",
    "analyze_cube",
    "backward_error",
    "branch_family",
    "dcache_family",
    "flops_family",
    "get_family",
    "max_rnmse",
    "pivot_scores",
    "project_onto_basis",
    "round_alpha",
    "special_qrcp",
]
