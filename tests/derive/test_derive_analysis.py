"""Analysis of the metric derivation: known answers from the paper, planted events, properties."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.core.errors import InputError
from hemkit.derive import AnalysisOptions, DeriveAnalysis, Family, analyze, analyze_cube
from hemkit.derive.analysis import backward_error, measurement_cube, project_onto_basis, solve_signatures
from hemkit.derive.families import BRANCH_BODIES, branch_family, dcache_family, family_for_loops, flops_family
from hemkit.derive.noise import max_rnmse, noise_mask, quantise
from hemkit.derive.qr import pivot_scores, round_alpha, special_qrcp
from hemkit.derive.tables import format_combination, parse_combination


# ---------------------------------------------------------------- known answers from the paper
def test_score_of_paper_example_is_4_5():
    assert pivot_scores(np.array([1.002, 0.001, -0.5, 1.5]), 0.01) == pytest.approx(4.5, abs=1e-12)


def test_rounding_formula():
    assert round_alpha(np.array([1.002, 0.001, -0.5, 1.5, 0.004, 0.006]), 0.01) == pytest.approx(
        [1.0, 0.0, -0.5, 1.5, 0.0, 0.01]
    )


def test_dp_flops_example_eq1():
    scal = np.array([24, 48, 96, 0, 0, 0], float)
    fma256 = np.array([0, 0, 0, 12, 24, 48], float)
    assert (scal + 8 * fma256).tolist() == [24, 48, 96, 96, 192, 384]
    # and the analysis finds the coefficients 1 and 8 for the DP FLOPs signature
    E = pd.DataFrame(np.c_[scal, fma256], columns=["D_SCAL", "D_FMA_256"], index=[f"k/{i}" for i in range(6)])
    S = pd.DataFrame({"D_SCAL": [1.0], "D_FMA_256": [8.0]}, index=["DP FLOPs"])
    cube = np.stack([np.c_[scal, fma256, scal + 8 * fma256]] * 3)
    res = analyze_cube(cube, ["SCAL_DOUBLE", "FMA256_DOUBLE", "ALL_DP_FLOPS"], Family("eq1", E, S))
    assert res.chosen == ("SCAL_DOUBLE", "FMA256_DOUBLE")  # the sum scores 9 and is dependent
    d = res.definitions.iloc[0]
    assert d["rounded_coefficients"] == {"SCAL_DOUBLE": 1.0, "FMA256_DOUBLE": 8.0}
    assert d["backward_error"] < 1e-15 and d["verdict"] == "defined"
    fam = flops_family()
    assert fam.signature("DP Ops.")[fam.basis.index.get_loc("dp_scalar/24")] == 24
    assert fam.signature("DP Ops.")[fam.basis.index.get_loc("dp_256_fma/12")] == 96  # 12 FMA x 4 lanes x 2


def test_flops_signatures_count_an_fma_as_two_operations():
    s = flops_family().signatures
    assert s.loc["DP Ops."].tolist() == [0, 0, 0, 0, 1, 2, 4, 8, 0, 0, 0, 0, 2, 4, 8, 16]
    assert s.loc["SP Ops."].tolist() == [1, 4, 8, 16, 0, 0, 0, 0, 2, 8, 16, 32, 0, 0, 0, 0]
    assert s.loc["FP Ops."].tolist() == [1, 4, 8, 16, 1, 2, 4, 8, 2, 8, 16, 32, 2, 4, 8, 16]
    assert s.loc["FMA Instrs."].tolist() == [0] * 8 + [1] * 8  # an FMA is one instruction


# ---------------------------------------------------------------- the branch basis
def test_branch_bodies_are_independent_and_t_is_exact():
    E = branch_family().basis.to_numpy()
    assert np.linalg.matrix_rank(E) == 5
    # every T entry is a multiple of 0.5 of an exact count: random bodies are exactly half taken
    assert np.all(np.mod(E * 4, 1) == 0)
    assert BRANCH_BODIES["rndx"][0] != BRANCH_BODIES["rndx"][1]  # CE differs from CR: CAT's model


# ---------------------------------------------------------------- noise (Eq. 4) and quantisation
def test_max_rnmse_values():
    a = np.array([1.0, 2.0, 3.0])
    reps = np.stack([a, a * 1.01, a])[:, :, None]  # (R=3, N=3, E=1)
    expect = np.linalg.norm(0.01 * a) / np.sqrt(3 * 2.0 * 2.02)
    assert max_rnmse(reps)[0] == pytest.approx(expect)


def test_max_rnmse_zero_mean_is_one_and_all_zero_is_nan():
    reps = np.zeros((3, 4, 3))
    reps[0, :, 0] = 1.0  # one run non-zero, others zero-mean
    reps[:, :, 1] = 5.0
    v = max_rnmse(reps)
    assert v[0] == 1.0 and v[1] == 0.0 and np.isnan(v[2])
    assert noise_mask(v, 1e-10).tolist() == [False, True, False]


def test_max_rnmse_needs_two_runs():
    with pytest.raises(InputError, match="at least 2 runs"):
        max_rnmse(np.ones((1, 3, 2)))


def test_quantise_is_cats_rounding():
    # CAT: round = floor(avg*4.0+0.499)/4.0
    v = np.array([0.5004, 1.99, 2.126, 2.1249, 0.0001, 0.3749, 0.375])
    assert quantise(v, 0.25).tolist() == [0.5, 2.0, 2.25, 2.0, 0.0, 0.25, 0.25]
    assert quantise(v, 0).tolist() == v.tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=20), st.sampled_from([0.25, 0.5, 1.0]))
def test_quantise_is_idempotent_on_the_grid(values, q):
    once = quantise(np.array(values), q)
    assert np.array_equal(quantise(once, q), once)
    # CAT adds 0.499, not 0.5: a value up to 0.001 q past a midpoint rounds down (1.7503 -> 1.5 at q = 0.5)
    assert np.all(np.abs(once - np.array(values)) <= 0.501 * q + 1e-9 * np.maximum(1, np.abs(values)))


def test_quantisation_keeps_a_mispredict_event_that_varies_run_to_run():
    """Without CAT's quantisation a mispredict count of 0.5 +- 0.1 % per iteration is 'noise'."""
    fam = branch_family()
    rng = np.random.default_rng(3)
    M = fam.basis[["CR", "M"]].to_numpy()
    cube = np.stack([M * np.c_[np.ones(len(M)), rng.uniform(0.999, 1.001, len(M))] for _ in range(3)])
    with_q = analyze_cube(cube, ["COND", "MISP"], fam)
    without = analyze_cube(cube, ["COND", "MISP"], fam, options=AnalysisOptions(quantum=0))
    assert with_q.chosen == ("COND", "MISP") and with_q.summary().loc["Mispredicted Branches.", "verdict"] == "defined"
    assert without.chosen == ("COND",) and without.summary().loc["Mispredicted Branches.", "verdict"] == "not definable"
    assert with_q.raw_variability["MISP"] > 1e-4 and with_q.variability["MISP"] == 0


