"""What every file format of hemkit is recognised by, and the one policy for format versions.

Constants that readers and writers share (file name suffixes, magic numbers, the versions
of the formats hemkit writes) live here once; every module of :mod:`hemkit.io` takes them
from here.

**Versions.**  Every file hemkit writes in a format of its own carries a version: the plan
file (``format_version``), derive's JSON analyses (``version``), MPX model files
(``version``), the collection database (SQLite ``user_version``) and the Parquet files hemkit
writes (key-value metadata ``hemkit_version``).  :func:`check_version` is the one policy:
a file without a version, or with an older one, is read; a newer one is refused with an
:class:`~hemkit.core.errors.InputError` naming the file and both versions.  Plain CSV
tables (tidy readings, merged tables, scores) are interchange files and stay plain CSV.

Examples
--------
>>> check_version("plan.toml", None, PLAN_VERSION, "plan file")
0
>>> check_version("plan.toml", 9, 1, "plan file")
Traceback (most recent call last):
...
hemkit.core.errors.InputError: plan.toml: plan file version 9 is newer than this hemkit reads (version 1); \
update hemkit or write the file again with this one
"""

from __future__ import annotations

import io
import os
import stat
from typing import IO, Any

from hemkit.core.errors import InputError, OutputError

# ------------------------------------------------------------------ names and magic numbers
PARQUET_SUFFIXES = (".parquet", ".pq")
"""File names that are written as Parquet (reading goes by content, :data:`PARQUET_MAGIC`)."""
PARQUET_MAGIC = b"PAR1"
"""The first (and last) four bytes of every Parquet file."""
SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first sixteen bytes of every SQLite database (a collection database)."""
MODEL_SUFFIXES = (".pt", ".pth")
"""File names of saved MPX models (``hemkit mpx fit -o``)."""
PERF_DATA_MAGIC = b"PERFILE2"
"""The first eight bytes of a ``perf.data`` file (``perf record``)."""
COMPRESSIONS = {"gzip": b"\x1f\x8b\x08", "bzip2": b"BZh", "xz": b"\xfd7zXZ\x00"}
"""The compressions inputs are read in (:func:`open_input`), by the magic number their files start with.

A bzip2 file's ``BZh`` is followed by its block size (``1`` to ``9``) and the magic number of a
block or of the end of the stream, checked too: a text file may well start with ``BZh``."""
_BZIP2_BLOCKS = (b"1AY&SY", b"\x17rE8P\x90")  # 0x314159265359 (pi), 0x177245385090 (sqrt pi): a block, the end
COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
"""Their usual names: left out of run and workload names, refused for outputs (never how inputs are recognised)."""
_DECOMPRESS = {"gzip": "gunzip", "bzip2": "bunzip2", "xz": "unxz"}
#: what cannot be read compressed: SQLite opens its file in place, perf reads perf.data in place
_IN_PLACE = {SQLITE_MAGIC: "an SQLite database", PARQUET_MAGIC: "a Parquet file", PERF_DATA_MAGIC: "a perf.data file"}

# ------------------------------------------------------------------ versions hemkit writes
PLAN_VERSION = 1
"""The plan file (TOML or JSON) key ``format_version``."""
ANALYSIS_VERSION = 1
"""derive's JSON analysis key ``version``."""
MODEL_VERSION = 2
"""An MPX model file's ``version``."""
COLLECTION_VERSION = 2
"""The collection database's layout (SQLite ``user_version``; 2: the machine of every run)."""
TABLE_VERSION = 1
"""Parquet tables hemkit writes: key-value metadata :data:`TABLE_VERSION_KEY`."""
TABLE_VERSION_KEY = b"hemkit_version"


