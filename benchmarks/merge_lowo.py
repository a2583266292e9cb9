"""Merge accuracy and per-pair intervals, every setting chosen leave-one-workload-out (issue 26).

Run (scores every workload, caches them, then the leave-one-workload-out tables)::

    nice -n 10 .venv/bin/python benchmarks/merge_lowo.py --cache /tmp/lowo          # development set
    nice -n 10 .venv/bin/python benchmarks/merge_lowo.py --cache /tmp/lowo --fresh  # once, settings frozen
    nice -n 10 .venv/bin/python benchmarks/merge_lowo.py --cache /tmp/lowo --fresh2 # the second held-out set
    nice -n 10 .venv/bin/python benchmarks/merge_lowo.py --cache /tmp/lowo --fresh3 # the third held-out set

The development set is every ``benchmarks/data/truth/*.csv.gz`` (all-at-once truth tables
of real programs, ``benchmarks/truth_record.py``) plus the Zen 5 ``br_64kb`` truth as one
workload among them.  Events constant in a workload are dropped (they have no correlation).
Each workload is split at random into MUCH designs on 3 and 4 counters (``--splits``
splits each, every run used once; 300 runs and 10 events give 17 groups of 17 runs and 9
of 33), and merged by

- ``much-paper`` (the MUCH paper as written: the reference, ``--reference-reps`` merges),
  ``much``, ``copula``, and
- the joint merge in every candidate setting of :data:`JOINT_GRID` and the later grids (:data:`ALL_GRID`)
  (``--reps`` merges; the later grids are merged without the baselines and scored against the
  first's much-paper on the same splits),

each merge scored by the MSE of its Pearson and Spearman correlations against the
complete table's; a method's MSE ratio to much-paper is taken per split, a workload's
ratio is the geometric mean over its splits.  Per-pair 90 % intervals are scored for the
first merge of every joint setting, in every candidate variant of :data:`INTERVAL_GRID`
(applied to the jackknife standard error of :func:`hemkit.merge.intervals.compute_intervals`),
beside the naive percentile bootstrap.

Leave one workload out: for each workload W, the joint setting with the lowest
geometric-mean Pearson ratio over the *other* workloads, among those no worse in Spearman
there than :data:`GUARD` (:func:`choose_setting`; the table without that guard is printed too),
is chosen and W is scored with it; the interval factor (``IntervalOptions.se_factor``) is
the smallest whose coverage over the other workloads reaches the level (mean over workloads;
also for the pairs with a discrete count and at 10-30 runs a group), and W's coverage and width with it are reported.
``--fresh`` scores the held-out set (``folder/fresh``) with the library defaults -- the
settings chosen on the whole development set -- beside the joint default before issue 26
(:data:`FRESH_GRID`; no choice is made on it); ``--fresh2`` scores ``folder/fresh2`` the same way,
beside the default before the latest change (:data:`FRESH2_GRID`), and ``--fresh3`` ``folder/fresh3``
(:data:`FRESH3_GRID`).  Set ``OPENBLAS_NUM_THREADS=1`` on a busy
machine.
"""

from __future__ import annotations

import argparse
import hashlib
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning
from hemkit.core.rng import child
from hemkit.datasets import zen5_br_64kb
from hemkit.evaluate import evaluate
from hemkit.evaluate.holdout import run_method
from hemkit.evaluate.study import study_split
from hemkit.merge.correlation import fisher_z
from hemkit.merge.intervals import (
    IntervalOptions,
    _group_sums,
    compute_intervals,
    mix_jackknife,
    naive_intervals,
    tail_weights,
)
from hemkit.merge.joint import CALIBRATION
from merge_accuracy import markdown as accuracy_markdown  # benchmarks run as scripts from this folder

TRUTH = Path(__file__).parent / "data" / "truth"
LEVEL = 0.9
BASELINES = ["much-paper", "much", "copula"]


def _joint(
    linear: float,
    *,
    tails: float = 6.0,
    ranks: bool = True,
    target: bool = False,
    factor: float | str = 0.0,
    factor_runs: float | None = None,
    steps: int = 0,
) -> dict[str, Any]:
    """Every option spelled out, so that a change of the library defaults does not change a candidate.

    The options added later (``factor``, ``factor_runs``, ``pearson_steps``) are spelled out only when
    they are on, so the earlier candidates keep their cache keys; every merge of a candidate starts
    from :data:`OFF` (those options off), so a change of their defaults changes no candidate either.
    """
    out: dict[str, Any] = {"linear": linear, "linear_target": target, "ranks": ranks, "tails": tails}
    later = {"factor": factor, "factor_runs": factor_runs, "pearson_steps": steps}
    return {**out, **{key: v for key, v in later.items() if v}}


#: the options added after the first grids, off unless a candidate sets them
OFF: dict[str, Any] = {"factor": 0.0, "factor_runs": None, "pearson_steps": 0, "min_rows": 0, "calibration": None}

