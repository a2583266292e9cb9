"""Deprecated location: use :mod:`hemkit.external.compiler` (kept while the areas move over)."""

from hemkit.external.compiler import cache_dir, compile_c, find_compiler  # noqa: F401