# ------------------------------------------------------------------ compressed inputs
def compression(path: str | os.PathLike[str]) -> str | None:
    """The compression of a file, by its first bytes: ``"gzip"``, ``"bzip2"``, ``"xz"``, or None.

    Raises
    ------
    InputError
        The file cannot be read (missing, a folder, no permission).

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.csv")  # no .gz in the name: the bytes decide
    >>> _ = open(p, "wb").write(gzip.compress(b"a,b\\n1,2\\n"))
    >>> compression(p)
    'gzip'
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            head = fh.read(10)
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a folder; give a file") from None
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"{name}: cannot be read ({why})") from None
    kind = next((kind for kind, magic in COMPRESSIONS.items() if head.startswith(magic)), None)
    if kind == "bzip2" and not (head[3:4] in b"123456789" and head[4:10] in _BZIP2_BLOCKS):
        return None
    return kind


class _Decompressing(io.RawIOBase):
    """A decompressing file whose every failure (bad data, cut short) is one :class:`InputError` naming the file."""

    def __init__(self, fh: io.BufferedIOBase, name: str, kind: str) -> None:
        super().__init__()
        self._fh, self._name, self._kind = fh, name, kind

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            return self._fh.readinto(buffer)
        except EOFError:
            raise InputError(f"{self._name}: a {self._kind} file cut short (its end is missing)") from None
        except Exception as exc:  # BadGzipFile, OSError, zlib.error, lzma.LZMAError: bad compressed data
            raise InputError(f"{self._name}: not a valid {self._kind} file ({exc or type(exc).__name__})") from None

    def close(self) -> None:
        if not self.closed:
            self._fh.close()
        super().close()


def _decompressor(name: str, kind: str) -> IO[bytes]:
    import bz2
    import gzip
    import lzma

    fh: io.BufferedIOBase
    if kind == "gzip":
        fh = gzip.open(name, "rb")
    elif kind == "bzip2":
        fh = bz2.open(name, "rb")
    else:
        fh = lzma.open(name, "rb")
    return io.BufferedReader(_Decompressing(fh, name, kind), buffer_size=256 * 1024)


def open_input(
    path: str | os.PathLike[str],
    mode: str = "rb",
    *,
    encoding: str | None = None,
    errors: str | None = None,
    newline: str | None = None,
) -> IO[Any]:
    """Open an input file for reading, gzip, bzip2 or xz decompressed on the fly (told by content, not name).

    Every reader of hemkit opens its input text files here, so a compressed file reads as the
    file it holds.  A compressed SQLite database, Parquet file or ``perf.data`` is refused:
    they are read in place (and a Parquet file is compressed inside already).

    Parameters
    ----------
    path : path
        The file.
    mode : {"rb", "r"}
        Bytes or text; ``encoding``, ``errors`` and ``newline`` as :func:`open` takes them (text only).

    Returns
    -------
    file object
        Reading the file's content, decompressed.  A compressed file that is damaged or cut short
        raises an :class:`InputError` naming it when the bad part is read.

    Raises
    ------
    InputError
        Missing, a folder, unreadable, damaged compressed data at its start, or a compressed
        database, Parquet or perf.data file (saying how to decompress it).

    Examples
    --------
    >>> import bz2, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.csv.bz2")
    >>> _ = open(p, "wb").write(bz2.compress(b"a,b\\n1,2\\n"))
    >>> with open_input(p, "r", encoding="utf-8") as fh:
    ...     fh.read()
    'a,b\\n1,2\\n'
    """
    if mode not in ("r", "rb"):
        raise ValueError(f"open_input reads: mode 'r' or 'rb', not {mode!r}")
    name = os.fspath(path)
    kind = compression(name)
    if kind is None:
        if mode == "rb":
            return open(name, "rb")
        return open(name, encoding=encoding, errors=errors, newline=newline)
    with _decompressor(name, kind) as fh:
        head = fh.read(16)
    what = next((w for magic, w in _IN_PLACE.items() if head.startswith(magic)), None)
    if what is not None:
        raise InputError(
            f"{name}: {what}, {kind}-compressed; hemkit reads it only uncompressed: "
            f"decompress it first ({_DECOMPRESS[kind]} -k {name})"
        )
    fh = _decompressor(name, kind)
    if mode == "rb":
        return fh
    return io.TextIOWrapper(fh, encoding=encoding, errors=errors, newline=newline)


def read_head(path: str | os.PathLike[str], n: int) -> bytes:
    """The first ``n`` bytes of an input file's content (decompressed: :func:`open_input`), to tell its kind by.

    Raises
    ------
    InputError
        As :func:`open_input`; or the file is a device, pipe or socket.

    Examples
    --------
    >>> import lzma, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t")
    >>> _ = open(p, "wb").write(lzma.compress(b"PAR1..."))
    >>> read_head(p, 4)
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: ...t: a Parquet file, xz-compressed; hemkit reads it only uncompressed: \
decompress it first (unxz -k .../t)
    """
    name = os.fspath(path)
    try:
        if not stat.S_ISREG(os.stat(name).st_mode):
            raise InputError(f"{name}: not a regular file (a device, pipe or socket); give a file")
    except OSError:
        pass  # open_input says why
    try:
        with open_input(name, "rb") as fh:
            return fh.read(n)
    except OSError as exc:
        raise InputError(f"{name}: cannot be read ({exc.strerror or type(exc).__name__})") from None


def read_input(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """An input file's content (decompressed: :func:`open_input`), at most ``limit + 1`` bytes when ``limit`` is given.

    The extra byte tells the caller the content is larger than ``limit``.

    Raises
    ------
    InputError
        As :func:`open_input`, or an error reading it.

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.gz")
    >>> _ = open(p, "wb").write(gzip.compress(b"hello")[:-4])  # cut short
    >>> read_input(p)
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: ...t.gz: a gzip file cut short (its end is missing)
    """
    name = os.fspath(path)
    try:
        with open_input(name, "rb") as fh:
            return fh.read() if limit is None else fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{name}: cannot be read ({exc.strerror or type(exc).__name__})") from None


def cut_last_line(text: str | bytes) -> str | None:
    """The last line of ``text`` if it does not end with a newline (a file cut short), else None.

    hemkit and perf end every line they write, the last one too; a last line without its
    newline is where a copy, a download or a full disk stopped, possibly inside a number
    (``123`` of ``123456``, which reads as a count all the same).  A last line of blanks
    only cut nothing and is not reported.

    Examples
    --------
    >>> cut_last_line("run,value\\n1,123456\\n"), cut_last_line("run,value\\n1,123"), cut_last_line(b"")
    (None, '1,123', None)
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    last = text[text.rfind("\n") + 1 :]
    return last if last.strip() and not last.endswith("\r") else None


