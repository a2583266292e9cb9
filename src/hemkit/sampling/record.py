"""Check profile intervals against a workload whose functions take known shares.

The bundled C program (``c/shares.c``, compiled on first use) runs functions
``work_0 .. work_7`` with identical bodies for given numbers of work units, interleaved
at random in calls of a chosen granularity, and measures the thread CPU time of every
call: the true share of each function.  :func:`record_known_shares` samples it with
``perf record`` and returns the samples beside that truth; :func:`validate_coverage`
repeats this over sampling periods and counts how often each function's true share lies
inside its confidence interval (the intervals of :func:`hemkit.sampling.profile_shares`).

Sampling event: ``cycles`` where the PMU counts hardware events, else ``cpu-clock``
(software hrtimer sampling of the task's own CPU time; ``-c N`` is then N nanoseconds).
Both sample the task's own execution, so other programs on a shared machine do not
change the shares.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtri

from hemkit.core.errors import InputError, MeasurementError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, child, integer_seed
from hemkit.external.compiler import compile_c
from hemkit.external.perf import hardware_events_work, perf_record
from hemkit.external.process import run
from hemkit.sampling import model
from hemkit.sampling.profile import METHODS, profile_shares, read_samples

SOURCE = "hemkit.sampling:c/shares.c"
DEFAULT_UNITS = (60_000, 120_000, 180_000, 240_000)  # 10/20/30/40 %, about 0.9 s in all here
MAX_FUNCTIONS = 8
MAX_THREADS = 64


def workload() -> str:
    """Path of the compiled known-share program (built once).

    Examples
    --------
    >>> os.path.basename(workload()).startswith("shares-")  # doctest: +SKIP
    True
    """
    return os.fspath(compile_c(SOURCE, flags=("-O1", "-pthread")))


def default_event() -> str:
    """``cycles`` if the PMU counts here, else ``cpu-clock``.

    Examples
    --------
    >>> default_event() in ("cycles", "cpu-clock")  # doctest: +SKIP
    True
    """
    ok, _ = hardware_events_work()
    return "cycles" if ok else "cpu-clock"


def _parse_truth(text: str) -> pd.DataFrame:
    rows = [line.split() for line in text.splitlines() if line.startswith("work_")]
    if not rows or any(len(r) != 4 for r in rows):
        raise MeasurementError("the known-share workload printed no timings")
    df = pd.DataFrame(rows, columns=["sym", "units", "cpu_ns", "calls"]).set_index("sym").astype(np.int64)
    return df[df["units"] > 0]


def _check_units(units: Sequence[int], granularity: int, threads: int = 1) -> list[int]:
    u = [int(x) for x in units]
    if not 1 <= len(u) <= MAX_FUNCTIONS or any(x < 0 for x in u) or sum(u) == 0:
        raise InputError(
            f"units must be 1 to {MAX_FUNCTIONS} non-negative counts, not all 0, got {list(units)}", param="units"
        )
    if granularity < 1:
        raise InputError(f"granularity must be at least 1 unit, got {granularity}")
    if not 1 <= threads <= MAX_THREADS:
        raise InputError(f"threads must be 1 to {MAX_THREADS}, got {threads}", param="threads")
    return u


def _command(units: list[int], granularity: int, seed: SeedLike, threads: int) -> list[str]:
    t = ["-t", str(int(threads))] if threads > 1 else []
    return [workload(), *t, str(int(granularity)), str(integer_seed(seed)), *map(str, units)]


def run_workload(units: Sequence[int], granularity: int = 50, seed: SeedLike = 0, threads: int = 1) -> pd.DataFrame:
    """Run the workload without perf: per function ``units, cpu_ns, calls``.

    Examples
    --------
    >>> run_workload([1000, 3000]).loc["work_1", "units"]  # doctest: +SKIP
    3000
    """
    u = _check_units(units, granularity, threads)
    done = run(_command(u, granularity, seed, threads), what="shares workload")
    if done.failed:
        raise MeasurementError(f"the known-share workload failed: {done.status()}")
    return _parse_truth(done.stdout)


def calibrate(units: int = 50_000, repeats: int = 3) -> pd.DataFrame:
    """CPU ns per unit of each function run alone (the equal-cost assumption, checked).

    Returns a table indexed by function with ``ns_per_unit`` (median over ``repeats``)
    and ``rel_to_mean``.

    Examples
    --------
    >>> calibrate(5_000, 1)["rel_to_mean"].between(0.8, 1.2).all()  # doctest: +SKIP
    True
    """
    out = {}
    for i in range(MAX_FUNCTIONS):
        per = [
            run_workload([0] * i + [units], seed=child(0, f"calibrate {r}")).loc[f"work_{i}", "cpu_ns"] / units
            for r in range(repeats)
        ]
        out[f"work_{i}"] = float(np.median(per))
    t = pd.DataFrame({"ns_per_unit": pd.Series(out)})
    t["rel_to_mean"] = t["ns_per_unit"] / t["ns_per_unit"].mean()
    return t


@result
class KnownShareRun(Result):
    """One sampled run of the known-share workload.

    Attributes
    ----------
    samples : pandas.DataFrame
        The ``perf script`` samples (:func:`hemkit.sampling.read_samples`).
    truth : pandas.Series
        Each function's measured CPU time over the functions' total.
    designed : pandas.Series
        Each function's units over the total (equal cost per unit).
    event : str
        The sampling event.
    setting : str
        ``-c N`` or ``-F HZ``.

    Examples
    --------
    Sampling needs perf and runs the workload, so these lines are not run here.  The four
    functions are designed to take 10 %, 20 %, 30 % and 40 % of the time:

    >>> run_ = record_known_shares(period=250_000)  # doctest: +SKIP
    >>> run_.event, run_.setting  # doctest: +SKIP
    ('cpu-clock', '-c 250000')
    >>> print(run_.summary().round(2).reset_index().to_string(index=False))  # doctest: +SKIP
    function  truth  designed  samples
      work_0    0.1       0.1      487
      work_1    0.2       0.2      947
      work_2    0.3       0.3     1467
      work_3    0.4       0.4     1930
    >>> bool(coverage_table(run_)["covered"].all())  # doctest: +SKIP
    True
    """

    samples: pd.DataFrame
    truth: pd.Series
    designed: pd.Series
    event: str
    setting: str

    def summary(self) -> pd.DataFrame:
        """Per function: true and designed share, samples."""
        counts = self.samples["sym"].value_counts().reindex(self.truth.index, fill_value=0)
        return pd.DataFrame({"truth": self.truth, "designed": self.designed, "samples": counts}).rename_axis("function")


def record_known_shares(  # noqa: PLR0913 - the workload's units, granularity, threads and seed; perf's -c, -F and event
    units: Sequence[int] = DEFAULT_UNITS,
    *,
    granularity: int = 50,
    period: int | None = None,
    freq: int | None = None,
    event: str | None = None,
    seed: SeedLike = 0,
    threads: int = 1,
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
    seed : int, numpy.random.Generator or None
        Seed of the workload's interleaving of calls.
    threads : int
        Threads of the workload, each running an even part of every function's units with
        its own interleaving (each thread is sampled on its own CPU time).

    Examples
    --------
    >>> run_ = record_known_shares(period=250_000)  # doctest: +SKIP
    >>> run_.summary().loc["work_3", "designed"]  # doctest: +SKIP
    0.4
    """
    if (period is None) == (freq is None):
        raise InputError("give exactly one of period (-c) and freq (-F)")
    u = _check_units(units, granularity, threads)
    event = event or default_event()
    with tempfile.TemporaryDirectory(prefix="hemkit-rec-") as tmp:
        data = os.path.join(tmp, "perf.data")
        done = perf_record(
            _command(u, granularity, seed, threads),
            data,
            event=event,
            period=period,
            freq=freq,
        )
        samples = read_samples(data)
    t = _parse_truth(done.stdout)
    truth = (t["cpu_ns"] / t["cpu_ns"].sum()).rename("truth")
    designed = (t["units"] / t["units"].sum()).rename("designed")
    setting = f"-c {period}" if period is not None else f"-F {freq}"
    return KnownShareRun(samples=samples, truth=truth, designed=designed, event=event, setting=setting)


