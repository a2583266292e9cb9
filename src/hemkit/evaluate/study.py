"""Method comparison on synthetic data with a known truth, at the same total number of runs.

One study = one synthetic truth (:func:`hemkit.datasets.synthetic.make_truth`), an HRM design
and a MUCH (pair-covering) design over its events, the same total number of runs split
among each design's groups, every method merged, and each merge scored against the truth's
own correlations (MUCH paper, Sec. 5.2-5.3, with the truth known exactly).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import pandas as pd

from hemkit.datasets.synthetic import make_truth, split_into_groups
from hemkit.errors import HemkitWarning
from hemkit.evaluate.pairs import Evaluation, evaluate


@dataclass(frozen=True)
class StudyResult:
    """Evaluations per method plus the set-up that produced them."""

    evaluations: dict[str, Evaluation]
    setup: dict

    def table(self) -> pd.DataFrame:
        """One row per method: Pearson and Spearman MSE and max |difference|."""
        return pd.DataFrame(
            {
                m: {
                    "pearson_mse": e.mse("pearson"),
                    "spearman_mse": e.mse("spearman"),
                    "pearson_max": e.max_abs("pearson"),
                    "spearman_max": e.max_abs("spearman"),
                }
                for m, e in self.evaluations.items()
            }
        ).T


def synthetic_study(
    n_events: int = 16,
    n_pmcs: int = 6,
    *,
    runs_per_much_group: int = 50,
    marginals: str = "mixed",
    seed: int = 0,
    n_sims: int = 100,
    truth_runs: int = 100_000,
    methods: tuple[str, ...] = ("hrm", "much", "copula"),
) -> StudyResult:
    """Merge one synthetic truth with each method at the same total number of runs.

    The MUCH design gets ``runs_per_much_group`` runs per group; HRM gets the same total
    spread over its (fewer) groups.  The reference is the correlation of ``truth_runs``
    complete vectors (close to the population values).

    Examples
    --------
    >>> res = synthetic_study(8, 4, runs_per_much_group=30, truth_runs=5000, n_sims=10)
    >>> bool(res.table().loc["hrm", "pearson_mse"] > res.table().loc["much", "pearson_mse"])
    True
    """
    from hemkit.merge import merge_copula, merge_hrm, merge_much
    from hemkit.plan import hrm_design, much_design

    truth = make_truth(n_events, truth_runs, marginals=marginals, seed=seed)
    events = list(truth.columns)
    much_groups = much_design(events, n_pmcs, seed=seed)
    hrm_groups = hrm_design(events, n_pmcs, anchor=events[0])
    total = runs_per_much_group * len(much_groups)
    much_data = split_into_groups(truth, much_groups, runs_per_much_group, seed=seed + 1)
    hrm_data = split_into_groups(truth, hrm_groups, total // len(hrm_groups), seed=seed + 2)
    runs = {
        "hrm": lambda: merge_hrm(hrm_data, events[0]),
        "much": lambda: merge_much(much_data, n_sims=n_sims, seed=seed),
        "copula": lambda: merge_copula(much_data, seed=seed),
    }
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        for m in methods:
            out[m] = evaluate(runs[m](), truth, label=m)
    setup = {
        "n_events": n_events,
        "n_pmcs": n_pmcs,
        "marginals": marginals,
        "seed": seed,
        "total_runs": total,
        "much_groups": len(much_groups),
        "hrm_groups": len(hrm_groups),
    }
    return StudyResult(out, setup)
