"""Fixtures of the sampling tests: a real ``perf record`` where perf can sample here."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def perf_can_record(tmp_path_factory):
    """Skip unless ``perf record -e cpu-clock`` works here (perf present, sampling allowed)."""
    from hemkit.core.errors import HemkitError
    from hemkit.external.perf import perf_record

    out = tmp_path_factory.mktemp("perf-probe") / "perf.data"
    try:
        perf_record(["true"], out, event="cpu-clock", period=100_000, timeout=60)
    except HemkitError as exc:
        pytest.skip(f"perf cannot record here: {exc}")
    return True


@pytest.fixture(scope="session")
def libc_kernel_record(perf_can_record, tmp_path_factory):
    """``perf record -e cpu-clock -c 250000`` of ``data/libc_kernel.c`` (compiled here): (perf.data, binary)."""
    from hemkit.external.compiler import compile_c
    from hemkit.external.perf import perf_record

    exe = compile_c(DATA / "libc_kernel.c", flags=("-O1",))
    data = tmp_path_factory.mktemp("libc-kernel") / "perf.data"
    perf_record([str(exe), "60"], data, event="cpu-clock", period=250_000, timeout=300)
    return data, exe


def _tmpfs(path: Path, options: str):
    from hemkit.core.errors import HemkitError
    from hemkit.external.process import run

    path.mkdir(parents=True, exist_ok=True)
    try:
        done = run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], timeout=30)
    except HemkitError as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    if done.failed:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.status()}")
    return path


@pytest.fixture
def readonly_dir(tmp_path):
    """A folder on a read-only tmpfs (root can write anywhere else); skipped where mount is not allowed."""
    from hemkit.external.process import run

    path = _tmpfs(tmp_path / "ro", "ro,size=64k")
    yield path
    run(["umount", str(path)], timeout=30)


@pytest.fixture
def full_dir(tmp_path):
    """A folder on a 4 KiB tmpfs: a figure does not fit; skipped where mount is not allowed."""
    from hemkit.external.process import run

    path = _tmpfs(tmp_path / "full", "size=4k")
    yield path
    run(["umount", str(path)], timeout=30)