def check_last_line(path: str | os.PathLike[str], text: str | bytes | None = None) -> None:
    """Refuse a text input whose last line is cut (no newline at its end): see :func:`cut_last_line`.

    ``text`` is the file's content when the caller has read it already; else the file's end is
    read (decompressed: a compressed file is read through to its end).

    Raises
    ------
    InputError
        ``FILE: the last line is cut (no newline at the end): '...'``, with what to do if the
        file is complete after all.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(p, "w").write("group,run,event,value\\n1,1,a,123")
    >>> check_last_line(p)
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: ...t.csv: the last line is cut (no newline at the end): '1,1,a,123'; ...
    """
    if text is None:
        text = read_tail(path)
    last = cut_last_line(text)
    if last is None:
        return
    shown = last if len(last) <= 80 else f"{last[:77]}..."
    raise InputError(
        f"{path}: the last line is cut (no newline at the end): {shown!r}; hemkit and perf end every line "
        "they write, so the file was cut short and its last value may be part of a number; copy it again, "
        "or end it with a newline if it is complete"
    )


def read_tail(path: str | os.PathLike[str], n: int = 4096) -> bytes:
    """The last ``n`` bytes of an input file's content (decompressed: :func:`open_input`), or all of a shorter one.

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.csv.gz")
    >>> _ = open(p, "wb").write(gzip.compress(b"a,b\\n1,2\\n"))
    >>> read_tail(p, 4)
    b'1,2\\n'
    """
    with open_input(path, "rb") as fh:
        if compression(path) is None:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - n))
            return fh.read()
        tail = b""
        while chunk := fh.read(1 << 20):
            tail = (tail + chunk)[-n:]
        return tail


def input_stem(path: str | os.PathLike[str]) -> str:
    """A file's name without its compression suffix and then its suffix: ``run_7.csv.gz`` -> ``run_7``.

    Runs and workloads are named by it, so a compressed file gives the names its content does.

    Examples
    --------
    >>> input_stem("d/run_7.csv.gz"), input_stem("run_7.csv"), input_stem("r.XZ"), input_stem("noext")
    ('run_7', 'run_7', 'r', 'noext')
    """
    name = os.path.basename(os.fspath(path))
    return os.path.splitext(strip_compression_suffix(name))[0] or name


def strip_compression_suffix(name: str) -> str:
    """``name`` without a final ``.gz``, ``.bz2`` or ``.xz`` (any case).

    Examples
    --------
    >>> strip_compression_suffix("plan.json.gz"), strip_compression_suffix("plan.json")
    ('plan.json', 'plan.json')
    """
    root, suffix = os.path.splitext(name)
    return root if suffix.lower() in COMPRESSION_SUFFIXES and root else name


