"""Holdout evaluation for real data without a truth table, and the method names evaluations take.

:func:`holdout` splits each group's runs in two: one part is merged by every method, the
other part's observed pairwise correlations are the reference.  Every method gets its own
random stream by name (``hemkit.core.rng.child(seed, "merge", name)``), so a method's numbers
do not depend on which other methods ran: the same seed gives byte-identical results in any
process, and on a Dask cluster (``cluster=``: one task per method, :func:`holdout_method`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from hemkit.core.checks import check_scalar, unknown_choice
from hemkit.core.errors import InputError
from hemkit.core.progress import as_progress
from hemkit.core.readings import Readings
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, child
from hemkit.evaluate.pairs import Evaluation, compare, evaluate
from hemkit.evaluate.tasks import sweep_runner
from hemkit.external.cluster import parse_cluster
from hemkit.merge import METHODS, MergeResult, merge
from hemkit.merge.result import frozen_mapping

#: method names an evaluation takes: the merge methods and the MUCH paper as written
METHOD_SPECS: dict[str, tuple[str, dict[str, Any]]] = {
    **{m: (m, {}) for m in METHODS},
    "much-paper": ("much", {"mode": "paper"}),
}


def parse_methods(methods: str | Sequence[str]) -> list[str]:
    """Method names from a list or a comma-separated string, checked against :data:`METHOD_SPECS`.

    Examples
    --------
    >>> parse_methods("much, joint")
    ['much', 'joint']
    """
    names = [m.strip() for m in methods.split(",")] if isinstance(methods, str) else [str(m) for m in methods]
    names = [m for m in names if m]
    if not names:
        raise InputError("no method given; choose from " + ", ".join(METHOD_SPECS))
    for m in names:
        if m not in METHOD_SPECS:
            raise unknown_choice("method", m, METHOD_SPECS)
    if len(set(names)) != len(names):
        dup = next(m for m in names if names.count(m) > 1)
        raise InputError(f"method {dup!r} is given twice")
    return names


def default_anchor(readings: Readings) -> str:
    """The first event read in every group (HRM's anchor), or an error saying none is."""
    for e in readings.events:
        if all(e in t.columns for t in readings.groups.values()):
            return e
    raise InputError("hrm needs anchor, an event read in every group, and no event is; give one", param="anchor")


def run_method(
    name: str, readings: Readings, *, seed: SeedLike = 0, options: Mapping[str, Any] | None = None
) -> MergeResult:
    """Merge ``readings`` with the named method (a key of :data:`METHOD_SPECS`).

    ``options`` are keyword arguments of :func:`hemkit.merge.merge` for this method; hrm's
    anchor defaults to the first event read in every group.

    Parameters
    ----------
    name : {"joint", "copula", "much", "hrm", "much-paper"}
        The method; ``much-paper`` is MUCH with ``mode="paper"``.
    readings : Readings
    seed : int, Generator or None
        Randomness of the merge.
    options : mapping, optional
        Keyword arguments of :func:`hemkit.merge.merge` for this method.

    Returns
    -------
    MergeResult

    Raises
    ------
    InputError
        An unknown method (with the nearest name) or option, or hrm without an anchor given
        and no event read in every group.

    Examples
    --------
    >>> from hemkit.datasets import t2080_hrm
    >>> run_method("hrm", t2080_hrm()).params["anchor"]
    'PROCESSOR_CYCLES'
    """
    if name not in METHOD_SPECS:
        raise unknown_choice("method", name, METHOD_SPECS)
    method, fixed = METHOD_SPECS[name]
    kwargs = {**fixed, **dict(options or {})}
    if method == "hrm" and not kwargs.get("anchor"):
        kwargs["anchor"] = default_anchor(readings)
    return merge(readings, method, seed=seed, **kwargs)


@result
class HoldoutResult(Result):
    """Evaluations of several methods on one holdout split.

    Attributes
    ----------
    evaluations : mapping of method name -> Evaluation
        Each method's merge of one part, against the other part's observed correlations.
    params : mapping
        ``fraction``, ``seed`` and the methods' options.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> from hemkit.evaluate import holdout
    >>> small = {"much": {"rows": 1000}, "copula": {"rows": 1000}}
    >>> res = holdout(t2080_much(), ["much", "copula"], seed=3, options=small)
    >>> list(res), dict(res.params)["fraction"]
    (['much', 'copula'], 0.5)
    >>> print(res.summary()[["pairs", "pearson_mse", "spearman_mse"]].round(3).reset_index().to_string(index=False))
    method  pairs  pearson_mse  spearman_mse
      much    120        0.007         0.002
    copula    120        0.004         0.003
    >>> res["copula"].pairs.shape
    (120, 6)
    """

    evaluations: Mapping[str, Evaluation]
    params: Mapping[str, Any]

    def summary(self) -> pd.DataFrame:
        """One row per method: pairs, Pearson and Spearman MSE and max ``|difference|``."""
        return compare(dict(self.evaluations))

    def __getitem__(self, name: str) -> Evaluation:
        return self.evaluations[name]

    def __iter__(self) -> Any:
        return iter(self.evaluations)

    def __len__(self) -> int:
        return len(self.evaluations)

    def items(self) -> Any:
        """(method, Evaluation) pairs, as of a mapping."""
        return self.evaluations.items()

    def to_frame(self) -> pd.DataFrame:
        """Every method's per-pair differences, stacked (first index level: method)."""
        return pd.concat({n: e.pairs for n, e in self.evaluations.items()}, names=["method"])

    def plot(self, ax: Any = None, *, kind: str = "pearson") -> Any:
        """Sorted per-pair ``|difference|`` per method (MUCH paper, Fig. 5); returns the Axes."""
        from hemkit.evaluate.plot import plot_pair_differences

        return plot_pair_differences(dict(self.evaluations), kind=kind, ax=ax)


def holdout_method(
    part: Readings, reference: Readings, name: str, seed: SeedLike, options: Mapping[str, Any] | None
) -> Evaluation:
    """One method of a :func:`holdout`: merge ``part``, evaluate against ``reference``'s observed correlations.

    A module-level function of picklable arguments, so that a sweep can run it as a Dask task.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> part, reference = t2080_much().split_runs(seed=0)
    >>> holdout_method(part, reference, "copula", 3, {"rows": 1000}).label
    'copula'
    """
    return evaluate(run_method(name, part, seed=seed, options=options), reference, label=name)


def holdout(
    readings: Readings,
    methods: str | Sequence[str] = ("much", "joint"),
    *,
    fraction: float = 0.5,
    seed: SeedLike = 0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    cluster: str | None = None,
) -> HoldoutResult:
    """Merge one part of each group's runs and compare with the other part's observed correlations.

    Parameters
    ----------
    readings : Readings
    methods : names or a comma-separated string
        Keys of :data:`METHOD_SPECS` (``joint``, ``copula``, ``much``, ``hrm``, ``much-paper``).
    fraction : float in (0, 1)
        Share of each group's runs given to the merge.
    seed : int, Generator or None
        The split and every method's randomness (separate streams by name).
    options : mapping method -> keyword arguments of :func:`hemkit.merge.merge`, optional
        e.g. ``{"much": {"n_sims": 50}, "hrm": {"anchor": "cycles"}}``.
    cluster : str, optional
        Merge the methods as Dask tasks, one per method: ``"local:N"`` (N worker processes
        here) or a running scheduler's address (``"tcp://node0:8786"``); see
        :mod:`hemkit.external.cluster`.  The numbers are those of a run here with the same seed.

    Examples
    --------
    >>> from hemkit.datasets import t2080_much
    >>> small = {"much": {"rows": 1000}, "copula": {"rows": 1000}}
    >>> res = holdout(t2080_much(), ["much", "copula"], seed=3, options=small)
    >>> list(res.summary().index)
    ['much', 'copula']
    """
    names = parse_methods(methods)
    check_scalar(fraction, "fraction", "real", min_val=0, max_val=1, closed="neither")
    opts = {str(k): dict(v) for k, v in (options or {}).items()}
    unknown = [k for k in opts if k not in METHOD_SPECS]
    if unknown:
        raise InputError(f"options given for unknown method {unknown[0]!r}")
    if cluster is not None:
        parse_cluster(cluster)  # a bad value is refused before any work
    part, reference = readings.split_runs(fraction, seed=int(child(seed, "split").integers(2**32)))
    with as_progress(None).task("holdout", total=len(names)) as task, sweep_runner(cluster, task) as run:
        shared = run.share(part), run.share(reference)
        handles = [run.submit(holdout_method, *shared, n, child(seed, "merge", n), opts.get(n)) for n in names]
        evaluations = dict(zip(names, run.results(handles)))
    params = {"fraction": fraction, "seed": seed if isinstance(seed, int) else None, "options": opts}
    return HoldoutResult(evaluations=frozen_mapping(evaluations), params=frozen_mapping(params))


__all__ = [
    "METHOD_SPECS",
    "HoldoutResult",
    "default_anchor",
    "holdout",
    "holdout_method",
    "parse_methods",
    "run_method",
]
