"""Safe outputs: check the place before the work, write atomically, never clobber an input.

Every file hemkit writes goes through :func:`atomic_path` (for writers that take a path:
pandas, matplotlib, torch) or :func:`atomic_open` (for text and bytes).  The data is written
to a temporary file beside the target and renamed over it only when complete, so a failure
(full disk, Ctrl-C, an error halfway) leaves any existing file exactly as it was and no
half-written file behind.  :func:`check_output` runs *before* a long computation so that a
missing folder, a read-only place, a folder given as the file, a device such as
``/dev/full`` or an output that is one of the inputs is reported in one line at once,
not after an hour of work.

Examples
--------
>>> import os, tempfile
>>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
>>> with atomic_open(target) as fh:
...     _ = fh.write("hello")
>>> open(target).read()
'hello'
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from hemkit.core.errors import OutputError
from hemkit.io.formats import check_plain_name

PathLike = str | os.PathLike[str]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_output(path: PathLike, *, inputs: Iterable[PathLike | None] = (), what: str = "") -> Path:
    """Refuse, before any work, an output path that cannot or must not be written.

    Parameters
    ----------
    path : path
        The file to be written.
    inputs : paths
        Files (or folders of files) the command reads; the output may not be one of them.
    what : str
        How to name the output in messages (e.g. ``"plot"``); default just the path.

    Raises
    ------
    OutputError
        The path is a folder or not a regular file, its folder is missing or not writable,
        or it is one of ``inputs`` or a file (existing or new) in a folder of ``inputs``, or it is named for a
        compression (``.gz``, ``.bz2``, ``.xz``: :func:`hemkit.io.formats.check_plain_name`).

    Examples
    --------
    >>> check_output("/dev/full")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: /dev/full: exists and is not a regular file; refusing to write to it
    """
    p = Path(os.fspath(path))
    label = f"{what} {p}" if what else str(p)
    if str(p) in ("", "."):
        raise OutputError(f"{label or 'output'}: empty output path")
    check_plain_name(p, what)  # hemkit reads compressed files, but writes none: no plain text under a .gz name
    try:
        _check_place(p, label, inputs)
    except OutputError:
        raise
    except (OSError, ValueError) as exc:  # a name too long, a loop of links, a NUL in the name
        raise OutputError(f"{label}: cannot be written ({describe_os_error(exc)})") from None
    return p


def _check_place(p: Path, label: str, inputs: Iterable[PathLike | None]) -> None:
    if p.is_dir():
        raise OutputError(f"{label}: is a folder; give a file name")
    if p.exists() and not p.is_file():
        raise OutputError(f"{label}: exists and is not a regular file; refusing to write to it")
    for src in inputs:
        if src is None:
            continue
        source = Path(os.fspath(src))
        if _same_file(p, source):
            raise OutputError(f"{label}: is also an input; refusing to overwrite it")
        if source.is_dir() and _same_file(p.parent, source):  # a folder is read file by file
            if p.is_file():
                raise OutputError(
                    f"{label}: is also an input (a file of the folder {source}); refusing to overwrite it"
                )
            # a new file there would be read as one more input next time (a table among perf stat runs)
            raise OutputError(
                f"{label}: is inside the input folder {source}, which is read file by file: the next read "
                "would take it for an input; write it outside that folder"
            )
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.exists():
        raise OutputError(f"{label}: folder {parent} does not exist")
    if not parent.is_dir():
        raise OutputError(f"{label}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{label}: cannot write in {parent} (read-only or no permission)")


def check_output_dir(path: PathLike, *, what: str = "") -> Path:
    """Like :func:`check_output` for an output *folder*: an existing folder, or one whose parent exists.

    Examples
    --------
    >>> import tempfile
    >>> check_output_dir(os.path.join(tempfile.mkdtemp(), "figures")).name
    'figures'
    """
    p = Path(os.fspath(path))
    label = f"{what} {p}" if what else str(p)
    if p.exists() and not p.is_dir():
        raise OutputError(f"{label}: exists and is not a folder")
    parent = p if p.exists() else p.parent
    if not parent.exists():
        raise OutputError(f"{label}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{label}: cannot write in {parent} (read-only or no permission)")
    return p


def describe_os_error(exc: BaseException) -> str:
    """Why a write failed, as a user reads it (``no space left on the device``, ``read-only file system`` ...)."""
    if not isinstance(exc, OSError):
        return str(exc) or type(exc).__name__
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EROFS:
        return "read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EDQUOT:
        return "disk quota exceeded"
    if exc.errno == errno.ENAMETOOLONG:
        return "file name too long"
    return exc.strerror or type(exc).__name__


@contextlib.contextmanager
def atomic_path(path: PathLike, *, inputs: Iterable[PathLike | None] = (), what: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` when the block succeeds.

    The temporary file keeps ``path``'s suffix, so writers that choose a format by suffix
    (pandas, matplotlib) still do.  On any error the temporary file is removed, ``path`` is
    untouched, and an :class:`OSError` becomes an :class:`OutputError` naming ``path``.

    Parameters
    ----------
    path : path
        The file to be written.
    inputs : paths
        Files the command reads; the output may not be one of them (None entries are skipped).
    what : str
        How to name the output in messages (e.g. ``"plot"``); default just the path.

    Yields
    ------
    Path
        The temporary file, in ``path``'s folder; the block writes it.

    Raises
    ------
    OutputError
        ``path`` refused by :func:`check_output` (checked before the block runs), or the
        temporary file cannot be made, written or renamed.

    Examples
    --------
    >>> import tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "t.txt")
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("done")
    >>> open(target).read(), os.listdir(os.path.dirname(target))
    ('done', ['t.txt'])
    """
    target = check_output(path, inputs=inputs, what=what)
    label = f"{what} {target}" if what else str(target)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=target.parent)
    except OSError as exc:  # no space (or no inode) left, a read-only place, no permission
        raise OutputError(f"{label}: cannot be written ({describe_os_error(exc)})") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:  # the data must be on disk before the rename
            os.fsync(fh.fileno())
        mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"{label}: cannot be written ({describe_os_error(exc)})") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


