"""Calibration of ``hemkit compare`` (issue 23): A/A false flags, injected shifts, a real program.

Data (all real readings):

- ``t2080``: the bundled NXP T2080 MUCH readings (24 groups x 1000 runs, 16 events; an event
  read in several groups pools them, as compare does);
- ``zen5``: the bundled Zen 5 truth ``br_64kb`` (800 runs x 8 events read together);
- ``gzip``: ``benchmarks/data/compare/gzip.db``, recorded here with software events
  (``hemkit plan task-clock page-faults minor-faults context-switches cpu-migrations --pmcs 2``,
  ``hemkit collect plan.toml --runs 40 -- sh -c 'gzip -c somefile > /dev/null'``, a 4 MB file);
- ``kernel``: ``benchmarks/data/compare/kernel/`` (``compare_record.py``): a C kernel touching
  N pages and looping L times, recorded interleaved as ``base1``, ``base2`` (the same program)
  and ``changed`` (1.05 N pages, 1.3 L loops): perf stat files, page-faults, minor-faults, task-clock.

Checks:

1. A/A: ``--splits`` random disjoint halves of each data set's runs (every group split in two);
   the share of splits flagging any event (FDR at 0.05) and the largest per-event flag rate, for
   the chosen test (Brunner-Munzel) and the alternative (the bootstrap test of the median ratio);
   and how often the 95 % ratio interval holds 1.
2. Injected shifts: on the same splits, side B's readings of one event multiplied by ``1 + k``
   (rounded where the counts are integers), k a multiple f of the detectable change
   ``CompareResult.power()`` reports for that split; the share flagged per f, and the coverage of
   the ratio interval of the true ratio (the all-runs median, as compare defines it, of the shifted
   readings over that of the readings).
3. The real program: base1 vs changed, base1 vs base2.
4. With ``--margins`` (``--margin`` for one): on ``--splits`` A/A halves, the share of splits with
   any event ``changed`` at each margin and the share of events (and of splits with every event)
   ``alike``; on ``--shift-splits`` halves, side B's readings of a picked event multiplied by a fixed
   ``1 + s`` (``--sizes``) and that event's verdict at each margin (``hemkit.compare.limits.verdicts``
   of the test and interval compare computes).  ``--skip calibration`` leaves out checks 1-3.

    python benchmarks/compare_calibration.py [--splits 1000] [--shift-splits 100] [--seed 0]
        [--margins 0 0.01 0.05] [--sizes 0.002 0.005 0.01 0.02 0.05 0.1] [--skip calibration real]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from hemkit import datasets
from hemkit.compare import compare
from hemkit.compare.limits import verdicts
from hemkit.core.errors import HemkitWarning
from hemkit.core.readings import Readings
from hemkit.core.stats import brunner_munzel, center, detectable_change, fdr_bh, median_ratio
from hemkit.io import read_readings

DATA = Path(__file__).parent / "data" / "compare"
LEVEL = 0.95
FACTORS = (0.5, 0.8, 1.0, 1.25, 1.5, 2.0)


def load() -> dict[str, Readings]:
    zen = datasets.zen5_br_64kb()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        kernel = [read_readings(DATA / "kernel" / s) for s in ("base1", "base2")]
    pooled = {
        gid: (np.arange(len(g.runs) * 2), g.events, np.vstack([g.values, kernel[1].arrays[gid].values]))
        for gid, g in kernel[0].arrays.items()
    }
    return {
        "t2080": datasets.t2080_much(),
        "zen5": Readings({1: zen}, source="zen5 br_64kb"),
        "gzip": read_readings(DATA / "gzip.db"),
        "kernel": Readings.from_arrays(pooled, source="kernel base1+base2"),
    }


def halves(r: Readings, rng: np.random.Generator) -> tuple[Readings, Readings]:
    """Each group's runs split at random into two disjoint halves."""
    a, b = {}, {}
    for gid, g in r.arrays.items():
        perm = rng.permutation(len(g.runs))
        h = len(perm) // 2
        a[gid] = (g.runs[perm[:h]], g.events, g.values[perm[:h]])
        b[gid] = (g.runs[perm[h:]], g.events, g.values[perm[h:]])
    return Readings.from_arrays(a, min_runs=1), Readings.from_arrays(b, min_runs=1)


