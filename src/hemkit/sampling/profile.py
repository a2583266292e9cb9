"""Shares of a real sampling profile by symbol, DSO, command or thread, with confidence intervals.

Each sample stands for its ``period`` of base events (Wen et al. 2021, Sec. 2.2: the
whole interval is charged to the instruction pointer at the interrupt).  A key's share is
its sum of periods over the total; with unequal periods (``perf record -F``) the interval
uses Kish's effective sample size ``(sum w)^2 / sum w^2``.

Keys are named as perf names them: a symbol together with its DSO (``memset`` of
``libc.so.6`` and ``memset`` of the binary are two rows; a name is qualified with its DSO
only where it occurs in several), a DSO by perf report's short name (``[kernel.kallsyms]``,
``libc.so.6``, the binary's file name, ``[unknown]``; the full path where two paths share a
file name), ``[unknown]`` where perf could not name the symbol.

Intervals: ``"systematic"`` (the default) estimates each share's sampling error from the
profile itself, as a systematic (periodic) sample: see :func:`systematic_variance`.
``"wilson"`` (binomial, which ignores that the samples are periodic and is many times too
wide where runs last several sampling intervals) and ``"bound"`` (the Poisson bound that
holds for any run lengths under the paper's model, see :mod:`hemkit.sampling.model`) stay
as options.  Every method gives each share its standard error (the ``se`` column), and its
standard error between two executions of the program (``se_exec``, see
:func:`execution_variance`), which is what comparisons of two profiles need.

The run ratio of each key is estimated as in the paper's Sec. 5.1.2: consecutive samples
of the same key form one run (runs shorter than an interval count as one).
"""

from __future__ import annotations

import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import Fix, HemkitWarning, InputError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.io.perf_script import (
    FIELDS,
    ScriptChunks,
    check_perf_data,
    dso_name,
    is_perf_data,
    perf_data_command,
    read_dlfilter_output,
    read_perf_script,
    recorded_program,
    warn_replaced,
)
from hemkit.sampling import model

METHODS = ("systematic", "wilson", "bound")
#: Power ``k`` of :func:`systematic_factor` (calibrated: BENCHMARKS.md, "Calibrated intervals").
IID_POWER = 32.0
#: Least variance ratio of :func:`systematic_factor`: error no run structure removes (calibrated likewise).
FLOOR = 0.01
#: Variance of a share between two executions over its estimate within one (:func:`execution_variance`;
#: chosen on A/A pairs of real programs: BENCHMARKS.md, "Two profiles compared").
EXECUTION_SCALE = 1.5
#: Keys with at most this many bursts (runs of consecutive samples in a thread) get at least the
#: binomial variance between executions (:func:`execution_variance`).
FEW_BURSTS = 5
#: DSO names of samples in the kernel (:func:`execution_terms`)
KERNEL = ("[kernel", "[guest.kernel")
#: What a profile can be keyed by: symbol (with its DSO), DSO, command, thread.
BY = ("sym", "dso", "comm", "tid")


