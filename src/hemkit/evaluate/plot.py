"""Plot of sorted per-pair correlation differences per method (MUCH paper, Fig. 5)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from hemkit.evaluate.pairs import Evaluation


def plot_pair_differences(evaluations: Mapping[str, Evaluation], *, kind: str = "pearson", ax=None):
    """Draw, for each method, its per-pair |correlation difference| sorted from lowest to highest.

    Parameters
    ----------
    evaluations : mapping of method name -> Evaluation
    kind : {"pearson", "spearman"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    for name, ev in evaluations.items():
        d = np.sort(np.abs(ev.pairs[f"diff_{kind}"].dropna().to_numpy()))
        ax.plot(np.arange(1, len(d) + 1), d, marker=".", label=f"{name} (MSE {ev.mse(kind):.4f})")
    ax.set_xlabel("pair of events (sorted)")
    ax.set_ylabel(f"|{kind} correlation difference|")
    ax.set_title("Per-pair correlation difference to the reference")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax
