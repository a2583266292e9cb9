"""Calibration of the machines check (issue 25, item 3): A/A fake hosts, injected shifts, a real program.

Data, all real readings, loaded as ``benchmarks/compare_calibration.py`` loads them: ``t2080``
(bundled T2080 MUCH readings, 24 groups x 1000 runs, 16 events), ``zen5`` (bundled Zen 5 truth
``br_64kb``, 800 runs x 8 events), ``gzip`` (software events recorded here, 10 groups x 40 runs),
``kernel`` (the compare calibration's C kernel, base1 + base2: 100 runs of 3 software events).

Checks (``hemkit.compare.machines_check`` exactly as the library runs it):

1. A/A: each data set's runs dealt at random to k fake hosts (every group's runs permuted and
   dealt in turn, as a cluster's round-robin deals them; also 80/20 between two hosts), ``--splits``
   times per k: the share of splits flagging any (event, host), with its Wilson 95 % interval, and
   the largest share of splits flagging one (event, host).
2. Injected shifts: on ``--shift-splits`` such splits, the last host's readings of one event (4
   events per data set spread over their noise, 3 for ``kernel``) multiplied by ``1 + s``
   (rounded where the counts are integers), s = f x the change the test detects with power 0.9
   for that host against the others at the Benjamini-Hochberg threshold of one change among the
   tests (``hemkit.core.stats.detectable_change``).  Per f: the share of cases where the shifted
   (event, host) is flagged, where that host is *named* (flagged, and the largest difference on
   that event), where another host is flagged on that event too (and where such a host is not
   marked ``moved_by`` the shifted one), where another event is flagged, the false discovery
   proportion (flags on other events over all flags, averaged), and the coverage of the ratio
   interval of the true ratio.
3. A real program given another input on one "host" (``benchmarks/machines_record.py``: five
   emulated hosts, interleaved; d with 1 % more pages, e with 10 % more loops), and the compare
   calibration's kernel (base1, base2 and changed as three hosts).
4. With ``--margins``: checks 1 and 3 at each margin (a host differs where flagged and its interval
   lies wholly outside ``[1 / (1 + m), 1 + m]``: :func:`hemkit.compare.limits.verdicts` of the
   margin-0 table, which is what ``machines_check(..., margin=m)`` computes), and ``sizes``: on
   ``--shift-splits`` 2-host splits, the last host's readings of each picked event multiplied by a
   fixed ``1 + s`` (``--sizes``, 0.2 % to 5 %): the share flagged at each margin, and the share of
   cases with another event flagged.

    python benchmarks/machines_check.py [--splits 100] [--shift-splits 50] [--seed 0] [--only t2080 ...]
        [--setups "2 hosts" "3 hosts" "2 hosts 80/20"] [--skip aa shifts real sizes] [--margins 0 0.005 0.01]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from compare_calibration import binom_ci, load, shifted
from hemkit.compare import machines_check
from hemkit.compare.limits import verdicts
from hemkit.core.errors import HemkitWarning
from hemkit.core.readings import Readings
from hemkit.core.stats import brunner_munzel, center, detectable_change, sort_samples
from hemkit.io import read_readings

LEVEL = 0.95
FACTORS = (0.5, 1.0, 2.0)
#: what the shift table counts per case (shares of the cases)
SHARES = ("flag", "named", "collateral", "unexplained", "other_event", "fdp", "cover")
HERE = Path(__file__).parent / "data"
#: the A/A set-ups: name -> shares of the runs per fake host
SETUPS = {"2 hosts": (0.5, 0.5), "3 hosts": (1 / 3, 1 / 3, 1 / 3), "2 hosts 80/20": (0.8, 0.2)}


def fake_hosts(r: Readings, shares: tuple[float, ...], rng: np.random.Generator) -> pd.DataFrame:
    """Every group's runs dealt at random to hosts h0, h1 ... in the given shares."""
    parts = []
    for gid, g in r.arrays.items():
        n = len(g.runs)
        counts = np.floor(np.array(shares) * n).astype(int)
        counts[: n - counts.sum()] += 1
        labels = np.repeat([f"h{i}" for i in range(len(shares))], counts)
        parts.append(pd.DataFrame({"group": gid, "run": g.runs, "host": rng.permutation(labels)}))
    return pd.concat(parts, ignore_index=True)


def differs_at(t: pd.DataFrame, margin: float) -> np.ndarray:
    """``differs`` of a margin-0 machines-check table at ``margin`` (what ``machines_check(margin=...)`` gives)."""
    flagged = t["differs"].to_numpy(dtype=bool)
    return verdicts(flagged, t["lower"].to_numpy(dtype=float), t["upper"].to_numpy(dtype=float), margin)[0]