#: joint settings the protocol chooses among (label -> keyword arguments of merge)
JOINT_GRID: dict[str, dict[str, Any]] = {
    "joint": _joint(0.0),  # the default before issue 26
    "tails=4": _joint(0.0, tails=4.0),
    "linear=0.5": _joint(0.5),
    "linear=0.5 tails=4": _joint(0.5, tails=4.0),
    "linear=0.75": _joint(0.75),
    "linear=1": _joint(1.0),
    "linear=1 tails=4": _joint(1.0, tails=4.0),
    "linear=0.5 ranks=False": _joint(0.5, ranks=False),
    "linear=0.75 ranks=False": _joint(0.75, ranks=False),
}
#: added after the first pass (find-varied: no outliers, so the goal of step 4 moved nothing)
JOINT_GRID_2: dict[str, dict[str, Any]] = {
    "linear=0.5 ranks=False target": _joint(0.5, ranks=False, target=True),
    "linear=0.75 ranks=False target": _joint(0.75, ranks=False, target=True),
}
#: added by the lead after the second pass: the same target with the rank step on (br_64kb's Spearman)
JOINT_GRID_3: dict[str, dict[str, Any]] = {
    "linear=0.5 target": _joint(0.5, target=True),
    "linear=0.75 target": _joint(0.75, target=True),
}
#: added in a later session: a one-factor fit blended into the target and Pearson goal (``JointOptions.factor``)
JOINT_GRID_4: dict[str, dict[str, Any]] = {
    "linear=0.5 ranks=False target factor=0.25": _joint(0.5, ranks=False, target=True, factor=0.25),
    "linear=0.5 ranks=False target factor=0.5": _joint(0.5, ranks=False, target=True, factor=0.5),
    "linear=0.5 ranks=False target factor=0.35": _joint(0.5, ranks=False, target=True, factor=0.35),
}
#: added after JOINT_GRID_4: the arrangement's target corrected until its Pearson correlations meet the goal
JOINT_GRID_5: dict[str, dict[str, Any]] = {
    "linear=0.5 ranks=False target factor=0.25 steps=4": _joint(0.5, ranks=False, target=True, factor=0.25, steps=4),
    "linear=0.5 ranks=False target factor=0.35 steps=4": _joint(0.5, ranks=False, target=True, factor=0.35, steps=4),
    "linear=0.5 ranks=False target factor=0.5 steps=4": _joint(0.5, ranks=False, target=True, factor=0.5, steps=4),
    "linear=0.5 ranks=False target factor_runs=14 steps=4": _joint(
        0.5, ranks=False, target=True, factor_runs=14.0, steps=4
    ),
}
#: added in a later session: the factor model and its weight chosen from the data (``factor="auto"``,
#: :func:`hemkit.merge.joint.factor_blend`), in place of one factor at a fixed weight
JOINT_GRID_6: dict[str, dict[str, Any]] = {
    "linear=0.5 ranks=False target factor=auto": _joint(0.5, ranks=False, target=True, factor="auto"),
    "linear=0.25 ranks=False target factor=auto": _joint(0.25, ranks=False, target=True, factor="auto"),
    "linear=0 ranks=False factor=auto": _joint(0.0, ranks=False, factor="auto"),
}
ALL_GRID = {**JOINT_GRID, **JOINT_GRID_2, **JOINT_GRID_3, **JOINT_GRID_4, **JOINT_GRID_5, **JOINT_GRID_6}
#: the held-out set: the default before issue 26 and the default now (chosen on the development set)
FRESH_GRID: dict[str, dict[str, Any]] = {
    "joint (before)": _joint(0.0),
    "joint (default)": {},
}
#: the second held-out set: beside them, the default of the first issue-26 session (before ``factor``)
FRESH2_GRID: dict[str, dict[str, Any]] = {
    **FRESH_GRID,
    "joint (issue 26, first)": _joint(0.5, ranks=False, target=True),
}
#: the third held-out set: the default before this change, and the fixed one-factor blend beside the default
FRESH3_GRID: dict[str, dict[str, Any]] = {
    **FRESH_GRID,
    "joint (issue 26, first)": _joint(0.5, ranks=False, target=True),
    "joint factor=0.35": _joint(0.5, ranks=False, target=True, factor=0.35),
}
#: the fourth held-out set: the comparisons of the third (the merge default is unchanged since the third's second look)
FRESH4_GRID: dict[str, dict[str, Any]] = dict(FRESH3_GRID)
#: the fifth held-out set: beside the default (at least 2000 merged rows since the fifth pass), the default before it
#: (every reading once, ``min_rows=0``) and the runner-up of the pool (5000)
FRESH5_GRID: dict[str, dict[str, Any]] = {
    **FRESH3_GRID,
    "joint min_rows=0 (default before)": _joint(0.5, ranks=False, target=True, factor="auto"),
    "joint min_rows=5000": {**_joint(0.5, ranks=False, target=True, factor="auto"), "min_rows": 5000},
}
#: the sixth held-out set: the merge default unchanged since the fifth, and beside it the opt-in calibration
#: (``JointOptions(calibration=CALIBRATION)``, fitted on the 55 workloads of the pool before this set was read)
FRESH6_GRID: dict[str, dict[str, Any]] = {
    **FRESH5_GRID,
    "joint calibrated (opt-in)": {
        **_joint(0.5, ranks=False, target=True, factor="auto"),
        "min_rows": 2000,
        "calibration": CALIBRATION,
    },
}
#: each held-out set (a folder of ``--truth``, scored with ``--<name>``) and the settings merged on it
HELD_GRIDS: dict[str, dict[str, dict[str, Any]]] = {
    "fresh": FRESH_GRID,
    "fresh2": FRESH2_GRID,
    "fresh3": FRESH3_GRID,
    "fresh4": FRESH4_GRID,
    "fresh5": FRESH5_GRID,
    "fresh6": FRESH6_GRID,
    # the seventh to the twenty-fifth (each recorded after the one before was scored): the merge default unchanged
    # since the fifth, so the settings of the sixth; a set recorded next joins here unless the merge changes first
    **{f"fresh{k}": FRESH6_GRID for k in range(7, 29)},
}
#: interval variants: label -> factor on the jackknife z-scale half-width
INTERVAL_GRID: dict[str, float] = {
    f"x{f:.2f}": f for f in (0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5)
}


def load_truth(path: Path) -> pd.DataFrame:
    """A ``run,event,value`` table as runs x events (runs in collection order), constant events dropped."""
    tidy = pd.read_csv(path)
    wide = tidy.pivot(index="run", columns="event", values="value").sort_index().astype(float)
    wide = wide.dropna(axis=0)
    keep = [c for c in wide.columns if np.ptp(wide[c].to_numpy()) > 0]
    wide = wide[keep]
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index(drop=True)


