"""Define performance metrics from raw hardware events (Barry, Danalis, Dongarra: CAT data analysis).

Measure raw events on kernels with known behaviour -- with perf where the CPU has hardware
counters, with valgrind's cachegrind (simulated caches and branch predictor) where it has
none (:func:`run_family`, :func:`measure`) -- then :func:`analyze`: CAT's quantisation of branch
counts, the max-RNMSE noise filter (Eq. 4), projection onto the family's expectation basis,
the specially pivoted QR (Algorithm 2), least squares of each metric signature with its
backward error (Eq. 5).  :func:`define` compares the definitions with PAPI's presets.
``signatures="paper"`` and :mod:`hemkit.derive.paper` reproduce the paper's Tables V and VII.

Examples
--------
>>> from hemkit.derive import analyze, define, example_measurements
>>> res = analyze(example_measurements("branch"))      # bundled: measured with valgrind
>>> res.summary().loc["Conditional Branches Retired.", ["papi", "definition", "verdict"]].tolist()
['PAPI_BR_CN', '1xBc', 'defined']
>>> res.summary().loc["Conditional Branches Executed.", "verdict"]
'not definable'
"""

from hemkit.derive.analysis import (
    DeriveAnalysis,
    analyze,
    analyze_cube,
    backward_error,
    measurement_cube,
    project_onto_basis,
)
from hemkit.derive.families import (
    AnalysisOptions,
    CacheLevel,
    Family,
    branch_family,
    dcache_family,
    flops_family,
    get_family,
)
from hemkit.derive.inputs import example_measurements, load_analysis, read_measurements, read_presets
from hemkit.derive.measure import Measurements, MeasureOptions, cache_geometry, measure, run_family
from hemkit.derive.noise import max_rnmse, quantise
from hemkit.derive.paper import paper_family, paper_measurements
from hemkit.derive.qr import pivot_scores, round_alpha, special_qrcp
from hemkit.derive.report import Definitions, cachegrind_presets, define

#: the result class's former name (hemkit 0.1)
DerivationResult = DeriveAnalysis

__all__ = [
    "AnalysisOptions",
    "CacheLevel",
    "Definitions",
    "DerivationResult",
    "DeriveAnalysis",
    "Family",
    "MeasureOptions",
    "Measurements",
    "analyze",
    "analyze_cube",
    "backward_error",
    "branch_family",
    "cache_geometry",
    "cachegrind_presets",
    "dcache_family",
    "define",
    "example_measurements",
    "flops_family",
    "get_family",
    "load_analysis",
    "max_rnmse",
    "measure",
    "measurement_cube",
    "paper_family",
    "paper_measurements",
    "pivot_scores",
    "project_onto_basis",
    "quantise",
    "read_measurements",
    "read_presets",
    "round_alpha",
    "run_family",
    "special_qrcp",
]
