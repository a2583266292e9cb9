"""CAT-style kernels: the binary holds exactly the intended instructions, and every kernel runs as modelled."""

import re
import shutil

import numpy as np
import pytest

from hemkit.core.errors import MeasurementError, SetupError
from hemkit.derive.families import (
    BRANCH_BODIES,
    BRANCH_COPIES,
    BRANCH_INSTRUCTIONS,
    WIDTHS,
    CacheLevel,
    branch_family,
    cache_levels,
    dcache_buffer_sizes,
    dcache_family,
    flops_family,
)
from hemkit.derive.kernels import available_widths, cpu_flags, cpu_identity, kernel_binary, kernel_command, run_kernel
from hemkit.external.process import run

FP_ARITH = re.compile(r"^v?(mul|add|sub|div|sqrt|fn?m(add|sub)\d*)(ss|sd|ps|pd)$")


def _disasm(symbol):
    if shutil.which("objdump") is None:
        pytest.skip("objdump not installed")
    out = run(["objdump", "-d", "--no-show-raw-insn", f"--disassemble={symbol}", str(kernel_binary())]).stdout
    body = out.split(f"<{symbol}>:", 1)[1]
    ins = []
    for line in body.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0].strip().endswith(":"):
            ins.append(parts[1].split())
        elif line.strip() == "" and ins:
            break
    return ins


def _expected(kernel):
    prec, width, *fma = kernel.split("_")
    t = {"sp": "s", "dp": "d"}[prec]
    suffix = ("s" + t) if width == "scalar" else ("p" + t)
    reg = {"scalar": "xmm", "128": "xmm", "256": "ymm", "512": "zmm"}[width]
    vex = "v" if width in ("256", "512") else ""
    if fma:
        return {f"vfmadd231{suffix}": 1}, reg
    return {f"{vex}mul{suffix}": 1, f"{vex}add{suffix}": 1}, reg


@pytest.mark.parametrize("kernel,size", flops_family().loops)
def test_flops_binary_holds_exactly_the_intended_instructions(kernel, size):
    ins = _disasm(f"hk_{kernel}_{size}")
    fp = [i for i in ins if FP_ARITH.match(i[0])]
    per_unit, reg = _expected(kernel)
    n_units = int(size) if "fma" in kernel else int(size) // 2
    counts = {}
    for i in fp:
        counts[i[0]] = counts.get(i[0], 0) + 1
        assert reg in i[1], i  # right register width
    assert counts == {m: n_units * c for m, c in per_unit.items()}
    assert sum(counts.values()) == int(size)
    jumps = [i for i in ins if i[0].startswith("j")]
    assert len(jumps) == 1 and jumps[0][0] == "jne"  # one loop, nothing else branches


@pytest.mark.parametrize("kernel", list(BRANCH_BODIES))
def test_branch_binary_holds_the_intended_branches(kernel):
    # conditional and direct jumps per copy, and the loop's own 'jz out; jmp top'
    per_copy = {
        "nt": (1, 0),
        "tk": (1, 0),
        "jmp": (0, 1),
        "rnd": (1, 0),
        "rndx": (2, 0),
        "rnd2": (3, 1),
        "busy": (0, 0),
    }[kernel]
    for c in BRANCH_COPIES:
        ins = _disasm(f"hk_{kernel}_{c}")
        cond = [i for i in ins if i[0].startswith("j") and i[0] != "jmp"]
        uncond = [i for i in ins if i[0] == "jmp"]
        assert len(cond) == 1 + c * per_copy[0] and len(uncond) == 1 + c * per_copy[1], (kernel, c)


def test_available_widths_follow_cpu_flags():
    assert available_widths({"sse2", "fma", "avx"}) == ("scalar", "128", "256")
    assert available_widths({"sse2", "fma", "avx", "avx512f"}) == WIDTHS
    assert available_widths({"sse2"}) == ()
    assert "sse2" in cpu_flags()


def test_cpu_identity_from_cpuinfo(tmp_path):
    p = tmp_path / "cpuinfo"
    p.write_text(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC 9005\n\n"
        "processor\t: 1\nvendor_id\t: GenuineIntel\n"
    )
    cpu = cpu_identity(p)
    assert (cpu.vendor, cpu.family, cpu.model, cpu.name) == ("AuthenticAMD", 26, 2, "AMD EPYC 9005")
    with pytest.raises(SetupError, match="cannot read"):
        cpu_identity(tmp_path / "none")
    assert cpu_identity().vendor != ""