def workloads(folder: Path, held: str | None = None) -> dict[str, pd.DataFrame]:
    """The development set (br_64kb and every table in ``folder``) or a held-out one (``folder/held``)."""
    folder = folder / held if held else folder
    out = {} if held else {"br_64kb": zen5_br_64kb()}
    for p in sorted(folder.glob("*.csv.gz")):
        out[p.name.removesuffix(".csv.gz")] = load_truth(p)
    return out


#: counts reported on their own in the interval table (pairs with either)
COUNT_EVENTS = ("context-switches", "cpu-migrations")


def discrete_events(truth: pd.DataFrame) -> set[str]:
    """Counts with heavily tied readings: at most one distinct value per 8 runs (context switches, migrations)."""
    return {c for c in truth.columns if truth[c].nunique() <= max(10, len(truth) / 8)}


def _merge(name: str, readings: Any, seed: Any, options: Mapping[str, Any] | None) -> Any:
    """One merge; a pair never read together (a count constant in the only group that read it) is imputed."""
    if readings.missing_pairs():
        options = {**(options or {}), "impute": "maxdet"}
    return run_method(name, readings, seed=seed, options=options)


def score_workload(
    name: str,
    truth: pd.DataFrame,
    grid: Mapping[str, dict[str, Any]],
    *,
    splits: int,
    reps: int,
    ref_reps: int,
    seed: int,
    baselines: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accuracy rows (per case and setting) and interval rows (per case, joint setting and pair)."""
    disc = discrete_events(truth)
    acc: list[dict[str, Any]] = []
    pairs: list[pd.DataFrame] = []
    methods: dict[str, tuple[str, dict[str, Any]]] = {m: (m, {}) for m in BASELINES} if baselines else {}
    methods.update({label: ("joint", {**OFF, **opts} if opts else {}) for label, opts in grid.items()})
    for pmcs in (3, 4):
        for split in range(splits):
            readings = study_split(truth, pmcs, child(seed, "split", name, pmcs, split))
            per = int(readings.n_runs.min())
            sub = truth[readings.events]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", HemkitWarning)
                se = mix_jackknife(readings)
                naive = naive_intervals(readings, level=LEVEL, seed=child(seed, "naive", name, pmcs, split))
                for label, (method, opts) in methods.items():
                    n = ref_reps if label == "much-paper" else reps
                    pm, sm = [], []
                    for rep in range(n):
                        res = _merge(method, readings, child(seed, "merge", name, pmcs, split, rep, label), opts)
                        ev = evaluate(res, sub)
                        pm.append(ev.mse("pearson"))
                        sm.append(ev.mse("spearman"))
                        if rep == 0 and method == "joint":
                            pairs.append(
                                _pair_rows(res, readings, ev, se, naive, disc).assign(
                                    setting=label, pmcs=pmcs, split=split, runs_per_group=per
                                )
                            )
                    acc.append(
                        {
                            "pmcs": pmcs,
                            "split": split,
                            "runs_per_group": per,
                            "setting": label,
                            "pearson_mse": float(np.mean(pm)),
                            "spearman_mse": float(np.mean(sm)),
                        }
                    )
    return pd.DataFrame(acc).assign(workload=name), pd.concat(pairs, ignore_index=True).assign(workload=name)


def add_ratios(a: pd.DataFrame) -> pd.DataFrame:
    """Each row's MSE over much-paper's on the same workload and split (a copy with ``*_ratio``)."""
    a = a.copy()
    ref = a[a["setting"] == "much-paper"].set_index(["workload", "pmcs", "split"])
    for kind in ("pearson", "spearman"):
        base = ref[f"{kind}_mse"].reindex(pd.MultiIndex.from_frame(a[["workload", "pmcs", "split"]])).to_numpy()
        a[f"{kind}_ratio"] = a[f"{kind}_mse"].to_numpy() / base
    return a


def _pair_rows(res: Any, readings: Any, ev: Any, se: np.ndarray, naive: pd.DataFrame, disc: set[str]) -> pd.DataFrame:
    """Per pair: truth, merged estimate, the default interval, the jackknife se, the naive interval."""
    iv = compute_intervals(res, readings, IntervalOptions(level=LEVEL, se_factor=1.0, kurtosis=0.0))
    lib = compute_intervals(res, readings, IntervalOptions(level=LEVEL))  # the library's default intervals
    truth_r = ev.pairs["truth_pearson"]
    iv = iv.set_index(["event_a", "event_b"]).reindex(truth_r.index)
    nv = naive.set_index(["event_a", "event_b"]).reindex(truth_r.index)
    lib = lib.set_index(["event_a", "event_b"]).reindex(truth_r.index)
    index = {e: i for i, e in enumerate(readings.events)}
    a = [index[x] for x in truth_r.index.get_level_values(0)]
    b = [index[x] for x in truth_r.index.get_level_values(1)]
    out = pd.DataFrame(
        {
            "truth": truth_r.to_numpy(),
            "estimate": iv["estimate"].to_numpy(),
            "lower": iv["lower"].to_numpy(),
            "upper": iv["upper"].to_numpy(),
            "default_lower": lib["lower"].to_numpy(),
            "default_upper": lib["upper"].to_numpy(),
            "se_z": se[a, b],
            "naive_lower": nv["lower"].to_numpy(),
            "naive_upper": nv["upper"].to_numpy(),
            "runs_together": iv["runs_together"].to_numpy(),
            "discrete": [x in disc or y in disc for x, y in truth_r.index],
        },
        index=truth_r.index,
    )
    kurt, excess = pair_spread(readings)
    out["kurt"], out["excess"] = kurt[a, b], excess[a, b]
    return out.reset_index(names=["event_a", "event_b"])


def pair_spread(readings: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per pair (events x events) what the jackknife of the pair's own runs may miss.

    ``kurt``: ``max(sqrt(kappa_a kappa_b) / 3, 1)`` (1 + :func:`hemkit.merge.intervals.tail_weights`),
    the kurtosis of each event over *all* its readings (group-centred), 1 for normal readings -- the
    influence of a run on a correlation grows with it, and an extreme reading outside the pair's runs
    is in it.  ``excess``: the larger over the two events of the share of the event's squared
    deviations outside the pair's runs beyond the share of its runs there (0 when the pair's runs
    hold their share of the spread).
    """
    gs = _group_sums(readings)
    with np.errstate(invalid="ignore", divide="ignore"):
        share_out = 1 - gs.vj / gs.v[:, None]
        expect_out = 1 - gs.cn / gs.c[:, None]
    ex = np.clip(np.nan_to_num(share_out - expect_out), 0, 1)
    return tail_weights(readings) + 1, np.maximum(ex, ex.T)


def widen(p: pd.DataFrame, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """The intervals at ``IntervalOptions(se_factor=factor)``, from those at factor 1.

    Half-widths scale by ``factor`` on the Fisher-z scale (exact for every pair but near-copies,
    whose interval is made on the r scale); pairs never read together keep their range.
    (:func:`widen_spread` without a spread term.)
    """
    return widen_spread(p, factor, "none", 0.0)


def interval_scores(p: pd.DataFrame, factor: float) -> dict[str, float]:
    """Coverage and median width (also relative to the naive interval's) of pair rows."""
    return bound_scores(p, *widen(p, factor))


def bound_scores(p: pd.DataFrame, lo: np.ndarray, hi: np.ndarray) -> dict[str, float]:
    """Coverage and median width (also relative to the naive interval's) of pair rows with bounds ``lo``, ``hi``."""
    t = p["truth"].to_numpy()
    nw = float(np.nanmedian(p["naive_upper"] - p["naive_lower"]))  # NaN: a pair never read together
    w = float(np.median(hi - lo))
    return {
        "pairs": len(p),
        "coverage": float(np.mean((lo <= t) & (t <= hi))),
        "width_vs_naive": w / nw if nw > 0 else float("nan"),
        "naive_coverage": float(np.mean((p["naive_lower"] <= t) & (t <= p["naive_upper"]))),
    }


def _geo(x: pd.Series) -> float:
    x = x.dropna()
    return float(np.exp(np.log(x).mean())) if len(x) else float("nan")


def per_workload(acc: pd.DataFrame) -> pd.DataFrame:
    """Workload x setting: geometric-mean Pearson and Spearman ratio over the workload's splits."""
    g = acc.groupby(["workload", "setting"], sort=False)
    return pd.DataFrame({"pearson": g["pearson_ratio"].agg(_geo), "spearman": g["spearman_ratio"].agg(_geo)})


def choose_factor(pairs: pd.DataFrame) -> str:
    """The smallest factor whose intervals cover ``LEVEL`` on these workloads: their mean, discrete pairs, <= 30 runs.

    Coverage is averaged over workloads (each counts once), for all pairs, for the pairs with a
    discrete count, and for the cases with 10-30 runs a group.
    """
    parts = [pairs, pairs[pairs["discrete"]], pairs[pairs["runs_per_group"] <= 30]]
    for lab, f in INTERVAL_GRID.items():
        covers = [np.mean([interval_scores(g, f)["coverage"] for _, g in part.groupby("workload")]) for part in parts]
        if min(covers) >= LEVEL:
            return lab
    return list(INTERVAL_GRID)[-1]


#: the settings a choice may make: a fixed one-factor blend (``factor`` a number, ``factor_runs``) is scored but
#: not eligible, because on data whose events form several clusters it made merges 1.3-3.5x worse
#: (``merge_linear_scale.py --factors``, synthetic truth, and the T2080 readings; BENCHMARKS.md) -- the truth
#: tables here are software events of one program each, which nearly all follow one factor
ELIGIBLE = [
    s
    for s, o in ALL_GRID.items()
    if not (isinstance(o.get("factor"), float) and o["factor"] > 0) and not o.get("factor_runs")
]
#: the joint default the later grids must not make worse in Spearman accuracy (the first issue-26 choice)
GUARD = "linear=0.5 ranks=False target"


def choose_setting(pw: pd.DataFrame, names: list[str], guard: str | None = GUARD) -> str:
    """The joint setting with the lowest geometric-mean Pearson ratio over ``names``.

    With ``guard``, only among the settings whose geometric-mean Spearman ratio over ``names`` is
    no worse than ``guard``'s: a new default must not buy Pearson accuracy with rank accuracy.
    """
    sp = {s: _geo(pw.loc[(names, s), "spearman"]) for s in ALL_GRID}
    ok = [s for s in ELIGIBLE if guard is None or sp[s] <= sp[guard] + 1e-12]
    return min(ok, key=lambda s: _geo(pw.loc[(names, s), "pearson"]))


def lowo(acc: pd.DataFrame, pairs: pd.DataFrame, guard: str | None = GUARD) -> pd.DataFrame:
    """Leave one workload out: choose the joint setting (:func:`choose_setting`) and interval factor on the others."""
    pw = per_workload(acc)
    names = list(dict.fromkeys(acc["workload"]))
    rows = []
    for w in names:
        others = [x for x in names if x != w]
        best = choose_setting(pw, others, guard)
        lab = choose_factor(pairs[pairs["workload"].isin(others) & (pairs["setting"] == best)])
        mine = pairs[(pairs["workload"] == w) & (pairs["setting"] == best)]
        with_event = {e: mine[(mine["event_a"] == e) | (mine["event_b"] == e)] for e in COUNT_EVENTS}
        parts = {
            "discrete": mine[mine["discrete"]],
            "<=30 runs": mine[mine["runs_per_group"] <= 30],
            **with_event,
        }
        extra = {}
        for part, sub in parts.items():
            sc = interval_scores(sub, INTERVAL_GRID[lab]) if len(sub) else {}
            extra[f"coverage {part}"] = sc.get("coverage", float("nan"))
            extra[f"width {part}"] = sc.get("width_vs_naive", float("nan"))
        rows.append(
            {
                "workload": w,
                "joint setting (chosen on the others)": best,
                "pearson": pw.loc[(w, best), "pearson"],
                "spearman": pw.loc[(w, best), "spearman"],
                "much": pw.loc[(w, "much"), "pearson"],
                "copula": pw.loc[(w, "copula"), "pearson"],
                "interval factor": lab,
                **{k: v for k, v in interval_scores(mine, INTERVAL_GRID[lab]).items()},
                **extra,
            }
        )
    return pd.DataFrame(rows).set_index("workload")


def markdown(df: pd.DataFrame, fmt: str = "{:.3f}") -> str:
    """A DataFrame as a Markdown table (index included), to 3 decimals: merge_accuracy's table writer."""
    return accuracy_markdown(df, fmt)


def cached_scores(
    args: argparse.Namespace,
    prefix: str,
    name: str,
    truth: pd.DataFrame,
    grid: Mapping[str, dict[str, Any]],
    baselines: bool,
    label: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`score_workload` of one grid, from ``args.cache`` when it holds them (keyed by the grid's settings)."""
    digest = hashlib.sha1(repr(sorted(grid.items())).encode()).hexdigest()[:8]
    tag = f"{prefix}{name}-s{args.splits}r{args.reps}R{args.reference_reps}-{digest}"
    files = (args.cache / f"{tag}-acc.pkl", args.cache / f"{tag}-pairs.pkl") if args.cache else None
    if files and files[0].exists():
        return pd.read_pickle(files[0]), pd.read_pickle(files[1])
    t1 = time.perf_counter()
    opts = {"splits": args.splits, "reps": args.reps, "ref_reps": args.reference_reps}
    a, p = score_workload(name, truth, grid, **opts, seed=args.seed, baselines=baselines)
    took = time.perf_counter() - t1
    print(f"{label or name}: {truth.shape[0]} runs x {truth.shape[1]} events, {took:.0f} s", flush=True)
    if files:
        args.cache.mkdir(parents=True, exist_ok=True)
        a.to_pickle(files[0])
        p.to_pickle(files[1])
    return a, p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--reference-reps", type=int, default=4)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--cache", type=Path, default=None, help="folder of per-workload scores (reused)")
    for name in HELD_GRIDS:
        ap.add_argument(f"--{name}", action="store_true", help=f"score the held-out set {name} (settings frozen)")
    ap.add_argument("--truth", type=Path, default=TRUTH, help="folder of the recorded truth tables")
    ap.add_argument("--only", nargs="*", help="workload names")
    ap.add_argument(
        "--pool", action="store_true", help="the development set and the scored held-out sets: intervals chosen on all"
    )
    args = ap.parse_args()
    if args.pool:
        main_pool(args)
        return
    accs, pairs = [], []
    t0 = time.perf_counter()
    held = next((name for name in HELD_GRIDS if getattr(args, name)), None)
    for name, truth in workloads(args.truth, held).items():
        if args.only and name not in args.only:
            continue
        later = [(g, False) for g in (JOINT_GRID_2, JOINT_GRID_3, JOINT_GRID_4, JOINT_GRID_5, JOINT_GRID_6)]
        passes = [(HELD_GRIDS[held], True)] if held else [(JOINT_GRID, True), *later]
        a_parts, p_parts = [], []
        for grid, baselines in passes:
            a, p = cached_scores(args, f"{held}-" if held else "", name, truth, grid, baselines)
            a_parts.append(a.drop(columns=["pearson_ratio", "spearman_ratio"], errors="ignore"))
            p_parts.append(p)
        a, p = pd.concat(a_parts, ignore_index=True), pd.concat(p_parts, ignore_index=True)
        accs.append(a)
        pairs.append(p)
    acc = add_ratios(pd.concat(accs, ignore_index=True))
    pr = pd.concat(pairs, ignore_index=True)
    took = time.perf_counter() - t0
    print(f"\n## Per workload: MSE ratio to much-paper (geometric mean over splits) ({took:.0f} s)\n")
    pw = per_workload(acc)
    print("Pearson:\n\n" + markdown(pw["pearson"].unstack(1)))
    print("\nSpearman:\n\n" + markdown(pw["spearman"].unstack(1)))
    if held:
        report_fresh(acc, pr)
        return
    unguarded = lowo(acc, pr, guard=None)
    print("\n## Leave one workload out, chosen on Pearson alone\n")
    print(markdown(unguarded))
    print(
        f"\ngeometric mean Pearson {_geo(unguarded['pearson']):.3f} (worst {unguarded['pearson'].max():.3f}), "
        f"Spearman {_geo(unguarded['spearman']):.3f} (worst {unguarded['spearman'].max():.3f})"
    )
    res = lowo(acc, pr)
    print(f"\n## Leave one workload out, Spearman no worse than {GUARD!r} on the others\n")
    print(markdown(res))
    print(
        f"\ngeometric mean Pearson {_geo(res['pearson']):.3f} (worst {res['pearson'].max():.3f}), "
        f"Spearman {_geo(res['spearman']):.3f}; coverage {res['coverage'].mean():.3f}, "
        f"width/naive {res['width_vs_naive'].median():.2f}"
    )
    names = list(dict.fromkeys(acc["workload"]))
    best = choose_setting(pw, names)
    print(
        f"\nChosen on all {len(names)} development workloads (the defaults for the held-out set): "
        f"{best} {ALL_GRID[best]}, interval factor {choose_factor(pr[pr['setting'] == best])}"
    )


#: the held-out sets already scored once, pooled with the development set for the interval choice (fifth session)
POOL_SETS = ("fresh", "fresh2", "fresh3")
#: the library default before the fifth pass (``min_rows`` 0), spelled out (a change of the defaults does not change
#: it), merged on every pooled workload; the new settings must be no worse than it in Spearman error
POOL_GRID: dict[str, dict[str, Any]] = {"default": _joint(0.5, ranks=False, target=True, factor="auto")}
#: other joint settings merged on the pool, to choose the merge's own setting on all 39 workloads (fifth session)
POOL_EXTRA: dict[str, dict[str, Any]] = {
    "linear=0.25 factor=auto": _joint(0.25, ranks=False, target=True, factor="auto"),
    "linear=0.75 factor=auto": _joint(0.75, ranks=False, target=True, factor="auto"),
    "linear=1 factor=auto": _joint(1.0, ranks=False, target=True, factor="auto"),
    "linear=0.5 tails=4 factor=auto": _joint(0.5, tails=4.0, ranks=False, target=True, factor="auto"),
}
#: added after POOL_EXTRA: lower tail thresholds (tails=4 was the best of POOL_EXTRA on the held-out sets)
POOL_EXTRA_2: dict[str, dict[str, Any]] = {
    "linear=0.5 tails=3 factor=auto": _joint(0.5, tails=3.0, ranks=False, target=True, factor="auto"),
    "linear=0.5 tails=2 factor=auto": _joint(0.5, tails=2.0, ranks=False, target=True, factor="auto"),
    "linear=0.75 tails=3 factor=auto": _joint(0.75, tails=3.0, ranks=False, target=True, factor="auto"),
}
#: the default and tails=4 merged again with other seeds (a setting's label is in its merges' seeds): the two
#: differ by less in Spearman error than one set of seeds to the next, so each is scored on both (:func:`pool_report`)
POOL_EXTRA_3: dict[str, dict[str, Any]] = {
    "default (second seeds)": _joint(0.5, ranks=False, target=True, factor="auto"),
    "tails=4 (second seeds)": _joint(0.5, tails=4.0, ranks=False, target=True, factor="auto"),
}
#: at least this many merged rows (``JointOptions.min_rows``): a MUCH design of 300 runs gives 100-130 by default
POOL_EXTRA_4: dict[str, dict[str, Any]] = {
    f"min_rows={n}": {**_joint(0.5, ranks=False, target=True, factor="auto"), "min_rows": n} for n in (1000, 2000, 5000)
}
#: the setting whose merges calibrate the intervals: the library default since the fifth pass (``MIN_ROWS`` 2000)
INTERVAL_SETTING = "min_rows=2000"
#: interval variants on the pool: label -> (kind, coefficient); see :func:`widen_spread`
SPREAD_VARIANTS: dict[str, tuple[str, float]] = {
    "jackknife": ("none", 0.0),
    **{f"kurt {c:g}": ("kurt", c) for c in (0.1, 0.25, 0.5, 1.0, 2.0)},
    **{f"excess {c:g}": ("excess", c) for c in (0.5, 1.0, 2.0)},
}


def widen_spread(p: pd.DataFrame, factor: float, kind: str, c: float) -> tuple[np.ndarray, np.ndarray]:
    """The intervals at ``se_factor=factor``, widened for what the pair's own runs may miss (:func:`pair_spread`).

    ``kurt``: the jackknife variance plus ``c (kurt - 1) / (m - 3)`` (``m`` the runs read together):
    the normal-theory variance of a correlation from ``m`` runs, scaled by how much heavier than
    normal the events' tails are in *all* their readings.  ``excess``: ``c x excess`` added to the
    half-width on the Fisher-z scale.  Pairs never read together keep their range.
    """
    z, lo, hi = (fisher_z(p[c].to_numpy()) for c in ("estimate", "lower", "upper"))
    se = p["se_z"].to_numpy()
    keep = ~np.isfinite(se)
    ratio, add = np.ones(len(p)), np.zeros(len(p))
    if kind == "kurt":
        extra = c * np.maximum(p["kurt"].to_numpy() - 1, 0) / np.maximum(p["runs_together"].to_numpy() - 3, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(se > 0, np.sqrt(1 + extra / se**2), 1.0)
    elif kind == "excess":
        add = c * p["excess"].to_numpy()
    return (
        np.where(keep, p["lower"], np.tanh(z - factor * ratio * (z - lo) - add)),
        np.where(keep, p["upper"], np.tanh(z + factor * ratio * (hi - z) + add)),
    )


def _candidate_scores(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per workload and interval candidate (variant, factor): coverage and width of all pairs, discrete, <= 30 runs."""
    rows = []
    for w, g in pairs.groupby("workload", sort=False):
        parts = {"all": g, "discrete": g[g["discrete"]], "<=30 runs": g[g["runs_per_group"] <= 30]}
        for var, (kind, c) in SPREAD_VARIANTS.items():
            for lab, f in INTERVAL_GRID.items():
                row: dict[str, Any] = {"workload": w, "variant": var, "factor": lab}
                for part, sub in parts.items():
                    sc = bound_scores(sub, *widen_spread(sub, f, kind, c)) if len(sub) else {}
                    row[f"coverage {part}"] = sc.get("coverage", float("nan"))
                    row[f"width {part}"] = sc.get("width_vs_naive", float("nan"))
                rows.append(row)
    return pd.DataFrame(rows)


#: the size of a held-out set of workloads (``fresh`` ... ``fresh4``: 8 each) and how surely the mean coverage over
#: such a set should reach ``LEVEL`` (:func:`choose_interval` with ``margin=True``)
SET_SIZE = 8
ASSURANCE = 0.9


def choose_interval(scores: pd.DataFrame, variants: list[str], *, margin: bool = False) -> tuple[str, str]:
    """Among ``variants`` x factors, the narrowest (mean width over workloads) covering ``LEVEL`` on these workloads.

    Coverage is the mean over workloads, for all pairs, the pairs with a discrete count and the
    cases with 10-30 runs a group (as :func:`choose_factor`); if no candidate reaches it, the one
    with the largest of the three's smallest.  With ``margin``, the mean over a new set of
    :data:`SET_SIZE` workloads like these must reach ``LEVEL`` with probability :data:`ASSURANCE`
    (normal approximation: ``mean - z sd / sqrt(SET_SIZE)``, ``sd`` over the workloads), so a
    candidate whose coverage varies from workload to workload needs a higher mean.
    """
    from scipy.stats import norm

    g = scores[scores["variant"].isin(variants)].groupby(["variant", "factor"], sort=False)
    parts = ["coverage all", "coverage discrete", "coverage <=30 runs"]
    cov = g[parts].mean()
    if margin:
        cov = cov - float(norm.ppf(ASSURANCE)) * g[parts].std() / np.sqrt(SET_SIZE)
    low = cov.min(axis=1)
    width = g["width all"].mean()
    ok = low[low >= LEVEL]
    best = width[ok.index].idxmin() if len(ok) else low.idxmax()
    return str(best[0]), str(best[1])


def pool_report(acc: pd.DataFrame, pairs: pd.DataFrame, sets: Mapping[str, str]) -> None:
    """The pooled workloads: the default's accuracy, and intervals chosen leave one workload out over the pool."""
    # settings with the same options (merged with different seeds) count as one, scored on all their merges
    grids = {**POOL_GRID, **POOL_EXTRA, **POOL_EXTRA_2, **POOL_EXTRA_3, **POOL_EXTRA_4}
    canon = {lab: next(x for x, o in grids.items() if o == opts) for lab, opts in grids.items()}
    acc = acc.assign(setting=acc["setting"].map(lambda s: canon.get(s, s)))
    pairs = pairs.assign(setting=pairs["setting"].map(lambda s: canon.get(s, s)))
    pw = per_workload(acc)
    settings = list(dict.fromkeys(canon.values()))
    names = list(dict.fromkeys(acc["workload"]))
    print(
        f"\n## Pool of {len(names)} workloads: joint settings, Pearson / Spearman ratio to much-paper (geometric mean)"
    )
    table = pd.DataFrame(
        {
            s: {
                **{
                    f"pearson {k}": _geo(pw.loc[([w for w in names if sets[w] == k], s), "pearson"])
                    for k in dict.fromkeys(sets.values())
                },
                "pearson all": _geo(pw.loc[(names, s), "pearson"]),
                "spearman all": _geo(pw.loc[(names, s), "spearman"]),
                "pearson worst": float(pw.loc[(names, s), "pearson"].max()),
            }
            for s in settings
        }
    ).T
    print(markdown(table))
    chosen = []
    guard = "default"  # a new default must not buy Pearson accuracy with rank accuracy
    for w in names:
        others = [x for x in names if x != w]
        ok = [
            s
            for s in settings
            if _geo(pw.loc[(others, s), "spearman"]) <= _geo(pw.loc[(others, guard), "spearman"]) + 1e-12
        ]
        best = min(ok, key=lambda s: _geo(pw.loc[(others, s), "pearson"]))
        chosen.append((w, best, pw.loc[(w, best), "pearson"]))
    ch = pd.DataFrame(chosen, columns=["workload", "setting", "pearson"]).set_index("workload")
    print(
        f"\nleft out one at a time (Spearman no worse than {guard!r}): Pearson {_geo(ch['pearson']):.3f}; "
        f"chosen {ch['setting'].value_counts().to_dict()}"
    )
    p = pairs[pairs["setting"] == INTERVAL_SETTING]
    scores = _candidate_scores(p)
    names = list(dict.fromkeys(p["workload"]))
    for title, variants, margin in (
        ("the jackknife alone (se_factor chosen)", ["jackknife"], False),
        ("the jackknife or a spread variant (chosen)", list(SPREAD_VARIANTS), False),
        ("the jackknife alone, with a margin for a new set", ["jackknife"], True),
        ("the jackknife or a spread variant, with a margin for a new set", list(SPREAD_VARIANTS), True),
    ):
        rows = []
        for w in names:
            var, lab = choose_interval(scores[scores["workload"] != w], variants, margin=margin)
            mine = scores[(scores["workload"] == w) & (scores["variant"] == var) & (scores["factor"] == lab)].iloc[0]
            rows.append(
                {
                    "workload": w,
                    "set": sets[w],
                    "pearson": pw.loc[(w, INTERVAL_SETTING), "pearson"],
                    "spearman": pw.loc[(w, INTERVAL_SETTING), "spearman"],
                    "variant": var,
                    "factor": lab,
                    **{k: mine[k] for k in mine.index if k.startswith(("coverage", "width"))},
                }
            )
        res = pd.DataFrame(rows).set_index("workload")
        print(f"\n## Pool of {len(names)} workloads, intervals by {title}, left out one at a time\n")
        print(markdown(res))
        by = res.groupby("set", sort=False)
        summary = pd.DataFrame(
            {
                "workloads": by.size(),
                "pearson (geo)": by["pearson"].agg(_geo),
                "coverage": by["coverage all"].mean(),
                "worst coverage": by["coverage all"].min(),
                "coverage discrete": by["coverage discrete"].mean(),
                "coverage <=30 runs": by["coverage <=30 runs"].mean(),
                "width/naive": by["width all"].median(),
            }
        )
        print("\n" + markdown(summary))
        print(
            f"\nall: Pearson {_geo(res['pearson']):.3f}, coverage {res['coverage all'].mean():.3f} "
            f"(worst {res['coverage all'].min():.3f}), width/naive {res['width all'].median():.2f}"
        )
        print(f"chosen on all {len(names)}: {choose_interval(scores, variants, margin=margin)}")


def main_pool(args: argparse.Namespace) -> None:
    """``--pool``: every development and scored held-out workload merged with the default, intervals chosen on all."""
    pool_report(*load_pool(args))


def load_pool(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """The pooled workloads' accuracy rows (with ratios), pair rows and set of each workload (scored or cached)."""
    base = {"": JOINT_GRID, **HELD_GRIDS}
    accs, pairs, sets = [], [], {}
    for part in ("", *POOL_SETS):
        for name, truth in workloads(args.truth, part or None).items():
            label = f"{part}/{name}" if part else name
            if args.only and label not in args.only:
                continue
            sets[label] = part or "development"
            grids = (
                (base[part], True),
                (POOL_GRID, False),
                (POOL_EXTRA, False),
                (POOL_EXTRA_2, False),
                (POOL_EXTRA_3, False),
                (POOL_EXTRA_4, False),
            )
            for grid, baselines in grids:
                a, p = cached_scores(args, f"{part}-" if part else "", name, truth, grid, baselines, label)
                accs.append(a.drop(columns=["pearson_ratio", "spearman_ratio"], errors="ignore").assign(workload=label))
                pairs.append(p.assign(workload=label))
    return add_ratios(pd.concat(accs, ignore_index=True)), pd.concat(pairs, ignore_index=True), sets


#: the interval default before the fifth session (the jackknife alone, at this factor), scored beside the new one
PREVIOUS_SE_FACTOR = 0.85


def default_scores(p: pd.DataFrame) -> dict[str, float]:
    """Coverage and width of the library's default intervals (computed with the merge), or at its se_factor."""
    if "default_lower" in p and p["default_lower"].notna().all():
        return bound_scores(p, p["default_lower"].to_numpy(), p["default_upper"].to_numpy())
    return interval_scores(p, IntervalOptions().se_factor)


def report_fresh(acc: pd.DataFrame, pairs: pd.DataFrame) -> None:
    """The held-out set scored with the library defaults (nothing chosen on it)."""
    pw = per_workload(acc)
    opts = IntervalOptions()
    rows = []
    for w in dict.fromkeys(acc["workload"]):
        mine = pairs[(pairs["workload"] == w) & (pairs["setting"] == "joint (default)")]
        sc = default_scores(mine)
        others = {
            s: pw.loc[(w, s), "pearson"]
            for s in ("joint min_rows=0 (default before)", "joint min_rows=5000", "joint calibrated (opt-in)")
            if (w, s) in pw.index
        }
        before = interval_scores(mine, PREVIOUS_SE_FACTOR)
        disc, small = mine[mine["discrete"]], mine[mine["runs_per_group"] <= 30]
        rows.append(
            {
                "workload": w,
                "pearson": pw.loc[(w, "joint (default)"), "pearson"],
                "spearman": pw.loc[(w, "joint (default)"), "spearman"],
                "joint (before)": pw.loc[(w, "joint (before)"), "pearson"],
                **(
                    {"joint (issue 26, first)": pw.loc[(w, "joint (issue 26, first)"), "pearson"]}
                    if (w, "joint (issue 26, first)") in pw.index
                    else {}
                ),
                **others,
                "much": pw.loc[(w, "much"), "pearson"],
                "copula": pw.loc[(w, "copula"), "pearson"],
                "coverage": sc["coverage"],
                "width_vs_naive": sc["width_vs_naive"],
                "naive_coverage": sc["naive_coverage"],
                "coverage discrete": default_scores(disc)["coverage"] if len(disc) else float("nan"),
                "coverage <=30 runs": default_scores(small)["coverage"] if len(small) else float("nan"),
                "width <=30 runs": default_scores(small)["width_vs_naive"] if len(small) else float("nan"),
                **{
                    f"coverage {e}": default_scores(sub)["coverage"] if len(sub) else float("nan")
                    for e in COUNT_EVENTS
                    for sub in [mine[(mine["event_a"] == e) | (mine["event_b"] == e)]]
                },
                "coverage (previous intervals)": before["coverage"],
                "width (previous intervals)": before["width_vs_naive"],
                **{
                    f"{k} (fourth pass intervals)": v
                    for k, v in bound_scores(mine, *widen_spread(mine, 0.8, "kurt", 0.25)).items()
                    if k in ("coverage", "width_vs_naive")
                },
            }
        )
    res = pd.DataFrame(rows).set_index("workload")
    print(f"\n## Held-out set, library defaults (intervals: se_factor {opts.se_factor}, kurtosis {opts.kurtosis})\n")
    print(markdown(res))
    print(
        f"\ngeometric mean Pearson {_geo(res['pearson']):.3f} (worst {res['pearson'].max():.3f}), "
        f"Spearman {_geo(res['spearman']):.3f}; coverage {res['coverage'].mean():.3f} "
        f"(worst {res['coverage'].min():.3f}), width/naive {res['width_vs_naive'].median():.2f}; "
        f"previous intervals (se_factor {PREVIOUS_SE_FACTOR}, no kurtosis term): coverage "
        f"{res['coverage (previous intervals)'].mean():.3f}, "
        f"width/naive {res['width (previous intervals)'].median():.2f}; fourth pass intervals (kurtosis 0.25, "
        f"se_factor 0.8): coverage {res['coverage (fourth pass intervals)'].mean():.3f}, "
        f"width/naive {res['width_vs_naive (fourth pass intervals)'].median():.2f}"
    )
    for col in res.columns:
        if col.startswith("joint"):
            print(f"{col}: geometric mean Pearson {_geo(res[col]):.3f} (worst {res[col].max():.3f})")


if __name__ == "__main__":
    main()
