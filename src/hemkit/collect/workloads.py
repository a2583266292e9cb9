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
    """The compiled microbenchmark."""
    return compile_c("hemkit.collect:c/ubench.c", flags=("-O2",))


def corunner_path() -> Path:
    """The compiled co-runner."""
    return compile_c("hemkit.collect:c/corunner.c", flags=("-O2",), libs=("-lm",))


def ubench_command(op: str = "iadd", level: str = "L2", iters: int = 1_000_000, *, jitter: float = 0.0) -> list[str]:
    """Command line of the microbenchmark (``op`` in :data:`OPS`, ``level`` in :data:`LEVELS` or KiB).

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
    """Command line of the interference co-runner (runs until stopped when ``seconds`` is 0)."""
    return [str(corunner_path()), str(int(max_mib)), f"{period_ms:g}", f"{seconds:g}"]
