"""Scoring estimators on emulated multiplexing of OCOE traces (``hemkit mpx score``).

The traces are cleaned (the paper's tail cut and broken-run check, :func:`hemkit.mpx.traces.clean_runs`),
multiplexed in software on ``pmcs`` counters (:func:`hemkit.mpx.emulate.emulate`), every
estimator fills the gaps from what perf would have shown, and each series is scored against
the truth on RA, DTW-cost and total error (:mod:`hemkit.mpx.scores`), with the run-to-run
correlation of the truth itself (paper section 2.4).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.numbers import format_count
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.mpx.emulate import MpxData, Rotation, check_multiplexed, emulate
from hemkit.mpx.estimators import MpxEstimator
from hemkit.mpx.scores import MpxScores, run_to_run, score_table
from hemkit.mpx.traces import clean_runs

MAX_DTW_STEPS = 10_000
"""Longest run whose DTW-cost is computed (the dynamic programme is quadratic in its length)."""


@dataclass(frozen=True)
class ScoreOptions:
    """How ``score_traces`` emulates and scores.

    Attributes
    ----------
    pmcs : tuple of int
        Counter counts to emulate (each event set is multiplexed on each).
    rotation : Rotation
        The rotation (period, shift, offset).
    clean : bool
        Apply the paper's data cleaning first.
    dtw : bool
        Compute DTW-costs (the slowest score: O(T^2) per series).

    Examples
    --------
    Score on 2 and on 3 counters, without the slow DTW-costs:

    >>> from hemkit.mpx import make_estimator, score_traces, synthetic_trace
    >>> opts = ScoreOptions(pmcs=(2, 3), dtw=False)
    >>> res = score_traces(synthetic_trace(runs=3, steps=80), {"phase": make_estimator("phase")}, opts)
    >>> sorted(res.table["pmcs"].unique().tolist()), bool(res.table["dtw"].isna().all())
    ([2, 3], True)
    """

    pmcs: tuple[int, ...] = (2,)
    rotation: Rotation = field(default_factory=Rotation)
    clean: bool = True
    dtw: bool = True

    def __post_init__(self) -> None:
        if not self.pmcs:
            raise InputError("pmcs: give at least one counter count")
        for c in self.pmcs:
            check_scalar(c, "pmcs", min_val=1)


def drop_unseen(mpx: MpxData) -> tuple[MpxData, list[str]]:
    """Drop the runs in which some event never got a counter (too short for the rotation), with their names.

    A real multiplexed run like that leaves nothing to estimate the event from; in an
    emulation it only means the run was shorter than one turn of the rotation.
    """
    never = ~mpx.observed.any(axis=1) & ~(mpx.idle | ~mpx.valid).all(axis=1)
    if not never.any():
        return mpx, []
    runs = sorted(set(mpx.keys.loc[never, "run"].astype(str)))
    keep = ~mpx.keys["run"].astype(str).isin(runs).to_numpy()
    if not keep.any():
        raise InputError(f"every run is too short: an event never got a counter in {', '.join(runs[:3])}")
    return mpx.select(keep), runs


def drop_unmultiplexed(mpx: MpxData) -> tuple[MpxData, list[str]]:
    """Drop the runs whose every event was on a counter all the time (no more events than counters), with their names.

    Every estimator gets such a run exactly right: scored, it only dilutes the runs that were multiplexed.
    """
    counted = (mpx.known | ~mpx.valid).all(axis=1)
    runs = mpx.keys["run"].astype(str).to_numpy()
    whole = sorted(set(runs) - set(runs[~counted]))
    if not whole:
        return mpx, []
    keep = ~np.isin(runs, whole)
    if not keep.any():
        raise InputError(f"no run is multiplexed: every event of {', '.join(whole[:3])} is always on a counter")
    return mpx.select(keep), whole


def emulated_estimates(
    mpx: MpxData, estimators: Mapping[str, MpxEstimator], progress: ProgressLike = None
) -> dict[str, np.ndarray]:
    """Every estimator's (S, T) estimates of ``mpx`` (which they see without its truth)."""
    blind = mpx.without_truth()
    out = {}
    with as_progress(progress).task("estimating", total=len(estimators)) as task:
        for name, est in estimators.items():
            out[name] = est.estimate_array(blind)
            task.advance(info=name)
    return out


