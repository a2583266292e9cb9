"""The one scalar check: every integer and range parameter is refused the same way."""

from __future__ import annotations

import numpy as np
import pytest

from hemkit.core import InputError, check_scalar


@pytest.mark.parametrize(
    ("value", "kwargs", "message"),
    [
        (0, {"min_val": 1}, "n must be an integer of at least 1, got 0"),
        (True, {"min_val": 0}, "n must be an integer of at least 0, got True"),
        (1.5, {}, "n must be an integer, got 1.5"),
        ("2", {"min_val": 1, "max_val": 3}, "n must be an integer from 1 to 3, got '2'"),
        (4, {"min_val": 1, "max_val": 3}, "n must be an integer from 1 to 3, got 4"),
        (None, {"min_val": 1}, "n must be an integer of at least 1, got None"),
        (
            1.0,
            {"kind": "real", "min_val": 0, "max_val": 1, "closed": "neither"},
            "n must be a number in (0, 1), got 1.0",
        ),
        (float("nan"), {"kind": "real", "min_val": 0, "closed": "neither"}, "n must be a positive number, got nan"),
        (float("inf"), {"kind": "real", "min_val": 0}, "n must be a non-negative number, got inf"),
        (
            0,
            {"kind": "real", "min_val": 0, "closed": "right", "what": "seconds"},
            "n (seconds) must be a positive number",
        ),
        ("x", {"allow_none": True}, "n must be an integer (or None), got 'x'"),
    ],
)
def test_refusals_name_the_parameter_the_range_and_the_value(value, kwargs, message):
    kind = kwargs.pop("kind", "int")
    with pytest.raises(InputError) as exc:
        check_scalar(value, "n", kind, **kwargs)
    assert str(exc.value).startswith(message)


def test_accepted_values_come_back_as_python_numbers():
    assert check_scalar(np.int64(3), "n", min_val=3) == 3 and type(check_scalar(np.int64(3), "n")) is int
    assert check_scalar(2, "x", "real", min_val=0) == 2.0 and type(check_scalar(2, "x", "real")) is float
    assert check_scalar(None, "n", allow_none=True) is None
    with pytest.raises(InputError, match=r"x must be a number in \[0, 1\), got 1.0"):
        check_scalar(1, "x", "real", min_val=0, max_val=1, closed="left")


def test_library_functions_use_it():
    """A few of the parameters it checks across the package, each named as the Python argument."""
    from hemkit.datasets import t2080_much
    from hemkit.evaluate import design_runs
    from hemkit.merge import merge

    with pytest.raises(InputError, match="n_sims must be an integer of at least 1, got 0"):
        merge(t2080_much(), "much", n_sims=0)
    with pytest.raises(InputError, match=r"level must be a number in \(0, 1\), got 1.0"):
        merge(t2080_much(), "joint", level=1.0)
    with pytest.raises(InputError, match="pmcs must be an integer of at least 2, got 1"):
        design_runs(pmcs=1)


def test_an_unknown_name_is_refused_with_the_choices_and_the_closest():
    """Every 'unknown X; choose from ...' of the package comes from one helper, which names a typo's target."""
    from hemkit.core.checks import did_you_mean, unknown_choice
    from hemkit.derive.measure import choose_backend
    from hemkit.evaluate import parse_methods
    from hemkit.mpx.registry import make_estimator

    assert str(unknown_choice("backend", "prf", ["perf", "valgrind"])) == (
        "unknown backend 'prf'; choose from perf, valgrind; did you mean 'perf'?"
    )
    assert did_you_mean("zzz", ["perf", "valgrind"]) == ""  # nothing close: no guess
    with pytest.raises(InputError, match=r"unknown method 'jiont'; choose from .*; did you mean 'joint'\?$"):
        parse_methods("much,jiont")
    with pytest.raises(InputError, match=r"unknown backend 'valgrid'; .*did you mean 'valgrind'\?$"):
        choose_backend("valgrid")
    with pytest.raises(InputError, match=r"unknown estimator 'lineer' .*did you mean 'linear'\?$"):
        make_estimator("lineer")
