"""Read ``perf script`` sample lines into a tidy table; check ``perf.data`` headers.

Recognised layout (Linux perf 5.x-6.x), one sample per line; fields in brackets are optional::

    COMM [PID/]TID [[CPU]] TIME: [PERIOD] [EVENT:] IP SYM[+0xOFF] [(DSO)]

as printed by ``perf script -F comm,tid,time,event,ip,sym,dso,period`` (:data:`FIELDS`;
``pid``, ``cpu`` and ``symoff`` may be added).  With call chains (``perf record -g``) the
header line ends after the event and the frames follow on indented ``IP SYM (DSO)`` lines;
the first frame (the leaf, where the sample hit) is kept.  Lines starting with ``#``
(``perf script --header``) are skipped.

Result columns: ``comm, tid, time, event, period, ip, sym, dso``; ``comm``, ``event``, ``ip``,
``sym`` and ``dso`` are categorical (each distinct name stored once: about 60 bytes per sample).

- ``period`` is the number of base events the sample stands for (``-c N`` prints N; with
  ``-F HZ`` perf varies it), 1 when perf did not print it.
- ``sym`` is the symbol without its offset, ``[unknown]`` where perf could not name it.
- ``dso`` is the object as perf prints it (``[kernel.kallsyms]``, a full path such as
  ``/usr/lib/x86_64-linux-gnu/libc.so.6``, ``[unknown]``), or ``""`` when the text carries
  no DSO field.  :func:`dso_name` gives perf report's short name (``libc.so.6``).

Three readers give this same table: :func:`parse_perf_script` (an array parser over the
bytes for text in perf's one-line layout, the line-by-line parser for anything else, such as
call chains), :class:`ScriptChunks` (the same, fed piece by piece while perf writes) and
:func:`read_dlfilter_output` (the binary records of ``perf script --dlfilter``, which
:func:`hemkit.sampling.read_samples` uses for ``perf.data``).  They take linear time and
memory and raise only :class:`~hemkit.core.errors.InputError`, naming the source and the line.
"""

from __future__ import annotations

import itertools
import os
import re
import struct
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pandas.api.types import union_categoricals

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.io.formats import PERF_DATA_MAGIC, read_input

COLUMNS = ["comm", "tid", "time", "event", "period", "ip", "sym", "dso"]
_CATEGORICAL = ("comm", "event", "ip", "sym", "dso")
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
MAGIC = PERF_DATA_MAGIC


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


#: a line of ``perf stat -x,`` output: a count (or perf's ``<not counted>`` / ``<not supported>``), a unit, an event
_PERF_STAT_LINE = re.compile(r"^(?:[\d.]+|<not (?:counted|supported)>),[^,]*,[^,\s][^,]*,")


