"""Class A of issue 11 at the io level: outputs that cannot or must not be written.

In every case the error is one :class:`OutputError` line naming the file, any existing file
stays byte-identical and no temporary file is left behind.  Read-only and full disks are
real: a small tmpfs mounted in the test (skipped, with the reason, where mount is not allowed).
"""

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import OutputError
from hemkit.io import atomic_open, atomic_path, check_output, write_figure, write_table, write_text

OLD = "group,run,event,value\n1,1,a,1\n"
BIG = pd.DataFrame({"event": ["e" * 40] * 20_000, "value": range(20_000)})  # ~1 MB as CSV, >64 KiB as Parquet


def state(folder: Path) -> dict:
    """Every file under ``folder`` (hidden ones included) with its content hash."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


WRITERS = {
    "write_text": lambda p, **kw: write_text(p, "x" * 200_000, **kw),
    "write_table_csv": lambda p, **kw: write_table(BIG, p.with_suffix(".csv"), **kw),
    "write_table_parquet": lambda p, **kw: write_table(BIG, p.with_suffix(".parquet"), **kw),
    "atomic_open_wb": lambda p, **kw: _atomic_bytes(p, **kw),
    "write_figure": lambda p, **kw: _figure(p.with_suffix(".png"), **kw),
}


def _atomic_bytes(p, **kw):
    with atomic_open(p, "wb", **kw) as fh:
        for _ in range(50):
            fh.write(os.urandom(4096))


def _figure(p, **kw):
    fig, ax = plt.subplots(figsize=(6, 6))
    ax.imshow(np.random.default_rng(0).random((300, 300)))  # noise: a PNG of some 100 KiB
    ax.set_title("noise")
    try:
        return write_figure(fig, p, dpi=100, **kw)
    finally:
        plt.close(fig)


def targets(folder: Path, name: str) -> list[Path]:
    """The files a writer may aim at, each made to exist with old content first."""
    out = []
    for suffix in (".txt", ".csv", ".parquet", ".png"):
        p = folder / f"{name}{suffix}"
        p.write_text(OLD)
        out.append(p)
    return out


# ------------------------------------------------------------------ places refused before writing
@pytest.mark.parametrize("writer", WRITERS)
def test_missing_folder(tmp_path, writer, one_line):
    before = state(tmp_path)
    with pytest.raises(OutputError) as e:
        WRITERS[writer](tmp_path / "nope" / "out.txt")
    one_line(e, OutputError, "nope", "does not exist")
    assert state(tmp_path) == before and not (tmp_path / "nope").exists()


@pytest.mark.parametrize("writer", WRITERS)
def test_folder_given_as_the_file(tmp_path, writer, one_line):
    for suffix in (".txt", ".csv", ".parquet", ".png"):
        (tmp_path / f"out{suffix}").mkdir()
        (tmp_path / f"out{suffix}" / "keep").write_text(OLD)
    before = state(tmp_path)
    with pytest.raises(OutputError) as e:
        WRITERS[writer](tmp_path / "out.txt")
    one_line(e, OutputError, "out", "is a folder")
    assert state(tmp_path) == before


@pytest.mark.parametrize("writer", [w for w in WRITERS if w != "write_figure"])
@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
def test_the_input_as_the_output(tmp_path, writer, how, one_line):
    targets(tmp_path, "in")
    outs = {}
    for suffix in (".txt", ".csv", ".parquet"):
        src = tmp_path / f"in{suffix}"
        if how == "symlink":
            (tmp_path / f"link{suffix}").symlink_to(src)
        elif how == "hard link":
            os.link(src, tmp_path / f"link{suffix}")
        outs[suffix] = src if how == "same path" else tmp_path / f"link{suffix}"
    before = state(tmp_path)
    with pytest.raises(OutputError) as e:
        WRITERS[writer](outs[".txt"], inputs=[tmp_path / "in.txt", tmp_path / "in.csv", tmp_path / "in.parquet"])
    one_line(e, OutputError, "is also an input")
    assert state(tmp_path) == before


@pytest.mark.parametrize("writer", ["write_text", "atomic_open_wb"])
def test_dev_full_is_refused_before_writing(writer, one_line):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    before = sorted(os.listdir("/dev"))
    with pytest.raises(OutputError) as e:
        check_output("/dev/full")
    one_line(e, OutputError, "/dev/full", "not a regular file")
    with pytest.raises(OutputError) as e:
        WRITERS[writer](Path("/dev/full"))
    one_line(e, OutputError, "/dev/full")
    assert sorted(os.listdir("/dev")) == before  # no temporary file beside it


def test_name_too_long(tmp_path, one_line):
    with pytest.raises(OutputError) as e:
        write_text(tmp_path / ("x" * 300 + ".txt"), "data")
    one_line(e, OutputError, "file name too long")
    assert state(tmp_path) == {}


def test_a_failing_writer_leaves_the_old_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text(OLD)
    with pytest.raises(ZeroDivisionError), atomic_path(target) as tmp:
        tmp.write_text("half")
        1 / 0  # noqa: B018
    assert target.read_text() == OLD and state(tmp_path) == {"out.csv": hashlib.sha256(OLD.encode()).hexdigest()}


def test_success_replaces_and_keeps_nothing_else(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text(OLD)
    write_table(BIG.head(3), target)
    assert pd.read_csv(target).shape == (3, 2) and sorted(os.listdir(tmp_path)) == ["out.csv"]


# ------------------------------------------------------------------ real disks: read-only and full
@pytest.fixture
def tmpfs(tmp_path):
    """``tmpfs(size, extra)`` mounts a fresh tmpfs under tmp_path (skips where mount is refused)."""
    mounted = []

    def mount(size="64k", extra=""):
        d = tmp_path / f"mnt{len(mounted)}"
        d.mkdir()
        if shutil.which("mount") is None:
            pytest.skip("no mount command here")
        opts = f"size={size}" + (f",{extra}" if extra else "")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(d)], capture_output=True, text=True)
        if r.returncode:
            pytest.skip(f"cannot mount a tmpfs here (needs root): {r.stderr.strip() or r.returncode}")
        mounted.append(d)
        return d

    yield mount
    for d in mounted:
        if subprocess.run(["umount", str(d)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(d)], capture_output=True)


@pytest.mark.parametrize("writer", WRITERS)
def test_read_only_place(tmpfs, writer, one_line):
    d = tmpfs()
    targets(d, "out")
    r = subprocess.run(["mount", "-o", "remount,ro", str(d)], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot remount read-only: {r.stderr.strip()}")
    before = state(d)
    with pytest.raises(OutputError) as e:
        WRITERS[writer](d / "out.txt")
    one_line(e, OutputError, str(d), "read-only")
    assert state(d) == before


@pytest.mark.parametrize("writer", WRITERS)
def test_full_disk(tmpfs, writer, one_line):
    d = tmpfs("64k")
    targets(d, "out")
    before = state(d)
    with pytest.raises(OutputError) as e:
        WRITERS[writer](d / "out.txt")
    one_line(e, OutputError, str(d / "out"), "no space left")
    assert state(d) == before  # the old files byte-identical, no temporary file left


def test_no_inode_left(tmpfs, one_line):
    d = tmpfs("64k", "nr_inodes=3")  # the root folder and two files
    (d / "out.txt").write_text(OLD)
    (d / "other").write_text("x")
    before = state(d)
    with pytest.raises(OutputError) as e:
        write_text(d / "out.txt", "new")
    one_line(e, OutputError, "out.txt", "no space left")
    assert state(d) == before


def test_a_file_of_an_input_folder_is_an_input(tmp_path, one_line):
    """A folder input is read file by file: overwriting one of its files clobbers an input."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "run_1.csv").write_text("1,,page-faults\n")
    with pytest.raises(OutputError) as e:
        check_output(folder / "run_1.csv", inputs=[folder])
    one_line(e, OutputError, "is also an input")
    assert (folder / "run_1.csv").read_text() == "1,,page-faults\n"
    assert check_output(tmp_path / "elsewhere.csv", inputs=[folder]).name == "elsewhere.csv"


def test_a_new_file_in_an_input_folder_is_refused(tmp_path, one_line):
    """A new file written into a folder read file by file would be read as one more run next time."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "run_1.csv").write_text("1,,page-faults\n")
    with pytest.raises(OutputError) as e:
        check_output(folder / "readings.csv", inputs=[tmp_path / "other.csv", folder])
    one_line(e, OutputError, "readings.csv", "inside the input folder", "outside")
    assert sorted(f.name for f in folder.iterdir()) == ["run_1.csv"]


def test_a_figure_name_matplotlib_cannot_write_is_an_output_error(tmp_path, one_line):
    fig, _ = plt.subplots()
    try:
        with pytest.raises(OutputError) as e:
            write_figure(fig, tmp_path / "ratios.txt")
        one_line(e, OutputError, "ratios.txt")
        assert list(tmp_path.iterdir()) == []
        assert write_figure(fig, tmp_path / "ratios").exists()  # no suffix: PNG
    finally:
        plt.close(fig)