def aa(
    name: str, r: Readings, setup: str, splits: int, rng: np.random.Generator, margins: tuple = (0.0,)
) -> list[dict]:
    shares = SETUPS[setup]
    flagged = dict.fromkeys(margins, 0)
    per: dict[float, dict[tuple[str, str], int]] = {m: {} for m in margins}
    tests = 0
    for s in range(splits):
        res = machines_check(r, fake_hosts(r, shares, rng), level=LEVEL, seed=s, margin=0.0)
        tests = res.tests
        t = res.to_frame()
        for m in margins:
            on = differs_at(t, m)
            flagged[m] += bool(on.any())
            for e, h in zip(t["event"][on], t["host"][on]):
                per[m][(e, h)] = per[m].get((e, h), 0) + 1
    return [
        {
            "data": name,
            "setup": setup,
            "margin": m,
            "tests": tests,
            "splits": splits,
            "any": flagged[m] / splits,
            "any_ci": binom_ci(flagged[m], splits),
            "max_test": max(per[m].values(), default=0) / splits,
        }
        for m in margins
    ]


#: fixed relative shifts of one host (the sizes part)
SIZES = (0.002, 0.005, 0.01, 0.02, 0.05)


def sizes(
    name: str, r: Readings, splits: int, rng: np.random.Generator, margins: tuple, sizes: tuple, n_events: int = 4
) -> list[dict]:
    """One of two fake hosts reads a picked event ``1 + s`` times: the share flagged at each margin."""
    picks = _picks(r, n_events)
    count = {(s, m): [0, 0, 0] for s in sizes for m in margins}  # cases, flagged, another event flagged
    for split in range(splits):
        hosts = fake_hosts(r, SETUPS["2 hosts"], rng)
        for event in picks:
            for s in sizes:
                res = machines_check(with_shift(r, hosts, "h1", event, s), hosts, level=LEVEL, seed=split, margin=0.0)
                t = res.to_frame()
                for m in margins:
                    on = differs_at(t, m)
                    hit = (t["event"] == event).to_numpy() & (t["host"] == "h1").to_numpy()
                    c = count[(s, m)]
                    c[0] += 1
                    c[1] += bool((on & hit).any())
                    c[2] += bool((on & (t["event"] != event).to_numpy()).any())
    return [
        {
            "data": name,
            "size": s,
            "margin": m,
            "cases": c[0],
            "flagged": c[1] / max(c[0], 1),
            "other": c[2] / max(c[0], 1),
        }
        for (s, m), c in count.items()
    ]


def _picks(r: Readings, n_events: int) -> list[str]:
    """Varying events spread over their coefficient of variation (as the compare calibration picks them)."""
    cv = []
    for e in r.events:
        x = r.pooled(e, dtype=np.float64)
        cv.append(np.std(x) / np.mean(x) if np.mean(x) > 0 and np.ptp(x) > 0 else np.nan)
    ok = [i for i in np.argsort(cv) if np.isfinite(cv[i])]
    return [r.events[ok[int(j)]] for j in np.linspace(0, len(ok) - 1, min(n_events, len(ok)))]


def with_shift(r: Readings, hosts: pd.DataFrame, host: str, event: str, s: float) -> Readings:
    """The readings with ``host``'s readings of ``event`` multiplied by ``1 + s`` (rounded for integer counts)."""
    on = {(g, run) for g, run, h in hosts[["group", "run", "host"]].itertuples(index=False) if h == host}
    groups = {}
    for gid, g in r.arrays.items():
        values = g.values.astype(np.float64, copy=True)
        if event in g.events:
            j = g.events.index(event)
            rows = np.array([(gid, run) in on for run in g.runs.tolist()])
            x = values[rows, j] * (1 + s)
            integer = np.all(values[:, j] == np.round(values[:, j]))
            values[rows, j] = np.round(x) if integer else x
        groups[gid] = (g.runs, g.events, values)
    return Readings.from_arrays(groups, min_runs=1)


def _host_samples(r: Readings, hosts: pd.DataFrame, host: str, event: str) -> tuple[np.ndarray, np.ndarray]:
    """(the host's, the others') readings of ``event``, sorted."""
    on = {(g, run) for g, run, h in hosts[["group", "run", "host"]].itertuples(index=False) if h == host}
    mine, rest = [], []
    for gid, g in r.arrays.items():
        if event in g.events:
            col = g.values[:, g.events.index(event)]
            rows = np.array([(gid, run) in on for run in g.runs.tolist()])
            mine.append(col[rows])
            rest.append(col[~rows])
    a, b = sort_samples([np.concatenate(rest), np.concatenate(mine)])
    return b, a


