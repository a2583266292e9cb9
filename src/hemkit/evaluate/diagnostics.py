"""MUCH's own diagnostics, as in the paper (Vilardell et al., SAC 2021, Sec. 5.3).

- :func:`sims_curve` -- MSE of MUCH's merged correlations against the number of simulations
  ``n_sims`` (step 4 keeps the best of that many draws), on held-out runs: how many draws
  are worth their time (hemkit warns under 30).
- :func:`runs_curve` -- MSE against the total number of runs ``N = nr x groups`` for HRM and
  MUCH (Fig. 6): ``nr`` runs drawn per group, ``reps`` times, each merged and compared with a
  reference (a truth table, or the observed pairwise correlations of all the MUCH runs).
- :func:`design_runs` -- runs each method needs against the number of events (Fig. 7):
  ``N_much = nr ceil(nh (nh - 1) / (np (np - 1)))`` (the paper's count, every group covering
  only new pairs), the Schönheim lower bound of a pair-covering design, and
  ``N_hrm = nr ceil((nh - 1) / (np - 1))``.

Every result has ``summary()``, ``to_frame()`` and ``plot(ax=None)`` (log axes as in the paper,
titled and labelled).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.readings import Readings
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, as_generator, child
from hemkit.evaluate.holdout import default_anchor, run_method
from hemkit.evaluate.pairs import evaluate
from hemkit.merge.result import frozen_mapping
from hemkit.plan.bounds import schonheim_bound


@dataclass(frozen=True)
class CurveOptions:
    """The points and repetitions of a diagnostic curve.

    Attributes
    ----------
    values : tuple of int
        ``n_sims`` values (:func:`sims_curve`) or runs per group (:func:`runs_curve`).
    reps : int
        Merges per value (the paper: 50 bootstrap samples).
    kind : {"pearson", "spearman"}
        Which correlations the MSE is of.
    methods : tuple of str
        :func:`runs_curve`: the methods drawn (``hrm`` merges the HRM readings, every other
        method the MUCH readings).

    Examples
    --------
    >>> CurveOptions(values=(1, 10, 100)).reps
    10
    """

    values: tuple[int, ...] = ()
    reps: int = 10
    kind: str = "pearson"
    methods: tuple[str, ...] = ("hrm", "much")


def _check_curve(opts: CurveOptions, what: str) -> None:
    if not opts.values:
        raise InputError(f"{what}: give at least one value")
    for v in opts.values:
        check_scalar(v, what, min_val=1)
    check_scalar(opts.reps, "reps", min_val=1)
    if opts.kind not in ("pearson", "spearman"):
        raise InputError(f"kind must be 'pearson' or 'spearman', got {opts.kind!r}")


def _loglog(ax: Any, table: pd.DataFrame, x: str, series: str | None, labels: Mapping[str, str]) -> None:
    groups = [(None, table)] if series is None else list(table.groupby(series, sort=False))
    for i, (name, t) in enumerate(groups):
        color = f"C{i}"
        ax.scatter(t[x], t["mse"], s=10, alpha=0.35, color=color)
        mean = t.groupby(x)["mse"].mean()
        ax.plot(mean.index, mean.to_numpy(), "-o", ms=4, color=color, label=labels.get(str(name), str(name)))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.grid(alpha=0.3, which="both")


@result
class SimsCurve(Result):
    """MUCH's MSE against the number of simulations, on held-out runs.

    Attributes
    ----------
    table : DataFrame
        One row per merge: ``n_sims``, ``rep``, ``mse``.
    params : mapping
        The curve's options (:class:`CurveOptions`), the merge options and the seed.

    Examples
    --------
    Two MUCH merges each with 1 and with 30 simulations of half the T2080 runs, scored on
    the other half:

    >>> from hemkit.datasets import t2080_much
    >>> from hemkit.evaluate import CurveOptions, sims_curve
    >>> curve = sims_curve(t2080_much(), seed=0, options=CurveOptions(values=(1, 30), reps=2),
    ...                    merge_options={"rows": 1000})
    >>> curve.table.shape, dict(curve.params)["values"]
    ((4, 3), (1, 30))
    >>> print(curve.summary().round(3).reset_index().to_string(index=False))
     n_sims  mean   min   max
          1 0.016 0.011 0.021
         30 0.009 0.009 0.010

    ``curve.plot()`` draws the MSE against ``n_sims``.
    """

    table: pd.DataFrame
    params: Mapping[str, Any]

    def summary(self) -> pd.DataFrame:
        """Per ``n_sims``: mean, smallest and largest MSE."""
        return self.table.groupby("n_sims")["mse"].agg(["mean", "min", "max"])

    def to_frame(self) -> pd.DataFrame:
        """The per-merge table (a copy)."""
        return self.table.copy()

    def plot(self, ax: Any = None) -> Any:
        """MSE against ``n_sims`` (log-log), dots per merge and their mean; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        _loglog(ax, self.table, "n_sims", None, {"None": "MUCH (mean of the merges)"})
        ax.axvline(30, color="#888", lw=0.8, ls="--", label="30 simulations (warning below)")
        ax.set_xlabel("simulations n_sims (draws; best kept)")
        ax.set_ylabel(f"MSE of merged {str(self.params.get('kind', 'pearson')).capitalize()} correlations (unitless)")
        ax.set_title("MUCH: accuracy against the number of simulations (held-out runs)")
        ax.legend()
        return ax


