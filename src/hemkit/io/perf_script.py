"""Read ``perf script`` sample lines into a tidy table; check ``perf.data`` headers.

Recognised layout (Linux perf 5.x-6.x), one sample per line; fields in brackets are optional::

    COMM [PID/]TID [[CPU]] TIME: [PERIOD] [EVENT:] IP SYM[+0xOFF] [(DSO)]

as printed by ``perf script -F comm,tid,time,event,ip,sym,dso,period`` (:data:`FIELDS`;
``pid``, ``cpu`` and ``symoff`` may be added).  With call chains (``perf record -g``) the
header line ends after the event and the frames follow on indented ``IP SYM (DSO)`` lines;
the first frame (the leaf, where the sample hit) is kept.  Lines starting with ``#``
(``perf script --header``) are skipped.

Result columns: ``comm, tid, time, event, period, ip, sym, dso``.

- ``period`` is the number of base events the sample stands for (``-c N`` prints N; with
  ``-F HZ`` perf varies it), 1 when perf did not print it.
- ``sym`` is the symbol without its offset, ``[unknown]`` where perf could not name it.
- ``dso`` is the object as perf prints it (``[kernel.kallsyms]``, a full path such as
  ``/usr/lib/x86_64-linux-gnu/libc.so.6``, ``[unknown]``), or ``""`` when the text carries
  no DSO field.  :func:`dso_name` gives perf report's short name (``libc.so.6``).

The parser reads each line in linear time and raises only
:class:`~hemkit.core.errors.InputError`, naming the source and the line.
"""

from __future__ import annotations

import itertools
import os
import re
import struct
import warnings
from pathlib import Path

import pandas as pd

from hemkit.core.errors import HemkitWarning, InputError

COLUMNS = ["comm", "tid", "time", "event", "period", "ip", "sym", "dso"]
#: The fields hemkit asks ``perf script`` for (``-F``): enough to name symbols and objects.
FIELDS = "comm,tid,time,event,ip,sym,dso,period"

_TIME = re.compile(r"(?<!\S)(\d{1,12}\.\d{1,9}):(?=\s|$)")
_TID = re.compile(r"(?:-?\d{1,10}/)?(-?\d{1,10})")
_CPU = re.compile(r"\[\d{1,6}\]")
_TOKEN = re.compile(r"\S+")
_HEX = re.compile(r"[0-9a-fA-F]{1,16}")
_JIT_MAP = re.compile(r"/tmp/perf-(\d+)\.map")
_SYMOFF = re.compile(r"\+0x[0-9a-fA-F]+$")
_MAX_PERIOD = 2**63 - 1
_MAX_TID = 2**31

#: perf.data's magic number (version 2 of the file format)
MAGIC = b"PERFILE2"


