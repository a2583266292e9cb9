"""From raw-event measurements to metric definitions (Barry, Danalis, Dongarra; Sections III-VI).

Pipeline, each step a function of its own:

1. :func:`measurement_cube` -- tidy measurements (``kernel, size, rep, event, value``, value per
   loop iteration) to an array repetitions x kernel loops x events, rows ordered like the basis.
2. :func:`hemkit.derive.noise.max_rnmse` -- variability (Eq. 4); drop all-zero events and those
   above ``tau``.
3. :func:`project_onto_basis` -- solve ``E x_e = m_e`` by least squares for every event at once;
   drop events whose relative residual exceeds ``proj_tol`` (E cannot represent them).
4. :func:`hemkit.derive.qr.special_qrcp` -- Algorithm 2 picks independent events (X-hat).
5. :func:`solve_signatures` -- least squares ``X-hat y = s`` for each metric signature, the backward
   error of Eq. 5 ``||X y - s|| / (||X||_2 ||y|| + ||s||)``, and the rounded-coefficient check
   of the paper's Fig. 3.

:func:`analyze` runs them all and returns a :class:`DerivationResult`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hemkit.derive.noise import max_rnmse, noise_mask
from hemkit.derive.qr import round_alpha, special_qrcp
from hemkit.errors import HemkitError

MEASUREMENT_COLUMNS = ["kernel", "size", "rep", "event", "value"]


def row_labels(kernels, sizes) -> list[str]:
    """Row label ``kernel/size`` used by bases and measurement cubes."""
    return [f"{k}/{s}" for k, s in zip(kernels, sizes, strict=True)]


def measurement_cube(measurements: pd.DataFrame, rows: list[str]) -> tuple[np.ndarray, list[str]]:
    """Tidy per-iteration measurements -> array (reps, rows, events) and the event names.

    Parameters
    ----------
    measurements : DataFrame
        Columns ``kernel, size, rep, event, value`` (value = count per loop iteration).
    rows : list of str
        Row labels ``kernel/size`` in the order of the expectation basis.

    Raises
    ------
    HemkitError
        A missing column, a kernel loop the basis lacks, or an event not measured on every
        (row, repetition).
    """
    missing = [c for c in MEASUREMENT_COLUMNS if c not in measurements.columns]
    if missing:
        raise HemkitError(f"measurements lack column(s) {', '.join(missing)}")
    df = measurements[MEASUREMENT_COLUMNS].copy()
    df["row"] = df["kernel"].astype(str) + "/" + df["size"].astype(str)
    extra = sorted(set(df["row"]) - set(rows))
    if extra:
        raise HemkitError(f"measured kernel loop {extra[0]!r} is not in the family's basis")
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    bad = df[~np.isfinite(df["value"])]
    if not bad.empty:
        r = bad.iloc[0]
        raise HemkitError(f"event {r['event']}: non-numeric or missing value on {r['row']} rep {r['rep']}")
    if df.duplicated(["row", "rep", "event"]).any():
        r = df[df.duplicated(["row", "rep", "event"])].iloc[0]
        raise HemkitError(f"event {r['event']}: measured twice on {r['row']} rep {r['rep']}")
    # keep the events in the order they were measured: ties in the QR go to the first listed
    wide = df.pivot(index=["rep", "row"], columns="event", values="value")[pd.unique(df["event"])]
    reps = sorted(df["rep"].unique())
    full = pd.MultiIndex.from_product([reps, rows], names=["rep", "row"])
    wide = wide.reindex(full)
    if wide.isna().any().any():
        ev = wide.columns[wide.isna().any()][0]
        where = wide.index[wide[ev].isna()][0]
        raise HemkitError(f"event {ev}: no measurement on {where[1]} rep {where[0]}")
    events = [str(e) for e in wide.columns]
    cube = wide.to_numpy(dtype=float).reshape(len(reps), len(rows), len(events))
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
    >>> import numpy as np
    >>> E = np.array([[24., 0], [48, 0], [96, 0], [0, 12], [0, 24], [0, 48]])
    >>> X, r = project_onto_basis(E, E @ np.array([[1.0], [8.0]]))
    >>> X.ravel().round(12).tolist(), bool(r[0] < 1e-12)
    ([1.0, 8.0], True)
    """
    E = np.asarray(E, dtype=float)
    M = np.asarray(M, dtype=float)
    if E.shape[0] != M.shape[0]:
        raise HemkitError(f"basis has {E.shape[0]} kernel loops but measurements have {M.shape[0]}")
    X, *_ = np.linalg.lstsq(E, M, rcond=None)
    res = np.linalg.norm(E @ X - M, axis=0)
    nm = np.linalg.norm(M, axis=0)
    rel = np.where(nm > 0, res / np.where(nm > 0, nm, 1.0), 0.0)
    return X, rel


