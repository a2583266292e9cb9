"""Compare two sets of readings: which events (and which correlations) changed, and by how much.

``compare(a, b)`` answers "did it change?" for a build before and after a change, two inputs,
two machines, or a task in isolation and under contention: per event the medians, their ratio
with an interval, a Brunner-Munzel test and false discovery rate control across events
(:mod:`hemkit.core.stats`); with ``pairs=True`` per pair of events the change of correlation.
``hemkit compare A B`` is the command.  ``machines_check(readings, hosts)`` asks the same of the
hosts of one collection: does any host read an event differently from the others?  Both take a
``margin`` (0.01: 1 %): a change or a host's difference then counts only where it is at least that
large, and compare says which events are alike within it and which the runs cannot judge.

Examples
--------
>>> import numpy as np, pandas as pd
>>> from hemkit import Readings
>>> rng = np.random.default_rng(1)
>>> a = Readings({1: pd.DataFrame({"cycles": rng.normal(1e6, 1e4, 50)})})
>>> b = Readings({1: pd.DataFrame({"cycles": rng.normal(1.05e6, 1e4, 50)})})
>>> compare(a, b, seed=0).changed
['cycles']
"""

from hemkit.compare.api import FEW_RUNS, MIN_RUNS, compare
from hemkit.compare.machines import (
    HOSTS_MARGIN,
    CollectionCheck,
    MachinesCheck,
    collection_check,
    collection_machines,
    machines_check,
)
from hemkit.compare.result import COLUMNS, CompareResult

__all__ = [
    "COLUMNS",
    "CollectionCheck",
    "FEW_RUNS",
    "HOSTS_MARGIN",
    "MIN_RUNS",
    "CompareResult",
    "MachinesCheck",
    "collection_check",
    "collection_machines",
    "compare",
    "machines_check",
]
