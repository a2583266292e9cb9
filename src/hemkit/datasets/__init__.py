"""Bundled example data and synthetic data with a known truth.

- :func:`t2080_hrm`, :func:`t2080_much` -- real NXP T2080 readings published with the R package
  ``mergingTools`` (see ``data/T2080_README.md``), event codes mapped to names.
- :func:`t2080_hrm_reference` -- what ``mergingTools::HRM_merge`` returns for ``t2080_hrm``.
- :mod:`hemkit.datasets.synthetic` -- non-Gaussian data with a chosen correlation matrix,
  split into HRM or MUCH groups.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from hemkit.readings import Readings

T2080_PMCS = 6
T2080_ANCHOR = "PROCESSOR_CYCLES"


def t2080_path(name: str) -> Path:
    """Path of a bundled T2080 file (``hrm_raw.csv``, ``much_raw.csv``, ``code2name.csv``, ...)."""
    return Path(str(resources.files("hemkit.datasets").joinpath("data", name)))


def t2080_code_names() -> dict[int, str]:
    """T2080 event code -> event name."""
    from hemkit.io.mergingtools import read_code_names

    return read_code_names(t2080_path("code2name.csv"))


def t2080_hrm() -> Readings:
    """Real T2080 readings for HRM: 3 groups x 6 events x 1000 runs, anchor ``PROCESSOR_CYCLES``.

    Examples
    --------
    >>> r = t2080_hrm()
    >>> r.events[:2]
    ['PROCESSOR_CYCLES', 'CYCLES_LSU_SCHEDULE_STALLED']
    """
    from hemkit.io.mergingtools import from_mergingtools

    return from_mergingtools(t2080_path("hrm_raw.csv"), T2080_PMCS, code_names=t2080_code_names())


def t2080_much() -> Readings:
    """Real T2080 readings for MUCH: 24 groups x 6 events x 1000 runs covering every pair of 16 events."""
    from hemkit.io.mergingtools import from_mergingtools

    return from_mergingtools(t2080_path("much_raw.csv"), T2080_PMCS, code_names=t2080_code_names())


def t2080_hrm_reference() -> pd.DataFrame:
    """``mergingTools::HRM_merge`` (v1.0.1) output for :func:`t2080_hrm` (1000 x 16)."""
    return pd.read_csv(t2080_path("hrm_merged_reference.csv"))
