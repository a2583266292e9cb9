"""Readers and writers, one module per external format.

- :mod:`hemkit.io.tidy` -- the tidy ``group, run, event, value`` table (CSV or Parquet) and
  merged outputs.
- :mod:`hemkit.io.mergingtools` -- the raw layout of the R package ``mergingTools``.
- :mod:`hemkit.io.perf_stat` -- ``perf stat`` CSV (``-x,``) and JSON (``-j``) output,
  with or without ``-I`` intervals.
- :mod:`hemkit.io.perf_script` -- ``perf script`` samples (text or ``perf.data``).
"""

from hemkit.io.mergingtools import from_mergingtools, read_code_names
from hemkit.io.perf_stat import parse_perf_stat
from hemkit.io.tidy import read_readings, read_table, write_table

__all__ = ["from_mergingtools", "parse_perf_stat", "read_code_names", "read_readings", "read_table", "write_table"]