def coverage_table(run_: KnownShareRun, level: float = 0.95, method: str = "systematic") -> pd.DataFrame:
    """Per function of one run: true share, profiled share, interval, whether it covers.

    Shares are over the functions' samples only (the workload's other code is left out).

    Examples
    --------
    >>> coverage_table(record_known_shares(period=250_000))["covered"].all()  # doctest: +SKIP
    True
    """
    funcs = run_.truth.index
    mine = run_.samples[run_.samples["sym"].isin(funcs)]
    if mine.empty:
        raise MeasurementError(
            f"no samples in the workload's functions ({run_.event} {run_.setting}): period too long?"
        )
    p = profile_shares(mine, by="sym", level=level, method=method, event=run_.event)
    t = p.table.reindex(funcs)
    out = pd.DataFrame(
        {
            "truth": run_.truth,
            "designed": run_.designed,
            "share": t["share"].fillna(0.0),
            "se": t["se"],
            "low": t["low"],
            "high": t["high"],
            "samples": t["samples"].fillna(0).astype(int),
            "n": p.n_samples,
            "R_est": t["R_est"],
        }
    )
    if out["low"].isna().any():  # a function without samples: its interval from a zero count
        interval = model.bound_interval if method == "bound" else model.wilson_interval
        lo, hi = interval(np.zeros(1), p.n_eff, level)
        out["low"] = out["low"].fillna(float(lo[0]))
        out["high"] = out["high"].fillna(float(hi[0]))
        out["se"] = out["se"].fillna(0.0)
    out["covered"] = (out["low"] <= out["truth"]) & (out["truth"] <= out["high"])
    return out.rename_axis("function")


