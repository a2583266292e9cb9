"""Files of the MPX estimators (``hemkit mpx``): estimate and score tables, and saved models.

- estimates (``hemkit mpx estimate -o``) and scores (``hemkit mpx score -o``) are tables,
  CSV or Parquet through :mod:`hemkit.io.table` (traces are :mod:`hemkit.io.traces`);
- a model (``hemkit mpx fit -o model.pt``) is a PyTorch file of plain data and tensors
  (loaded with ``weights_only``: no code is run), with ``"format": "hemkit-mpx-model"`` and
  a ``version`` (:data:`hemkit.io.formats.MODEL_VERSION`, the one version policy).

What a model holds (parameters, weights, events, normalisation) is the business of
:mod:`hemkit.mpx.learned`, which builds the estimator from the data read here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hemkit.core.errors import InputError
from hemkit.io.atomic import atomic_open
from hemkit.io.formats import MODEL_VERSION, check_version
from hemkit.io.table import write_table

if TYPE_CHECKING:
    import pandas as pd

PathLike = str | os.PathLike[str]
MODEL_FORMAT = "hemkit-mpx-model"


def write_estimates(table: pd.DataFrame, path: PathLike, *, inputs: Sequence[PathLike] = ()) -> Path:
    """Write estimated series (``run, step, event, estimate``) as CSV or Parquet, atomically."""
    return write_table(table, path, inputs=inputs, what="estimates")


def write_totals(table: pd.DataFrame, path: PathLike, *, inputs: Sequence[PathLike] = ()) -> Path:
    """Write totals with intervals (``run, event, total, lower, upper, perf_total, ...``) as CSV or Parquet."""
    return write_table(table, path, inputs=inputs, what="totals")


def write_scores(table: pd.DataFrame, path: PathLike, *, inputs: Sequence[PathLike] = ()) -> Path:
    """Write a score table (one row per estimator, workload, event ...) as CSV or Parquet, atomically."""
    return write_table(table, path, inputs=inputs, what="scores")


def write_model(blob: Mapping[str, Any], path: PathLike) -> Path:
    """Write a model's data (plain values and tensors) with the model format and version, atomically.

    Saved through an open file, not the temporary file's path: ``torch.save`` names the records of
    its zip archive after the path it is given, and that name is random, so the same model would
    give different bytes on every write.
    """
    import torch

    with atomic_open(path, "wb", what="model") as fh:
        torch.save({"format": MODEL_FORMAT, "version": MODEL_VERSION, **blob}, fh)
    return Path(os.fspath(path))


def read_model(path: PathLike) -> dict[str, Any]:
    """The data of a model file, its format and version checked (no code is run: ``weights_only``).

    Raises
    ------
    InputError
        Missing, not a hemkit model (or a damaged one), or a newer model version.
    """
    import torch

    p = Path(os.fspath(path))
    if not p.is_file():
        raise InputError(f"{p}: no such model file")
    try:
        blob = torch.load(p, weights_only=True, map_location="cpu")
    except Exception as exc:  # pickle, zip and torch errors of every kind on a foreign file
        raise InputError(f"{p}: not a saved hemkit mpx model ({type(exc).__name__})") from None
    if not isinstance(blob, dict) or blob.get("format") != MODEL_FORMAT:
        raise InputError(f"{p}: not a saved hemkit mpx model (hemkit mpx fit writes them)")
    check_version(p, blob.get("version"), MODEL_VERSION, "mpx model")
    return blob


__all__ = ["MODEL_FORMAT", "read_model", "write_estimates", "write_model", "write_scores", "write_totals"]
