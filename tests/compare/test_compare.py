"""hemkit.compare.compare: per-event table, pooling, runs, one-sided events, pairs, figures."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from hemkit import Readings
from hemkit.compare import COLUMNS, compare
from hemkit.core.errors import HemkitWarning, InputError


def _readings(groups, source=""):
    return Readings({g: pd.DataFrame(cols) for g, cols in groups.items()}, source=source, min_runs=1)


def test_a_shift_of_one_event_is_flagged_and_the_rest_not():
    rng = np.random.default_rng(0)
    n = 100
    base = {e: rng.lognormal(np.log(m), 0.02, (2, n)) for e, m in [("cycles", 1e6), ("insns", 2e6), ("misses", 300)]}
    a = _readings({1: {e: v[0] for e, v in base.items()}})
    shifted = {e: v[1] * (1.05 if e == "cycles" else 1.0) for e, v in base.items()}
    b = _readings({1: shifted})
    res = compare(a, b, seed=0)
    t = res.to_frame().set_index("event")
    assert list(res.to_frame().columns) == list(COLUMNS)
    assert res.changed == ["cycles"]
    assert t.loc["cycles", "lower"] < 1.05 < t.loc["cycles", "upper"]
    assert t.loc["cycles", "superiority"] > 0.9
    assert (t["runs_a"] == n).all() and (t["runs_b"] == n).all()
    assert res.summary().loc["compare", "changed"] == 1


def test_same_seed_same_numbers():
    rng = np.random.default_rng(1)
    a = _readings({1: {"x": rng.poisson(100, 40)}})
    b = _readings({1: {"x": rng.poisson(104, 40)}})
    f1, f2 = compare(a, b, seed=3).to_frame(), compare(a, b, seed=3).to_frame()
    pd.testing.assert_frame_equal(f1, f2)


def test_an_event_read_in_several_groups_pools_its_readings():
    rng = np.random.default_rng(2)
    a = _readings({1: {"x": rng.poisson(50, 10), "y": rng.poisson(5, 10)}, 2: {"x": rng.poisson(50, 15)}})
    b = _readings({7: {"x": rng.poisson(50, 30), "y": rng.poisson(5, 30)}})
    t = compare(a, b, seed=0).to_frame().set_index("event")
    assert t.loc["x", "runs_a"] == 25 and t.loc["y", "runs_a"] == 10
    from hemkit.core.stats import center

    assert t.loc["x", "median_a"] == center(np.sort(a.pooled("x")))
    assert abs(t.loc["x", "median_a"] - np.median(a.pooled("x"))) <= 0.5  # grouped: within its count's class


def test_events_on_one_side_are_named_and_warned():
    a = _readings({1: {"x": np.arange(30.0), "only_a": np.arange(30.0)}}, source="a.csv")
    b = _readings({1: {"x": np.arange(30.0), "only_b": np.arange(30.0)}}, source="b.csv")
    with pytest.warns(HemkitWarning, match="only in A: 'only_a'; only in B: 'only_b'"):
        res = compare(a, b, seed=0)
    assert res.only_a == ("only_a",) and res.only_b == ("only_b",)
    assert res.events == ["x"]


def test_disjoint_events_are_refused_naming_both_sides():
    a = _readings({1: {"x": np.arange(30.0)}}, source="a.csv")
    b = _readings({1: {"y": np.arange(30.0)}}, source="b.csv")
    with pytest.raises(InputError, match=r"A: a.csv and B: b.csv share no event: A has 'x'; B has 'y'"):
        compare(a, b)


def test_fewer_than_5_runs_are_refused_naming_side_and_event_and_under_20_warn():
    a = _readings({1: {"x": np.arange(30.0)}}, source="a.csv")
    b = _readings({1: {"x": np.arange(4.0)}}, source="b.csv")
    with pytest.raises(InputError, match=r"B: b.csv: event 'x' has 4 runs; a comparison needs at least 5") as e:
        compare(a, b)
    assert str(e.value).endswith("record more runs of it (a collection stopped early: continue it with hemkit collect)")
    c = _readings({1: {"x": np.arange(12.0)}}, source="c.csv")
    with pytest.warns(HemkitWarning, match=r"B: c.csv: every event has 12 runs, fewer than 20: only large changes"):
        compare(a, c)
    # events read in different numbers of runs are listed, each with its count
    a2 = _readings({1: {"x": np.arange(30.0)}, 2: {"y": np.arange(30.0)}}, source="a.csv")
    d = _readings({1: {"x": np.arange(12.0)}, 2: {"y": np.arange(25.0)}}, source="d.csv")
    with pytest.warns(HemkitWarning, match=r"B: d.csv: 1 event has fewer than 20 runs \('x': 12\): only large"):
        compare(a2, d)


def test_constant_zero_and_tiny_events_are_said_never_nan():
    n = 30
    rng = np.random.default_rng(4)
    a = _readings(
        {
            1: {
                "same": np.full(n, 45.0),
                "moved": np.full(n, 45.0),
                "zeros": np.zeros(n),
                "rare": np.r_[np.zeros(n - 3), 1, 2, 1],
                "huge": rng.normal(1e12, 1e8, n),
            }
        }
    )
    b = _readings(
        {
            1: {
                "same": np.full(n, 45.0),
                "moved": np.full(n, 46.0),
                "zeros": np.r_[np.zeros(n - 2), 5, 5],
                "rare": np.r_[np.zeros(n - 3), 2, 2, 3],
                "huge": rng.normal(1e12, 1e8, n),
            }
        }
    )
    t = compare(a, b, seed=0).to_frame().set_index("event")
    assert not t[["ratio", "lower", "upper", "p_value"]].isna().any().any()
    assert t.loc["same", "p_value"] == 1 and not t.loc["same", "changed"] and "unchanged" in t.loc["same", "note"]
    assert t.loc["moved", "changed"] and "changed, without noise" in t.loc["moved", "note"]
    assert t.loc["moved", "ratio"] == pytest.approx(46 / 45)
    assert t.loc["zeros", "ratio"] == np.inf and "0 in every run of A" in t.loc["zeros", "note"]
    assert t.loc["rare", "ratio"] == pytest.approx(7 / 4)  # means' ratio, of 3 non-zero runs a side: too few
    assert t.loc["rare", "note"] == "0 in 27 of 30 runs of A and 27 of 30 of B: too few non-zero runs to judge a ratio"
    assert not t.loc["huge", "changed"]
    far = compare(a, _readings({1: {"huge": 1000 * a.pooled("huge")}}), seed=0).to_frame().set_index("event")
    assert far.loc["huge", "ratio"] == pytest.approx(1000) and "B is 1e+03 x A" in far.loc["huge", "note"]


def test_an_event_almost_always_0_says_no_ratio_can_be_judged():
    """context-switches 1 in one of 30 runs of A, two of B said 'ratio 2 [0.18, 21.7]' and 'a median is 0: ratio
    of means', as if it had doubled; 1 in 30 against 11 in 30 added 'another program, unit or scale?'."""
    x = np.random.default_rng(0).normal(100, 3, 30)
    a = _readings({1: {"cs": np.r_[np.zeros(29), 1.0], "many": np.r_[np.zeros(20), np.ones(10)], "t": x}})
    b = _readings({1: {"cs": np.r_[np.zeros(28), 1.0, 1.0], "many": np.r_[np.zeros(15), np.ones(15)], "t": x + 1}})
    t = compare(a, b, seed=0).to_frame().set_index("event")
    assert t.loc["cs", "note"] == "0 in 29 of 30 runs of A and 28 of 30 of B: too few non-zero runs to judge a ratio"
    assert t.loc["cs", "ratio"] == pytest.approx(2) and not t.loc["cs", "changed"]  # the numbers and test as before
    assert t.loc["many", "note"] == "0 in 20 of 30 runs of A and 15 of 30 of B: ratio of means"
    far = compare(a, _readings({1: {"cs": np.r_[np.zeros(29), 11.0], "many": np.ones(30), "t": x}}), seed=0)
    assert far.to_frame().set_index("event").loc["cs", "note"].endswith("too few non-zero runs to judge a ratio")


