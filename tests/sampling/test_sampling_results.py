"""Result objects (DESIGN.md section 5): frozen, summary() -> DataFrame, to_frame(), plot(ax=None) with
a title, axis labels with units and a legend when a figure has more than one series; same seed, same
numbers in another process."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from hemkit.sampling import (
    CoverageResult,
    Sampler,
    Task,
    Workload,
    profile_shares,
    read_samples,
    share_model,
    simulate_workload,
)
from hemkit.sampling.paper import reproduce

DATA = Path(__file__).parent / "data"


def check_figure(ax, *, series, units=("x", "y")):
    """A title, labels, units in parentheses on the numeric axes, a legend naming every series."""
    assert ax.get_title().strip()
    assert ax.get_xlabel().strip() and ax.get_ylabel().strip()
    for axis in units:
        label = ax.get_xlabel() if axis == "x" else ax.get_ylabel()
        assert "(" in label and ")" in label, f"no unit in {label!r}"
    if series > 1:
        legend = ax.get_legend()
        assert legend is not None, "several series and no legend"
        assert len(legend.get_texts()) >= series
    plt.close(ax.figure)


@pytest.fixture(scope="module")
def sim():
    w = Workload((Task("a", 0.3, 150), Task("b", 0.2, 30, "exponential")), n_units=50_000)
    return simulate_workload(w, Sampler(100), reps=60, seed=0)


def test_simulation_result(sim):
    s = sim.summary()
    assert isinstance(s, pd.DataFrame) and list(s.index) == ["idle", "a", "b"]
    assert list(s.columns) == ["R", "running_mean", "profile_mean", "profile_sd", "bias", "model_sd", "exact_sd"]
    assert sim.to_frame().shape == (60, 3) and sim.to_frame().index.name == "rep"
    assert repr(sim).startswith("SimulationResult\n")
    with pytest.raises(dataclasses.FrozenInstanceError):
        sim.sampler = Sampler(50)
    check_figure(sim.plot(), series=2)  # profiles and the diagonal
    check_figure(sim.plot_sd(), series=3)  # simulated, model, exact
    check_figure(sim.plot_histogram(), series=2)  # histogram and the truth
    _, ax = plt.subplots()
    assert sim.plot_histogram("a", ax=ax) is ax
    plt.close(ax.figure)


def test_running_states_summary(sim):
    rs = Workload((Task("a", 0.3, 150),), n_units=20_000).states(seed=1)
    s = rs.summary()
    assert list(s.columns) == ["share", "runs", "mean_run_length"] and s["share"].sum() == pytest.approx(1)
    assert abs(s.loc["a", "mean_run_length"] - 150) < 30


def test_sampling_profile_result():
    p = profile_shares(read_samples(DATA / "libc_kernel.script.txt"), by="dso")
    assert p.summary(2).shape[0] == 2 and p.summary().equals(p.table)
    f = p.to_frame()
    assert list(f.columns[:3]) == ["dso", "path", "samples"] and len(f) == 5
    assert repr(p).startswith("SamplingProfile\n")
    check_figure(p.plot(), series=1, units=("x",))


def test_share_model_result():
    m = share_model([0.3, 0.5], [1.5, 0.3], 1000)
    assert m.to_frame().equals(m.summary())
    check_figure(m.plot(), series=1, units=("y",))


def test_coverage_result_without_perf():
    rng = np.random.default_rng(0)
    rows = []
    for setting in ("cpu-clock -c 100000", "cpu-clock -F 997"):
        for run in range(3):
            for f, truth in (("work_0", 0.25), ("work_1", 0.75)):
                share = truth + rng.normal(0, 0.01)
                for method, half in (("wilson", 0.02), ("bound", 0.03)):
                    lo, hi = share - half, share + half
                    rows.append(
                        dict(
                            function=f,
                            truth=truth,
                            designed=truth,
                            share=share,
                            low=lo,
                            high=hi,
                            samples=100,
                            n=1000,
                            R_est=1.0,
                            covered=lo <= truth <= hi,
                            setting=setting,
                            granularity=50,
                            run=run,
                            method=method,
                        )
                    )
    res = CoverageResult(cases=pd.DataFrame(rows), level=0.95, event="cpu-clock")
    s = res.summary()
    assert s.loc[("all", "", "", "bound"), "cases"] == 12 and 0 <= s.loc[("all", "", "", "wilson"), "coverage"] <= 1
    bound = res.cases[res.cases["method"] == "bound"]
    ideal = [
        1.959964 * np.sqrt(np.mean((d["share"] - d["truth"]) ** 2)) for _, d in bound.groupby("setting", sort=False)
    ]
    assert s.loc[("cpu-clock -F 997", 50, 1, "bound"), "width/ideal"] == pytest.approx(0.03 / ideal[1], rel=1e-5)
    assert s.loc[("all", "", "", "bound"), "width/ideal"] == pytest.approx(0.03 / min(ideal), rel=1e-5)  # worst cell
    assert s.loc[("cpu-clock -F 997", 50, 1, "wilson"), "cases"] == 6  # cases without threads: one thread
    assert res.to_frame().shape == (24, 14)
    check_figure(res.plot(), series=3, units=("x", "y"))  # two methods and the nominal level


def test_paper_reproduction_result():
    res = reproduce(["3", "4", "6"], reps=30, seed=2)
    s = res.summary()
    assert list(s.index) == ["3", "4", "6"] and (s["max_abs_bias"] < 0.02).all()
    f = res.to_frame()
    assert f.columns[0] == "table" and len(f) == 12 + 5 + 15
    check_figure(res.plot(), series=3)
    check_figure(res.plot_means(), series=3)
    check_figure(res.plot_histogram(), series=2)
    with pytest.raises(Exception, match="Table 2, 3 or 4"):
        reproduce("5", reps=10).plot()


def test_table_numbers_do_not_depend_on_other_tables():
    """Streams are named after the set-up: Table 4 alone equals Table 4 run beside others."""
    alone = reproduce("4", reps=30, seed=7).tables["4"]
    beside = reproduce(["2", "4"], reps=30, seed=7).tables["4"]
    pd.testing.assert_frame_equal(alone, beside)
    assert not reproduce("4", reps=30, seed=8).tables["4"].equals(alone)


def test_same_seed_same_numbers_in_another_process():
    code = (
        "from hemkit.sampling.paper import reproduce; "
        "from hemkit.sampling import Workload, Task, Sampler, simulate_workload; "
        "print(reproduce('4', reps=40, seed=3).to_frame().to_csv()); "
        "w = Workload((Task('a', 0.4, 70, 'uniform'),), 20_000); "
        "print(simulate_workload(w, Sampler(100, jitter=2.0, noise=0.5), 25, seed=3).to_frame().to_csv())"
    )
    outs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout for _ in "ab"
    ]
    assert outs[0] == outs[1] and len(outs[0]) > 1000


def test_long_work_reports_progress():
    from hemkit.core.progress import RecordingProgress
    from hemkit.sampling import generate_states, simulate_profiles

    rec = RecordingProgress()
    rs = generate_states([Task("a", 0.5, 30)], 20_000, seed=0)
    simulate_profiles(rs, 100, 50, seed=1, progress=rec, max_chunk=2_000)  # 201 samples per profile: 9 per chunk
    done = [e for e in rec.events if e[0] == "simulated profiles"]
    assert [e[1] for e in done] == [9, 18, 27, 36, 45, 50] and done[-1][2] == 50
    rec = RecordingProgress()
    reproduce(["4", "5"], reps=10, progress=rec)
    assert [e[1] for e in rec.events] == [1, 2, 3, 4, 5] and rec.events[-1][2] == 5
    assert rec.events[0][3] == "Table 4" and rec.events[-1][3] == "Fig. 11"
    rec = RecordingProgress()
    read_samples(DATA / "libc_kernel.script.txt", progress=rec)
    assert rec.events[-1][3] == "325 samples"


def test_the_coverage_figure_counts_cases_not_cases_times_methods():
    """Each interval method is scored on every case: 2 cases, 3 methods are 2 cases (the title said 6)."""
    from hemkit.sampling.record import CoverageResult

    rows = [
        {"setting": "cpu-clock -c 500000", "granularity": g, "threads": 1, "method": m, "share": 0.3, "truth": 0.31}
        for g in (50, 500)
        for m in ("systematic", "wilson", "bound")
    ]
    cases = pd.DataFrame(rows).assign(low=0.25, high=0.35, covered=True, n=1000)
    res = CoverageResult(cases=cases, level=0.9, event="cpu-clock")
    assert res.plot().get_title().endswith("(2 cases)")
