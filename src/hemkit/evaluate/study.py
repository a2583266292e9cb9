"""Method comparisons on data with a known truth: a real truth table, or a synthetic one.

- :func:`truth_study` -- a truth table (every event read in every run, e.g.
  :func:`hemkit.datasets.zen5_br_64kb`) split into the groups of MUCH designs on several
  counter budgets and split seeds (all runs used: the MUCH paper's iso-runs comparison),
  every method merged ``reps`` times, each merge scored against the truth's own
  correlations; methods are compared with a reference (the MUCH paper as written) by the
  geometric mean and the worst of their per-split MSE ratios.  With ``level``, each
  method's per-pair intervals are scored too (coverage of the truth, width).
- :func:`synthetic_study` -- one synthetic truth, an HRM and a MUCH design over its events,
  the same total number of runs for every method (MUCH paper, Sec. 5.2-5.3).

A truth study's merges are calls of :func:`study_merge` (on the splits of :func:`study_split`),
so that ``cluster="local:N"`` or a Dask scheduler's address runs them as tasks
(:mod:`hemkit.evaluate.tasks`) with the numbers of a run here.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.readings import Readings
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, child
from hemkit.datasets.synthetic import make_truth
from hemkit.datasets.truth import check_truth_table, split_into_runs, split_truth
from hemkit.evaluate.holdout import parse_methods, run_method
from hemkit.evaluate.pairs import Evaluation, compare, evaluate
from hemkit.evaluate.tasks import sweep_runner
from hemkit.external.cluster import parse_cluster
from hemkit.merge.result import frozen_mapping


@dataclass(frozen=True)
class StudyOptions:
    """How a :func:`truth_study` splits and repeats.

    Attributes
    ----------
    pmcs : tuple of int
        Counter budgets: one MUCH design per budget.
    splits : int
        Random splits of the runs into the groups, per budget.
    reps : int
        Merges per split and method (different seeds); their mean MSE is the method's.
    reference : str
        The method the others are compared with (ratios of MSE).
    level : float, optional
        Also compute each method's per-pair intervals at this level and score them.
    reference_reps : int, optional
        Merges of the reference per split (default ``reps``): the reference's own noise is
        in every ratio, so a worst-split ratio needs it well estimated.

    Examples
    --------
    >>> StudyOptions(pmcs=(3,), splits=2).reference
    'much-paper'
    """

    pmcs: tuple[int, ...] = (3, 4)
    splits: int = 5
    reps: int = 3
    reference: str = "much-paper"
    level: float | None = None
    reference_reps: int | None = None


def _geo(x: pd.Series) -> float:
    x = x.dropna()
    return float(np.exp(np.log(x).mean())) if len(x) and (x > 0).all() else float("nan")


@result
class TruthStudy(Result):
    """Per split and method: MSE of the merged correlations against a truth table.

    Attributes
    ----------
    table : DataFrame
        One row per (pmcs, split, method): ``pearson_mse``, ``spearman_mse`` (mean over
        the reps), ``pearson_ratio``, ``spearman_ratio`` (over the reference's), and with
        intervals ``coverage``, ``median_width``, ``naive_coverage``, ``naive_width``.
    params : mapping
        The options, the methods, the truth's size.

    Examples
    --------
    MUCH and the copula merge on one split of the Zen 5 truth into groups of 4, MUCH the
    reference of the ratios:

    >>> from hemkit.datasets import zen5_br_64kb
    >>> from hemkit.evaluate import StudyOptions, truth_study
    >>> st = truth_study(zen5_br_64kb(), ["much", "copula"], seed=0,
    ...                  options=StudyOptions(pmcs=(4,), splits=1, reps=1, reference="much"),
    ...                  merge_options={"much": {"n_sims": 30}})
    >>> print(st.table[["pmcs", "groups", "method", "pearson_mse", "pearson_ratio"]].round(3).to_string(index=False))
     pmcs  groups method  pearson_mse  pearson_ratio
        4       6   much        0.009           1.00
        4       6 copula        0.015           1.68
    >>> dict(st.params)["runs"]
    800
    """

    table: pd.DataFrame
    params: Mapping[str, Any]

    def summary(self) -> pd.DataFrame:
        """One row per method: mean MSE, geometric-mean and worst MSE ratio to the reference (and intervals)."""
        g = self.table.groupby("method", sort=False)
        out = pd.DataFrame(
            {
                "splits": g.size(),
                "pearson_mse": g["pearson_mse"].mean(),
                "pearson_ratio": g["pearson_ratio"].apply(_geo),
                "pearson_ratio_max": g["pearson_ratio"].max(),
                "spearman_mse": g["spearman_mse"].mean(),
                "spearman_ratio": g["spearman_ratio"].apply(_geo),
                "spearman_ratio_max": g["spearman_ratio"].max(),
            }
        )
        if "coverage" in self.table:
            out["coverage"] = g["coverage"].mean()
            out["median_width"] = g["median_width"].median()
            out["naive_coverage"] = g["naive_coverage"].mean()
            out["naive_width"] = g["naive_width"].median()
        out.index.name = "method"
        return out

    def by_pmcs(self) -> pd.DataFrame:
        """Geometric-mean MSE ratio to the reference per method and counter budget."""
        t = self.table
        return t.groupby(["pmcs", "method"], sort=False)[["pearson_ratio", "spearman_ratio"]].agg(_geo).unstack(0)

    def to_frame(self) -> pd.DataFrame:
        """The per-split table (a copy)."""
        return self.table.copy()


@dataclass(frozen=True)
class StudyMerge:
    """One merge of a :func:`truth_study`: its case, method, repetition and random streams (picklable).

    Attributes
    ----------
    pmcs, split : int
        The case: counter budget and split.
    method : str
        A key of :data:`hemkit.evaluate.METHOD_SPECS`.
    rep : int
        Repetition of the merge.
    stream : Generator
        The merge's random stream (``child(seed, "merge", method, pmcs, split, rep)``).
    options : mapping, optional
        Keyword arguments of :func:`hemkit.merge.merge`.
    level : float, optional
        Also score this merge's per-pair intervals (and the naive ones) at this level.
    naive_stream : Generator, optional
        The naive intervals' stream (``child(seed, "naive", pmcs, split)``), with ``level``.
    """

    pmcs: int
    split: int
    method: str
    rep: int
    stream: np.random.Generator
    options: Mapping[str, Any] | None = None
    level: float | None = None
    naive_stream: np.random.Generator | None = None


def study_split(truth: pd.DataFrame, pmcs: int, seed: SeedLike) -> Readings:
    """One split of a :func:`truth_study`: the truth's runs shared out to a MUCH design on ``pmcs`` counters."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        return split_truth(truth, pmcs, seed=seed)


def study_merge(truth: pd.DataFrame, readings: Readings, case: StudyMerge) -> dict[str, float]:
    """One merge of a :func:`truth_study` scored against the truth: MSE, and with ``level`` the intervals.

    A module-level function of picklable arguments, so that a sweep can run it as a Dask task.

    Examples
    --------
    >>> from hemkit.core.rng import child
    >>> from hemkit.datasets import zen5_br_64kb
    >>> truth = zen5_br_64kb()
    >>> case = StudyMerge(4, 0, "joint", 0, stream=child(0, "merge", "joint", 4, 0, 0))
    >>> sorted(study_merge(truth, study_split(truth, 4, child(0, "split", 4, 0)), case))
    ['groups', 'pearson_mse', 'spearman_mse']
    """
    from hemkit.merge.intervals import IntervalOptions, compute_intervals, naive_intervals

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        merged = run_method(case.method, readings, seed=case.stream, options=case.options)
        ev = evaluate(merged, truth[readings.events])
        out = {"groups": len(readings), "pearson_mse": ev.mse("pearson"), "spearman_mse": ev.mse("spearman")}
        if case.level is not None:
            iv = compute_intervals(merged, readings, IntervalOptions(level=case.level))
            nv = naive_intervals(readings, level=case.level, seed=case.naive_stream)
            truth_corr = ev.pairs["truth_pearson"]
            for prefix, frame in (("", iv), ("naive_", nv)):
                f = frame.set_index(["event_a", "event_b"]).reindex(truth_corr.index)
                inside = (f["lower"] <= truth_corr) & (truth_corr <= f["upper"])
                out[f"{prefix}coverage"] = float(inside.mean())
                out[f"{prefix}width" if prefix else "median_width"] = float((f["upper"] - f["lower"]).median())
    return out


def _ratio(mse: float, base: float) -> float:
    return mse / base if base > 0 else float("nan")


def _study_row(pmcs: int, split: int, method: str, scores: list[dict[str, float]]) -> dict[str, Any]:
    """A method's row of one case: mean MSE over its merges, the intervals of the first."""
    row: dict[str, Any] = {
        "pmcs": pmcs,
        "split": split,
        "groups": scores[0]["groups"],
        "method": method,
        "pearson_mse": float(np.mean([s["pearson_mse"] for s in scores])),
        "spearman_mse": float(np.mean([s["spearman_mse"] for s in scores])),
    }
    row.update({k: v for k, v in scores[0].items() if k not in row})
    return row


def truth_study(  # noqa: PLR0913 - progress and cluster say how it runs, not what it computes
    truth: pd.DataFrame,
    methods: str | Sequence[str] = ("much-paper", "much", "copula", "joint"),
    *,
    seed: SeedLike = 0,
    options: StudyOptions | None = None,
    merge_options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: ProgressLike = None,
    cluster: str | None = None,
) -> TruthStudy:
    """Split a truth table into MUCH designs, merge with every method, score against the truth.

    Parameters
    ----------
    truth : DataFrame
        Runs x events, all read together (NaN, constant or duplicated columns are refused).
    methods : names or comma-separated string
        Keys of :data:`hemkit.evaluate.METHOD_SPECS`; the reference is added if missing.
    seed : int, Generator or None
        Splits and merges (separate streams by name).
    options : StudyOptions, optional
    merge_options : mapping method -> keyword arguments of :func:`hemkit.merge.merge`, optional
    progress : bool or Progress, optional
    cluster : str, optional
        Run the splits and merges as Dask tasks: ``"local:N"`` (N worker processes here) or
        a running scheduler's address (``"tcp://node0:8786"``); see
        :mod:`hemkit.external.cluster`.  The numbers are those of a run here with the same seed.

    Raises
    ------
    InputError
        A truth table with NaN, inf, negative, non-numeric, duplicated or constant columns; a
        counter budget of ``options.pmcs`` below 2, or as large as the number of events (one
        group would read them all: nothing to merge); an unknown method.

    Examples
    --------
    >>> from hemkit.datasets import zen5_br_64kb
    >>> st = truth_study(zen5_br_64kb(), ["much", "copula"], seed=0,
    ...                  options=StudyOptions(pmcs=(4,), splits=1, reps=1, reference="much"),
    ...                  merge_options={"much": {"n_sims": 30}})
    >>> list(st.summary().index)
    ['much', 'copula']
    """
    opts = options or StudyOptions()
    source = str(truth.attrs.get("source") or "") if isinstance(truth, pd.DataFrame) else ""  # read_truth's file
    where = f"{source}: " if source else ""
    truth = check_truth_table(truth, source or "truth table", counts=True)
    n_events = truth.shape[1]
    if n_events < 3:  # groups of 2 counters at least: 2 events are always read together
        raise InputError(
            f"{where}the truth has {n_events} events, which any design of 2 or more counters reads in one group: "
            "nothing to split or merge; a study needs 3 events or more"
        )
    for pmcs in opts.pmcs:
        check_scalar(pmcs, "pmcs", min_val=2)  # two counters read a pair together
        if pmcs >= n_events:  # one group reads every event: nothing to merge, and its MSE ratios are 0/0
            raise InputError(
                f"{where}pmcs {pmcs}: the truth's {n_events} events fit in one group of {pmcs} counters, so there is "
                f"nothing to split or merge; give counters below {n_events}",
                param="pmcs",
            )
    names = parse_methods(methods)
    if opts.reference not in names:
        names = [opts.reference, *names]
    for name in ("splits", "reps"):
        check_scalar(getattr(opts, name), name, min_val=1)
    if cluster is not None:
        parse_cluster(cluster)  # a bad value is refused before any work
    mopts = {str(k): dict(v) for k, v in (merge_options or {}).items()}
    cases = [(p, s) for p in opts.pmcs for s in range(opts.splits)]
    reps = {n: opts.reference_reps if n == opts.reference and opts.reference_reps else opts.reps for n in names}
    prog = as_progress(progress)
    with prog.task("truth study", total=len(cases) * sum(reps.values())) as task, sweep_runner(cluster, task) as run:
        shared = run.share(truth)
        plan: list[tuple[int, int, str, list[Any]]] = []  # per (case, method): its merges
        for pmcs, split in cases:  # the streams are drawn in the order of the loop that merged here before
            readings = run.call(study_split, shared, pmcs, child(seed, "split", pmcs, split))
            for name in names:
                merges = [
                    StudyMerge(pmcs, split, name, r, child(seed, "merge", name, pmcs, split, r), mopts.get(name))
                    for r in range(reps[name])
                ]
                if opts.level is not None:
                    merges[0] = replace(merges[0], level=opts.level, naive_stream=child(seed, "naive", pmcs, split))
                info = f"{pmcs} counters, split {split}: {name}"
                plan.append(
                    (pmcs, split, name, [run.submit(study_merge, shared, readings, m, info=info) for m in merges])
                )
        scores = iter(run.results([h for *_, merges_of in plan for h in merges_of]))
    rows = [_study_row(pmcs, split, name, [next(scores) for _ in hs]) for pmcs, split, name, hs in plan]
    for i in range(0, len(rows), len(names)):
        case = rows[i : i + len(names)]
        base = next(r for r in case if r["method"] == opts.reference)
        for r in case:
            r["pearson_ratio"] = _ratio(r["pearson_mse"], base["pearson_mse"])
            r["spearman_ratio"] = _ratio(r["spearman_mse"], base["spearman_mse"])
    params = {"methods": names, **asdict(opts), "runs": len(truth), "events": list(truth.columns)}
    return TruthStudy(table=pd.DataFrame(rows), params=frozen_mapping(params))


@result
class StudyResult(Result):
    """Evaluations per method on one synthetic truth, plus the set-up that produced them.

    Attributes
    ----------
    evaluations : mapping of method -> Evaluation
        Each method's merge against the truth's correlations.
    setup : mapping
        Events, counters, marginals, seed, total runs, design sizes.

    Examples
    --------
    HRM and MUCH on 8 synthetic events with 4 counters, 180 runs each:

    >>> from hemkit.evaluate import synthetic_study
    >>> res = synthetic_study(8, 4, runs_per_much_group=30, seed=0, methods=("hrm", "much"))
    >>> {k: res.setup[k] for k in ("total_runs", "much_groups", "hrm_groups")}
    {'total_runs': 180, 'much_groups': 6, 'hrm_groups': 3}
    >>> print(res.summary()[["pairs", "pearson_mse"]].round(3).reset_index().to_string(index=False))
    method  pairs  pearson_mse
       hrm     28        0.050
      much     28        0.008
    """

    evaluations: Mapping[str, Evaluation]
    setup: Mapping[str, Any]

    def summary(self) -> pd.DataFrame:
        """One row per method: pairs, Pearson and Spearman MSE and max ``|difference|``."""
        return compare(dict(self.evaluations))


def synthetic_study(
    n_events: int = 16,
    pmcs: int = 6,
    *,
    runs_per_much_group: int = 50,
    marginals: str = "mixed",
    seed: SeedLike = 0,
    methods: Sequence[str] = ("hrm", "much", "copula", "joint"),
) -> StudyResult:
    """Merge one synthetic truth with each method at the same total number of runs.

    The MUCH design gets ``runs_per_much_group`` runs per group; HRM gets the same total
    spread over its (fewer) groups.  The reference is the correlation of 100 000 complete
    vectors of the same copula (close to the population values).

    Parameters
    ----------
    n_events : int, default 16
        Events of the synthetic truth (:func:`hemkit.datasets.synthetic.make_truth`).
    pmcs : int, default 6
        Counters per run, for both designs.
    runs_per_much_group : int, default 50
        Runs of each MUCH group; HRM's groups share the same total, rounded down to whole
        runs per group.
    marginals : str, default "mixed"
        The events' distributions: ``"mixed"`` (every shape in turn) or one name of
        :data:`hemkit.datasets.synthetic.MARGINALS`.
    seed : int, Generator or None
        The truth, the runs each group gets and each merge (streams by name).
    methods : sequence of str, default ("hrm", "much", "copula", "joint")
        Methods to run, of :data:`hemkit.evaluate.holdout.METHOD_SPECS`.

    Returns
    -------
    StudyResult
        One evaluation per method, and the set-up (``total_runs``, design sizes ...).

    Raises
    ------
    InputError
        An unknown or repeated method, an unknown marginal, or fewer than 3 runs for a group.
    DesignError
        Fewer than 2 counters (no MUCH design).

    Examples
    --------
    >>> res = synthetic_study(8, 4, runs_per_much_group=30, seed=0, methods=("hrm", "much"))
    >>> bool(res.summary().loc["hrm", "pearson_mse"] > res.summary().loc["much", "pearson_mse"])
    True
    """
    from hemkit.plan import hrm_design, much_design

    names = parse_methods(list(methods))
    truth_seed = int(child(seed, "truth").integers(2**31))
    truth = make_truth(n_events, 100_000, marginals=marginals, seed=truth_seed)
    events = list(truth.columns)
    much_groups = much_design(events, pmcs)
    hrm_groups = hrm_design(events, pmcs, anchor=events[0])
    total = runs_per_much_group * len(much_groups)
    pool = truth.sample(frac=1.0, random_state=np.random.default_rng(int(child(seed, "pool").integers(2**31))))
    much_data = split_into_runs(pool.iloc[: len(pool) // 2], much_groups, runs_per_much_group, seed=child(seed, "much"))
    hrm_data = split_into_runs(
        pool.iloc[len(pool) // 2 :], hrm_groups, total // len(hrm_groups), seed=child(seed, "hrm")
    )
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        for m in names:
            data = hrm_data if m == "hrm" else much_data
            opts = {"anchor": events[0]} if m == "hrm" else None
            out[m] = evaluate(run_method(m, data, seed=child(seed, "merge", m), options=opts), truth, label=m)
    setup = {
        "n_events": n_events,
        "pmcs": pmcs,
        "marginals": marginals,
        "seed": seed if isinstance(seed, int) else None,
        "total_runs": total,
        "much_groups": len(much_groups),
        "hrm_groups": len(hrm_groups),
    }
    return StudyResult(evaluations=frozen_mapping(out), setup=frozen_mapping(setup))


__all__ = [
    "StudyMerge",
    "StudyOptions",
    "StudyResult",
    "TruthStudy",
    "study_merge",
    "study_split",
    "synthetic_study",
    "truth_study",
]
