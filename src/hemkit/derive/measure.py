"""Measure raw events on the CAT-style kernels with ``perf stat`` (one event per run by default).

For every kernel loop of a family (rows of its basis), every repetition and every event, one
``perf stat -D -1 --control fifo:CTL,ACK`` run counts the event only inside the loop.  One event
per run is the default, as PAPI's CAT does: on AMD Zen 5 raw floating-point events corrupt the
other events of their run (shared notes/perf.md); ``group=N`` counts N events per run (at most 5:
Zen 5's sixth counter silently reads 0) and is only sound for combinations checked against single runs.  For the data-cache family ``threads``
copies run concurrently on disjoint buffers and the median count is kept (noise suppression of
the paper's Section IV).

Output: tidy ``kernel, size, rep, event, code, count, iterations, value`` with ``value`` the count
per loop iteration, ready for :func:`hemkit.derive.analysis.analyze`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from hemkit.derive.families import Family
from hemkit.derive.kernels import ITERATIONS, kernel_binary, kernel_command
from hemkit.errors import HemkitError
from hemkit.perf import run_perf_stat

MAX_GROUP = 5
#: counts at or above this are corrupt (notes/perf.md: multiplexed values near 2^48)
IMPLAUSIBLE = 2.0**47
COLUMNS = ["kernel", "size", "rep", "event", "code", "count", "iterations", "value"]


def _perf_once(codes: list[str], family: str, kernel: str, size: str, iterations: int, perf, timeout) -> list[float]:
    """One perf run of one kernel loop; counts of ``codes`` in order, or a clear error."""
    with tempfile.TemporaryDirectory(prefix="hemkit-derive-") as tmp:
        ctl, ack = os.path.join(tmp, "ctl"), os.path.join(tmp, "ack")
        os.mkfifo(ctl)
        os.mkfifo(ack)
        res = run_perf_stat(
            codes,
            kernel_command(family, kernel, size, iterations, control=(ctl, ack)),
            perf=perf,
            timeout=timeout,
            extra_args=["-D", "-1", "--control", f"fifo:{ctl},{ack}"],
        )
    c = res.counts
    if len(c) < len(codes):
        tail = res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit code {res.returncode}"
        raise HemkitError(f"perf printed {len(c)} of {len(codes)} counts on {kernel}/{size}: {tail}")
    c = c.iloc[: len(codes)]
    for code, (_, row) in zip(codes, c.iterrows(), strict=True):
        code = code.removesuffix(":u")
        if row["status"] == "not supported":
            raise HemkitError(f"perf cannot count event {code} on this machine: <not supported>")
        if row["status"] != "ok":
            raise HemkitError(f"perf did not count event {code} on {kernel}/{size}: <{row['status']}>")
        if row["value"] >= IMPLAUSIBLE:
            raise HemkitError(
                f"event {code} read an implausible {row['value']:.3g} on {kernel}/{size}; re-run it alone"
            )
        pct = row.get("percent")
        if pct is not None and np.isfinite(pct) and pct < 99.5:
            raise HemkitError(
                f"event {code} was multiplexed ({pct:g} % running) on {kernel}/{size}; use one event per run"
            )
    if res.returncode != 0:
        raise HemkitError(f"kernel {family}/{kernel}/{size} exited with code {res.returncode} under perf")
    return c["value"].astype(float).tolist()


def measure(
    family: Family,
    events: pd.DataFrame | list[str],
    *,
    reps: int = 3,
    iterations: int | None = None,
    group: int = 1,
    threads: int = 1,
    user_only: bool = True,
    perf: str | None = None,
    timeout: float = 300,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Count every event on every kernel loop of ``family``, ``reps`` times.

    Parameters
    ----------
    family : Family
        Kernel family (its basis rows are the loops measured).
    events : DataFrame with ``name, code`` or list of perf event names / raw codes
    reps : int
        Repetitions (>= 3 for the noise filter to mean something; >= 2 required).
    iterations : int, optional
        Loop iterations (dcache: loads); default per family.
    group : int
        Events per perf run (1 = one event per run, CAT's way; at most 5; only for
        combinations checked against single runs).
    threads : int
        Concurrent copies per run (median kept); the paper uses several for caches.
    user_only : bool
        Count user mode only (``:u``), keeping kernel-mode noise out.
    perf : str, optional
        perf binary (default ``$HEMKIT_PERF`` or ``perf``).
    progress : callable(done, total), optional

    Raises
    ------
    HemkitError
        An event perf cannot count here (message ``perf cannot count event r0103 on this
        machine: <not supported>``), a kernel failure, multiplexing.
    """
    if reps < 2:
        raise HemkitError(f"need at least 2 repetitions, got {reps}")
    if threads < 1:
        raise HemkitError(f"threads must be >= 1, got {threads}")
    ev = pd.DataFrame({"name": events, "code": events}) if isinstance(events, list) else events
    if ev.empty:
        raise HemkitError("no events to measure")
    names, codes = ev["name"].astype(str).tolist(), ev["code"].astype(str).tolist()
    perf_codes = [c + ":u" if user_only and ":" not in c and "/" not in c else c for c in codes]
    iters = int(iterations or ITERATIONS.get(family.name, 100_000))
    if family.name == "dcache":
        iters = (iters + 15) // 16 * 16
    kernel_binary()  # compile once before the loop, with a clear error if impossible
    if not 1 <= int(group) <= MAX_GROUP:
        raise HemkitError(f"group must be 1..{MAX_GROUP} events per run (a 6th counter reads 0 on Zen 5), got {group}")
    idx = list(range(len(codes)))
    batches = [idx[i : i + int(group)] for i in range(0, len(idx), int(group))]
    total = len(family.loops) * reps * len(batches)
    rows, done = [], 0
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        for rep in range(reps):
            for kernel, size in family.loops:
                for batch in batches:
                    args = ([perf_codes[i] for i in batch], family.name, kernel, size, iters, perf, timeout)
                    if pool is None:
                        vals = np.array([_perf_once(*args)])
                    else:
                        vals = np.array(list(pool.map(lambda _: _perf_once(*args), range(threads))))
                    med = np.median(vals, axis=0)
                    for i, v in zip(batch, med, strict=True):
                        rows.append((kernel, size, rep, names[i], codes[i], float(v), iters, float(v) / iters))
                    done += 1
                    if progress:
                        progress(done, total)
    finally:
        if pool is not None:
            pool.shutdown()
    return pd.DataFrame(rows, columns=COLUMNS)
