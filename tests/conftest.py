"""Shared test fixtures."""

import os

import matplotlib
import pytest

matplotlib.use("Agg")
os.environ.setdefault("HEMKIT_CACHE", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "hemkit"))


@pytest.fixture(scope="session")
def hardware_perf():
    """Skip unless perf counts hardware events on this machine."""
    from hemkit.perf import hardware_events_work

    ok, why = hardware_events_work()
    if not ok:
        pytest.skip(why)
    return True


@pytest.fixture(scope="session")
def software_perf():
    """Skip unless perf can count software events (task-clock) on this machine."""
    from hemkit.errors import HemkitError
    from hemkit.perf import run_perf_stat

    try:
        res = run_perf_stat(["task-clock"], ["true"], timeout=30)
    except HemkitError as exc:
        pytest.skip(f"perf unusable here: {exc}")
    if res.counts.empty or res.counts["status"].iloc[0] != "ok":
        pytest.skip("perf cannot count even task-clock here")
    return True
