"""The definition table of a metric derivation, compared with PAPI's presets (Tables V-VIII).

:func:`define` turns a :class:`~hemkit.derive.analysis.DeriveAnalysis` into
:class:`Definitions`: for every metric its combination of raw events, backward error (Eq. 5),
verdict (defined / not definable / not measured), the PAPI preset it corresponds to and,
where preset definitions are known, whether the derived combination matches them.

For the valgrind backend the preset definitions are those that follow from cachegrind's
documented events (:func:`cachegrind_presets`): ``PAPI_BR_CN = 1xBc``, ``PAPI_BR_MSP = 1xBcm``,
``PAPI_L1_DCM = 1xD1mr + 1xD1mw``, ``PAPI_L3_DCM = 1xDLmr + 1xDLmw`` (cachegrind's LL is the
last level) ...  For perf, give a table ``preset,definition`` (e.g. written from ``papi_avail
-e PAPI_BR_MSP`` on that machine) to :func:`define`.

A preset term on an event that was measured and is zero on every kernel loop (e.g. ``D1mw``
on a read-only pointer chase) cannot be checked and is ignored, with a note.

Examples
--------
>>> from hemkit.derive import analyze, example_measurements
>>> defs = define(analyze(example_measurements("branch")))
>>> defs.summary().loc["Conditional Branches Retired.", ["papi", "definition", "agree"]].tolist()
['PAPI_BR_CN', '1xBc', True]
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import did_you_mean
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.results import Result, result
from hemkit.derive.analysis import DeriveAnalysis
from hemkit.derive.tables import parse_combination, to_markdown

TABLE_COLUMNS = ["metric", "papi", "definition", "backward_error", "verdict", "preset_definition", "agree", "note"]


def cachegrind_presets() -> dict[str, str]:
    """PAPI presets written in cachegrind's events, from what cachegrind documents they count.

    ``Bc``/``Bcm`` are conditional branches executed / mispredicted (a simulator does not
    speculate: executed = retired), ``Dr``/``Dw`` data reads / writes, ``D1mr``/``D1mw`` their
    L1 misses, ``DLmr``/``DLmw`` their last-level misses.  cachegrind counts neither direct
    jumps nor taken branches, so PAPI_BR_INS, _UCN, _TKN and _NTK have no definition here.

    Examples
    --------
    >>> cachegrind_presets()["PAPI_BR_PRC"]
    '1xBc - 1xBcm'
    """
    return {
        "PAPI_BR_CN": "1xBc",
        "PAPI_BR_MSP": "1xBcm",
        "PAPI_BR_PRC": "1xBc - 1xBcm",
        "PAPI_L1_DCM": "1xD1mr + 1xD1mw",
        "PAPI_L1_DCR": "1xDr",
        "PAPI_L1_DCH": "1xDr + 1xDw - 1xD1mr - 1xD1mw",
        "PAPI_L3_DCH": "1xD1mr + 1xD1mw - 1xDLmr - 1xDLmw",
        "PAPI_L3_DCM": "1xDLmr + 1xDLmw",
        "PAPI_TOT_INS": "1xIr",
    }


@result
class Definitions(Result):
    """The metric-definition table of one analysis, side by side with preset definitions.

    Attributes
    ----------
    family : str
    backend : str
    table : DataFrame
        ``metric, papi, definition, backward_error, verdict, preset_definition, agree, note``:
        ``agree`` is True/False where the preset has a definition to compare with, else None.
    presets : str
        Where the preset definitions come from (empty when none were compared).

    Examples
    --------
    >>> from hemkit.derive import analyze, example_measurements
    >>> t = define(analyze(example_measurements("dcache"))).to_frame()
    >>> t.set_index("papi").loc["PAPI_L1_DCM", ["definition", "verdict", "agree"]].tolist()
    ['1xD1mr', 'defined', True]
    """

    family: str
    backend: str
    table: pd.DataFrame
    presets: str = ""

    def summary(self) -> pd.DataFrame:
        """Per metric: ``papi, definition, backward_error, verdict, agree`` (the notes are in :meth:`to_frame`)."""
        return self.table.set_index("metric")[["papi", "definition", "backward_error", "verdict", "agree"]]

    def to_frame(self) -> pd.DataFrame:
        """The table with ``metric`` as a column."""
        return self.table.copy()

    def to_markdown(self) -> str:
        """The table as Markdown."""
        return to_markdown(self.table)

    def line(self) -> str:
        """One line: metrics defined, not definable, not measured, agreeing with the presets."""
        v = self.table["verdict"].value_counts().to_dict()
        agree = self.table["agree"].dropna()
        text = (
            f"{self.family} ({self.backend or 'unknown backend'}): {v.get('defined', 0)} metrics defined, "
            f"{v.get('not definable', 0)} not definable, {v.get('not measured', 0)} not measured"
        )
        if len(agree):
            text += f"; {int(agree.astype(bool).sum())} of {len(agree)} match the {self.presets} presets"
        # a preset found for a metric but not compared (it uses an event not measured: a typo, another CPU's name)
        unread = self.table[(self.table["preset_definition"] != "") & self.table["agree"].isna()]
        if len(unread):
            text += (
                f"; {len(unread)} not compared ({', '.join(unread['papi'].astype(str))}: "
                "the preset uses an event not measured)"
            )
        return text


def _zero_events(analysis: DeriveAnalysis) -> set[str]:
    var = analysis.variability
    return {str(e) for e, v in var.items() if not np.isfinite(v)}


def _compare(
    derived: Mapping[str, float], preset: Mapping[str, float], zero: set[str], measured: set[str]
) -> tuple[bool | None, str]:
    """Whether a derived combination equals a preset's, ignoring preset terms on all-zero events."""
    unmeasured = sorted(e for e in preset if e not in measured)
    if unmeasured:
        return None, f"preset uses {', '.join(unmeasured)}, not measured"
    ignored = sorted(e for e in preset if e in zero and e not in derived)
    p = {e: c for e, c in preset.items() if e not in ignored}
    big = max((abs(c) for c in derived.values()), default=0.0)
    d = {e: c for e, c in derived.items() if abs(c) > 1e-9 * big}
    same = set(p) == set(d) and all(abs(d[e] - p[e]) <= 1e-6 * max(1.0, abs(p[e])) for e in p)
    note = f"{', '.join(ignored)} zero on every kernel loop" if ignored else ""
    return same, note


