"""The ``hemkit mpx`` commands end to end: recorded fixtures, real perf where it counts, the user's environment."""

import os
import shlex
import shutil
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

DATA = Path(__file__).parent / "data"
ZEN5 = sorted(str(p) for p in DATA.glob("zen5_*.csv"))


def test_emulate_estimate_with_the_default_estimator(cli, tmp_path):
    mpx = tmp_path / "m.parquet"
    r = cli(["mpx", "emulate", *ZEN5, "--pmcs", 2, "-o", mpx])
    assert r.exit_code == 0, r.stderr
    assert "5 runs of 2 workload(s): zen5_phases (3 runs), zen5_py (2 runs)" in r.stdout
    assert "40% of the time" in r.stdout and "2^47" in r.stderr  # the wrap-around is said
    out = tmp_path / "e.csv"
    r = cli(["mpx", "estimate", mpx, "-o", out])
    assert r.exit_code == 0, r.stderr
    assert "checked estimates" in r.stdout
    est = pd.read_csv(out)
    assert len(est) == len(pd.read_parquet(mpx)) and est["estimate"].notna().all()


def test_counters_is_a_deprecated_alias_of_pmcs(cli, tmp_path):
    r = cli(["mpx", "emulate", ZEN5[0], "-c", 3, "-o", tmp_path / "m.csv"])
    assert r.exit_code == 0, r.stderr
    assert "60% of the time" in r.stdout and "deprecated" in r.stderr.lower()
    r = cli(["mpx", "emulate", ZEN5[0], "--pmcs", 3, "-o", tmp_path / "m.csv"])
    assert "deprecated" not in r.stderr.lower()


def test_estimate_reads_multiplexed_perf_output(cli, tmp_path):
    text = "\n".join(
        [
            "# started on Mon Nov 23 10:00:00 2026",
            "",
            "     0.010000000,4000,,instructions,2500000,25.00,,",
            "     0.010000000,<not counted>,,branches,0,0.00,,",
            "     0.020000000,<not counted>,,instructions,0,0.00,,",
            "     0.020000000,900,,branches,5000000,50.00,,",
            "     0.030000000,2000,,instructions,10000000,100.00,,",
            "     0.030000000,800,,branches,10000000,100.00,,",
        ]
    )
    src = tmp_path / "mpx_r1.csv"
    src.write_text(text + "\n")
    out = tmp_path / "e.csv"
    r = cli(["mpx", "estimate", src, "-m", "fixed", "-o", out])
    assert r.exit_code == 0, r.stderr
    est = pd.read_csv(out).set_index(["event", "step"])["estimate"]
    assert est[("instructions", 0)] == pytest.approx(4000)  # perf's own scaled value, kept
    assert est[("instructions", 1)] == pytest.approx(4000)  # <not counted>: the last rate holds
    assert est[("branches", 0)] == pytest.approx(900) and est[("instructions", 2)] == 2000
    r = cli(["mpx", "estimate", src, "-o", out])  # the default, checked
    assert r.exit_code == 0 and "checked" in r.stdout


def test_estimate_of_traces_not_multiplexed_says_all_the_time_the_program_ran_was_counted(cli, tmp_path):
    """It said 'on a counter 75% of the time', the other 25 % being intervals the program did not run."""
    lines = ["# started on Mon Nov 23 10:00:00 2026", ""]
    for step in range(4):
        t = f"     0.0{step + 1}0000000"
        if step == 2:  # sleeping: perf prints <not counted> with no running time (and 100.00, as it does)
            lines += [f"{t},<not counted>,msec,task-clock,0,100.00,,", f"{t},<not counted>,,page-faults,0,100.00,,"]
        else:
            lines += [
                f"{t},4.{step},msec,task-clock,4000000,100.00,,",
                f"{t},{300 + step},,page-faults,4000000,100.00,,",
            ]
    src = tmp_path / "sleepy_r1.csv"
    src.write_text("\n".join(lines) + "\n")
    r = cli(["mpx", "estimate", src, "-m", "fixed", "-o", tmp_path / "e.csv"])
    assert r.exit_code == 0, r.stderr
    assert (
        "read 2 series of 1 run(s), on a counter all the time the program ran (75% of the intervals; in the rest it "
        "did not run and counts 0)" in r.stdout
    )