@dataclass(frozen=True)
class CheckOptions:
    """What :func:`validate_coverage` records: sampling settings, granularities, runs, units.

    Parameters
    ----------
    periods : sequence of int
        ``perf record -c`` values (events; ns for cpu-clock).
    freqs : sequence of int
        ``perf record -F`` values (samples per second).
    granularities : sequence of int
        Mean work units per call of the workload.
    runs : int
        perf record runs per (setting, granularity, threads).
    units : sequence of int
        Work units per function (the designed shares).
    event : str, optional
        Sampling event (default: :func:`default_event`).
    threads : sequence of int
        Threads of the workload (1: single-threaded; more: each runs its share of the units).

    Examples
    --------
    >>> CheckOptions(periods=(250_000,), runs=2).n_runs
    2
    """

    periods: tuple[int, ...] = (100_000, 1_000_000)
    freqs: tuple[int, ...] = ()
    granularities: tuple[int, ...] = (50,)
    runs: int = 3
    units: tuple[int, ...] = DEFAULT_UNITS
    event: str | None = None
    threads: tuple[int, ...] = (1,)

    def __post_init__(self) -> None:
        for name in ("periods", "freqs", "granularities", "units", "threads"):
            object.__setattr__(self, name, tuple(int(v) for v in getattr(self, name)))
        if not self.periods and not self.freqs:
            raise InputError("no sampling periods or frequencies to check")
        for name in ("periods", "freqs", "granularities", "threads"):
            bad = [v for v in getattr(self, name) if v < 1]
            if bad:
                raise InputError(f"{name} must be at least 1, got {bad[0]}")
        if not self.granularities:
            raise InputError("no granularities to check")
        if not self.threads or max(self.threads) > MAX_THREADS:
            raise InputError(f"threads must be 1 to {MAX_THREADS}, got {list(self.threads)}", param="threads")
        if self.runs < 1:
            raise InputError(f"runs must be at least 1, got {self.runs}", param="runs")
        _check_units(self.units, 1)

    @property
    def settings(self) -> list[tuple[str, int]]:
        """``("-c", period)`` and ``("-F", freq)`` pairs, in order."""
        return [("-c", p) for p in self.periods] + [("-F", f) for f in self.freqs]

    @property
    def n_runs(self) -> int:
        """The number of perf record runs in all."""
        return len(self.settings) * len(self.granularities) * len(self.threads) * self.runs


