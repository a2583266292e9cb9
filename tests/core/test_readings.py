"""The readings model: tidy round trip and precise validation errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit import HemkitError, Readings
from hemkit.core.errors import HemkitWarning, InputError


def tidy(rows):
    return pd.DataFrame(rows, columns=["group", "run", "event", "value"])


def small():
    g1 = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [4.0, 1, 3, 2]}, index=[10, 11, 12, 13])
    g2 = pd.DataFrame({"a": [5.0, 6, 7], "c": [1.0, 0, 2]}, index=[20, 21, 22])
    return Readings({"g1": g1, "g2": g2})


def test_views():
    r = small()
    assert r.events == ["a", "b", "c"]
    assert r.group_ids == ["g1", "g2"]
    assert r.n_runs.tolist() == [4, 3]
    assert r.coverage().loc["a", "a"] == 2 and r.coverage().loc["b", "c"] == 0
    assert r.missing_pairs() == [("b", "c")]


def test_tidy_round_trip_keeps_every_value():
    r = small()
    t = r.to_tidy()
    assert list(t.columns) == ["group", "run", "event", "value"]
    assert len(t) == 4 * 2 + 3 * 2
    back = Readings.from_tidy(t)
    for g in r:
        pd.testing.assert_frame_equal(back[g], r[g], check_names=False)


@settings(max_examples=30, deadline=None)
@given(
    n_groups=st.integers(1, 4),
    n_runs=st.integers(3, 12),
    n_events=st.integers(1, 5),
    seed=st.integers(0, 2**16),
)
def test_tidy_round_trip_property(n_groups, n_runs, n_events, seed):
    rng = np.random.default_rng(seed)
    groups = {
        g: pd.DataFrame(
            rng.integers(0, 10**6, size=(n_runs, n_events)).astype(float) + np.arange(n_runs)[:, None],
            columns=[f"e{g}_{j}" for j in range(n_events)],
        )
        for g in range(n_groups)
    }
    r = Readings(groups)
    back = Readings.from_tidy(r.to_tidy())
    assert back.events == r.events
    for g in r:
        np.testing.assert_array_equal(back[g].to_numpy(), r[g].to_numpy())


@pytest.mark.parametrize(
    "rows, message",
    [
        ([(1, 1, "a", 1.0), (1, 1, "a", 2.0)], "event 'a' is read twice in run 1 of group 1"),
        ([(1, r, "a", "x" if r == 2 else r) for r in range(4)], "non-numeric value 'x' in run 2 of group 1"),
        ([(1, r, "a", np.nan if r == 1 else r) for r in range(4)], "event 'a' has NaN in run 1 of group 1"),
        ([(1, r, "a", np.inf if r == 1 else r) for r in range(4)], "event 'a' has an infinite value in run 1"),
        ([(1, r, "a", -5.0 if r == 3 else r) for r in range(4)], "event 'a' has a negative count -5 in run 3"),
        ([(1, r, "a", r) for r in range(2)], "group 1: has 2 runs; at least 3 are needed"),
        (
            [(1, r, "a", r) for r in range(4)] + [(1, r, "b", r * r) for r in range(3)],
            "event 'b' is missing in run 3 of group 1",
        ),
    ],
)
def test_tidy_errors_name_the_culprit(rows, message):
    with pytest.raises(HemkitError) as exc:
        Readings.from_tidy(tidy(rows), source="in.csv")
    assert message in str(exc.value)
    assert str(exc.value).startswith("in.csv")
    assert "\n" not in str(exc.value)


def test_missing_tidy_columns():
    with pytest.raises(HemkitError, match="missing column\\(s\\) event, value"):
        Readings.from_tidy(pd.DataFrame({"group": [1], "run": [1]}))


def test_duplicate_event_in_wide_group():
    t = pd.DataFrame([[1, 2], [2, 3], [3, 1]], columns=["a", "a"])
    with pytest.raises(HemkitError, match="event 'a' appears twice in the same group"):
        Readings({1: t})


def test_unknown_anchor_and_anchor_missing_from_a_group():
    r = small()
    with pytest.raises(HemkitError, match="unknown anchor 'zz'"):
        r.check_anchor("zz")
    with pytest.raises(HemkitError, match="anchor 'b' is not read in group 'g2'"):
        r.check_anchor("b")
    r.check_anchor("a")


def test_split_runs_is_a_partition():
    r = small()
    a, b = Readings({1: pd.DataFrame({"x": np.arange(10.0)})}).split_runs(0.5, seed=1)
    ia, ib = set(a[1].index), set(b[1].index)
    assert ia.isdisjoint(ib) and ia | ib == set(range(10))
    with pytest.raises(HemkitError):
        r.split_runs(1.5)
    # a group too small to split said 'group 1: has 2 runs' of a group of 5 (the size of a part)
    five = Readings({1: pd.DataFrame({"x": np.arange(5.0), "y": np.arange(5.0) ** 2})}, source="c.db")
    with pytest.raises(
        HemkitError,
        match=r"^cannot split the runs in two parts: c.db: group 1 has 5 runs, parts of 2 and 3; "
        r"each part needs at least 3 runs$",
    ):
        five.split_runs(0.5)


def test_split_runs_names_an_event_constant_in_one_part_only_without_offering_drop_constant():
    # 'c' varies in group 1 (3 of 20 runs differ from 0), so drop_constant cannot drop it; a split whose
    # one part drew only its zeros said "constant (0) in every run of group 1 ...; pass drop_constant=True"
    c = np.where(np.arange(20) < 17, 0.0, 5.0 + np.arange(20))
    r = Readings({1: pd.DataFrame({"a": np.arange(20.0) % 7, "c": c})}, source="t.csv")
    messages = set()
    for seed in range(8):
        try:
            r.split_runs(0.5, seed=seed)
        except InputError as exc:
            assert not exc.fixes
            messages.add(exc.message)
    assert messages == {
        "cannot split the runs in two parts: t.csv: event 'c' varies in group 1 but is constant (0) in the 10 runs "
        "of one part (of the group's 20 runs, only 3 differ from 0); a correlation in each part needs it to vary in "
        "both, and dropping constant events does not drop it: another seed may split it so, as may more runs of "
        "group 1; or leave the event out"
    }
    whole = Readings({1: pd.DataFrame({"a": np.arange(20.0) % 7, "c": np.zeros(20)})})
    with pytest.raises(InputError, match=r"constant \(0\) in every run of group 1") as info:
        whole.split_runs(0.5)
    assert info.value.fixes  # constant in the whole group: drop_constant does help


def test_drop_constant_warns_and_keeps_the_rest():
    from hemkit import HemkitWarning

    rows = [(1, r, "a", r) for r in range(4)] + [(1, r, "z", 0.0) for r in range(4)]
    rows += [(2, r, "z", 3.0) for r in range(4)]
    with pytest.warns(HemkitWarning, match="dropped constant event\\(s\\) 'z'"):
        r = Readings.from_tidy(tidy(rows), drop_constant=True)
    assert r.events == ["a"] and r.group_ids == [1]  # group 2 had nothing else: dropped
    with pytest.raises(HemkitError, match="every event is constant"), pytest.warns(HemkitWarning):
        Readings.from_tidy(tidy([(1, r, "z", 1.0) for r in range(4)]), drop_constant=True)


# ---------------------------------------------------- laid-out tidy tables (issue 15 fast path)
def _laid_out(n_groups=3, n_runs=6, n_events=3, seed=0):
    """A tidy table written group by group, run by run, each run's events in one order (as hemkit writes)."""
    rng = np.random.default_rng(seed)
    groups = {
        g: pd.DataFrame(
            rng.integers(0, 10**6, size=(n_runs, n_events)).astype(float) + np.arange(n_runs)[:, None],
            columns=[f"e{(g + j) % (n_events + 1)}" for j in range(n_events)],
            index=pd.Index(np.arange(n_runs) * 3 + 1, name="run"),
        )
        for g in range(1, n_groups + 1)
    }
    return Readings(groups), Readings(groups).to_tidy()