def sims_curve(
    readings: Readings,
    *,
    seed: SeedLike = 0,
    options: CurveOptions | None = None,
    merge_options: Mapping[str, Any] | None = None,
    progress: ProgressLike = None,
) -> SimsCurve:
    """MSE of MUCH against the number of simulations, each value merged ``reps`` times.

    Each group's runs are split in halves (once): one half is merged, the other half's
    observed pairwise correlations are the reference.

    Parameters
    ----------
    readings : Readings
        Readings of a MUCH design.
    seed : int, Generator or None
        The split, and each merge's own stream (by ``n_sims`` value and repetition).
    options : CurveOptions, optional
        The ``n_sims`` values, merges per value and the correlations scored; default
        ``values=(1, 3, 10, 30, 100, 300)``, 10 merges each, Pearson.  ``methods`` is not used.
    merge_options : mapping, optional
        Keyword arguments of the MUCH merge (:func:`hemkit.merge.merge`), e.g. ``rows``;
        ``n_sims`` is set by the curve.
    progress : bool or Progress, optional
        Report the merges done (see :mod:`hemkit.core.progress`).

    Returns
    -------
    SimsCurve
        One row per merge: ``n_sims``, ``rep``, ``mse``.

    Raises
    ------
    InputError
        No ``n_sims`` value, a value or ``reps`` below 1, an unknown ``kind``, runs that
        cannot be split in two parts (too few, or an event constant in a part), or a bad
        merge option.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> c = sims_curve(t2080_much(), seed=0, options=CurveOptions(values=(1, 30), reps=2),
    ...                merge_options={"rows": 1000})
    >>> list(c.summary().index)
    [1, 30]
    """
    opts = options if options is not None else CurveOptions(values=(1, 3, 10, 30, 100, 300))
    _check_curve(opts, "n_sims values")
    part, reference = readings.split_runs(0.5, seed=int(child(seed, "split").integers(2**32)))
    rows = []
    prog = as_progress(progress)
    with prog.task("n_sims curve", total=len(opts.values) * opts.reps) as task, warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        for v in opts.values:
            for rep in range(opts.reps):
                res = run_method(
                    "much",
                    part,
                    seed=child(seed, "merge", int(v), rep),
                    options={**dict(merge_options or {}), "n_sims": int(v)},
                )
                rows.append({"n_sims": int(v), "rep": rep, "mse": evaluate(res, reference).mse(opts.kind)})
                task.advance(info=f"n_sims {v}")
    params = {
        **asdict(opts),
        "merge_options": dict(merge_options or {}),
        "seed": seed if isinstance(seed, int) else None,
    }
    return SimsCurve(table=pd.DataFrame(rows), params=frozen_mapping(params))


