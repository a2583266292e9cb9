"""Bundled example data and synthetic data with a known truth.

- :func:`t2080_hrm`, :func:`t2080_much` -- real NXP T2080 readings published with the R package
  ``mergingTools`` (see ``data/T2080_README.md``), event codes mapped to names.
- :func:`t2080_hrm_reference` -- what ``mergingTools::HRM_merge`` returns for ``t2080_hrm``.
- :func:`zen5_br_64kb` -- real AMD Zen 5 readings with every event read in every run (a known
  truth for merges, see ``data/ZEN5_README.md``); :func:`split_truth` splits such a table
  into the groups of a design.
- :mod:`hemkit.datasets.synthetic` -- non-Gaussian data with a chosen correlation matrix,
  split into HRM or MUCH groups.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from hemkit.core.readings import Readings
    from hemkit.datasets.truth import check_truth_table, split_into_runs, split_truth

# pandas and the truth helpers load on first use: 'from hemkit.datasets import T2080_ANCHOR'
# (hemkit merge) and the bundled readings need neither
_TRUTH = ("check_truth_table", "split_into_runs", "split_truth")


def __getattr__(name: str) -> Any:
    if name in _TRUTH or name == "truth":
        import importlib

        truth = importlib.import_module("hemkit.datasets.truth")
        return truth if name == "truth" else getattr(truth, name)
    raise AttributeError(f"module 'hemkit.datasets' has no attribute {name!r}")


T2080_PMCS = 6
T2080_ANCHOR = "PROCESSOR_CYCLES"
#: the counter of the Zen 5 truth that reads 0 in every run (the dead 6th counter)
ZEN5_DEAD_COUNTER = "L1-dcache-prefetches"


def t2080_path(name: str) -> Path:
    """Path of a bundled data file (``hrm_raw.csv``, ``much_raw.csv``, ``code2name.csv``, ``zen5_br_64kb.csv``).

    Parameters
    ----------
    name : str
        The file's name in ``hemkit/datasets/data``.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    The raw files in ``mergingTools``' layout, for readers of that format:

    >>> from hemkit.io.mergingtools import from_mergingtools
    >>> path = t2080_path("much_raw.csv")
    >>> path.name, path.exists()
    ('much_raw.csv', True)
    >>> from_mergingtools(path, T2080_PMCS, code_names=t2080_code_names())
    Readings(24 groups, 16 events, 1000-1000 runs per group)
    """
    return Path(str(resources.files("hemkit.datasets").joinpath("data", name)))


def t2080_code_names() -> dict[int, str]:
    """T2080 event code -> event name.

    Returns
    -------
    dict of int to str
        The 262 events of the T2080's core, by the code ``mergingTools`` files use.

    Examples
    --------
    >>> names = t2080_code_names()
    >>> len(names), names[1], names[2]
    (262, 'PROCESSOR_CYCLES', 'INSTRUCTIONS_COMPLETED')
    """
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
    """Real T2080 readings for MUCH: 24 groups x 6 events x 1000 runs covering every pair of 16 events.

    Returns
    -------
    Readings

    Examples
    --------
    >>> r = t2080_much()
    >>> r
    Readings(24 groups, 16 events, 1000-1000 runs per group)
    >>> r.missing_pairs(), r.groups[1].shape
    ([], (1000, 6))
    """
    from hemkit.io.mergingtools import from_mergingtools

    return from_mergingtools(t2080_path("much_raw.csv"), T2080_PMCS, code_names=t2080_code_names())


def t2080_hrm_reference() -> pd.DataFrame:
    """``mergingTools::HRM_merge`` (v1.0.1) output for :func:`t2080_hrm` (1000 x 16).

    Returns
    -------
    DataFrame
        One column per event, one row per merged run.

    Examples
    --------
    hemkit's HRM merge gives the same table as the R package:

    >>> from hemkit.merge import merge
    >>> ref = t2080_hrm_reference()
    >>> ref.shape, ref.columns[0]
    ((1000, 16), 'PROCESSOR_CYCLES')
    >>> merged = merge(t2080_hrm(), "hrm", anchor=T2080_ANCHOR).data
    >>> bool((merged[ref.columns].to_numpy() == ref.to_numpy()).all())
    True
    """
    from hemkit.io.table import read_table

    return read_table(t2080_path("hrm_merged_reference.csv"))


def zen5_br_64kb(*, keep_dead: bool = False) -> pd.DataFrame:
    """Real AMD Zen 5 readings, all 8 events read together in each of 800 runs (a known truth).

    The dead 6th counter ``L1-dcache-prefetches`` (0 in every run) is dropped unless
    ``keep_dead``.  See ``data/ZEN5_README.md``.

    Examples
    --------
    >>> t = zen5_br_64kb()
    >>> t.shape, "L1-dcache-prefetches" in t.columns
    ((800, 8), False)
    """
    from hemkit.io.table import read_table

    table = read_table(t2080_path("zen5_br_64kb.csv")).set_index("run")
    table.columns.name = None
    if not keep_dead:
        table = table.drop(columns=[ZEN5_DEAD_COUNTER])
    return table.astype(float)


__all__ = [
    "T2080_ANCHOR",
    "T2080_PMCS",
    "ZEN5_DEAD_COUNTER",
    "check_truth_table",
    "split_into_runs",
    "split_truth",
    "t2080_code_names",
    "t2080_hrm",
    "t2080_hrm_reference",
    "t2080_much",
    "t2080_path",
    "zen5_br_64kb",
]