def is_parquet_name(path: str | os.PathLike[str]) -> bool:
    """Whether a file is *written* as Parquet: its name ends in ``.parquet`` or ``.pq`` (any case).

    Examples
    --------
    >>> is_parquet_name("t.PQ"), is_parquet_name("t.csv")
    (True, False)
    """
    return os.fspath(path).lower().endswith(PARQUET_SUFFIXES)


#: names of other formats: a table hemkit writes (CSV or Parquet) under one of them would only pretend to be it
OTHER_TABLE_SUFFIXES = (
    ".xlsx", ".xls", ".ods", ".json", ".jsonl", ".tsv", ".feather", ".arrow", ".h5", ".hdf5", ".pkl", ".pickle",
    ".npy", ".npz", ".html", ".htm", ".db", ".sqlite", ".toml", ".yaml", ".yml", ".png", ".svg", ".pdf",
)  # fmt: skip


def check_table_name(path: str | os.PathLike[str], what: str = "") -> None:
    """Refuse a table file named for another format: hemkit writes tables as CSV or Parquet (by suffix).

    Any other name is written as CSV (``t.txt``, no suffix), but a name of another format
    (``.xlsx``, ``.json``, ``.tsv``, ...) would hold CSV text that its program cannot open, and a
    name of a compression (``t.csv.gz``; hemkit reads compressed inputs but writes plain files)
    would hold plain CSV that ``gunzip`` refuses.

    Parameters
    ----------
    path : path
        The table file to be written.
    what : str
        How to name it in the message; default just the path.

    Raises
    ------
    OutputError
        Naming the file and the suffixes to use.

    Examples
    --------
    >>> check_table_name("t.csv"), check_table_name("t.PQ"), check_table_name("t.txt")
    (None, None, None)
    >>> check_table_name("t.xlsx")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: t.xlsx: hemkit writes tables as CSV or Parquet, not .xlsx; name it .csv or .parquet
    >>> check_table_name("t.csv.gz")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: t.csv.gz: hemkit writes files uncompressed, not .gz; write t.csv and compress it
    """
    check_plain_name(path, what)
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in OTHER_TABLE_SUFFIXES:
        label = f"{what} {name}" if what else name
        raise OutputError(f"{label}: hemkit writes tables as CSV or Parquet, not {suffix}; name it .csv or .parquet")


#: figure suffixes matplotlib writes (no suffix: PNG)
FIGURE_SUFFIXES = (".png", ".svg", ".svgz", ".pdf", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".pgf")


def check_figure_name(path: str | os.PathLike[str], what: str = "") -> None:
    """Refuse a figure file whose suffix names no figure format (the format is chosen by suffix).

    Parameters
    ----------
    path : path
        The figure file to be written; no suffix is PNG.
    what : str
        How to name it in the message (e.g. ``"plot"``); default just the path.

    Raises
    ------
    OutputError
        Naming the file and the suffixes to use.

    Examples
    --------
    >>> check_figure_name("f.svg"), check_figure_name("f.PNG"), check_figure_name("f")
    (None, None, None)
    >>> check_figure_name("f.txt", "plot")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: plot f.txt: .txt is not a figure format; name it .png, .svg or .pdf
    """
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix and suffix not in FIGURE_SUFFIXES:
        label = f"{what} {name}" if what else name
        raise OutputError(f"{label}: {suffix} is not a figure format; name it .png, .svg or .pdf")


#: names of other formats: the HTML page of a report under one of them would only pretend to be it
OTHER_PAGE_SUFFIXES = (
    *(s for s in OTHER_TABLE_SUFFIXES if s not in (".html", ".htm")), ".csv", *PARQUET_SUFFIXES, ".jpg", ".jpeg",
)  # fmt: skip


def check_page_name(path: str | os.PathLike[str], what: str = "report") -> None:
    """Refuse an HTML page named for another format: a report is one HTML page whatever its name.

    Any other name is written as HTML (``r.html``, ``r.htm``, no suffix), but ``r.pdf`` or
    ``r.png`` would hold HTML text that a PDF reader or image viewer cannot open.

    Parameters
    ----------
    path : path
        The page to be written.
    what : str
        How to name it in the message.

    Raises
    ------
    OutputError
        Naming the file and the suffix to use.

    Examples
    --------
    >>> check_page_name("r.html"), check_page_name("r.HTM"), check_page_name("report")
    (None, None, None)
    >>> check_page_name("r.pdf")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: report r.pdf: hemkit writes a report as one HTML page, not .pdf; name it .html
    """
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in OTHER_PAGE_SUFFIXES:
        raise OutputError(f"{what} {name}: hemkit writes a report as one HTML page, not {suffix}; name it .html")