def define(analysis: DeriveAnalysis, presets: Any = None, *, source: str = "") -> Definitions:
    """The definition table of ``analysis``, compared with preset definitions.

    Parameters
    ----------
    analysis : DeriveAnalysis
    presets : DataFrame (``preset, definition``) or mapping preset -> definition, optional
        Preset definitions in the measured events' names; default: :func:`cachegrind_presets`
        for the valgrind backend, none otherwise.
    source : str
        How to name the presets (a file name); default ``cachegrind`` or ``given``.

    Raises
    ------
    InputError
        A preset table without ``preset, definition`` columns, a preset listed twice, or an
        empty or unreadable definition (named with the preset).

    Examples
    --------
    The bundled cachegrind measurements of the branch kernels, compared with the presets
    that follow from cachegrind's events:

    >>> from hemkit.derive import analyze, example_measurements
    >>> analysis = analyze(example_measurements("branch"))
    >>> define(analysis).line()
    'branch (valgrind): 3 metrics defined, 5 not definable, 0 not measured; 3 of 3 match the cachegrind presets'

    With preset definitions of one's own (e.g. read from ``papi_avail -e``), a mismatch shows:

    >>> defs = define(analysis, {"PAPI_BR_CN": "1xBc", "PAPI_BR_MSP": "1xBc"}, source="papi_avail")
    >>> t = defs.to_frame().set_index("papi")
    >>> t.loc[["PAPI_BR_CN", "PAPI_BR_MSP"], ["definition", "preset_definition", "agree"]].values.tolist()
    [['1xBc', '1xBc', True], ['1xBcm', '1xBc', False]]
    """
    if presets is None and analysis.backend == "valgrind":
        presets, source = cachegrind_presets(), source or "cachegrind"
    table = preset_table(presets, source=source or "presets") if presets is not None else {}
    zero, measured = _zero_events(analysis), {str(e) for e in analysis.variability.index}
    rows = []
    for _, r in analysis.definitions.iterrows():
        papi = str(r["papi"])
        preset = table.get(papi) if papi else None
        agree: bool | None = None
        note = ""
        if preset is not None and r["verdict"] == "defined":
            derived = r["rounded_coefficients"] if r["definition"] == r["rounded_combination"] else r["coefficients"]
            agree, note = _compare(derived, preset[1], zero, measured)
            if agree is None:
                _warn_unmeasured(source or "presets", papi, preset[1], measured)
        elif preset is not None and r["verdict"] == "not definable":
            agree, note = False, "the preset is defined, the measurements define no combination"
        elif papi and presets is not None and preset is None:
            note = f"no {source or 'preset'} definition"
        rows.append(
            {
                "metric": r["metric"],
                "papi": papi,
                "definition": r["definition"],
                "backward_error": float(r["error"]),
                "verdict": r["verdict"],
                "preset_definition": preset[0] if preset is not None else "",
                "agree": agree,
                "note": note,
            }
        )
    out = pd.DataFrame(rows, columns=TABLE_COLUMNS)
    out["agree"] = out["agree"].astype(object)
    return Definitions(family=analysis.family, backend=analysis.backend, table=out, presets=source if table else "")


