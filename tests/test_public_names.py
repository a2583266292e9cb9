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


def _section(doc: str, title: str) -> str | None:
    """The text of the numpydoc section ``title`` of ``doc`` (up to the next section), or None."""
    lines = doc.splitlines()
    for i, (a, b) in enumerate(zip(lines, lines[1:])):
        if a.strip() == title and set(b.strip()) == {"-"}:
            rest = lines[i + 2 :]
            end = next(
                (j for j, (c, d) in enumerate(zip(rest, rest[1:])) if c.strip() and set(d.strip()) == {"-"}), len(rest)
            )
            return "\n".join(rest[:end])
    return None


def _parameters_section(doc: str) -> bool:
    return _section(doc, "Parameters") is not None


def _on_api_pages() -> list[tuple[str, str, object]]:
    """(module, name, object) of every public function and class the API reference shows."""
    out = []
    for (home, name), listed in sorted(_listed().items()):
        if any(hasattr(importlib.import_module(m), "__path__") for m in listed):  # in a package's __all__
            out.append((home, name, getattr(importlib.import_module(home), name)))
    return out


def test_public_functions_document_their_parameters():
    # the API reference is made from each package's __all__ with autodoc_typehints = "none"
    # (docs/conf.py): a function of two or more parameters shows none of them unless its
    # docstring has a numpydoc Parameters section
    missing = []
    for home, name, obj in _on_api_pages():
        if not inspect.isfunction(obj):
            continue
        params = [p for p in inspect.signature(obj).parameters if p != "self"]
        if len(params) >= 2 and not _parameters_section(inspect.getdoc(obj) or ""):
            missing.append(f"{home}.{name}")
    assert missing == [], f"{len(missing)} public functions without a Parameters section: {', '.join(missing)}"


def test_public_names_show_an_example():
    # numpydoc, as scikit-learn and statsmodels write it: every function and class on the API
    # pages has an Examples section of doctests (run by pytest --doctest-modules), so a
    # reader sees the call, or the call that makes the object, and what comes back
    missing = [
        f"{home}.{name}"
        for home, name, obj in _on_api_pages()
        if ">>>" not in (_section(inspect.getdoc(obj) or "", "Examples") or "")
    ]
    assert missing == [], f"{len(missing)} public names without an Examples section: {', '.join(missing)}"