def read_samples(path: str | os.PathLike[str], *, progress: ProgressLike = None) -> pd.DataFrame:
    """Samples of a ``perf.data`` file (decoded with ``perf script``) or of ``perf script`` text.

    A ``perf.data`` file is checked (a truncated one is refused) and decoded by ``perf
    script --dlfilter`` with :data:`DLFILTER` (compiled once), which hands over binary
    records; where perf cannot (before 5.14) or there is no C compiler, by ``perf script -G
    -F`` :data:`hemkit.io.perf_script.FIELDS`, its text parsed while perf writes it.  Both
    give the table of :func:`hemkit.io.perf_script.parse_perf_script`, in linear time and
    memory (about 120 bytes per sample).  perf's own complaints (an unreadable file) and a
    file without samples become an :class:`InputError` naming the file; lost samples, no
    samples of the program perf recorded (named in the file's header) and names that are
    not UTF-8 (read as U+FFFD) one :class:`HemkitWarning` each.  ``progress`` shows the
    decoding of large files (see :mod:`hemkit.core.progress`).

    Parameters
    ----------
    path : str or os.PathLike
        A ``perf.data`` file (told by its magic bytes) or a ``perf script`` text file.
    progress : bool or Progress, optional
        Report the reading or decoding (see :mod:`hemkit.core.progress`).

    Returns
    -------
    pandas.DataFrame
        One row per sample, columns ``comm, tid, time, event, period, ip, sym, dso``
        (:data:`hemkit.io.perf_script.COLUMNS`).

    Raises
    ------
    InputError
        A missing, unreadable, truncated or malformed file, a file without samples, or one
        perf cannot decode (the message names the file).

    Examples
    --------
    >>> samples = read_samples("perf.data")  # doctest: +SKIP
    >>> samples.columns.tolist()  # doctest: +SKIP
    ['comm', 'tid', 'time', 'event', 'period', 'ip', 'sym', 'dso']
    """
    p = os.fspath(path)
    bar = as_progress(progress)
    if not os.path.isfile(p) or not is_perf_data(p):
        with bar.task(f"reading {os.path.basename(p)}") as task:
            samples = read_perf_script(p)
            task.advance(info=f"{len(samples)} samples")
        return samples
    check_perf_data(p)
    with bar.task(f"perf script -i {os.path.basename(p)}") as task:
        samples = _decode_records(p)
        if samples is None:  # perf without --dlfilter (before 5.14), or no C compiler: perf's text
            samples = _decode(p)
        task.advance(info=f"{len(samples)} samples")
    command = perf_data_command(p)
    program = recorded_program(command) if command else None
    if program is not None and not (samples["comm"] == program).any():
        counts = samples["comm"].value_counts()
        seen = ", ".join(f"{name} {n}" for name, n in counts[counts > 0].head(5).items())
        warnings.warn(
            f"{p}: no samples of the program perf recorded, {program!r} (samples of: {seen}): did it run shorter "
            "than one sampling period, or start another program?",
            HemkitWarning,
            stacklevel=2,
        )
    return samples


#: The perf script filter that hands hemkit the samples as binary records (package data).
DLFILTER = "hemkit.sampling:c/samples_dlfilter.c"


def _perf_says(path: str, err: list[str], done: Any) -> None:
    """Judge perf script's exit and messages: an error when it decoded nothing, a warning for lost samples."""
    if done.returncode != 0:
        why = err[-1] if err else done.status()
        raise InputError(f"{path}: perf script cannot decode it: {why}")
    lost = [line.rstrip("!") for line in err if "lost" in line.lower()]
    if lost:
        warnings.warn(
            f"{path}: perf lost samples while recording ({'; '.join(lost)}): the shares are of the samples "
            "kept (record with a larger -m buffer or a longer period to lose none)",
            HemkitWarning,
            stacklevel=4,
        )


def _decode_records(path: str) -> pd.DataFrame | None:
    """Samples of a ``perf.data`` file through the ``--dlfilter`` of :data:`DLFILTER`; None where it cannot run."""
    from hemkit.core.errors import HemkitError
    from hemkit.external.compiler import compile_c
    from hemkit.external.perf import perf_script_records

    try:
        dlfilter = compile_c(DLFILTER, flags=("-O2", "-shared", "-fPIC"))
    except HemkitError:
        return None
    with tempfile.TemporaryDirectory(prefix="hemkit-script-") as tmp:
        records, names = os.path.join(tmp, "records.bin"), os.path.join(tmp, "names.bin")
        done = perf_script_records(path, dlfilter, records, names)
        err = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        if done.returncode != 0 and not os.path.exists(names) and any("dlfilter" in line for line in err):
            return None  # this perf has no --dlfilter
        _perf_says(path, err, done)
        if not os.path.exists(records) or os.path.getsize(records) == 0:
            raise InputError(
                f"{path}: no samples (perf recorded none: was the program shorter than one sampling period? "
                "record with a smaller -c or a larger -F)"
            )
        return read_dlfilter_output(records, names, source=path)


def _decode(path: str) -> pd.DataFrame:
    """Samples of a ``perf.data`` file, parsed while ``perf script`` writes them to a temporary file."""
    from hemkit.external.perf import perf_script_to_file

    with tempfile.TemporaryDirectory(prefix="hemkit-script-") as tmp:
        out = os.path.join(tmp, "script.txt")
        chunks = ScriptChunks(path)
        with perf_script_to_file(path, out) as job, open(out, "rb") as fh:
            while True:
                running = job.running()
                data = fh.read(chunks.chunk_bytes)
                if data:
                    chunks.feed(data)
                elif running:
                    time.sleep(0.01)
                else:
                    break
        done = job.completed
        assert done is not None
        err = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        if done.returncode != 0 or chunks.empty:
            why = err[-1] if err else ("no samples" if done.returncode == 0 else done.status())
            raise InputError(f"{path}: perf script cannot decode it with -F {FIELDS}: {why}")
        _perf_says(path, err, done)

        def whole() -> str | bytes:
            data = Path(out).read_bytes()
            if data.isascii():
                return data
            text = data.decode("utf-8", errors="replace")  # names as the binaries hold them
            warn_replaced(text, f"{path} (through perf script)")
            return text

        return chunks.result(whole)


