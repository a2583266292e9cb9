"""Deprecated location: use :mod:`hemkit.external.perf` (kept while the areas move over)."""

from hemkit.external.perf import (  # noqa: F401
    PerfStatResult,
    find_perf,
    hardware_events_work,
    run_perf_stat,
)
