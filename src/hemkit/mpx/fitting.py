"""Training a learned estimator as the paper does (``hemkit mpx fit``), section 3.3-3.4.

1. Clean the OCOE traces (:func:`hemkit.mpx.traces.clean_runs`).
2. Split the **workloads** 7:1:2 into training, validation and test parts
   (:func:`hemkit.mpx.traces.split_workloads`): every run of a workload stays in one part, so
   the validation and test scores are on programs the model never saw.  With a single
   workload the validation part is one of its runs instead (a warning says so).
3. Emulate multiplexing of the training runs at every counter count and every rotation
   offset (each a different view of the same runs), and of the validation and test runs at
   offset 0.
4. Train with early stopping on the validation loss (:mod:`hemkit.mpx.learned`); the
   normalisation is fitted on the training part only.
5. Score the model, perf's ``fixed`` scaling and the model's start estimator on the
   validation (and test) workloads.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.progress import ProgressLike
from hemkit.core.results import Result, result
from hemkit.core.rng import child
from hemkit.mpx.emulate import MpxData, check_multiplexed, emulate_many
from hemkit.mpx.estimators import FixedInterpolation, MpxEstimator
from hemkit.mpx.evaluation import drop_unseen, emulated_estimates, workloads_of
from hemkit.mpx.phase import INTERPOLATIONS
from hemkit.mpx.scores import MpxScores, score_table
from hemkit.mpx.traces import clean_runs, split_workloads


@dataclass(frozen=True)
class FitOptions:
    """How ``fit_estimator`` prepares the data.

    Attributes
    ----------
    pmcs : tuple of int
        Counter counts the training data is emulated at.
    split : tuple of float
        Training, validation, test fractions of the workloads (the paper's 7:1:2).
    clean : bool
        Apply the paper's data cleaning first.
    seed : int or None
        Seed of the workload split.
    max_steps : int
        Runs longer than this are cut into pieces of at most this many intervals for
        training (the series of a batch are padded to the longest: one 20-second run would
        otherwise multiply the memory of all).

    Examples
    --------
    >>> FitOptions(pmcs=(2,), split=(0.5, 0.5, 0.0)).split
    (0.5, 0.5, 0.0)
    >>> FitOptions(pmcs=())
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: pmcs: give at least one counter count
    """

    pmcs: tuple[int, ...] = (2, 3)
    split: tuple[float, float, float] = (0.7, 0.1, 0.2)
    clean: bool = True
    seed: int | None = 0
    max_steps: int = 512

    def __post_init__(self) -> None:
        if not self.pmcs:
            raise InputError("pmcs: give at least one counter count")
        for c in self.pmcs:
            check_scalar(c, "pmcs", min_val=1)


@result
class MpxFit(Result):
    """A trained estimator and how it did on workloads it did not see.

    Attributes
    ----------
    estimator : MpxEstimator
        The fitted estimator (save it with ``estimator.save(path)``).
    split : DataFrame
        ``workload, part, runs``: which workload went to training, validation or test.
    history : DataFrame
        ``epoch, train_loss, validation_loss`` per epoch trained.
    validation : MpxScores or None
        Scores on the validation part (the model, its start estimator and ``fixed``).
    test : MpxScores or None
        The same on the test part (None when the split has none).
    params : mapping
        The options.

    Examples
    --------
    Four synthetic workloads split 7:1:2 (two to train on, one to validate, one to test);
    linear interpolation learns nothing, but is scored the way a learned estimator is:

    >>> import pandas as pd
    >>> from hemkit.mpx import FitOptions, fit_estimator, make_estimator, synthetic_trace
    >>> trace = pd.concat([synthetic_trace(runs=3, steps=60, seed=k, workload=f"w{k}") for k in range(4)])
    >>> fit = fit_estimator(trace, make_estimator("linear"), FitOptions(pmcs=(2,), clean=False))
    >>> fit.split.groupby("part")["workload"].apply(list).to_dict()
    {'test': ['w1'], 'train': ['w0', 'w2'], 'validation': ['w3']}
    >>> print(fit.summary()[["ra", "total_error"]].round(2).reset_index().to_string(index=False))
          part estimator   ra  total_error
    validation     fixed 0.58         0.09
    validation    linear 0.39         0.06
          test     fixed 0.55         0.02
          test    linear 0.47         0.09
    """

    estimator: MpxEstimator
    split: pd.DataFrame
    history: pd.DataFrame
    validation: MpxScores | None = None
    test: MpxScores | None = None
    params: dict = field(default_factory=dict)

    def summary(self) -> pd.DataFrame:
        """Scores per part (validation, test) and estimator: RA, error cut against fixed, DTW, total error."""
        frames = []
        for part, scores in (("validation", self.validation), ("test", self.test)):
            if scores is not None:
                s = scores.summary()[["ra", "error_cut", "dtw", "total_error"]]
                s.index = pd.MultiIndex.from_product([[part], s.index], names=["part", "estimator"])
                frames.append(s)
        if not frames:
            return pd.DataFrame(columns=["ra", "error_cut", "dtw", "total_error"])
        return pd.concat(frames)


def cut_runs(trace: pd.DataFrame, max_steps: int) -> pd.DataFrame:
    """Runs longer than ``max_steps`` intervals cut into pieces (``RUN:2``, ``RUN:3``, ...; steps from 0).

    Examples
    --------
    >>> tr = pd.DataFrame({"run": "r", "step": range(5), "event": "e", "value": 1.0})
    >>> cut_runs(tr, 2)["run"].tolist()
    ['r', 'r', 'r:2', 'r:2', 'r:3']
    """
    if max_steps < 2:
        raise InputError(f"max_steps must be at least 2, got {max_steps}")
    step = trace["step"].to_numpy()
    piece = step // max_steps
    if not (piece > 0).any():
        return trace
    out = trace.copy()
    out["run"] = np.where(piece > 0, out["run"].astype(str) + ":" + (piece + 1).astype(str), out["run"].astype(str))
    out["step"] = step % max_steps
    return out


def _views(trace: pd.DataFrame, options: FitOptions, all_offsets: bool) -> MpxData:
    trace = cut_runs(trace, options.max_steps)
    n_ev = int(trace.groupby("run")["event"].nunique().max())
    views, _ = drop_unseen(emulate_many(trace, tuple(options.pmcs), range(n_ev) if all_offsets else [0]))
    return views  # pieces too short for every event to get a counter teach nothing


def fit_estimator(
    trace: pd.DataFrame, estimator: MpxEstimator, options: FitOptions = FitOptions(), progress: ProgressLike = None
) -> MpxFit:
    """Train ``estimator`` on OCOE traces with a split by workload (see the module docstring).

    Parameters
    ----------
    trace : DataFrame
        OCOE traces with a ``workload`` column (:func:`hemkit.io.traces.read_trace`).
    estimator : MpxEstimator
        A learned estimator (:class:`hemkit.mpx.learned.MLPEstimator`, ...); interpolations
        are accepted too (they learn nothing, but are scored the same way).
    options : FitOptions
        Counter counts, split fractions, cleaning, split seed.
    progress : ProgressLike
        Progress display (the estimator's epochs).

    Returns
    -------
    MpxFit

    Examples
    --------
    >>> import pandas as pd
    >>> from hemkit.mpx import synthetic_trace, make_estimator
    >>> tr = pd.concat([synthetic_trace(runs=3, steps=60, seed=k, workload=f"w{k}") for k in range(4)])
    >>> fit = fit_estimator(tr, make_estimator("linear"))
    >>> fit.split["part"].value_counts().to_dict()
    {'train': 2, 'validation': 1, 'test': 1}
    """
    tr = clean_runs(trace) if options.clean else trace
    check_multiplexed(tr, options.pmcs, "learn")
    names = workloads_of(tr)
    train_w, val_w, test_w = split_workloads(names, options.split, seed=child(options.seed, "split"))
    train_tr = tr[tr["workload"].isin(train_w)]
    val_tr = tr[tr["workload"].isin(val_w)]
    if val_tr.empty and options.split[1] > 0:
        runs = sorted(train_tr["run"].unique())
        if len(runs) < 2:
            raise InputError("one workload with one run: nothing to validate on; give more runs or workloads")
        k = max(1, round(len(runs) * options.split[1] / sum(options.split)))
        held = sorted(np.asarray(runs)[child(options.seed, "validation runs").permutation(len(runs))[:k]])
        warnings.warn(
            f"only one workload to train on ({', '.join(train_w)}): validating on {len(held)} of its runs "
            f"({', '.join(held)}), not on another workload",
            HemkitWarning,
            stacklevel=2,
        )
        val_tr = train_tr[train_tr["run"].isin(held)]
        train_tr = train_tr[~train_tr["run"].isin(held)]
    train = _views(train_tr, options, all_offsets=True)
    val = _views(val_tr, options, all_offsets=False) if not val_tr.empty else None
    estimator.fit(train, validation=val, progress=progress)
    history = getattr(estimator, "history_", pd.DataFrame(columns=["epoch", "train_loss", "validation_loss"]))
    parts = [
        ("train", train_w, train_tr),
        ("validation", val_w, val_tr),
        ("test", test_w, tr[tr["workload"].isin(test_w)]),
    ]
    split = pd.DataFrame(
        [
            {"workload": w, "part": part, "runs": int(sub.loc[sub["workload"] == w, "run"].nunique())}
            for part, ws, sub in parts
            for w in (ws or sorted(sub["workload"].unique()))
            if (sub["workload"] == w).any()
        ]
    )
    test_tr = tr[tr["workload"].isin(test_w)]
    scores = {
        "validation": _score(estimator, val) if val is not None else None,
        "test": _score(estimator, _views(test_tr, options, False)) if not test_tr.empty else None,
    }
    params = {"pmcs": list(options.pmcs), "split": list(options.split), "clean": options.clean, "seed": options.seed}
    return MpxFit(estimator, split, history, scores["validation"], scores["test"], params)


def _score(estimator: MpxEstimator, mpx: MpxData) -> MpxScores:
    ests: dict[str, MpxEstimator] = {"fixed": FixedInterpolation()}
    base = getattr(estimator, "base", None)
    if isinstance(base, str) and base in INTERPOLATIONS and base != "fixed":
        ests[base] = INTERPOLATIONS[base]()
    ests[estimator.name] = estimator
    values = emulated_estimates(mpx, ests)
    return MpxScores(score_table(mpx, values, dtw=False), "fixed")


__all__ = ["FitOptions", "MpxFit", "cut_runs", "fit_estimator"]
