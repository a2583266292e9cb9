"""Collect validated readings with ``perf stat`` into one resumable SQLite file, and probe counters.

- :func:`collect` -- run a :class:`hemkit.plan.Plan` round-robin, validate, store, resume;
  :class:`CollectOptions` (pin, co-runner, timeout, ...), :class:`CollectResult`, and
  :class:`CollectionInterrupted` for Ctrl-C / SIGTERM.
- :func:`export` -- the valid runs as a tidy CSV/Parquet file (export reads any readings
  input; :func:`hemkit.io.read_readings` reads a collection as :class:`hemkit.Readings`);
  :func:`status` -- progress.
- :func:`probe` -- which events count here and how many count correctly at once.
- :func:`ubench_command`, :func:`corunner_command` -- the bundled C workloads.

Examples
--------
>>> from hemkit.plan import make_plan
>>> from hemkit.collect import collect, ubench_command
>>> from hemkit.io import read_readings
>>> plan = make_plan(["task-clock", "page-faults", "context-switches"], pmcs=2)
>>> collect(plan, ubench_command("iadd", "L2", 10**5, jitter=0.5), "c.db", runs=5)  # doctest: +SKIP
>>> read_readings("c.db")  # doctest: +SKIP
"""

from hemkit.collect.collector import (
    DEFAULT_RUNS,
    CollectionInterrupted,
    CollectOptions,
    CollectResult,
    collect,
    machine_info,
    perf_events,
    status,
)
from hemkit.collect.export import ExportResult, export
from hemkit.collect.probe import ProbeOptions, ProbeResult, event_kind, probe
from hemkit.collect.validate import check_reading
from hemkit.collect.workloads import LEVELS, OPS, corunner_command, corunner_path, ubench_command, ubench_path

__all__ = [
    "DEFAULT_RUNS",
    "LEVELS",
    "OPS",
    "CollectOptions",
    "CollectResult",
    "CollectionInterrupted",
    "ExportResult",
    "ProbeOptions",
    "ProbeResult",
    "check_reading",
    "collect",
    "corunner_command",
    "corunner_path",
    "event_kind",
    "export",
    "machine_info",
    "perf_events",
    "probe",
    "status",
    "ubench_command",
    "ubench_path",
]