@result
class CoverageResult(Result):
    """All cases of :func:`validate_coverage`: one row per (setting, granularity, threads, run, function, method).

    Attributes
    ----------
    cases : pandas.DataFrame
        Columns ``function, truth, designed, share, se, low, high, samples, n, R_est,
        covered, setting, granularity, threads, run, method``.
    level : float
        Confidence level of the intervals.
    event : str
        The sampling event.

    Examples
    --------
    Sampling needs perf and runs the workload, so these lines are not run here.  Two runs
    sampled every 250 us of CPU time, 4 functions each:

    >>> res = validate_coverage(CheckOptions(periods=(250_000,), runs=2))  # doctest: +SKIP
    >>> res.event, len(res.cases)  # doctest: +SKIP
    ('cpu-clock', 8)
    >>> float(res.summary().loc[("all", "", "", "systematic"), "coverage"])  # doctest: +SKIP
    1.0
    """

    cases: pd.DataFrame
    level: float
    event: str

    def summary(self) -> pd.DataFrame:
        """Coverage and width per sampling setting, granularity, threads and interval method, plus overall rows.

        ``width/ideal`` is the median half-width of the intervals over the ideal one,
        ``z`` times the RMS of ``share - truth`` in the same cell (``z`` of the level): near 1
        an interval is as narrow as the actual error allows, above it wider than needed; the
        overall rows give the largest of the cells'.
        ``sd/binomial`` is the RMS of ``(share - truth) / sqrt(truth (1 - truth) / n)``:
        below 1 the binomial interval is wider than needed.
        """
        c = self.cases.assign(
            half=(self.cases["high"] - self.cases["low"]) / 2,
            err2=(self.cases["share"] - self.cases["truth"]) ** 2,
            abs_err=(self.cases["share"] - self.cases["truth"]).abs(),
            z2=(self.cases["share"] - self.cases["truth"]) ** 2
            / (self.cases["truth"] * (1 - self.cases["truth"]) / self.cases["n"]),
        )
        aggs: dict[str, Any] = {
            "cases": ("covered", "size"),
            "coverage": ("covered", "mean"),
            "samples": ("n", "mean"),
            "mean_abs_err": ("abs_err", "mean"),
            "z2": ("z2", "mean"),
            "half": ("half", "median"),
            "err2": ("err2", "mean"),
        }
        if "threads" not in c.columns:
            c["threads"] = 1
        t = c.groupby(["setting", "granularity", "threads", "method"], sort=False).agg(**aggs)
        overall = c.groupby("method", sort=False).agg(**aggs)
        overall.index = pd.MultiIndex.from_tuples([("all", "", "", m) for m in overall.index], names=t.index.names)
        with np.errstate(divide="ignore", invalid="ignore"):
            t["width/ideal"] = t.pop("half") / (float(ndtri(0.5 + self.level / 2)) * np.sqrt(t.pop("err2")))
        overall = overall.drop(columns=["half", "err2"])
        overall["width/ideal"] = t["width/ideal"].groupby(level="method", sort=False).max().to_numpy()
        t = pd.concat([t, overall])
        t["sd/binomial"] = np.sqrt(t.pop("z2"))
        return t

    def to_frame(self) -> pd.DataFrame:
        """Every case (a copy of :attr:`cases`)."""
        return self.cases.copy()

    def plot(self, ax: Any = None) -> Any:
        """Coverage per sampling setting and method against the nominal level; returns the Axes."""
        from hemkit.sampling.plots import plot_coverage

        return plot_coverage(self, ax=ax)


