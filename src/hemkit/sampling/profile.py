"""Per-symbol shares of a real sampling profile, with confidence intervals.

Each sample stands for its ``period`` of base events (Wen et al. 2021, Sec. 2.2: the
whole interval is charged to the instruction pointer at the interrupt).  A symbol's
share is its sum of periods over the total; with unequal periods (``perf record -F``)
the interval uses Kish's effective sample size ``(sum w)^2 / sum w^2``.

Intervals: ``"wilson"`` (binomial, the default) or ``"bound"`` (the Poisson bound that
holds for any run lengths under the paper's model, see :mod:`hemkit.sampling.model`).
The run ratio of each symbol is estimated as in the paper's Sec. 5.1.2: consecutive
samples of the same symbol form one run (runs shorter than an interval count as one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError
from hemkit.sampling import model

METHODS = ("wilson", "bound")


@dataclass(frozen=True)
class ProfileShares:
    """Shares of one profile.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per key (symbol, comm, ...), largest share first: ``samples``,
        ``period``, ``share``, ``low``, ``high``, ``runs``, ``R_est``.
    n_samples : int
    n_eff : float
        Effective number of samples (equal to ``n_samples`` for equal periods).
    level : float
    method : str
    by : str
    """

    table: pd.DataFrame
    n_samples: int
    n_eff: float
    level: float
    method: str
    by: str

    def summary(self, top: int | None = None) -> pd.DataFrame:
        """The share table (optionally the ``top`` rows)."""
        return self.table if top is None else self.table.head(top)


def profile_shares(
    samples: pd.DataFrame,
    *,
    by: str = "sym",
    level: float = 0.95,
    method: str = "wilson",
    comm: str | None = None,
    event: str | None = None,
    keys=None,
) -> ProfileShares:
    """Per-``by`` shares of the sampled base events with ``level`` confidence intervals.

    Parameters
    ----------
    samples : pandas.DataFrame
        From :func:`hemkit.io.perf_script.read_perf_script`.
    by : {"sym", "comm", "dso", "tid"}
    level : float
    method : {"wilson", "bound"}
    comm, event : str, optional
        Keep only samples of this command / event.
    keys : sequence, optional
        Restrict the profile to these keys (e.g. the functions of a workload); shares are
        then relative to their total.

    Examples
    --------
    >>> df = pd.DataFrame({"sym": ["f"] * 30 + ["g"] * 70, "period": 1000, "comm": "x", "event": "cpu-clock"})
    >>> p = profile_shares(df)
    >>> p.table.loc["f", ["share", "low", "high"]].round(3).tolist()
    [0.3, 0.219, 0.396]
    """
    if method not in METHODS:
        raise HemkitError(f"unknown interval method {method!r} (use {METHODS})")
    if by not in samples.columns:
        raise HemkitError(f"cannot group samples by {by!r} (columns: {', '.join(samples.columns)})")
    df = samples
    if comm is not None:
        df = df[df["comm"] == comm]
        if df.empty:
            raise HemkitError(
                f"no samples of command {comm!r} (commands: {', '.join(map(str, samples['comm'].unique()[:10]))})"
            )
    if "event" in df.columns:
        events = df["event"].unique()
        if event is not None:
            df = df[df["event"] == event]
            if df.empty:
                raise HemkitError(f"no samples of event {event!r} (events: {', '.join(map(str, events))})")
        elif len(events) > 1:
            raise HemkitError(f"samples of several events ({', '.join(map(str, events))}); choose one with --event")
    if keys is not None:
        df = df[df[by].isin(list(keys))]
    if df.empty:
        raise HemkitError("no samples to profile")
    w = df["period"].to_numpy(dtype=float)
    if np.any(w <= 0):
        raise HemkitError("samples with a non-positive period")
    key = df[by].to_numpy()
    n_eff = w.sum() ** 2 / np.sum(w**2)
    codes, uniq = pd.factorize(key)
    period = np.bincount(codes, weights=w)
    count = np.bincount(codes)
    share = period / w.sum()
    interval = model.wilson_interval if method == "wilson" else model.bound_interval
    low, high = interval(share * n_eff, n_eff, level)
    # runs of consecutive samples of one key (Sec. 5.1.2), in time order per thread
    order = np.lexsort((df["time"].to_numpy(), df["tid"].to_numpy())) if {"time", "tid"} <= set(df.columns) else None
    seq = codes if order is None else codes[order]
    new_run = np.concatenate([[True], seq[1:] != seq[:-1]])
    runs = np.bincount(seq[new_run], minlength=len(uniq))
    table = pd.DataFrame(
        {"samples": count, "period": period, "share": share, "low": low, "high": high, "runs": runs},
        index=pd.Index(uniq, name=by),
    )
    table["R_est"] = table["samples"] / table["runs"]
    table = table.sort_values("share", ascending=False)
    return ProfileShares(table=table, n_samples=int(len(df)), n_eff=float(n_eff), level=level, method=method, by=by)
