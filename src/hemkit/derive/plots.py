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

    eps = np.finfo(float).eps
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    values = variability.to_numpy(dtype=float)
    finite = np.sort(values[np.isfinite(values)])
    n_zero = int(np.sum(~np.isfinite(values)))
    top = max(1.5, float(finite.max()) * 1.5 if len(finite) else 1.5)
    n_shown = len(finite)
    if raw is not None and not raw.equals(variability):
        r = raw.to_numpy(dtype=float)
        rf = np.sort(r[np.isfinite(r)])
        top = max(top, float(rf.max()) * 1.5 if len(rf) else top)
        n_shown = max(n_shown, len(rf))
        ax.semilogy(
            np.arange(1, len(rf) + 1),
            np.maximum(rf, eps),
            "x",
            ms=4,
            color="tab:orange",
            label=f"{len(rf)} events before CAT's quantisation",
        )
        used = "after quantisation (used)"
    else:
        used = "events"
    zero_note = f"; {n_zero} all-zero left out" if n_zero else ""
    ax.semilogy(
        np.arange(1, len(finite) + 1),
        np.maximum(finite, eps),
        "o",
        ms=3,
        color="tab:blue",
        label=f"{len(finite)} {used} (0 at machine epsilon{zero_note})",
    )
    if tau is not None and tau > 0:
        ax.axhspan(tau, top, color="0.88", zorder=0, label=f"dropped as noisy (> tau = {tau:g})")
    ax.set_ylim(eps / 4, top)
    ax.set_xlim(0, max(n_shown, 1) + 1)
    ax.set_xlabel("event, sorted by variability (rank)")
    ax.set_ylabel("max RNMSE over runs (ratio, log scale)")
    ax.set_title(f"{title + ': ' if title else ''}event variability (max RNMSE, Eq. 4)")
    ax.legend(loc="upper left", fontsize=7)
    return ax


__all__ = ["plot_variability"]
