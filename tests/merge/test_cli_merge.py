"""The merge and evaluate commands, run as a user runs them (subprocesses where the process matters)."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from hemkit.datasets import t2080_hrm, t2080_path, zen5_br_64kb
from hemkit.datasets.synthetic import make_truth, split_into_groups
from hemkit.plan import much_design


def hemkit(*args, cwd=None):
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", "hemkit", *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )


def test_holdout_is_byte_identical_in_two_processes():
    code = (
        "from hemkit.datasets import t2080_much\n"
        "from hemkit.evaluate import holdout\n"
        "import warnings; warnings.simplefilter('ignore')\n"
        "print(holdout(t2080_much(), ['much', 'copula'], seed=3).summary().to_csv())\n"
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600) for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout and "much" in runs[0].stdout


def test_evaluate_holdout_prints_the_same_twice():
    a = hemkit("evaluate", "holdout", "--methods", "much,copula", "--seed", "3", "-q")
    b = hemkit("evaluate", "holdout", "--methods", "much,copula", "--seed", "3", "-q")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert "much" in a.stdout and "copula" in a.stdout
    assert a.stdout.strip().splitlines()[-1].startswith("holdout: 24 groups of bundled T2080 MUCH data")


def test_merge_bundled_hrm_writes_the_reference(tmp_path):
    out = tmp_path / "hrm.csv"
    p = hemkit("merge", "--method", "hrm", "-o", out)
    assert p.returncode == 0, p.stderr
    last = p.stdout.strip().splitlines()[-1]
    assert last.startswith("hrm: read 3 groups (3000 runs, 16 events) from bundled T2080 HRM data")
    assert f"wrote {out}" in last
    merged = pd.read_csv(out)
    ref = pd.read_csv(t2080_path("hrm_merged_reference.csv"))
    np.testing.assert_array_equal(merged[ref.columns].to_numpy(), ref.to_numpy())


def test_merge_raw_input_paper_mode_with_intervals_and_plot(tmp_path):
    p = hemkit(
        "merge",
        t2080_path("much_raw.csv"),
        "--pmcs",
        "6",
        "--codes",
        t2080_path("code2name.csv"),
        "-m",
        "much",
        "--mode",
        "paper",
        "--rows",
        "1000",
        "-o",
        tmp_path / "much.parquet",
        "--pair-intervals",
        tmp_path / "pairs.csv",
        "--plot",
        tmp_path / "pairs.png",
        "-q",
    )
    assert p.returncode == 0, p.stderr
    merged = pd.read_parquet(tmp_path / "much.parquet")
    assert merged.shape == (1000, 16) and "L2_MISSES" in merged.columns
    iv = pd.read_csv(tmp_path / "pairs.csv")
    assert list(iv.columns) == ["event_a", "event_b", "estimate", "lower", "upper", "runs_together"] and len(iv) == 120
    assert (tmp_path / "pairs.png").stat().st_size > 5000


def test_merge_says_why_the_copula_writes_every_reading(cli, tmp_path):
    res = cli(["merge", "-m", "copula", "--pearson-weight", "0", "-o", tmp_path / "c.csv", "-q"])
    assert res.exit_code == 0, res.stderr
    assert "merged into 24000 rows: every reading of the most-read event" in res.stdout


def test_merge_several_files_and_evaluate_against_truth(cli, tmp_path):
    truth = make_truth(6, 3000, seed=0)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    r = split_into_groups(truth, much_design(list(truth.columns), 3), 100, seed=0)
    tidy = r.to_tidy()
    files = []
    for g, part in tidy.groupby("group"):
        f = tmp_path / f"g{g}.csv"
        part.to_csv(f, index=False)
        files.append(f)
    res = cli(["merge", *files[:1], "-o", tmp_path / "one.csv", "-q"])  # one group is fine too
    assert res.exit_code == 0, res.stderr
    tidy.to_csv(tmp_path / "groups.csv", index=False)
    res = cli(["merge", tmp_path / "groups.csv", "-o", tmp_path / "m.csv", "-q"])
    assert res.exit_code == 0, res.stderr
    res = cli(
        [
            "evaluate",
            "pairs",
            tmp_path / "m.csv",
            "--truth",
            tmp_path / "truth.csv",
            "--plot",
            tmp_path / "f.png",
            "-o",
            tmp_path / "pairs.csv",
        ]
    )
    assert res.exit_code == 0, res.stderr
    pairs = pd.read_csv(tmp_path / "pairs.csv")
    assert len(pairs) == 15 and (tmp_path / "f.png").stat().st_size > 5000
    assert pairs["diff_pearson"].abs().max() < 0.5
    # grouped readings as the reference: their observed pairwise correlations
    res = cli(["evaluate", "pairs", tmp_path / "m.csv", "--truth", tmp_path / "groups.csv"])
    assert res.exit_code == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1].startswith("evaluate: 15 pairs of")


def test_evaluate_study_on_the_bundled_truth(cli, tmp_path):
    res = cli(
        ["evaluate", "study", "--methods", "joint", "--pmcs", "4", "--splits", "1", "--reps", "1", "--level", "0.9"]
        + ["-o", tmp_path / "study.csv", "-q"]
    )
    assert res.exit_code == 0, res.stderr
    table = pd.read_csv(tmp_path / "study.csv")
    assert set(table["method"]) == {"much-paper", "joint"} and "coverage" in table.columns
    assert "bundled Zen 5 br_64kb truth (800 runs, 8 events)" in res.stdout


def test_evaluate_draws_the_much_diagnostics(cli, tmp_path):
    res = cli(["evaluate", "diagnostics", "--plot-design", tmp_path / "f7.png", "-q"])
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "f7.png").stat().st_size > 5000


def test_drop_constant_on_a_raw_file(cli, tmp_path):
    raw = tmp_path / "raw.csv"
    raw.write_text("X1,X2,X1.1,X3\n" + "".join(f"{10 + r},{(r * 7) % 5},{20 + r},5\n" for r in range(40)))
    res = cli(["merge", raw, "--pmcs", "2", "-m", "much", "--n-sims", "30", "--impute", "maxdet"])
    assert res.exit_code == 2 and "event 'X3' is constant (5)" in res.stderr
    res = cli(["merge", raw, "--pmcs", "2", "-m", "much", "--n-sims", "30", "--drop-constant", "-q"])
    assert res.exit_code == 0, res.stderr
    assert "dropped constant event(s) 'X3'" in res.stderr
    assert "merged into" in res.stdout and "dropped: 1 constant event(s) in 1 group(s) ('X3')" in res.stdout


def test_few_simulations_warn(cli):
    res = cli(["merge", "-m", "much", "--n-sims", "5", "--rows", "500", "-q"])
    assert res.exit_code == 0, res.stderr
    assert "hemkit: warning: --n-sims 5 is below 30" in res.stderr


def test_a_level_with_nothing_to_hold_intervals_is_said_ignored(cli, tmp_path):
    """--level sets the intervals of --pair-intervals and --plot: given alone it changes nothing, and says so."""
    res = cli(["merge", "-m", "copula", "--rows", "500", "--level", "0.8", "-q"])
    assert res.exit_code == 0, res.stderr
    assert "hemkit: warning: --level 0.8 ignored: only --pair-intervals and --plot hold intervals" in res.stderr
    res = cli(["merge", "-m", "copula", "--rows", "500", "--level", "0.8", "--pair-intervals", tmp_path / "p.csv"])
    assert res.exit_code == 0 and "ignored" not in res.stderr, res.stderr
    res = cli(["merge", "-m", "copula", "--rows", "500", "-q"])  # the default level: nothing to say
    assert res.exit_code == 0 and "ignored" not in res.stderr, res.stderr


@pytest.mark.parametrize("method", ["joint", "copula", "much"])
def test_every_method_merges_the_real_truth_split(cli, tmp_path, method):
    from hemkit.datasets import split_truth

    split_truth(zen5_br_64kb(), 4, seed=0).to_tidy().to_csv(tmp_path / "r.csv", index=False)
    res = cli(["merge", tmp_path / "r.csv", "-m", method, "--pair-intervals", tmp_path / "iv.csv", "-q"])
    assert res.exit_code == 0, res.stderr
    assert len(pd.read_csv(tmp_path / "iv.csv")) == 28


def test_hrm_of_user_data_needs_an_anchor(cli, tmp_path):
    t2080_hrm().to_tidy().to_csv(tmp_path / "h.csv", index=False)
    res = cli(["merge", tmp_path / "h.csv", "-m", "hrm", "--anchor", "PROCESSOR_CYCLES", "-q"])
    assert res.exit_code == 0, res.stderr


def test_a_folder_of_perf_stat_files_merges(cli, tmp_path):
    # 3 event groups x 8 runs of real 'perf stat -x,' output (software events), one run per file
    from pathlib import Path

    files = sorted((Path(__file__).parent / "data" / "perf_runs").glob("run_*.csv"))
    assert len(files) == 24
    res = cli(["merge", *files, "-m", "much", "--n-sims", "30", "--pair-intervals", tmp_path / "pi.csv", "-q"])
    assert res.exit_code == 0, res.stderr
    last = res.stdout.strip().splitlines()[-1]
    assert "read 3 groups (24 runs, 4 events) from 24 files (run_01.csv ... run_24.csv)" in last
    assert len(pd.read_csv(tmp_path / "pi.csv")) == 6
    res = cli(["evaluate", "holdout", *files, "--methods", "much,joint", "-q"])
    assert res.exit_code == 0, res.stderr


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["--plot-design", "{d}/f7.png"], "diagnostics"),
        (["--study", "--methods", "joint", "--pmcs", "4", "--splits", "1", "--reps", "1"], "study"),
        (["--holdout", "{d}/runs.csv", "--methods", "joint", "--seed", "3"], "holdout"),
        (["{d}/truth.csv", "--truth", "{d}/truth.csv", "-o", "{d}/pairs.csv"], "pairs"),
    ],
    ids=["diagnostics", "study", "holdout", "pairs"],
)
def test_evaluate_flag_forms_still_work_and_say_the_subcommand(cli, tmp_path, old, new):
    from hemkit.datasets import split_truth

    split_truth(zen5_br_64kb(), 4, seed=0).to_tidy().to_csv(tmp_path / "runs.csv", index=False)
    zen5_br_64kb().to_csv(tmp_path / "truth.csv", index=False)
    args = [a.format(d=tmp_path) for a in old]
    res = cli(["evaluate", *args, "-q"] if new != "pairs" else ["evaluate", *args])
    assert res.exit_code == 0, res.stderr
    flag = "MERGED --truth TRUTH" if new == "pairs" else old[0]
    assert f"hemkit: warning: hemkit evaluate {flag} is deprecated; use hemkit evaluate {new}\n" in res.stderr
    modern = [a for a in args if a not in ("--holdout", "--study")]
    again = cli(["evaluate", new, *modern, "-q"] if new != "pairs" else ["evaluate", new, *modern])
    assert again.exit_code == 0 and "deprecated" not in again.stderr
    assert again.stdout == res.stdout


def test_merge_factor_option_reaches_the_joint_merge(tmp_path):
    # --factor 0 turns the factor blend off: the merged table differs from the default's ("auto") and a fixed weight's
    outs = {}
    for flag in ("0", "0.35", "auto"):
        out = tmp_path / f"m{flag}.csv"
        p = hemkit("merge", "--method", "joint", "--factor", flag, "--rows", 400, "--seed", 1, "-q", "-o", out)
        assert p.returncode == 0, p.stderr
        outs[flag] = pd.read_csv(out)
    assert outs["0"].shape == outs["0.35"].shape
    corr = {k: np.corrcoef(v.to_numpy().T) for k, v in outs.items()}
    assert not np.allclose(corr["0"], corr["0.35"]) and not np.allclose(corr["0"], corr["auto"])
    for wrong in ("1.5", "many"):
        bad = hemkit("merge", "--method", "joint", "--factor", wrong, "-q", "-o", tmp_path / "x.csv")
        assert bad.returncode == 2 and not (tmp_path / "x.csv").exists()
        assert "--factor" in bad.stderr and "Traceback" not in bad.stderr


def test_a_small_merge_says_its_readings_are_spread_over_more_rows(cli, tmp_path):
    """The joint merge makes at least JointOptions.min_rows rows; the message must not call that a cap."""
    from hemkit.merge.joint import MIN_ROWS

    raw = tmp_path / "tidy.csv"
    rng = np.random.default_rng(0)
    rows = []  # groups (A, B), (A, C), (B, C) of 60 runs each
    for g, pair in enumerate([("A", "B"), ("A", "C"), ("B", "C")]):
        for run in range(60):
            rows += [f"{g},{g * 60 + run},{e},{rng.gamma(4, 100):.0f}" for e in pair]
    raw.write_text("group,run,event,value\n" + "\n".join(rows) + "\n")
    res = cli(["merge", raw, "-o", tmp_path / "m.csv"])
    assert res.exit_code == 0, res.stderr
    assert f"merged into {MIN_ROWS} rows (the most-read event has" in res.stdout
    assert "spread evenly over them; pass --rows to choose" in res.stdout and "capped" not in res.stdout
    assert len(pd.read_csv(tmp_path / "m.csv")) == MIN_ROWS
    res = cli(["merge", raw, "--rows", "100", "-o", tmp_path / "m100.csv"])
    assert res.exit_code == 0, res.stderr
    assert len(pd.read_csv(tmp_path / "m100.csv")) == 100


def test_evaluate_study_reads_a_collection_of_every_event_at_once(cli, tmp_path):
    # what a user records as truth: one plan group of every event (software events have no counter
    # limit), exported tidy; a tracepoint that never fired is constant
    truth = zen5_br_64kb().iloc[:120, :4].reset_index(drop=True).assign(never=0)
    from hemkit.core.readings import Readings

    Readings({0: truth}).to_tidy().to_csv(tmp_path / "c.csv", index=False)
    args = ["evaluate", "study", "--truth", tmp_path / "c.csv", "--methods", "joint", "--pmcs", "3"]
    args += ["--splits", "1", "--reps", "1", "-q"]
    res = cli(args)
    assert res.exit_code == 2 and "'never' is constant" in res.stderr and "pass --drop-constant" in res.stderr
    res = cli([*args, "--drop-constant"])
    assert res.exit_code == 0, res.stderr
    assert "(120 runs, 4 events)" in res.stdout and "dropped: 1 constant event(s) ('never')" in res.stdout


def test_evaluate_study_imputes_for_the_reference_too(cli, tmp_path):
    # a count that fires in one run only is constant in every group without that run, so some of its
    # pairs are never read together: --impute maxdet must reach the reference (much-paper), which the
    # study adds to the methods, or the error that names --impute comes back with it given
    rng = np.random.default_rng(0)
    truth = pd.DataFrame(rng.normal(100, 10, (60, 3)), columns=["a", "b", "c"]).assign(rare=0.0)
    truth.loc[7, "rare"] = 1.0
    truth.to_csv(tmp_path / "t.csv", index=False)
    args = ["evaluate", "study", "--truth", tmp_path / "t.csv", "--methods", "joint", "--pmcs", "3"]
    args += ["--splits", "1", "--reps", "1", "-q"]
    res = cli(args)
    assert res.exit_code == 2 and "never read together" in res.stderr and "--impute maxdet" in res.stderr
    res = cli([*args, "--impute", "maxdet"])
    assert res.exit_code == 0, res.stderr
    assert "much-paper" in res.stdout and "joint" in res.stdout


def test_evaluate_summaries_name_the_constant_events_dropped(cli, tmp_path):
    # holdout and pairs said 'dropped: nothing' after dropping a constant event of the readings
    raw = tmp_path / "raw.csv"
    raw.write_text("X1,X2,X1.1,X3\n" + "".join(f"{10 + r},{(r * 7) % 5},{20 + r},5\n" for r in range(40)))
    res = cli(["evaluate", "holdout", raw, "--pmcs", "2", "--methods", "much", "--drop-constant", "--impute", "maxdet"])
    assert res.exit_code == 0, res.stderr
    assert "dropped: 1 constant event(s) in 1 group(s) ('X3')" in res.stdout.splitlines()[-1]
    merged = tmp_path / "m.csv"
    pd.DataFrame({"X1": np.arange(30.0), "X2": np.arange(30.0) % 7}).to_csv(merged, index=False)
    res = cli(["evaluate", "pairs", merged, "--truth", raw, "--pmcs", "2", "--drop-constant"])
    assert res.exit_code == 0, res.stderr
    assert "X3" in res.stderr and res.stdout.splitlines()[-1].endswith(
        f"; dropped: constant event(s) 'X3' ({raw}: group 2)"
    )


def _hrm_collection(path, runs=12):
    """A finished collection of an HRM plan (anchor 'task-clock' in every group), made without perf."""
    from hemkit.io.collection import CollectionDB, StoredRun, WriterLock
    from hemkit.plan import Plan

    groups = [["task-clock", "a", "b"], ["task-clock", "c", "d"]]
    plan = Plan(groups, design="hrm", pmcs=3, anchor="task-clock")
    rng = np.random.default_rng(0)
    with (
        WriterLock(path) as lock,
        CollectionDB.create(path, groups, {"runs": runs, "plan": plan.to_dict()}, lock=lock) as db,
    ):
        for rep in range(runs):
            for gid, events in enumerate(groups):
                base = rng.normal(1000, 50)
                values = [abs(base * (i + 1) + rng.normal(0, 30)) for i in range(len(events))]
                counts = pd.DataFrame({"event": events, "value": values, "percent": 100.0, "run_time_ns": 1e6})
                db.record_run(StoredRun(gid, rep), counts.assign(status="ok"))
    return path


def test_an_hrm_collection_is_merged_by_its_plans_anchor(cli, bad_input, tmp_path):
    """The anchor of the plan a collection was collected by is the anchor of -m hrm (and the report's)."""
    db = _hrm_collection(tmp_path / "h.db")
    res = cli(["merge", db, "-m", "hrm", "-o", tmp_path / "m.csv", "-q"])
    assert res.exit_code == 0, res.stderr
    given = cli(["merge", db, "-m", "hrm", "--anchor", "task-clock", "-o", tmp_path / "g.csv", "-q"])
    assert given.exit_code == 0, given.stderr
    assert (tmp_path / "m.csv").read_bytes() == (tmp_path / "g.csv").read_bytes()
    res = cli(["report", db, "--method", "hrm", "-o", tmp_path / "r.html", "-q"])
    assert res.exit_code == 0, res.stderr
    # a table names no plan: the anchor is still asked for
    (tmp_path / "t").mkdir()
    assert cli(["export", db, "-o", tmp_path / "t" / "h.csv", "-q"]).exit_code == 0
    bad_input(["merge", tmp_path / "t" / "h.csv", "-m", "hrm"], names=["--anchor", "names none"], watch=[tmp_path])


def test_the_summary_line_says_which_runs_were_dropped_and_why(cli, tmp_path):
    """It said 'dropped: 2 (see warnings)': what was dropped, and why, is now in the line itself (the first three)."""
    import shutil
    from pathlib import Path

    runs = tmp_path / "runs"
    shutil.copytree(Path(__file__).parents[1] / "io" / "data" / "runs_csv", runs)
    for k in (4, 7, 10, 13):  # perf scaled task-clock: multiplexed runs, dropped with --unusable drop
        f = runs / f"run_{k:02d}.csv"
        f.write_text(f.read_text().replace("100.00", "87.00", 1))
    res = cli(["merge", runs, "-m", "much", "--unusable", "drop", "-q"])
    assert res.exit_code == 0, res.stderr
    last = res.stdout.splitlines()[-1]
    said = "run 'run_{:02d}' (event 'task-clock' was multiplexed)"
    assert last.endswith("; dropped: " + "; ".join(said.format(k) for k in (4, 7, 10)) + "; 1 more (see warnings)"), (
        last
    )
    assert len([x for x in res.stderr.splitlines() if "dropped run" in x]) == 4 and "run_13" in res.stderr