# ---------------------------------------------------------------- projection, QR, LS
def test_projection_drops_unrepresentable():
    fam = flops_family()
    E = fam.basis.to_numpy()
    overhead = np.ones((E.shape[0], 1)) * 3  # integer loop overhead: constant per iteration
    X, rel = project_onto_basis(E, np.c_[E[:, :2], overhead])
    assert rel[:2].max() < 1e-12 and rel[2] > 0.4


def test_qr_skips_small_columns_and_stops():
    X = np.array([[1e-5, 1.0, 0.0], [0.0, 0.0, 0.0]])
    assert special_qrcp(X, 1e-3).tolist() == [1]


def test_qr_tie_broken_by_smallest_norm():
    # (2,0) and (1,1) both score 2; (1,1) has the smaller norm
    X = np.array([[2.0, 1.0], [0.0, 1.0]])
    assert special_qrcp(X, 1e-3).tolist()[0] == 1


@settings(max_examples=60, deadline=None)
@given(k=st.integers(2, 5), n=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_qr_chooses_a_basis_of_the_column_space(k, n, seed):
    """On integer matrices the chosen columns are independent and as many as the rank."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, (k, n)).astype(float)
    X[:, rng.random(n) < 0.3] = 0.0  # some zero events
    chosen = special_qrcp(X, 1e-3)
    rank = np.linalg.matrix_rank(X)
    assert len(chosen) == rank and len(set(chosen.tolist())) == len(chosen)
    if rank:
        assert np.linalg.matrix_rank(X[:, chosen]) == rank


def test_backward_error_of_zero_solution_is_one():
    A = np.eye(3)
    s = np.array([0.0, 1.0, 2.0])
    assert backward_error(A, np.zeros(3), s) == pytest.approx(1.0)
    y = np.linalg.lstsq(A, s, rcond=None)[0]
    assert backward_error(A, y, s) < 1e-16


def test_solve_signatures_without_events():
    Y, err, Yr, er = solve_signatures(np.zeros((3, 0)), np.eye(3))
    assert err.tolist() == [1.0, 1.0, 1.0]


def _planted_flops(rng, noise_events=5):
    """Measurement cube of the FLOPs family with planted unit events and distractors."""
    fam = flops_family()
    E = fam.basis.to_numpy()
    k = E.shape[1]
    cols, names, truth = [], [], []
    for i in range(k):  # planted: one event per expectation
        cols.append(E[:, i])
        names.append(f"P{i}")
        truth.append(i)
    for i in rng.choice(k, 4, replace=False):  # duplicates
        cols.append(E[:, i].copy())
        names.append(f"dup{i}")
        truth.append(int(i))
    for i in rng.choice(k, 4, replace=False):  # scaled copies
        cols.append(E[:, i] * rng.choice([2.0, 4.0, 0.25]))
        names.append(f"scaled{i}")
        truth.append(-1)
    for _ in range(4):  # linear combinations
        i, j = rng.choice(k, 2, replace=False)
        cols.append(E[:, i] + 2 * E[:, j])
        names.append(f"comb{i}_{j}")
        truth.append(-1)
    cols.append(E @ np.abs(fam.signatures.loc["FP Ops."].to_numpy()))  # an "all FLOPs" event
    names.append("ALL_OPS")
    truth.append(-1)
    cols.append(np.full(E.shape[0], 3.0))  # loop overhead: not in the span of E
    names.append("INT_OPS")
    truth.append(-1)
    cols.append(np.zeros(E.shape[0]))  # all zero
    names.append("ZERO")
    truth.append(-1)
    M = np.array(cols).T
    cube = np.stack([M] * 3)
    for i in range(noise_events):  # noisy: different in every run
        base = rng.uniform(1, 100, E.shape[0])
        cube = np.concatenate([cube, (base * rng.uniform(0.9, 1.1, (3, E.shape[0])))[:, :, None]], axis=2)
        names.append(f"noisy{i}")
        truth.append(-1)
    perm = rng.permutation(len(names))
    return fam, cube[:, :, perm], [names[p] for p in perm], [truth[p] for p in perm]


def test_planted_events_chosen_and_coefficients_recovered():
    rng = np.random.default_rng(1)
    fam, cube, names, truth = _planted_flops(rng)
    res = analyze_cube(cube, names, fam)
    dims = {truth[names.index(c)] for c in res.chosen}
    assert len(res.chosen) == 16 and dims == set(range(16)), res.chosen
    assert set(res.dropped["event"]) >= {"INT_OPS", "ZERO", *[n for n in names if n.startswith("noisy")]}
    for metric, row in res.definitions.set_index("metric").iterrows():
        sig = fam.signatures.loc[metric].to_numpy()
        got = np.zeros(16)
        for ev, c in row["rounded_coefficients"].items():
            got[truth[names.index(ev)]] = c
        assert got == pytest.approx(sig), metric
        assert row["verdict"] == "defined" and row["rounded_error"] < 1e-14


def test_intel_like_fma_events_make_fma_metric_not_definable():
    """As the paper finds on Sapphire Rapids: events counting FMA with non-FMA (FMA twice) only."""
    fam = flops_family()
    E = fam.basis
    names, cols = [], []
    for p in ("sp", "dp"):
        for w in ("scalar", "128", "256", "512"):
            base = f"{p}_{w}".upper()
            cols.append(E[base] + 2 * E[base + "_FMA"])
            names.append(f"FP_ARITH:{base}")
    res = analyze_cube(np.stack([np.array(cols).T] * 3), names, fam)
    t = res.definitions.set_index("metric")
    assert t.loc["DP Ops.", "verdict"] == "defined"
    assert t.loc["DP Ops.", "rounded_coefficients"] == {
        "FP_ARITH:DP_SCALAR": 1.0,
        "FP_ARITH:DP_128": 2.0,
        "FP_ARITH:DP_256": 4.0,
        "FP_ARITH:DP_512": 8.0,
    }
    for m in ("SP FMA Instrs.", "DP FMA Instrs.", "FMA Instrs."):
        assert t.loc[m, "verdict"] == "not definable" and t.loc[m, "backward_error"] > 0.1


def test_branch_metrics_from_planted_events():
    fam = branch_family()
    E = fam.basis
    ev = {
        "COND": E["CR"],
        "COND_TAKEN": E["T"],
        "ALL_BRANCHES": E["CR"] + E["D"],
        "MISP": E["M"],
        "TAKEN_ALL": E["T"] + E["D"],
    }
    res = analyze_cube(np.stack([np.array(list(ev.values())).T] * 3), list(ev), fam)
    t = res.definitions.set_index("metric")
    assert t.loc["Unconditional Branches.", "rounded_coefficients"] == {"ALL_BRANCHES": 1.0, "COND": -1.0}
    assert t.loc["Conditional Branches Not Taken.", "rounded_coefficients"] == {"COND": 1.0, "COND_TAKEN": -1.0}
    assert t.loc["Conditional Branches Executed.", "verdict"] == "not definable"
    assert t.loc["Conditional Branches Executed.", "backward_error"] > 0.5
    assert t.loc["Conditional Branches Executed.", "combination"] == "0"


def test_instructions_event_cannot_define_ce():
    """An 'instructions' event of the kernels is outside the basis (dropped), so CE stays not definable."""
    from hemkit.derive.families import branch_instructions

    fam = branch_family()
    E = fam.basis
    cube = np.stack([np.c_[E["CR"], E["M"], branch_instructions()]] * 3)
    res = analyze_cube(cube, ["COND", "MISP", "INSTRUCTIONS"], fam)
    assert dict(zip(res.dropped["event"], res.dropped["step"])) == {"INSTRUCTIONS": "projection"}
    assert res.summary().loc["Conditional Branches Executed.", "verdict"] == "not definable"


@settings(max_examples=25, deadline=None)
@given(
    coefs=st.lists(st.integers(-3, 3), min_size=4, max_size=4),
    scales=st.lists(st.sampled_from([1.0, 2.0, 0.5]), min_size=4, max_size=4),
    noise=st.floats(0, 5e-3),
    seed=st.integers(0, 2**16),
)
def test_dcache_noisy_planted_events(coefs, scales, noise, seed):
    """Noisy cache-like data: QR picks the planted events, LS recovers the planted coefficients."""
    rng = np.random.default_rng(seed)
    fam = dcache_family({1: 48 * 1024, 2: 1 << 20, 3: 32 << 20})
    E = fam.basis.to_numpy()
    k = E.shape[1]
    planted = E * np.asarray(scales)  # events that count a scaled expectation
    extra = np.c_[E[:, 0] + 3 * E[:, 2], 3 * E[:, 1]]  # a combination and a scaled copy (both score 3 or more)
    M = np.c_[planted, extra]
    cube = M[None] * (1 + noise * rng.standard_normal((3, *M.shape)))
    names = [f"P{i}" for i in range(k)] + ["COMB", "SCALED"]
    sig = pd.DataFrame([np.asarray(coefs, float)], columns=fam.basis.columns, index=["m"])
    if not np.any(coefs):
        sig.iloc[0, 0] = 1.0
    res = analyze_cube(cube, names, fam.with_signatures(sig))
    assert set(res.chosen) == set(names[:k])
    y = res.definitions.iloc[0]["coefficients"]
    want = sig.iloc[0].to_numpy() / np.asarray(scales)
    got = np.array([y[f"P{i}"] for i in range(k)])
    assert got == pytest.approx(want, abs=5e-2 + 20 * noise * np.abs(want).max())


def test_metric_of_an_unmeasured_expectation_is_not_measured():
    fam = family_for_loops("dcache", [("l1", 8192), ("l1", 16384), ("mem", 1 << 26)])
    assert fam.basis.columns.tolist() == ["L1_DM", "L1_DH"]
    full = dcache_family({1: 32768, 2: 1 << 20, 3: 32 << 20})
    rows = [r for r in full.basis.index if r.startswith(("l1/", "mem/"))]
    part = full.restricted(rows)  # L2 and L3 kernels not measured
    E = part.basis
    res = analyze_cube(np.stack([np.c_[E["L1_DM"], E["L1_DH"]]] * 2), ["MISS", "HIT"], part)
    t = res.summary()
    assert t.loc["L1 Misses.", "verdict"] == "defined" and t.loc["L2 Hits.", "verdict"] == "not measured"
    assert set(res.not_measured) == {"L2_DH", "L3_DH"}


# ---------------------------------------------------------------- tidy input, result object, errors
def _tidy(fam, cube, names):
    rows = []
    for r in range(cube.shape[0]):
        for i, (kern, size) in enumerate(fam.loops):
            for e, n in enumerate(names):
                rows.append((kern, size, r, n, cube[r, i, e]))
    return pd.DataFrame(rows, columns=["kernel", "size", "run", "event", "value"])


def test_analyze_from_tidy_and_the_result_object():
    fam = branch_family()
    cube = np.stack([fam.basis[["CR", "T", "M"]].to_numpy()] * 3)
    res = analyze(_tidy(fam, cube, ["c", "t", "m"]), "branch")
    assert isinstance(res, DeriveAnalysis) and set(res.chosen) == {"c", "t", "m"}
    s = res.summary()
    assert list(s.columns) == ["papi", "definition", "backward_error", "verdict"]
    assert (
        s.loc["Mispredicted Branches.", "definition"] == "1xm"
        and s.loc["Mispredicted Branches.", "papi"] == "PAPI_BR_MSP"
    )
    assert "| Mispredicted Branches. | PAPI_BR_MSP | 1xm |" in res.to_markdown()
    assert repr(res).startswith("DeriveAnalysis\n") and "Mispredicted Branches." in repr(res)
    ax = res.plot()
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
    with pytest.raises(Exception):
        res.family = "x"  # frozen


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**16), st.sampled_from(["branch", "flops"]))
def test_result_json_round_trip(seed, family):
    rng = np.random.default_rng(seed)
    fam = branch_family() if family == "branch" else flops_family()
    k = fam.basis.shape[1]
    x = rng.integers(0, 3, (k, 4)).astype(float)
    cube = np.stack([fam.basis.to_numpy() @ x] * 2)
    res = analyze_cube(cube, ["a", "b", "c", "d"], fam, backend="paper")
    text = json.dumps(res.to_dict())
    back = DeriveAnalysis.from_dict(json.loads(text))
    pd.testing.assert_frame_equal(back.summary(), res.summary())
    assert back.chosen == res.chosen and back.options == res.options and back.backend == "paper"


def test_measurement_cube_errors():
    fam = branch_family()
    cube = np.stack([fam.basis[["CR"]].to_numpy()] * 3)
    df = _tidy(fam, cube, ["c"])
    with pytest.raises(InputError, match="no measurement on nt/1 run 2"):
        measurement_cube(
            df.drop(df.index[(df["run"] == 2) & (df["kernel"] == "nt") & (df["size"] == "1")]), list(fam.basis.index)
        )
    bad = df.copy()
    bad.loc[0, "kernel"] = "nope"
    with pytest.raises(InputError, match="'nope/1' is not in the family's basis"):
        measurement_cube(bad, list(fam.basis.index))
    with pytest.raises(InputError, match="lack column"):
        measurement_cube(df.drop(columns="run"), list(fam.basis.index))
    neg = df.copy()
    neg.loc[3, "value"] = -1.0
    with pytest.raises(InputError, match="not a finite number >= 0"):
        measurement_cube(neg, list(fam.basis.index))
    with pytest.raises(InputError, match="tau must be"):
        analyze(df, "branch", options=AnalysisOptions(tau=-1))
    with pytest.raises(InputError, match="unknown kernel family"):
        analyze(df, "gpu")
    with pytest.raises(InputError, match="no family column"):
        analyze(df)


# ---------------------------------------------------------------- combinations as text
@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[A-Za-z][A-Za-z0-9_:.-]{0,12}", fullmatch=True),
        st.floats(-1e6, 1e6, allow_nan=False).filter(lambda v: abs(v) > 1e-6),
        min_size=1,
        max_size=5,
    )
)
def test_combination_text_round_trip(terms):  # names may hold a glued sign and number: A-0x0, A-2xB
    names, coefs = list(terms), list(terms.values())
    back = parse_combination(format_combination(coefs, names, rel_cut=0))
    assert set(back) == set(names)
    for n in names:
        assert back[n] == pytest.approx(terms[n], rel=1e-3)


def test_parse_combination_refuses_garbage():
    for text in ["", "  ", "1x", "xA", "1yA", "nan"]:
        with pytest.raises(InputError):
            parse_combination(text)
    assert parse_combination("0") == {}


def test_a_sign_glued_to_a_name_is_part_of_it():
    assert parse_combination("1xA-0x0") == {"A-0x0": 1.0}
    assert parse_combination("2xL1-dcache-loads - 1.5e-3xB +1xC") == {"L1-dcache-loads": 2.0, "B": -1.5e-3, "C": 1.0}


@pytest.mark.parametrize("family", ["branch", "dcache"])
def test_summary_line_counts_every_event_measured(family):
    """'13 events, 9 dropped as noisy or all zero, 1 outside the basis, 2 chosen': the events the pivoted QR
    left out as combinations of the chosen ones (Dr of the branch kernels) were in no count."""
    import re

    from hemkit.derive import example_measurements

    res = analyze(example_measurements(family))
    line = res.line()
    m = re.search(
        r"(\d+) events, (\d+) dropped as noisy or all zero, (\d+) outside the basis, (\d+) dependent on others, "
        r"(\d+) chosen",
        line,
    )
    assert m, line
    total, *parts = map(int, m.groups())
    assert total == sum(parts) == len(res.variability), line
