"""The CAT-style microkernels (``c/cat_kernels.c``): build, check the CPU, run.

One binary holds every kernel of the three families; it is compiled on first use with
:func:`hemkit.external.compiler.compile_c`.  Each run executes one kernel loop and prints
``family=F kernel=K size=S iterations=N seed=S check=X``; given two FIFOs it enables perf's
counters only around the loop (``perf stat -D -1 --control fifo:CTL,ACK``), as PAPI_start/stop
do in CAT, and the measured loop is one function ``hk_*`` whose counts valgrind's cachegrind
reports on their own (:func:`kernel_function`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hemkit.core.errors import InputError, MeasurementError, SetupError
from hemkit.external.compiler import compile_c
from hemkit.external.process import run

SOURCE = "hemkit.derive:c/cat_kernels.c"
#: CPU flags each FLOPs width needs (its FMA variant included)
WIDTH_FLAGS = {"scalar": ("sse2", "fma"), "128": ("sse2", "fma"), "256": ("avx", "fma"), "512": ("avx512f",)}


def kernel_binary() -> Path:
    """Path of the compiled kernels (built once, cached).

    Examples
    --------
    >>> kernel_binary().exists()    # doctest: +SKIP
    True
    """
    return compile_c(SOURCE, flags=("-O1",))


@dataclass(frozen=True)
class CpuIdentity:
    """Who made this CPU and which family/model it is (from /proc/cpuinfo).

    Examples
    --------
    >>> CpuIdentity("AuthenticAMD", 26, 2, "AMD EPYC").line()
    'AuthenticAMD family 26 (0x1a) model 2 (AMD EPYC)'
    """

    vendor: str
    family: int
    model: int
    name: str = ""

    def line(self) -> str:
        """``AuthenticAMD family 25 (0x19) model 1 (AMD EPYC)``."""
        text = f"{self.vendor} family {self.family} ({self.family:#x}) model {self.model}"
        return text + (f" ({self.name})" if self.name else "")


def _cpuinfo_fields(path: str | Path) -> dict[str, str]:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise SetupError(f"{path}: cannot read the CPU description ({exc.strerror})") from None
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break  # the first processor is enough
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return fields


def cpu_identity(path: str | Path = "/proc/cpuinfo") -> CpuIdentity:
    """Vendor, family, model and name of the first CPU in /proc/cpuinfo.

    Examples
    --------
    >>> cpu_identity().vendor in ("AuthenticAMD", "GenuineIntel", "unknown")   # doctest: +SKIP
    True
    """
    f = _cpuinfo_fields(path)

    def num(key: str) -> int:
        try:
            return int(f.get(key, "-1"), 0)
        except ValueError:
            return -1

    return CpuIdentity(f.get("vendor_id", "unknown"), num("cpu family"), num("model"), f.get("model name", ""))


def cpu_flags(path: str | Path = "/proc/cpuinfo") -> set[str]:
    """The CPU's feature flags (first ``flags`` line of /proc/cpuinfo).

    Examples
    --------
    >>> "sse2" in cpu_flags()     # doctest: +SKIP
    True
    """
    f = _cpuinfo_fields(path)
    if "flags" not in f:
        raise SetupError(f"{path}: no 'flags' line")
    return set(f["flags"].split())


def available_widths(flags: set[str] | None = None) -> tuple[str, ...]:
    """FLOPs vector widths this CPU can run (both FMA and non-FMA kernels).

    Examples
    --------
    >>> available_widths({"sse2", "avx", "fma"})
    ('scalar', '128', '256')
    """
    flags = cpu_flags() if flags is None else flags
    return tuple(w for w, need in WIDTH_FLAGS.items() if all(f in flags for f in need))


def kernel_function(family: str, kernel: str, size: int | str) -> str:
    """Name of the C function that is the measured loop (what valgrind's counts are kept for).

    Examples
    --------
    >>> kernel_function("branch", "rnd", 4), kernel_function("dcache", "l1", 8192)
    ('hk_rnd_4', 'hk_chase')
    """
    return "hk_chase" if family == "dcache" else f"hk_{kernel}_{size}"


def kernel_command(
    family: str,
    kernel: str,
    size: int | str,
    iterations: int,
    seed: int = 0,
    control: Sequence[str] | None = None,
) -> list[str]:
    """Command line running one kernel loop (optionally with perf control FIFOs).

    Examples
    --------
    >>> kernel_command("branch", "nt", 1, 1024, seed=3)[1:]    # doctest: +SKIP
    ['branch', 'nt', '1', '1024', '3']
    """
    cmd = [str(kernel_binary()), family, kernel, str(size), str(int(iterations)), str(int(seed))]
    return cmd + list(control) if control else cmd


def parse_kernel_output(stdout: str, what: str) -> dict[str, float | int | str]:
    """The ``family=F kernel=K size=S iterations=N seed=S check=X`` line a kernel prints.

    Examples
    --------
    >>> parse_kernel_output("family=branch kernel=nt size=1 iterations=8 seed=0 check=0.5\\n", "nt/1")["check"]
    0.5
    """
    try:
        out = dict(kv.split("=", 1) for kv in stdout.split())
        return {
            "family": out["family"],
            "kernel": out["kernel"],
            "size": int(out["size"]),
            "iterations": int(out["iterations"]),
            "seed": int(out["seed"]),
            "check": float(out["check"]),
        }
    except (ValueError, KeyError):
        raise MeasurementError(f"kernel {what} printed {stdout.strip()[:80]!r}, not its summary line") from None


def run_kernel(family: str, kernel: str, size: int | str, iterations: int, seed: int = 0) -> dict:
    """Run one kernel loop without perf or valgrind; return what it printed as a dict.

    Raises
    ------
    MeasurementError
        The kernel failed or was killed (an illegal instruction: the CPU lacks that width).

    Examples
    --------
    >>> run_kernel("branch", "rnd", 2, 1024)["check"]   # doctest: +SKIP
    0.5
    """
    if iterations < 1:
        raise InputError(f"iterations must be at least 1, got {iterations}", param="iterations")
    proc = run(kernel_command(family, kernel, size, iterations, seed), timeout=300, what=f"kernel {kernel}")
    where = f"{family}/{kernel}/{size}"
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or [proc.status()])[-1]
        if proc.returncode < 0:
            why = f"{proc.status()} (an illegal instruction: the CPU lacks this width?)"
        raise MeasurementError(f"kernel {where} failed: {why}")
    return parse_kernel_output(proc.stdout, where)


__all__ = [
    "CpuIdentity",
    "available_widths",
    "cpu_flags",
    "cpu_identity",
    "kernel_binary",
    "kernel_command",
    "kernel_function",
    "parse_kernel_output",
    "run_kernel",
]
