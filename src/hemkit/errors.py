"""Deprecated location: use :mod:`hemkit.core.errors` (kept while the areas move over)."""

from hemkit.core.errors import *  # noqa: F403
from hemkit.core.errors import __all__  # noqa: F401
