"""float32 readings: kept float32 in the readings and the merged table, every computation float64-accurate.

A float32 collection (e.g. a float32 Parquet column) is merged from its float32 values; the
reference is the float64 merge of the *same* values (float32-rounded, cast to float64), which
must give the same arrangement and the same numbers.
"""

import warnings

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.core.readings import Readings
from hemkit.datasets import t2080_hrm, t2080_much
from hemkit.evaluate import evaluate
from hemkit.io import read_table, write_table
from hemkit.merge import merge
from hemkit.merge.correlation import event_scales, pairwise_correlation
from hemkit.merge.hrm import quantile_type2
from hemkit.merge.intervals import mix_jackknife, pairwise_jackknife
from hemkit.merge.joint import pearson_estimates
from hemkit.merge.result import table_correlations
from hemkit.report.sections import variability

ANCHOR = "PROCESSOR_CYCLES"
METHODS = {
    "much": {"rows": 2000, "n_sims": 30},
    "copula": {},
    "joint": {"rows": 2000},
}


def as_float32(r: Readings) -> Readings:
    return Readings({g: t.astype(np.float32) for g, t in r.groups.items()})


def as_float64(r: Readings) -> Readings:
    return Readings({g: t.astype(np.float64) for g, t in r.groups.items()})


@pytest.fixture(scope="module")
def much32():
    return as_float32(t2080_much())


@pytest.fixture(scope="module")
def much64(much32):
    return as_float64(much32)  # the same float32-rounded values, in float64


