"""Estimators by name, and saved models by file: the one place that knows every estimator.

Kept apart from :mod:`hemkit.mpx.estimators` and :mod:`hemkit.mpx.learned` so that neither
imports the other's module back (the learned estimators build on the interpolations; the
registry builds on both).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hemkit.core.checks import did_you_mean
from hemkit.core.errors import InputError
from hemkit.io.formats import MODEL_SUFFIXES
from hemkit.mpx.checked import CheckedEstimation
from hemkit.mpx.estimators import FixedInterpolation, MpxEstimator
from hemkit.mpx.phase import INTERPOLATIONS

DEFAULT_ESTIMATOR = "checked"
"""What ``hemkit mpx estimate`` uses when no estimator is named (see :mod:`hemkit.mpx.checked`)."""
LEARNED = ("mlp", "bigru")
NAMES = (*INTERPOLATIONS, "fixed-cumulative", "checked", *LEARNED)


def make_estimator(name: str, **params: Any) -> MpxEstimator:
    """An estimator by name (see :data:`NAMES`): ``fixed``, ``linear``, ``growth``, ``min``, ``phase``, ``mlp`` ...

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.
    **params
        Keyword arguments of the estimator's class (e.g. ``mode`` for ``fixed``, those of
        :class:`~hemkit.mpx.checked.CheckedEstimation` for ``checked``); ``fixed-cumulative``
        takes none (it is ``fixed`` with ``mode="cumulative"``).

    Returns
    -------
    MpxEstimator
        A new estimator; ``mlp`` and ``bigru`` must be fitted before they estimate.

    Raises
    ------
    InputError
        An unknown name (with the nearest names) or a parameter the estimator does not take.

    Examples
    --------
    >>> make_estimator("fixed")
    FixedInterpolation(mode='window')
    """
    if name == "fixed-cumulative":
        if params:
            raise InputError(
                f"estimator 'fixed-cumulative' takes no parameters, got {', '.join(sorted(params))} "
                "(it is 'fixed' with mode='cumulative')"
            )
        return FixedInterpolation(mode="cumulative")
    try:
        if name == "checked":
            return CheckedEstimation(**params)
        if name in INTERPOLATIONS:
            return INTERPOLATIONS[name](**params)
        if name in LEARNED:
            from hemkit.mpx.learned import BiGRUEstimator, MLPEstimator

            return (MLPEstimator if name == "mlp" else BiGRUEstimator)(**params)
    except TypeError as exc:  # an unknown parameter
        raise InputError(f"estimator {name!r}: {exc}") from None
    raise InputError(f"unknown estimator {name!r} ({', '.join(NAMES)}, or a model file .pt){did_you_mean(name, NAMES)}")


def is_model_file(spec: str | os.PathLike[str]) -> bool:
    """Whether ``spec`` names a saved model (``.pt``/``.pth``) rather than an estimator."""
    return str(spec).lower().endswith(MODEL_SUFFIXES)


def load_estimator(spec: str | os.PathLike[str]) -> MpxEstimator:
    """An estimator by name, or a fitted model from a file written by ``hemkit mpx fit``.

    Examples
    --------
    >>> load_estimator("growth")
    GrowthInterpolation()
    """
    if not is_model_file(spec):
        name = str(spec)
        if name in LEARNED:
            raise InputError(f"estimator {name!r} must be trained first: hemkit mpx fit TRACES -m {name} -o {name}.pt")
        return make_estimator(name)
    path = Path(os.fspath(spec))
    if not path.exists():
        raise InputError(f"{path}: no such model file")
    from hemkit.mpx.learned import load_model

    return load_model(path)


__all__ = ["DEFAULT_ESTIMATOR", "INTERPOLATIONS", "NAMES", "is_model_file", "load_estimator", "make_estimator"]
