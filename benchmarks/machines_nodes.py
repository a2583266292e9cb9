"""Two emulated nodes end to end: ``collect --shard`` on two host names, one node's program given another input.

Each node is a ``hemkit collect --shard K/2`` process in its own UTS namespace (``unshare
--uts``, its host name set to ``node1`` / ``node2``, so the runs store that host), run at the
same time (so the machine's load drifts alike over both) from its own folder, with the *same*
command: ``sh -c 'exec KERNEL $(cat pages.txt) 5000'`` -- the compare calibration's C kernel
(touch N pages, loop 5000 times over them), N read from the node's own ``pages.txt``.

- ``differs``: node1 has N = 20000, node2 N = 20200 (1 % more pages: one worker's input differs);
- ``alike``: both N = 20000.

Then ``hemkit collect --status``, ``hemkit merge`` of the two parts and ``hemkit report`` of them
(what a user runs).  Needs perf (software events), a C compiler and ``unshare`` (root).

    python benchmarks/machines_nodes.py [--runs 40] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL = Path(__file__).parent / "data" / "compare" / "kernel.c"
EVENTS = ["page-faults", "minor-faults", "task-clock"]
CASES = {"differs": (20000, 20200), "alike": (20000, 20000)}


def hemkit(*args: str) -> list[str]:
    return [sys.executable, "-m", "hemkit", *args]


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    print(f"$ {shlex.join(cmd)}", flush=True)
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=os.environ.copy())
    print(res.stdout + res.stderr, flush=True)
    return res


def case(name: str, pages: tuple[int, int], root: Path, exe: Path, runs: int) -> None:
    where = root / name
    where.mkdir()
    run(hemkit("plan", *EVENTS, "--pmcs", "2", "-o", str(where / "plan.toml")), where)
    command = ["sh", "-c", f"exec {exe} $(cat pages.txt) 5000"]
    procs = []
    t0 = time.perf_counter()
    for k, n in enumerate(pages, start=1):
        node = where / f"node{k}"
        node.mkdir()
        (node / "pages.txt").write_text(f"{n}\n")
        collect = hemkit(
            "collect", str(where / "plan.toml"), "--runs", str(runs), "--shard", f"{k}/2",
            "-o", str(where / f"part_{k}.db"), "-q", "--", *command,
        )  # fmt: skip
        inner = f"hostname node{k} && exec {shlex.join(collect)}"
        procs.append(subprocess.Popen(["unshare", "--uts", "sh", "-c", inner], cwd=node, env=os.environ.copy()))
    codes = [p.wait() for p in procs]
    print(f"[{name}] collected both parts in {time.perf_counter() - t0:.0f} s (exit {codes})\n", flush=True)
    parts = [str(where / "part_1.db"), str(where / "part_2.db")]
    for p in parts:
        run(hemkit("collect", "--status", p), where)
    run(hemkit("merge", *parts, "-m", "much", "-q"), where)
    run(hemkit("report", *parts, "-m", "none", "-o", str(where / "report.html")), where)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--keep", help="Keep the databases and reports in this folder.")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        exe = root / "kernel"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(KERNEL)], check=True)
        for name, pages in CASES.items():
            case(name, pages, root, exe, args.runs)


if __name__ == "__main__":
    main()