class _Parser:
    """One pass over the lines; ``rows`` collects the samples."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.rows: list[list] = []
        self.want_leaf = False  # the last header had no IP: its first frame is the sample's
        self.in_chain = False  # frames may follow the last header

    def fail(self, lineno: int, line: str, why: str = "is not a perf script sample") -> InputError:
        hint = ""
        if why == "is not a perf script sample" and _PERF_STAT_LINE.match(line.strip()):
            hint = (
                "; it is a line of perf stat -x output (counts, not samples): hemkit merge, compare and report "
                "read those; sampling reads perf record's perf.data or perf script text"
            )
        return InputError(f"{self.source}: line {lineno} {why}: {line.strip()[:80]!r}{hint}")

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
        comm, tid = _comm_tid(line[: m.start()])
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


# ------------------------------------------------------------------ the array parser
# perf script prints one sample per line as "COMM TID TIME: PERIOD EVENT: IP SYM (DSO)", the
# fields padded with spaces.  _parse_fast finds the two ": " of each line and the tokens
# around them with NumPy over the bytes, and reads the parts that repeat (the text before the
# time: command, thread and CPU; the event; the text after the IP: symbol and DSO) once per
# distinct value with the line parser's own functions, so both parsers give the same table.
# A text it does not recognise in full (call chains, a field missing, tabs, a line that is
# neither a sample nor a comment) is left to the line parser.


def _is_digit(w: np.ndarray) -> np.ndarray:
    return (w - np.uint8(ord("0"))) < 10  # uint8 arithmetic wraps: one comparison


def _is_hex(w: np.ndarray) -> np.ndarray:
    return _is_digit(w) | ((w - np.uint8(ord("a"))) < 6)  # lower case, as perf prints it


_SPACE, _COLON, _NEWLINE = ord(" "), ord(":"), ord("\n")
_MAX_WINDOW = 96  # widest " PERIOD EVENT" read (perf pads the period to 10; event names are short)
_CHUNK = 1 << 30  # views address the text in 1 GiB pieces (Arrow's offsets are 32-bit) ...
_OVERLAP = 1 << 20  # ... that overlap by 1 MiB, so that every line shorter than that lies in one


def _window(b: np.ndarray, start: np.ndarray, width: int) -> np.ndarray:
    """``b[start : start + width]`` per row as an (n, width) array; bytes outside ``b`` read as newline.

    Lines need no other bound: the byte before a line and the byte after it are newlines.
    """
    inside = (start >= 0) & (start <= len(b) - width)
    if len(b) >= width and inside.all():
        return np.lib.stride_tricks.sliding_window_view(b, width)[start]
    idx = start[:, None] + np.arange(width)
    valid = (idx >= 0) & (idx < len(b))
    return np.where(valid, b[np.clip(idx, 0, max(len(b) - 1, 0))], _NEWLINE).astype(np.uint8)


def _first(mask: np.ndarray, after: np.ndarray | None = None) -> np.ndarray:
    """Per row, the first column where ``mask`` holds (at or after ``after``); the width if none."""
    if after is not None:
        mask = mask & (np.arange(mask.shape[1]) >= after[:, None])
    at = mask.argmax(axis=1)
    return np.where(mask[np.arange(len(mask)), at], at, mask.shape[1])


def _views(buffer: pa.Buffer, start: np.ndarray, length: np.ndarray) -> pa.Array:
    """Arrow ``binary_view`` array of ``buffer[start : start + length]`` (no copy of long strings)."""
    n = len(start)
    b = np.frombuffer(buffer, np.uint8)
    v = np.empty((n, 16), np.uint8)
    v[:, 4:16] = _window(b, start, 12)
    v[:, 4:16] *= np.arange(12) < length[:, None]  # inline strings are padded with zeros
    words = v.view("<i4")
    words[:, 0] = length
    long_ = np.flatnonzero(length > 12)  # prefix (kept), piece, offset
    piece = start[long_] // _CHUNK
    words[long_, 2] = piece
    words[long_, 3] = start[long_] - piece * _CHUNK
    pieces = [buffer[k * _CHUNK : k * _CHUNK + _CHUNK + _OVERLAP] for k in range(max(1, -(-len(b) // _CHUNK)))]
    return pa.Array.from_buffers(pa.binary_view(), n, [None, pa.py_buffer(v), *pieces])


def _digits(w: np.ndarray, count: np.ndarray, point: np.ndarray | None = None) -> np.ndarray:
    """The integer of the first ``count`` ASCII digits of each row of ``w``, least significant first.

    ``point`` is a column per row that is not a digit (a decimal point) and is passed over.
    """
    width = int(count.max(initial=0))
    col = np.arange(width)
    d = w[:, :width].astype(np.int64) - ord("0")
    power = col - (col > point[:, None]) if point is not None else np.broadcast_to(col, d.shape)
    use = col < count[:, None]
    if point is not None:
        use &= col != point[:, None]
    return (np.where(use, d, 0) * 10 ** np.minimum(power, 18)).sum(axis=1)


def _distinct(values: pa.Array) -> tuple[np.ndarray, list[str]] | None:
    """Codes and the distinct values as str, or None when one is not UTF-8."""
    enc = pc.dictionary_encode(values)
    try:
        uniq = [x.decode("utf-8") for x in enc.dictionary.to_pylist()]
    except UnicodeDecodeError:
        return None
    return enc.indices.to_numpy(zero_copy_only=False), uniq


def _header_prefix(prefix: str) -> tuple[str, int] | None:
    """``(comm, tid)`` of the text before a sample's time, as :meth:`_Parser.header` reads it; None if it would not."""
    if _TIME.search(prefix) is not None:  # an earlier "time:" in the line: the line parser decides
        return None
    comm, tid = _comm_tid(prefix)
    if tid is None or not comm or not -1 <= int(tid.group(1)) < _MAX_TID:
        return None
    return comm, int(tid.group(1))


