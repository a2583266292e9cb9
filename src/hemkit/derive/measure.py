"""Measure raw events on the CAT-style kernels: with perf (hardware counters) or valgrind (simulated).

**perf backend.** For every kernel loop of a family (rows of its basis), every run and every event,
one ``perf stat -D -1 --control fifo:CTL,ACK`` run counts the event only inside the loop.  One
event per run is the default, as PAPI's CAT does: on AMD Zen 5 raw floating-point events corrupt
the other events of their run (shared notes/perf.md); ``group=N`` counts N events per run (at
most 5: Zen 5's sixth counter silently reads 0).  For the data-cache family ``threads`` copies
run concurrently on disjoint buffers and the median count is kept (Section IV of the paper).

**valgrind backend.** Where no PMU exists, each kernel loop runs under valgrind's cachegrind,
which simulates the L1 and last-level caches and a branch predictor exactly and
deterministically; every cachegrind event is counted in one run and only the counts of the
measured loop's own function are kept (the equivalent of perf's control window).  The cache
geometry comes from sysfs or is given (:func:`cache_geometry`).  Runs go in parallel across
cores.  cachegrind simulates no floating-point events, so the FLOPs family needs perf.

Each run of a kernel gets its own seed (random branch outcomes, chase order) from ``seed`` by
name, so runs differ as CAT's do and the same seed gives the same data.

Output: :class:`Measurements`, a tidy table ``family, backend, kernel, size, run, event, code,
count, iterations, value`` with ``value`` the count per loop iteration (per access for dcache),
ready for :func:`hemkit.derive.analysis.analyze`.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
import warnings
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar, unknown_choice
from hemkit.core.errors import Fix, HemkitWarning, InputError, MeasurementError, SetupError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, child, integer_seed
from hemkit.derive.events import resolve_events
from hemkit.derive.families import FAMILIES, CacheLevel, Family, branch_family, dcache_family, flops_family
from hemkit.derive.kernels import (
    available_widths,
    cpu_identity,
    kernel_binary,
    kernel_command,
    kernel_function,
    parse_kernel_output,
)
from hemkit.external.perf import PerfStatOptions, hardware_events_work, run_perf_stat
from hemkit.external.valgrind import CacheGeometry, CacheSpec, find_valgrind, run_cachegrind, valgrind_version

BACKENDS = ("perf", "valgrind")
MAX_GROUP = 5
#: counts at or above this are corrupt (notes/perf.md: multiplexed values near 2^48)
IMPLAUSIBLE = 2.0**47
COLUMNS = ["family", "backend", "kernel", "size", "run", "event", "code", "count", "iterations", "value"]
#: default loop iterations per backend and family (branch: random bytes read per loop; dcache: loads)
ITERATIONS = {
    "perf": {"flops": 100_000, "branch": 1 << 20, "dcache": 1 << 20},
    "valgrind": {"flops": 10_000, "branch": 1 << 16, "dcache": 1 << 16},
}


@dataclass(frozen=True)
class MeasureOptions:
    """How to measure (see :func:`measure`).

    Attributes
    ----------
    runs : int
        Executions of every kernel loop (>= 2: the noise filter compares runs).
    iterations : int, optional
        Loop iterations (dcache: loads; branch: random bytes read per loop, a power of two,
        each loop running ``iterations / copies`` times); default per backend and family.
    group : int
        perf: events per perf run (1 = CAT's one event per run; at most 5).
    threads : int
        perf: concurrent copies per run, the median kept (the paper's noise suppression for caches).
    jobs : int, optional
        valgrind: kernel runs in parallel (default: the CPUs this process may use).
    user_only : bool
        perf: count user mode only (``:u``).
    cache : CacheGeometry, optional
        valgrind: the simulated caches (default: from sysfs).
    seed : int or Generator
        Seed of the kernels' random choices (same seed, same data with valgrind).
    timeout : float
        Seconds one kernel run may take.
    perf, valgrind : str, optional
        The binaries (default ``$HEMKIT_PERF``/``$HEMKIT_VALGRIND`` or PATH).

    Examples
    --------
    >>> MeasureOptions(runs=5).checked().runs
    5
    """

    runs: int = 3
    iterations: int | None = None
    group: int = 1
    threads: int = 1
    jobs: int | None = None
    user_only: bool = True
    cache: CacheGeometry | None = None
    seed: SeedLike = 0
    timeout: float = 600.0
    perf: str | None = None
    valgrind: str | None = None

    def checked(self) -> MeasureOptions:
        """These options, or an :class:`InputError` naming the one out of range."""
        check_scalar(self.runs, "runs", min_val=2, what="the noise filter compares runs")
        check_scalar(self.iterations, "iterations", min_val=1, allow_none=True)
        check_scalar(
            self.group, "group", min_val=1, max_val=MAX_GROUP, what="events per run; a 6th counter reads 0 on Zen 5"
        )
        check_scalar(self.threads, "threads", min_val=1)
        check_scalar(self.jobs, "jobs", min_val=1, allow_none=True)
        check_scalar(self.timeout, "timeout", "real", min_val=0, closed="neither", what="seconds")
        return self


@result
class Measurements(Result):
    """Raw-event counts of one kernel family, per kernel loop, run and event.

    Attributes
    ----------
    data : DataFrame
        ``family, backend, kernel, size, run, event, code, count, iterations, value``
        (value = count per loop iteration, per access for dcache).
    family : str
    backend : str
        ``perf`` or ``valgrind``.
    params : Mapping
        How it was measured: runs, iterations, seed, events, the CPU, the cache geometry
        (valgrind), the backend choice, the wall time in seconds.

    Examples
    --------
    >>> from hemkit.derive import example_measurements
    >>> m = Measurements(example_measurements("branch"), "branch", "valgrind", {})
    >>> m.summary().loc["Bcm", ["loops", "runs", "zero"]].astype(object).map(int).tolist()
    [21, 3, 0]
    """

    data: pd.DataFrame
    family: str
    backend: str
    params: Mapping[str, Any]

    def summary(self) -> pd.DataFrame:
        """Per event: kernel loops, runs, smallest and largest count per iteration, all zero or not."""
        g = self.data.assign(loop=self.data["kernel"].astype(str) + "/" + self.data["size"].astype(str)).groupby(
            "event", sort=False
        )
        return pd.DataFrame(
            {
                "loops": g["loop"].nunique(),
                "runs": g["run"].nunique(),
                "min_per_iteration": g["value"].min(),
                "max_per_iteration": g["value"].max(),
                "zero": g["value"].apply(lambda v: bool((v == 0).all())),
            }
        )

    def to_frame(self) -> pd.DataFrame:
        """The tidy table."""
        return self.data.copy()

    def line(self) -> str:
        """One line: what was measured, how, and how long it took."""
        n_ev = self.data["event"].nunique()
        n_loops = len(self.data.groupby(["kernel", "size"]))
        runs = self.data["run"].nunique()
        secs = self.params.get("seconds")
        took = f" in {secs:.0f} s" if isinstance(secs, (int, float)) else ""
        return f"{self.family} with {self.backend}: {n_ev} events x {n_loops} kernel loops x {runs} runs{took}"


# --------------------------------------------------------------------------- backend and set-up
_NO_FLOPS = (
    "valgrind's cachegrind simulates no floating-point events (only Ir, Dr, Dw, cache misses and branches): "
    "the flops family needs the perf backend on a machine with hardware counters"
)


def choose_backend(requested: str | None = None, *, perf: str | None = None, family: str = "") -> tuple[str, str]:
    """The backend to use and why: ``requested``, or perf when it counts hardware events, else valgrind.

    An automatic choice of valgrind warns (:class:`HemkitWarning`) with the reason; for the
    flops family, which cachegrind cannot measure, it is a :class:`SetupError` instead.

    Raises
    ------
    SetupError
        No PMU here and valgrind is not installed.

    Examples
    --------
    >>> choose_backend("valgrind")
    ('valgrind', 'asked for')
    """
    if requested is not None:
        if requested not in BACKENDS:
            raise unknown_choice("backend", requested, BACKENDS)
        return requested, "asked for"
    ok, why = hardware_events_work(perf)
    if ok:
        return "perf", "perf counts hardware events here"
    if family == "flops":
        raise SetupError(f"no hardware counters here ({why}), and {_NO_FLOPS}")
    try:
        find_valgrind()
    except SetupError as exc:
        raise SetupError(f"no hardware counters here ({why}) and {exc}") from None
    reason = f"no hardware counters here ({why})"
    warnings.warn(HemkitWarning(f"{reason}; measuring with the valgrind backend (cachegrind)"), stacklevel=2)
    return "valgrind", reason


def _sysfs_caches(root: str | Path) -> dict[tuple[int, str], CacheSpec]:
    out: dict[tuple[int, str], CacheSpec] = {}
    for d in sorted(Path(root).glob("index*")):
        try:
            level = int((d / "level").read_text())
            kind = (d / "type").read_text().strip()
            size_text = (d / "size").read_text().strip()
            mult = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(size_text[-1:].upper(), 1)
            size = int(size_text.rstrip("KMGkmg")) * mult
            assoc = int((d / "ways_of_associativity").read_text())
            line = int((d / "coherency_line_size").read_text())
        except (OSError, ValueError):
            continue
        out[(level, kind)] = CacheSpec(size, max(assoc, 1), line)
    return out


def _geometry(specs: Sequence[str], root: str | Path) -> CacheGeometry:
    """:func:`cache_geometry`, its errors naming ``cache`` as a word of their own (``cache L1: ...``)."""
    given: dict[str, CacheSpec] = {}
    for spec in (p for s in specs for p in str(s).replace(";", " ").split()):
        key, sep, value = spec.partition("=")
        key = key.strip().upper()
        if not sep or key not in ("I1", "D1", "L1", "LL"):
            raise InputError(f"cache {spec!r}: expected I1=, D1=, L1= or LL= followed by SIZE,ASSOC,LINE")
        parsed = CacheSpec.parse(value, what=f"cache {key}")
        for k in ("I1", "D1") if key == "L1" else (key,):
            given[k] = parsed
    if len(given) < 3:
        found = _sysfs_caches(root)
        data1 = found.get((1, "Data"))
        levels = sorted(lv for lv, kind in found if kind != "Instruction")
        if data1 is None or len(levels) < 2:
            raise SetupError(
                f"{root}: cannot read the sizes of the caches; give them as cache (e.g. L1=32k,8,64 LL=32M,16,64)",
                param="cache",
            )
        last = levels[-1]
        last_spec = found.get((last, "Unified")) or found.get((last, "Data"))
        given.setdefault("D1", data1)
        given.setdefault("I1", found.get((1, "Instruction"), data1))
        if last_spec is not None:
            given.setdefault("LL", last_spec)
    geometry = CacheGeometry(
        I1=given["I1"].checked("cache I1"), D1=given["D1"].checked("cache D1"), LL=given["LL"].checked("cache LL")
    )
    if geometry.LL.size < 4 * geometry.D1.size:
        raise InputError(f"cache LL ({geometry.LL.size} bytes) must be at least 4 x D1 ({geometry.D1.size} bytes)")
    return geometry


def cache_geometry(specs: Sequence[str] = (), root: str | Path = "/sys/devices/system/cpu/cpu0/cache") -> CacheGeometry:
    """The caches cachegrind simulates: ``specs`` like ``L1=32k,8,64`` / ``LL=32M,16,64``, the rest from sysfs.

    Keys: ``I1`` (instructions), ``D1`` (data), ``L1`` (both), ``LL`` (last level).  A spec may
    hold several, separated by spaces.  Unspecified caches come from sysfs (the last level
    there is the LL).

    Parameters
    ----------
    specs : sequence of str
        Cache specs ``KEY=SIZE,ASSOC,LINE`` (sizes with ``k``/``M`` suffixes).
    root : str or Path
        The sysfs folder of one CPU's caches, read only when a cache is not given.

    Returns
    -------
    CacheGeometry
        I1, D1 and LL, each adjusted where needed so that its number of sets is a power
        of two (the associativity changes, the size stays).

    Raises
    ------
    InputError
        A malformed spec (named), or a geometry cachegrind cannot simulate.
    SetupError
        sysfs lists no caches and not all three are given.

    Examples
    --------
    >>> cache_geometry(["L1=32k,8,64 LL=8M,16,64"]).line()
    'L1d 32768 B 8-way, LL 8388608 B 16-way, 64 B lines'
    """
    try:
        return _geometry(specs, root)
    except InputError as exc:  # a spec given, or sysfs's (given specs replace it): named as ``cache``
        raise InputError(exc.message, fix=exc.fixes, param="cache") from None


def family_for(name: str, backend: str, geometry: CacheGeometry | None = None) -> Family:
    """The family a backend measures here: FLOPs widths this CPU runs; dcache sized to the caches.

    With valgrind the dcache family has cachegrind's two levels (L1 and LL, from ``geometry``);
    with perf, L1, L2 and L3 from sysfs.

    Examples
    --------
    >>> family_for("dcache", "valgrind", cache_geometry(["L1=32k,8,64", "LL=1M,16,64"])).basis.columns.tolist()
    ['L1_DM', 'L1_DH', 'LL_DH']
    """
    if name not in FAMILIES:
        raise unknown_choice("kernel family", name, FAMILIES)
    if name == "flops":
        return flops_family(widths=available_widths())
    if name == "branch":
        return branch_family()
    if backend == "valgrind":
        g = geometry or cache_geometry()
        return dcache_family(
            [CacheLevel("L1", g.D1.size, g.D1.assoc, g.D1.line), CacheLevel("LL", g.LL.size, g.LL.assoc, g.LL.line)]
        )
    return dcache_family()


def _loop_iterations(family: str, size: str, base: int) -> int:
    """Iterations of one loop: branch loops read ``base`` random bytes in all; dcache rounds to the unroll of 16."""
    if family == "branch":
        return max(base // int(size), 1)
    if family == "dcache":
        return (base + 15) // 16 * 16
    return base


def _seed(seed: SeedLike, family: str, kernel: str, size: str, run: int) -> int:
    return integer_seed(child(seed, family, kernel, size, run))


# --------------------------------------------------------------------------- perf
def _perf_once(
    codes: list[str], where: tuple[str, str, str], iterations: int, seed: int, opts: MeasureOptions
) -> list[float]:
    """One perf run of one kernel loop; counts of ``codes`` in order, or a clear error."""
    family, kernel, size = where
    with tempfile.TemporaryDirectory(prefix="hemkit-derive-") as tmp:
        ctl, ack = os.path.join(tmp, "ctl"), os.path.join(tmp, "ack")
        os.mkfifo(ctl)
        os.mkfifo(ack)
        res = run_perf_stat(
            codes,
            kernel_command(family, kernel, size, iterations, seed, control=(ctl, ack)),
            PerfStatOptions(
                perf=opts.perf, timeout=opts.timeout, extra_args=("-D", "-1", "--control", f"fifo:{ctl},{ack}")
            ),
        )
    c = res.counts
    if len(c) < len(codes):
        tail = res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit code {res.returncode}"
        raise MeasurementError(f"perf printed {len(c)} of {len(codes)} counts on {kernel}/{size}: {tail}")
    c = c.iloc[: len(codes)]
    for code, (_, row) in zip(codes, c.iterrows(), strict=True):
        code = code.removesuffix(":u")
        if row["status"] == "not supported":
            raise MeasurementError(  # valgrind simulates branches and caches, no FLOPs
                f"perf cannot count event {code} on this machine: <not supported>",
                fix=Fix("backend", "valgrind") if family != "flops" else (),
            )
        if row["status"] != "ok":
            raise MeasurementError(f"perf did not count event {code} on {kernel}/{size}: <{row['status']}>")
        if row["value"] >= IMPLAUSIBLE:
            raise MeasurementError(
                f"event {code} read an implausible {row['value']:.3g} on {kernel}/{size}; re-run it alone"
            )
        pct = row.get("percent")
        if pct is not None and np.isfinite(pct) and pct < 99.5:
            raise MeasurementError(
                f"event {code} was multiplexed ({pct:g} % running) on {kernel}/{size}; use one event per run"
            )
    if res.returncode != 0:
        raise MeasurementError(f"kernel {family}/{kernel}/{size} exited with code {res.returncode} under perf")
    return c["value"].astype(float).tolist()


def _measure_perf(
    family: Family, events: pd.DataFrame, opts: MeasureOptions, base: int, progress: ProgressLike
) -> list[tuple]:
    names, codes = events["name"].astype(str).tolist(), events["code"].astype(str).tolist()
    perf_codes = [c + ":u" if opts.user_only and ":" not in c and "/" not in c else c for c in codes]
    batches = [list(range(i, min(i + opts.group, len(codes)))) for i in range(0, len(codes), opts.group)]
    rows: list[tuple] = []
    pool = ThreadPoolExecutor(max_workers=opts.threads) if opts.threads > 1 else None
    try:
        with as_progress(progress).task(
            f"perf: {family.name} kernels", total=len(family.loops) * opts.runs * len(batches)
        ) as task:
            for run in range(opts.runs):
                for kernel, size in family.loops:
                    iters = _loop_iterations(family.name, size, base)
                    seed = _seed(opts.seed, family.name, kernel, size, run)
                    for batch in batches:
                        args = ([perf_codes[i] for i in batch], (family.name, kernel, size), iters, seed, opts)
                        if pool is None:
                            vals = np.array([_perf_once(*args)])
                        else:
                            copies = [pool.submit(_perf_once, *args) for _ in range(opts.threads)]
                            vals = np.array([c.result() for c in copies])
                        med = np.median(vals, axis=0)
                        for i, v in zip(batch, med, strict=True):
                            rows.append((kernel, size, run, names[i], codes[i], float(v), iters))
                        task.advance(info=f"{kernel}/{size} run {run + 1}")
    finally:
        if pool is not None:
            pool.shutdown()
    return rows


# --------------------------------------------------------------------------- valgrind
def _valgrind_once(
    where: tuple[str, str, str], run: int, iterations: int, seed: int, opts: MeasureOptions
) -> dict[str, int]:
    family, kernel, size = where
    what = f"kernel {kernel}/{size}"
    res = run_cachegrind(
        kernel_command(family, kernel, size, iterations, seed),
        geometry=opts.cache or CacheGeometry.default(),
        timeout=opts.timeout,
        valgrind=opts.valgrind,
        what=what,
    )
    out = parse_kernel_output(res.stdout, f"{family}/{kernel}/{size}")
    if family == "branch" and out["check"] != 0.5:
        raise MeasurementError(
            f"{what} run {run}: the random branches were taken {out['check']} of the time, not exactly half "
            "(iterations x copies must be a power of two)"
        )
    fn = kernel_function(family, kernel, size)
    if fn not in res.functions.index:
        raise MeasurementError(f"cachegrind reported no counts for the loop {fn} of {what}")
    counts = res.functions.loc[fn]
    return {str(k): int(v) for k, v in counts.items()}


def _measure_valgrind(
    family: Family, events: pd.DataFrame, opts: MeasureOptions, base: int, progress: ProgressLike
) -> list[tuple]:
    names, codes = events["name"].astype(str).tolist(), events["code"].astype(str).tolist()
    jobs = opts.jobs or len(os.sched_getaffinity(0))
    work = [
        (run, kernel, size, _loop_iterations(family.name, size, base), _seed(opts.seed, family.name, kernel, size, run))
        for run in range(opts.runs)
        for kernel, size in family.loops
    ]
    results: dict[tuple[int, str, str], dict[str, int]] = {}
    with (
        as_progress(progress).task(f"valgrind: {family.name} kernels", total=len(work)) as task,
        ThreadPoolExecutor(max_workers=jobs) as pool,
    ):
        futures = {
            pool.submit(_valgrind_once, (family.name, k, s), r, it, seed, opts): (r, k, s) for r, k, s, it, seed in work
        }
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                exc = f.exception()
                if exc is not None:
                    for p in pending:
                        p.cancel()
                    raise exc
                r, k, s = futures[f]
                results[(r, k, s)] = f.result()
                task.advance(info=f"{k}/{s} run {r + 1}")
    rows = []
    for r, k, s, it, _ in work:
        counts = results[(r, k, s)]
        for name, code in zip(names, codes, strict=True):
            if code not in counts:
                raise MeasurementError(f"cachegrind did not count {code} on {k}/{s}")
            rows.append((k, s, r, name, code, float(counts[code]), it))
    return rows


# --------------------------------------------------------------------------- entry points
def _as_events(events: pd.DataFrame | Sequence[str]) -> pd.DataFrame:
    if isinstance(events, pd.DataFrame):
        if not {"name", "code"} <= set(events.columns):
            raise InputError("an event table needs the columns name, code")
        ev = events[["name", "code"]].astype(str)
    else:
        ev = pd.DataFrame({"name": [str(e) for e in events], "code": [str(e) for e in events]})
    if ev.empty:
        raise InputError("no events to measure")
    blank = ev[(ev["name"].str.strip() == "") | (ev["code"].str.strip() == "")]
    if not blank.empty:
        raise InputError("an event has a blank name or code")
    dup = ev[ev["name"].duplicated()]
    if not dup.empty:
        raise InputError(f"event {dup['name'].iloc[0]!r} is listed twice")
    return ev


def measure(
    family: Family,
    events: pd.DataFrame | Sequence[str],
    *,
    backend: str = "perf",
    options: MeasureOptions | None = None,
    progress: ProgressLike = None,
) -> Measurements:
    """Count every event on every kernel loop of ``family``, ``options.runs`` times.

    Parameters
    ----------
    family : Family
        Kernel family (its basis rows are the loops measured).
    events : DataFrame with ``name, code``, or list of event names / raw codes
        perf events, or cachegrind's event names for the valgrind backend.
    backend : {"perf", "valgrind"}
    options : MeasureOptions, optional
    progress : ProgressLike
        Progress display (see :mod:`hemkit.core.progress`).

    Raises
    ------
    InputError
        Bad options or events.
    MeasurementError
        An event perf cannot count here (``perf cannot count event r0103 on this machine:
        <not supported>``), a kernel that fails, multiplexing, a valgrind failure.
    SetupError
        perf, valgrind or the C compiler missing.

    Examples
    --------
    >>> m = measure(branch_family(), ["Bc", "Bcm"], backend="valgrind",
    ...             options=MeasureOptions(runs=2, iterations=1024))          # doctest: +SKIP
    >>> m.data.groupby("event")["value"].max().to_dict()                      # doctest: +SKIP
    {'Bc': 5.0, 'Bcm': 2.0...}
    """
    opts = (options or MeasureOptions()).checked()
    if backend not in BACKENDS:
        raise unknown_choice("backend", backend, BACKENDS)
    if family.name not in FAMILIES:
        raise InputError(f"measure runs the kernels of {', '.join(FAMILIES)}, not {family.name!r}")
    ev = _as_events(events)
    base = int(opts.iterations or ITERATIONS[backend][family.name])
    if family.name == "branch" and (base < 4 or base & (base - 1)):
        raise InputError(
            f"branch iterations must be a power of two >= 4 (every random byte read once, T exact), got {base}"
        )
    if backend == "valgrind":
        if family.name == "flops":
            raise SetupError(_NO_FLOPS)
        find_valgrind(opts.valgrind)
        opts = dataclasses.replace(opts, cache=opts.cache or cache_geometry())
    kernel_binary()  # compile once before the loop, with a clear error if impossible
    t0 = time.perf_counter()
    if backend == "valgrind":
        rows = _measure_valgrind(family, ev, opts, base, progress)
    else:
        rows = _measure_perf(family, ev, opts, base, progress)
    seconds = time.perf_counter() - t0
    df = pd.DataFrame(rows, columns=["kernel", "size", "run", "event", "code", "count", "iterations"])
    df.insert(0, "backend", backend)
    df.insert(0, "family", family.name)
    df["value"] = df["count"] / df["iterations"]
    if np.all(np.mod(df["count"], 1) == 0):
        df["count"] = df["count"].astype(np.int64)
    params: dict[str, Any] = {
        "runs": opts.runs,
        "iterations": base,
        "seed": opts.seed if isinstance(opts.seed, int) else "generator",
        "events": len(ev),
        "cpu": cpu_identity().line(),
        "seconds": seconds,
    }
    if backend == "valgrind":
        params["cache"] = opts.cache.line() if opts.cache else ""
        params["valgrind"] = valgrind_version(opts.valgrind)
    else:
        params.update(group=opts.group, threads=opts.threads, user_only=opts.user_only)
    return Measurements(data=df[COLUMNS], family=family.name, backend=backend, params=params)


def run_family(
    name: str,
    *,
    backend: str | None = None,
    events: str | Path | pd.DataFrame | None = None,
    options: MeasureOptions | None = None,
    progress: ProgressLike = None,
) -> Measurements:
    """Measure a family here: choose the backend, size the kernels, pick the events, run them.

    Parameters
    ----------
    name : {"flops", "branch", "dcache"}
    backend : {"perf", "valgrind"}, optional
        Default: perf when it counts hardware events here, valgrind otherwise (with a warning).
    events : str, path or DataFrame, optional
        ``None`` (this CPU's bundled table and generic events for perf, all cachegrind events
        for valgrind), ``"generic"``, a bundled table name (``amdzen5``, refused on another
        CPU), a file, or a table ``name, code``.
    options : MeasureOptions, optional
    progress : ProgressLike

    Examples
    --------
    >>> m = run_family("branch", backend="valgrind", options=MeasureOptions(iterations=1024))  # doctest: +SKIP
    >>> m.line()                                                                         # doctest: +SKIP
    'branch with valgrind: 13 events x 21 kernel loops x 3 runs in 9 s'
    """
    opts = (options or MeasureOptions()).checked()
    if name not in FAMILIES:
        raise unknown_choice("kernel family", name, FAMILIES)
    chosen, reason = choose_backend(backend, perf=opts.perf, family=name)
    if name == "flops" and chosen == "valgrind":
        raise SetupError(_NO_FLOPS)
    if chosen == "valgrind":
        find_valgrind(opts.valgrind)
        opts = dataclasses.replace(opts, cache=opts.cache or cache_geometry())
    ev = events if isinstance(events, pd.DataFrame) else resolve_events(name, chosen, events)
    family = family_for(name, chosen, opts.cache)
    m = measure(family, ev, backend=chosen, options=opts, progress=progress)
    return dataclasses.replace(m, params={**m.params, "backend_reason": reason})


__all__ = [
    "BACKENDS",
    "ITERATIONS",
    "MeasureOptions",
    "Measurements",
    "cache_geometry",
    "choose_backend",
    "family_for",
    "measure",
    "run_family",
]
