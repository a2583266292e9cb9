"""Read ``perf script`` sample lines (or a ``perf.data`` file) into a tidy table.

Recognised layout (Linux perf 6.x), one sample per line; fields in brackets are optional::

    COMM [PID/]TID [[CPU]] TIME: [PERIOD] [EVENT:] IP SYM[+0xOFF] [(DSO)]

as printed by ``perf script -F comm,tid,time,event,ip,sym,period`` (``pid``, ``cpu``,
``dso``, ``symoff`` may be added).  With call chains (``perf record -g``) the header line
ends after the event and the frames follow on indented ``IP SYM`` lines; the first frame
(the leaf, where the sample hit) is kept.

Result columns: ``comm, tid, time, event, period, ip, sym, dso``.  ``period`` is the
number of base events the sample stands for (``-c N`` prints N; with ``-F HZ`` perf
varies it), 1 when perf did not print it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from hemkit.core.errors import HemkitError

COLUMNS = ["comm", "tid", "time", "event", "period", "ip", "sym", "dso"]
FIELDS = "comm,tid,time,event,ip,sym,period"

_HEADER = re.compile(
    r"^\s*(?P<comm>\S.*?)\s+(?:(?P<pid>-?\d+)/)?(?P<tid>-?\d+)\s+(?:\[(?P<cpu>\d+)\]\s+)?(?P<time>\d+\.\d+):(?P<rest>.*)$"
)
_REST = re.compile(
    r"^\s*(?:(?P<period>\d+)\s+)?(?:(?P<event>[A-Za-z_][\w:./=,-]*?):\s*)?"
    r"(?:(?P<ip>[0-9a-f]+)(?:\s+(?P<sym>.*?))?)?\s*$"
)
_FRAME = re.compile(r"^\s+(?P<ip>[0-9a-f]+)\s+(?P<sym>.*?)\s*$")
_SYMOFF = re.compile(r"\+0x[0-9a-f]+$")
_DSO = re.compile(r"\s*\(([^()]*)\)$")


def _split_sym(text: str | None) -> tuple[str, str]:
    if not text:
        return "[unknown]", ""
    dso = ""
    m = _DSO.search(text)
    if m:
        dso, text = m.group(1), text[: m.start()]
    sym = _SYMOFF.sub("", text.strip()) or "[unknown]"
    return sym, dso


def parse_perf_script(text: str, source: str = "perf script output") -> pd.DataFrame:
    """Parse ``perf script`` text into one row per sample.

    Parameters
    ----------
    text : str
    source : str
        Name used in error messages (usually the file name).

    Raises
    ------
    HemkitError
        Text that has no sample line, or a line that is neither a sample nor a frame.

    Examples
    --------
    >>> df = parse_perf_script("  spin  4574   334.871279:     100000 cpu-clock:  4011a6 f1+0x16 (/tmp/spin)")
    >>> row = df.iloc[0]
    >>> row["comm"], int(row["tid"]), int(row["period"]), row["sym"], row["dso"]
    ('spin', 4574, 100000, 'f1', '/tmp/spin')
    """
    rows: list[list] = []
    want_frame = False
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            want_frame = False
            continue
        m = _HEADER.match(line)
        if m and not (line[:1].isspace() and _FRAME.match(line) and want_frame):
            r = _REST.match(m.group("rest"))
            if r is None:
                raise HemkitError(f"{source}: line {lineno} is not a perf script sample: {line.strip()[:80]!r}")
            sym, dso = _split_sym(r.group("sym"))
            rows.append(
                [
                    m.group("comm"),
                    int(m.group("tid")),
                    float(m.group("time")),
                    r.group("event") or "",
                    int(r.group("period")) if r.group("period") else 1,
                    r.group("ip") or "",
                    sym,
                    dso,
                ]
            )
            want_frame = r.group("ip") is None
            continue
        f = _FRAME.match(line)
        if f and rows:
            if want_frame:  # leaf frame of a call chain; callers after it are skipped
                rows[-1][5] = f.group("ip")
                rows[-1][6], rows[-1][7] = _split_sym(f.group("sym"))
                want_frame = False
            continue
        raise HemkitError(f"{source}: line {lineno} is not a perf script sample: {line.strip()[:80]!r}")
    if not rows:
        raise HemkitError(f"{source}: no samples")
    df = pd.DataFrame(rows, columns=COLUMNS)
    df["sym"] = df["sym"].where(df["ip"] != "", "[unknown]")
    return df


def is_perf_data(path: str | Path) -> bool:
    """Whether ``path`` starts with the ``perf.data`` magic (``PERFILE2``)."""
    with open(path, "rb") as fh:
        return fh.read(8) == b"PERFILE2"


def read_perf_script(path: str | Path) -> pd.DataFrame:
    """Samples of a ``perf script`` text file.

    A ``perf.data`` file must be decoded first (:func:`hemkit.external.perf.perf_script_text`,
    or :func:`hemkit.sampling.read_samples`, which does both).

    Examples
    --------
    >>> df = read_perf_script("perf.txt")  # doctest: +SKIP
    """
    path = Path(path)
    if not path.is_file():
        raise HemkitError(f"{path}: no such file")
    if is_perf_data(path):
        raise HemkitError(f"{path}: a perf.data file; decode it with 'perf script' first")
    try:
        text = path.read_text()
    except UnicodeDecodeError as exc:
        raise HemkitError(f"{path}: neither perf.data nor perf script text") from exc
    return parse_perf_script(text, source=str(path))