@contextlib.contextmanager
def atomic_open(
    path: PathLike, mode: str = "w", *, inputs: Iterable[PathLike | None] = (), what: str = "", **kwargs: Any
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; rename it onto ``path`` when the block succeeds.

    Parameters
    ----------
    path : path
        The file to be written.
    mode : {"w", "wb"}
        Text or bytes.
    inputs : paths
        Files (or folders of files) the command reads; the output may not be one of them.
    what : str
        How to name the output in messages (e.g. ``"plot"``); default just the path.
    **kwargs
        Passed to :func:`open` (``encoding``, ``newline``, ...).

    Yields
    ------
    file object
        The open temporary file.

    Raises
    ------
    OutputError
        ``path`` refused by :func:`check_output`, or the file cannot be written or renamed.
    ValueError
        A ``mode`` other than ``"w"`` and ``"wb"``.

    Examples
    --------
    >>> import tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "b.bin")
    >>> with atomic_open(target, "wb") as fh:
    ...     _ = fh.write(b"\\x00\\x01")
    >>> open(target, "rb").read()
    b'\\x00\\x01'
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes whole files: mode 'w' or 'wb', not {mode!r}")
    with atomic_path(path, inputs=inputs, what=what) as tmp:
        try:
            with open(tmp, mode, **kwargs) as fh:
                yield fh
        except OSError as exc:
            raise OutputError(
                f"{what + ' ' if what else ''}{path}: cannot be written ({describe_os_error(exc)})"
            ) from None


def write_text(path: PathLike, text: str, *, inputs: Iterable[PathLike | None] = (), what: str = "") -> Path:
    """Write ``text`` to ``path`` atomically (UTF-8).

    Parameters
    ----------
    path : path
        The file to be written.
    text : str
        Its whole content.
    inputs : paths
        Files (or folders of files) the command reads; the output may not be one of them.
    what : str
        How to name the output in messages; default just the path.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OutputError
        ``path`` refused by :func:`check_output`, or the file cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> write_text(os.path.join(tempfile.mkdtemp(), "a.txt"), "x").name
    'a.txt'
    """
    with atomic_open(path, "w", inputs=inputs, what=what, encoding="utf-8") as fh:
        fh.write(text)
    return Path(os.fspath(path))


def write_figure(figure: Any, path: PathLike, *, dpi: int = 120, what: str = "plot") -> Path:
    """Save a matplotlib figure atomically (format from the suffix; PNG by default), the same bytes for the same figure.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure; saved with ``bbox_inches="tight"``.
    path : path
        The file to be written; its suffix (``.png``, ``.svg``, ``.pdf`` ...) gives the
        format, no suffix PNG.
    dpi : int, default 120
        Resolution of raster formats.
    what : str, default "plot"
        How to name the output in messages.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OutputError
        ``path`` refused by :func:`check_output`, its suffix names no figure format
        (:func:`hemkit.io.formats.check_figure_name`), or the file cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> write_figure(fig, os.path.join(tempfile.mkdtemp(), "f.svg")).suffix
    '.svg'
    >>> plt.close(fig)
    """
    import matplotlib

    from hemkit.io.formats import check_figure_name

    check_figure_name(path, what=what)
    fmt = Path(os.fspath(path)).suffix.lstrip(".").lower() or "png"
    with atomic_path(path, what=what) as tmp, matplotlib.rc_context({"svg.hashsalt": "hemkit"}):
        # the same figure, the same bytes: no date stamped in, SVG's ids from a fixed salt, not random
        figure.savefig(tmp, dpi=dpi, bbox_inches="tight", format=fmt, metadata=_fixed_metadata(fmt))
    return Path(os.fspath(path))


def _fixed_metadata(fmt: str) -> dict[str, Any] | None:
    """What ``savefig`` writes into a format that would stamp the time of writing into it."""
    if fmt in ("svg", "svgz"):
        return {"Date": None}
    if fmt == "pdf":
        return {"CreationDate": None}
    return None  # PNG has no date; PostScript takes its date only from SOURCE_DATE_EPOCH


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


__all__ = [
    "atomic_open",
    "atomic_path",
    "check_output",
    "check_output_dir",
    "describe_os_error",
    "write_figure",
    "write_text",
]