def test_options(m: int, seed: int) -> dict:
    """Brunner-Munzel as compare runs it: permutation p-values for few runs or tied counts."""
    return {"method": "auto", "resolution": (1 - LEVEL) / m, "seed": seed}


def binom_ci(k: float, n: int) -> str:
    """Wilson 95 % interval of a share k / n, as text."""
    z = 1.959964
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"[{mid - half:.3f}, {mid + half:.3f}]"


def samples(r: Readings, events: list[str]) -> list[np.ndarray]:
    return [np.sort(r.pooled(e, dtype=np.float64)) for e in events]


def shifted(x: np.ndarray, k: float) -> np.ndarray:
    y = x * (1 + k)
    return np.sort(np.round(y)) if np.all(x == np.round(x)) else y


def aa(name: str, r: Readings, splits: int, rng: np.random.Generator) -> dict:
    events = r.events
    any_bm = any_boot = 0
    per_bm = np.zeros(len(events))
    per_boot = np.zeros(len(events))
    holds_one = np.zeros(len(events))
    for s in range(splits):
        a, b = halves(r, rng)
        sa, sb = samples(a, events), samples(b, events)
        p, _ = brunner_munzel(sa, sb, **test_options(len(events), s))
        rat = median_ratio(sa, sb, level=LEVEL, seed=s)
        f_bm = fdr_bh(p) <= 1 - LEVEL
        f_boot = fdr_bh(rat.boot_p) <= 1 - LEVEL
        any_bm += f_bm.any()
        any_boot += f_boot.any()
        per_bm += f_bm
        per_boot += f_boot
        holds_one += (rat.lower <= 1) & (1 <= rat.upper)
    return {
        "data": name,
        "events": len(events),
        "splits": splits,
        "any_bm": any_bm / splits,
        "any_bm_ci": binom_ci(any_bm, splits),
        "max_event_bm": per_bm.max() / splits,
        "any_boot": any_boot / splits,
        "max_event_boot": per_boot.max() / splits,
        "holds_one": holds_one.mean() / splits,
        "holds_one_min": holds_one.min() / splits,
    }


def _picked(r: Readings, n_events: int) -> list[int]:
    """Indices of ``n_events`` events chosen to span the noise: varying ones, spread over their coefficient of
    variation."""
    cv = []
    for e in r.events:
        x = r.pooled(e, dtype=np.float64)
        cv.append(np.std(x) / np.mean(x) if np.mean(x) > 0 and np.ptp(x) > 0 else np.nan)
    ok = [i for i in np.argsort(cv) if np.isfinite(cv[i])]
    return [ok[int(j)] for j in np.linspace(0, len(ok) - 1, min(n_events, len(ok)))]


def shifts(name: str, r: Readings, splits: int, rng: np.random.Generator, n_events: int = 4) -> list[dict]:
    """Shift one event at a time by f x its detectable change; flagged share and coverage per f."""
    events = r.events
    picks = _picked(r, n_events)
    rows = {f: {"flag_bm": 0, "flag_boot": 0, "cover": 0, "n": 0, "k": []} for f in FACTORS}
    for s in range(splits):
        a, b = halves(r, rng)
        sa, sb = samples(a, events), samples(b, events)
        p0, pl = brunner_munzel(sa, sb, **test_options(len(events), s))
        rat0 = median_ratio(sa, sb, level=LEVEL, seed=s)
        alpha = (1 - LEVEL) / len(events)
        refs = [x if len(x) <= 2000 else np.sort(rng.choice(x, 2000, replace=False)) for x in sa]
        det = detectable_change(refs, pl, alpha=alpha, power=0.9, seed=s).detectable
        for i in picks:
            if not np.isfinite(det[i]):
                continue
            whole = np.sort(r.pooled(events[i], dtype=np.float64))
            for f in FACTORS:
                k = f * det[i]
                bi = shifted(sb[i], k)
                p1, _ = brunner_munzel([sa[i]], [bi], **test_options(len(events), s))
                rat = median_ratio([sa[i]], [bi], level=LEVEL, seed=s)
                p, pb = p0.copy(), rat0.boot_p.copy()
                p[i], pb[i] = p1[0], rat.boot_p[0]
                truth = center(shifted(whole, k)) / center(whole)  # the median compare reports, of all runs
                row = rows[f]
                row["flag_bm"] += (fdr_bh(p) <= 1 - LEVEL)[i]
                row["flag_boot"] += (fdr_bh(pb) <= 1 - LEVEL)[i]
                row["cover"] += rat.lower[0] <= truth <= rat.upper[0]
                row["n"] += 1
                row["k"].append(k)
    out = []
    for f, row in rows.items():
        n = max(row["n"], 1)
        out.append(
            {
                "data": name,
                "f": f,
                "cases": row["n"],
                "median_k_pct": 100 * float(np.median(row["k"])) if row["k"] else np.nan,
                "flag_bm": row["flag_bm"] / n,
                "flag_boot": row["flag_boot"] / n,
                "coverage": row["cover"] / n,
            }
        )
    return out


