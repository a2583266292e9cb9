"""Deprecated location: use :mod:`hemkit.core.readings` (kept while the areas move over)."""

from hemkit.core.readings import TIDY_COLUMNS, Readings  # noqa: F401