def _same(a: Readings, b: Readings) -> None:
    assert sorted(a.group_ids) == sorted(b.group_ids)
    for g in a:
        x, y = a[g].sort_index(), b[g].sort_index()[list(a[g].columns)]
        pd.testing.assert_frame_equal(x, y, check_names=False)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), n_runs=st.integers(3, 9), n_events=st.integers(1, 4))
def test_any_row_order_gives_the_same_readings(seed, n_runs, n_events):
    r, t = _laid_out(n_runs=n_runs, n_events=n_events, seed=seed)
    shuffled = t.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # general path
    _same(r, Readings.from_tidy(t))
    _same(r, Readings.from_tidy(shuffled))
    named = Readings.from_tidy(t.assign(group=t["group"].map("g{}".format)))  # string ids: the general path
    assert named.group_ids == [f"g{g}" for g in r.group_ids]


def test_a_laid_out_table_with_a_run_twice_is_refused():
    _, t = _laid_out()
    block = t[(t["group"] == 1) & (t["run"] == 4)]
    t2 = pd.concat([t.iloc[: block.index[-1] + 1], block, t.iloc[block.index[-1] + 1 :]], ignore_index=True)
    with pytest.raises(HemkitError, match=r"read twice in run 4 of group 1"):
        Readings.from_tidy(t2)