def test_level_is_checked():
    a = _readings({1: {"x": np.arange(30.0)}})
    with pytest.raises(InputError, match="level must be a number in"):
        compare(a, a, level=1.5)


def test_a_side_against_itself_changes_nothing():
    rng = np.random.default_rng(5)
    a = _readings({1: {"x": rng.poisson(100, 40), "y": rng.lognormal(5, 1, 40)}})
    t = compare(a, a, seed=0).to_frame()
    assert not t["changed"].any() and np.allclose(t["p_value"], 1) and (t["ratio"] == 1).all()


def test_pairs_direct_and_merged_with_a_known_change():
    rng = np.random.default_rng(6)
    n = 400

    def side(rho):
        z = rng.normal(size=(n, 3))
        x = 1000 + 10 * z[:, 0]
        y = 1000 + 10 * (rho * z[:, 0] + np.sqrt(1 - rho**2) * z[:, 1])
        w = 1000 + 10 * z[:, 2]
        return x, y, w

    xa, ya, wa = side(0.2)
    xb, yb, wb = side(0.9)
    a = _readings({1: {"x": xa, "y": ya, "w": wa}})
    # B reads x and y in different groups: their correlation there comes from the merge
    xb2, yb2, wb2 = side(0.9)
    b = _readings({1: {"x": xb, "w": wb}, 2: {"y": yb2, "w": wb2}, 3: {"x": xb2[:200], "y": yb2[:200]}})
    res = compare(a, b, seed=0, pairs=True)
    p = res.pairs.set_index(["event_a", "event_b"])
    assert p.loc[("x", "y"), "changed"]
    assert p.loc[("x", "y"), "how_a"] == "direct"
    assert p.loc[("x", "y"), "lower"] < 0.7 < p.loc[("x", "y"), "upper"]
    assert not p.loc[("x", "w"), "changed"]
    b2 = _readings({1: {"x": xb, "w": wb}, 2: {"y": yb, "w": wb}})
    p2 = compare(a, b2, seed=0, pairs=True).pairs.set_index(["event_a", "event_b"])
    assert p2.loc[("x", "y"), "how_b"] == "merged"
    assert np.isfinite(p2.loc[("x", "y"), ["r_b", "lower_b", "upper_b"]].astype(float)).all()


