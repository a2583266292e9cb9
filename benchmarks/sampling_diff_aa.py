"""A/A of ``hemkit sampling diff`` on ordinary programs: two executions of one program, nothing changed.

The known-share workload of ``sampling_diff_calibration.py`` does the same thing in every
execution, so only the sampling grid differs between two of its profiles.  Ordinary programs
do not: whether an interrupt, a page-fault path or a kernel function is hit at all differs
from one execution to the next.  Here each program is recorded ``--runs`` times with
``perf record -e cpu-clock -F 999`` (500-2 600 samples a run), and every pair of its
recordings is compared with ``profile_diff`` ``--by sym`` and ``--by dso`` at level 0.95:
any key flagged is a false discovery.

    # 1. record (resumable: recordings already in the folder are kept; rounds go over every program)
    python benchmarks/sampling_diff_aa.py record --dir /tmp/hemkit-aa --runs 6
    # 2. keys flagged and pairs flagging anything, per program, with the library as it is
    python benchmarks/sampling_diff_aa.py score --dir /tmp/hemkit-aa [--set choice|check|fresh|fresh2|all] [--show]
    # 3. several recordings a side: every split of a program's 6 recordings into 3 against 3 (10 splits)
    python benchmarks/sampling_diff_aa.py splits --dir /tmp/hemkit-aa [--set ...] [--per-side 3] [--prior-df 4]

Programs come in four sets: ``choice`` (looked at while choosing
:func:`hemkit.sampling.profile.execution_variance`: its burst floor and scale), ``check``
(scored once, with the choice frozen), ``fresh`` (recorded after that, scored once; what still
flagged there led to :func:`hemkit.sampling.profile.execution_terms`) and ``fresh2`` (recorded
after that, scored once).  With several recordings a side (``splits``: ``diff_recordings``, the
moderated t) the prior weight :data:`hemkit.sampling.diff.PRIOR_DF` was chosen on ``choice``
and the result checked on ``check``, ``fresh`` and ``fresh2``; ``fresh3`` (recorded for it) was
scored once.
Results: BENCHMARKS.md, "Two profiles compared" and "Several recordings a side".
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd

from hemkit.core.errors import HemkitWarning
from hemkit.sampling.diff import DiffOptions, diff_recordings, profile_diff
from hemkit.sampling.profile import profile_shares, read_samples

FREQ = 999
PYTHON_LOOP = "d = {}\nfor i in range(2_500_000):\n    k = str(i % 50_000)\n    d[k] = d.get(k, 0) + i * i\n"
PERL_LOOP = "my %h; for my $i (1..12000000) { $h{$i % 50000} += $i * $i } print scalar(keys %h), qq(\\n)"
SQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000000) SELECT sum(x * x % 7) FROM c;"
NODE_LOOP = (
    "const m = new Map(); for (let i = 0; i < 1e7; i++) { const k = 'k' + (i % 50000); m.set(k, (m.get(k) || 0) + i) }"
)
SQL_SORT = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) "
    "SELECT count(*) FROM (SELECT (x * 7919) % 100003 AS y FROM c ORDER BY y);"
)
PERL_STRINGS = (
    'my %h; for my $i (1..6000000) { my $k = "w" . ($i % 70000); $h{$k} .= "x" if length($h{$k} // "") < 20 }'
)
PYTHON_SORT = "import random\nr = random.Random(1)\na = [r.random() for _ in range(3_000_000)]\na.sort()\n"
JSON_ROWS = "[{'a%d' % i: [i, str(i), i * 0.5]} for i in range(150000)]"
PYTHON_JSON = "import json\nfor _ in range(2):\n    json.loads(json.dumps(" + JSON_ROWS + "))\n"
#: name -> (set, argv); INPUT is replaced by the generated text file
PROGRAMS = {
    "sort": ("choice", ["sort", "-f", "-k2,2", "-k7n", "INPUT"]),
    # the same loop with string hashing fixed: Python's hash randomization makes every execution
    # of the loop above a different program (the share of unicodekeys_lookup_unicode moves by 10 points)
    "python-hs0": ("choice", ["env", "PYTHONHASHSEED=0", sys.executable, "-c", PYTHON_LOOP]),
    "gzip": ("choice", ["gzip", "-9", "-c", "INPUT", "INPUT"]),
    "find": ("choice", ["find", "/usr", "/usr", "-printf", "%s %m %p\n"]),
    "python": ("choice", [sys.executable, "-c", PYTHON_LOOP]),
    "xz": ("check", ["xz", "-1", "-c", "INPUT"]),
    "bzip2": ("check", ["bzip2", "-9", "-c", "INPUT"]),
    "grep": (
        "check",
        ["grep", "-r", "-i", "-c", "zz[aq]", "/usr/lib/python3", "/usr/include", "/usr/lib/python3", "/usr/include"],
    ),
    "awk": ("check", ["awk", "{for(i=1;i<=NF;i++)c[$i]++}END{print(length(c))}", "INPUT"]),
    # recorded after the choice was frozen and the check set scored: scored once
    "zstd": ("fresh", ["zstd", "-12", "-c", "INPUT"]),
    "perl": ("fresh", ["perl", "-e", PERL_LOOP]),
    "ls": ("fresh", ["ls", "-lR", "/usr/lib", "/usr/share"]),
    "sqlite3": ("fresh", ["sqlite3", ":memory:", SQL]),
    "node": ("fresh", ["node", "-e", NODE_LOOP]),
    "sha256sum": ("fresh", ["sha256sum"] + ["INPUT"] * 16),
    # recorded after the thread and kernel terms were added for what flagged on the fresh set: scored once
    "xz-T2": ("fresh2", ["xz", "-T2", "-1", "-c", "INPUT"]),
    "du": ("fresh2", ["du", "-a", "/usr"]),
    "md5sum": ("fresh2", ["md5sum"] + ["INPUT"] * 24),
    "sqlite3-sort": ("fresh2", ["sqlite3", ":memory:", SQL_SORT]),
    "perl-hs0": ("fresh2", ["env", "PERL_HASH_SEED=0", "perl", "-e", PERL_STRINGS]),
    "python-sort": ("fresh2", ["env", "PYTHONHASHSEED=0", sys.executable, "-c", PYTHON_SORT]),
    # recorded for several recordings a side (split 3 vs 3) before that diff was scored anywhere but on
    # the choice set: scored once
    "lz4": ("fresh3", ["lz4", "-12", "-c", "INPUT"]),
    "b2sum": ("fresh3", ["b2sum"] + ["INPUT"] * 48),
    "sed": ("fresh3", ["sed", "-E", "s/([a-z]+) ([0-9]+)/\\2 \\1/g", "INPUT"]),
    "bc": ("fresh3", ["sh", "-c", "echo 'scale=2000; 4*a(1)' | bc -l"]),
    "jq": ("fresh3", ["jq", "-R", "-n", '[inputs | split(" ") | length] | add', "INPUT"]),
    "python-json": ("fresh3", ["env", "PYTHONHASHSEED=0", sys.executable, "-c", PYTHON_JSON]),
}


def make_input(path: str) -> None:
    """18 MB of random words and numbers (seed 1): the same file in every recording."""
    rng = np.random.default_rng(1)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, rng.integers(2, 10))) for _ in range(5000)]
    picks = rng.integers(0, len(words), size=(400_000, 6))
    nums = rng.integers(0, 10**6, size=400_000)
    with open(path + ".tmp", "w") as fh:
        for row, n in zip(picks, nums):
            fh.write(" ".join(words[i] for i in row) + f" {n}\n")
    os.replace(path + ".tmp", path)


def record(folder: str, runs: int) -> None:
    os.makedirs(folder, exist_ok=True)
    data = os.path.join(folder, "input.txt")
    if not os.path.exists(data):
        make_input(data)
    t0 = time.time()
    for r in range(runs):
        for name, (_, argv) in PROGRAMS.items():  # rounds over the programs: load drifts alike
            path = os.path.join(folder, f"{name}_r{r}.parquet")
            if os.path.exists(path):
                continue
            raw = os.path.join(folder, f"{name}_r{r}.data")
            cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(FREQ), "-o", raw, "--"]
            cmd += [data if a == "INPUT" else a for a in argv]
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", HemkitWarning)
                samples = read_samples(raw)
            samples.to_parquet(path + ".tmp", index=False)
            os.replace(path + ".tmp", path)
            os.remove(raw)
            print(f"{time.time() - t0:6.0f} s  {name} r{r}: {len(samples)} samples", flush=True)


def load(folder: str, names: list[str]) -> dict[str, list[pd.DataFrame]]:
    out: dict[str, list[pd.DataFrame]] = {}
    for name in names:
        runs = []
        for r in itertools.count():
            path = os.path.join(folder, f"{name}_r{r}.parquet")
            if not os.path.exists(path):
                break
            df = pd.read_parquet(path)
            df.attrs["source"] = f"{name}_r{r}"
            runs.append(df)
        if len(runs) >= 2:
            out[name] = runs
    return out


def score_one(runs: list[pd.DataFrame], by: str, show: bool, name: str) -> dict:
    keys = flagged = pairs_any = pairs = 0
    for i, j in itertools.combinations(range(len(runs)), 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            d = profile_diff(runs[i], runs[j], by=by)
        ch = d.table["changed"].to_numpy(dtype=bool)
        keys += len(ch)
        flagged += int(ch.sum())
        pairs_any += bool(ch.any())
        pairs += 1
        if show and ch.any():
            t = d.table[ch]
            for key, row in t.iterrows():
                print(
                    f"    {name} r{i}/r{j} {by}: {key}: {int(row['samples_a'])} -> {int(row['samples_b'])} samples, "
                    f"p {row['p_value']:.2g}"
                )
    return {"pairs": pairs, "keys": keys, "flagged": flagged, "pairs_any": pairs_any}


def score(folder: str, which: str, show: bool) -> pd.DataFrame:
    names = [n for n, (s, _) in PROGRAMS.items() if which in ("all", s)]
    data = load(folder, names)
    rows = []
    for name, runs in data.items():
        n = [len(r) for r in runs]
        for by in ("sym", "dso"):
            res = score_one(runs, by, show, name)
            rows.append(
                {
                    "program": name,
                    "set": PROGRAMS[name][0],
                    "by": by,
                    "runs": len(runs),
                    "samples": f"{min(n)}-{max(n)}",
                    **res,
                }
            )
    table = pd.DataFrame(rows)
    total = table.groupby("by")[["pairs", "keys", "flagged", "pairs_any"]].sum().reset_index()
    total["program"], total["set"], total["runs"], total["samples"] = "all", which, "", ""
    table = pd.concat([table, total], ignore_index=True)
    table["keys flagged"] = (table["flagged"] / table["keys"]).round(4)
    table["pairs flagging any"] = (table["pairs_any"] / table["pairs"]).round(3)
    return table


def split_halves(n: int, k: int) -> list[tuple[list[int], list[int]]]:
    """Every split of ``n`` recordings into ``k`` against ``k`` (disjoint), each unordered pair of sides once."""
    out, seen = [], set()
    for a in itertools.combinations(range(n), k):
        for b in itertools.combinations([i for i in range(n) if i not in a], k):
            if (b, a) in seen:
                continue
            seen.add((a, b))
            out.append((list(a), list(b)))
    return out


def score_splits(folder: str, which: str, per_side: int, prior_df: float, show: bool) -> pd.DataFrame:
    """A/A with several recordings a side: every split of each program's recordings, by symbol and by DSO."""
    names = [n for n, (s, _) in PROGRAMS.items() if which in ("all", s)]
    data = load(folder, names)
    rows = []
    for name, runs in data.items():
        if len(runs) < 2 * per_side:
            continue
        for by in ("sym", "dso"):
            profiles = [profile_shares(r, by=by) for r in runs]
            splits = keys = flagged = any_ = 0
            for a, b in split_halves(len(runs), per_side):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", HemkitWarning)
                    d = diff_recordings(
                        [profiles[i] for i in a],
                        [profiles[i] for i in b],
                        by=by,
                        options=DiffOptions(prior_df=prior_df),
                    )
                ch = d.table["changed"].to_numpy(dtype=bool)
                splits += 1
                keys += len(ch)
                flagged += int(ch.sum())
                any_ += bool(ch.any())
                if show and ch.any():
                    for key, row in d.table[ch].iterrows():
                        print(
                            f"    {name} {a}/{b} {by}: {key}: {100 * row['share_a']:.2f} % -> "
                            f"{100 * row['share_b']:.2f} % (spread {100 * row['spread_a']:.2f}, "
                            f"{100 * row['spread_b']:.2f}), p {row['p_value']:.2g}"
                        )
            rows.append(
                {
                    "program": name,
                    "set": PROGRAMS[name][0],
                    "by": by,
                    "splits": splits,
                    "keys": keys,
                    "flagged": flagged,
                    "splits_any": any_,
                }
            )
    table = pd.DataFrame(rows)
    total = table.groupby(["set", "by"], sort=False)[["splits", "keys", "flagged", "splits_any"]].sum().reset_index()
    total["program"] = "all"
    table = pd.concat([table, total], ignore_index=True)
    table["keys flagged"] = (table["flagged"] / table["keys"]).round(4)
    table["splits flagging any"] = (table["splits_any"] / table["splits"]).round(3)
    return table


def markdown(table: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(map(str, table.columns)) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in table.itertuples(index=False)]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["record", "score", "splits"])
    ap.add_argument("--dir", default="/tmp/hemkit-aa")
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--set", default="all", choices=["choice", "check", "fresh", "fresh2", "fresh3", "all"])
    ap.add_argument("--show", action="store_true", help="print every key flagged")
    ap.add_argument("--per-side", type=int, default=3, help="recordings a side (splits)")
    ap.add_argument("--prior-df", type=float, default=4.0, help="DiffOptions.prior_df (splits; inf: the model alone)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    if args.what == "record":
        record(args.dir, args.runs)
    elif args.what == "splits":
        print(markdown(score_splits(args.dir, args.set, args.per_side, args.prior_df, args.show)))
    else:
        print(markdown(score(args.dir, args.set, args.show)))
    print(f"\n({time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