#: fixed relative shifts of the margin part
SIZES = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1)


def _judged(sa: list, sb: list, m: int, seed: int, margins: tuple) -> dict[float, tuple[np.ndarray, np.ndarray]]:
    """Per margin, (changed, verdict) of every event of sa against sb, as compare judges them."""
    p, _ = brunner_munzel(sa, sb, **test_options(m, seed))
    rat = median_ratio(sa, sb, level=LEVEL, seed=seed)
    constant = rat.basis == "constant"
    flagged = (fdr_bh(p) <= 1 - LEVEL) | (constant & (rat.median_a != rat.median_b))
    same = constant & (rat.median_a == rat.median_b)
    return {g: verdicts(flagged, rat.lower, rat.upper, g, same) for g in margins}


def margin_aa(name: str, r: Readings, splits: int, rng: np.random.Generator, margins: tuple) -> list[dict]:
    """A/A halves: any event changed, events alike, splits with every event alike, per margin."""
    events = r.events
    count = {g: [0, 0, 0, np.zeros(len(events))] for g in margins}  # any changed, events alike, all alike, per event
    for s in range(splits):
        a, b = halves(r, rng)
        for g, (changed, verdict) in _judged(samples(a, events), samples(b, events), len(events), s, margins).items():
            alike = verdict == "alike"
            c = count[g]
            c[0] += bool(changed.any())
            c[1] += int(alike.sum())
            c[2] += bool(alike.all())
            c[3] += changed
    return [
        {
            "data": name,
            "margin": g,
            "events": len(events),
            "splits": splits,
            "any_changed": c[0] / splits,
            "any_ci": binom_ci(c[0], splits),
            "max_event": c[3].max() / splits,
            "alike": c[1] / (splits * len(events)),
            "all_alike": c[2] / splits,
        }
        for g, c in count.items()
    ]


def margin_shifts(
    name: str, r: Readings, splits: int, rng: np.random.Generator, margins: tuple, sizes: tuple, n_events: int = 4
) -> list[dict]:
    """B's readings of one picked event times 1 + s: that event's verdict per margin (shares of the cases)."""
    events = r.events
    picks = _picked(r, n_events)
    count = {(k, g): {"changed": 0, "alike": 0, "unclear": 0} for k in sizes for g in margins}
    for s in range(splits):
        a, b = halves(r, rng)
        sa, sb = samples(a, events), samples(b, events)
        for i in picks:
            for k in sizes:
                sbk = list(sb)
                sbk[i] = shifted(sb[i], k)
                for g, (_, verdict) in _judged(sa, sbk, len(events), s, margins).items():
                    count[(k, g)][verdict[i]] += 1
    out = []
    for (k, g), c in count.items():
        n = max(sum(c.values()), 1)
        out.append({"data": name, "size": k, "margin": g, "cases": n, **{v: c[v] / n for v in c}})
    return out


