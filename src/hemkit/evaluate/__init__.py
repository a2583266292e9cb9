"""How well merged data keeps the true pairwise correlations.

- :func:`evaluate` -- merged table vs a reference: a full ground-truth table (every event
  read in the same runs) or the observed pairwise correlations of grouped readings.
- :func:`holdout` -- split each group's runs in two: merge one half, take the other half's
  observed correlations as the reference (for real data, where no ground truth exists).
- :func:`plot_pair_differences` -- sorted per-pair differences per method (MUCH paper, Fig. 5).
"""

from hemkit.evaluate.pairs import Evaluation, correlations, evaluate, holdout
from hemkit.evaluate.plot import plot_pair_differences

__all__ = ["Evaluation", "correlations", "evaluate", "holdout", "plot_pair_differences"]
