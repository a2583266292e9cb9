"""Collect the OCOE interval traces behind the multiplexing benchmark (issue 4).

    .venv/bin/python benchmarks/mpx_collect.py --out /work/data/mpx/traces.parquet --runs 3

12 workloads (6 bundled phased C kernels + gzip, xz, bzip2, sort, gcc, python, tar on
generated inputs) x 3 sets of 5 events x RUNS runs, ``perf stat -I 10``.  The events are
software events and tracepoints because the VM this was written on has no PMU driver; on
a machine with counters pass ``--events`` sets of hardware events (at most 5 per set).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

from hemkit.mpx.traces import collect_traces, write_trace
from hemkit.workloads import compile_c

EVENT_SETS = [
    ["task-clock", "page-faults", "context-switches", "syscalls:sys_enter_read", "syscalls:sys_enter_write"],
    ["kmem:kmalloc", "kmem:kfree", "kmem:mm_page_alloc", "kmem:mm_page_free", "syscalls:sys_enter_brk"],
    [
        "syscalls:sys_enter_mmap",
        "syscalls:sys_enter_munmap",
        "syscalls:sys_enter_openat",
        "sched:sched_wakeup",
        "kmem:kmem_cache_alloc",
    ],
]

PYTHON_WORK = r"""
import json, os, tempfile, time
d = {}
for r in range(12):
    for i in range(60000): d[i] = str(i) * 3
    with tempfile.TemporaryFile('w+') as f:
        for i in range(3000): f.write(json.dumps({'k': i, 'v': d[i]}) + '\n')
        f.seek(0); n = sum(len(x) for x in f)
    time.sleep(0.05)
    d.clear()
"""


def make_inputs(root: Path) -> dict[str, Path]:
    """Generated inputs (deterministic): a text file, a C file with many functions, a directory."""
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    text = root / "text.txt"
    if not text.exists():
        with open(text, "w") as f:
            for _ in range(300000):
                f.write(" ".join(rng.choice(words) for _ in range(8)) + "\n")
    csrc = root / "big.c"
    if not csrc.exists():
        with open(csrc, "w") as f:
            for k in range(400):
                f.write(
                    f"double f{k}(double *a, int n) {{ double s = 0; for (int i = 0; i < n; i++) "
                    f"s += a[i] * {k + 1}.0 / (1.0 + a[(i * {k + 3}) % n]); return s; }}\n"
                )
    tree = root / "tree"
    if not tree.exists():
        tree.mkdir()
        for k in range(1500):
            (tree / f"f{k}.txt").write_text(" ".join(rng.choice(words) for _ in range(rng.randint(10, 4000))))
    return {"text": text, "csrc": csrc, "tree": tree}


def workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    exe = str(compile_c("hemkit.mpx:c/phased.c"))
    return {
        "ph-alloc-compute": [exe, "a:300,c:300,a:200,c:400"],
        "ph-io-sleep": [exe, "i:300,s:200,i:300,s:200"],
        "ph-burst": [exe, "b:600,c:200,b:400"],
        "ph-mixed": [exe, "a:150,i:150,c:150,s:100,p:150,b:200"],
        "ph-pipe": [exe, "p:300,c:200,p:300,i:200"],
        "ph-cycle": [exe, "a:40,i:40,c:40,p:40", "6"],
        "gzip": ["gzip", "-c", "-9", str(inputs["text"])],
        "xz": ["xz", "-c", "-0", "-T1", str(inputs["text"])],
        "bzip2": ["bzip2", "-c", "-9", str(inputs["text"])],
        "sort": ["sort", "-k3,3", "-k1,1", "-S", "64M", "-T", str(scratch), str(inputs["text"])],
        "gcc": ["gcc", "-O2", "-c", str(inputs["csrc"]), "-o", str(scratch / "big.o")],
        "python": [sys.executable, "-c", PYTHON_WORK],
        "tar": ["tar", "czf", str(scratch / "tree.tgz"), "-C", str(inputs["tree"].parent), "tree"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="/work/data/mpx/traces.parquet")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", nargs="*", help="workload names to record (default: all)")
    args = ap.parse_args()
    out = Path(args.out)
    inputs = make_inputs(out.parent / "inputs")
    scratch = out.parent / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    wl = workloads(inputs, scratch)
    if args.only:
        wl = {k: v for k, v in wl.items() if k in args.only}
    t0 = time.perf_counter()
    trace = collect_traces(wl, EVENT_SETS, runs=args.runs, interval_ms=10, progress=lambda m: print(m, flush=True))
    write_trace(trace, out)
    print(
        f"wrote {out}: {trace['run'].nunique()} runs, {trace['event'].nunique()} events, "
        f"{len(trace)} rows in {time.perf_counter() - t0:.0f} s"
    )


if __name__ == "__main__":
    os.environ.setdefault("HEMKIT_CACHE", "/work/data/mpx/cache")
    main()