def _sums(index: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """``np.bincount`` with weights, always float (also for no entries)."""
    return np.bincount(index, weights=weights, minlength=n).astype(float, copy=False)


def systematic_factor(r1, power: float | None = None, floor: float | None = None) -> np.ndarray:
    """Variance of a systematic sample over the binomial's, from the lag-1 variogram ratio ``r1``.

    ``r1`` is half the mean squared difference of successive samples' residuals over their
    variance (1 for independent samples, near 0 for long runs).  Where runs last several
    sampling intervals, every observed change of key is a boundary whose phase against the
    sampling grid is uniform, adding 1/12 sample^2 (Wen et al. 2021, Eq. 6 averaged over
    the fraction): a variance ratio of ``r1 / 6`` (Wolter's successive-difference estimator
    divided by 6).  Where samples look independent (``r1`` near 1) it is the binomial's.
    ``floor + r1 / 6 + (5 / 6) r1 ** power`` joins the two, at most 1; ``power`` (default
    :data:`IID_POWER`) and ``floor`` (default :data:`FLOOR`, the error that no run structure
    removes on real machines: timer and CPU-time accounting jitter) are calibrated on real
    profiles (BENCHMARKS.md).  Ratios above 1 (samples alternating more than chance) give 1.

    Examples
    --------
    >>> systematic_factor([0.0, 0.3, 1.0, 1.4], floor=0.0).round(3).tolist()
    [0.0, 0.05, 1.0, 1.0]
    """
    r = np.clip(np.asarray(r1, dtype=float), 0.0, 1.0)
    k = IID_POWER if power is None else power
    return np.minimum((FLOOR if floor is None else floor) + r / 6 + (5 / 6) * r**k, 1.0)


def systematic_variance(
    codes: np.ndarray,
    weights: np.ndarray,
    threads: np.ndarray | None = None,
    n_keys: int | None = None,
    *,
    power: float | None = None,
    floor: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Variance of every key's share in a periodic (systematic) sample, estimated from the sample.

    The share ``s_k = sum(w [key == k]) / sum(w)`` has the residuals
    ``a_i = w_i ([key_i == k] - s_k) / sum(w)``; independent samples would give it the
    variance ``sum(a_i^2)`` (binomial, Kish for unequal ``w``).  Periodic samples do far
    better where a key's runs span several intervals: per thread, the lag-1 variogram ratio
    ``r1 = mean((a_{i+1} - a_i)^2) / (2 mean(a_i^2))`` of the residuals in time order,
    raised by its own relative error ``1 / sqrt(changes)`` (``changes``: the samples where
    the key starts or stops, so that a few chance repeats do not pass for runs), scales
    that variance by :func:`systematic_factor` (threads are sampled on their own clocks, so
    their variances add).  A key's variance is at least one run's boundary
    uncertainty (1/6 of a mean sample^2).

    Parameters
    ----------
    codes : array of int
        Key of every sample (0 .. n_keys - 1), in time order within each thread.
    weights : array of float
        Positive weight (period) of every sample.
    threads : array, optional
        Thread of every sample; each thread's samples contiguous (default: one thread).
    n_keys : int, optional
        Number of keys (default: ``codes.max() + 1``).
    power, floor : float, optional
        See :func:`systematic_factor` (defaults :data:`IID_POWER`, :data:`FLOOR`; a floor of
        0 gives the model alone, as for noise-free simulated sampling).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Per key: the estimated variance of the share, and the independent-samples variance.

    Examples
    --------
    >>> long = np.repeat([0, 1, 0, 1], 250)  # runs of 250 samples
    >>> var, iid = systematic_variance(long, np.ones(1000))
    >>> bool(var[0] < iid[0] / 50)
    True
    >>> rng = np.random.default_rng(0)
    >>> var, iid = systematic_variance(rng.integers(0, 2, 10_000), np.ones(10_000))
    >>> bool(0.8 < var[0] / iid[0] <= 1)
    True
    """
    c = np.asarray(codes, dtype=np.int64)
    w = np.asarray(weights, dtype=float)
    k = int(n_keys if n_keys is not None else (c.max() + 1 if c.size else 0))
    if threads is None:
        t = np.zeros(c.size, dtype=np.int64)
    else:
        t = pd.factorize(np.asarray(threads), sort=False)[0].astype(np.int64)
    n_thr = int(t.max()) + 1 if t.size else 0
    total = w.sum()
    s = np.bincount(c, weights=w, minlength=k) / total
    w2 = w * w
    # per thread: samples, sum of w^2, successive pairs and their (w_{i+1} - w_i)^2
    m_t = np.bincount(t, minlength=n_thr).astype(float)
    w2_t = np.bincount(t, weights=w2, minlength=n_thr)
    same_t = t[1:] == t[:-1]
    dv = (w[1:] - w[:-1])[same_t]
    pair_t = t[1:][same_t]
    v2_t = np.bincount(pair_t, weights=dv * dv, minlength=n_thr)
    pairs_t = np.maximum(m_t - 1, 1.0)

    def factor(S: np.ndarray, D: np.ndarray, m: np.ndarray, pairs: np.ndarray, changes: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            r1 = (D / pairs) / (S / m) * (1 + 1 / np.sqrt(np.maximum(changes, 1)))
        return np.where((m >= 2) & (S > 0), systematic_factor(np.nan_to_num(r1, nan=1.0), power, floor), 1.0)

    # threads where a key never occurs: residuals -s_k w_i only
    g_w = factor(w2_t, v2_t / 2, m_t, pairs_t, np.full(n_thr, np.inf))
    absent_all = np.sum(w2_t * g_w)
    # (thread, key) groups that occur
    group, first = np.unique(t * k + c, return_inverse=True)
    gt, gk = group // k, group % k
    a1 = np.bincount(first, weights=w2, minlength=group.size)
    a_s = s[gk]
    S = a1 * (1 - 2 * a_s) + a_s**2 * w2_t[gt]
    # successive pairs within a thread: u = w_{i+1}[c_{i+1} = k] - w_i [c_i = k], v = w_{i+1} - w_i
    i0 = np.flatnonzero(same_t)
    g0, g1 = first[i0], first[i0 + 1]
    wa, wb = w[i0], w[i0 + 1]
    v = wb - wa
    diff = g0 != g1
    u2 = _sums(g1[diff], wb[diff] ** 2, group.size) + _sums(g0[diff], wa[diff] ** 2, group.size)
    u2 += _sums(g0[~diff], v[~diff] ** 2, group.size)
    uv = _sums(g1[diff], (wb * v)[diff], group.size) - _sums(g0[diff], (wa * v)[diff], group.size)
    uv += _sums(g0[~diff], v[~diff] ** 2, group.size)
    D = (u2 - 2 * a_s * uv + a_s**2 * v2_t[gt]) / 2
    changes = _sums(g1[diff], np.ones(int(diff.sum())), group.size) + _sums(
        g0[diff], np.ones(int(diff.sum())), group.size
    )
    present = S * factor(S, D, m_t[gt], pairs_t[gt], changes)
    var = np.bincount(gk, weights=present, minlength=k)
    var += s**2 * (absent_all - np.bincount(gk, weights=(w2_t * g_w)[gt], minlength=k))
    iid = np.bincount(gk, weights=S, minlength=k) + s**2 * (w2.sum() - np.bincount(gk, weights=w2_t[gt], minlength=k))
    least = (np.bincount(c, weights=w2, minlength=k) / np.maximum(np.bincount(c, minlength=k), 1)) / 6
    return np.maximum(var, least) / total**2, iid / total**2


def execution_terms(
    codes: np.ndarray,
    weights: np.ndarray,
    threads: np.ndarray | None = None,
    n_keys: int | None = None,
    machine: np.ndarray | None = None,
) -> np.ndarray:
    """Variance every key's share gains between executions from how threads and the kernel ran.

    :func:`systematic_variance` takes each thread's CPU time as fixed and every run of a key as
    the program's own.  Between two executions neither holds:

    - *threads*: how much CPU time each thread gets varies; each thread's share of the samples
      is taken as multinomial, which moves a key's share by its spread over the threads:
      ``sum_t pi_t (c_tk - s_k)^2 / n_eff`` (``pi_t`` the thread's share of the weight,
      ``c_tk`` the key's share within the thread; 0 for one thread, or where the key is spread
      over the threads alike);
    - *the machine*: samples in the kernel (``machine``: interrupts, page faults, scheduling)
      are events of the machine as much as of the program; they count as independent draws
      (their binomial, Kish, variance), for the kernel's own keys and, through the total, for
      every other share.

    Parameters
    ----------
    codes, weights, threads, n_keys
        As :func:`systematic_variance` (samples in time order within each thread).
    machine : array of bool, optional
        Samples in the kernel (default: none).

    Returns
    -------
    numpy.ndarray
        Per key, the variance to add (share units).

    Examples
    --------
    One thread of two takes 10 % or 20 % of the samples in different executions: a key that
    lives in it gains about the binomial variance of the thread's share:

    >>> codes = np.array([0] * 900 + [1] * 100)
    >>> extra = execution_terms(codes, np.ones(1000), threads=np.array([1] * 900 + [2] * 100))
    >>> round(float(extra[1] / (0.1 * 0.9 / 1000)), 3)
    1.0
    """
    c = np.asarray(codes, dtype=np.int64)
    w = np.asarray(weights, dtype=float)
    k = int(n_keys if n_keys is not None else (c.max() + 1 if c.size else 0))
    if not c.size:
        return np.zeros(k)
    total = w.sum()
    n_eff = total**2 / np.sum(w * w)
    s = np.bincount(c, weights=w, minlength=k) / total
    extra = np.zeros(k)
    if threads is not None:
        t = pd.factorize(np.asarray(threads), sort=False)[0].astype(np.int64)
        if t.max() > 0:
            w_t = np.bincount(t, weights=w)
            group, first = np.unique(t * k + c, return_inverse=True)
            w_tk = np.bincount(first, weights=w, minlength=group.size)
            within = np.bincount(group % k, weights=w_tk**2 / w_t[group // k], minlength=k) / total
            extra += np.maximum(within - s**2, 0.0) / n_eff
    if machine is not None:
        m = np.asarray(machine, dtype=bool)
        if m.any():
            w2 = np.where(m, w * w, 0.0)
            extra += ((1 - 2 * s) * np.bincount(c, weights=w2, minlength=k) + s**2 * w2.sum()) / total**2
    return extra


def execution_variance(
    var: np.ndarray,
    binomial: np.ndarray,
    bursts: np.ndarray,
    *,
    extra: np.ndarray | float = 0.0,
    scale: float | None = None,
    few: int | None = None,
) -> np.ndarray:
    """Variance of every key's share as another execution of the program would differ.

    ``var`` (the share's variance within one execution, e.g. :func:`systematic_variance`)
    models only where the sampling grid falls, as if the program did the same thing in every
    execution.  Two executions differ more:

    - whether a rare event happens at all (an interrupt, a page-fault path, a kernel function
      hit once) differs from execution to execution.  A key seen in a few *bursts* (runs of
      consecutive samples within a thread; at most ``few``, default :data:`FEW_BURSTS`) tells
      little about another execution, where its bursts may or may not happen: its variance is
      at least the binomial's, ``binomial`` (``share (1 - share) / n_eff``; one burst of 2
      samples: 1/6 sample^2 within the execution, about 2 between two);
    - how much CPU time each thread gets, and the kernel's samples: ``extra``, from
      :func:`execution_terms`, is added;
    - every key's share varies between executions more than the sampling grid alone makes it
      vary (load, caches, timer and CPU-time accounting): the variance is multiplied by
      ``scale`` (default :data:`EXECUTION_SCALE`).

    The floor and the scale were chosen on A/A pairs of ``sort``, ``gzip``, ``find`` and a
    Python loop, and checked on ``xz``, ``bzip2``, ``grep -r`` and ``awk``; the thread and
    kernel terms were added for what still flagged on ``zstd`` and ``node`` and checked on
    programs recorded after that; the bundled known-share workload's 3-point shift stays
    flagged: BENCHMARKS.md, "Two profiles compared".  Keys with many bursts in one thread of
    user code keep their calibrated (systematic) variance, scaled.

    Parameters
    ----------
    var, binomial : array of float
        Per key: the variance of the share within one execution, and its binomial variance
        ``share (1 - share) / n_eff``.
    bursts : array of int
        Per key: its bursts (summed over threads).
    extra : array of float, optional
        Per key: variance to add before scaling (:func:`execution_terms`).
    scale, few : optional
        Defaults :data:`EXECUTION_SCALE`, :data:`FEW_BURSTS`.

    Examples
    --------
    A kernel function seen in one burst of 2 samples of 1 000 (within the execution: 1/6
    sample^2), and a function at 30 % in 150 bursts (its systematic variance kept, scaled):

    >>> share = np.array([0.002, 0.3])
    >>> v = execution_variance(np.array([1 / 6, 20.0]) / 1e6, share * (1 - share) / 1000, np.array([1, 150]))
    >>> (v * 1e6).round(2).tolist()
    [2.99, 30.0]
    """
    k = EXECUTION_SCALE if scale is None else scale
    b = FEW_BURSTS if few is None else few
    v = np.asarray(var, dtype=float)
    return k * (np.where(np.asarray(bursts) <= b, np.maximum(v, np.asarray(binomial, dtype=float)), v) + extra)


@result
class SamplingProfile(Result):
    """Shares of one profile by ``by``, with their confidence intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per key (index named ``by``), largest share first: ``samples``,
        ``period`` (base events), ``share``, ``se`` (its standard error under ``method``),
        ``low``, ``high``, ``runs`` (bursts: runs of consecutive samples of the key within a
        thread), ``R_est`` (samples per run), ``se_exec`` (the standard error between two
        executions, :func:`execution_variance`: what ``sampling diff`` compares with);
        by symbol also ``dso`` (short name), by DSO also ``path`` (as perf printed it).
    n_samples : int
        Samples profiled (after the ``comm`` / ``event`` selection).
    n_eff : float
        Effective number of samples (equal to ``n_samples`` for equal periods).
    level : float
        Confidence level of the intervals.
    method : str
        ``"systematic"``, ``"wilson"`` or ``"bound"``.
    by : str
        ``"sym"``, ``"dso"``, ``"comm"`` or ``"tid"``.
    event : str
        The sampling event (``""`` when perf did not print it).
    source : str
        Where the samples came from (a file name).

    Examples
    --------
    A program that spends 5 %, 30 % and 65 % of its time in three functions, called in turn,
    sampled every millisecond of CPU time (``profile_shares("perf.data")`` reads a real
    profile the same way):

    >>> import numpy as np, pandas as pd
    >>> seq = (["main"] * 5 + ["parse"] * 30 + ["solve"] * 65) * 10
    >>> samples = pd.DataFrame({"sym": seq, "dso": "/usr/bin/app", "period": 1_000_000, "comm": "app",
    ...                         "event": "cpu-clock", "tid": 1, "time": np.arange(len(seq))})
    >>> prof = profile_shares(samples)
    >>> prof.n_samples, prof.by, prof.event, prof.method
    (1000, 'sym', 'cpu-clock', 'systematic')
    >>> print(prof.summary(top=2)[["samples", "share", "low", "high"]].round(3).reset_index().to_string(index=False))
      sym  samples  share   low  high
    solve      650   0.65 0.646 0.654
    parse      300   0.30 0.296 0.304
    """

    table: pd.DataFrame
    n_samples: int
    n_eff: float
    level: float
    method: str
    by: str
    event: str
    source: str

    def summary(self, top: int | None = None) -> pd.DataFrame:
        """The share table (optionally only the ``top`` rows)."""
        return self.table if top is None else self.table.head(top)

    def to_frame(self) -> pd.DataFrame:
        """The full share table with the key as its first column."""
        return self.table.reset_index()

    def plot(self, ax: Any = None, top: int = 20) -> Any:
        """Bars of the ``top`` largest shares with their intervals; returns the Axes."""
        from hemkit.sampling.plots import plot_shares

        return plot_shares(self, ax=ax, top=top)


def _select(samples: pd.DataFrame, comm: str | None, event: str | None, source: str) -> tuple[pd.DataFrame, str]:
    df = samples
    if comm is not None:
        df = df[df["comm"] == comm]
        if df.empty:
            names = ", ".join(map(str, samples["comm"].unique()[:10]))
            raise InputError(f"{source}: no samples of command {comm!r} (commands: {names})")
    events = [str(e) for e in pd.unique(df["event"])] if "event" in df.columns else []
    if event is not None:
        df = df[df["event"] == event] if events else df.iloc[:0]
        if df.empty:
            raise InputError(f"{source}: no samples of event {event!r} (events: {', '.join(events) or 'not printed'})")
    elif len(events) > 1:  # shares of different events do not add up: profile one, and say so
        counts = df["event"].astype(str).value_counts(sort=False).reindex(events)
        chosen = str(counts.idxmax())  # the most samples; the first of a tie
        said = ", ".join(f"{e} {n}" for e, n in counts.items())
        warnings.warn(
            HemkitWarning(
                f"{source}: samples of {len(events)} events ({said}); profiled {chosen}, the one with the most samples",
                fix=Fix("event", next(e for e in events if e != chosen)),
            ),
            stacklevel=3,
        )
        return df[df["event"] == chosen], chosen
    return df, (event if event is not None else events[0] if events else "")


def _factorize(column: pd.Series, as_str: bool) -> tuple[np.ndarray, np.ndarray]:
    """Codes and distinct values (in order of appearance) of a column, categorical or not."""
    codes, uniq = pd.factorize(column)
    values = np.asarray(uniq.astype(str) if as_str else np.asarray(uniq))
    return codes, values


def _key_codes(df: pd.DataFrame, by: str, has_dso: bool) -> tuple[np.ndarray, pd.DataFrame]:
    """Per sample the code of its key, and the distinct keys (in order of appearance).

    By symbol with DSO names, a key is the pair (symbol, DSO): the two columns are
    factorized apart and their codes combined, which keeps categorical columns (as
    :func:`hemkit.io.perf_script.parse_perf_script` gives them) from being spelled out.
    """
    if by == "sym" and has_dso:
        sym_codes, syms = _factorize(df["sym"], as_str=True)
        dso_codes, dsos = _factorize(df["dso"], as_str=True)
        codes, first = pd.factorize(sym_codes.astype(np.int64) * len(dsos) + dso_codes)
        first = np.asarray(first)
        keys = pd.DataFrame({"sym": syms[first // len(dsos)], "dso": dsos[first % len(dsos)]}, dtype=str)
        return codes, keys
    codes, values = _factorize(df[by], as_str=by in ("sym", "dso") or isinstance(df[by].dtype, pd.CategoricalDtype))
    return codes, pd.DataFrame({by: values})


def key_labels(keys: pd.DataFrame, by: str) -> tuple[pd.Index, dict[str, Any]]:
    """Row names of the distinct keys, and the extra columns that describe them.

    By DSO: the short name, the path where two paths share one; by symbol (with a ``dso``
    column): the name, ``sym (dso)`` where the symbol is in several DSOs.
    """
    if by == "dso":
        short = keys["dso"].map(dso_name)
        clash = short.duplicated(keep=False)
        return pd.Index(short.where(~clash, keys["dso"]), name="dso"), {"path": keys["dso"].to_numpy()}
    if by == "sym" and "dso" in keys.columns:
        short = keys["dso"].map(dso_name)
        clash = keys["sym"].duplicated(keep=False)
        names = keys["sym"].where(~clash, keys["sym"] + " (" + short + ")")
        return pd.Index(names, name="sym"), {"dso": short.to_numpy()}
    return pd.Index(keys[by], name=by), {}


def profile_shares(
    samples: pd.DataFrame | str | os.PathLike[str],
    *,
    by: str = "sym",
    level: float = 0.95,
    method: str = "systematic",
    comm: str | None = None,
    event: str | None = None,
) -> SamplingProfile:
    """Per-``by`` shares of the sampled base events with ``level`` confidence intervals.

    Parameters
    ----------
    samples : pandas.DataFrame or path
        From :func:`read_samples` (columns of :data:`hemkit.io.perf_script.COLUMNS`; its
        ``attrs["source"]`` names it in messages), or a ``perf.data`` / ``perf script``
        text file to read with it.
    by : {"sym", "dso", "comm", "tid"}
        Symbol (with its DSO), DSO, command or thread.
    level : float
        Confidence level, in (0, 1).
    method : {"systematic", "wilson", "bound"}
        ``"systematic"``: each share's error estimated from the samples in time order per
        thread (:func:`systematic_variance`), a Wilson interval on the effective number of
        samples it implies; ``"wilson"``: binomial; ``"bound"``: Poisson bound.
    comm, event : str, optional
        Keep only samples of this command / event.  Of samples of several events (whose
        shares do not add up), without ``event`` the most sampled one is profiled, with a
        :class:`HemkitWarning` naming the others.

    Raises
    ------
    InputError
        Bad parameters, no samples left, or ``by="dso"`` on text without DSO names (each
        naming the source and the culprit).

    Examples
    --------
    >>> df = pd.DataFrame({"sym": ["f"] * 30 + ["g"] * 70, "dso": "/bin/x", "period": 1000,
    ...                    "comm": "x", "event": "cpu-clock"})
    >>> p = profile_shares(df, method="wilson")
    >>> p.table.loc["f", ["share", "low", "high"]].round(3).tolist()
    [0.3, 0.219, 0.396]
    >>> sys = profile_shares(df)  # one run of f, then one of g: far less error than binomial
    >>> bool(sys.table.loc["f", "se"] < p.table.loc["f", "se"] / 5)
    True
    >>> profile_shares(df, by="dso").table.index.tolist()
    ['x']
    """
    if method not in METHODS:
        raise InputError(f"unknown interval method {method!r} (use {', '.join(METHODS)})")
    if by not in BY:
        raise InputError(f"cannot profile by {by!r} (use {', '.join(BY)})")
    if not 0 < level < 1:
        raise InputError(f"confidence level must be in (0, 1), got {level}")
    if isinstance(samples, pd.DataFrame):
        source = str(samples.attrs.get("source", "samples"))
    else:
        source = os.fspath(samples)
        samples = read_samples(source)
    missing = [c for c in (by, "period") if c not in samples.columns]
    if missing:
        raise InputError(f"{source}: no column {missing[0]!r} (columns: {', '.join(map(str, samples.columns))})")
    df, ev = _select(samples, comm, event, source)
    if df.empty:
        raise InputError(f"{source}: no samples to profile")
    has_dso = "dso" in df.columns and not (df["dso"] == "").all()
    if by == "dso" and not has_dso:
        raise InputError(f"{source}: the samples carry no DSO names; decode perf.data with 'perf script -F {FIELDS}'")
    w = pd.to_numeric(df["period"], errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(w) & (w > 0)):
        raise InputError(f"{source}: samples with a period that is not a positive number")
    codes, keys = _key_codes(df, by, has_dso)
    index, extra = key_labels(keys, by)
    total = w.sum()
    n_eff = total**2 / np.sum(w**2)
    period = np.bincount(codes, weights=w, minlength=len(keys))
    whole = np.all(w == np.round(w)) and period.max() < 2.0**62
    period_col = period.round().astype(np.int64) if whole else period
    share = period / total
    # time order per thread: the runs of consecutive samples of one key (Sec. 5.1.2) and the
    # successive differences of the systematic variance
    if {"time", "tid"} <= set(df.columns):
        order = np.lexsort((df["time"].to_numpy(), df["tid"].to_numpy()))
        tids: np.ndarray | None = df["tid"].to_numpy()[order]
    else:
        order, tids = np.arange(len(df)), None
    seq = codes[order]
    if method == "systematic":
        var, _ = systematic_variance(seq, w[order], tids, len(keys))
        se = np.sqrt(var)
        with np.errstate(invalid="ignore", divide="ignore"):
            n_key = np.where(var > 0, share * (1 - share) / var, np.inf)
        finite = np.isfinite(n_key) & (n_key > 0)
        lo_w, hi_w = model.wilson_interval(share * n_key, n_key, level)
        low, high = np.where(finite, lo_w, share), np.where(finite, hi_w, share)
    elif method == "wilson":
        se = np.sqrt(share * (1 - share) / n_eff)
        low, high = model.wilson_interval(share * n_eff, n_eff, level)
    else:
        se = np.sqrt(share / n_eff)
        low, high = model.bound_interval(share * n_eff, n_eff, level)
    new_run = np.concatenate([[True], seq[1:] != seq[:-1]])  # a run (burst) ends where its thread does
    if tids is not None:
        new_run[1:] |= tids[1:] != tids[:-1]
    runs = np.bincount(seq[new_run], minlength=len(keys))
    count = np.bincount(codes, minlength=len(keys))
    # the share's error between two executions (what sampling diff compares with)
    machine = df["dso"].astype(str).str.startswith(KERNEL).to_numpy()[order] if has_dso else None
    between = execution_terms(seq, w[order], tids, len(keys), machine)
    se_exec = np.sqrt(execution_variance(se**2, share * (1 - share) / n_eff, runs, extra=between))
    table = pd.DataFrame(
        {
            **extra,
            "samples": count,
            "period": period_col,
            "share": share,
            "se": se,
            "low": low,
            "high": high,
            "runs": runs,
        },
        index=index,
    )
    table["R_est"] = table["samples"] / table["runs"]
    table["se_exec"] = se_exec
    table = table.sort_values(["share", "samples"], ascending=False, kind="stable")
    return SamplingProfile(
        table=table,
        n_samples=len(df),
        n_eff=float(n_eff),
        level=level,
        method=method,
        by=by,
        event=ev,
        source=source,
    )