def _comm_tid(prefix: str) -> tuple[str, re.Match[str] | None]:
    """The command and the thread-id match of the text before a sample's time (a ``[CPU]`` field skipped)."""
    prefix = prefix.rstrip()
    if prefix.endswith("]"):  # [CPU]
        i = prefix.rfind("[")
        if i > 0 and _CPU.fullmatch(prefix[i:]) and prefix[i - 1].isspace():
            prefix = prefix[:i].rstrip()
    cut = max(prefix.rfind(" "), prefix.rfind("\t"))
    return prefix[: max(cut, 0)].strip(), _TID.fullmatch(prefix[cut + 1 :])


def _tail(text: str) -> tuple[str, str]:
    """``(sym, dso)`` of the text after a sample's IP, as :meth:`_Parser.header` reads it."""
    text = text.strip()
    if not text:
        return "[unknown]", ""
    sym, dso = _symbol(text)
    return sym, dso if dso is not None else ""


def _categorical(values: list[str], codes: np.ndarray | None = None) -> pd.Categorical:
    """``values[codes]`` (or ``values``) as a categorical of str, categories in order of appearance."""
    if codes is not None:  # only the values used, in the order they are first used
        codes, used = pd.factorize(codes)
        values = [values[i] for i in used]
    inner, uniq = pd.factorize(pd.Index(values, dtype=str))
    return pd.Categorical.from_codes(inner if codes is None else inner[codes], categories=uniq)


