"""Readings kept as arrays (Group): the same readings and errors as from DataFrames, and immutable."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit import HemkitError, Readings
from hemkit.core.readings import Group


def _frame(values, runs, events):
    return pd.DataFrame(values, index=pd.Index(runs), columns=list(events))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n_runs=st.integers(3, 12),
    n_events=st.integers(1, 4),
    offset=st.sampled_from([0, 1, 100]),
    f32=st.booleans(),
)
def test_groups_of_arrays_are_the_readings_of_the_same_frames(seed, n_runs, n_events, offset, f32):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 1000, size=(n_runs, n_events)).astype(np.float32 if f32 else np.float64)
    values[0] = np.arange(n_events)  # no constant event
    values[1] = np.arange(n_events) + 1
    runs = np.arange(offset, offset + n_runs)
    events = [f"e{j}" for j in range(n_events)]
    from_arrays = Readings({1: Group(runs, tuple(events), values)})
    from_frames = Readings({1: _frame(values, runs, events)})
    pd.testing.assert_frame_equal(from_arrays[1], from_frames[1])
    assert from_arrays.events == from_frames.events
    assert from_arrays[1].dtypes.unique().tolist() == [np.dtype(np.float32 if f32 else np.float64)]
    # runs 0..n-1 are shown as a RangeIndex, as a frame without an index has
    assert isinstance(from_arrays[1].index, pd.RangeIndex) == (offset == 0)
    assert from_arrays[1].index.name == "run" and from_arrays[1].columns.name == "event"


def test_the_callers_arrays_and_frames_can_change_afterwards():
    values = np.array([[1.0, 5], [2, 4], [3, 9]])
    runs = np.array([7, 8, 9])
    frame = _frame(values.copy(), runs, "ab")
    r = Readings({1: Group(runs, ("a", "b"), values), 2: frame})
    values[:] = 0
    runs[:] = 0
    frame.iloc[:, :] = 0
    assert r.arrays[1].values.tolist() == [[1.0, 5], [2, 4], [3, 9]]
    assert r.arrays[1].runs.tolist() == [7, 8, 9]
    assert r[2].to_numpy().tolist() == [[1.0, 5], [2, 4], [3, 9]]


def test_arrays_are_read_only_and_frames_are_copies():
    r = Readings({1: Group(np.arange(3), ("a", "b"), np.array([[1.0, 5], [2, 4], [3, 9]]))})
    with pytest.raises(ValueError):
        r.arrays[1].values[0, 0] = 99
    shown = r[1]
    shown.iloc[0, 0] = 99
    assert r[1].iloc[0, 0] == 1.0 and r.arrays[1].values[0, 0] == 1.0


def test_tidy_input_is_copied_too():
    t = pd.DataFrame(
        {"group": 1, "run": np.repeat([0, 1, 2], 2), "event": ["a", "b"] * 3, "value": [1.0, 4, 2, 5, 3, 7]}
    )
    r = Readings.from_tidy(t)
    t.loc[:, "value"] = 0.0
    t.loc[:, "run"] = 0
    assert r.arrays[1].values.tolist() == [[1.0, 4], [2, 5], [3, 7]]
    assert r.arrays[1].runs.tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    "values, runs, events, message",
    [
        ([[1.0, np.nan], [2, 3], [3, 4]], [1, 2, 3], ("a", "b"), "group 1: event 'b' has NaN in run 1"),
        ([[1.0, 2], [2, -3], [3, 4]], [1, 2, 3], ("a", "b"), "event 'b' has a negative count -3 in run 2"),
        ([[1.0, 2], [2, 3], [3, 4]], [1, 2, 1], ("a", "b"), "run 1 appears twice"),
        ([[1.0, 2], [2, 3], [3, 4]], [1, 2, 3], ("a", "a"), "event 'a' appears twice in the same group"),
        ([[1.0, 2], [2, 3]], [1, 2], ("a", "b"), "has 2 runs; at least 3 are needed"),
        ([[1.0, 2], [2, 3], [3, 4]], [1, 2], ("a", "b"), "do not match 2 runs x 2 events"),
        ([["x", 2], [2, 3], [3, 4]], [1, 2, 3], ("a", "b"), "values must be numbers"),
        ([[1.0, 2], [2, 3], [3, 4]], ["r1", 2, "r1"], ("a", "b"), "run 'r1' appears twice"),
    ],
)
def test_groups_of_arrays_are_checked_like_frames(values, runs, events, message):
    with pytest.raises(HemkitError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Readings({1: Group(np.array(runs, dtype=object if "r1" in runs else None), events, np.array(values))})


def test_a_group_of_the_wrong_kind_is_named():
    with pytest.raises(HemkitError, match="group 1: a group must be a DataFrame"):
        Readings({1: [[1, 2], [3, 4]]})


def test_pooled_and_dtype_of():
    r = Readings(
        {
            1: Group(np.arange(3), ("a", "b"), np.array([[1.0, 5], [2, 4], [3, 9]], dtype=np.float32)),
            2: Group(np.arange(3), ("b", "c"), np.array([[7.0, 5], [8, 4], [9, 9]])),
        }
    )
    assert r.pooled("b").tolist() == [5, 4, 9, 7, 8, 9]
    assert r.dtype_of("a") == np.float32 and r.dtype_of("b") == np.float64
    assert r.run_counts == {1: 3, 2: 3}


def test_from_arrays_copies_unless_told_not_to():
    values = np.array([[1.0, 4], [2, 5], [3, 7]])
    runs = np.arange(3)
    copied = Readings.from_arrays({1: (runs, ["a", "b"], values)})
    values[0, 0] = 100.0
    assert copied.arrays[1].values[0, 0] == 1.0
    handed = Readings.from_arrays({1: (runs, ["a", "b"], values)}, copy=False)
    assert handed.arrays[1].values is values and not values.flags.writeable
    with pytest.raises(HemkitError, match="has 3 runs; at least 4 are needed"):
        Readings.from_arrays({1: (runs, ["a", "b"], values)}, min_runs=4)


def test_readings_pickle_and_deep_copy():
    import copy
    import pickle

    r = Readings(
        {"g": Group(np.array(["r1", "r2", "r3"], dtype=object), ("a", "b"), np.array([[1.0, 4], [2, 5], [3, 7]]))}
    )
    for back in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r)):
        assert back.events == r.events and back.source == r.source
        pd.testing.assert_frame_equal(back["g"], r["g"])
        assert not back.arrays["g"].values.flags.writeable
