"""The bad-input and failure suite of issue 11, as a table: class x cases x outcome.

Runs every test that feeds hemkit bad input, a bad place to write, a signal or a second
collector (the ``test_bad_input.py`` matrices of every area, the readers' property and
any-bytes tests, the output tests, the signal, database and concurrency tests, the report's
and the command line's), sorts each test case into the issue's classes A-I (plus the readers'
own class R) by its file and name, and prints one Markdown row per class.  Every case
asserts exit 2 with exactly one ``hemkit: error:`` line naming the culprit and no file
changed (or, for signals, exit 130 with the resume command, and for the library, only
``InputError``).

    .venv/bin/python benchmarks/reliability.py            # about 10 minutes on 2 cores
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SUITES = [
    "tests/cli",
    "tests/io",
    "tests/merge/test_bad_input.py",
    "tests/merge/test_properties.py",
    "tests/mpx/test_bad_input.py",
    "tests/mpx/test_properties.py",
    "tests/plan/test_bad_input.py",
    "tests/derive/test_bad_input.py",
    "tests/sampling/test_bad_input.py",
    "tests/collect/test_bad_input.py",
    "tests/collect/test_signals.py",
    "tests/collect/test_database.py",
    "tests/collect/test_environment.py",
    "tests/report/test_report.py",
]

CLASSES = {
    "A": "writing outputs: missing folder, read-only place, full disk, a folder, the input, /dev/full",
    "B": "MUCH and copula on degenerate data",
    "C": "evaluate: inf, constant, duplicated columns, NaN tables",
    "D": "mpx readers: duplicate or bad steps, bad counts, 2^47 wrap-arounds, garbage Parquet",
    "E": "plan files and derive inputs: malformed JSON/TOML, bad presets",
    "F": "the collection database: foreign, damaged, read-only, two collectors",
    "G": "signals: Ctrl-C, SIGTERM, SIGKILL and resume",
    "H": "options: ranges, names checked against the data",
    "I": "hangs: refused up front with the reason, or progress and a time budget",
    "R": "readers on arbitrary bytes and real perf/tidy/raw files (only InputError)",
    "X": "the measured program: environment, failures",
}

RULES = [  # first match wins; tested against the lower-cased node id
    ("G", r"signal|sigint|sigterm|sigkill|ctrl_c|interrupt|kill"),
    ("F", r"test_database|foreign|two_collectors|lock|corrupt|tamper|damaged|integrity"),
    ("X", r"test_environment|allow_failure|failing_program|path_of_the_user"),
    ("A", r"output|place|dev_full|/dev/|read_only|full_disk|tmpfs|folder|atomic|overwrite|pseudo|write"),
    ("I", r"hang|budget|up_front|too_long|dtw|huge|memory|tiny_step|too_many"),
    ("C", r"tests/merge/.*evaluat"),
    ("B", r"tests/merge/"),
    ("D", r"tests/mpx/.*(trace|read|wrap|step|count|parquet|timestamp|file|propert)"),
    ("E", r"tests/plan/.*(plan_file|file)|tests/derive/.*(measurement|result|preset|event_list|setup|suffix)"),
    ("R", r"tests/io/|tests/sampling/.*(file|perf_data|device|real)"),
    ("H", r"option|range|seed|name|anchor|spec|unknown|vocabulary|bad_|refuse"),
]


def classify(nodeid: str) -> str:
    low = nodeid.lower()
    for cls, pattern in RULES:
        if re.search(pattern, low):
            return cls
    return "H"


class Collect:
    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}

    def pytest_runtest_logreport(self, report) -> None:  # noqa: ANN001 - pytest hook
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            self.outcomes[report.nodeid] = report.outcome


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print every case with its class")
    args = ap.parse_args()
    suites = [s for s in SUITES if (ROOT / s).exists()]
    plugin = Collect()
    t0 = time.time()
    code = pytest.main(
        ["-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=--import-mode=importlib", *suites],
        plugins=[plugin],
    )
    seconds = time.time() - t0
    table: dict[str, Counter] = defaultdict(Counter)
    for nodeid, outcome in plugin.outcomes.items():
        cls = classify(nodeid)
        table[cls][outcome] += 1
        if args.list:
            print(f"{cls} {outcome:8s} {nodeid}")
    print()
    print("| class | what | cases | passed | failed | skipped |")
    print("|---|---|---|---|---|---|")
    total: Counter = Counter()
    for cls, what in CLASSES.items():
        c = table.get(cls, Counter())
        total.update(c)
        n = sum(c.values())
        print(f"| {cls} | {what} | {n} | {c['passed']} | {c['failed']} | {c['skipped']} |")
    print(f"| all | | {sum(total.values())} | {total['passed']} | {total['failed']} | {total['skipped']} |")
    print(f"\n{len(suites)} suites in {seconds:.0f} s; pytest exit code {int(code)}")
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
