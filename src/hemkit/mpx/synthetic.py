"""Synthetic phased OCOE traces with known truth, for tests and examples.

Each run is a sequence of phases; in each phase every event has its own Poisson rate
(some events near zero, as software events are when a program computes).  Runs of the same
"workload" share the phase layout with jittered phase lengths, like repeated real runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

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

    Examples
    --------
    >>> tr = synthetic_trace(runs=2, steps=10, events=3)
    >>> tr.groupby("run").size().tolist()
    [30, 30]
    """
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