def real_program(seed: int, margins: tuple = (0.0,)) -> list[str]:
    lines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        side = {s: read_readings(DATA / "kernel" / s) for s in ("base1", "base2", "changed")}
    for a, b in (("base1", "changed"), ("base2", "changed"), ("base1", "base2")):
        for g in margins:
            t = compare(side[a], side[b], seed=seed, margin=g).to_frame()
            cells = ", ".join(
                f"{e} x{r:.4f} [{lo:.4f}, {hi:.4f}] p={p:.2g} " + (("CHANGED" if c else "unchanged") if not g else v)
                for e, r, lo, hi, p, c, v in t[
                    ["event", "ratio", "lower", "upper", "p_value", "changed", "verdict"]
                ].itertuples(index=False)
            )
            lines.append(f"{a} vs {b}{f' (margin {g:g})' if g else ''}: {cells}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=1000)
    ap.add_argument("--shift-splits", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="Only these data sets (t2080 zen5 gzip kernel).")
    ap.add_argument("--margins", "--margin", nargs="*", type=float, default=[], help="Margins of the margin part.")
    ap.add_argument("--sizes", nargs="*", type=float, default=list(SIZES), help="Shifts of the margin part.")
    ap.add_argument("--skip", nargs="*", default=[], help="Parts to skip (calibration real).")
    args = ap.parse_args()
    t0 = time.perf_counter()
    data = load()
    if args.only:
        data = {k: v for k, v in data.items() if k in args.only}
    rng = np.random.default_rng(args.seed)
    if args.margins:
        margins = tuple(args.margins)
        print("## Margins, A/A halves: any event changed; events alike; splits with every event alike")
        print("| data | margin | events | splits | any changed (95 % interval) | max per event | alike | all alike |")
        print("|---|---|---|---|---|---|---|---|")
        for name, r in data.items():
            for x in margin_aa(name, r, args.splits, rng, margins):
                print(
                    f"| {name} | {x['margin']:g} | {x['events']} | {x['splits']} | {x['any_changed']:.3f} "
                    f"{x['any_ci']} | {x['max_event']:.3f} | {x['alike']:.3f} | {x['all_alike']:.3f} |",
                    flush=True,
                )
        print(f"\n({time.perf_counter() - t0:.0f} s)\n")
        print("## Margins, one event of B times 1 + s: its verdict")
        print("| data | s | margin | cases | changed | alike | unclear |")
        print("|---|---|---|---|---|---|---|")
        for name, r in data.items():
            sizes = tuple(args.sizes)
            for x in margin_shifts(name, r, args.shift_splits, rng, margins, sizes, 3 if name == "kernel" else 4):
                print(
                    f"| {name} | {x['size']:g} | {x['margin']:g} | {x['cases']} | {x['changed']:.3f} | "
                    f"{x['alike']:.3f} | {x['unclear']:.3f} |",
                    flush=True,
                )
        print(f"\n({time.perf_counter() - t0:.0f} s)\n")
    if "calibration" not in args.skip:
        calibration(data, args, rng)
    if "real" not in args.skip:
        print("## The real program (interleaved runs)")
        for line in real_program(args.seed, tuple(args.margins) or (0.0,)):
            print(f"- {line}")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


def calibration(data: dict[str, Readings], args: argparse.Namespace, rng: np.random.Generator) -> None:
    """Checks 1 and 2: A/A halves (both tests) and shifts by f x the detectable change."""
    print("## A/A: disjoint random halves, FDR 0.05")
    print(
        "| data | events | splits | any flagged: BM (95 % interval) | max per event: BM | any: bootstrap "
        "| max per event: bootstrap | ratio interval holds 1 (mean, worst event) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, r in data.items():
        x = aa(name, r, args.splits, rng)
        print(
            f"| {name} | {x['events']} | {x['splits']} | {x['any_bm']:.3f} {x['any_bm_ci']} | "
            f"{x['max_event_bm']:.3f} | "
            f"{x['any_boot']:.3f} | {x['max_event_boot']:.3f} | {x['holds_one']:.3f}, {x['holds_one_min']:.3f} |"
        )
    print()
    print("## Injected shifts of one event by f x the detectable change power() reports")
    print("| data | f | cases | median k (%) | flagged: BM | flagged: bootstrap | ratio interval coverage |")
    print("|---|---|---|---|---|---|---|")
    for name, r in data.items():
        for x in shifts(name, r, args.shift_splits, rng):
            print(
                f"| {name} | {x['f']} | {x['cases']} | {x['median_k_pct']:.3g} | {x['flag_bm']:.3f} | "
                f"{x['flag_boot']:.3f} | {x['coverage']:.3f} |"
            )
    print()


if __name__ == "__main__":
    main()
