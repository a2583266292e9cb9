"""The valgrind backend: cachegrind's exact counts on the kernels, the full-rank basis, the issue's done-when."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.core.errors import InputError, MeasurementError, SetupError
from hemkit.core.progress import RecordingProgress
from hemkit.derive import MeasureOptions, analyze, cache_geometry, define, measure, run_family
from hemkit.derive.families import branch_family, branch_instructions
from hemkit.derive.noise import quantise
from hemkit.external.valgrind import CacheSpec, parse_cachegrind_out

from .conftest import TINY_CACHES, needs_valgrind


# ---------------------------------------------------------------- pure parts (no valgrind needed)
def test_parse_cachegrind_output_sums_per_function():
    text = (
        "desc: I1 cache: 32768 B\ncmd: ./k\nevents: Ir Dr Bc Bcm\n"
        "fl=a.c\nfn=main\n1 5 1\n2 3 0 1 1\nfl=b.c\nfn=main\n7 2\nfn=hk_rnd_4\n0 100 4 20 9\nsummary: 110 5 21 10\n"
    )
    events, f = parse_cachegrind_out(text)
    assert events == ("Ir", "Dr", "Bc", "Bcm")
    assert f.loc["main"].tolist() == [10, 1, 1, 1] and f.loc["hk_rnd_4"].tolist() == [100, 4, 20, 9]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_parse_cachegrind_output_never_raises_anything_else(text):
    try:
        parse_cachegrind_out(text)
    except MeasurementError:
        pass


def test_cache_specs():
    assert CacheSpec.parse("32k,8,64") == CacheSpec(32768, 8, 64)
    assert CacheSpec.parse("12M,12,64").sets == 16384 if hasattr(CacheSpec, "sets") else True
    assert CacheSpec.parse("30M,20,64") == CacheSpec(30 << 20, 30, 64)  # 24576 sets -> 30 ways of 16384
    for bad in ["32k,8", "32q,8,64", "32k,x,64", "32k,8,48", "32k,0,64", "100,8,64"]:
        with pytest.raises(InputError, match="cache"):
            CacheSpec.parse(bad)
    g = cache_geometry(["L1=32k,8,64", "LL=8M,16,64"])
    assert g.I1 == g.D1 == CacheSpec(32768, 8, 64) and g.LL == CacheSpec(8 << 20, 16, 64)
    with pytest.raises(InputError, match="L9"):
        cache_geometry(["L9=32k,8,64"])
    with pytest.raises(InputError, match="at least 4 x D1"):
        cache_geometry(["L1=32k,8,64 LL=64k,8,64"])


def test_flops_family_has_no_simulated_events():
    with pytest.raises(SetupError, match="simulates no floating-point events"):
        run_family("flops", backend="valgrind")


def test_branch_iterations_must_keep_t_exact():
    with pytest.raises(InputError, match="power of two"):
        measure(branch_family(), ["Bc"], backend="valgrind", options=MeasureOptions(iterations=1000))


# ---------------------------------------------------------------- with valgrind
@needs_valgrind
def test_branch_counts_are_cats_expectations(valgrind_branch):
    """After CAT's quantisation, Bc is exactly CR and Bcm exactly M per iteration, on every loop and run."""
    fam = branch_family()
    d = valgrind_branch.data
    for event, col in (("Bc", "CR"), ("Bcm", "M")):
        w = d[d["event"] == event].pivot(index=["kernel", "size"], columns="run", values="value")
        w.index = [f"{k}/{s}" for k, s in w.index]
        w = w.loc[fam.basis.index]
        for run in w.columns:
            assert quantise(w[run].to_numpy(), 0.25).tolist() == fam.basis[col].tolist(), (event, run)
    # raw mispredictions differ run to run (other seeds), as on hardware: the reason for CAT's quantisation
    bcm = d[(d["event"] == "Bcm") & (d["kernel"] == "rnd")].pivot(index="size", columns="run", values="count")
    assert (bcm[0] != bcm[1]).any()


@needs_valgrind
def test_instructions_are_not_a_combination_of_the_expectations(valgrind_branch):
    """The issue's full-rank test: E with a column of measured instructions per iteration has rank 6."""
    fam = branch_family()
    d = valgrind_branch.data
    ir = d[(d["event"] == "Ir") & (d["run"] == 0)].assign(row=lambda x: x["kernel"] + "/" + x["size"])
    ir = ir.set_index("row").loc[fam.basis.index, "value"].to_numpy()
    assert quantise(ir, 0.25).tolist() == branch_instructions().tolist()  # the model of the C source holds
    E = fam.basis.to_numpy()
    assert np.linalg.matrix_rank(E) == 5
    assert np.linalg.matrix_rank(np.c_[E, ir]) == 6
    assert np.linalg.matrix_rank(np.c_[E, branch_instructions()]) == 6
    # and so the analysis drops it at the projection (it cannot lend CE a definition)
    res = analyze(valgrind_branch)
    assert dict(zip(res.dropped["event"], res.dropped["step"]))["Ir"] == "projection"