def shifts(name: str, r: Readings, setup: str, splits: int, rng: np.random.Generator, n_events: int = 4) -> list[dict]:
    shares = SETUPS[setup]
    target = f"h{len(shares) - 1}"
    picks = _picks(r, n_events)
    m = len(r.events) * (1 if len(shares) == 2 else len(shares))
    rows = {
        f: {
            "n": 0,
            "flag": 0,
            "named": 0,
            "collateral": 0,
            "unexplained": 0,
            "other_event": 0,
            "fdp": 0,
            "cover": 0,
            "s": [],
        }
        for f in FACTORS
    }
    for split in range(splits):
        hosts = fake_hosts(r, shares, rng)
        for event in picks:
            mine, rest = _host_samples(r, hosts, target, event)
            _, pl = brunner_munzel([rest], [mine], method="asymptotic")
            ref = rest if len(rest) <= 2000 else np.sort(rng.choice(rest, 2000, replace=False))
            det = detectable_change([ref], pl, alpha=(1 - LEVEL) / m, power=0.9, seed=split).detectable[0]
            if not np.isfinite(det):
                continue
            whole = np.sort(r.pooled(event, dtype=np.float64))
            for f in FACTORS:
                s = f * det
                res = machines_check(with_shift(r, hosts, target, event, s), hosts, level=LEVEL, seed=split, margin=0.0)
                t = res.to_frame()
                on_event = t[(t["event"] == event) & t["differs"]]
                row = rows[f]
                row["n"] += 1
                row["s"].append(s)
                hit = t[(t["event"] == event) & (t["host"] == target)].iloc[0]
                row["flag"] += bool(hit["differs"])
                if len(on_event):
                    size = np.abs(np.log(on_event["ratio"].to_numpy(dtype=float)))
                    row["named"] += bool(hit["differs"]) and on_event["host"].iloc[int(np.argmax(size))] == target
                    row["collateral"] += bool((on_event["host"] != target).any())
                    row["unexplained"] += bool(((on_event["host"] != target) & (on_event["moved_by"] != target)).any())
                false = int((t["differs"] & (t["event"] != event)).sum())
                row["other_event"] += bool(false)
                row["fdp"] += false / max(int(t["differs"].sum()), 1)
                truth = center(shifted(whole, s)) / center(whole)
                row["cover"] += bool(hit["lower"] <= truth <= hit["upper"])
    out = []
    for f, row in rows.items():
        n = max(row["n"], 1)
        out.append(
            {
                "data": name,
                "setup": setup,
                "f": f,
                "cases": row["n"],
                "median_s_pct": 100 * float(np.median(row["s"])) if row["s"] else np.nan,
                **{
                    k: row[k] / n for k in ("flag", "named", "collateral", "unexplained", "other_event", "fdp", "cover")
                },
            }
        )
    return out