def test_score_ranks_all_three_with_run_to_run_and_a_figure(cli, tmp_path):
    png, ra, scores = tmp_path / "f.png", tmp_path / "ra.png", tmp_path / "s.csv"
    args = ["mpx", "score", *ZEN5, "--pmcs", 2, "-m", "fixed", "-m", "min", "-m", "phase"]
    r = cli([*args, "--plot", png, "--plot-ra", ra, "-o", scores])
    assert r.exit_code == 0, r.stderr
    for words in ("ranked on all three", "median |total error|", "run-to-run Pearson r", "best ranked:"):
        assert words in r.stdout
    assert png.stat().st_size > 10_000 and ra.stat().st_size > 5_000
    table = pd.read_csv(scores)
    assert set(table["estimator"]) == {"fixed", "min", "phase"}
    assert {"ra", "dtw", "total_error"} <= set(table.columns)
    # the three runs of phases named one workload (all five, of two programs, are refused: test_traces.py)
    r = cli(["mpx", "score", *ZEN5[:3], "--pmcs", 2, "-m", "fixed", "--workload", "all-one", "--no-dtw"])
    assert r.exit_code == 0 and "1 workload(s): all-one (3 runs)" in r.stdout, r.stderr


def test_score_of_one_run_shows_no_empty_run_to_run_table(cli):
    """One run has no pair to correlate: the table came out as 'Empty DataFrame / Columns: [] / Index: []'."""
    r = cli(["mpx", "score", ZEN5[0], "--no-dtw", "-q"])
    assert r.exit_code == 0, r.stderr
    assert "Empty DataFrame" not in r.stdout and "run-to-run" not in r.stdout
    assert "best ranked:" in r.stdout


def test_score_writes_the_same_svg_and_pdf_figures_twice(cli, tmp_path):
    """SVG and PDF figures held the time of writing (and SVG random ids): the same command, different files."""
    files = []
    for k in (1, 2):
        svg, pdf = tmp_path / f"f{k}.svg", tmp_path / f"ra{k}.pdf"
        r = cli(
            ["mpx", "score", *ZEN5[:2], "--no-dtw", "-q", "-m", "fixed", "-m", "min", "--plot", svg, "--plot-ra", pdf]
        )
        assert r.exit_code == 0, r.stderr
        files.append((svg.read_bytes(), pdf.read_bytes()))
    assert files[0][0] == files[1][0]
    assert files[0][1] == files[1][1]


def test_a_workload_a_file_overrides_is_said(cli, tmp_path):
    """-w other on 'mpx emulate' output (which has a workload column) was dropped without a word."""
    mpx = tmp_path / "m.csv"
    assert cli(["mpx", "emulate", ZEN5[0], "-o", mpx]).exit_code == 0
    for option in (["-w", "other"], ["--workload-pattern", "(.+)"]):
        r = cli(["mpx", "estimate", mpx, "-m", "fixed", "-o", tmp_path / "e.csv", *option])
        assert r.exit_code == 0, r.stderr
        assert "hemkit: warning: " in r.stderr and f"{option[1]!r} is not used" in r.stderr and "m.csv" in r.stderr
    r = cli(["mpx", "estimate", mpx, "-m", "fixed", "-o", tmp_path / "e.csv"])
    assert "warning" not in r.stderr


def test_fit_shows_epochs_and_validation_scores_then_scores_the_model(cli, tmp_path):
    pytest.importorskip("torch")
    model = tmp_path / "mlp.pt"
    r = cli(["mpx", "fit", *ZEN5, "--epochs", 2, "--pmcs", 2, "--no-clean", "-o", model])
    assert r.exit_code == 0, r.stderr
    for words in ("train_loss", "validation_loss", "scores on the validation", "validation: mlp", "err cut"):
        assert words in r.stdout
    assert model.stat().st_size > 1000
    r = cli(["mpx", "score", *ZEN5, "--no-clean", "--no-dtw", "-m", "fixed", "-m", model])
    assert r.exit_code == 0, r.stderr
    assert "mlp" in r.stdout


def test_fit_without_validation_or_test_part_shows_no_empty_score_table(cli, tmp_path):
    """--split 1:0:0 printed 'Empty DataFrame / Columns: [RA, err cut, DTW, tot err] / Index: []'."""
    pytest.importorskip("torch")
    r = cli(
        [
            "mpx",
            "fit",
            *ZEN5,
            "--epochs",
            1,
            "--pmcs",
            2,
            "--no-clean",
            "--split",
            "1:0:0",
            "-q",
            "-o",
            tmp_path / "m.pt",
        ]
    )
    assert r.exit_code == 0, r.stderr
    assert "Empty DataFrame" not in r.stdout and "scores on the validation" not in r.stdout
    assert "trained mlp for 1 epochs" in r.stdout