def run(readings, method, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return merge(readings, method, seed=0, **kw)


@pytest.fixture(scope="module", params=list(METHODS))
def merged_pair(request, much32, much64):
    method = request.param
    return method, run(much32, method, **METHODS[method]), run(much64, method, **METHODS[method])


def expected_values(readings: Readings, event: str, n: int) -> np.ndarray:
    """The sorted merged column an event must have: its pooled readings, or n evenly spaced order statistics."""
    pooled = np.sort(np.concatenate([t[event].to_numpy() for t in readings.groups.values() if event in t.columns]))
    if len(pooled) == n:
        return pooled
    return pooled[np.rint(np.linspace(0, len(pooled) - 1, n)).astype(np.int64)]


def test_float32_merge_gives_float32_columns(merged_pair, much32):
    method, a, b = merged_pair
    assert (a.data.dtypes == np.float32).all(), (method, a.data.dtypes.value_counts())
    assert (b.data.dtypes == np.float64).all()
    assert a.data.shape == b.data.shape


def test_float32_merge_has_the_float64_arrangement_and_numbers(merged_pair):
    method, a, b = merged_pair
    # the same arrangement: value for value, row for row
    np.testing.assert_array_equal(a.data.to_numpy(dtype=np.float64), b.data.to_numpy())
    pd.testing.assert_frame_equal(a.summary(), b.summary(), rtol=0, atol=1e-9)
    assert abs(a.diagnostics["mse_to_observed"] - b.diagnostics["mse_to_observed"]) <= 1e-12
    if method == "much":
        np.testing.assert_allclose(a.diagnostics["sim_mse"], b.diagnostics["sim_mse"], rtol=0, atol=1e-12)
    if method == "joint":
        assert a.diagnostics["tail_swaps"] == b.diagnostics["tail_swaps"]
    ea, eb = evaluate(a, a.source), evaluate(b, b.source)
    pd.testing.assert_frame_equal(ea.summary(), eb.summary(), rtol=0, atol=1e-9)


def test_float32_merge_holds_the_input_float32_readings(merged_pair, much32):
    method, a, _ = merged_pair
    n = len(a.data)
    for e in much32.events:
        col = a.data[e].to_numpy()
        assert col.dtype == np.float32
        np.testing.assert_array_equal(np.sort(col), expected_values(much32, e, n), err_msg=f"{method} {e}")
    if method == "copula":  # every reading of the most-read event: its multiset exactly
        pooled = np.concatenate([t[ANCHOR].to_numpy() for t in much32.groups.values()])
        assert len(pooled) == n
        np.testing.assert_array_equal(np.sort(a.data[ANCHOR].to_numpy()), np.sort(pooled))


def test_hrm_float32_keeps_the_readings_and_the_float64_quantiles():
    h32 = as_float32(t2080_hrm())
    h64 = as_float64(h32)
    a, b = run(h32, "hrm", anchor=ANCHOR), run(h64, "hrm", anchor=ANCHOR)
    others = [e for e in a.events if e != ANCHOR]
    assert (a.data[others].dtypes == np.float32).all()
    np.testing.assert_array_equal(a.data.to_numpy(dtype=np.float64), b.data.to_numpy())
    pd.testing.assert_frame_equal(a.summary(), b.summary(), rtol=0, atol=1e-9)
    for e in others:  # each read in one group of 1000 runs: its readings, rank-joined
        g = next(t for t in h32.groups.values() if e in t.columns)
        np.testing.assert_array_equal(np.sort(a.data[e].to_numpy()), np.sort(g[e].to_numpy()))
    # the anchor holds type-2 quantiles of the pooled anchor readings, averaged at jumps:
    # float64 always (on T2080 one average is not a float32 value), so the schema is fixed
    pooled = np.concatenate([t[ANCHOR].to_numpy(dtype=np.float64) for t in h32.groups.values()])
    q = quantile_type2(pooled, np.linspace(0, 1, len(a.data)))
    np.testing.assert_array_equal(a.data[ANCHOR].to_numpy(), q)
    assert not bool((q.astype(np.float32) == q).all()) and a.data[ANCHOR].dtype == np.float64
    # also when every quantile happens to be a reading: the dtype does not depend on the values
    small = Readings({g: pd.DataFrame({"x": np.arange(8.0) + g, f"e{g}": np.arange(8.0)[::-1] ** 2}) for g in (1, 2)})
    res = run(as_float32(small), "hrm", anchor="x", rows=5)
    assert res.data["x"].dtype == np.float64 and (res.data.drop(columns="x").dtypes == np.float32).all()


def test_mixed_groups_give_float32_only_to_events_read_only_in_float32():
    rng = np.random.default_rng(0)
    x = rng.multivariate_normal(np.zeros(3), [[1, 0.6, 0.3], [0.6, 1, 0.5], [0.3, 0.5, 1]], size=900)
    x = np.round(1e6 * np.exp(0.3 * x)) + 0.1  # non-integer counts: float32 rounds them
    ev = ["a", "b", "c"]
    pairs = [(0, 1), (0, 2), (1, 2)]
    groups = {
        gi + 1: pd.DataFrame(x[gi * 300 : (gi + 1) * 300][:, list(p)], columns=[ev[i] for i in p])
        for gi, p in enumerate(pairs)
    }
    mixed = Readings({g: t.astype(np.float64 if g == 2 else np.float32) for g, t in groups.items()})
    assert mixed.event_dtypes.astype(str).to_dict() == {"a": "float64", "b": "float32", "c": "float64"}
    ref = as_float64(mixed)
    for method, kw in (("copula", {"pearson_weight": 0.5}), ("much", {"n_sims": 30}), ("joint", {})):
        a, b = run(mixed, method, **kw), run(ref, method, **kw)
        assert a.data.dtypes.astype(str).to_dict() == {"a": "float64", "b": "float32", "c": "float64"}, method
        np.testing.assert_array_equal(a.data.to_numpy(dtype=np.float64), b.data.to_numpy())
        pd.testing.assert_frame_equal(a.summary(), b.summary(), rtol=0, atol=1e-9)


def test_intervals_of_a_float32_merge_are_the_float64_ones(much32, much64):
    kw = {"rows": 2000, "pearson_weight": 0.0, "level": 0.9}
    a, b = run(much32, "copula", **kw), run(much64, "copula", **kw)
    assert a.pair_intervals is not None and b.pair_intervals is not None
    pd.testing.assert_frame_equal(a.pair_intervals, b.pair_intervals, rtol=0, atol=1e-9)
    pd.testing.assert_frame_equal(a.summary(), b.summary(), rtol=0, atol=1e-9)


def test_event_scales_are_computed_in_float64(much32, much64):
    assert event_scales(much32) == event_scales(much64)
    # a large stable counter: its middle two readings one float32 step (2**24) apart, so a
    # float32 median (their average) would round; the centre must be the float64 one
    x = (2.0**47 + 2.0**24 * np.arange(10.0)).astype(np.float32)
    r32 = Readings({1: pd.DataFrame({"a": x, "b": x[::-1]})})
    centre, scale = event_scales(r32)["a"]
    assert centre == 2.0**47 + 4.5 * 2.0**24 and scale == 4.5 * 2.0**24
    assert event_scales(r32) == event_scales(as_float64(r32))


# ------------------------------------------------------------ large counts, property
KINDS = ("small", "huge", "near_2_47", "stable_1e19")


def counts(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "small":
        x = rng.permutation(n) + rng.integers(0, 10**6)
    elif kind == "huge":  # spread over [0, 1e19]: squares near 1e38 overflow float32 sums
        x = rng.uniform(0, 1e19, n)
    elif kind == "near_2_47":  # a large stable counter: steps of float32's spacing there (2**24)
        x = 2.0**47 + 2.0**24 * rng.permutation(n)
    else:
        x = 1e19 * (1 + 1e-4 * rng.permutation(n))
    return np.asarray(x, dtype=np.float32)


@settings(max_examples=25, deadline=None)
@given(
    kinds=st.lists(st.sampled_from(KINDS), min_size=3, max_size=4),
    n=st.integers(8, 60),
    seed=st.integers(0, 2**16),
)
def test_correlations_of_large_float32_counts_are_the_float64_ones(kinds, n, seed):
    rng = np.random.default_rng(seed)
    k = len(kinds)
    ev = [f"e{i}" for i in range(k)]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    groups = {g: pd.DataFrame({ev[i]: counts(kinds[i], n, rng) for i in p}) for g, p in enumerate(pairs)}
    r32 = Readings(groups)
    r64 = as_float64(r32)
    assert (r32.event_dtypes == np.float32).all()

    def same(a, b):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        assert np.array_equal(np.isfinite(a), np.isfinite(b))
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-9, equal_nan=True)

    for kind in ("pearson", "spearman"):
        for centre in (True, False):
            c32, n32 = pairwise_correlation(r32, kind=kind, centre=centre)
            c64, n64 = pairwise_correlation(r64, kind=kind, centre=centre)
            assert np.isfinite(c32.to_numpy()).all()
            same(c32, c64)
            assert n32.equals(n64)
    same(pairwise_correlation(r32, outliers="zscore")[0], pairwise_correlation(r64, outliers="zscore")[0])
    for x32, x64 in zip(pearson_estimates(r32), pearson_estimates(r64)):
        same(x32, x64)
    for x32, x64 in zip(pairwise_jackknife(r32), pairwise_jackknife(r64)):
        same(x32, x64)
    same(mix_jackknife(r32), mix_jackknife(r64))
    # a complete float32 table (a merged one): its correlations in float64
    full = pd.DataFrame({e: counts(kd, n, rng) for e, kd in zip(ev, kinds)})
    for x32, x64 in zip(table_correlations(full), table_correlations(full.astype(np.float64))):
        assert np.isfinite(x32).all()
        same(x32, x64)


def test_report_variability_of_float32_counts_near_1e19_is_finite():
    rng = np.random.default_rng(0)
    t = pd.DataFrame({"a": rng.uniform(0, 1e19, 500), "b": rng.uniform(0, 1e6, 500)}).astype(np.float32)
    r32 = Readings({1: t})
    cv32 = variability(r32).tables[0][1]["coefficient of variation"]
    cv64 = variability(as_float64(r32)).tables[0][1]["coefficient of variation"]
    assert np.isfinite(cv32.to_numpy()).all()
    np.testing.assert_allclose(cv32.to_numpy(), cv64.to_numpy(), rtol=1e-12)


# ------------------------------------------------------------------ files
def test_write_table_keeps_float32_in_parquet_and_exact_values_in_csv(tmp_path):
    values = np.array([1.1, 0.1, 123456789.0, 2.0**47 + 2.0**23, 1e19, 3.4e38], dtype=np.float32)
    t = pd.DataFrame({"a": values, "b": values[::-1]})
    p = write_table(t, tmp_path / "t.parquet")
    assert all(str(f.type) == "float" for f in pq.read_schema(p))  # Arrow's "float" is float32
    back = read_table(p)
    assert (back.dtypes == np.float32).all()
    pd.testing.assert_frame_equal(back, t)
    c = write_table(t, tmp_path / "t.csv")
    text = c.read_text()
    # each value printed as the number it is: a float64 reader gets it back exactly (the
    # shortest float32 form, 1.2345679e+08, would read as 123456790, a count never seen)
    assert "123456792.0" in text and "1.2345679e+08" not in text and "1.100000023841858" in text
    back = read_table(c)
    assert (back.dtypes == np.float64).all()
    np.testing.assert_array_equal(back.to_numpy(), t.to_numpy().astype(np.float64))


def three_pairs_float32(runs: int = 400) -> Readings:
    """a, b, c read in pairs; each event read 2 x runs times, so the default merge keeps every reading."""
    rng = np.random.default_rng(3)
    x = rng.multivariate_normal(np.zeros(3), [[1, 0.5, 0.2], [0.5, 1, 0.4], [0.2, 0.4, 1]], size=3 * runs)
    x = np.round(1e4 * np.exp(0.4 * x)) / 10 + 1.1  # one decimal: not exact in float32
    ev = ["a", "b", "c"]
    pairs = [(0, 1), (0, 2), (1, 2)]
    return Readings(
        {
            gi + 1: pd.DataFrame(x[gi * runs : (gi + 1) * runs][:, list(p)], columns=[ev[i] for i in p]).astype(
                np.float32
            )
            for gi, p in enumerate(pairs)
        }
    )


def test_cli_merge_of_a_float32_parquet_file_writes_float32(cli, tmp_path):
    r = three_pairs_float32()
    tidy = r.to_tidy()
    assert tidy["value"].dtype == np.float32
    src = tmp_path / "runs.parquet"
    tidy.to_parquet(src, index=False)
    assert str(pq.read_schema(src).field("value").type) == "float"
    out = tmp_path / "out.parquet"
    res = cli(["merge", src, "-m", "copula", "-o", out, "-q", "--seed", "1"])
    assert res.exit_code == 0, res.stderr
    assert all(str(f.type) == "float" for f in pq.read_schema(out))
    merged = pd.read_parquet(out)
    assert (merged.dtypes == np.float32).all() and len(merged) == 800
    for e in r.events:  # each column a permutation of the event's float32 readings
        pooled = np.concatenate([t[e].to_numpy() for t in r.groups.values() if e in t.columns])
        np.testing.assert_array_equal(np.sort(merged[e].to_numpy()), np.sort(pooled))
    # CSV: the float32 values as the numbers they are, read back exactly as float64
    csv = tmp_path / "out.csv"
    res = cli(["merge", src, "-m", "copula", "-o", csv, "-q", "--seed", "1"])
    assert res.exit_code == 0, res.stderr
    np.testing.assert_array_equal(read_table(csv).to_numpy(), merged.to_numpy().astype(np.float64))


def test_event_values_and_reorder_keep_float32_readings(much32, much64):
    from hemkit.merge.reorder import event_values, reorder

    ev = much32.events
    v32, v64 = event_values(much32, ev, 2000), event_values(much64, ev, 2000)
    assert v32.dtype == np.float32 and v64.dtype == np.float64  # no float64 copy of float32 readings
    np.testing.assert_array_equal(v32.astype(np.float64), v64)
    mixed = Readings({g: t if g % 2 else t.astype(np.float64) for g, t in much32.groups.items()})
    assert event_values(mixed, ev, 100).dtype == np.float64
    x = np.array([[9.0], [10], [12], [17]], dtype=np.float32)
    sample = np.array([[1.121], [-0.870], [-0.172], [0.343]])
    out = reorder(x, sample)
    assert out.dtype == np.float32 and out.ravel().tolist() == [17, 9, 10, 12]
    assert reorder(x.astype(int), sample).dtype == np.float64