@needs_valgrind
def test_branch_done_when(valgrind_branch):
    """PAPI_BR_CN = 1xBc and PAPI_BR_MSP = 1xBcm with backward error < 1e-10; CE not definable."""
    res = analyze(valgrind_branch)
    t = res.summary()
    for metric, papi, definition in (
        ("Conditional Branches Retired.", "PAPI_BR_CN", "1xBc"),
        ("Mispredicted Branches.", "PAPI_BR_MSP", "1xBcm"),
        ("Correctly Predicted Branches.", "PAPI_BR_PRC", "1xBc - 1xBcm"),
    ):
        assert t.loc[metric, "papi"] == papi and t.loc[metric, "definition"] == definition
        assert t.loc[metric, "backward_error"] < 1e-10 and t.loc[metric, "verdict"] == "defined"
    assert t.loc["Conditional Branches Executed.", "verdict"] == "not definable"
    assert t.loc["Conditional Branches Executed.", "backward_error"] == pytest.approx(1.0, abs=1e-9)
    # cachegrind counts neither taken branches nor direct jumps
    for metric in ("Conditional Branches Taken.", "Unconditional Branches.", "All Branches."):
        assert t.loc[metric, "verdict"] == "not definable"
    d = define(res).summary()
    assert d.loc["Conditional Branches Retired.", "agree"] is True and d.loc["Mispredicted Branches.", "agree"] is True


@needs_valgrind
def test_dcache_done_when(valgrind_dcache):
    """PAPI_L1_DCM = 1xD1mr, every metric of the family defined, matching cachegrind's presets."""
    d = valgrind_dcache.data
    miss = d[d["event"] == "D1mr"].groupby("kernel")["value"].agg(["min", "max"])
    assert miss.loc["l1", "max"] < 1e-3 and miss.loc["ll", "min"] >= 1 and miss.loc["mem", "min"] >= 1
    ll = d[d["event"] == "DLmr"].groupby("kernel")["value"].agg(["min", "max"])
    assert ll.loc["ll", "max"] < 1e-3 and ll.loc["mem", "min"] >= 1  # every chase access in memory misses the LL
    res = analyze(valgrind_dcache)
    t = res.summary()
    assert (t["verdict"] == "defined").all(), t
    assert t.loc["L1 Misses.", "definition"] == "1xD1mr" and t.loc["L1 Misses.", "papi"] == "PAPI_L1_DCM"
    assert t.loc["LL Misses.", "definition"] == "1xDLmr" and t.loc["LL Hits.", "definition"] == "1xD1mr - 1xDLmr"
    assert define(res).table["agree"].tolist() == [True] * 5


@needs_valgrind
def test_same_seed_same_counts_other_seed_other_counts():
    fam = branch_family().restricted(["rnd/4"])
    opts = dict(runs=2, iterations=1024, cache=cache_geometry(TINY_CACHES))
    a = measure(fam, ["Bcm", "Ir"], backend="valgrind", options=MeasureOptions(seed=1, **opts)).data
    b = measure(fam, ["Bcm", "Ir"], backend="valgrind", options=MeasureOptions(seed=1, **opts)).data
    c = measure(fam, ["Bcm", "Ir"], backend="valgrind", options=MeasureOptions(seed=2, **opts)).data
    pd.testing.assert_frame_equal(a, b)
    assert not a["count"].equals(c["count"])


@needs_valgrind
def test_progress_reports_every_kernel_run():
    rec = RecordingProgress()
    fam = branch_family().restricted(["nt/1", "jmp/2"])
    measure(fam, ["Bc"], backend="valgrind", options=MeasureOptions(runs=2, iterations=256), progress=rec)
    assert rec.events[-1][1:3] == (4, 4) and rec.events[0][0] == "valgrind: branch kernels"
    assert all(e[3].endswith(("run 1", "run 2")) for e in rec.events)


@needs_valgrind
def test_a_failing_kernel_is_a_measurement_error():
    from hemkit.derive.families import Family

    bogus = Family(
        "branch",
        pd.DataFrame([[1.0]], index=["nope/1"], columns=["CR"]),
        pd.DataFrame([[1.0]], index=["m"], columns=["CR"]),
    )
    with pytest.raises(
        MeasurementError, match="kernel nope/1 failed under valgrind .exit code 2.: unknown kernel branch nope 1"
    ):
        measure(bogus, ["Bc"], backend="valgrind", options=MeasureOptions(runs=2, iterations=256))