def test_fit_with_the_same_seed_writes_the_same_model_file(cli, tmp_path):
    """torch.save named its zip records after the random temporary file: same seed, different bytes."""
    pytest.importorskip("torch")
    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    for model in (a, b, a):
        r = cli(["mpx", "fit", *ZEN5, "--epochs", 1, "--pmcs", 2, "--no-clean", "--seed", 3, "-q", "-o", model])
        assert r.exit_code == 0, r.stderr
        if model == b:
            first = a.read_bytes()
            assert b.read_bytes() == first
    assert a.read_bytes() == first  # written again under its own name


# ---------------------------------------------------------------------------- recording with real perf
def _trace(cli, tmp_path, *command, extra=()):
    return cli(["mpx", "trace", "-e", "task-clock,page-faults", "-o", tmp_path / "t", *extra, "--", *command])


def test_trace_writes_exactly_perfs_format(cli, tmp_path, software_perf):
    r = _trace(
        cli, tmp_path, "dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=300", extra=["--runs", 2, "-w", "dd"]
    )
    assert r.exit_code == 0, r.stderr
    files = sorted((tmp_path / "t").iterdir())
    assert [f.name for f in files] == ["dd_r1.csv", "dd_r2.csv"]
    text = files[0].read_text()
    assert text.startswith("# started on")
    line = next(x for x in text.splitlines() if "task-clock" in x)
    assert len(line.split(",")) == 8 and line.split(",")[2] == "msec"  # time,value,unit,event,run,pct,metric,unit
    from hemkit.io.traces import read_trace

    tr = read_trace(tmp_path / "t")
    assert set(tr["workload"]) == {"dd"} and (tr["percent"] == 100).all()
    r = _trace(cli, tmp_path, "dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=50", extra=["-w", "dd"])
    assert r.exit_code == 0 and "dd_r3.csv" in r.stdout  # numbered after the runs already there


def test_trace_runs_the_program_in_the_users_environment(cli, tmp_path, software_perf, monkeypatch):
    """A python3 first on the user's PATH is the one measured (fails before issue 14: perf put /usr/bin first)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "marker.txt"
    fake = bin_dir / "python3"
    fake.write_text(f'#!/bin/sh\necho "$PATH" > {marker}\npwd >> {marker}\nexec {shutil.which("sleep")} 0.05\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("PREFIX", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    r = cli(["mpx", "trace", "-e", "task-clock", "-o", tmp_path / "t", "--", "python3", "-c", "pass"], cwd=work)
    assert r.exit_code == 0, r.stderr
    path, cwd = marker.read_text().splitlines()
    assert path == os.environ["PATH"] and Path(cwd) == work  # PATH exactly the user's, and the user's folder


def _listed(folder):
    """Each file's events in the order perf wrote them (its -e order)."""
    out = {}
    for f in sorted(folder.iterdir()):
        names = [x.split(",")[3] for x in f.read_text().splitlines() if x.strip() and not x.startswith("#")]
        out[f.name] = list(dict.fromkeys(names))
    return out


def test_an_unknown_event_leaves_no_folder_and_an_existing_one_as_it_was(cli, bad_input, tmp_path, software_perf):
    out = tmp_path / "new"
    bad_input(["mpx", "trace", "-e", "task-clok", "-o", out, "--", "true"], names=["'task-clok'", "perf list"])
    assert not out.exists()
    old = tmp_path / "old"
    old.mkdir()
    (old / "keep.csv").write_text("x")
    bad_input(["mpx", "trace", "-e", "task-clok", "-o", old, "--", "true"], names=["'task-clok'"], watch=[old])


def test_an_unknown_event_after_others_is_named_in_full_with_the_closest(bad_input, tmp_path, software_perf):
    """perf shows a cut piece of the -e list (the message said '..-clock,page-fault'): each refused event of every
    set is named in full, with the closest names, before a run."""
    sets = ["-e", "task-clock,page-fault", "-e", "context-switches,kmem:kmallok"]
    r = bad_input(["mpx", "trace", *sets, "-o", tmp_path / "t", "--", "true"], names=["'page-fault'", "'kmem:kmallok'"])
    assert "(closest: page-faults" in r and "..-clock" not in r
    assert not (tmp_path / "t").exists()