def test_a_laid_out_table_with_nan_names_event_run_and_group():
    _, t = _laid_out()
    t.loc[(t["group"] == 2) & (t["run"] == 7) & (t["event"] == "e3"), "value"] = np.nan
    with pytest.raises(HemkitError, match=r"event 'e3' has NaN in run 7 of group 2"):
        Readings.from_tidy(t)


def test_a_run_missing_an_event_in_a_laid_out_table_is_refused():
    _, t = _laid_out()
    drop = t.index[(t["group"] == 3) & (t["run"] == 10) & (t["event"] == "e0")]
    with pytest.raises(HemkitError, match=r"event 'e0' is missing in run 10 of group 3"):
        Readings.from_tidy(t.drop(drop).reset_index(drop=True))


def test_a_group_that_comes_back_later_is_one_group():
    r, t = _laid_out()
    g1 = t[t["group"] == 1]
    back = Readings.from_tidy(pd.concat([g1.iloc[:6], t[t["group"] != 1], g1.iloc[6:]], ignore_index=True))
    _same(r, back)


# ------------------------------------------------------------------ float32 readings
def f32_groups():
    g1 = pd.DataFrame({"a": [1.1, 2.2, 3.3, 4.4], "b": [4.0, 1, 3, 2e19]}, dtype=np.float32)
    g2 = pd.DataFrame({"a": [5.5, 6, 7], "c": [1.0, 0, 2**47 + 3]}, dtype=np.float32)
    return {"g1": g1, "g2": g2}


def test_a_float32_group_stays_float32_with_its_exact_values():
    groups = f32_groups()
    r = Readings(groups)
    for g, t in groups.items():
        assert (r[g].dtypes == np.float32).all()
        np.testing.assert_array_equal(r[g].to_numpy(), t.to_numpy())
    assert r.event_dtypes.astype(str).to_dict() == {"a": "float32", "b": "float32", "c": "float32"}
    # half the memory of the same readings in float64
    as64 = Readings({g: t.astype(np.float64) for g, t in groups.items()})
    assert sum(r[g].to_numpy().nbytes for g in r) * 2 == sum(as64[g].to_numpy().nbytes for g in as64)


@pytest.mark.parametrize(
    "table",
    [
        pd.DataFrame({"a": [1, 2, 3], "b": [3, 1, 2]}),  # int
        pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]}),  # float64
        pd.DataFrame({"a": np.array([1, 2, 3], np.float32), "b": [3.0, 1, 2]}),  # mixed float32/float64
        pd.DataFrame({"a": np.array([1, 2, 3], np.float32), "b": [3, 1, 2]}),  # mixed float32/int
        pd.DataFrame({"a": np.array([1, 2, 3], np.float32), "b": ["3", "1", "2"]}),  # parsed text
    ],
)
def test_anything_but_an_all_float32_group_is_float64(table):
    r = Readings({1: table})
    assert (r[1].dtypes == np.float64).all()
    assert (r.event_dtypes == np.float64).all()


def test_event_dtypes_are_float32_only_where_every_group_is():
    g1 = pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]}, dtype=np.float32)
    g2 = pd.DataFrame({"b": [1.0, 2, 3], "c": [3.0, 1, 2]})
    r = Readings({1: g1, 2: g2})
    assert r[1].dtypes.tolist() == [np.float32, np.float32] and r[2].dtypes.tolist() == [np.float64, np.float64]
    assert r.event_dtypes.astype(str).to_dict() == {"a": "float32", "b": "float64", "c": "float64"}


@pytest.mark.parametrize("shuffle", [False, True])  # laid-out rows and the general fill
def test_from_tidy_with_a_float32_value_column_gives_float32_groups(shuffle):
    r = Readings(f32_groups())
    t = r.to_tidy()
    assert t["value"].dtype == np.float32  # to_tidy keeps the dtype
    if shuffle:
        t = t.sample(frac=1, random_state=0)
    back = Readings.from_tidy(t)
    for g in r:
        assert (back[g].dtypes == np.float32).all()
        pd.testing.assert_frame_equal(back[g].loc[r[g].index, r[g].columns], r[g], check_names=False)
    as64 = Readings.from_tidy(t.astype({"value": np.float64}))
    assert all((as64[g].dtypes == np.float64).all() for g in as64)


F32_ERRORS = [
    ({"a": [1.0, np.nan, 3], "b": [1.0, 2, 3]}, "group 1: event 'a' has NaN in run 1"),
    ({"a": [1.0, np.inf, 3], "b": [1.0, 2, 3]}, "group 1: event 'a' has an infinite value in run 1"),
    ({"a": [1.0, -1.5, 3], "b": [1.0, 2, 3]}, "group 1: event 'a' has a negative count -1.5 in run 1"),
]