def _hosts_of_folders(folders: dict[str, Path]) -> tuple[Readings, pd.DataFrame]:
    """Several folders of perf stat files (one per emulated host) as one set of readings and its hosts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        parts = {h: read_readings(p) for h, p in folders.items()}
    groups: dict = {}
    hosts = []
    offset = 0
    for h, r in parts.items():
        for gid, g in r.arrays.items():
            runs = np.arange(offset, offset + len(g.runs))
            offset += len(g.runs)
            old = groups.get(gid)
            if old is not None:
                runs_, events, values = old
                groups[gid] = (np.r_[runs_, runs], events, np.vstack([values, g.values]))
            else:
                groups[gid] = (runs, g.events, g.values)
            hosts.append(pd.DataFrame({"group": gid, "run": runs, "host": h}))
    return Readings.from_arrays(groups), pd.concat(hosts, ignore_index=True)


def _said(res: object) -> str:
    """The (event, host) pairs that differ, with ratio, interval and q; how many more are moved by them."""
    t = res.to_frame()  # type: ignore[attr-defined]
    own = t[t["differs"] & (t["moved_by"] == "")]
    said = ", ".join(
        f"{e} on {h} x{x:.4f} [{lo:.4f}, {hi:.4f}] q={q:.2g}"
        for e, h, x, lo, hi, q in own[["event", "host", "ratio", "lower", "upper", "q_value"]].itertuples(index=False)
    )
    moved = int((t["differs"] & (t["moved_by"] != "")).sum())
    return f"{res.tests} tests: {said or 'nothing differs'}" + (  # type: ignore[attr-defined]
        f" (and {moved} (event, host) pairs marked moved_by)" if moved else ""
    )


def real_program(seed: int, margins: tuple = (0.0,)) -> list[str]:
    lines = []
    kernel = HERE / "machines" / "kernel"
    cases = [("a", "b", "c"), ("a", "d"), ("a", "b", "d"), ("a", "b", "c", "d"), ("a", "e"), ("a", "b", "e")]
    for hosts in cases:
        if not all((kernel / h).is_dir() for h in hosts):
            lines.append(f"{'+'.join(hosts)}: not recorded (python benchmarks/machines_record.py)")
            continue
        r, frame = _hosts_of_folders({h: kernel / h for h in hosts})
        for m in margins:
            res = machines_check(r, frame, level=LEVEL, seed=seed, margin=m)
            lines.append(f"hosts {'+'.join(hosts)}{_at(m, margins)}: {_said(res)}")
    compare_kernel = HERE / "compare" / "kernel"
    r, frame = _hosts_of_folders({s: compare_kernel / s for s in ("base1", "base2", "changed")})
    for m in margins:
        res = machines_check(r, frame, level=LEVEL, seed=seed, margin=m)
        lines.append(f"compare's kernel, base1+base2+changed as 3 hosts{_at(m, margins)}: {_said(res)}")
    return lines


def _at(margin: float, margins: tuple) -> str:
    return "" if margins == (0.0,) else f" (margin {margin:g})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=100)
    ap.add_argument("--shift-splits", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="Only these data sets (t2080 zen5 gzip kernel).")
    ap.add_argument("--skip", nargs="*", default=[], help="Parts to skip (aa shifts real).")
    ap.add_argument("--setups", nargs="*", default=list(SETUPS), help=f"A/A set-ups ({', '.join(SETUPS)}).")
    ap.add_argument("--margins", nargs="*", type=float, default=[0.0], help="Margins of the A/A, sizes and real parts.")
    ap.add_argument("--sizes", nargs="*", type=float, default=list(SIZES), help="Shifts of the sizes part.")
    args = ap.parse_args()
    margins = tuple(args.margins)
    t0 = time.perf_counter()
    data = load()
    if args.only:
        data = {k: v for k, v in data.items() if k in args.only}
    rng = np.random.default_rng(args.seed)
    if "aa" not in args.skip:
        print("## A/A: runs dealt at random to fake hosts, FDR 0.05 across all (event, host) tests")
        print("| data | hosts | margin | tests | splits | any flagged (95 % interval) | max per (event, host) |")
        print("|---|---|---|---|---|---|---|")
        for name, r in data.items():
            for setup in args.setups:
                for x in aa(name, r, setup, args.splits, rng, margins):
                    print(
                        f"| {name} | {setup} | {x['margin']:g} | {x['tests']} | {x['splits']} | {x['any']:.3f} "
                        f"{x['any_ci']} | {x['max_test']:.3f} |",
                        flush=True,
                    )
        print(f"\n({time.perf_counter() - t0:.0f} s)\n")
    if "shifts" not in args.skip:
        print("## One host's readings of one event shifted by f x the detectable change")
        print(
            "| data | hosts | f | cases | median shift (%) | flagged | named | another host flagged on it "
            "| ... not marked moved by it | another event flagged | false discovery proportion "
            "| ratio interval coverage |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, r in data.items():
            for setup in ("2 hosts", "3 hosts"):
                for x in shifts(name, r, setup, args.shift_splits, rng, 3 if name == "kernel" else 4):
                    print(
                        f"| {name} | {setup} | {x['f']} | {x['cases']} | {x['median_s_pct']:.3g} | {x['flag']:.3f} | "
                        f"{x['named']:.3f} | {x['collateral']:.3f} | {x['unexplained']:.3f} | {x['other_event']:.3f} | "
                        f"{x['fdp']:.3f} | {x['cover']:.3f} |",
                        flush=True,
                    )
        print(f"\n({time.perf_counter() - t0:.0f} s)\n")
    if "sizes" not in args.skip and margins != (0.0,):
        print("## One of two hosts reads one event 1 + s times: flagged at each margin")
        print("| data | s | margin | cases | shifted host flagged | another event flagged |")
        print("|---|---|---|---|---|---|")
        for name, r in data.items():
            for x in sizes(name, r, args.shift_splits, rng, margins, tuple(args.sizes), 3 if name == "kernel" else 4):
                print(
                    f"| {name} | {x['size']:g} | {x['margin']:g} | {x['cases']} | {x['flagged']:.3f} | "
                    f"{x['other']:.3f} |",
                    flush=True,
                )
        print(f"\n({time.perf_counter() - t0:.0f} s)\n")
    if "real" not in args.skip:
        print("## A real program given another input on one host (interleaved runs)")
        for line in real_program(args.seed, margins):
            print(f"- {line}")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
