"""How well merged data keeps the true pairwise correlations, and MUCH's own diagnostics.

- :func:`evaluate` -- merged table vs a reference: a truth table (every event read in the
  same runs) or the observed pairwise correlations of grouped readings.
- :func:`evaluate_files` -- the same from files, every input checked (what ``hemkit evaluate`` runs).
- :func:`holdout` -- split each group's runs in two: merge one half, take the other half's
  observed correlations as the reference (for real data without a truth table).
- :func:`truth_study` -- a truth table split into MUCH designs, every method against the
  MUCH paper as written, with per-pair interval coverage.
- :func:`sims_curve`, :func:`runs_curve`, :func:`design_runs` -- the MUCH paper's diagnostics:
  MSE against the number of simulations and of runs (Fig. 6), runs MUCH needs against HRM (Fig. 7).
- :func:`plot_pair_differences` -- sorted per-pair differences per method (MUCH paper, Fig. 5).

:func:`holdout` and :func:`truth_study` take ``cluster="local:N"`` or a Dask scheduler's
address to run their methods, splits and repetitions as Dask tasks, with the same numbers
(:mod:`hemkit.evaluate.tasks`).
"""

from hemkit.evaluate.diagnostics import (
    CurveOptions,
    DesignRuns,
    RunsCurve,
    SimsCurve,
    design_runs,
    runs_curve,
    sims_curve,
)
from hemkit.evaluate.holdout import METHOD_SPECS, HoldoutResult, holdout, parse_methods, run_method
from hemkit.evaluate.pairs import (
    Evaluation,
    compare,
    correlations,
    evaluate,
    evaluate_files,
    read_reference,
    read_truth,
)
from hemkit.evaluate.plot import plot_pair_differences
from hemkit.evaluate.study import StudyOptions, StudyResult, TruthStudy, synthetic_study, truth_study

__all__ = [
    "METHOD_SPECS",
    "CurveOptions",
    "DesignRuns",
    "Evaluation",
    "HoldoutResult",
    "RunsCurve",
    "SimsCurve",
    "StudyOptions",
    "StudyResult",
    "TruthStudy",
    "compare",
    "correlations",
    "design_runs",
    "evaluate",
    "evaluate_files",
    "read_reference",
    "read_truth",
    "holdout",
    "parse_methods",
    "plot_pair_differences",
    "run_method",
    "runs_curve",
    "sims_curve",
    "synthetic_study",
    "truth_study",
]
