"""CAT-style kernels: the binary holds exactly the intended instructions, and every kernel runs."""

import re
import shutil
import subprocess

import pytest

from hemkit.derive.families import BRANCH_COPIES, WIDTHS, branch_family, dcache_family, flops_family
from hemkit.derive.kernels import available_widths, cpu_flags, kernel_binary, run_kernel
from hemkit.errors import HemkitError

FP_ARITH = re.compile(r"^v?(mul|add|sub|div|sqrt|fn?m(add|sub)\d*)(ss|sd|ps|pd)$")


def _disasm(symbol):
    if shutil.which("objdump") is None:
        pytest.skip("objdump not installed")
    out = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", f"--disassemble={symbol}", str(kernel_binary())],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
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
    n_units = int(size) // sum(per_unit.values()) if "fma" in kernel else int(size) // 2
    counts = {}
    for i in fp:
        counts[i[0]] = counts.get(i[0], 0) + 1
        assert reg in i[1], i  # right register width
    assert counts == {m: n_units * c for m, c in per_unit.items()}
    assert sum(counts.values()) == int(size)
    # one loop: a single backward conditional branch, nothing else branches
    jumps = [i for i in ins if i[0].startswith("j")]
    assert len(jumps) == 1 and jumps[0][0] == "jne"


@pytest.mark.parametrize("kernel", ["nt", "tk", "jmp", "rnd", "rnd2"])
def test_branch_binary_holds_the_intended_branches(kernel):
    per_copy = {"nt": (1, 0), "tk": (1, 0), "jmp": (0, 1), "rnd": (1, 0), "rnd2": (3, 1)}[kernel]
    for c in BRANCH_COPIES:
        ins = _disasm(f"hk_{kernel}_{c}")
        cond = [i for i in ins if i[0].startswith("j") and i[0] != "jmp"]
        uncond = [i for i in ins if i[0] == "jmp"]
        assert len(cond) == 1 + c * per_copy[0] and len(uncond) == c * per_copy[1]


def test_available_widths_follow_cpu_flags():
    assert available_widths({"sse2", "fma", "avx"}) == ("scalar", "128", "256")
    assert available_widths({"sse2", "fma", "avx", "avx512f"}) == WIDTHS
    assert available_widths({"sse2"}) == ()
    assert "sse2" in cpu_flags()


@pytest.mark.parametrize("width", available_widths())
def test_flops_kernels_run_here(width):
    for kernel, size in flops_family(widths=(width,)).loops:
        out = run_kernel("flops", kernel, size, 1000)
        assert out["iterations"] == 1000 and out["kernel"] == kernel and out["size"] == int(size)


def test_branch_kernels_run_with_balanced_random_bits():
    for kernel, size in branch_family().loops:
        out = run_kernel("branch", kernel, size, 5000)
        assert out["iterations"] == 5000
        assert out["check"] == 0.5  # exactly half the random bits are set: T is exact


def test_dcache_kernel_runs_and_rounds_iterations_to_unroll():
    fam = dcache_family({1: 48 * 1024, 2: 1 << 20, 3: 32 << 20})
    kernel, size = fam.loops[0]
    out = run_kernel("dcache", kernel, size, 1000)
    assert out["iterations"] == 1008 and out["check"] == int(size) // 64


def test_unknown_kernel_is_a_clear_error():
    with pytest.raises(HemkitError, match="kernel flops/sp_999/24 failed: unknown kernel flops sp_999 24"):
        run_kernel("flops", "sp_999", 24, 10)


def test_cache_sizes_from_sysfs_layout(tmp_path):
    from hemkit.derive.families import cache_sizes, dcache_buffer_sizes

    for i, (level, kind, size) in enumerate(
        [(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Unified", "1024K"), (3, "Unified", "32768K")]
    ):
        d = tmp_path / f"index{i}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(kind + "\n")
        (d / "size").write_text(size + "\n")
    sizes = cache_sizes(tmp_path)
    assert sizes == {1: 48 * 1024, 2: 1 << 20, 3: 32 << 20}
    bufs = dcache_buffer_sizes(sizes)
    assert max(bufs["l1"]) < sizes[1] and 2 * sizes[1] <= min(bufs["l2"]) and max(bufs["l2"]) < sizes[2]
    assert 2 * sizes[2] <= min(bufs["l3"]) and max(bufs["l3"]) < sizes[3] and min(bufs["mem"]) >= 2 * sizes[3]
    with pytest.raises(HemkitError, match="raise max_bytes"):
        dcache_buffer_sizes(sizes, max_bytes=40 << 20)
    with pytest.raises(HemkitError, match="cannot read L1/L2/L3"):
        cache_sizes(tmp_path / "index1")