def _parse_fast(data: bytes) -> pd.DataFrame | None:
    """The table of :func:`parse_perf_script` for text in perf's one-line layout, or None for the line parser."""
    b = np.frombuffer(data, np.uint8)
    controls = np.flatnonzero(b < 32)
    if len(b) == 0 or (b[controls] != _NEWLINE).any():  # tabs, CRs, NULs...: the line parser
        return None
    ends = controls if data.endswith(b"\n") else np.append(controls, len(b))
    starts = np.concatenate([[0], controls + 1])[: len(ends)]
    colons = np.flatnonzero(b == _COLON)
    seps = colons[b[np.minimum(colons + 1, len(b) - 1)] == _SPACE]  # ": "
    j = np.searchsorted(seps, starts)
    seps = np.append(seps, [len(b), len(b)])
    c1, c2 = seps[j], seps[j + 1]
    cand = np.flatnonzero(c2 < ends)  # lines with two ": "
    c1, c2, line_start, line_end = c1[cand], c2[cand], starts[cand], ends[cand]
    # the time: 1-9 digits, ".", 1-12 digits before the first ": ", after a space
    tw = _window(b, c1 - 23, 23)[:, ::-1]
    at = np.arange(len(cand))
    frac = _first(~_is_digit(tw))
    whole = _first(~_is_digit(tw), frac + 1) - frac - 1
    time_len = frac + 1 + whole
    ok = (frac >= 1) & (frac <= 9) & (whole >= 1) & (whole <= 12)
    ok &= (tw[at, np.minimum(frac, 22)] == ord(".")) & (tw[at, np.minimum(time_len, 22)] == _SPACE)
    # the period and the event between the two ": "
    rel = c2 - c1 - 1  # where the event's ":" is in the window
    width = int(max(int(rel.max(initial=0)) + 3, 8))
    if width > _MAX_WINDOW:
        return None
    pw = _window(b, c1 + 1, width)
    p0 = _first(pw != _SPACE)
    p1 = _first(~_is_digit(pw), p0)
    e0 = _first(pw != _SPACE, p1)
    ok &= (p0 >= 1) & (p1 - p0 >= 1) & (p1 - p0 <= 18) & (e0 > p1) & (e0 <= rel)
    ok &= _first(pw == _SPACE, e0) == rel + 1  # no space inside the event
    # the IP after the second ": "
    iw = _window(b, c2 + 1, 24)
    i0 = _first(iw != _SPACE)
    i1 = _first(~_is_hex(iw), i0)
    after_ip = iw[at, np.minimum(i1, 23)]
    ok &= (i1 - i0 >= 1) & (i1 - i0 <= 16) & (i1 < 24) & ((after_ip == _SPACE) | (after_ip == _NEWLINE))
    good = np.zeros(len(starts), bool)
    good[cand[ok]] = True
    for i in np.flatnonzero(~good):  # only blank lines and comments may be left
        line = data[starts[i] : ends[i]].decode("utf-8", errors="replace").strip()
        if line and not line.startswith("#"):
            return None
    if not ok.any():
        return None
    c1, c2, line_start, line_end = c1[ok], c2[ok], line_start[ok], line_end[ok]
    frac, time_len, p0, p1, e0, rel, i0, i1 = (x[ok] for x in (frac, time_len, p0, p1, e0, rel, i0, i1))
    buffer = pa.py_buffer(data)
    time_start = c1 - time_len
    tail_start = c2 + 1 + i1
    prefix = _distinct(_views(buffer, line_start, time_start - line_start))
    event = _distinct(_views(buffer, c1 + 1 + e0, rel - e0))
    tail = _distinct(_views(buffer, tail_start, line_end - tail_start))
    if prefix is None or event is None or tail is None:
        return None
    if any(e.split() != [e] for e in event[1] if e):  # whitespace beyond ASCII in an event: the line parser
        return None
    heads: list[tuple[str, int] | None] = []
    for text in prefix[1]:
        head = None if text.strip().startswith("#") else _header_prefix(text)
        if head is None and not text.strip().startswith("#"):
            return None
        heads.append(head)
    keep = np.array([h is not None for h in heads])[prefix[0]]  # a comment can look like a sample
    if not keep.any():
        return None
    tw, pw = tw[ok], pw[ok]
    if not keep.all():
        c1, c2, time_start, tail_start, frac, time_len, p0, p1, i0, i1, tw, pw = (
            x[keep] for x in (c1, c2, time_start, tail_start, frac, time_len, p0, p1, i0, i1, tw, pw)
        )
        prefix, event, tail = ((codes[keep], uniq) for codes, uniq in (prefix, event, tail))
    # the time as Python's float() reads it: digits / 10^decimals is correctly rounded while
    # the digits are exact (< 2^53), the period as an exact integer (at most 18 digits)
    if (time_len - 1 > 15).any():
        times = pc.cast(_views(buffer, time_start, c1 - time_start), pa.string()).cast(pa.float64()).to_numpy()
    else:
        times = _digits(tw, time_len, point=frac).astype(np.float64) / 10.0**frac
    periods = _digits(_window(b, c1 + 1 + p1 - 18, 18)[:, ::-1], p1 - p0)
    ips = _distinct(_views(buffer, c2 + 1 + i0, i1 - i0))
    if ips is None:
        return None
    syms = [_tail(t) for t in tail[1]]
    return pd.DataFrame(
        {
            "comm": _categorical([h[0] if h else "" for h in heads], prefix[0]),
            "tid": np.array([h[1] if h else 0 for h in heads], np.int64)[prefix[0]],
            "time": times,
            "event": _categorical(event[1], event[0]),
            "period": periods,
            "ip": _categorical(ips[1], ips[0]),
            "sym": _categorical([s[0] for s in syms], tail[0]),
            "dso": _categorical([s[1] for s in syms], tail[0]),
        }
    )