def _refuse_constant(trace: pd.DataFrame) -> None:
    """A trace whose every event counts the same in every interval leaves nothing to estimate: refused by name."""
    spread = trace.groupby("event", sort=False)["value"].agg(["min", "max"])
    if len(spread) and (spread["min"] == spread["max"]).all():
        shown = ", ".join(f"{e!r} ({format_count(v)})" for e, v in spread["min"].items())
        raise InputError(
            f"every event of the trace counts the same in every interval ({shown}): multiplexing hides nothing "
            "an estimator could get wrong, so there is nothing to score; give a trace whose counts change"
        )


def score_traces(
    trace: pd.DataFrame,
    estimators: Mapping[str, MpxEstimator],
    options: ScoreOptions = ScoreOptions(),
    progress: ProgressLike = None,
) -> MpxScores:
    """Emulate multiplexing of OCOE traces, run the estimators and score them.

    Parameters
    ----------
    trace : DataFrame
        OCOE traces (:func:`hemkit.io.traces.read_trace`).
    estimators : mapping name -> estimator
        Fitted (or interpolation) estimators; the first one named ``fixed``, else the
        first, is the baseline the others are compared with.
    options : ScoreOptions
        Counter counts, rotation, cleaning, DTW.
    progress : ProgressLike
        Progress display.

    Returns
    -------
    MpxScores
        Per series and estimator (with ``pmcs``), ranked on RA, DTW-cost and total error,
        with the run-to-run correlation of the cleaned traces.

    Examples
    --------
    >>> from hemkit.mpx import synthetic_trace, make_estimator
    >>> res = score_traces(synthetic_trace(runs=3, steps=80), {n: make_estimator(n) for n in ("fixed", "phase")})
    >>> sorted(res.summary().columns[:4])
    ['dtw', 'error', 'ra', 'total_error']
    """
    if not estimators:
        raise InputError("no estimators to score")
    tr = clean_runs(trace) if options.clean else trace
    longest = int(tr.groupby("run")["step"].max().max()) + 1
    if options.dtw and longest > MAX_DTW_STEPS:
        raise InputError(
            f"a run has {longest} intervals: its DTW-cost needs {longest}^2 cells and would run for a very long time "
            f"(at most {MAX_DTW_STEPS}); score without DTW (dtw=False) or record with a longer interval"
        )
    _refuse_constant(tr)
    check_multiplexed(tr, options.pmcs)
    parts = []
    with as_progress(progress).task("scoring", total=len(options.pmcs) * len(estimators)) as task:
        for c in options.pmcs:
            mpx, short = drop_unseen(emulate(tr, int(c), rotation=options.rotation))
            if short:
                warnings.warn(
                    f"{len(short)} run(s) too short for every event to get one of {c} counters, not scored: "
                    f"{', '.join(short[:5])}{' ...' if len(short) > 5 else ''}",
                    HemkitWarning,
                    stacklevel=2,
                )
            mpx, whole = drop_unmultiplexed(mpx)
            if whole:
                warnings.warn(
                    f"{len(whole)} run(s) with at most {c} events, all on a counter at once, not scored on {c} "
                    f"counters (nothing multiplexed): {', '.join(whole[:5])}{' ...' if len(whole) > 5 else ''}",
                    HemkitWarning,
                    stacklevel=2,
                )
            blind = mpx.without_truth()
            for name, est in estimators.items():
                values, totals = est.estimate_with_totals(blind)
                part = score_table(mpx, {name: values}, dtw=options.dtw, totals={name: totals})
                part["pmcs"] = int(c)
                parts.append(part)
                task.advance(info=f"{name}, {c} counters")
    table = pd.concat(parts, ignore_index=True)
    baseline = "fixed" if "fixed" in estimators else next(iter(estimators))
    r2r = run_to_run(tr) if "workload" in tr.columns else None
    params = {
        "pmcs": list(options.pmcs),
        "rotation": vars(options.rotation),
        "clean": options.clean,
        "runs": int(tr["run"].nunique()),
        "workloads": sorted(tr["workload"].astype(str).unique()) if "workload" in tr.columns else [],
    }
    return MpxScores(table, baseline, r2r, params)


def workloads_of(trace: pd.DataFrame) -> list[str]:
    """The workloads of a trace (sorted)."""
    if "workload" not in trace.columns:
        raise InputError("the trace has no workload column (read it with read_trace, which names workloads)")
    return sorted(trace["workload"].astype(str).unique())


def select_workloads(trace: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """The rows of the runs of ``names`` (workloads)."""
    return trace[trace["workload"].astype(str).isin(list(names))].reset_index(drop=True)


__all__ = [
    "ScoreOptions",
    "drop_unmultiplexed",
    "drop_unseen",
    "emulated_estimates",
    "score_traces",
    "select_workloads",
    "workloads_of",
]
