"""Bundled workloads: C microbenchmarks (operation x memory level) and a co-runner.

``c/ubench.c`` runs one operation type (integer add/mul, float add/mul, branchy code)
over a footprint sized for one memory level (L1 16 KiB, L2 256 KiB, L3 4 MiB, DRAM
64 MiB), like the MUCH paper's IMUL_UL2 / FADD_MEM workloads; ``jitter`` makes each run
draw its own work size so that software events differ from run to run.  ``c/corunner.c``
streams over a working set whose size it redraws every period, for interference from
another core.  Both are compiled on first use (:func:`hemkit.external.compiler.compile_c`).
"""

from __future__ import annotations

from pathlib import Path

from hemkit.core.errors import InputError
from hemkit.external.compiler import compile_c

OPS = ("iadd", "imul", "fadd", "fmul", "branchy")
LEVELS = ("L1", "L2", "L3", "DRAM")


def ubench_path() -> Path:
    """The compiled microbenchmark.

    Compiled on first use with the C compiler (then taken from
    :func:`hemkit.external.compiler.cache_dir`); :func:`ubench_command` gives its arguments.

    Returns
    -------
    pathlib.Path
        The executable.

    Raises
    ------
    SetupError
        No C compiler, or compiling failed.

    Examples
    --------
    Compiling needs a C compiler, so these lines are not run here:

    >>> from hemkit.external.process import run
    >>> exe = ubench_path()  # doctest: +SKIP
    >>> exe.name.startswith("ubench-")  # doctest: +SKIP
    True
    >>> run([str(exe), "iadd", "L1", "1000", "0"]).returncode  # doctest: +SKIP
    0
    """
    return compile_c("hemkit.collect:c/ubench.c", flags=("-O2",))


def corunner_path() -> Path:
    """The compiled co-runner.

    Compiled on first use with the C compiler (then taken from
    :func:`hemkit.external.compiler.cache_dir`); :func:`corunner_command` gives its arguments.

    Returns
    -------
    pathlib.Path
        The executable.

    Raises
    ------
    SetupError
        No C compiler, or compiling failed.

    Examples
    --------
    Compiling needs a C compiler, so these lines are not run here.  Run it for 0.1 s with
    working sets of up to 8 MiB, redrawn every 10 ms:

    >>> from hemkit.external.process import run
    >>> exe = corunner_path()  # doctest: +SKIP
    >>> run([str(exe), "8", "10", "0.1"]).returncode  # doctest: +SKIP
    0
    """
    return compile_c("hemkit.collect:c/corunner.c", flags=("-O2",), libs=("-lm",))


def ubench_command(op: str = "iadd", level: str = "L2", iters: int = 1_000_000, *, jitter: float = 0.0) -> list[str]:
    """Command line of the microbenchmark (``op`` in :data:`OPS`, ``level`` in :data:`LEVELS` or KiB).

    The program is compiled on first use.

    Parameters
    ----------
    op : {"iadd", "imul", "fadd", "fmul", "branchy"}
        The operation repeated.
    level : {"L1", "L2", "L3", "DRAM"} or str of digits
        The footprint: a memory level (16 KiB, 256 KiB, 4 MiB, 64 MiB) or a size in KiB.
    iters : int, default 1000000
        Operations, at least 1, each on a pseudo-random element of the footprint.
    jitter : float, default 0.0
        In [0, 0.9]: each run draws its operations and footprint uniformly within
        ``1 +- jitter`` times the given ones (0: every run the same).

    Returns
    -------
    list of str
        The program and its arguments.

    Raises
    ------
    InputError
        An unknown operation or level, fewer than 1 operation, or ``jitter`` outside [0, 0.9].
    SetupError
        No C compiler, or compiling failed.

    Examples
    --------
    >>> ubench_command("fmul", "L3", 1000)[1:]  # doctest: +SKIP
    ['fmul', 'L3', '1000', '0']
    """
    if op not in OPS:
        raise InputError(f"unknown workload operation {op!r}; one of {', '.join(OPS)}")
    if level not in LEVELS and not str(level).isdigit():
        raise InputError(f"unknown memory level {level!r}; one of {', '.join(LEVELS)} or a size in KiB")
    if iters < 1 or not 0 <= jitter <= 0.9:
        raise InputError(f"iterations must be >= 1 and jitter in [0, 0.9] (got {iters}, {jitter})")
    return [str(ubench_path()), op, str(level), str(int(iters)), f"{jitter:g}"]


def corunner_command(max_mib: int = 64, period_ms: float = 50, seconds: float = 0) -> list[str]:
    """Command line of the interference co-runner (runs until stopped when ``seconds`` is 0).

    Every ``period_ms`` the co-runner draws a working-set size between 1 MiB and ``max_mib``
    (log-uniform) and streams over it.  The program is compiled on first use; the values are
    not checked here (the program takes a ``max_mib`` below 1 as 1).

    Parameters
    ----------
    max_mib : int, default 64
        Largest working set, in MiB.
    period_ms : float, default 50
        Milliseconds between new working-set sizes.
    seconds : float, default 0
        How long it runs; 0 (or less): until stopped.

    Returns
    -------
    list of str
        The program and its arguments.

    Raises
    ------
    SetupError
        No C compiler, or compiling failed.

    Examples
    --------
    Compiling needs a C compiler, so these lines are not run here.  A collection runs the
    co-runner beside every measured run:

    >>> from hemkit.collect import CollectOptions
    >>> cmd = corunner_command(max_mib=16, period_ms=20)  # doctest: +SKIP
    >>> cmd[1:]  # doctest: +SKIP
    ['16', '20', '0']
    >>> options = CollectOptions(corunner=cmd)  # doctest: +SKIP
    """
    return [str(corunner_path()), str(int(max_mib)), f"{period_ms:g}", f"{seconds:g}"]