#: names of other formats: a plan file (TOML, or JSON by name) under one of them would only pretend to be it
OTHER_PLAN_SUFFIXES = (
    *(s for s in OTHER_TABLE_SUFFIXES if s not in (".json", ".toml")), ".csv", *PARQUET_SUFFIXES,
)  # fmt: skip


def check_plan_name(path: str | os.PathLike[str]) -> None:
    """Refuse a plan file named for another format: a plan is TOML (JSON for a ``.json`` name).

    Any other name is written as TOML (``p.toml``, ``p.plan``, no suffix), but ``p.csv`` or
    ``p.yaml`` would hold TOML text that its program cannot read, and ``p.db`` would be taken
    for the collection database (``hemkit collect p.db`` makes ``p.db``).

    Raises
    ------
    OutputError
        Naming the file and the suffixes to use.

    Examples
    --------
    >>> check_plan_name("p.toml"), check_plan_name("p.JSON"), check_plan_name("plan")
    (None, None, None)
    >>> check_plan_name("p.csv")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: plan file p.csv: hemkit writes a plan as TOML or JSON, not .csv; \
name it .toml or .json
    """
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in OTHER_PLAN_SUFFIXES:
        raise OutputError(
            f"plan file {name}: hemkit writes a plan as TOML or JSON, not {suffix}; name it .toml or .json"
        )


def check_plain_name(path: str | os.PathLike[str], what: str = "") -> None:
    """Refuse an output named for a compression (``.gz``, ``.bz2``, ``.xz``): hemkit writes its files uncompressed.

    Raises
    ------
    OutputError
        Naming the file and the name to write instead.

    Examples
    --------
    >>> check_plain_name("plan.toml")
    >>> check_plain_name("plan.toml.xz", "plan")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.OutputError: plan plan.toml.xz: hemkit writes files uncompressed, not .xz; \
write plan.toml and compress it
    """
    name = os.fspath(path)
    root, suffix = os.path.splitext(name)
    if suffix.lower() in COMPRESSION_SUFFIXES and root:
        label = f"{what} {name}" if what else name
        raise OutputError(f"{label}: hemkit writes files uncompressed, not {suffix}; write {root} and compress it")


def check_version(source: str | os.PathLike[str], found: object, current: int, what: str) -> int:
    """The version of a file hemkit wrote, checked against the version this hemkit writes.

    The one policy for every format: no version (``None``: written before versions) reads as
    version 0, an older version is read, a newer one is refused.

    Parameters
    ----------
    source : path or str
        The file, named in the message.
    found : object
        The version the file holds (``None`` when it holds none).
    current : int
        The version this hemkit writes.
    what : str
        The format, named in the message (``"plan file"``).

    Returns
    -------
    int
        The file's version (0 for none).

    Raises
    ------
    InputError
        The version is not a whole number >= 0, or is newer than ``current``.
    """
    if found is None:
        return 0
    if isinstance(found, bool) or not isinstance(found, int) or found < 0:
        raise InputError(f"{os.fspath(source)}: {what} version {found!r} is not a whole number >= 0")
    if found > current:
        raise InputError(
            f"{os.fspath(source)}: {what} version {found} is newer than this hemkit reads (version {current}); "
            "update hemkit or write the file again with this one"
        )
    return found


__all__ = [
    "ANALYSIS_VERSION",
    "COLLECTION_VERSION",
    "COMPRESSIONS",
    "COMPRESSION_SUFFIXES",
    "FIGURE_SUFFIXES",
    "MODEL_SUFFIXES",
    "MODEL_VERSION",
    "PARQUET_MAGIC",
    "PARQUET_SUFFIXES",
    "PERF_DATA_MAGIC",
    "PLAN_VERSION",
    "SQLITE_MAGIC",
    "TABLE_VERSION",
    "TABLE_VERSION_KEY",
    "check_figure_name",
    "check_last_line",
    "check_plain_name",
    "check_table_name",
    "check_version",
    "compression",
    "cut_last_line",
    "input_stem",
    "is_parquet_name",
    "open_input",
    "read_head",
    "read_input",
    "read_tail",
    "strip_compression_suffix",
]