def test_figures_are_titled_labelled_and_grow_with_100_events():
    rng = np.random.default_rng(7)
    cols = {f"event_{i:03d}": rng.lognormal(8, 0.05, 30) for i in range(100)}
    a = _readings({1: cols})
    b = _readings({1: {e: v * (1.1 if i % 10 == 0 else 1.0) for i, (e, v) in enumerate(cols.items())}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        res = compare(a, b, seed=0)
    ax = res.plot()
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    assert ax.figure.get_size_inches()[1] >= 15
    assert len(ax.get_yticklabels()) == 100
    assert ax.get_legend() is not None
    ax2 = res.plot_power()
    assert ax2.get_title() and "runs" in ax2.get_yticklabels()[0].get_text()
    pw = res.power()
    assert (pw["detectable"] > 0).all() and len(pw) == 100


def test_a_change_of_spread_alone_is_said_in_the_note():
    """Brunner-Munzel sees a lopsided widening the medians do not: changed, and the note says why."""
    rng = np.random.default_rng(0)
    n = 400
    base = rng.normal(1000, 5, n)
    up = rng.uniform(size=n) < 0.5  # B: half spread upwards, half just below the same median
    wide = np.where(up, 1000 + np.abs(rng.normal(0, 5, n)), 1000 - np.abs(rng.normal(0, 0.5, n)))
    same = rng.normal(50, 1, n)
    a = Readings({1: pd.DataFrame({"x": base, "y": same})})
    b = Readings({1: pd.DataFrame({"x": wide, "y": same})})
    t = compare(a, b, seed=0).to_frame().set_index("event")
    assert t.loc["x", "changed"] and t.loc["x", "lower"] <= 1 <= t.loc["x", "upper"]
    assert "spread or shape" in t.loc["x", "note"]
    assert not t.loc["y", "changed"] and "spread or shape" not in t.loc["y", "note"]


def test_the_detectable_change_is_the_runs_noise_not_how_far_b_moved():
    """B far from A (every B reading above every A reading) leaves the placements no variance;
    the detectable change must still be what these runs' noise lets the test see: a shift by it
    is flagged about 90 % of the time (simulated with SciPy's Brunner-Munzel), not a tiny change
    hardly ever flagged."""
    from scipy.stats import brunnermunzel

    rng = np.random.default_rng(3)
    n = 40
    a = _readings({1: {"x": rng.normal(1000, 10, n)}})
    b = _readings({1: {"x": rng.normal(2000, 20, n)}})
    res = compare(a, b, seed=0)
    assert res.changed == ["x"]
    d = float(res.power()["detectable"].iloc[0])
    needed = float(res.power()["runs_needed"].iloc[0])
    assert np.isfinite(d)

    def flagged(delta, runs=n, reps=300):
        hits = 0
        for _ in range(reps):
            x, y = rng.normal(1000, 10, runs), rng.normal(1000 * (1 + delta), 10, runs)
            hits += brunnermunzel(x, y).pvalue <= 1 - res.level
        return hits / reps

    assert 0.75 <= flagged(d) <= 0.99
    assert 0.75 <= flagged(0.01, runs=int(needed)) <= 0.99


def test_an_infinite_ratio_is_left_out_of_the_figure_without_a_numpy_warning():
    """An event 0 in every run of A has ratio inf (interval inf, inf): the figure says so, and
    no 'invalid value encountered in subtract' reaches the user."""
    rng = np.random.default_rng(0)
    a = _readings({1: {"x": rng.normal(100, 1, 30), "zero": np.zeros(30)}})
    b = _readings({1: {"x": rng.normal(100, 1, 30), "zero": rng.poisson(3, 30) + 1.0}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        res = compare(a, b, seed=0)
        warnings.simplefilter("error", RuntimeWarning)
        ax = res.plot()
    assert "zero" in ax.get_title()


def test_few_runs_cannot_flag_an_event_no_split_of_them_could():
    """6 runs a side and 100 events: Benjamini-Hochberg flags one event at p <= 0.05 / 100, and no
    split of 12 runs is rarer than 2 / C(12, 6) = 0.0022, so nothing can be flagged; an event with
    A's runs all below B's but one tie got the t approximation's 1e-7 and was flagged."""
    rng = np.random.default_rng(0)
    cols_a = {f"e{i}": rng.normal(1000, 10, 6) for i in range(99)}
    cols_b = {f"e{i}": rng.normal(1000, 10, 6) for i in range(99)}
    cols_a["tied"], cols_b["tied"] = np.array([1.0, 2, 3, 4, 5, 6]) + 100, np.array([6.0, 7, 8, 9, 10, 11]) + 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        res = compare(_readings({1: cols_a}), _readings({1: cols_b}), seed=0)
    t = res.to_frame().set_index("event")
    assert res.changed == []
    assert t["p_value"].min() >= 2 / 924 / 2  # a permutation estimate of at least the exact floor


def test_the_power_figure_names_the_events_it_cannot_draw():
    """An event 0 in every run of A has no detectable change: it was left out of the figure silently."""
    rng = np.random.default_rng(0)
    a = _readings({1: {"x": rng.normal(100, 1, 30), "zero": np.zeros(30)}})
    b = _readings({1: {"x": rng.normal(100, 1, 30), "zero": np.zeros(30)}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        res = compare(a, b, seed=0)
    assert not np.isfinite(res.power().set_index("event").loc["zero", "detectable"])
    ax = res.plot_power()
    assert "not drawn" in ax.get_title() and "zero" in ax.get_title()


def test_log_axis_tick_labels_do_not_overprint_over_several_decades():
    """Every minor tick (2, 3, ... 9 times a power of ten) was labelled, so a power figure spanning
    detectable changes of 0.1 % to 50 % (page-faults, task-clock and context-switches of one program)
    printed '0.30.40.50.60.70.80.91' on its axis."""
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(0)

    def side():
        return _readings(
            {
                1: {
                    "steady": rng.normal(3500, 1, 12),
                    "task": rng.normal(100, 5, 12),
                    "noisy": rng.poisson(40, 12) * rng.uniform(0.5, 1.5, 12),
                }
            }
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)
        res = compare(side(), side(), seed=0)
    for ax in (res.plot_power(), res.plot()):
        lo, hi = ax.get_xlim()
        ax.figure.canvas.draw()
        renderer = ax.figure.canvas.get_renderer()
        ticks = [t for t in ax.xaxis.get_majorticklabels() + ax.xaxis.get_minorticklabels() if t.get_text()]
        ticks = [t for t in ticks if lo <= t.get_position()[0] <= hi]
        boxes = sorted((t.get_window_extent(renderer) for t in ticks), key=lambda b: b.x0)
        assert len(boxes) >= 2
        assert all(a.x1 <= b.x0 for a, b in zip(boxes, boxes[1:])), [t.get_text() for t in ticks]
    lo, hi = res.plot_power().get_xlim()
    assert np.log10(hi / lo) > 2  # the case at hand: a figure over more than two decades


def test_a_ratio_axis_of_half_a_decade_labels_more_than_its_1():
    """Two builds (-O0, -O2): task-clock x0.69, context-switches x1.2 with an interval to 1.6. The axis ran
    from 0.64 to 1.7, where no tick is 2, 3 or 5 times a power of ten, so '1' was its one label, no tick
    stood between 1 and 1.7, and the ratio of the changed event could not be read off the figure."""
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(4)

    def switches():
        return rng.poisson(24, 15) * rng.uniform(0.5, 1.5, 15)

    a = _readings({1: {"task": rng.normal(210, 3, 15), "switches": switches()}})
    b = _readings({1: {"task": rng.normal(146, 3, 15), "switches": 1.2 * switches()}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HemkitWarning)  # fewer than 20 runs
        res = compare(a, b, seed=0)
    ax = res.plot()
    lo, hi = ax.get_xlim()
    assert 0.4 < np.log10(hi / lo) < 0.6 and lo > 0.5 and hi < 2, (lo, hi)  # the case at hand
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    ticks = [t for t in ax.xaxis.get_majorticklabels() + ax.xaxis.get_minorticklabels() if t.get_text()]
    ticks = [t for t in ticks if lo <= t.get_position()[0] <= hi]
    shown = [t.get_position()[0] for t in ticks]
    assert len(ticks) >= 5 and min(shown) < 0.9 and max(shown) > 1.1, [t.get_text() for t in ticks]
    boxes = sorted((t.get_window_extent(renderer) for t in ticks), key=lambda b: b.x0)
    assert all(p.x1 <= q.x0 for p, q in zip(boxes, boxes[1:])), [t.get_text() for t in ticks]


def test_pairs_left_out_for_an_event_constant_on_a_side_are_said():
    """An event 0 in every run of A (cpu-migrations of a short program) has no correlation there: its pairs
    were left out of the pair table without a word ('0 of 3 pairs changed' of 4 events)."""
    rng = np.random.default_rng(8)
    a = _readings({1: {"x": rng.normal(100, 1, 30), "y": rng.normal(50, 1, 30), "moves": np.zeros(30)}})
    b = _readings({1: {"x": rng.normal(100, 1, 30), "y": rng.normal(50, 1, 30), "moves": rng.poisson(1, 30) * 1.0}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare(a, b, seed=0, pairs=True)
    assert len(res.pairs) == 1
    said = [str(w.message) for w in caught if "left out" in str(w.message)]
    assert len(said) == 1 and said[0].startswith("2 of 3 pairs left out of the pair table")
    assert said[0].endswith("('moves' constant within a group of A)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare(a, a, seed=0)  # no pairs asked: nothing said
    assert not [w for w in caught if "left out" in str(w.message)]


def test_the_warnings_of_a_sides_merge_name_the_side():
    """B reads x and y in different groups: their correlation there comes from a merge, whose warnings
    ('group 1 has 20 runs (and 1 more group under 30) ...') named a group without saying of which side."""
    rng = np.random.default_rng(9)
    a = _readings({1: {e: rng.normal(100, 1, 40) for e in ("x", "y", "w")}}, source="a.db")
    b = _readings(
        {1: {e: rng.normal(100, 1, 20) for e in ("x", "w")}, 2: {e: rng.normal(100, 1, 20) for e in ("y", "w")}},
        source="b.db",
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare(a, b, seed=0, pairs=True)
    assert res.pairs.set_index(["event_a", "event_b"]).loc[("x", "y"), "how_b"] == "merged"
    about_groups = [str(w.message) for w in caught if "group 1 has 20 runs" in str(w.message)]
    assert about_groups and all(m.startswith("B: b.db: group 1 has 20 runs") for m in about_groups), about_groups


def test_the_summary_line_counts_the_runs_read_not_the_fewest_of_an_event(tmp_path, cli):
    """12 runs in two groups of 6 read 'A ... (6+ runs)', as if 6 were read: the fewest runs of an event."""
    rng = np.random.default_rng(5)
    for side in ("a", "b"):
        rows = [
            (g, f"{g}-{r}", e, float(rng.normal(1000, 30)))
            for g, events in ((1, ("x", "y")), (2, ("x", "z")))
            for r in range(6)
            for e in events
        ]
        pd.DataFrame(rows, columns=["group", "run", "event", "value"]).to_csv(tmp_path / f"{side}.csv", index=False)
    res = cli(["compare", tmp_path / "a.csv", tmp_path / "b.csv"])
    assert res.exit_code == 0, res.stderr
    assert f"A {tmp_path / 'a.csv'} (12 runs, 6-12 per event), B {tmp_path / 'b.csv'} (12 runs, 6-12" in res.stdout
