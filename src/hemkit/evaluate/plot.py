"""Plot of sorted per-pair correlation differences per method (MUCH paper, Fig. 5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def plot_pair_differences(evaluations: Mapping[str, Any], *, kind: str = "pearson", ax: Any = None) -> Any:
    """Draw, for each method, its per-pair ``|correlation difference|`` sorted from lowest to highest.

    Parameters
    ----------
    evaluations : mapping of method name -> :class:`hemkit.evaluate.Evaluation`
    kind : {"pearson", "spearman"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from hemkit.datasets import zen5_br_64kb
    >>> from hemkit.evaluate import evaluate
    >>> t = zen5_br_64kb()
    >>> ax = plot_pair_differences({"identity": evaluate(t, t)})
    >>> ax.get_title()
    'Per-pair correlation difference to the reference (MUCH paper, Fig. 5)'
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    for name, ev in evaluations.items():
        d = np.sort(np.abs(ev.pairs[f"diff_{kind}"].dropna().to_numpy()))
        ax.plot(np.arange(1, len(d) + 1), d, marker=".", label=f"{name} (MSE {ev.mse(kind):.4f})")
    ax.set_xlabel("pair of events (sorted by difference)")
    ax.set_ylabel(f"|{kind} correlation difference| (unitless)")
    ax.set_title("Per-pair correlation difference to the reference (MUCH paper, Fig. 5)")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax
