"""Readers and writers, one module per external format (no processes are started here).

- :mod:`hemkit.io.readings` -- :func:`read_readings`, the one way into :class:`hemkit.Readings`.
- :mod:`hemkit.io.atomic` -- safe, atomic outputs checked before the work.
- :mod:`hemkit.io.collection` -- the SQLite collection database of ``hemkit collect``.

- :mod:`hemkit.io.formats` -- suffixes, magic numbers, format versions and the one version policy.
- :mod:`hemkit.io.table` -- :func:`read_table` / :func:`write_table`, the one CSV/Parquet
  reader and writer (Parquet recognised by content, written by suffix).
- :mod:`hemkit.io.tidy` -- the tidy ``group, run, event, value`` table.
- :mod:`hemkit.io.mergingtools` -- the raw layout of the R package ``mergingTools``.
- :mod:`hemkit.io.perf_stat` -- ``perf stat`` CSV (``-x,``) and JSON (``-j``) output,
  with or without ``-I`` intervals, ``-r``, ``-A``/``--per-core``/``--per-socket``.
- :mod:`hemkit.io.perf_files` -- perf stat files, one run each, as one readings set
  (groups from the events each file holds).
- :mod:`hemkit.io.perf_script` -- ``perf script`` samples (text or ``perf.data``).
- :mod:`hemkit.io.planfile` -- plan files (TOML or JSON).
- :mod:`hemkit.io.traces` -- interval traces (``perf stat -I``) and hemkit's tidy traces.
- :mod:`hemkit.io.mpx` -- MPX estimate and score tables, saved MPX models.
- :mod:`hemkit.io.derive` -- derive measurements, analyses (JSON), definition tables, presets.
- :mod:`hemkit.io.evaluation` -- merged and truth tables and references of ``hemkit evaluate``.
"""

from typing import TYPE_CHECKING

from hemkit.core.lazy import lazy_attributes

if TYPE_CHECKING:
    from hemkit.io.atomic import atomic_open, atomic_path, check_output, write_figure, write_text
    from hemkit.io.collection import Machine, run_machines
    from hemkit.io.mergingtools import from_mergingtools, read_code_names
    from hemkit.io.perf_files import PerfOptions, read_perf_runs
    from hemkit.io.perf_stat import check_events_supported, parse_perf_stat
    from hemkit.io.readings import read_anchor, read_machines, read_readings, sniff
    from hemkit.io.table import read_table, write_table
    from hemkit.io.tidy import read_tidy

# every name loads its module on first use, so that importing one method (or the CLI) does not
# import every method and pandas
_LAZY = {
    "atomic_open": "hemkit.io.atomic",
    "atomic_path": "hemkit.io.atomic",
    "check_output": "hemkit.io.atomic",
    "write_figure": "hemkit.io.atomic",
    "write_text": "hemkit.io.atomic",
    "Machine": "hemkit.io.collection",
    "run_machines": "hemkit.io.collection",
    "from_mergingtools": "hemkit.io.mergingtools",
    "read_code_names": "hemkit.io.mergingtools",
    "PerfOptions": "hemkit.io.perf_files",
    "read_perf_runs": "hemkit.io.perf_files",
    "check_events_supported": "hemkit.io.perf_stat",
    "parse_perf_stat": "hemkit.io.perf_stat",
    "read_anchor": "hemkit.io.readings",
    "read_machines": "hemkit.io.readings",
    "read_readings": "hemkit.io.readings",
    "sniff": "hemkit.io.readings",
    "read_table": "hemkit.io.table",
    "read_tidy": "hemkit.io.tidy",
    "write_table": "hemkit.io.table",
}

__getattr__ = lazy_attributes("hemkit.io", _LAZY)


__all__ = [
    "Machine",
    "PerfOptions",
    "atomic_open",
    "atomic_path",
    "check_events_supported",
    "check_output",
    "from_mergingtools",
    "parse_perf_stat",
    "read_anchor",
    "read_code_names",
    "read_machines",
    "read_perf_runs",
    "read_readings",
    "read_table",
    "read_tidy",
    "run_machines",
    "sniff",
    "write_figure",
    "write_table",
    "write_text",
]
