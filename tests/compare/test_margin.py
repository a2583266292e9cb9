"""A margin for compare and the machines check: changed by more than it, alike within it, or unclear.

With thousands of runs any difference is flagged; the margin says which matter.  Known truths:
true medians 0.3 % apart with 4000 runs a side are changed at margin 0 and alike at 1 %; 5 %
apart, changed at 1 %; 12 runs of 2 % noise cannot say either at 1 % (unclear).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit import Readings
from hemkit.compare import HOSTS_MARGIN, compare, machines_check
from hemkit.compare.limits import band, verdicts
from hemkit.core.errors import HemkitWarning, InputError


def _side(cols):
    return Readings({1: pd.DataFrame(cols)}, min_runs=1)


def _lognormal(rng, n, median, sigma=0.01):
    return rng.lognormal(np.log(median), sigma, n)


def _pair(shift, n, sigma, seed=0):
    rng = np.random.default_rng(seed)
    return _side({"x": _lognormal(rng, n, 1e6, sigma)}), _side({"x": _lognormal(rng, n, 1e6 * (1 + shift), sigma)})


def _verdict(res, event="x"):
    return res.to_frame().set_index("event").loc[event, "verdict"]


def test_a_true_difference_of_0_3_percent_with_4000_runs_is_changed_at_0_and_alike_at_1_percent():
    a, b = _pair(0.003, 4000, 0.01)
    at0 = compare(a, b, seed=0)
    assert at0.changed == ["x"] and _verdict(at0) == "changed"
    at1 = compare(a, b, seed=0, margin=0.01)
    t = at1.to_frame().set_index("event")
    assert at1.changed == [] and at1.alike == ["x"] and t.loc["x", "verdict"] == "alike"
    assert 1 / 1.01 <= t.loc["x", "lower"] < 1.003 < t.loc["x", "upper"] <= 1.01
    assert "the test sees a difference, within the 1% margin" in t.loc["x", "note"]
    # the numbers are those of margin 0: only the verdict moves
    cols = ["ratio", "lower", "upper", "p_value", "q_value"]
    pd.testing.assert_frame_equal(at0.to_frame()[cols], at1.to_frame()[cols])


def test_a_true_difference_of_5_percent_is_changed_at_1_percent():
    a, b = _pair(0.05, 100, 0.02)
    res = compare(a, b, seed=0, margin=0.01)
    assert res.changed == ["x"] and _verdict(res) == "changed" and res.alike == [] and res.unclear == []


def test_12_runs_of_2_percent_noise_cannot_judge_1_percent_unclear():
    a, b = _pair(0.0, 12, 0.02)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)  # fewer than 20 runs
        res = compare(a, b, seed=0, margin=0.01)
    assert _verdict(res) == "unclear" and res.unclear == ["x"] and res.changed == []


def test_at_margin_0_nothing_noisy_is_alike_and_changed_is_as_before():
    a, b = _pair(0.0, 4000, 0.01)
    res = compare(a, b, seed=0)
    assert res.margin == 0 and set(res.to_frame()["verdict"]) <= {"changed", "unclear"}
    assert res.alike == []


def test_constant_events_equal_are_alike_at_any_margin_and_a_difference_counts_by_its_size():
    n = 30
    a = _side({"same": np.full(n, 7.0), "tiny": np.full(n, 1000.0), "big": np.full(n, 100.0)})
    b = _side({"same": np.full(n, 7.0), "tiny": np.full(n, 1001.0), "big": np.full(n, 105.0)})
    for margin in (0.0, 0.01):
        t = compare(a, b, seed=0, margin=margin).to_frame().set_index("event")
        assert t.loc["same", "verdict"] == "alike" and t.loc["big", "verdict"] == "changed"
    assert compare(a, b, seed=0).to_frame().set_index("event").loc["tiny", "verdict"] == "changed"
    t = compare(a, b, seed=0, margin=0.01).to_frame().set_index("event")
    assert t.loc["tiny", "verdict"] == "alike" and not t.loc["tiny", "changed"]
    assert "within the 1% margin" in t.loc["tiny", "note"]


def test_the_summary_and_line_count_changed_alike_and_unclear_at_the_margin():
    rng = np.random.default_rng(3)
    n = 3000
    base = {"same": 1.0, "small": 1.002, "big": 1.05}
    a = _side({e: _lognormal(rng, n, 1e6) for e in base})
    b = _side({e: _lognormal(rng, n, 1e6 * f) for e, f in base.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        few = _side({"noisy": _lognormal(rng, 15, 100, 0.05)}), _side({"noisy": _lognormal(rng, 15, 100, 0.05)})
    a = Readings({1: a[1], 2: few[0][1]}, min_runs=1)
    b = Readings({1: b[1], 2: few[1][1]}, min_runs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        res = compare(a, b, seed=0, margin=0.01)
    row = res.row()
    assert (row["changed"], row["alike"], row["unclear"], row["margin"]) == (1, 2, 1, 0.01)
    assert res.changed == ["big"] and res.alike == ["same", "small"] and res.unclear == ["noisy"]
    assert res.line() == "1 of 4 events changed, 2 alike, 1 unclear at margin 1% (FDR 5%)"
    assert res.summary().loc["compare", "alike"] == 2


@pytest.mark.parametrize("bad", [-0.01, 1.0, 2, float("nan"), True, "0.01", None])
def test_a_bad_margin_is_refused_naming_it(bad):
    a, b = _pair(0.0, 30, 0.01)
    with pytest.raises(InputError, match="margin must be a relative change in \\[0, 1\\)") as exc:
        compare(a, b, margin=bad)
    assert exc.value.param == "margin"
    r, hosts = _hosts({"n1": 20, "n2": 20})
    with pytest.raises(InputError, match="margin"):
        machines_check(r, hosts, margin=bad)


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(
        st.tuples(
            st.booleans(),
            st.floats(0.5, 1.5),
            st.floats(0.0, 0.2),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    ),
    margins=st.tuples(st.floats(0.0, 0.5), st.floats(0.0, 0.5)),
)
def test_raising_the_margin_never_makes_a_change_nor_takes_alike_away(data, margins):
    """Of :func:`verdicts` alone, over any intervals (the one function compare and machines_check judge with)."""
    flagged = np.array([d[0] for d in data])
    lower = np.array([d[1] for d in data])
    upper = lower * (1 + np.array([d[2] for d in data]))
    same = np.array([d[3] for d in data]) & ~flagged
    small, large = sorted(margins)
    c0, v0 = verdicts(flagged, lower, upper, small, same)
    c1, v1 = verdicts(flagged, lower, upper, large, same)
    assert not (c1 & ~c0).any()
    assert not ((v0 == "alike") & (v1 != "alike")).any()
    assert ((v1 == "changed") == c1).all() and set(v1) <= {"changed", "alike", "unclear"}
    if small == 0:
        assert (c0 == flagged).all() and ((v0 == "alike") == same).all()


@settings(max_examples=25, deadline=None)
@given(
    shift=st.floats(-0.05, 0.05),
    n=st.integers(20, 400),
    sigma=st.floats(0.001, 0.05),
    margins=st.tuples(st.floats(0.0, 0.1), st.floats(0.0, 0.1)),
    seed=st.integers(0, 2**16),
)
def test_compare_raising_the_margin_never_makes_a_change_nor_takes_alike_away(shift, n, sigma, margins, seed):
    rng = np.random.default_rng(seed)
    a = _side({"x": _lognormal(rng, n, 1e6, sigma), "k": rng.poisson(40, n).astype(float)})
    b = _side({"x": _lognormal(rng, n, 1e6 * (1 + shift), sigma), "k": rng.poisson(40, n).astype(float)})
    small, large = sorted(margins)
    lo = compare(a, b, seed=0, margin=small).to_frame()
    hi = compare(a, b, seed=0, margin=large).to_frame()
    assert not (hi["changed"] & ~lo["changed"]).any()
    assert not ((lo["verdict"] == "alike") & (hi["verdict"] != "alike")).any()
    assert ((hi["verdict"] == "changed") == hi["changed"]).all()
    at0 = compare(a, b, seed=0).to_frame()
    assert not (lo["changed"] & ~at0["changed"]).any()  # a margin only takes changes away


def test_band_is_symmetric_on_the_log_scale():
    lo, hi = band(0.01)
    assert lo * hi == pytest.approx(1.0) and hi == 1.01


def _hosts(n_per_host, factors=None, seed=0, n_events=1):
    rng = np.random.default_rng(seed)
    labels = np.array([h for h, n in n_per_host.items() for _ in range(n)])
    rng.shuffle(labels)
    cols = {"cycles": _lognormal(rng, len(labels), 1e6)}
    for host, f in (factors or {}).items():
        cols["cycles"][labels == host] *= f
    hosts = pd.DataFrame({"group": 1, "run": np.arange(len(labels)), "host": labels})
    return Readings({1: pd.DataFrame(cols)}, min_runs=1), hosts


def test_hosts_0_3_percent_apart_differ_at_margin_0_and_not_at_1_percent_while_5_percent_does():
    r, hosts = _hosts({"n1": 3000, "n2": 3000}, {"n2": 1.003})
    at0 = machines_check(r, hosts, seed=0, margin=0.0)
    assert [(e, h) for e, h, _ in at0.differing()] == [("cycles", "n2")]
    at1 = machines_check(r, hosts, seed=0, margin=0.01)
    assert at1.differing() == [] and at1.margin == 0.01
    assert "no host differs (FDR 0.05, margin 1%)" in at1.line()
    assert "not shown to exceed the 1% margin" in at1.to_frame()["note"].iloc[0]
    r, hosts = _hosts({"n1": 100, "n2": 100}, {"n2": 1.05})
    at1 = machines_check(r, hosts, seed=0, margin=0.01)
    assert [(e, h) for e, h, _ in at1.differing()] == [("cycles", "n2")] and at1.row()["margin"] == 0.01


def test_machines_check_default_margin_is_hosts_margin():
    r, hosts = _hosts({"n1": 50, "n2": 50})
    assert machines_check(r, hosts).margin == HOSTS_MARGIN


def test_compare_checks_a_sides_hosts_at_its_margin_when_that_is_larger():
    """A side pooling hosts 0.3 % apart is warned about at no margin, not at a 1 % one (nor below the hosts')."""
    r, hosts = _hosts({"n1": 3000, "n2": 3000}, {"n2": 1.003})
    other = Readings({1: r[1].iloc[::-1].reset_index(drop=True)}, min_runs=1)
    for margin, warned in ((0.0, HOSTS_MARGIN < 0.002), (0.01, False)):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            res = compare(r, other, seed=0, hosts=(hosts, None), margin=margin)
        said = [w for w in seen if "pools runs of 2 hosts" in str(w.message)]
        assert bool(said) == warned, (margin, [str(w.message) for w in seen])
        assert res.machines[0].margin == max(margin, HOSTS_MARGIN)


def test_the_ratio_figure_shades_the_margin_and_names_it_in_the_legend():
    import matplotlib

    matplotlib.use("Agg")
    a, b = _pair(0.05, 100, 0.02)
    ax = compare(a, b, seed=0, margin=0.01).plot()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "within the 1% margin" in labels and "changed (FDR 5%, beyond 1%)" in labels
    spans = [(p.get_x(), p.get_x() + p.get_width()) for p in ax.patches if hasattr(p, "get_width")]
    assert any(np.isclose(lo, 1 / 1.01) and np.isclose(hi, 1.01) for lo, hi in spans)
    ax0 = compare(a, b, seed=0).plot()
    assert not any("margin" in t.get_text() for t in ax0.get_legend().get_texts())
