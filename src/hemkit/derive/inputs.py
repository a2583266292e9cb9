"""What the metric derivation analyses, checked: measurements, the bundled examples, saved analyses, presets.

The files are read by :mod:`hemkit.io.derive`; this module checks what they hold and turns
it into derive's objects.

Examples
--------
>>> m = example_measurements("dcache")
>>> sorted(m["kernel"].unique()), m["backend"].iloc[0]
(['l1', 'll', 'mem'], 'valgrind')
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import Fix, InputError
from hemkit.derive.analysis import DeriveAnalysis, measurement_cube
from hemkit.derive.families import FAMILIES, family_for_loops
from hemkit.derive.paper import paper_family, paper_measurements
from hemkit.derive.report import preset_table
from hemkit.derive.tables import show_value
from hemkit.io.derive import read_analysis, read_measurements_table
from hemkit.io.table import read_table

REQUIRED = ["kernel", "size", "run", "event", "value"]
EXAMPLES = ("branch", "dcache")


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
    >>> from hemkit.io.derive import write_measurements
    >>> _ = write_measurements(example_measurements("branch"), p)
    >>> read_measurements(p)["family"].iloc[0]
    'branch'
    """
    return check_measurements(read_measurements_table(path), os.fspath(path))


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
        return check_measurements(read_table(p, dtype={"size": str}), f"bundled example {family}")


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
        data = read_measurements(path)
        named = pd.unique(data["family"].astype(str)) if "family" in data.columns else []
        if family is not None and len(named) == 1 and named[0] != family:  # the file's own family is the default
            raise InputError(
                f"{path}: these are measurements of the {named[0]} family, not {family}", fix=Fix("family", named[0])
            )
        name = family or (str(named[0]) if len(named) == 1 else None)
        if name is not None:  # the kernel loops and the runs x loops x events grid, checked where the file is known
            loops = list(zip(data["kernel"].astype(str), data["size"].astype(str), strict=True))
            try:
                measurement_cube(data, list(family_for_loops(name, loops).basis.index))
            except InputError as exc:
                raise exc.reworded(f"{path}: {exc.message}") from None
        return data, family, str(path)
    if signatures == "paper":
        if family not in ("flops", "branch"):
            raise InputError(
                f"family {family} is not in the paper's own data (flops or branch; it gives no cache counts)"
                if family is not None
                else "the paper's own data needs family flops or branch (it gives no cache counts)",
                param="family",
            )
        return paper_measurements(family), paper_family(family), f"the paper's {family} data"
    if family in EXAMPLES:
        return example_measurements(family), family, f"the bundled {family} example (valgrind)"
    if family is not None:  # flops: measured only with hardware counters, so in no bundled example
        raise InputError(
            f"family {family} has no bundled example ({' and '.join(EXAMPLES)} have; {family} needs hardware "
            "counters): name a measurements file (from 'hemkit derive run'), or read the paper's own data",
            param="family",
            fix=Fix("signatures", "paper"),
        )
    raise InputError(
        "name a measurements file (from 'hemkit derive run'), or family branch or dcache for the bundled example",
        param="family",
    )


def load_analysis(path: str | Path) -> DeriveAnalysis:
    """Read a :class:`DeriveAnalysis` written by :func:`hemkit.io.derive.write_analysis`; else an :class:`InputError`.

    Examples
    --------
    >>> import tempfile
    >>> from hemkit.derive import analyze
    >>> p = Path(tempfile.mkdtemp()) / "r.json"
    >>> from hemkit.io.derive import write_analysis
    >>> _ = write_analysis(analyze(example_measurements("branch")), p)
    >>> load_analysis(p).summary().loc["Mispredicted Branches.", "definition"]
    '1xBcm'
    """
    return DeriveAnalysis.from_dict(read_analysis(path), source=os.fspath(path))


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
    df = read_measurements_table(path, "preset")
    table = preset_table(df.astype(object).where(df.notna(), None), source=os.fspath(path))
    return {name: text for name, (text, _) in table.items()}


__all__ = [
    "EXAMPLES",
    "REQUIRED",
    "analysis_input",
    "check_measurements",
    "example_measurements",
    "load_analysis",
    "read_measurements",
    "read_presets",
]
