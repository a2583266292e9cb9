"""Check profile intervals against a workload whose functions take known shares.

The bundled C program (``c/shares.c``, compiled on first use) runs functions
``work_0 .. work_7`` with identical bodies for given numbers of work units, interleaved
at random in calls of a chosen granularity, and measures the thread CPU time of every
call: the true share of each function.  :func:`record_known_shares` samples it with
``perf record`` and returns the samples beside that truth; :func:`validate_coverage`
repeats this over sampling periods and counts how often each function's true share lies
inside its confidence interval.

Sampling event: ``cycles`` where the PMU counts hardware events, else ``cpu-clock``
(software hrtimer sampling of the task's own CPU time; ``-c N`` is then N nanoseconds).
Both sample the task's own execution, so other programs on a shared machine do not
change the shares.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError
from hemkit.external.perf import perf_script_text
from hemkit.io.perf_script import is_perf_data, parse_perf_script, read_perf_script
from hemkit.sampling.profile import profile_shares

SOURCE = "hemkit.sampling:c/shares.c"
DEFAULT_UNITS = (60_000, 120_000, 180_000, 240_000)  # 10/20/30/40 %, about 0.9 s in all here


def read_samples(path: str | os.PathLike[str], *, perf: str | None = None) -> pd.DataFrame:
    """Samples of a ``perf.data`` file (decoded with ``perf script``) or of ``perf script`` text.

    Examples
    --------
    >>> samples = read_samples("perf.data")  # doctest: +SKIP
    """
    p = os.fspath(path)
    if os.path.isfile(p) and is_perf_data(p):
        return parse_perf_script(perf_script_text(p, perf=perf), source=p)
    return read_perf_script(p)


def workload() -> str:
    """Path of the compiled known-share program (built once)."""
    from hemkit.workloads import compile_c

    return os.fspath(compile_c(SOURCE, flags=("-O1",)))


def default_event(perf: str | None = None) -> str:
    """``cycles`` if the PMU counts here, else ``cpu-clock``."""
    from hemkit.perf import hardware_events_work

    ok, _ = hardware_events_work(perf)
    return "cycles" if ok else "cpu-clock"


def _parse_truth(text: str) -> pd.DataFrame:
    rows = [line.split() for line in text.splitlines() if line.startswith("work_")]
    if not rows:
        raise HemkitError("known-share workload printed no timings")
    df = pd.DataFrame(rows, columns=["sym", "units", "cpu_ns", "calls"]).set_index("sym").astype(np.int64)
    return df[df["units"] > 0]


def run_workload(units: Sequence[int], granularity: int = 50, seed: int = 0) -> pd.DataFrame:
    """Run the workload without perf: per function ``units, cpu_ns, calls``."""
    proc = subprocess.run(
        [workload(), str(int(granularity)), str(int(seed)), *map(str, map(int, units))],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise HemkitError(f"known-share workload failed: {proc.stderr.strip()}")
    return _parse_truth(proc.stdout)


def calibrate(units: int = 50_000, repeats: int = 3) -> pd.DataFrame:
    """CPU ns per unit of each function run alone (the equal-cost assumption, checked).

    Returns a table indexed by function with ``ns_per_unit`` (median over ``repeats``)
    and ``rel_to_mean``.
    """
    out = {}
    for i in range(8):
        per = [run_workload([0] * i + [units], seed=r).loc[f"work_{i}", "cpu_ns"] / units for r in range(repeats)]
        out[f"work_{i}"] = float(np.median(per))
    t = pd.DataFrame({"ns_per_unit": pd.Series(out)})
    t["rel_to_mean"] = t["ns_per_unit"] / t["ns_per_unit"].mean()
    return t


@dataclass(frozen=True)
class KnownShareRun:
    """One sampled run: ``samples`` (perf script table) and the true shares.

    ``truth`` is each function's measured CPU time over the functions' total;
    ``designed`` is its units over the total (equal cost per unit).
    """

    samples: pd.DataFrame
    truth: pd.Series
    designed: pd.Series
    event: str
    period: int | None
    freq: int | None


def record_known_shares(
    units: Sequence[int] = DEFAULT_UNITS,
    *,
    granularity: int = 50,
    period: int | None = None,
    freq: int | None = None,
    event: str | None = None,
    seed: int = 0,
    perf: str | None = None,
    keep: str | None = None,
) -> KnownShareRun:
    """Sample the known-share workload with ``perf record -e EVENT -c PERIOD`` (or ``-F FREQ``).

    Parameters
    ----------
    units : sequence of int
        Work units per function (about 1.5 us each here); shares follow their ratios.
    granularity : int
        Mean units per call (the running granularity).
    period, freq : int
        Exactly one: ``-c`` (events; ns for cpu-clock) or ``-F`` (samples per second).
    event : str, optional
        Default: :func:`default_event`.
    keep : str, optional
        Also copy the ``perf script`` text of the run to this path.
    """
    from hemkit.perf import find_perf

    if (period is None) == (freq is None):
        raise HemkitError("give exactly one of period (-c) and freq (-F)")
    exe = find_perf(perf)
    event = event or default_event(perf)
    prog = workload()
    with tempfile.TemporaryDirectory(prefix="hemkit-rec-") as tmp:
        data = os.path.join(tmp, "perf.data")
        rate = ["-c", str(int(period))] if period is not None else ["-F", str(int(freq))]
        cmd = [exe, "record", "-q", "-e", event, *rate, "-o", data, "--", prog, str(int(granularity)), str(int(seed))]
        proc = subprocess.run(cmd + [str(int(u)) for u in units], capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not os.path.exists(data):
            err = proc.stderr.strip().splitlines()
            raise HemkitError(f"perf record -e {event} failed: {err[-1] if err else proc.returncode}")
        text = perf_script_text(data, perf=perf)
    samples = parse_perf_script(text, source=f"perf record of {os.path.basename(prog)}")
    if keep:
        with open(keep, "w") as fh:
            fh.write(text)
    t = _parse_truth(proc.stdout)
    truth = (t["cpu_ns"] / t["cpu_ns"].sum()).rename("truth")
    designed = (t["units"] / t["units"].sum()).rename("designed")
    return KnownShareRun(samples=samples, truth=truth, designed=designed, event=event, period=period, freq=freq)


def coverage_table(run: KnownShareRun, level: float = 0.95, method: str = "wilson") -> pd.DataFrame:
    """Per function of one run: true share, profiled share, interval, whether it covers."""
    p = profile_shares(run.samples, keys=run.truth.index, level=level, method=method, event=run.event)
    t = p.table.reindex(run.truth.index)
    t = t.assign(samples=t["samples"].fillna(0), share=t["share"].fillna(0.0))
    out = pd.DataFrame(
        {
            "truth": run.truth,
            "designed": run.designed,
            "share": t["share"],
            "low": t["low"],
            "high": t["high"],
            "samples": t["samples"].astype(int),
            "n": p.n_samples,
            "R_est": t["R_est"],
        }
    )
    out["covered"] = (out["low"] <= out["truth"]) & (out["truth"] <= out["high"])
    return out.rename_axis("function")


@dataclass(frozen=True)
class CoverageResult:
    """All cases of :func:`validate_coverage`: one row per (setting, granularity, repeat, function, method)."""

    cases: pd.DataFrame
    level: float

    def summary(self) -> pd.DataFrame:
        """Coverage per sampling setting, granularity and interval method, plus overall rows.

        ``sd/binomial`` is the RMS of ``(share - truth) / sqrt(truth (1 - truth) / n)``:
        below 1 the binomial interval is wider than needed.
        """
        c = self.cases.assign(
            abs_err=(self.cases["share"] - self.cases["truth"]).abs(),
            z2=(self.cases["share"] - self.cases["truth"]) ** 2
            / (self.cases["truth"] * (1 - self.cases["truth"]) / self.cases["n"]),
        )
        aggs = {
            "cases": ("covered", "size"),
            "coverage": ("covered", "mean"),
            "samples": ("n", "mean"),
            "mean_abs_err": ("abs_err", "mean"),
            "z2": ("z2", "mean"),
        }
        t = c.groupby(["setting", "granularity", "method"], sort=False).agg(**aggs)
        overall = c.groupby("method", sort=False).agg(**aggs)
        overall.index = pd.MultiIndex.from_tuples([("all", "", m) for m in overall.index], names=t.index.names)
        t = pd.concat([t, overall])
        t["sd/binomial"] = np.sqrt(t.pop("z2"))
        return t


def validate_coverage(
    periods: Sequence[int] = (100_000, 250_000, 1_000_000),
    freqs: Sequence[int] = (),
    *,
    granularities: Sequence[int] = (50,),
    repeats: int = 5,
    units: Sequence[int] = DEFAULT_UNITS,
    level: float = 0.95,
    methods: Sequence[str] = ("wilson",),
    event: str | None = None,
    seed: int = 0,
    perf: str | None = None,
    progress=None,
) -> CoverageResult:
    """How often the true shares lie inside the ``level`` intervals, over sampling settings.

    Every (setting, granularity, repeat) is one ``perf record`` run of the known-share
    workload; each interval method is applied to the same samples.  ``progress(done,
    total)`` is called after each run.

    Examples
    --------
    >>> res = validate_coverage((250_000,), repeats=2)  # doctest: +SKIP
    >>> res.summary().loc[("all", "", "wilson"), "coverage"] >= 0.9  # doctest: +SKIP
    True
    """
    event = event or default_event(perf)
    settings = [("-c", p) for p in periods] + [("-F", f) for f in freqs]
    if not settings:
        raise HemkitError("no sampling periods or frequencies to validate")
    total = len(settings) * len(granularities) * repeats
    frames = []
    for flag, value in settings:
        for g in granularities:
            for r in range(repeats):
                kw = {"period": value} if flag == "-c" else {"freq": value}
                run = record_known_shares(units, granularity=g, event=event, seed=seed + r, perf=perf, **kw)
                for method in methods:
                    t = coverage_table(run, level=level, method=method).reset_index()
                    t["setting"], t["granularity"], t["repeat"], t["method"] = f"{event} {flag} {value}", g, r, method
                    frames.append(t)
                if progress:
                    progress(len(frames) // len(methods), total)
    return CoverageResult(cases=pd.concat(frames, ignore_index=True), level=level)
