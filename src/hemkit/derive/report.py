"""Reports of the metric derivation: definition tables (Tables V-VIII), PAPI comparison, Fig. 2 plot.

- :func:`definition_table` -- metric, PAPI preset, combination of raw events, backward error, verdict.
- :func:`write_table` -- the table as Markdown, CSV or JSON (by file suffix).
- :func:`compare_presets` -- side by side with a preset table (``preset,definition`` CSV, definitions
  written ``1xEVENT + 2xOTHER``), agreement when the event/coefficient sets are equal.
- :func:`plot_variability` -- max RNMSE per event sorted increasingly, zero shown as machine epsilon,
  the region above tau shaded (the paper's Fig. 2).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from hemkit.derive.analysis import DerivationResult
from hemkit.errors import HemkitError

_TERM = re.compile(r"^\s*([-+]?)\s*([0-9.eE+-]+)x(\S+)\s*$")


def definition_table(result: DerivationResult, papi: dict | None = None) -> pd.DataFrame:
    """``metric, papi, definition, backward_error, verdict`` (one row per metric).

    Examples
    --------
    >>> import numpy as np
    >>> from hemkit.derive import branch_family, analyze_cube
    >>> fam = branch_family()
    >>> res = analyze_cube(np.stack([fam.basis[["M"]].to_numpy()] * 2), ["MISP"], fam.basis, fam.signatures)
    >>> definition_table(res, fam.papi).set_index("papi").loc["PAPI_BR_MSP", "definition"]
    '1xMISP'
    """
    t = result.table()
    t.insert(1, "papi", [(papi or {}).get(m, "") for m in t["metric"]])
    return t


def parse_combination(text: str) -> dict[str, float]:
    """``'1xA - 2xB'`` -> ``{'A': 1.0, 'B': -2.0}`` (``'0'`` -> ``{}``)."""
    text = str(text).strip()
    if text in ("", "0"):
        return {}
    terms = re.split(r"\s+(?=[-+]\s)", text)
    out: dict[str, float] = {}
    for term in terms:
        m = _TERM.match(term.replace("×", "x"))
        if not m:
            raise HemkitError(f"cannot read the term {term!r} of definition {text!r} (expected like 2xEVENT)")
        out[m.group(3)] = out.get(m.group(3), 0.0) + float(m.group(1) + m.group(2))
    return out


def compare_presets(result: DerivationResult, papi: dict, presets: pd.DataFrame) -> pd.DataFrame:
    """Derived definitions side by side with preset definitions.

    Parameters
    ----------
    result : DerivationResult
    papi : dict
        metric -> preset name (a family's ``papi``).
    presets : DataFrame
        Columns ``preset, definition`` (e.g. PAPI's Zen 5 presets translated to the measured names).

    Returns
    -------
    DataFrame ``metric, papi, derived, preset_definition, agree``
    """
    if not {"preset", "definition"} <= set(presets.columns):
        raise HemkitError("preset table needs columns preset, definition")
    pdef = dict(zip(presets["preset"], presets["definition"], strict=True))
    t = definition_table(result, papi)
    rows = []
    for _, r in t.iterrows():
        if not r["papi"]:
            continue
        theirs = pdef.get(r["papi"])
        agree = None
        if theirs is not None and r["verdict"] == "defined":
            a, b = parse_combination(r["definition"]), parse_combination(theirs)
            agree = set(a) == set(b) and all(abs(a[k] - b[k]) <= 1e-6 * max(1, abs(b[k])) for k in a)
        elif theirs is not None:
            agree = False
        rows.append(
            {
                "metric": r["metric"],
                "papi": r["papi"],
                "derived": r["definition"] if r["verdict"] == "defined" else "(not definable)",
                "preset_definition": theirs if theirs is not None else "(no preset)",
                "agree": agree,
            }
        )
    return pd.DataFrame(rows, columns=["metric", "papi", "derived", "preset_definition", "agree"])


def to_markdown(table: pd.DataFrame) -> str:
    """A DataFrame as a Markdown table (floats in ``%.2e``)."""
    cols = list(table.columns)
    out = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for _, r in table.iterrows():
        cells = [f"{v:.2e}" if isinstance(v, float) else str(v) for v in r]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out) + "\n"


def write_table(table: pd.DataFrame, path: str | Path) -> Path:
    """Write a report table as ``.md``, ``.csv`` or ``.json``."""
    path = Path(path)
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".md":
        path.write_text(to_markdown(table))
    elif suffix == ".csv":
        table.to_csv(path, index=False)
    elif suffix == ".json":
        path.write_text(table.to_json(orient="records", indent=1))
    else:
        raise HemkitError(f"{path}: unknown table format {suffix!r} (use .md, .csv or .json)")
    return path


def plot_variability(result: DerivationResult | pd.Series, tau: float | None = None, ax=None):
    """Max RNMSE of every event, sorted (the paper's Fig. 2); returns the Axes.

    All-zero events are left out; zero variability is drawn at machine epsilon; the region
    above ``tau`` (default: the analysis's) is shaded.
    """
    import matplotlib.pyplot as plt

    if isinstance(result, DerivationResult):
        var, tau = result.variability, tau if tau is not None else result.params.get("tau")
        title = f"{result.family}: event variability"
    else:
        var, title = result, "event variability"
    v = np.sort(var.to_numpy(dtype=float)[np.isfinite(var.to_numpy(dtype=float))])
    eps = np.finfo(float).eps
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    ax.semilogy(np.arange(len(v)), np.maximum(v, eps), ".", ms=4)
    if tau is not None:
        ax.axhspan(
            tau, max(1.5, v.max() if len(v) else 1.5), color="0.85", zorder=0, label=f"dropped (> tau = {tau:g})"
        )
        ax.legend(loc="upper left", fontsize=8)
    ax.set_xlabel("event (sorted)")
    ax.set_ylabel("max RNMSE")
    ax.set_title(title)
    return ax
