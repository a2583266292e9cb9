"""The simulation experiments of Wen et al. 2021 (Sec. 5.2-5.3, Tables 2-6), re-run.

:func:`reproduce` runs the paper's set-ups with hemkit's simulator and returns our
figures beside the paper's (a :class:`PaperReproduction`).  Set-ups: 1e6 units, sampling interval 100, 1000 profiling
repetitions on the same running states with random starts.

- Table 2: one task at 80 % utilisation, granularity 30-280.
- Table 3: one task at 50 % and 30 %.
- Table 4: mixed tasks (idle 20 % granularity 1; tasks 30/20/20/10 % with granularity
  30/50/150/280).
- Table 5: the mixed tasks with noise N(0, 0.5), N(0, 1), N(0, 2) on the unit of events (Eq. 10).
- Table 6: fewer samples (1000 or 500 per profile, i.e. 1e5 or 5e4 units) with noise.

Note on the paper's Table 2: its "standard deviation" column (1e-5 to 1e-7) is two to
three orders below Table 3's SDs for the same set-up at other utilisations (1e-3) and
below the binomial scale; it reads like a variance.  We print our SD and SD^2 beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, child, spawn
from hemkit.sampling.simulate import Sampler, SimulationResult, simulate_profiles
from hemkit.sampling.states import Task, Workload

GRANULARITIES = (30, 50, 100, 150, 200, 280)
INTERVAL = 100
MIXED = (("1", 0.30, 30), ("2", 0.20, 50), ("3", 0.20, 150), ("4", 0.10, 280))

#: The paper's published figures (utilisation -> granularity -> (running mean, profile mean, profile SD)).
PAPER_SINGLE = {
    0.8: {
        30: (0.7984, 0.7983, 3.34e-05),
        50: (0.7979, 0.7978, 2.77e-05),
        100: (0.8032, 0.8031, 5.75e-07),
        150: (0.8001, 0.8001, 3.73e-05),
        200: (0.7982, 0.7982, 4.19e-07),
        280: (0.8008, 0.8007, 2.60e-05),
    },
    0.5: {
        30: (np.nan, 0.5008, 4.69e-03),
        50: (np.nan, 0.5003, 4.79e-03),
        100: (np.nan, 0.4949, 0.04e-03),
        150: (np.nan, 0.4974, 1.38e-03),
        200: (np.nan, 0.5045, 0.07e-03),
        280: (np.nan, 0.4909, 2.43e-03),
    },
    0.3: {
        30: (np.nan, 0.2945, 3.27e-03),
        50: (np.nan, 0.2978, 3.84e-03),
        100: (np.nan, 0.2999, 0.03e-03),
        150: (np.nan, 0.2953, 2.89e-03),
        200: (np.nan, 0.2957, 0.13e-03),
        280: (np.nan, 0.2980, 1.33e-03),
    },
}
#: Table 4: task -> (running mean, profile mean, profile SD)
PAPER_MIXED = {
    "idle": (0.1983, 0.1981, 3.27e-03),
    "1": (0.3025, 0.3026, 4.24e-03),
    "2": (0.2039, 0.2038, 3.15e-03),
    "3": (0.1953, 0.1954, 1.20e-03),
    "4": (0.0999, 0.1000, 0.41e-03),
}
#: Table 5: noise SD -> task -> (profile mean, profile SD)
PAPER_NOISE = {
    0.5: {
        "idle": (0.1984, 4.04e-03),
        "1": (0.3023, 5.01e-03),
        "2": (0.2038, 3.83e-03),
        "3": (0.1955, 2.56e-03),
        "4": (0.0999, 1.67e-03),
    },
    1.0: {
        "idle": (0.1983, 5.38e-03),
        "1": (0.3023, 7.02e-03),
        "2": (0.2039, 5.69e-03),
        "3": (0.1955, 4.56e-03),
        "4": (0.0999, 3.24e-03),
    },
    2.0: {
        "idle": (0.1984, 9.74e-03),
        "1": (0.3032, 11.52e-03),
        "2": (0.2035, 9.73e-03),
        "3": (0.1950, 9.14e-03),
        "4": (0.1004, 5.97e-03),
    },
}
#: Table 6: (noise SD, samples) -> task -> (profile mean, profile SD)
PAPER_FEW = {
    (2.0, 1000): {
        "idle": (0.1930, 29.89e-03),
        "1": (0.3179, 36.98e-03),
        "2": (0.1924, 30.17e-03),
        "3": (0.1971, 29.02e-03),
        "4": (0.1024, 20.15e-03),
    },
    (1.0, 1000): {
        "idle": (0.1944, 18.69e-03),
        "1": (0.3165, 20.39e-03),
        "2": (0.1918, 17.86e-03),
        "3": (0.1976, 13.98e-03),
        "4": (0.1010, 9.72e-03),
    },
    (1.0, 500): {
        "idle": (0.2078, 26.29e-03),
        "1": (0.3436, 31.10e-03),
        "2": (0.1990, 23.96e-03),
        "3": (0.1939, 21.03e-03),
        "4": (0.0564, 10.93e-03),
    },
}
TABLES = ("2", "3", "4", "5", "6")
#: The paper's Fig. 11: the profiles of Table 2's case at 80 % utilisation, granularity 30.
FIG11 = (0.8, 30)


def mixed_tasks() -> list[Task]:
    """The mixed workload of Tables 4-6 (idle is the remaining 20 %, granularity 1).

    Examples
    --------
    >>> [t.share for t in mixed_tasks()]
    [0.3, 0.2, 0.2, 0.1]
    """
    return [Task(name, share, gran) for name, share, gran in MIXED]


def single_task(
    utilisation: float, granularity: float, *, units: int = 1_000_000, reps: int = 1000, seed: SeedLike = 0
) -> SimulationResult:
    """Tables 2-3: one task of ``utilisation`` and ``granularity``, interval 100.

    Examples
    --------
    >>> res = single_task(0.8, 200, units=20_000, reps=20)
    >>> float(res.summary().loc["task", "profile_sd"]) < 1e-3   # integer R = 2
    True
    """
    s_states, s_prof = spawn(seed, 2)
    states = Workload((Task("task", utilisation, granularity),), units).states(s_states)
    return simulate_profiles(states, INTERVAL, reps, seed=s_prof)


def mixed(noise: float = 0.0, *, units: int = 1_000_000, reps: int = 1000, seed: SeedLike = 0) -> SimulationResult:
    """Tables 4-6: the mixed tasks, optionally with noise on the unit of events (Eq. 10).

    Examples
    --------
    >>> res = mixed(units=20_000, reps=20)
    >>> list(res.summary().index)
    ['idle', '1', '2', '3', '4']
    """
    s_states, s_prof = spawn(seed, 2)
    states = Workload(tuple(mixed_tasks()), units).states(s_states)
    return simulate_profiles(states, Sampler(INTERVAL, noise=noise), reps, seed=s_prof)


@result
class PaperReproduction(Result):
    """The paper's Tables 2-6 re-run by hemkit, beside the published figures.

    Attributes
    ----------
    tables : mapping of str to pandas.DataFrame
        Table name ("2" ... "6") -> our figures (``running_mean``, ``profile_mean``,
        ``bias``, ``profile_sd``, and for Tables 2-4 ``R``, ``model_sd``, ``exact_sd``)
        beside the paper's (``paper_*`` columns).
    fig11 : SimulationResult
        The profiles of the paper's Fig. 11 (80 % utilisation, granularity 30; the same
        numbers as that row of Table 2).
    reps : int
        Profiling repetitions of every set-up.
    """

    tables: Mapping[str, pd.DataFrame]
    fig11: SimulationResult
    reps: int

    def summary(self) -> pd.DataFrame:
        """Per table: rows, the largest |bias| and the median ratio of our SD to the paper's."""
        rows = {}
        for name, t in self.tables.items():
            ratio = (t["profile_sd"] / t["paper_sd"]).replace([np.inf, -np.inf], np.nan)
            rows[name] = {
                "rows": len(t),
                "max_abs_bias": float(t["bias"].abs().max()),
                "median_sd_over_paper": float(ratio.median()),
            }
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("table")

    def to_frame(self) -> pd.DataFrame:
        """Every table in one frame, with a ``table`` column first."""
        parts = [t.assign(table=name) for name, t in self.tables.items()]
        out = pd.concat(parts, ignore_index=True)
        return out[["table", *[c for c in out.columns if c != "table"]]]

    def plot(self, ax: Any = None) -> Any:
        """SD of the profiled share against R for Tables 2-4 (simulated, model, exact); returns the Axes."""
        from hemkit.sampling.plots import plot_sd_vs_R

        with_r = {n: t for n, t in self.tables.items() if "R" in t.columns}
        if not with_r:
            raise InputError("the SD against R needs Table 2, 3 or 4")
        frame = pd.concat([t.assign(series=_series(n, t)) for n, t in with_r.items()], ignore_index=True)
        return plot_sd_vs_R(frame, ax=ax, title="Wen et al. 2021 Tables 2-4 re-run: SD of profiled shares against R")

    def plot_means(self, ax: Any = None) -> Any:
        """Mean profiled share (+- SD) against the running-state mean, every table; returns the Axes."""
        from hemkit.sampling.plots import plot_profiled_vs_true

        frame = pd.concat([t.assign(series=f"Table {n}") for n, t in self.tables.items()], ignore_index=True)
        return plot_profiled_vs_true(frame, ax=ax, title="Wen et al. 2021 re-run: profiled vs true shares")

    def plot_histogram(self, ax: Any = None) -> Any:
        """The paper's Fig. 11: histogram of 1000 profiled shares at 80 %, granularity 30."""
        from hemkit.sampling.plots import plot_profile_histogram

        return plot_profile_histogram(
            self.fig11.profiles["task"],
            float(self.fig11.truth["task"]),
            ax=ax,
            title=f"Fig. 11 re-run: {self.fig11.reps} profiles at 80 % utilisation, granularity 30",
        )