def backward_error(A: np.ndarray, y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Backward error of least-squares solutions (Eq. 5), one per column of ``y`` / ``s``.

    ``||A y - s||_2 / (||A||_2 ||y||_2 + ||s||_2)``, with ``||A||_2`` the spectral norm.

    Examples
    --------
    >>> import numpy as np
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


def solve_signatures(Xhat: np.ndarray, S: np.ndarray, *, coef_step: float = 1.0):
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
    >>> import numpy as np
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


def format_combination(coefs: np.ndarray, names: list[str], *, rel_cut: float = 1e-12) -> str:
    """``1xA + 8xB - 1xC`` from coefficients (terms below ``rel_cut`` x max dropped)."""
    coefs = np.asarray(coefs, dtype=float)
    if coefs.size == 0 or not np.any(coefs):
        return "0"
    cut = rel_cut * np.abs(coefs).max()
    parts = []
    for c, n in zip(coefs, names, strict=True):
        if abs(c) <= cut:
            continue
        mag = f"{abs(c):.4g}"
        parts.append(("- " if c < 0 else "+ ") + f"{mag}x{n}")
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


@dataclass
class DerivationResult:
    """Everything the analysis of one kernel family found.

    Attributes
    ----------
    family : str
    variability : Series
        Max RNMSE per event (NaN: all zero).
    dropped : DataFrame
        ``event, step, reason`` for every event that left the analysis.
    X : DataFrame
        Kept events in the expectation basis (rows: expectations, columns: events).
    chosen : list of str
        Events picked by the specially pivoted QR, in pivot order.
    definitions : DataFrame
        One row per metric: ``metric, combination, backward_error, rounded_combination,
        rounded_error, verdict`` and the coefficients in ``coefficients`` (dict event -> value).
    params : dict
        tau, alpha, proj_tol, define_tol, coef_step.
    """

    family: str
    variability: pd.Series
    dropped: pd.DataFrame
    X: pd.DataFrame
    chosen: list[str]
    definitions: pd.DataFrame
    params: dict = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """The metric-definition table (like the paper's Tables V-VIII)."""
        cols = ["metric", "definition", "backward_error", "verdict"]
        t = self.definitions.copy()
        t["definition"] = np.where(
            t["rounded_error"] <= self.params.get("define_tol", 1e-4), t["rounded_combination"], t["combination"]
        )
        t["backward_error"] = np.where(
            t["rounded_error"] <= self.params.get("define_tol", 1e-4), t["rounded_error"], t["backward_error"]
        )
        return t[cols]

    def summary(self) -> str:
        """A readable report: counts of kept/dropped events, chosen events and the metric table."""
        n_total = len(self.variability)
        lines = [
            f"family {self.family}: {n_total} events measured, {len(self.X.columns)} kept after the noise "
            f"filter and projection, {len(self.chosen)} chosen by the QR",
            "params: " + ", ".join(f"{k}={v:g}" for k, v in self.params.items()),
            "chosen events: " + (", ".join(self.chosen) if self.chosen else "(none)"),
        ]
        if not self.dropped.empty:
            counts = self.dropped.groupby("step").size()
            lines.append("dropped: " + ", ".join(f"{n} at {s}" for s, n in counts.items()))
        lines.append("")
        t = self.table()
        w = max(len("metric"), *(len(m) for m in t["metric"])) if len(t) else 6
        lines.append(f"{'metric':<{w}}  {'error':>9}  {'verdict':<14}  definition")
        for _, r in t.iterrows():
            lines.append(f"{r['metric']:<{w}}  {r['backward_error']:9.2e}  {r['verdict']:<14}  {r['definition']}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The definition table as a Markdown table."""
        from hemkit.derive.report import to_markdown

        return to_markdown(self.table())

    def to_dict(self) -> dict:
        """JSON-ready dictionary of the whole result."""
        return {
            "family": self.family,
            "params": self.params,
            "chosen": self.chosen,
            "variability": {k: (None if not np.isfinite(v) else float(v)) for k, v in self.variability.items()},
            "dropped": self.dropped.to_dict(orient="records"),
            "X": {c: self.X[c].tolist() for c in self.X.columns},
            "expectations": list(self.X.index),
            "definitions": [
                {
                    "metric": r["metric"],
                    "combination": r["combination"],
                    "coefficients": r["coefficients"],
                    "backward_error": float(r["backward_error"]),
                    "rounded_combination": r["rounded_combination"],
                    "rounded_coefficients": r["rounded_coefficients"],
                    "rounded_error": float(r["rounded_error"]),
                    "verdict": r["verdict"],
                }
                for _, r in self.definitions.iterrows()
            ],
        }

    def to_json(self) -> str:
        """The whole result as JSON (read back with :meth:`from_json`)."""
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_json(cls, text: str, source: str = "result") -> DerivationResult:
        """Read a result written by :meth:`to_json`."""
        try:
            d = json.loads(text)
            var = pd.Series({k: np.nan if v is None else v for k, v in d["variability"].items()}, name="max_rnmse")
            return cls(
                family=d["family"],
                variability=var.astype(float),
                dropped=pd.DataFrame(d["dropped"], columns=["event", "step", "reason"]),
                X=pd.DataFrame(d["X"], index=d["expectations"]),
                chosen=list(d["chosen"]),
                definitions=pd.DataFrame(d["definitions"]),
                params=dict(d["params"]),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise HemkitError(f"{source}: not a hemkit derive result ({exc})") from exc


def analyze_cube(
    cube: np.ndarray,
    events: list[str],
    basis: pd.DataFrame,
    signatures: pd.DataFrame,
    *,
    family: str = "custom",
    tau: float = 1e-10,
    alpha: float = 5e-4,
    proj_tol: float = 1e-3,
    define_tol: float = 1e-4,
    coef_step: float = 1.0,
) -> DerivationResult:
    """Run the whole analysis on a measurement array (reps x kernel loops x events).

    Parameters
    ----------
    cube : array, shape (R, N, n)
    events : list of str, length n
    basis : DataFrame, shape (N, k)
        Expectation basis E, index = kernel loops (``kernel/size``), columns = expectations.
    signatures : DataFrame, shape (m, k)
        Metric signatures in the basis, index = metric names, columns = expectations.
    tau, alpha, proj_tol, define_tol, coef_step : float
        Noise threshold (Eq. 4), QR tolerance (Algorithm 2), largest relative projection
        residual, largest backward error of a defined metric, coefficient rounding grid.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> E = pd.DataFrame([[24., 0], [48, 0], [96, 0], [0, 12], [0, 24], [0, 48]],
    ...                  columns=["D_SCAL", "D_FMA_256"], index=[f"r{i}" for i in range(6)])
    >>> S = pd.DataFrame({"D_SCAL": [1, 1.0], "D_FMA_256": [8, 1.0]}, index=["DP Ops", "DP Instrs"])
    >>> cube = np.stack([E.to_numpy()] * 3)
    >>> res = analyze_cube(cube, ["SCALAR_DOUBLE", "256B_FMA_DOUBLE"], E, S)
    >>> res.table()["definition"].tolist()
    ['1xSCALAR_DOUBLE + 8x256B_FMA_DOUBLE', '1xSCALAR_DOUBLE + 1x256B_FMA_DOUBLE']
    """
    cube = np.asarray(cube, dtype=float)
    if list(signatures.columns) != list(basis.columns):
        raise HemkitError("signature columns must be the basis expectations in the same order")
    if cube.ndim != 3 or cube.shape[1] != len(basis) or cube.shape[2] != len(events):
        raise HemkitError(f"measurement array shape {cube.shape} does not match basis rows / events")
    ev = np.asarray(events, dtype=object)
    var = max_rnmse(cube)
    keep = noise_mask(var, tau)
    dropped = [
        {"event": e, "step": "noise", "reason": "all zero" if not np.isfinite(v) else f"max RNMSE {v:.3g} > tau"}
        for e, v in zip(ev[~keep], var[~keep], strict=True)
    ]
    M = cube[:, :, keep].mean(axis=0)
    X, rel = project_onto_basis(basis.to_numpy(dtype=float), M)
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
    Xhat = X[:, piv]
    Y, err, Yr, err_r = solve_signatures(Xhat, signatures.to_numpy(dtype=float).T, coef_step=coef_step)
    rows = []
    for m, metric in enumerate(signatures.index):
        best = min(err[m], err_r[m])
        rows.append(
            {
                "metric": str(metric),
                "combination": format_combination(Y[:, m], chosen),
                "coefficients": {c: float(y) for c, y in zip(chosen, Y[:, m], strict=True)},
                "backward_error": float(err[m]),
                "rounded_combination": format_combination(Yr[:, m], chosen),
                "rounded_coefficients": {c: float(y) for c, y in zip(chosen, Yr[:, m], strict=True) if y != 0},
                "rounded_error": float(err_r[m]),
                "verdict": "defined" if best <= define_tol else "not definable",
            }
        )
    return DerivationResult(
        family=family,
        variability=pd.Series(var, index=list(events), name="max_rnmse"),
        dropped=pd.DataFrame(dropped, columns=["event", "step", "reason"]),
        X=pd.DataFrame(X, index=list(basis.columns), columns=names),
        chosen=chosen,
        definitions=pd.DataFrame(rows),
        params={"tau": tau, "alpha": alpha, "proj_tol": proj_tol, "define_tol": define_tol, "coef_step": coef_step},
    )


def analyze(measurements: pd.DataFrame, family, **overrides) -> DerivationResult:
    """Analyse tidy measurements of one kernel family (see :mod:`hemkit.derive.families`).

    Parameters
    ----------
    measurements : DataFrame
        ``kernel, size, rep, event, value`` (value per loop iteration).
    family : Family
        Basis, signatures and default thresholds.
    **overrides
        Any of ``tau, alpha, proj_tol, define_tol, coef_step``.
    """
    params = {**family.params(), **{k: v for k, v in overrides.items() if v is not None}}
    unknown = set(params) - {"tau", "alpha", "proj_tol", "define_tol", "coef_step"}
    if unknown:
        raise HemkitError(f"unknown analysis parameter {sorted(unknown)[0]!r}")
    cube, events = measurement_cube(measurements, list(family.basis.index))
    return analyze_cube(cube, events, family.basis, family.signatures, family=family.name, **params)