@pytest.mark.parametrize("cols, message", F32_ERRORS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float32_groups_are_validated_with_the_same_messages(cols, message, dtype):
    with pytest.raises(HemkitError) as exc:
        Readings({1: pd.DataFrame(cols, dtype=dtype)})
    assert message in str(exc.value)


def test_float32_duplicates_are_refused_as_before():
    t = pd.DataFrame(np.array([[1, 2], [2, 1], [3, 3]], np.float32), columns=["a", "a"])
    with pytest.raises(HemkitError, match="event 'a' appears twice in the same group"):
        Readings({1: t})
    t = pd.DataFrame(np.array([[1, 2], [2, 1], [3, 3]], np.float32), columns=["a", "b"], index=[0, 0, 1])
    with pytest.raises(HemkitError, match="run 0 appears twice"):
        Readings({1: t})
    tidy_rows = tidy([[1, 0, "a", 1.0], [1, 0, "a", 2.0], [1, 1, "a", 3.0]]).astype({"value": np.float32})
    with pytest.raises(HemkitError, match="event 'a' is read twice in run 0 of group 1"):
        Readings.from_tidy(tidy_rows)


def test_float32_survives_drop_constant_split_and_select():
    t = pd.DataFrame({"a": np.arange(8.0), "b": np.full(8, 2.0), "c": np.arange(8.0)[::-1] ** 2}, dtype=np.float32)
    with pytest.warns(Warning, match="dropped constant"):
        r = Readings({1: t}, drop_constant=True)
    assert r.events == ["a", "c"] and (r[1].dtypes == np.float32).all()
    a, b = r.split_runs(0.5, seed=0)
    assert (a[1].dtypes == np.float32).all() and (b[1].dtypes == np.float32).all()
    assert (r.select_events(["a"])[1].dtypes == np.float32).all()


def test_constant_events_are_kept_as_data_and_refused_only_by_what_needs_variation():
    g = {
        1: pd.DataFrame({"a": [1.0, 2, 3], "b": [0.0, 0, 0]}),
        2: pd.DataFrame({"a": [2.0, 1, 3], "c": [45.0, 45, 45]}),
        3: pd.DataFrame({"b": [0.0, 1, 0], "c": [45.0, 45, 45]}),
    }
    r = Readings(g, source="plan.db")
    assert r.events == ["a", "b", "c"]
    assert r.constant == ((1, "b", 0.0), (2, "c", 45.0), (3, "c", 45.0))
    assert r.constant_everywhere() == ["c"]
    # a-b only in group 1 (b constant there); a-c only where c is constant everywhere: not "lost", c goes
    assert r.pairs_lost_by_dropping() == {("a", "b"): (1, "b")}
    with pytest.raises(InputError) as exc:
        r.check_varying()
    text = str(exc.value)
    assert "plan.db: event 'b' is constant (0) in every run of group 1" in text
    assert "event 'c' is constant (45) in every run of groups 2, 3" in text
    assert "'a' and 'b'" in text and "group 1 was their only reading together" in text
    assert [f.param for f in exc.value.fixes] == ["drop_constant", "impute"]
    with pytest.warns(HemkitWarning, match="dropped constant"):
        dropped = Readings(g, source="plan.db", drop_constant=True)
    assert dropped.events == ["a", "b"] and dropped.constant == ()
    assert dropped.dropped_constant == ((1, "b", 0.0), (2, "c", 45.0), (3, "c", 45.0))
    assert dropped.missing_pairs() == [("a", "b")]
    assert dropped.why_missing("a", "b") == (
        "dropping constant 'b' in group 1 removed the only reading of 'a' with 'b'"
    )
    with pytest.raises(InputError, match="events 'a' and 'b' .*were never read together") as exc:
        dropped.check_pairs()
    assert exc.value.fixes[0].param == "impute"
    assert dropped.check_pairs("maxdet") == [("a", "b")]


def test_a_long_list_of_unread_pairs_names_ten_and_keeps_all_in_details():
    events = [f"e{i}" for i in range(8)]
    g = {i: pd.DataFrame({e: np.arange(3.0) * (i + 1) + j for j, e in enumerate(events[i : i + 1])}) for i in range(8)}
    g = {i: df.assign(x=[1.0, 3, 2]) for i, df in g.items()}  # every event read only with x
    r = Readings(g)
    with pytest.raises(InputError) as exc:
        r.check_pairs()
    assert "28 pairs of events were never read together" in str(exc.value) and "(and 18 more)" in str(exc.value)
    assert len(exc.value.details) == 28


def test_rich_progress_shows_the_time_left():
    from rich.progress import TimeRemainingColumn

    from hemkit.core.progress import RichProgress

    assert any(isinstance(c, TimeRemainingColumn) for c in RichProgress()._bar.columns)