def _series(name: str, t: pd.DataFrame) -> Any:
    if "utilisation" in t.columns:
        return [f"Table {name}, {u:.0%}" for u in t["utilisation"]]
    return f"Table {name}"


def _single_seed(seed: SeedLike, table: str, u: float, g: float) -> np.random.Generator:
    return child(seed, f"table {table}", f"utilisation {u:g}", f"granularity {g:g}")


def _single_rows(table: str, reps: int, seed: SeedLike, task: Any) -> list[dict]:
    rows = []
    for u in (0.8,) if table == "2" else (0.5, 0.3):
        for g in GRANULARITIES:
            s = single_task(u, g, reps=reps, seed=_single_seed(seed, table, u, g)).summary().loc["task"]
            p_run, p_mean, p_sd = PAPER_SINGLE[u][g]
            rows.append(
                {
                    "utilisation": u,
                    "granularity": g,
                    "R": g / INTERVAL,
                    "running_mean": s.running_mean,
                    "profile_mean": s.profile_mean,
                    "bias": s.bias,
                    "profile_sd": s.profile_sd,
                    "model_sd": s.model_sd,
                    "exact_sd": s.exact_sd,
                    "paper_running_mean": p_run,
                    "paper_profile_mean": p_mean,
                    "paper_sd": p_sd,
                }
            )
            task.advance(info=f"Table {table}: {u:.0%}, granularity {g}")
    return rows