def validate_coverage(
    options: CheckOptions | None = None,
    *,
    level: float = 0.95,
    methods: Sequence[str] = ("systematic",),
    seed: SeedLike = 0,
    progress: ProgressLike = None,
) -> CoverageResult:
    """How often the true shares lie inside the ``level`` intervals, over sampling settings.

    Every (setting, granularity, threads, run) is one ``perf record`` run of the known-share
    workload, with its own interleaving of calls (a stream of ``seed`` named after the
    case); each interval method is applied to the same samples.

    Parameters
    ----------
    options : CheckOptions, optional
        The sampling settings, granularities, threads, runs and units to record (default
        ``CheckOptions()``: two periods, 3 runs each).
    level : float, default 0.95
        Confidence level of the intervals, in (0, 1).
    methods : sequence of str, default ("systematic",)
        The interval methods to check, of ``"systematic"``, ``"wilson"`` and ``"bound"``
        (:func:`hemkit.sampling.profile_shares`).
    seed : int, numpy.random.Generator or None
        Seeds the workload's interleaving of calls in every run.
    progress : bool or Progress, optional
        Report the perf record runs done (see :mod:`hemkit.core.progress`).

    Returns
    -------
    CoverageResult
        One row per (setting, granularity, threads, run, function, method) in ``cases``;
        ``summary()`` gives the coverage per setting and method.

    Raises
    ------
    InputError
        ``level`` outside (0, 1), no method or an unknown one.
    SetupError
        perf or a C compiler missing, or perf not allowed to sample here.
    MeasurementError
        A run of the workload failed or printed no timings, or none of its functions was
        sampled (a period too long).

    Examples
    --------
    >>> res = validate_coverage(CheckOptions(periods=(250_000,), runs=2))  # doctest: +SKIP
    >>> res.summary().loc[("all", "", "", "systematic"), "coverage"] >= 0.9  # doctest: +SKIP
    True
    """
    options = options or CheckOptions()
    if not 0 < level < 1:
        raise InputError(f"confidence level must be in (0, 1), got {level}")
    if isinstance(methods, str):  # one method by name, not its letters
        methods = (methods,)
    if len(methods) == 0:
        raise InputError(f"methods is empty: give at least one interval method ({', '.join(METHODS)})")
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise InputError(f"unknown interval method {bad[0]!r} (use {', '.join(METHODS)})")
    event = options.event or default_event()
    frames = []
    with as_progress(progress).task("perf record runs", total=options.n_runs) as task:
        for flag, value in options.settings:
            for g in options.granularities:
                for th in options.threads:
                    for r in range(options.runs):
                        kw = {"period": value} if flag == "-c" else {"freq": value}
                        names = [
                            f"{flag} {value}",
                            f"granularity {g}",
                            *([f"threads {th}"] if th > 1 else []),
                            f"run {r}",
                        ]
                        one = record_known_shares(
                            options.units, granularity=g, event=event, seed=child(seed, *names), threads=th, **kw
                        )
                        for method in methods:
                            t = coverage_table(one, level=level, method=method).reset_index()
                            t["setting"], t["granularity"], t["threads"] = f"{event} {flag} {value}", g, th
                            t["run"], t["method"] = r, method
                            frames.append(t)
                        threads = f", {th} threads" if th > 1 else ""
                        task.advance(info=f"{event} {flag} {value}, granularity {g}{threads}")
    return CoverageResult(cases=pd.concat(frames, ignore_index=True), level=level, event=event)
