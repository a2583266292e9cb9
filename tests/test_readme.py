"""The README's Python examples run, in order, as a new user would paste them.

Every ```python block of README.md is executed in one namespace inside an empty folder; a
block whose fence says ``no-test`` (e.g. one that needs hardware counters) is skipped. A
snippet that names an undefined variable, or whose API drifted, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)


def _blocks():
    text = README.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        line = text[: m.start()].count("\n") + 2
        yield line, m.group(1).strip(), m.group(2)


def test_readme_has_python_examples():
    assert len([b for b in _blocks() if "no-test" not in b[1]]) >= 3


@pytest.mark.slow
def test_readme_python_examples_run(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    for line, info, code in _blocks():
        if "no-test" in info:
            continue
        try:
            exec(compile(code, f"README.md:{line}", "exec"), namespace)
        except Exception as exc:  # name the block that failed
            raise AssertionError(f"README.md example at line {line} failed: {type(exc).__name__}: {exc}") from exc
