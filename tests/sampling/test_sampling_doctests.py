"""The runnable examples in the sampling docstrings stay true."""

import doctest
import importlib

import matplotlib
import pytest

MODULES = [
    "hemkit.sampling",
    "hemkit.sampling.states",
    "hemkit.sampling.simulate",
    "hemkit.sampling.model",
    "hemkit.sampling.paper",
    "hemkit.sampling.profile",
    "hemkit.sampling.plots",
    "hemkit.sampling.record",
    "hemkit.io.perf_script",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    matplotlib.use("Agg")
    res = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 0