def test_trace_lists_each_run_from_another_event_unless_told_otherwise(cli, tmp_path, software_perf):
    """perf multiplexes from the first events listed: run k lists the set from its k-th event (BENCHMARKS.md:
    pooled totals 13-15 % closer, each run's unseen start filled from the others)."""
    dd = ["dd", "if=/dev/zero", "of=/dev/null", "bs=64k", "count=20000"]
    ev = "task-clock,page-faults,minor-faults"
    r = cli(["mpx", "trace", "-e", ev, "--runs", 4, "-o", tmp_path / "v", "-q", "--", *dd])
    assert r.exit_code == 0, r.stderr
    a, b, c = ev.split(",")
    assert _listed(tmp_path / "v") == {
        "dd_r1.csv": [a, b, c],
        "dd_r2.csv": [b, c, a],
        "dd_r3.csv": [c, a, b],
        "dd_r4.csv": [a, b, c],
    }
    r = cli(["mpx", "trace", "-e", ev, "--runs", 2, "-o", tmp_path / "v", "-q", "--", *dd])
    assert r.exit_code == 0 and _listed(tmp_path / "v")["dd_r5.csv"] == [b, c, a]  # numbered on, rotated on
    r = cli(["mpx", "trace", "-e", ev, "--runs", 2, "--same-order", "-o", tmp_path / "s", "-q", "--", *dd])
    assert r.exit_code == 0, r.stderr
    assert list(_listed(tmp_path / "s").values()) == [[a, b, c]] * 2


def test_a_failing_program_is_an_error_naming_it(cli, bad_input, tmp_path, software_perf):
    out = tmp_path / "t"
    bad_input(["mpx", "trace", "-e", "task-clock", "-o", out, "--", "false"], names=["'false'", "exit code 1"])
    bad_input(
        ["mpx", "trace", "-e", "task-clock", "-o", out, "--", "sh", "-c", "sleep 0.3; kill -9 $$"],
        names=["'sh'", "killed by signal SIGKILL"],
    )
    assert not out.exists()  # nothing recorded: no folder left behind either
    r = _trace(cli, tmp_path, "sh", "-c", "sleep 0.05; exit 3", extra=["--allow-failure"])
    assert r.exit_code == 0, r.stderr
    assert "exit code 3" in r.stdout


def test_trace_failing_in_a_later_run_says_which_files_stay_and_how_to_record_the_rest(cli, tmp_path, software_perf):
    """The program failed in run 3 of 4 without --allow-failure: runs 1 and 2's files stayed, unsaid."""
    count = tmp_path / "count"
    script = f"n=$(cat {count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {count}; sleep 0.05; [ $n -lt 3 ]"
    out = tmp_path / "t"
    r = _trace(cli, tmp_path, "sh", "-c", script, extra=["--runs", 4, "-w", "prog", "-q"])
    assert r.exit_code == 2
    assert sorted(p.name for p in out.iterdir()) == ["prog_r1.csv", "prog_r2.csv"]
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 2 and "Traceback" not in r.stderr, r.stderr
    error = "hemkit: error: the measured program 'sh' failed: exit code 1; fix it, or keep such runs"
    assert lines[1] == error + "; pass --allow-failure"
    rest = shlex.join(["hemkit", "mpx", "trace", "-e", "task-clock,page-faults", "--runs", "2", "-w", "prog"])
    assert lines[0] == (
        f"hemkit: kept 2 of 4 runs in {out} (prog_r1.csv .. prog_r2.csv); record the rest with: {rest} -o {out} -- "
        + shlex.join(["sh", "-c", script])
    )
    assert r.stdout.startswith(f"wrote 2 trace file(s) in {out} (prog_r1.csv .. prog_r2.csv)")


# ---------------------------------------------------------------------------- totals with intervals
def _totals_ok(path, series):
    t = pd.read_csv(path)
    assert list(t.columns[:6]) == ["run", "event", "total", "lower", "upper", "perf_total"] or list(t.columns[1:7]) == [
        "run",
        "event",
        "total",
        "lower",
        "upper",
        "perf_total",
    ]
    assert len(t) == series
    assert ((t["lower"] <= t["total"]) & (t["total"] <= t["upper"]) & (t["lower"] >= 0)).all()
    return t