def parse_perf_script(text: str | bytes, source: str = "perf script output") -> pd.DataFrame:
    """Parse ``perf script`` text into one row per sample.

    Text in perf's own layout (one line per sample, as :data:`FIELDS` prints it) is read
    with array operations over its bytes (:func:`_parse_fast`); anything else (call chains,
    missing fields, lines that are not samples) goes through the line-by-line parser, which
    gives the same table and names the first bad line.

    Parameters
    ----------
    text : str or bytes
        The text; bytes are UTF-8, where a sequence that is not UTF-8 is read as U+FFFD with
        one warning (:func:`warn_replaced`).
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
    if isinstance(text, bytes):
        data = text
        if not data.isascii() and not _is_utf8(data):
            text = data.decode("utf-8", errors="replace")
            warn_replaced(text, source)
            data = text.encode("utf-8")
    else:
        data = text.encode("utf-8", errors="surrogatepass")
    chunks = ScriptChunks(source)  # pieces of 16 MiB: the array parser's memory stays bounded
    for i in range(0, len(data), chunks.chunk_bytes):
        chunks.feed(data[i : i + chunks.chunk_bytes])
    return chunks.result(lambda: text)


def _parse_lines(text: str, source: str) -> pd.DataFrame:
    """The line-by-line parser: every layout :func:`parse_perf_script` reads, and its errors."""
    parser = _Parser(source)
    for lineno, raw in enumerate(text.split("\n"), 1):
        parser.line(lineno, raw.rstrip("\r"))
    if not parser.rows:
        raise InputError(f"{source}: no samples")
    cols = list(zip(*parser.rows, strict=True))
    return pd.DataFrame(
        {
            "comm": _categorical(list(cols[0])),
            "tid": np.array(cols[1], np.int64),
            "time": np.array(cols[2], np.float64),
            "event": _categorical(list(cols[3])),
            "period": np.array(cols[4], np.int64),
            "ip": _categorical(list(cols[5])),
            "sym": _categorical(list(cols[6])),
            "dso": _categorical(list(cols[7])),
        }
    )


#: One sample as ``hemkit/sampling/c/samples_dlfilter.c`` writes it (perf script ``--dlfilter``).
RECORD = np.dtype(
    [
        ("tid", "<i4"),
        ("comm", "<u4"),
        ("time", "<u8"),
        ("period", "<u8"),
        ("ip", "<u8"),
        ("event", "<u4"),
        ("sym", "<u4"),
        ("dso", "<u4"),
        ("pad", "<u4"),
    ]
)


def _hex_column(values: np.ndarray) -> pd.Categorical:
    """Lower-case hex of unsigned 64-bit integers, as perf prints an IP, each distinct one spelled once."""
    codes, uniq = pd.factorize(values)
    return pd.Categorical.from_codes(codes, categories=pd.Index([f"{int(v):x}" for v in uniq], dtype=str))


def _read_names(data: bytes, source: str) -> list[str]:
    """Names for :func:`read_dlfilter_output` (0: no name); bytes not UTF-8 read as U+FFFD, with one warning."""
    out, bad, i = [""], 0, 0
    while i + 4 <= len(data):
        n = int.from_bytes(data[i : i + 4], "little")
        raw = data[i + 4 : i + 4 + n]
        if len(raw) != n:
            raise InputError(f"{source}: the names perf script wrote are cut short")
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            bad += 1
            out.append(raw.decode("utf-8", errors="replace"))
        i += 4 + n
    if bad:
        first = next(name for name in out if REPLACED in name)
        warnings.warn(
            f"{source}: {bad} name(s) that are not UTF-8 (through perf script), the first {first!r}; perf gives names "
            "as the binaries hold them: read with each such byte shown as U+FFFD",
            HemkitWarning,
            stacklevel=3,
        )
    return out


def _named(ids: np.ndarray, names: list[str], tidy: Callable[[str | None], str]) -> pd.Categorical:
    """A categorical column of the names ``ids`` refer to (0: None), each passed through ``tidy``."""
    codes, uniq = pd.factorize(ids)
    return _categorical([tidy(names[i] if i else None) for i in uniq], codes)


def _tidy_sym(name: str | None) -> str:
    return (_SYMOFF.sub("", name.strip()) or "[unknown]") if name else "[unknown]"


def read_dlfilter_output(records: str | os.PathLike[str], names: str | os.PathLike[str], source: str) -> pd.DataFrame:
    """The samples ``perf script --dlfilter samples_dlfilter.so`` wrote, as :func:`parse_perf_script` reads its text.

    The same table as the text of ``perf script -G -F`` :data:`FIELDS` gives: the time in
    seconds to the microsecond (as perf prints it), the IP in hex, ``[unknown]`` for a
    symbol or object perf could not name.

    Parameters
    ----------
    records, names : path
        The two files the filter wrote (see ``samples_dlfilter.c``).
    source : str
        Name of the perf.data file, in messages and ``attrs["source"]``.

    Raises
    ------
    InputError
        Files cut short, or no samples.
    """
    size = os.path.getsize(records)
    if size % RECORD.itemsize:
        raise InputError(f"{source}: the samples perf script wrote are cut short")
    r = np.frombuffer(Path(records).read_bytes(), RECORD)  # binary records, not a table
    if not len(r):
        raise InputError(f"{source}: no samples")
    name_list = _read_names(Path(names).read_bytes(), source)
    if int(max(r["comm"].max(), r["event"].max(), r["sym"].max(), r["dso"].max())) >= len(name_list):
        raise InputError(f"{source}: the names perf script wrote are cut short")
    if (r["period"] > _MAX_PERIOD).any():
        raise InputError(f"{source}: a sample has a period beyond 2^63")
    df = pd.DataFrame(
        {
            "comm": _named(r["comm"], name_list, lambda s: (s or "").strip()),
            "tid": r["tid"].astype(np.int64),
            "time": (r["time"] // 1000).astype(np.float64) / 1e6,
            "event": _named(r["event"], name_list, lambda s: s or ""),
            "period": r["period"].astype(np.int64),
            "ip": _hex_column(r["ip"]),
            "sym": _named(r["sym"], name_list, _tidy_sym),
            "dso": _named(r["dso"], name_list, lambda s: s or "[unknown]"),
        }
    )
    df.attrs["source"] = source
    return df


class ScriptChunks:
    """Parse ``perf script`` output piece by piece as it arrives (:meth:`feed`), then :meth:`result`.

    Every piece of whole lines is parsed by the array parser as soon as it is
    ``chunk_bytes`` long, so a large output is parsed while perf is still writing it and is
    never held as a whole.  Output the array parser does not read (call chains, names that
    are not UTF-8, ...) is parsed whole, by :func:`parse_perf_script`, in :meth:`result`.

    Examples
    --------
    >>> chunks = ScriptChunks("x.txt", chunk_bytes=40)
    >>> chunks.feed(b"  a 1 2.000001: 10 cpu-clock:  4011a6 f (/bin/a)\\n  a 1 2.0000")
    >>> chunks.feed(b"02: 10 cpu-clock:  4011a7 g (/bin/a)\\n")
    >>> chunks.result(lambda: b"").sym.tolist()
    ['f', 'g']
    """

    def __init__(self, source: str, chunk_bytes: int = 16 << 20) -> None:
        self.source, self.chunk_bytes = source, chunk_bytes
        self.frames: list[pd.DataFrame] = []
        self.pending: list[bytes] = []
        self.pending_bytes = 0
        self.fast = True  # every piece so far was read by the array parser
        self.empty = True  # nothing but white space so far

    def feed(self, data: bytes) -> None:
        """Take the next bytes of the output."""
        if self.empty and not data.isspace():
            self.empty = False
        if not self.fast or not data:
            return
        self.pending.append(data)
        self.pending_bytes += len(data)
        if self.pending_bytes >= self.chunk_bytes:
            self._parse(final=False)

    def _parse(self, final: bool) -> None:
        text = b"".join(self.pending)
        cut = len(text) if final else text.rfind(b"\n") + 1
        if cut == 0:
            return
        self.pending = [text[cut:]] if cut < len(text) else []
        self.pending_bytes = len(text) - cut
        piece = text[:cut]
        if not piece.strip():
            return
        df = _parse_fast(piece) if piece.isascii() or _is_utf8(piece) else None
        if df is None:
            self.fast, self.frames, self.pending = False, [], []
        else:
            self.frames.append(df)

    def result(self, whole: Callable[[], str | bytes]) -> pd.DataFrame:
        """The samples; ``whole()`` gives the complete output (str, or UTF-8 bytes) when it must be parsed whole.

        Raises
        ------
        InputError
            As :func:`parse_perf_script`.
        """
        if self.fast and self.pending:
            self._parse(final=True)
        if not self.fast or not self.frames:
            text = whole()
            if isinstance(text, bytes):  # UTF-8: a caller has warned about bytes that are not
                text = text.decode("utf-8", errors="replace")
            df = _parse_lines(text, self.source)
            df.attrs["source"] = self.source
            return df
        if len(self.frames) == 1:
            df = self.frames[0]
        else:
            df = pd.DataFrame(
                {
                    col: union_categoricals([f[col] for f in self.frames])
                    if col in _CATEGORICAL
                    else pd.concat([f[col] for f in self.frames], ignore_index=True)
                    for col in COLUMNS
                }
            )
        df.attrs["source"] = self.source
        return df


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


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


_HEADER_CMDLINE = 11  # perf's feature bit of the recorded command line (tools/perf/util/header.h)
#: perf record options that take a value as the next argument (the program is the first other argument)
_RECORD_VALUE_OPTIONS = frozenset(
    "-e -c -F -o -m -C -p -t -u -G -j -r -D --event --count --freq --output --call-graph --mmap-pages --cpu "
    "--filter --cgroup --delay --branch-filter --realtime --user-regs --intr-regs --clockid --affinity".split()
)
#: perf record options that profile something other than one started program
_RECORD_ATTACH = frozenset("-a --all-cpus -p --pid -t --tid -u --uid".split())


def perf_data_command(path: str | os.PathLike[str]) -> list[str] | None:
    """The command line ``perf record`` was run with, from a ``perf.data`` header (its ``cmdline`` feature).

    None where the file has none (pipe mode, or an old perf) or its header cannot be read.

    Examples
    --------
    >>> perf_data_command("perf.data")  # doctest: +SKIP
    ['/usr/bin/perf', 'record', '-e', 'cpu-clock', '--', './prog', '60']
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(104)
            if len(head) < 104 or head[:8] != MAGIC or struct.unpack_from("<Q", head, 8)[0] != 104:
                return None
            data_offset, data_size = struct.unpack_from("<QQ", head, 40)
            features = int.from_bytes(head[72:104], "little")
            if not features >> _HEADER_CMDLINE & 1:
                return None
            index = bin(features & ((1 << _HEADER_CMDLINE) - 1)).count("1")  # sections before it
            fh.seek(data_offset + data_size + 16 * index)
            offset, size = struct.unpack("<QQ", fh.read(16))
            fh.seek(offset)
            blob = fh.read(min(size, 1 << 20))
        (count,) = struct.unpack_from("<I", blob, 0)
        args, pos = [], 4
        for _ in range(min(count, 10_000)):
            (n,) = struct.unpack_from("<I", blob, pos)
            args.append(blob[pos + 4 : pos + 4 + n].split(b"\0", 1)[0].decode("utf-8", errors="replace"))
            pos += 4 + n
    except (OSError, struct.error):
        return None
    return args


