"""From raw-event measurements to metric definitions (Barry, Danalis, Dongarra; Sections III-VI).

Pipeline, each step a function of its own:

1. :func:`measurement_cube` -- tidy measurements (``kernel, size, run, event, value``, value per
   loop iteration) to an array runs x kernel loops x events, rows ordered like the basis;
   :func:`hemkit.derive.noise.quantise` rounds them to CAT's quarter steps where the family
   asks for it (branches).
2. :func:`hemkit.derive.noise.max_rnmse` -- variability (Eq. 4); drop all-zero events and those
   above ``tau``.
3. :func:`project_onto_basis` -- solve ``E x_e = m_e`` by least squares for every event at once;
   drop events whose relative residual exceeds ``proj_tol`` (E cannot represent them).
4. :func:`hemkit.derive.qr.special_qrcp` -- Algorithm 2 picks independent events (X-hat).
5. :func:`solve_signatures` -- least squares ``X-hat y = s`` for each metric signature, the backward
   error of Eq. 5 ``||X y - s|| / (||X||_2 ||y|| + ||s||)``, and the rounded-coefficient check
   of the paper's Fig. 3.

:func:`analyze` runs them all and returns a :class:`DeriveAnalysis`.  A metric's verdict is
*defined* (backward error of its combination, or of the rounded one, at most ``define_tol``),
*not definable* (no combination of the measured events fits), or *not measured* (its signature
needs an expectation that no measured kernel loop exercises).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import unknown_choice
from hemkit.core.errors import Fix, InputError
from hemkit.core.results import Result, result
from hemkit.derive.families import FAMILIES, AnalysisOptions, Family, family_for_loops
from hemkit.derive.noise import max_rnmse, noise_mask, quantise
from hemkit.derive.paper import paper_signatures
from hemkit.derive.plots import plot_variability
from hemkit.derive.qr import round_alpha, special_qrcp
from hemkit.derive.tables import format_combination, show_value, to_markdown

MEASUREMENT_COLUMNS = ["kernel", "size", "run", "event", "value"]
VERDICTS = ("defined", "not definable", "not measured")
SIGNATURE_SETS = ("hemkit", "paper")
#: least-squares coefficients below this are rounding noise of a zero and not written out
ZERO_COEFFICIENT = 1e-12
_DEFINITION_COLUMNS = [
    "metric",
    "papi",
    "verdict",
    "definition",
    "error",
    "combination",
    "backward_error",
    "rounded_combination",
    "rounded_error",
    "coefficients",
    "rounded_coefficients",
]


def row_labels(kernels: Sequence[Any], sizes: Sequence[Any]) -> list[str]:
    """Row label ``kernel/size`` used by bases and measurement cubes.

    Examples
    --------
    >>> row_labels(["nt", "rnd"], [1, 4])
    ['nt/1', 'rnd/4']
    """
    return [f"{k}/{s}" for k, s in zip(kernels, sizes, strict=True)]


def measurement_cube(measurements: pd.DataFrame, rows: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Tidy per-iteration measurements -> array (runs, rows, events) and the event names.

    Parameters
    ----------
    measurements : DataFrame
        Columns ``kernel, size, run, event, value`` (value = count per loop iteration; a
        ``rep`` column is read as ``run``).
    rows : list of str
        Row labels ``kernel/size`` in the order of the expectation basis.

    Raises
    ------
    InputError
        A missing column, a kernel loop the basis lacks, a value that is not a finite
        number >= 0, or an event not measured on every (row, run).

    Examples
    --------
    >>> df = pd.DataFrame({"kernel": ["a", "a", "b", "b"], "size": [1, 1, 1, 1], "run": [0, 1, 0, 1],
    ...                    "event": ["e"] * 4, "value": [1.0, 1.0, 2.0, 2.0]})
    >>> cube, events = measurement_cube(df, ["a/1", "b/1"])
    >>> cube.shape, events
    ((2, 2, 1), ['e'])
    """
    if "run" not in measurements.columns and "rep" in measurements.columns:
        measurements = measurements.rename(columns={"rep": "run"})
    missing = [c for c in MEASUREMENT_COLUMNS if c not in measurements.columns]
    if missing:
        raise InputError(f"measurements lack column(s) {', '.join(missing)}")
    if measurements.empty:
        raise InputError("no measurements (the table is empty)")
    df = measurements[MEASUREMENT_COLUMNS].copy()
    df["row"] = df["kernel"].astype(str) + "/" + df["size"].astype(str)
    df["event"] = df["event"].astype(str)
    extra = sorted(set(df["row"]) - set(rows))
    if extra:
        raise InputError(f"measured kernel loop {extra[0]!r} is not in the family's basis")
    value = pd.to_numeric(df["value"], errors="coerce")
    bad = ~np.isfinite(value.to_numpy(dtype=float)) | (value.to_numpy(dtype=float) < 0)
    if bad.any():
        r = df[bad].iloc[0]
        raise InputError(
            f"event {r['event']}: value {show_value(r['value'])} on {r['row']} run {r['run']} "
            "is not a finite number >= 0"
        )
    df["value"] = value.astype(float)
    dup = df.duplicated(["row", "run", "event"])
    if dup.any():
        r = df[dup].iloc[0]
        raise InputError(f"event {r['event']}: measured twice on {r['row']} run {r['run']}")
    # keep the events in the order they were measured: ties in the QR go to the first listed
    order = list(pd.unique(df["event"]))
    wide = df.pivot(index=["run", "row"], columns="event", values="value")[order]
    runs = sorted(df["run"].unique(), key=str)
    full = pd.MultiIndex.from_product([runs, list(rows)], names=["run", "row"])
    wide = wide.reindex(full)
    if wide.isna().any().any():
        ev = wide.columns[wide.isna().any()][0]
        where = wide.index[wide[ev].isna()][0]
        raise InputError(f"event {ev}: no measurement on {where[1]} run {where[0]}")
    events = [str(e) for e in wide.columns]
    cube = wide.to_numpy(dtype=float).reshape(len(runs), len(rows), len(events))
    return cube, events


