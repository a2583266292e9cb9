"""The CAT-style microkernels (``c/cat_kernels.c``): build, check the CPU, run.

One binary holds every kernel of the three families; it is compiled on first use with
:func:`hemkit.workloads.compile_c`.  Each run executes one kernel loop and prints
``family=F kernel=K size=S iterations=N check=X``; given two FIFOs it enables perf's counters
only around the loop (``perf stat -D -1 --control fifo:CTL,ACK``), as PAPI_start/stop do in CAT.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from hemkit.errors import HemkitError
from hemkit.workloads import compile_c

SOURCE = "hemkit.derive:c/cat_kernels.c"
#: CPU flags each FLOPs width needs (its FMA variant included)
WIDTH_FLAGS = {"scalar": ("sse2", "fma"), "128": ("sse2", "fma"), "256": ("avx", "fma"), "512": ("avx512f",)}
#: default loop iterations per family (dcache: pointer-chase loads)
ITERATIONS = {"flops": 100_000, "branch": 1_000_000, "dcache": 1_000_000}


def kernel_binary() -> Path:
    """Path of the compiled kernels (built once, cached)."""
    return compile_c(SOURCE, flags=("-O1",))


def cpu_flags(path: str | Path = "/proc/cpuinfo") -> set[str]:
    """The CPU's feature flags (first ``flags`` line of /proc/cpuinfo)."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError as exc:
        raise HemkitError(f"{path}: cannot read CPU flags ({exc.strerror})") from exc
    raise HemkitError(f"{path}: no 'flags' line")


def available_widths(flags: set[str] | None = None) -> tuple[str, ...]:
    """FLOPs vector widths this CPU can run (both FMA and non-FMA kernels).

    Examples
    --------
    >>> available_widths({"sse2", "avx", "fma"})
    ('scalar', '128', '256')
    """
    flags = cpu_flags() if flags is None else flags
    return tuple(w for w, need in WIDTH_FLAGS.items() if all(f in flags for f in need))


def kernel_command(
    family: str, kernel: str, size: int | str, iterations: int, control: tuple[str, str] | None = None
) -> list[str]:
    """Command line running one kernel loop (optionally with perf control FIFOs)."""
    cmd = [str(kernel_binary()), family, kernel, str(size), str(int(iterations))]
    return cmd + list(control) if control else cmd


def run_kernel(family: str, kernel: str, size: int | str, iterations: int | None = None, timeout: float = 120) -> dict:
    """Run one kernel loop without perf; return what it printed as a dict.

    Examples
    --------
    >>> run_kernel("branch", "rnd", 2, 1000)["iterations"]   # doctest: +SKIP
    1000
    """
    iterations = iterations or ITERATIONS.get(family, 100_000)
    cmd = kernel_command(family, kernel, size, iterations)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise HemkitError(f"kernel {family}/{kernel}/{size} timed out after {timeout:g} s") from exc
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or [f"signal or exit code {proc.returncode}"])[-1]
        if proc.returncode < 0:
            why = f"killed by signal {-proc.returncode} (illegal instruction: CPU lacks this width?)"
        raise HemkitError(f"kernel {family}/{kernel}/{size} failed: {why}")
    out = dict(kv.split("=", 1) for kv in proc.stdout.split())
    return {
        "family": out["family"],
        "kernel": out["kernel"],
        "size": int(out["size"]),
        "iterations": int(out["iterations"]),
        "check": float(out["check"]),
    }
