"""Every result has the same two summaries: ``summary()`` (a table) and ``line()`` (one line)."""

from __future__ import annotations

import importlib
import pkgutil

import pandas as pd
import pytest

import hemkit
from hemkit.core.results import Result, result


def _all_results() -> list[type]:
    for mod in pkgutil.walk_packages(hemkit.__path__, "hemkit."):
        if mod.name.startswith("hemkit.cli") or mod.name.endswith("__main__"):
            continue
        importlib.import_module(mod.name)
    found, todo = set(), [Result]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("hemkit.") and sub not in found:
                found.add(sub)
                todo.append(sub)
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__qualname__}")


RESULTS = _all_results()


def test_the_package_has_results():
    names = {c.__name__ for c in RESULTS}
    assert {"MergeResult", "Plan", "CollectResult", "Measurements", "Evaluation"} <= names


@pytest.mark.parametrize("cls", RESULTS, ids=[c.__qualname__ for c in RESULTS])
def test_one_name_for_the_summary_line(cls):
    assert callable(cls.line)
    assert "describe" not in vars(cls), f"{cls.__qualname__}.describe: the one-line summary is line()"


@result
class _Many(Result):
    n: int

    def summary(self) -> pd.DataFrame:
        return pd.DataFrame({"x": [0.123456] * self.n}, index=[f"r{i}" for i in range(self.n)])


def test_default_line_is_one_line():
    assert _Many(1).line() == "_Many r0: x 0.1235"
    assert _Many(7).line() == "_Many: 7 rows (r0, r1, r2, r3, r4, ...)"


def test_describe_is_the_deprecated_name_of_line():
    with pytest.warns(FutureWarning, match=r"describe\(\) is deprecated; use line\(\)"):
        assert _Many(2).describe() == _Many(2).line()