@pytest.mark.parametrize("width", available_widths())
def test_flops_kernels_run_here_and_stay_finite(width):
    """x0 = x0 * 1 + 0 in the kernel's own precision: 1.0 after 10^5 iterations (no overflow to inf)."""
    for kernel, size in flops_family(widths=(width,)).loops:
        out = run_kernel("flops", kernel, size, 100_000)
        assert out["iterations"] == 100_000 and out["kernel"] == kernel and out["size"] == int(size)
        assert out["check"] == 1.0, (kernel, out["check"])


def test_branch_kernels_read_every_random_byte_once():
    for kernel, size in branch_family().loops:
        n = 4096 // int(size)
        out = run_kernel("branch", kernel, size, n, seed=7)
        assert out["iterations"] == n
        assert out["check"] == 0.5  # exactly half the bytes read were 1: T is exact


def test_dcache_chase_visits_pages_in_random_order_and_lines_within_a_page():
    size = 64 * 4096  # 64 pages of 64 lines
    lines = size // 64
    proc = run(kernel_command("dcache", "order", size, lines + 1, seed=3))
    offsets = np.array([int(x) for x in proc.stdout.split()])
    assert offsets[0] == offsets[-1] and len(set(offsets[:-1])) == lines  # one cycle through every line
    pages = offsets[:-1] // 4096
    runs_of_pages = pages[np.r_[True, pages[1:] != pages[:-1]]]
    assert len(runs_of_pages) == 64 and len(set(runs_of_pages)) == 64  # each page visited once, all its lines together
    assert not np.array_equal(runs_of_pages, np.sort(runs_of_pages))  # pages in random order
    first_page = offsets[:64] % 4096 // 64
    assert not np.array_equal(first_page, np.sort(first_page))  # lines within a page in random order
    other = run(kernel_command("dcache", "order", size, lines, seed=4)).stdout
    assert other != proc.stdout[: len(other)]  # the seed changes the order


def test_dcache_kernel_runs_and_rounds_iterations_to_unroll():
    fam = dcache_family({1: 48 * 1024, 2: 1 << 20, 3: 32 << 20})
    kernel, size = fam.loops[0]
    out = run_kernel("dcache", kernel, size, 1000)
    assert out["iterations"] == 1008 and out["check"] == int(size) // 64


def test_unknown_kernel_is_a_clear_error():
    with pytest.raises(MeasurementError, match="kernel flops/sp_999/24 failed: unknown kernel flops sp_999 24"):
        run_kernel("flops", "sp_999", 24, 10)


def test_branch_instruction_model_matches_the_source():
    """busy, rnd ... : the per-copy instruction counts of the asm (64 nops of busy work and so on)."""
    assert BRANCH_INSTRUCTIONS["busy"] == 64 and BRANCH_INSTRUCTIONS["rnd"] == 64 + 5.5
    for kernel in ("nt", "tk", "jmp", "busy"):
        ins = _disasm(f"hk_{kernel}_1")
        ins4 = _disasm(f"hk_{kernel}_4")
        # the straight-line part grows by exactly 3 copies (skipped nops included in the listing)
        skipped = {"nt": 0, "tk": 1, "jmp": 1, "busy": 0}[kernel]
        assert len(ins4) - len(ins) == 3 * (BRANCH_INSTRUCTIONS[kernel] + skipped), kernel


def test_cache_sizes_from_sysfs_layout(tmp_path):
    for i, (level, kind, size, ways) in enumerate(
        [(1, "Data", "48K", 12), (1, "Instruction", "32K", 8), (2, "Unified", "1024K", 8), (3, "Unified", "32768K", 16)]
    ):
        d = tmp_path / f"index{i}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(kind + "\n")
        (d / "size").write_text(size + "\n")
        (d / "ways_of_associativity").write_text(f"{ways}\n")
        (d / "coherency_line_size").write_text("64\n")
    levels = cache_levels(tmp_path)
    assert levels[1] == CacheLevel("L1", 48 * 1024, 12, 64) and levels[3].size == 32 << 20
    bufs = dcache_buffer_sizes([levels[1], levels[2], levels[3]])
    l1, l2, l3 = (levels[k].size for k in (1, 2, 3))
    assert max(bufs["l1"]) < l1 and 2 * l1 <= min(bufs["l2"]) and max(bufs["l2"]) < l2
    assert 2 * l2 <= min(bufs["l3"]) and max(bufs["l3"]) < l3 and min(bufs["mem"]) >= 2 * l3
    with pytest.raises(Exception, match="raise max_bytes"):
        dcache_buffer_sizes([levels[1], levels[2], levels[3]], max_bytes=40 << 20)
    with pytest.raises(SetupError, match="cannot read the data cache sizes"):
        cache_levels(tmp_path / "index1")
