"""Package attributes that load their module on first use (PEP 562), so importing a package stays cheap.

Examples
--------
>>> __getattr__ = lazy_attributes("demo", {"sqrt": "math"})
>>> __getattr__("sqrt")(4.0)
2.0
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``names[name]`` and returns its attribute ``name``."""

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(importlib.import_module(names[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


__all__ = ["lazy_attributes"]
