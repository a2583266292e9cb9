"""One import path per public name: an area lists in ``__all__`` only what it defines.

A package re-exports what its own modules define (``hemkit.merge.merge`` from
``hemkit.merge.api``), and the top-level ``hemkit`` package re-exports the few names of its
tour; no area re-exports another area's names (``read_trace`` lives in ``hemkit.io.traces``
only, not also in ``hemkit.mpx`` and ``hemkit.mpx.traces``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import hemkit


def _listed() -> dict[tuple[str, str], list[str]]:
    where: dict[tuple[str, str], list[str]] = {}
    names = [m.name for m in pkgutil.walk_packages(hemkit.__path__, "hemkit.")]
    for name in names:
        if name.startswith("hemkit.cli") or name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                where.setdefault((obj.__module__, obj.__qualname__), []).append(name)
    return where


def _area(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_area_lists_another_areas_names():
    foreign = {
        f"{home}.{name}": [m for m in listed if _area(m) != _area(home)]
        for (home, name), listed in _listed().items()
        if any(_area(m) != _area(home) for m in listed)
    }
    assert foreign == {}


def test_removed_aliases_stay_removed():
    import hemkit.datasets.synthetic
    import hemkit.evaluate
    import hemkit.merge.correlation
    import hemkit.mpx
    import hemkit.plan

    assert not hasattr(hemkit.plan, "CoveringResult")
    assert not hasattr(hemkit.evaluate.StudyResult, "table")
    assert not hasattr(hemkit.merge.correlation, "pair_labels")
    assert not hasattr(hemkit.datasets.synthetic, "split_by_design")
    assert "read_trace" not in hemkit.mpx.__all__
