"""Synthetic phased OCOE traces with known truth, for tests and examples.

Each run is a sequence of phases; in each phase every event has its own Poisson rate
(some events near zero, as software events are when a program computes).  Runs of the same
"workload" share the phase layout with jittered phase lengths, like repeated real runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.rng import SeedLike, as_generator


def synthetic_trace(
    runs: int = 3,
    steps: int = 100,
    events: int = 5,
    *,
    phases: int = 5,
    seed: SeedLike = 0,
    workload: str = "synthetic",
) -> pd.DataFrame:
    """A tidy OCOE trace ``workload, set, run, t, step, event, value`` (all events of a run read together).

    Each event has a Poisson rate per phase (``10**U(0, 4)`` a step, 0 for about 15 % of
    them), the same in every run; each run is cut into the phases at its own random steps.

    Parameters
    ----------
    runs : int, default 3
        Runs, at least 1 (ids ``<workload>/s0/r<k>``).
    steps : int, default 100
        Intervals per run, at least 2 (``t`` counts 10 ms per interval).
    events : int, default 5
        Events per run, at least 1 (``ev0``, ``ev1``, ...).
    phases : int, default 5
        Phases per run, at least 1 (more phases than steps leave some phases empty).
    seed : int, Generator or None
        Seeds the rates, the phase cuts and the counts.
    workload : str, default "synthetic"
        The workload's name.

    Returns
    -------
    DataFrame
        One row per (run, step, event), in that order.

    Raises
    ------
    InputError
        A count that is not an integer or is below its least value.

    Examples
    --------
    >>> tr = synthetic_trace(runs=2, steps=10, events=3)
    >>> tr.groupby("run").size().tolist()
    [30, 30]
    """
    check_scalar(runs, "runs", min_val=1)
    check_scalar(steps, "steps", min_val=2)  # the phases are cut at steps 1 .. steps - 1
    check_scalar(events, "events", min_val=1)
    check_scalar(phases, "phases", min_val=1)
    rng = as_generator(seed)
    names = [f"ev{k}" for k in range(events)]
    rates = 10 ** rng.uniform(0, 4, size=(phases, events)) * (rng.random((phases, events)) > 0.15)
    parts = []
    for r in range(runs):
        cuts = np.sort(rng.integers(1, steps, size=phases - 1))
        phase = np.searchsorted(cuts, np.arange(steps), side="right")
        counts = rng.poisson(rates[phase]).astype(float)
        step = np.repeat(np.arange(steps), events)
        parts.append(
            pd.DataFrame(
                {
                    "workload": workload,
                    "set": 0,
                    "run": f"{workload}/s0/r{r}",
                    "t": (step + 1) * 0.01,
                    "step": step,
                    "event": np.tile(names, steps),
                    "value": counts.ravel(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
