"""Files of the metric derivation: measurements (CSV/Parquet), analyses (JSON), tables, presets, examples.

Every write goes through :mod:`hemkit.io.atomic` (a temporary file renamed into place), every
read raises :class:`~hemkit.core.errors.InputError` naming the file and what is wrong with it.

- :func:`read_measurements` / :func:`write_measurements` -- the tidy table of ``hemkit derive run``.
- :func:`save_analysis` / :func:`load_analysis` -- a :class:`DeriveAnalysis` as JSON.
- :func:`write_definitions` -- a definition table as ``.md``, ``.csv`` or ``.json``.
- :func:`read_presets` -- a ``preset,definition`` CSV (e.g. PAPI's presets on a machine).
- :func:`example_measurements` -- the bundled example measured with valgrind
  (``benchmarks/derive_example.py`` makes it).

Examples
--------
>>> m = example_measurements("dcache")
>>> sorted(m["kernel"].unique()), m["backend"].iloc[0]
(['l1', 'll', 'mem'], 'valgrind')
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import InputError
from hemkit.derive.analysis import DeriveAnalysis
from hemkit.derive.families import FAMILIES
from hemkit.derive.paper import paper_family, paper_measurements
from hemkit.derive.report import Definitions, preset_table
from hemkit.derive.tables import show_value, to_markdown
from hemkit.io.atomic import atomic_path, write_text

REQUIRED = ["kernel", "size", "run", "event", "value"]
EXAMPLES = ("branch", "dcache")
TABLE_SUFFIXES = (".md", ".csv", ".json")


def read_text_file(path: str | Path, what: str, *, hint: str = "") -> str:
    """The text of a user's file, or an :class:`InputError`: missing, a folder, not UTF-8, unreadable.

    Examples
    --------
    >>> read_text_file("/nonexistent/ev.txt", "event list")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: /nonexistent/ev.txt: no such event list
    """
    p = Path(path)
    _check_file(p, what, hint)
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{p}: not a text file (not UTF-8); expected a {what}") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror})") from None


def _check_file(path: Path, what: str, hint: str = "") -> None:
    if not path.exists():
        raise InputError(f"{path}: no such {what}{' ' + hint if hint else ''}")
    if not path.is_file():
        raise InputError(f"{path}: is not a file")


def _read_csv(path: Path, what: str) -> pd.DataFrame:
    _check_file(path, f"{what} file")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(path)
        return pd.read_csv(path, dtype={"size": str, "kernel": str, "event": str, "family": str, "backend": str})
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: empty file, not a {what} table") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OSError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InputError(f"{path}: not a {what} table ({first})") from None


def check_measurements(data: pd.DataFrame, source: str = "measurements") -> pd.DataFrame:
    """The measurements table checked and normalised (``rep`` read as ``run``), or an :class:`InputError`.

    Checks: the columns ``kernel, size, run, event, value``; no blank kernel, size or event;
    values that are finite numbers >= 0; at most one ``family`` and ``backend``; at least 2 runs;
    no (kernel, size, run, event) twice.

    Examples
    --------
    >>> df = pd.DataFrame({"kernel": ["nt"] * 2, "size": ["1"] * 2, "run": [0, 1], "event": ["Bc"] * 2,
    ...                    "value": [2.0, -1]})
    >>> check_measurements(df, "m.csv")
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: m.csv: event Bc on nt/1 run 1: value -1 is negative (counts are >= 0)
    """
    df = data.rename(columns={"rep": "run"}) if "run" not in data.columns and "rep" in data.columns else data
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise InputError(f"{source}: missing column(s) {', '.join(missing)} (need {', '.join(REQUIRED)})")
    if df.empty:
        raise InputError(f"{source}: no measurements (only a header)")
    df = df.copy()
    for c in ("kernel", "size", "event"):
        s = df[c]
        blank = s.isna() | (s.astype(str).str.strip() == "")
        if blank.any():
            raise InputError(f"{source}: row {int(np.flatnonzero(blank.to_numpy())[0]) + 2}: blank {c}")
        df[c] = s.astype(str).str.strip()
    run = pd.to_numeric(df["run"], errors="coerce")
    if run.isna().any() or not np.all(np.mod(run, 1) == 0) or (run < 0).any():
        bad_row = int(np.flatnonzero((run.isna() | (run < 0) | (np.mod(run.fillna(0), 1) != 0)).to_numpy())[0])
        raise InputError(
            f"{source}: row {bad_row + 2}: run {show_value(df['run'].iloc[bad_row])} is not a whole number >= 0"
        )
    df["run"] = run.astype(int)
    value = pd.to_numeric(df["value"], errors="coerce")
    for i in np.flatnonzero(~np.isfinite(value.to_numpy(dtype=float)) | (value.to_numpy(dtype=float) < 0)):
        r = df.iloc[int(i)]
        where = f"event {r['event']} on {r['kernel']}/{r['size']} run {r['run']}"
        v = value.iloc[int(i)]
        if np.isfinite(v):
            raise InputError(f"{source}: {where}: value {float(v):g} is negative (counts are >= 0)")
        raise InputError(f"{source}: {where}: value {show_value(r['value'])} is not a finite number")
    df["value"] = value.astype(float)
    for c in ("family", "backend"):
        if c in df.columns:
            vals = pd.unique(df[c].astype(str))
            if len(vals) != 1:
                raise InputError(f"{source}: the {c} column holds several values ({', '.join(map(str, vals[:3]))})")
    if "family" in df.columns and df["family"].iloc[0] not in FAMILIES:
        raise InputError(f"{source}: unknown family {df['family'].iloc[0]!r} (flops, branch or dcache)")
    dup = df.duplicated(["kernel", "size", "run", "event"])
    if dup.any():
        r = df[dup].iloc[0]
        raise InputError(f"{source}: event {r['event']} on {r['kernel']}/{r['size']} run {r['run']} is listed twice")
    if df["run"].nunique() < 2:
        raise InputError(f"{source}: only one run; the noise filter needs at least 2 runs of every kernel loop")
    return df


def read_measurements(path: str | Path) -> pd.DataFrame:
    """Read and check a measurements table written by ``hemkit derive run`` (CSV or Parquet).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "m.csv"
    >>> _ = write_measurements(example_measurements("branch"), p)
    >>> read_measurements(p)["family"].iloc[0]
    'branch'
    """
    p = Path(path)
    return check_measurements(_read_csv(p, "measurements"), str(p))


def write_measurements(measurements: Any, path: str | Path, *, inputs: Any = ()) -> Path:
    """Write measurements (a :class:`~hemkit.derive.measure.Measurements` or a DataFrame) atomically."""
    data = getattr(measurements, "data", measurements)
    p = Path(path)
    with atomic_path(p, inputs=inputs) as tmp:
        if p.suffix.lower() in (".parquet", ".pq"):
            data.to_parquet(tmp, index=False)
        else:
            data.to_csv(tmp, index=False)
    return p


def example_measurements(family: str = "branch") -> pd.DataFrame:
    """The bundled example: the branch or dcache family measured with the valgrind backend.

    Made by ``benchmarks/derive_example.py`` (3 runs, seed 0, the cache geometry it names).

    Examples
    --------
    >>> example_measurements("branch")["event"].nunique()
    13
    """
    if family not in EXAMPLES:
        raise InputError(
            f"no bundled example for the {family!r} family (there are {', '.join(EXAMPLES)}; "
            "flops needs hardware counters)"
        )
    ref = resources.files("hemkit.derive").joinpath("data", "example", f"{family}-valgrind.csv")
    with resources.as_file(ref) as p:
        return check_measurements(pd.read_csv(p, dtype={"size": str}), f"bundled example {family}")


def analysis_input(
    path: str | Path | None = None, family: str | None = None, signatures: str = "hemkit"
) -> tuple[pd.DataFrame, Any, str]:
    """What ``hemkit derive analyze`` analyses: (measurements, family, a description of the source).

    A file (its family from ``family`` or its column); without one, the paper's own data for
    ``signatures="paper"`` (flops or branch, with the paper's basis), else the bundled example
    measured with valgrind (branch or dcache).

    Examples
    --------
    >>> data, fam, what = analysis_input(None, "branch")
    >>> what, fam
    ('the bundled branch example (valgrind)', 'branch')
    """
    if path is not None:
        return read_measurements(path), family, str(path)
    if signatures == "paper":
        if family not in ("flops", "branch"):
            raise InputError("the paper's own data: name the family flops or branch (it gives no cache counts)")
        return paper_measurements(family), paper_family(family), f"the paper's {family} data"
    if family in EXAMPLES:
        return example_measurements(family), family, f"the bundled {family} example (valgrind)"
    raise InputError(
        "name a measurements file (from 'hemkit derive run'), or the family branch or dcache for the bundled example"
    )


def save_analysis(analysis: DeriveAnalysis, path: str | Path, *, inputs: Any = ()) -> Path:
    """Write a :class:`DeriveAnalysis` as JSON (atomically)."""
    return write_text(path, json.dumps(analysis.to_dict(), indent=1, allow_nan=False) + "\n", inputs=inputs)


def load_analysis(path: str | Path) -> DeriveAnalysis:
    """Read a :class:`DeriveAnalysis` written by :func:`save_analysis`; anything else is an :class:`InputError`.

    Examples
    --------
    >>> import tempfile
    >>> from hemkit.derive import analyze
    >>> p = Path(tempfile.mkdtemp()) / "r.json"
    >>> _ = save_analysis(analyze(example_measurements("branch")), p)
    >>> load_analysis(p).summary().loc["Mispredicted Branches.", "definition"]
    '1xBcm'
    """
    p = Path(path)
    text = read_text_file(p, "result file", hint="(write one with 'hemkit derive analyze')")

    def no_constants(name: str) -> float:
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        d = json.loads(text, parse_constant=no_constants)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{p}: not a hemkit derive result (malformed JSON: {exc})") from None
    return DeriveAnalysis.from_dict(d, source=str(p))


def write_definitions(definitions: Definitions | pd.DataFrame, path: str | Path, *, inputs: Any = ()) -> Path:
    """Write a definition table as ``.md``, ``.csv`` or ``.json`` (by suffix), atomically."""
    p = Path(path)
    check_table_suffix(p)
    table = definitions.to_frame() if isinstance(definitions, Definitions) else definitions
    if p.suffix.lower() == ".md":
        return write_text(p, to_markdown(table), inputs=inputs)
    if p.suffix.lower() == ".json":
        return write_text(p, table.to_json(orient="records", indent=1) + "\n", inputs=inputs)
    with atomic_path(p, inputs=inputs) as tmp:
        table.to_csv(tmp, index=False)
    return p


def check_table_suffix(path: str | Path) -> None:
    """Refuse a table file name whose suffix is not ``.md``, ``.csv`` or ``.json``."""
    suffix = Path(os.fspath(path)).suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise InputError(f"{path}: unknown table format {suffix or '(no suffix)'!r}; use .md, .csv or .json")


def read_presets(path: str | Path) -> dict[str, str]:
    """A ``preset,definition`` CSV, checked (no duplicate presets, no empty or unreadable definitions).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "papi.csv"
    >>> _ = p.write_text("preset,definition\\nPAPI_BR_MSP,1xr00c3\\n")
    >>> read_presets(p)
    {'PAPI_BR_MSP': '1xr00c3'}
    """
    p = Path(path)
    df = _read_csv(p, "preset")
    table = preset_table(df.astype(object).where(df.notna(), None), source=str(p))
    return {name: text for name, (text, _) in table.items()}


__all__ = [
    "analysis_input",
    "read_text_file",
    "check_measurements",
    "check_table_suffix",
    "example_measurements",
    "load_analysis",
    "read_measurements",
    "read_presets",
    "save_analysis",
    "write_definitions",
    "write_measurements",
]