@result
class RunsCurve(Result):
    """HRM's and MUCH's MSE against the total number of runs (MUCH paper, Fig. 6).

    Attributes
    ----------
    table : DataFrame
        One row per merge: ``method``, ``runs_per_group``, ``runs`` (total N), ``rep``, ``mse``.
    params : mapping
        The curve's options (:class:`CurveOptions`), each method's merge options and the seed.

    Examples
    --------
    HRM and MUCH merges of 50 and of 200 runs per group of the T2080 designs:

    >>> from hemkit.datasets import t2080_hrm, t2080_much
    >>> from hemkit.evaluate import CurveOptions, runs_curve
    >>> curve = runs_curve(t2080_much(), t2080_hrm(), seed=0, options=CurveOptions(values=(50, 200), reps=1),
    ...                    merge_options={"much": {"n_sims": 30, "rows": 1000}})
    >>> print(curve.summary()[["runs", "mean"]].round(2).reset_index().to_string(index=False))
    method  runs_per_group  runs  mean
       hrm              50   150  0.22
      much              50  1200  0.01
       hrm             200   600  0.13
      much             200  4800  0.01

    ``curve.plot()`` draws the MSE against the total runs, one line per method.
    """

    table: pd.DataFrame
    params: Mapping[str, Any]

    def summary(self) -> pd.DataFrame:
        """Per method and runs per group: total runs and the mean, smallest and largest MSE."""
        g = self.table.groupby(["method", "runs_per_group"], sort=False)
        out = g["mse"].agg(["mean", "min", "max"])
        out.insert(0, "runs", g["runs"].first())
        return out

    def to_frame(self) -> pd.DataFrame:
        """The per-merge table (a copy)."""
        return self.table.copy()

    def plot(self, ax: Any = None) -> Any:
        """MSE against the total number of runs N (log-log), dots per merge, lines of means."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        _loglog(ax, self.table, "runs", "method", {"hrm": "HRM", "much": "MUCH", "joint": "joint (hemkit)"})
        ax.set_xlabel("total runs N = runs per group x groups")
        ax.set_ylabel(f"MSE of merged {str(self.params.get('kind', 'pearson')).capitalize()} correlations (unitless)")
        ax.set_title("MSE against the number of runs (MUCH paper, Fig. 6)")
        ax.legend()
        return ax


def _draw_runs(readings: Readings, nr: int, rng: np.random.Generator) -> Readings:
    """``nr`` runs of every group, drawn without replacement."""
    small = readings.n_runs[readings.n_runs < nr]
    if len(small):
        raise InputError(f"group {small.index[0]!r} has {int(small.iloc[0])} runs; cannot draw {nr} of them")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        return Readings(
            {g: t.iloc[np.sort(rng.choice(len(t), nr, replace=False))] for g, t in readings.groups.items()},
            drop_constant=True,
        )


def runs_curve(
    much_readings: Readings,
    hrm_readings: Readings,
    *,
    reference: pd.DataFrame | Readings | None = None,
    seed: SeedLike = 0,
    options: CurveOptions | None = None,
    merge_options: Mapping[str, Mapping[str, Any]] | None = None,
) -> RunsCurve:
    """MSE of HRM and MUCH merges against the total number of runs (MUCH paper, Fig. 6).

    For each runs-per-group value ``nr``, ``reps`` times: ``nr`` runs are drawn from every
    group of each design, merged (``hrm`` with the anchor read in every group; ``much`` and
    any other method of ``options.methods`` on the MUCH readings), and compared with
    ``reference`` (default: the observed pairwise correlations of all of
    ``much_readings``).  A draw of few runs can leave a count constant in a group (it is
    dropped there); a pair left unread is then completed (``impute="maxdet"``).

    Parameters
    ----------
    much_readings : Readings
        Readings of a MUCH design, merged by every method but ``hrm``.
    hrm_readings : Readings
        Readings of an HRM design (an anchor read in every group), merged by ``hrm``.
    reference : DataFrame or Readings, optional
        A truth table or readings whose observed pairwise correlations are the reference;
        default ``much_readings``.
    seed : int, Generator or None
        The draws and the merges, each by method, runs per group and repetition.
    options : CurveOptions, optional
        The runs-per-group values, repetitions, methods and the correlations scored;
        default ``values=(50, 100, 200, 400)``, 10 repetitions, ``hrm`` and ``much``, Pearson.
    merge_options : mapping, optional
        Method name -> keyword arguments of its merge (:func:`hemkit.merge.merge`); hrm's
        ``anchor`` defaults to the first event read in every group.

    Returns
    -------
    RunsCurve
        One row per merge: ``method``, ``runs_per_group``, ``runs``, ``rep``, ``mse``.

    Raises
    ------
    InputError
        No value, a value or ``reps`` below 1, an unknown ``kind`` or method, a group with
        fewer runs than a value, HRM readings without an anchor read in every group, or a
        bad merge option.

    Examples
    --------
    >>> from hemkit.datasets import t2080_hrm, t2080_much
    >>> c = runs_curve(t2080_much(), t2080_hrm(), seed=0, options=CurveOptions(values=(50,), reps=1),
    ...                merge_options={"much": {"n_sims": 30, "rows": 1000}})
    >>> sorted(c.table["method"].unique())
    ['hrm', 'much']
    """
    opts = options if options is not None else CurveOptions(values=(50, 100, 200, 400))
    _check_curve(opts, "runs per group")
    ref = reference if reference is not None else much_readings
    mopts = {str(k): dict(v) for k, v in (merge_options or {}).items()}
    mopts.setdefault("hrm", {}).setdefault("anchor", default_anchor(hrm_readings))
    for m in opts.methods:
        if m != "hrm":
            mopts.setdefault(m, {}).setdefault("impute", "maxdet")
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        for nr in opts.values:
            for rep in range(opts.reps):
                for method in opts.methods:
                    data = hrm_readings if method == "hrm" else much_readings
                    drawn = _draw_runs(data, int(nr), as_generator(child(seed, "draw", method, int(nr), rep)))
                    res = run_method(
                        method, drawn, seed=child(seed, "merge", method, int(nr), rep), options=mopts.get(method)
                    )
                    rows.append(
                        {
                            "method": method,
                            "runs_per_group": int(nr),
                            "runs": int(nr) * len(data),
                            "rep": rep,
                            "mse": evaluate(res, ref).mse(opts.kind),
                        }
                    )
    params = {**asdict(opts), "merge_options": mopts, "seed": seed if isinstance(seed, int) else None}
    return RunsCurve(table=pd.DataFrame(rows), params=frozen_mapping(params))


def schonheim(v: int, k: int) -> int:
    """Schönheim's lower bound on the groups of ``k`` covering every pair of ``v`` events.

    :func:`hemkit.plan.bounds.schonheim_bound`, under the name the MUCH diagnostics use
    (``much_bound`` of :func:`design_runs`).

    Parameters
    ----------
    v : int
        Number of events, at least 0.
    k : int
        Events per group (counters per run), at least 1.

    Returns
    -------
    int
        ``ceil(v / k * ceil((v - 1) / (k - 1)))``; 0 for no events, 1 for one event or
        when one group holds them all (``k >= v``).

    Raises
    ------
    InputError
        ``v`` or ``k`` out of range, or ``k < 2`` with at least two events.

    Examples
    --------
    >>> schonheim(16, 6), schonheim(0, 6)
    (8, 0)
    """
    return schonheim_bound(v, k)


@result
class DesignRuns(Result):
    """Runs MUCH and HRM need against the number of events (MUCH paper, Fig. 7).

    Attributes
    ----------
    table : DataFrame
        Index ``events``; columns ``much_paper`` (the paper's count), ``much_bound``
        (Schönheim's lower bound on a pair covering), ``hrm``: total runs.
    params : mapping
        ``pmcs`` and ``runs_per_group``.

    Examples
    --------
    >>> from hemkit.evaluate import design_runs
    >>> runs = design_runs((6, 16, 32), pmcs=6, runs_per_group=100)
    >>> print(runs.to_frame().reset_index().to_string(index=False))
     events  much_paper  much_bound  hrm
          6         100         100  100
         16         800         800  300
         32        3400        3800  700

    ``runs.plot()`` draws the runs against the number of events.
    """

    table: pd.DataFrame
    params: Mapping[str, Any]

    def summary(self) -> pd.DataFrame:
        """The table itself (runs per method and number of events)."""
        return self.table

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def plot(self, ax: Any = None) -> Any:
        """Total runs against the number of events, one line per method; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        t = self.table
        ax.plot(t.index, t["much_paper"], "-", label="MUCH: nr ceil(nh(nh-1) / (np(np-1)))")
        ax.plot(t.index, t["much_bound"], "--", label="MUCH: Schönheim bound x nr")
        ax.plot(t.index, t["hrm"], "-", label="HRM: nr ceil((nh-1) / (np-1))")
        ax.set_xlabel("events to merge (nh)")
        ax.set_ylabel("total runs N")
        p = self.params
        ax.set_title(f"Runs needed (np = {p['pmcs']} counters, nr = {p['runs_per_group']}; MUCH paper, Fig. 7)")
        ax.grid(alpha=0.3)
        ax.legend()
        return ax


def design_runs(events: Sequence[int] = tuple(range(6, 61)), *, pmcs: int = 6, runs_per_group: int = 100) -> DesignRuns:
    """Total runs MUCH and HRM need for each number of events (MUCH paper, Fig. 7).

    Parameters
    ----------
    events : sequence of int, default 6 to 60
        Numbers of events, each at least 2.
    pmcs : int, default 6
        Counters per run, at least 2.
    runs_per_group : int, default 100
        Runs of every group, at least 1.

    Returns
    -------
    DesignRuns
        Per number of events, the total runs of MUCH (the paper's count and the Schönheim
        bound) and of HRM.

    Raises
    ------
    InputError
        A number of events below 2, ``pmcs`` below 2 or ``runs_per_group`` below 1.

    Examples
    --------
    >>> design_runs((16,), pmcs=6, runs_per_group=100).table.loc[16].tolist()
    [800, 800, 300]
    """
    check_scalar(pmcs, "pmcs", min_val=2)
    check_scalar(runs_per_group, "runs_per_group", min_val=1)
    nh = [int(v) for v in events]
    if not nh or min(nh) < 2:
        raise InputError("events must be numbers of events of at least 2")
    nr = runs_per_group
    table = pd.DataFrame(
        {
            "much_paper": [nr * math.ceil(v * (v - 1) / (pmcs * (pmcs - 1))) for v in nh],
            "much_bound": [nr * schonheim(v, pmcs) for v in nh],
            "hrm": [nr * math.ceil((v - 1) / (pmcs - 1)) for v in nh],
        },
        index=pd.Index(nh, name="events"),
    )
    return DesignRuns(table=table, params=frozen_mapping({"pmcs": pmcs, "runs_per_group": nr}))


__all__ = [
    "CurveOptions",
    "DesignRuns",
    "RunsCurve",
    "SimsCurve",
    "design_runs",
    "runs_curve",
    "schonheim",
    "sims_curve",
]