def test_estimate_writes_totals_with_intervals_holding_the_truth(cli, tmp_path):
    """From 'mpx emulate' output (which keeps the truth beside): the default estimator's 90 % intervals."""
    from hemkit.mpx import read_multiplexed

    mpx = tmp_path / "m.csv"
    assert cli(["mpx", "emulate", *ZEN5[:3], "--pmcs", 2, "-o", mpx]).exit_code == 0
    out, tot = tmp_path / "e.csv", tmp_path / "t.csv"
    r = cli(["mpx", "estimate", mpx, "-o", out, "--totals", tot])
    assert r.exit_code == 0, r.stderr
    from hemkit.mpx import DEFAULT_ESTIMATOR as D

    assert f"totals with 0.9 intervals ({D})" in r.stdout and f"{tot}: 15 {D} totals with 0.9 intervals" in r.stdout
    m = read_multiplexed(mpx)
    t = _totals_ok(tot, len(m.keys))
    truth = m.keys.assign(truth=np.nansum(np.where(m.valid, m.truth, np.nan), axis=1))
    t = t.merge(truth[["run", "event", "truth"]], on=["run", "event"])
    # 15 series: not a coverage study (benchmarks/mpx_intervals.py is), but most must hold their truth
    assert ((t["truth"] >= t["lower"]) & (t["truth"] <= t["upper"])).mean() >= 0.6
    np.testing.assert_allclose(t["perf_total"], m.perf_totals()[: len(t)], rtol=1e-9)
    r = cli(["mpx", "estimate", mpx, "-o", out, "--totals", tmp_path / "t.parquet", "--level", 0.5])
    assert r.exit_code == 0, r.stderr
    narrow = pd.read_parquet(tmp_path / "t.parquet")
    assert ((narrow["upper"] - narrow["lower"]) <= (t["upper"] - t["lower"]) + 1e-6).all()


def test_estimate_pools_the_totals_of_a_workloads_runs_unless_per_run(cli, tmp_path):
    """Three runs of one workload (zen5_phases_r1-3): pooled by default, each on its own with --per-run."""
    mpx = tmp_path / "m.csv"
    assert cli(["mpx", "emulate", *ZEN5[:3], "--pmcs", 2, "-o", mpx]).exit_code == 0
    pooled, own = tmp_path / "pooled.csv", tmp_path / "own.csv"
    r = cli(["mpx", "estimate", mpx, "-o", tmp_path / "e.csv", "--totals", pooled])
    assert r.exit_code == 0, r.stderr
    p = _totals_ok(pooled, 15)
    assert p["workload"].nunique() == 1 and (p["runs_pooled"] > 1).any() and "pooled over the runs" in r.stdout
    r = cli(["mpx", "estimate", mpx, "-o", tmp_path / "e2.csv", "--totals", own, "--per-run"])
    assert r.exit_code == 0, r.stderr
    o = _totals_ok(own, 15)
    assert (o["runs_pooled"] == 1).all() and "pooled" not in r.stdout
    np.testing.assert_allclose(o["total"], o["run_total"])
    np.testing.assert_allclose(p["run_total"], o["total"])  # the run's own total is kept beside the pooled one
    moved = p["runs_pooled"] > 1
    assert (p.loc[moved, "total"] != p.loc[moved, "run_total"]).any()


def test_estimate_totals_of_real_multiplexed_perf_output(cli, tmp_path):
    """perf's own percentages: every interval partly counted; the totals' intervals are around perf's scaling."""
    rows = ["# started on Mon Nov 23 10:00:00 2026", ""]
    for k in range(40):
        t = 0.01 * (k + 1)
        pct = (40.0, 60.0) if k % 2 else (60.0, 40.0)
        for e, rate, p in (("instructions", 5000 + 300 * (k % 5), pct[0]), ("branches", 900 + 50 * (k % 3), pct[1])):
            run = int(1e7 * p / 100)
            rows.append(f"{t:16.9f},{rate},,{e},{run},{p:.2f},,")
    src = tmp_path / "mpx_r1.csv"
    src.write_text("\n".join(rows) + "\n")
    for spec in ("fixed", "phase"):
        tot = tmp_path / f"t_{spec}.csv"
        r = cli(["mpx", "estimate", src, "-m", spec, "-o", tmp_path / "e.csv", "--totals", tot])
        assert r.exit_code == 0, r.stderr
        t = _totals_ok(tot, 2)
        assert (t["upper"] > t["lower"]).all() and (t["running_fraction"].between(0.45, 0.55)).all()
        assert (t["upper"] - t["lower"] < t["total"]).all()  # a few per cent, not a blank cheque


def test_estimate_totals_with_a_fitted_model(cli, tmp_path):
    pytest.importorskip("torch")
    model = tmp_path / "mlp.pt"
    assert cli(["mpx", "fit", *ZEN5, "--epochs", 1, "--pmcs", 2, "--no-clean", "-o", model]).exit_code == 0
    mpx = tmp_path / "m.csv"
    assert cli(["mpx", "emulate", ZEN5[0], "--pmcs", 2, "-o", mpx]).exit_code == 0
    tot = tmp_path / "t.csv"
    r = cli(["mpx", "estimate", mpx, "-m", model, "-o", tmp_path / "e.csv", "--totals", tot])
    assert r.exit_code == 0, r.stderr
    assert "(mlp)" in r.stdout
    _totals_ok(tot, 5)