def recorded_program(command: list[str]) -> str | None:
    """The command name (``comm``, 15 characters at most) of the program ``perf record`` started, if one.

    None for a system-wide or attached recording (``-a``, ``-p``, ``-t``, ``-u``) or when the
    command line names no program.

    Examples
    --------
    >>> recorded_program(["/usr/bin/perf", "record", "-e", "cpu-clock", "--", "./my_long_program_name", "9"])
    'my_long_program'
    >>> recorded_program(["perf", "record", "-a", "sleep", "1"]) is None
    True
    """
    args = command[2:] if len(command) > 1 and command[1] == "record" else command[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if a.split("=", 1)[0] in _RECORD_ATTACH:
            return None
        if not a.startswith("-"):
            break
        i += 2 if a in _RECORD_VALUE_OPTIONS else 1
    if i >= len(args):
        return None
    return os.path.basename(args[i].rstrip("/"))[:15] or None


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
    """Samples of a ``perf script`` text file (gzip, bzip2 or xz compressed or not).

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
    data = read_input(p)  # gzip, bzip2 or xz decompressed (a compressed perf.data is refused there)
    if data.startswith(MAGIC):
        raise InputError(f"{p}: a perf.data file; decode it with 'perf script -F {FIELDS}' first")
    if not data.strip():
        raise InputError(f"{p}: empty file, no samples")
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            # perf prints command and symbol names as the binaries hold them: a few bytes that are
            # not UTF-8 are names, not a sign of another kind of file
            text = data.decode("utf-8", errors="replace")
            if text.count(REPLACED) > len(data) * MAX_REPLACED:
                raise InputError(
                    f"{p}: neither perf.data nor perf script text (not UTF-8 at byte {exc.start})"
                ) from None
            if b"\x00" not in data:  # binary (a collection database): refused below, without a warning of its bytes
                warn_replaced(text, str(p))
            data = text.encode("utf-8")
    if b"\x00" in data:
        raise InputError(f"{p}: neither perf.data nor perf script text (binary data at byte {data.index(0)})")
    if not data.endswith(b"\n"):  # perf script ends every line: this file was cut short
        lines = data.count(b"\n") + 1
        raise InputError(f"{p}: ends in the middle of line {lines} (cut short?)")
    return parse_perf_script(data, source=str(p))


def recording_files(source: str | os.PathLike[str]) -> list[Path]:
    """The recordings a path stands for: the file itself, or every file of a folder in natural order.

    A folder holds the recordings of one side of a comparison, one execution per file
    (``perf record -o before/1.data``, ``before/2.data`` ...: ``perf.data`` or ``perf script``
    text); hidden files (``.DS_Store``, editor backups) are left out.  Whether each file is a
    recording is told when it is read.

    Raises
    ------
    InputError
        A path that does not exist, a folder that cannot be listed, holds a folder, or holds no
        file.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> for name in ("r10.data", "r2.data", ".hidden"):
    ...     _ = (d / name).write_bytes(MAGIC)
    >>> [p.name for p in recording_files(d)]
    ['r2.data', 'r10.data']
    """
    from hemkit.io.perf_files import natural_key

    p = Path(os.fspath(source))
    if not p.is_dir():
        if not p.exists():
            raise InputError(f"{p}: no such file or folder")
        return [p]
    try:
        entries = sorted((e for e in p.iterdir() if not e.name.startswith(".")), key=natural_key)
    except OSError as exc:
        raise InputError(f"{p}: cannot be listed ({exc.strerror or type(exc).__name__})") from None
    inner = next((e for e in entries if e.is_dir()), None)
    if inner is not None:
        raise InputError(
            f"{p}: holds a folder {inner.name!r}; a folder is read as the recordings of one side, one perf.data "
            "file per execution"
        )
    if not entries:
        raise InputError(f"{p}: no perf.data files in the folder (a folder holds one recording per file)")
    return entries


__all__ = [
    "COLUMNS",
    "RECORD",
    "read_dlfilter_output",
    "ScriptChunks",
    "FIELDS",
    "check_perf_data",
    "dso_name",
    "is_perf_data",
    "parse_perf_script",
    "perf_data_command",
    "recorded_program",
    "read_perf_script",
    "recording_files",
    "warn_replaced",
]