def _warn_unmeasured(source: str, papi: str, preset: Mapping[str, float], measured: set[str]) -> None:
    """Warn that preset ``papi`` uses events not measured (and is left out of the comparison), with the closest."""
    missing = sorted(e for e in preset if e not in measured)
    hints = "".join(did_you_mean(e, measured) for e in missing)
    warnings.warn(
        HemkitWarning(
            f"{source}: preset {papi} uses {', '.join(missing)}, not measured, so it is not compared{hints} "
            f"(measured: {', '.join(sorted(measured))})"
        ),
        stacklevel=3,
    )


def preset_table(presets: Any, *, source: str = "presets") -> dict[str, tuple[str, dict[str, float]]]:
    """Preset -> (definition text, parsed terms), checked.

    Examples
    --------
    >>> preset_table({"PAPI_BR_MSP": "1xr00c3"})["PAPI_BR_MSP"]
    ('1xr00c3', {'r00c3': 1.0})
    """
    if isinstance(presets, pd.DataFrame):
        if not {"preset", "definition"} <= set(presets.columns):
            raise InputError(f"{source}: a preset table needs the columns preset, definition")
        pairs = list(zip(presets["preset"], presets["definition"], strict=True))
    elif isinstance(presets, Mapping):
        pairs = list(presets.items())
    else:
        raise InputError(f"{source}: presets must be a table (preset, definition) or a mapping")
    out: dict[str, tuple[str, dict[str, float]]] = {}
    for i, (name, text) in enumerate(pairs, 1):
        name = "" if name is None or (isinstance(name, float) and np.isnan(name)) else str(name).strip()
        if not name:
            raise InputError(f"{source}: row {i} has no preset name")
        if name in out:
            raise InputError(f"{source}: preset {name} is listed twice")
        if text is None or (isinstance(text, float) and np.isnan(text)) or not str(text).strip():
            raise InputError(f"{source}: preset {name} has an empty definition")
        out[name] = (str(text).strip(), parse_combination(str(text), source=f"{source}: preset {name}"))
    if not out:
        raise InputError(f"{source}: no presets listed")
    return out


__all__ = ["Definitions", "cachegrind_presets", "define", "preset_table"]