def _noise_rows(table: str, reps: int, seed: SeedLike, task: Any) -> list[dict]:
    settings = [(n, 1_000_000) for n in PAPER_NOISE] if table == "5" else [(n, k * 100) for n, k in PAPER_FEW]
    rows = []
    for noise, units in settings:
        # one realisation of the states per size, profiled at every noise level
        states = Workload(tuple(mixed_tasks()), units).states(child(seed, f"table {table}", f"units {units}"))
        prof = child(seed, f"table {table}", f"units {units}", f"noise {noise:g}")
        s = simulate_profiles(states, Sampler(INTERVAL, noise=noise), reps, seed=prof).summary()
        paper = PAPER_NOISE[noise] if table == "5" else PAPER_FEW[(noise, units // 100)]
        for name, row in s.iterrows():
            rows.append(
                {
                    "noise_sd": noise,
                    "samples": units // INTERVAL,
                    "task": name,
                    "running_mean": row.running_mean,
                    "profile_mean": row.profile_mean,
                    "bias": row.bias,
                    "profile_sd": row.profile_sd,
                    "paper_profile_mean": paper[str(name)][0],
                    "paper_sd": paper[str(name)][1],
                }
            )
        task.advance(info=f"Table {table}: noise {noise:g}, {units // INTERVAL} samples")
    return rows


_CASES = {"2": 6, "3": 12, "4": 1, "5": 3, "6": 3}


def reproduce(
    tables: str | Iterable[str] = "all", *, reps: int = 1000, seed: SeedLike = 0, progress: ProgressLike = None
) -> PaperReproduction:
    """Re-run the paper's Tables ``tables`` ("2" to "6", or "all"); our figures beside the paper's.

    Every set-up draws its own running states and profiles from streams of ``seed`` named
    after the set-up (:func:`hemkit.core.rng.child`), so a table's numbers do not depend
    on which other tables ran.  Takes about 10 s for all tables on one core.

    Parameters
    ----------
    tables : str or iterable of str
        "all", one table ("4" or "table4") or several.
    reps : int
        Profiling repetitions per set-up (the paper: 1000).
    seed : int, numpy.random.Generator or None
    progress : bool or Progress, optional
        Report the set-ups done.

    Examples
    --------
    >>> res = reproduce("4", reps=50)
    >>> bool((res.tables["4"]["bias"].abs() < 0.002).all())
    True
    """
    names = list(TABLES) if tables == "all" else [tables] if isinstance(tables, str) else list(tables)
    names = [str(n).removeprefix("table") for n in names]
    for n in names:
        if n not in TABLES:
            raise InputError(f"unknown paper table {n!r} (use one of {', '.join(TABLES)} or all)")
    if not names:
        raise InputError("no paper tables to re-run")
    out: dict[str, pd.DataFrame] = {}
    with as_progress(progress).task("paper set-ups", total=sum(_CASES[n] for n in names) + 1) as task:
        for n in dict.fromkeys(names):
            if n in ("2", "3"):
                out[n] = pd.DataFrame(_single_rows(n, reps, seed, task))
            elif n == "4":
                s = mixed(reps=reps, seed=child(seed, "table 4")).summary()
                paper = pd.DataFrame(PAPER_MIXED, index=["paper_running_mean", "paper_profile_mean", "paper_sd"]).T
                out[n] = s.join(paper).reset_index()
                task.advance(info="Table 4")
            else:
                out[n] = pd.DataFrame(_noise_rows(n, reps, seed, task))
        fig11 = single_task(*FIG11, reps=reps, seed=_single_seed(seed, "2", *FIG11))
        task.advance(info="Fig. 11")
    return PaperReproduction(tables=out, fig11=fig11, reps=reps)