def project_onto_basis(E: np.ndarray, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Represent every measured event in the expectation basis (Section III-B).

    Parameters
    ----------
    E : array, shape (N, k)
        Expectation basis: expected count per kernel loop (rows) of each ideal event (columns).
    M : array, shape (N, n)
        Mean measurement vector of each event (columns).

    Returns
    -------
    X : ndarray, shape (k, n)
        Least-squares representation ``x_e`` of each event.
    rel_residual : ndarray, shape (n,)
        ``||E x_e - m_e|| / ||m_e||`` (0 for a zero event).

    Examples
    --------
    >>> E = np.array([[24., 0], [48, 0], [96, 0], [0, 12], [0, 24], [0, 48]])
    >>> X, r = project_onto_basis(E, E @ np.array([[1.0], [8.0]]))
    >>> X.ravel().round(12).tolist(), bool(r[0] < 1e-12)
    ([1.0, 8.0], True)
    """
    E = np.asarray(E, dtype=float)
    M = np.asarray(M, dtype=float)
    if E.shape[0] != M.shape[0]:
        raise InputError(f"basis has {E.shape[0]} kernel loops but measurements have {M.shape[0]}")
    X, *_ = np.linalg.lstsq(E, M, rcond=None)
    res = np.linalg.norm(E @ X - M, axis=0)
    nm = np.linalg.norm(M, axis=0)
    rel = np.where(nm > 0, res / np.where(nm > 0, nm, 1.0), 0.0)
    return X, rel


def backward_error(A: np.ndarray, y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Backward error of least-squares solutions (Eq. 5), one per column of ``y`` / ``s``.

    ``||A y - s||_2 / (||A||_2 ||y||_2 + ||s||_2)``, with ``||A||_2`` the spectral norm.

    Parameters
    ----------
    A : numpy.ndarray, shape (k, m)
        The matrix of the least-squares problems (the chosen events in the basis).
    y : numpy.ndarray, shape (m,) or (m, p)
        The solutions, one per column.
    s : numpy.ndarray, shape (k,) or (k, p)
        The right-hand sides (the signatures), one per column of ``y``.

    Returns
    -------
    numpy.ndarray
        One error per column, in [0, 1]; a 0-d value for 1-D ``y``; 0 where the denominator is 0.

    Examples
    --------
    >>> float(backward_error(np.eye(2), np.zeros(2), np.array([1.0, 0.0])))
    1.0
    """
    A = np.asarray(A, dtype=float)
    y = np.asarray(y, dtype=float)
    s = np.asarray(s, dtype=float)
    vec = y.ndim == 1
    y2, s2 = (y[:, None], s[:, None]) if vec else (y, s)
    anorm = np.linalg.norm(A, 2) if A.size else 0.0
    num = np.linalg.norm(A @ y2 - s2, axis=0)
    den = anorm * np.linalg.norm(y2, axis=0) + np.linalg.norm(s2, axis=0)
    out = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return out[0] if vec else out


def solve_signatures(
    Xhat: np.ndarray, S: np.ndarray, *, coef_step: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Least squares of each signature on the chosen events, with backward errors (Section VI).

    Parameters
    ----------
    Xhat : array, shape (k, r)
        Chosen events in the basis.
    S : array, shape (k, m)
        Metric signatures in the basis (one column per metric).
    coef_step : float
        Grid the coefficients are rounded to for the Fig. 3 check (1 = integers).

    Returns
    -------
    Y, err, Y_round, err_round : ndarrays
        Coefficients (r, m), backward errors (m,), rounded coefficients and their errors.

    Examples
    --------
    >>> Y, err, Yr, er = solve_signatures(np.eye(2), np.array([[1.0], [8.0]]))
    >>> Yr.ravel().tolist(), float(er[0])
    ([1.0, 8.0], 0.0)
    """
    Xhat = np.asarray(Xhat, dtype=float)
    S = np.asarray(S, dtype=float)
    if Xhat.shape[1] == 0:
        Y = np.zeros((0, S.shape[1]))
        err = np.where(np.linalg.norm(S, axis=0) > 0, 1.0, 0.0)
        return Y, err, Y, err
    Y, *_ = np.linalg.lstsq(Xhat, S, rcond=None)
    err = backward_error(Xhat, Y, S)
    Yr = round_alpha(Y, coef_step) + 0.0  # +0.0 turns -0.0 into 0.0
    err_r = backward_error(Xhat, Yr, S)
    return Y, err, Yr, err_r


def _finite_or_none(v: float) -> float | None:
    return float(v) if v is not None and np.isfinite(v) else None


@result
class DeriveAnalysis(Result):
    """Everything the analysis of one kernel family found (the paper's Tables V-VIII and Fig. 2).

    Attributes
    ----------
    family : str
        ``flops``, ``branch``, ``dcache`` (or the name of a custom family).
    backend : str
        Where the measurements came from: ``perf``, ``valgrind``, ``paper`` or ``""``.
    signatures : str
        ``hemkit`` (the family's signatures) or ``paper`` (Tables I-IV as printed).
    variability : Series
        Max RNMSE per event (NaN: all zero), in measured order.
    dropped : DataFrame
        ``event, step, reason`` for every event that left the analysis.
    X : DataFrame
        Kept events in the expectation basis (rows: expectations, columns: events).
    chosen : tuple of str
        Events picked by the specially pivoted QR, in pivot order.
    definitions : DataFrame
        One row per metric: ``metric, papi, verdict, definition, error`` (the definition shown:
        the rounded combination where it is good enough, with its backward error), the raw
        least-squares ``combination`` and ``backward_error``, ``rounded_combination``,
        ``rounded_error``, and the coefficients (dicts event -> value).
    options : AnalysisOptions
        The thresholds used (tau, alpha, proj_tol, define_tol, coef_step, quantum).
    not_measured : tuple of str
        Expectations that no measured kernel loop exercises.
    raw_variability : Series, optional
        Max RNMSE per event before CAT's quantisation (where ``quantum > 0``).

    Examples
    --------
    >>> from hemkit.derive import analyze_cube, branch_family
    >>> fam = branch_family()
    >>> cube = np.stack([fam.basis[["CR", "T"]].to_numpy()] * 3)   # two ideal events, 3 runs
    >>> res = analyze_cube(cube, ["COND", "COND_TAKEN"], fam)
    >>> res.summary().loc["Conditional Branches Not Taken.", "definition"]
    '1xCOND - 1xCOND_TAKEN'
    >>> res.summary().loc["Conditional Branches Executed.", "verdict"]
    'not definable'
    """

    family: str
    backend: str
    signatures: str
    variability: pd.Series
    dropped: pd.DataFrame
    X: pd.DataFrame
    chosen: tuple[str, ...]
    definitions: pd.DataFrame
    options: AnalysisOptions
    not_measured: tuple[str, ...] = ()
    raw_variability: pd.Series | None = None

    def summary(self) -> pd.DataFrame:
        """The metric-definition table: ``papi, definition, backward_error, verdict`` per metric."""
        t = self.definitions.set_index("metric")[["papi", "definition", "error", "verdict"]]
        return t.rename(columns={"error": "backward_error"})

    def to_frame(self) -> pd.DataFrame:
        """Every column of the definitions (raw and rounded combinations, coefficients)."""
        return self.definitions.copy()

    def table(self) -> pd.DataFrame:
        """The definition table with ``metric`` as a column (like the paper's Tables V-VIII)."""
        return self.summary().reset_index()

    def to_markdown(self) -> str:
        """The definition table as Markdown."""
        return to_markdown(self.table())

    def line(self) -> str:
        """One line: events measured, dropped at each step, left out as dependent, chosen, metrics defined.

        Every event measured is in one of the counts: those in the basis that the pivoted QR did
        not pick (combinations of the chosen ones) were in none, so 13 events read as 9 + 1 + 2.
        """
        counts = self.dropped.groupby("step").size().to_dict() if not self.dropped.empty else {}
        verdicts = self.definitions["verdict"].value_counts().to_dict()
        dependent = len([e for e in self.X.columns if e not in self.chosen])
        return (
            f"{self.family} ({self.backend or 'unknown backend'}, {self.signatures} signatures): "
            f"{len(self.variability)} events, {counts.get('noise', 0)} dropped as noisy or all zero, "
            f"{counts.get('projection', 0)} outside the basis, {dependent} dependent on others, "
            f"{len(self.chosen)} chosen ({', '.join(self.chosen) or 'none'}); {verdicts.get('defined', 0)} of "
            f"{len(self.definitions)} metrics defined"
        )

    def plot(self, ax: Any = None) -> Any:
        """The variability figure (the paper's Fig. 2); returns the Axes."""
        title = f"{self.family} ({self.backend})" if self.backend else self.family
        return plot_variability(self.variability, self.options.tau, title=title, raw=self.raw_variability, ax=ax)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of the whole result (read back with :meth:`from_dict`)."""
        return {
            "format": "hemkit-derive-analysis",
            "version": 1,
            "family": self.family,
            "backend": self.backend,
            "signatures": self.signatures,
            "options": self.options.as_dict(),
            "chosen": list(self.chosen),
            "not_measured": list(self.not_measured),
            "variability": {str(k): _finite_or_none(v) for k, v in self.variability.items()},
            "raw_variability": None
            if self.raw_variability is None
            else {str(k): _finite_or_none(v) for k, v in self.raw_variability.items()},
            "dropped": self.dropped.to_dict(orient="records"),
            "expectations": [str(i) for i in self.X.index],
            "X": {str(c): [float(v) for v in self.X[c]] for c in self.X.columns},
            "definitions": [
                {
                    "metric": str(r["metric"]),
                    "papi": str(r["papi"]),
                    "verdict": str(r["verdict"]),
                    "definition": str(r["definition"]),
                    "error": float(r["error"]),
                    "combination": str(r["combination"]),
                    "backward_error": float(r["backward_error"]),
                    "rounded_combination": str(r["rounded_combination"]),
                    "rounded_error": float(r["rounded_error"]),
                    "coefficients": {str(k): float(v) for k, v in r["coefficients"].items()},
                    "rounded_coefficients": {str(k): float(v) for k, v in r["rounded_coefficients"].items()},
                }
                for _, r in self.definitions.iterrows()
            ],
        }

    @classmethod
    def from_dict(cls, d: Any, source: str = "result") -> DeriveAnalysis:
        """Rebuild a result from :meth:`to_dict`; anything else is an :class:`InputError` naming ``source``."""
        return _from_dict(d, source)


def _from_dict(d: Any, source: str) -> DeriveAnalysis:
    def fail(what: str) -> InputError:
        return InputError(f"{source}: not a hemkit derive result ({what})")

    if not isinstance(d, dict) or d.get("format") != "hemkit-derive-analysis":
        raise fail("no 'format': 'hemkit-derive-analysis' field; write one with 'hemkit derive analyze'")
    try:
        family = d["family"]
        if not isinstance(family, str) or not family:
            raise fail("'family' must be a non-empty string")
        opts = d["options"]
        if not isinstance(opts, dict) or set(opts) != {f for f in AnalysisOptions.__dataclass_fields__}:
            raise fail("'options' must hold tau, alpha, proj_tol, define_tol, coef_step, quantum")
        values = {}
        for k, v in opts.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise fail(f"option {k} must be a finite number >= 0, got {v!r}")
            values[k] = float(v)
        var = _variability(d["variability"], "variability", fail)
        raw = None if d.get("raw_variability") is None else _variability(d["raw_variability"], "raw_variability", fail)
        expectations = d["expectations"]
        X_in = d["X"]
        if not isinstance(expectations, list) or not isinstance(X_in, dict):
            raise fail("'expectations' must be a list and 'X' a mapping")
        for k, col in X_in.items():
            if not isinstance(col, list) or len(col) != len(expectations):
                raise fail(f"column {k} of X must hold {len(expectations)} numbers")
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in col):
                raise fail(f"column {k} of X holds a value that is not a finite number")
        chosen = d["chosen"]
        if not isinstance(chosen, list) or not all(isinstance(c, str) and c in X_in for c in chosen):
            raise fail("'chosen' must list events of X")
        defs = d["definitions"]
        if not isinstance(defs, list) or not defs:
            raise fail("'definitions' must be a non-empty list")
        rows = []
        seen = set()
        for i, r in enumerate(defs):
            if not isinstance(r, dict) or set(r) != set(_DEFINITION_COLUMNS):
                raise fail(f"definition {i + 1} must have the fields {', '.join(_DEFINITION_COLUMNS)}")
            if not isinstance(r["metric"], str) or not r["metric"].strip():
                raise fail(f"definition {i + 1} has an empty metric name")
            if r["metric"] in seen:
                raise fail(f"metric {r['metric']!r} is defined twice")
            seen.add(r["metric"])
            if r["verdict"] not in VERDICTS:
                raise fail(f"metric {r['metric']!r}: verdict {r['verdict']!r} is not one of {', '.join(VERDICTS)}")
            for k in ("error", "backward_error", "rounded_error"):
                v = r[k]
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                    raise fail(f"metric {r['metric']!r}: {k} must be a finite number >= 0, got {v!r}")
            for k in ("papi", "definition", "combination", "rounded_combination"):
                if not isinstance(r[k], str):
                    raise fail(f"metric {r['metric']!r}: {k} must be a string")
            if not r["definition"].strip():
                raise fail(f"metric {r['metric']!r} has an empty definition")
            for k in ("coefficients", "rounded_coefficients"):
                if not isinstance(r[k], dict) or not all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in r[k].values()
                ):
                    raise fail(f"metric {r['metric']!r}: {k} must map events to finite numbers")
            rows.append(r)
        dropped = d["dropped"]
        if not isinstance(dropped, list) or not all(
            isinstance(x, dict) and set(x) == {"event", "step", "reason"} for x in dropped
        ):
            raise fail("'dropped' must list {event, step, reason}")
        backend, signatures = d.get("backend", ""), d.get("signatures", "hemkit")
        not_measured = d.get("not_measured", [])
        if not isinstance(backend, str) or not isinstance(signatures, str) or not isinstance(not_measured, list):
            raise fail("'backend' and 'signatures' must be strings, 'not_measured' a list")
    except KeyError as exc:
        raise fail(f"field {exc.args[0]!r} is missing") from None
    return DeriveAnalysis(
        family=family,
        backend=backend,
        signatures=signatures,
        variability=pd.Series(var, name="max_rnmse", dtype=float),
        dropped=pd.DataFrame(dropped, columns=["event", "step", "reason"]),
        X=pd.DataFrame({k: [float(v) for v in col] for k, col in X_in.items()}, index=[str(e) for e in expectations]),
        chosen=tuple(chosen),
        definitions=pd.DataFrame(rows, columns=_DEFINITION_COLUMNS),
        options=AnalysisOptions(**values),
        not_measured=tuple(str(x) for x in not_measured),
        raw_variability=None if raw is None else pd.Series(raw, name="max_rnmse", dtype=float),
    )


def _variability(values: Any, field: str, fail: Any) -> dict[str, float]:
    if not isinstance(values, dict):
        raise fail(f"'{field}' must map events to numbers")
    out = {}
    for k, v in values.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0):
            raise fail(f"{field} of {k} must be a number >= 0 or null, got {v!r}")
        out[str(k)] = np.nan if v is None else float(v)
    return out


def analyze_cube(
    cube: np.ndarray,
    events: Sequence[str],
    family: Family,
    *,
    options: AnalysisOptions | None = None,
    backend: str = "",
    signatures: str = "hemkit",
) -> DeriveAnalysis:
    """Run the whole analysis on a measurement array (runs x kernel loops x events).

    Parameters
    ----------
    cube : array, shape (R, N, n)
        Per-iteration counts of ``n`` events on the ``N`` kernel loops of ``family``, ``R`` runs.
    events : sequence of str, length n
    family : Family
        Basis (rows = kernel loops), signatures, PAPI presets and default thresholds.
    options : AnalysisOptions, optional
        Thresholds overriding the family's.
    backend, signatures : str
        Recorded in the result (where the data came from, which signature set).

    Examples
    --------
    >>> E = pd.DataFrame([[24., 0], [48, 0], [96, 0], [0, 12], [0, 24], [0, 48]],
    ...                  columns=["D_SCAL", "D_FMA_256"], index=[f"k/{i}" for i in range(6)])
    >>> S = pd.DataFrame({"D_SCAL": [1, 1.0], "D_FMA_256": [8, 1.0]}, index=["DP Ops", "DP Instrs"])
    >>> res = analyze_cube(np.stack([E.to_numpy()] * 3), ["SCALAR_DOUBLE", "256B_FMA_DOUBLE"], Family("demo", E, S))
    >>> res.summary()["definition"].tolist()
    ['1xSCALAR_DOUBLE + 8x256B_FMA_DOUBLE', '1xSCALAR_DOUBLE + 1x256B_FMA_DOUBLE']
    """
    opts = (options or AnalysisOptions()).resolved(family)
    tau, alpha, proj_tol, define_tol, coef_step, quantum = opts.values()
    basis, sig = family.basis, family.signatures
    cube = np.asarray(cube, dtype=float)
    if list(sig.columns) != list(basis.columns):
        raise InputError("signature columns must be the basis expectations in the same order")
    if cube.ndim != 3 or cube.shape[1] != len(basis) or cube.shape[2] != len(events):
        raise InputError(f"measurement array shape {cube.shape} does not match the basis rows / events")
    if not np.isfinite(cube).all() or (cube < 0).any():
        raise InputError("measurements must be finite numbers >= 0")
    ev = np.asarray([str(e) for e in events], dtype=object)
    raw_var = max_rnmse(cube) if quantum else None
    cube = quantise(cube, quantum)
    var = max_rnmse(cube)
    keep = noise_mask(var, tau)
    dropped = [
        {"event": e, "step": "noise", "reason": "all zero" if not np.isfinite(v) else f"max RNMSE {v:.3g} > tau"}
        for e, v in zip(ev[~keep], var[~keep], strict=True)
    ]
    M = cube[:, :, keep].mean(axis=0)
    E = basis.to_numpy(dtype=float)
    X, rel = project_onto_basis(E, M)
    ok = rel <= proj_tol
    kept_names = ev[keep]
    dropped += [
        {"event": e, "step": "projection", "reason": f"relative residual {r:.3g} > {proj_tol:g}"}
        for e, r in zip(kept_names[~ok], rel[~ok], strict=True)
    ]
    X = X[:, ok]
    names = [str(e) for e in kept_names[ok]]
    piv = special_qrcp(X, alpha) if X.shape[1] else np.array([], dtype=int)
    chosen = [names[i] for i in piv]
    S = sig.to_numpy(dtype=float)
    Y, err, Yr, err_r = solve_signatures(X[:, piv], S.T, coef_step=coef_step)
    unexercised = ~np.any(E != 0, axis=0)
    rows = []
    for m, metric in enumerate(sig.index):
        rounded_ok = err_r[m] <= define_tol
        if np.any(S[m][unexercised] != 0):
            verdict = "not measured"
        else:
            verdict = "defined" if min(err[m], err_r[m]) <= define_tol else "not definable"
        combination = format_combination(Y[:, m], chosen, abs_cut=ZERO_COEFFICIENT)
        rounded = format_combination(Yr[:, m], chosen)
        rows.append(
            {
                "metric": str(metric),
                "papi": str(family.papi.get(str(metric), "")),
                "verdict": verdict,
                "definition": rounded if rounded_ok else combination,
                "error": float(err_r[m] if rounded_ok else err[m]),
                "combination": combination,
                "backward_error": float(err[m]),
                "rounded_combination": rounded,
                "rounded_error": float(err_r[m]),
                "coefficients": {c: float(y) for c, y in zip(chosen, Y[:, m], strict=True)},
                "rounded_coefficients": {c: float(y) for c, y in zip(chosen, Yr[:, m], strict=True) if y != 0},
            }
        )
    return DeriveAnalysis(
        family=family.name,
        backend=backend,
        signatures=signatures,
        variability=pd.Series(var, index=list(ev), name="max_rnmse", dtype=float),
        dropped=pd.DataFrame(dropped, columns=["event", "step", "reason"]),
        X=pd.DataFrame(X, index=[str(c) for c in basis.columns], columns=names),
        chosen=tuple(chosen),
        definitions=pd.DataFrame(rows, columns=_DEFINITION_COLUMNS),
        options=opts,
        not_measured=tuple(str(c) for c, u in zip(basis.columns, unexercised, strict=True) if u),
        raw_variability=None if raw_var is None else pd.Series(raw_var, index=list(ev), name="max_rnmse", dtype=float),
    )


def _single(measurements: pd.DataFrame, column: str) -> str | None:
    """The one value of a metadata column (``family``, ``backend``), None when absent."""
    if column not in measurements.columns:
        return None
    values = pd.unique(measurements[column].astype(str))
    if len(values) != 1:
        raise InputError(f"measurements mix several {column} values ({', '.join(map(str, values[:3]))})")
    return str(values[0])


def analyze(
    measurements: Any,
    family: Family | str | None = None,
    *,
    options: AnalysisOptions | None = None,
    signatures: str = "hemkit",
) -> DeriveAnalysis:
    """Analyse tidy measurements of one kernel family.

    Parameters
    ----------
    measurements : DataFrame or Measurements
        ``kernel, size, run, event, value`` (value per loop iteration), and optionally
        ``family`` and ``backend`` columns (as :func:`hemkit.derive.measure` writes them).
    family : Family or str, optional
        The family (default: the ``family`` column); a name builds the family for the
        kernel loops measured.
    options : AnalysisOptions, optional
        Thresholds overriding the family's defaults.
    signatures : {"hemkit", "paper"}
        The family's signatures, or the paper's Tables I, III, IV as printed.

    Raises
    ------
    InputError
        Bad measurements, an unknown or mismatched family, bad options.

    Examples
    --------
    >>> from hemkit.derive import example_measurements
    >>> res = analyze(example_measurements("branch"))
    >>> res.summary().loc["Mispredicted Branches.", ["papi", "definition", "verdict"]].tolist()
    ['PAPI_BR_MSP', '1xBcm', 'defined']
    """
    data = getattr(measurements, "data", measurements)
    if not isinstance(data, pd.DataFrame):
        raise InputError(f"measurements must be a DataFrame, got {type(data).__name__}")
    if signatures not in SIGNATURE_SETS:
        raise unknown_choice("signature set", signatures, SIGNATURE_SETS)
    if "run" not in data.columns and "rep" in data.columns:
        data = data.rename(columns={"rep": "run"})
    named = _single(data, "family")
    backend = _single(data, "backend") or ""
    for c in ("kernel", "size"):
        if c not in data.columns:
            raise InputError(f"measurements lack column(s) {c}")
    loops = list(zip(data["kernel"].astype(str), data["size"].astype(str), strict=True))
    if isinstance(family, Family):
        fam = family.restricted([r for r in family.basis.index if r in {f"{k}/{s}" for k, s in loops}])
    else:
        name = family or named
        if name is None:
            raise InputError("measurements have no family column; name the family (flops, branch or dcache)")
        if name not in FAMILIES:
            raise unknown_choice("kernel family", name, FAMILIES)
        if named is not None and named != name:
            raise InputError(f"these are measurements of the {named} family, not {name}", fix=Fix("family", named))
        fam = family_for_loops(name, loops)
    if signatures == "paper":
        fam = fam.with_signatures(paper_signatures(fam.name))
    cube, events = measurement_cube(data, list(fam.basis.index))
    return analyze_cube(cube, events, fam, options=options, backend=backend, signatures=signatures)


__all__ = [
    "MEASUREMENT_COLUMNS",
    "VERDICTS",
    "DeriveAnalysis",
    "analyze",
    "analyze_cube",
    "backward_error",
    "measurement_cube",
    "project_onto_basis",
    "row_labels",
    "solve_signatures",
]
