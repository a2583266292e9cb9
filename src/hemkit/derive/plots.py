"""The variability figure of the metric derivation (the paper's Fig. 2).

Max RNMSE (Eq. 4) of every event, sorted increasingly, on a log scale; events with zero
variability are drawn at machine epsilon (as the paper does), all-zero events are left out,
and the region above the noise threshold tau, where events are dropped, is shaded.

Examples
--------
>>> import pandas as pd
>>> ax = plot_variability(pd.Series({"Bc": 0.0, "Ir": 0.0, "Bcm": 2e-3}), tau=1e-10, title="branch")
>>> ax.get_title(), ax.get_ylabel()
('branch: event variability (max RNMSE, Eq. 4)', 'max RNMSE over runs (ratio, log scale)')
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

_EPS = np.finfo(float).eps


def plot_variability(
    variability: pd.Series,
    tau: float | None = None,
    *,
    title: str = "",
    raw: pd.Series | None = None,
    ax: Any = None,
) -> Any:
    """Max RNMSE of every event, sorted (Fig. 2); returns the Axes.

    Parameters
    ----------
    variability : Series
        Max RNMSE per event (NaN: an all-zero event, left out), as the filter used it.
    tau : float, optional
        Noise threshold; the region above it is shaded and labelled.
    title : str
        Family or data set named in the title.
    raw : Series, optional
        The variability before CAT's quantisation, drawn as a second series where it differs.
    ax : matplotlib Axes, optional
        Where to draw (a new figure otherwise).
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    values = variability.to_numpy(dtype=float)
    n_zero = int(np.sum(~np.isfinite(values)))
    series = []
    if raw is not None and not raw.equals(variability):
        series.append((raw, "x", 4, "tab:orange", "{n} events before CAT's quantisation"))
        used = "after quantisation (used)"
    else:
        used = "events"
    zero_note = f"; {n_zero} all-zero left out" if n_zero else ""
    series.append((variability, "o", 3, "tab:blue", "{n} " + used + " (0 at machine epsilon" + zero_note + ")"))
    top, n_shown = 1.5, 1
    for values_, marker, size, color, label in series:
        v = values_.to_numpy(dtype=float)
        v = np.sort(v[np.isfinite(v)])
        x = np.arange(1, len(v) + 1)
        ax.semilogy(x, np.maximum(v, _EPS), marker, ms=size, color=color, label=label.format(n=len(v)))
        top = max(top, float(v.max()) * 1.5 if len(v) else top)
        n_shown = max(n_shown, len(v))
    if tau is not None and tau > 0:
        ax.axhspan(tau, top, color="0.88", zorder=0, label=f"dropped as noisy (> tau = {tau:g})")
    ax.set_ylim(_EPS / 4, top)
    ax.set_xlim(0, n_shown + 1)
    ax.set_xlabel("event, sorted by variability (rank)")
    ax.set_ylabel("max RNMSE over runs (ratio, log scale)")
    ax.set_title(f"{title + ': ' if title else ''}event variability (max RNMSE, Eq. 4)")
    ax.legend(loc="upper left", fontsize=7)
    return ax


__all__ = ["plot_variability"]