def _split_dso(text: str) -> tuple[str, str | None]:
    """``"f+0x1 (/lib/x.so)"`` -> ``("f+0x1", "/lib/x.so")``; the last balanced ``(...)`` is the DSO."""
    s = text.rstrip()
    if not s.endswith(")"):
        return s, None
    depth = 0
    for i in range(len(s) - 1, -1, -1):
        c = s[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                if i == 0 or s[i - 1].isspace():
                    return s[:i].rstrip(), s[i + 1 : -1]
                return s, None  # "foo(int)": a C++ signature, not a DSO
    return s, None


def _symbol(text: str) -> tuple[str, str | None]:
    sym, dso = _split_dso(text)
    sym = _SYMOFF.sub("", sym.strip()) or "[unknown]"
    return sym, dso


def dso_name(dso: str) -> str:
    """The short name of a DSO, as perf report shows it.

    The file name of a path; ``[JIT] tid N`` for perf's map of anonymous executable
    memory (``/tmp/perf-N.map``); other names (``[kernel.kallsyms]``, ``[unknown]``) as
    they are.

    Examples
    --------
    >>> dso_name("/usr/lib/x86_64-linux-gnu/libc.so.6"), dso_name("[kernel.kallsyms]")
    ('libc.so.6', '[kernel.kallsyms]')
    >>> dso_name("/tmp/perf-28907.map")
    '[JIT] tid 28907'
    """
    if not dso or dso.startswith("["):
        return dso
    jit = _JIT_MAP.fullmatch(dso)
    if jit:
        return f"[JIT] tid {jit.group(1)}"
    return os.path.basename(dso.rstrip("/")) or dso


class _Parser:
    """One pass over the lines; ``rows`` collects the samples."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.rows: list[list] = []
        self.want_leaf = False  # the last header had no IP: its first frame is the sample's
        self.in_chain = False  # frames may follow the last header

    def fail(self, lineno: int, line: str, why: str = "is not a perf script sample") -> InputError:
        return InputError(f"{self.source}: line {lineno} {why}: {line.strip()[:80]!r}")

    def line(self, lineno: int, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            self.want_leaf = self.in_chain = False
            return
        if stripped.startswith("#"):
            return
        m = _TIME.search(line)
        if m is not None and not (self.want_leaf and line[:1].isspace() and self._frame(line) is not None):
            self.header(lineno, line, m)
            return
        frame = self._frame(line) if line[:1].isspace() else None
        if frame is None or not self.in_chain:
            raise self.fail(lineno, line)
        if self.want_leaf:  # the leaf frame of a call chain; the callers after it are skipped
            ip, sym, dso = frame
            row = self.rows[-1]
            row[5], row[6], row[7] = ip, sym, dso if dso is not None else ""
            self.want_leaf = False

    @staticmethod
    def _frame(line: str) -> tuple[str, str, str | None] | None:
        parts = line.strip().split(None, 1)
        if not parts or _HEX.fullmatch(parts[0]) is None:
            return None
        sym, dso = _symbol(parts[1]) if len(parts) > 1 else ("[unknown]", None)
        return parts[0].lower(), sym, dso

    def header(self, lineno: int, line: str, m: re.Match[str]) -> None:
        prefix = line[: m.start()].rstrip()
        if prefix.endswith("]"):  # [CPU]
            i = prefix.rfind("[")
            if i > 0 and _CPU.fullmatch(prefix[i:]) and prefix[i - 1].isspace():
                prefix = prefix[:i].rstrip()
        cut = max(prefix.rfind(" "), prefix.rfind("\t"))
        tid = _TID.fullmatch(prefix[cut + 1 :])
        comm = prefix[: max(cut, 0)].strip()
        if tid is None or not comm:
            raise self.fail(lineno, line)
        tid_value = int(tid.group(1))
        if not -1 <= tid_value < _MAX_TID:
            raise self.fail(lineno, line, f"has an impossible thread id {tid_value}")
        time = float(m.group(1))
        rest = line[m.end() :]
        toks = [(t.group(), t.end()) for t in itertools.islice(_TOKEN.finditer(rest), 2)]
        k, period = 0, 1
        if toks and toks[0][0].isdigit() and (len(toks) == 1 or toks[1][0].endswith(":") or _HEX.fullmatch(toks[1][0])):
            if len(toks[0][0]) > 19 or int(toks[0][0]) > _MAX_PERIOD:
                raise self.fail(lineno, line, "has a period beyond 2^63")
            period, k = int(toks[0][0]), 1
        pos = toks[k - 1][1] if k else 0
        event = ""
        nxt = _TOKEN.search(rest, pos)
        if nxt is not None and nxt.group().endswith(":"):
            event, pos = nxt.group()[:-1], nxt.end()
        # what follows the event: "IP SYM (DSO)", or nothing (a call chain on the next lines)
        after = rest[pos:].strip()
        ip, sym, dso = "", "[unknown]", "[unknown]"
        if after:
            parts = after.split(None, 1)
            if _HEX.fullmatch(parts[0]) is None:
                raise self.fail(lineno, line)
            ip = parts[0].lower()
            sym, printed = _symbol(parts[1]) if len(parts) > 1 else ("[unknown]", None)
            dso = printed if printed is not None else ""
        self.rows.append([comm, tid_value, time, event, period, ip, sym, dso])
        self.want_leaf = not after
        self.in_chain = True


def parse_perf_script(text: str, source: str = "perf script output") -> pd.DataFrame:
    """Parse ``perf script`` text into one row per sample.

    Parameters
    ----------
    text : str
    source : str
        Name used in error messages (usually the file name).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`, one row per sample, in the order of the text;
        ``attrs["source"]`` is ``source``.

    Raises
    ------
    InputError
        Text without a sample line, or a line that is neither a sample nor a frame of one
        (the message names the source and the line).

    Examples
    --------
    >>> line = "  spin  4574   334.871279:     100000 cpu-clock:  4011a6 f1+0x16 (/tmp/spin)"
    >>> row = parse_perf_script(line).iloc[0]
    >>> row["comm"], int(row["tid"]), int(row["period"]), row["sym"], row["dso"]
    ('spin', 4574, 100000, 'f1', '/tmp/spin')
    """
    parser = _Parser(source)
    for lineno, raw in enumerate(text.split("\n"), 1):
        parser.line(lineno, raw.rstrip("\r"))
    if not parser.rows:
        raise InputError(f"{source}: no samples")
    df = pd.DataFrame(parser.rows, columns=COLUMNS).astype({"tid": "int64", "time": "float64", "period": "int64"})
    df.attrs["source"] = source
    return df


def is_perf_data(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` starts with the ``perf.data`` magic (``PERFILE2``).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "perf.data")
    >>> _ = open(p, "wb").write(b"PERFILE2" + bytes(100))
    >>> is_perf_data(p)
    True
    """
    try:
        with open(path, "rb") as fh:
            return fh.read(8) == MAGIC
    except OSError as exc:
        raise InputError(f"{os.fspath(path)}: cannot be read ({exc.strerror or exc})") from None


def check_perf_data(path: str | os.PathLike[str]) -> None:
    """Refuse a ``perf.data`` file whose header says more data than the file holds.

    The header (``struct perf_file_header``) gives the offset and size of the data section;
    a file cut short (a copy that did not finish, a full disk during ``perf record``) holds
    less.  Pipe-mode files (``perf record -o -``) have no sizes and are left to perf.

    Raises
    ------
    InputError
        Not a perf.data file, a header cut short, or data cut short.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "perf.data")
    >>> _ = open(p, "wb").write(b"PERFILE2" + (16).to_bytes(8, "little"))
    >>> check_perf_data(p)  # pipe mode: nothing to check
    >>> _ = open(p, "wb").write(b"PERFILE2" + (104).to_bytes(8, "little") + bytes(24) + (104).to_bytes(8, "little")
    ...                         + (5000).to_bytes(8, "little") + bytes(48))
    >>> check_perf_data(p)
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: ...: perf.data is truncated: its data section ends at byte 5104, ...104 bytes
    """
    p = os.fspath(path)
    try:
        size = os.path.getsize(p)
        with open(p, "rb") as fh:
            head = fh.read(104)
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from None
    if head[:8] != MAGIC:
        raise InputError(f"{p}: not a perf.data file (no PERFILE2 magic)")
    if len(head) < 16:
        raise InputError(f"{p}: perf.data header is cut short ({size} bytes)")
    (header_size,) = struct.unpack_from("<Q", head, 8)
    if header_size == 16:  # pipe mode
        return
    if len(head) < 56:
        raise InputError(f"{p}: perf.data header is cut short ({size} bytes)")
    data_offset, data_size = struct.unpack_from("<QQ", head, 40)
    if data_offset + data_size > size:
        raise InputError(
            f"{p}: perf.data is truncated: its data section ends at byte {data_offset + data_size}, "
            f"the file has {size} bytes"
        )


#: what a byte that is not UTF-8 is read as
REPLACED = "\ufffd"
#: text with more such bytes than this fraction is binary data, not perf script output
MAX_REPLACED = 0.2


def warn_replaced(text: str, source: str) -> None:
    """One warning when ``text`` holds bytes that were not UTF-8 (read as U+FFFD), naming the first line.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_replaced("a 1 2.0: 1 cpu-clock: 4011a6 f\\ufffd (/bin/a)\\n", "x.txt")
    >>> str(w[0].message).split(";")[0]
    'x.txt: 1 byte sequence(s) that are not UTF-8, the first on line 1'
    """
    n = text.count(REPLACED)
    if not n:
        return
    line = text.count("\n", 0, text.index(REPLACED)) + 1
    warnings.warn(
        f"{source}: {n} byte sequence(s) that are not UTF-8, the first on line {line}; perf prints command and "
        "symbol names as the binaries hold them: read with each shown as U+FFFD",
        HemkitWarning,
        stacklevel=3,
    )


def read_perf_script(path: str | Path) -> pd.DataFrame:
    """Samples of a ``perf script`` text file.

    A ``perf.data`` file must be decoded first (:func:`hemkit.sampling.read_samples` does
    both).

    Raises
    ------
    InputError
        A missing, unreadable, empty, binary, cut short (no final newline) or malformed
        file (the message names it and the line).

    Examples
    --------
    >>> df = read_perf_script("perf.txt")  # doctest: +SKIP
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p}: is a folder, not perf script text")
    if not p.exists():
        raise InputError(f"{p}: no such file")
    if not p.is_file():
        raise InputError(f"{p}: not a regular file")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from None
    if data.startswith(MAGIC):
        raise InputError(f"{p}: a perf.data file; decode it with 'perf script -F {FIELDS}' first")
    if not data.strip():
        raise InputError(f"{p}: empty file, no samples")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # perf prints command and symbol names as the binaries hold them: a few bytes that are
        # not UTF-8 are names, not a sign of another kind of file
        text = data.decode("utf-8", errors="replace")
        if text.count(REPLACED) > len(data) * MAX_REPLACED:
            raise InputError(f"{p}: neither perf.data nor perf script text (not UTF-8 at byte {exc.start})") from None
        warn_replaced(text, str(p))
    if "\x00" in text:
        raise InputError(f"{p}: neither perf.data nor perf script text (binary data at byte {text.index(chr(0))})")
    if not text.endswith("\n"):  # perf script ends every line: this file was cut short
        raise InputError(f"{p}: ends in the middle of line {text.count(chr(10)) + 1} (cut short?)")
    return parse_perf_script(text, source=str(p))


__all__ = [
    "COLUMNS",
    "FIELDS",
    "check_perf_data",
    "dso_name",
    "is_perf_data",
    "parse_perf_script",
    "read_perf_script",
    "warn_replaced",
]
