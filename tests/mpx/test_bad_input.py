"""Bad input to every ``hemkit mpx`` command (issue 11, classes A, D, H): exit 2, one line naming the culprit,
no file created or changed."""

from pathlib import Path

import pandas as pd
import pytest

DATA = Path(__file__).parent / "data"
GOOD = DATA / "zen5_phases_r1.csv"
HEAD = "# started on Mon Nov 23 10:00:00 2026\n\n"


def perf_lines(rows):
    """perf stat -I -x, lines from (t, value, event, run_ns, percent) tuples."""
    return HEAD + "".join(f"{t:16.9f},{v},,{e},{r},{p:.2f},,\n" for t, v, e, r, p in rows)


def good_rows(n=20, events=("a", "b", "c")):
    return [(0.01 * (k + 1), 100 + k, e, 10_000_000, 100.0) for k in range(n) for e in events]


def tidy(**changes):
    tr = pd.DataFrame(
        {"run": "r1", "step": [s for s in range(12) for _ in range(3)], "event": ["a", "b", "c"] * 12, "value": 5.0}
    )
    for col, (row, value) in changes.items():
        tr[col] = tr[col].astype(object)
        tr.loc[row, col] = value
    return tr


def mpx_table(**changes):
    rows = []
    for s in range(12):
        for k, e in enumerate(("a", "b", "c")):
            on = (s + k) % 3 != 0
            rows.append(
                {"run": "r1", "step": s, "event": e, "raw": 5.0 if on else None, "enabled": 1e7, "running": 1e7 * on}
            )
    t = pd.DataFrame(rows)
    for col, (row, value) in changes.items():
        t.loc[row, col] = value
    return t


# name -> (writer of the bad file, the words the error must contain)
TRACE_FILES = {
    "duplicate timestamp": (
        lambda p: p.write_text(perf_lines(good_rows() + [(0.05, 7, "a", 10_000_000, 100.0)])),
        ["bad.csv", "'a'", "twice"],
    ),
    "negative count": (
        lambda p: p.write_text(perf_lines([(0.01, -5, "a", 10_000_000, 100.0)] + good_rows()[1:])),
        ["bad.csv", "'a'", "negative"],
    ),
    "infinite count": (
        lambda p: p.write_text(perf_lines([(0.01, "inf", "a", 10_000_000, 100.0)] + good_rows()[1:])),
        ["bad.csv", "line 3"],
    ),
    "missing interval of an event": (
        lambda p: p.write_text(perf_lines(good_rows()[:-1])),
        ["bad.csv", "'c'", "no count"],
    ),
    "multiplexed ground truth": (
        lambda p: p.write_text(perf_lines([(0.01, 5, "a", 2_000_000, 20.0)] + good_rows()[1:])),
        ["bad.csv", "'a'", "multiplexed"],
    ),
    "not supported event": (
        lambda p: p.write_text(HEAD + "0.01,<not supported>,,cycles,0,100.00,,\n"),
        ["bad.csv", "'cycles'", "not supported"],
    ),
    "no interval lines": (
        lambda p: p.write_text(HEAD + "1234,,instructions,1000,100.00,,\n"),
        ["bad.csv", "no interval lines"],
    ),
    "empty file": (lambda p: p.write_text(""), ["bad.csv"]),
    "binary garbage": (lambda p: p.write_bytes(bytes(range(256)) * 8), ["bad.csv"]),
    "garbage parquet": (lambda p: p.write_bytes(b"PAR1" + b"\x00garbage" * 40), ["bad.parquet", "Parquet"]),
    "truncated parquet": (
        lambda p: (tidy().to_parquet(p), p.write_bytes(p.read_bytes()[:60])),
        ["bad.parquet", "Parquet"],
    ),
    "tidy negative step": (lambda p: tidy(step=(0, -1)).to_csv(p, index=False), ["bad.csv", "step", "whole numbers"]),
    "tidy fractional step": (
        lambda p: tidy(step=(4, 1.5)).to_csv(p, index=False),
        ["bad.csv", "step", "whole numbers"],
    ),
    "tidy huge step": (lambda p: tidy(step=(35, 10**12)).to_csv(p, index=False), ["bad.csv", "step 1000000000000"]),
    "tidy step gap": (lambda p: tidy(step=(35, 13)).to_csv(p, index=False), ["bad.csv", "'c'", "missing"]),
    "tidy duplicate step": (
        lambda p: tidy(step=(35, 10)).to_csv(p, index=False),
        ["bad.csv", "'c'", "two rows for step 10"],
    ),
    "tidy non-numeric count": (
        lambda p: tidy(value=(4, "lots")).to_csv(p, index=False),
        ["bad.csv", "non-numeric value"],
    ),
    "tidy missing column": (lambda p: tidy().drop(columns="step").to_csv(p, index=False), ["bad.csv"]),
    "tidy negative count": (lambda p: tidy(value=(7, -3.0)).to_csv(p, index=False), ["bad.csv", "negative count"]),
    # no counter holds 5.8e90 (fails before issue 22: 'internal error: ValueError: cannot convert float NaN to
    # integer' in score, a warning with the count's 90 digits elsewhere)
    "count beyond 64 bits": (
        lambda p: p.write_text(
            perf_lines(good_rows()[:30] + [(0.11, "5.8e90", "a", 10_000_000, 100.0)] + good_rows()[31:])
        ),
        ["bad.csv", "'a'", "5.8e+90", "step 10 (t = 0.11 s)", "2^64"],
    ),
    "tidy count beyond 64 bits": (
        lambda p: tidy(value=(7, 5.8e90)).to_csv(p, index=False),
        ["bad.csv", "'b'", "5.8e+90", "step 2", "2^64"],
    ),
}


@pytest.mark.parametrize("case", sorted(TRACE_FILES))
@pytest.mark.parametrize("command", ["emulate", "score", "fit"])
def test_bad_trace_files(bad_input, tmp_path, case, command):
    write, names = TRACE_FILES[case]
    suffix = ".parquet" if "parquet" in case else ".csv"
    bad = tmp_path / f"bad{suffix}"
    write(bad)
    out = tmp_path / ("model.pt" if command == "fit" else "out.csv")
    args = ["mpx", command, bad, "-o", out] if command != "score" else ["mpx", command, bad, "-o", out, "--no-dtw"]
    bad_input(args, names=names, watch=[tmp_path])


def test_no_count_is_printed_with_all_its_digits(bad_input, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(perf_lines([(0.01, "5.8e90", "a", 10_000_000, 100.0)] + good_rows()[1:]))
    line = bad_input(["mpx", "score", bad, "--no-dtw"], names=["5.8e+90"], watch=[tmp_path])
    assert "580000000000" not in line


def test_a_constant_trace_is_refused_by_score_naming_its_events(bad_input, tmp_path):
    """Every estimator scores a constant trace perfectly or arbitrarily (fails before issue 22: RA or err cut NaN)."""
    const = tmp_path / "const.csv"
    const.write_text(perf_lines([(0.01 * (k + 1), 7, e, 10_000_000, 100.0) for k in range(60) for e in "abc"]))
    bad_input(["mpx", "score", const, "--no-dtw"], names=["'a' (7)", "'b' (7)", "'c' (7)", "counts the same"])
    tidy().to_csv(const, index=False)  # the same as a tidy trace
    bad_input(["mpx", "score", const, "--no-dtw", "--no-clean"], names=["'a' (5)", "counts the same"])


def test_runs_too_short_to_clean_name_the_option_that_skips_cleaning(bad_input, tmp_path):
    """A run of 3 intervals has no step left once its tail is cut: the error named no way out (--no-clean)."""
    traces = tmp_path / "traces"
    traces.mkdir()
    for k in (1, 2):
        (traces / f"w_r{k}.csv").write_text(perf_lines(good_rows(n=3)))
    bad_input(["mpx", "score", traces, "--no-dtw"], names=["no run is left after cleaning", "--no-clean"])
    pytest.importorskip("torch")
    model = tmp_path / "m.pt"  # outside the folder read
    bad_input(["mpx", "fit", traces, "-o", model], names=["no run is left", "--no-clean"], watch=[tmp_path])


def test_counters_for_every_event_at_once_are_refused_naming_pmcs(bad_input, tmp_path):
    """--pmcs 9 on 5 events scored every estimator perfect (exit 0, 'best ranked: fixed'), diluting --pmcs 2."""
    bad_input(["mpx", "score", GOOD, "--no-dtw", "--pmcs", 2, "--pmcs", 9], names=["on 9 counters", "--pmcs 4"])
    one = tmp_path / "one_r1.csv"
    one.write_text(perf_lines(good_rows(n=30, events=("a",))))
    bad_input(["mpx", "score", one, "--no-dtw"], names=["one event", "nothing is multiplexed"])
    pytest.importorskip("torch")
    out = tmp_path / "m.pt"
    bad_input(["mpx", "fit", GOOD, "--pmcs", 5, "-o", out], names=["on 5 counters", "--pmcs 4"], watch=[tmp_path])


def test_runs_of_no_more_events_than_counters_are_not_scored(cli, tmp_path):
    few = tmp_path / "few_r1.csv"
    few.write_text(
        perf_lines([(0.01 * (k + 1), 100 + k % 7 * k, e, 10_000_000, 100.0) for k in range(40) for e in "ab"])
    )
    r = cli(["mpx", "score", GOOD, few, "--no-dtw", "--pmcs", 3, "-o", tmp_path / "s.csv"])
    assert r.exit_code == 0, r.stderr
    assert "1 run(s) with at most 3 events" in r.stderr and "few_r1" in r.stderr
    assert set(pd.read_csv(tmp_path / "s.csv")["run"]) == {"zen5_phases_r1"}


MPX_TABLES = {
    "enabled 0 with a count": (
        lambda p: mpx_table(enabled=(1, 0.0), running=(1, 0.0)).to_csv(p, index=False),
        ["'b'", "enabled = 0"],
    ),
    "running above enabled": (lambda p: mpx_table(running=(1, 5e7)).to_csv(p, index=False), ["'b'", "exceeds enabled"]),
    "negative enabled": (lambda p: mpx_table(enabled=(2, -1.0)).to_csv(p, index=False), ["'c'", "negative"]),
    "infinite raw": (lambda p: mpx_table(raw=(1, float("inf"))).to_csv(p, index=False), ["'b'", "infinite"]),
    "never on a counter": (
        lambda p: (
            mpx_table(raw=(0, None), running=(0, 0.0))
            .pipe(
                lambda t: t.assign(
                    raw=t["raw"].where(t["event"] != "a"), running=t["running"].where(t["event"] != "a", 0.0)
                )
            )
            .to_csv(p, index=False)
        ),
        ["m.csv", "'a'", "never on a counter", "--pmcs"],
    ),
    # a file cut short at a line boundary: the last series lost its last intervals (its total would lack them)
    "cut short": (
        lambda p: mpx_table().sort_values(["event", "step"]).iloc[:-4].to_csv(p, index=False),
        ["'c'", "cut short"],
    ),
    # cut at an event boundary in its last run (written run by run, event by event, as 'mpx emulate' writes):
    # that run lost its last event whole, every interval check passed and its series were left out, exit 0
    "cut short in the last run": (
        lambda p: (
            pd.concat([mpx_table(), mpx_table().assign(run="r2")])
            .sort_values(["run", "event", "step"])
            .iloc[:-12]
            .to_csv(p, index=False)
        ),
        ["m.csv", "run 'r2', the file's last, has 2 events, run 'r1' of its workload 3", "'c'", "cut short"],
    ),
}


@pytest.mark.parametrize("case", sorted(MPX_TABLES))
def test_bad_multiplexed_input_to_estimate(bad_input, tmp_path, case):
    write, names = MPX_TABLES[case]
    bad = tmp_path / "m.csv"
    write(bad)
    bad_input(["mpx", "estimate", bad, "-o", tmp_path / "e.csv"], names=names, watch=[tmp_path])


def test_a_table_whose_last_run_lacks_events_is_read_only_where_that_cannot_be_a_cut(cli, tmp_path):
    """The check of a cut last run compares runs of one workload: another workload may read other events."""
    two = pd.concat([mpx_table().assign(workload="w1"), mpx_table().assign(run="r2", workload="w2")])
    two[~((two["run"] == "r2") & (two["event"] == "c"))].to_csv(tmp_path / "two.csv", index=False)
    r = cli(["mpx", "estimate", tmp_path / "two.csv", "-o", tmp_path / "e.csv"])
    assert r.exit_code == 0, r.stderr
    # a ground-truth trace (mpx emulate and score read them) cut the same way is refused as well
    truth = pd.concat([mpx_table(), mpx_table().assign(run="r2")]).rename(columns={"raw": "value"})
    truth["value"] = 5.0
    truth.sort_values(["run", "event", "step"]).iloc[:-12].to_csv(tmp_path / "t.csv", index=False)
    r = cli(["mpx", "emulate", tmp_path / "t.csv", "-o", tmp_path / "m.csv"])
    assert r.exit_code == 2 and "the file's last, has 2 events" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["emulate", GOOD, "--pmcs", 0], ["--pmcs"]),
        (["emulate", GOOD, "--period", 0], ["--period"]),
        (["emulate", GOOD, "--offset", -1], ["--offset"]),
        # 5 events moved by 5 each tick: 3 of them never on a counter, a file nothing can be estimated from
        (["emulate", GOOD, "--shift", 5, "-o", "{tmp}/m.csv"], ["--shift", "never puts 3 of them on a counter"]),
        (["fit", GOOD, "--epochs", 0, "-o", "{tmp}/m.pt"], ["--epochs"]),
        (["fit", GOOD, "--seed", -1, "-o", "{tmp}/m.pt"], ["--seed"]),
        (["fit", GOOD, "--split", "0:1:1", "-o", "{tmp}/m.pt"], ["--split"]),
        (["fit", GOOD, "--split", "seven", "-o", "{tmp}/m.pt"], ["--split"]),
        (["fit", GOOD, "--patience", -2, "-o", "{tmp}/m.pt"], ["--patience"]),
        (["fit", GOOD, "-m", "forest", "-o", "{tmp}/m.pt"], ["forest"]),
        (["fit", GOOD, "-o", "{tmp}/model.bin"], ["model files end in .pt"]),
        (["estimate", GOOD, "-m", "magic"], ["unknown estimator 'magic'"]),
        (["estimate", GOOD, "-m", "phse"], ["unknown estimator 'phse'", "did you mean 'phase'?"]),
        (["estimate", GOOD, "-m", "mlp"], ["must be trained first"]),
        (["estimate", GOOD, "-m", "{tmp}/nothing.pt"], ["nothing.pt", "no such model file"]),
        (["score", GOOD, "-m", "bogus", "--no-dtw"], ["unknown estimator 'bogus'"]),
        (["score", GOOD, "--pmcs", 99], ["--pmcs"]),
        (["score", GOOD, "--plot", "{tmp}/f.png", "--plot-run", "nosuch", "--no-dtw"], ["run 'nosuch'"]),
        (["score", GOOD, "--workload-pattern", "(", "--no-dtw"], ["not a regular expression"]),
        (["score", GOOD, "--wraps", "explode"], ["--wraps"]),
        (["score", "{tmp}/missing.csv"], ["missing.csv", "no such file"]),
        (["score", "{tmp}"], ["holds no trace files"]),
        (["trace", "-e", "task-clock", "-I", 0, "-o", "{tmp}/t", "--", "true"], ["--interval"]),
        (["trace", "-e", "task-clock", "--runs", 0, "-o", "{tmp}/t", "--", "true"], ["--runs"]),
        (["trace", "-e", ",", "-o", "{tmp}/t", "--", "true"], ["empty event set"]),
        (["trace", "-e", "a,a", "-o", "{tmp}/t", "--", "true"], ["'a' appears twice"]),
        (["trace", "-e", "task-clock", "-o", "{tmp}/t", "--", "no-such-program-here"], ["'no-such-program-here'"]),
        (["trace", "-e", "task-clock", "--timeout", 0, "-o", "{tmp}/t", "--", "true"], ["--timeout"]),
    ],
)
def test_bad_options(bad_input, tmp_path, args, names):
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in args]
    if args[0] in ("emulate", "estimate") and "-o" not in args:
        args += ["-o", str(tmp_path / "out.csv")]
    bad_input(["mpx", *args], names=names, watch=[tmp_path])


@pytest.mark.parametrize("command", ["emulate", "estimate", "score", "fit"])
@pytest.mark.parametrize("where", ["missing folder", "a folder", "the input itself", "a device"])
def test_outputs_are_checked_before_the_work(bad_input, tmp_path, command, where):
    src = tmp_path / "in.csv"
    src.write_text(GOOD.read_text())
    suffix = ".pt" if command == "fit" else ".csv"
    target = {
        "missing folder": tmp_path / "nowhere" / f"out{suffix}",
        "a folder": tmp_path,
        "the input itself": src,
        "a device": Path("/dev/null"),
    }[where]
    if command == "fit" and where in ("the input itself", "a device"):
        target = tmp_path / "in.pt" if where == "the input itself" else target
        if where == "the input itself":
            target.write_text("not a model")
            src = target
    words = {
        "missing folder": "does not exist",
        "a folder": "directory",
        "the input itself": "input",
        "a device": "not a regular file",
    }[where]
    if command == "fit" and where == "a device":
        words = "model files end in .pt"
    args = ["mpx", command, src, "-o", target] + (["--no-dtw"] if command == "score" else [])
    bad_input(args, names=[words], watch=[tmp_path])


def test_a_run_too_long_for_dtw_is_refused_up_front(bad_input, tmp_path):
    """A 1 ms trace of a long program would keep the quadratic DTW busy for hours: refused, with the way out."""
    long = pd.DataFrame({"run": "r", "step": range(10_001), "event": "a", "value": 1.0})
    p = tmp_path / "long.parquet"
    long.to_parquet(p)
    bad_input(["mpx", "score", p, "--no-clean"], names=["10001 intervals", "without DTW"], watch=[tmp_path])


def test_plot_place_is_checked_before_the_work(bad_input, tmp_path):
    bad_input(
        ["mpx", "score", GOOD, "--no-dtw", "--plot", tmp_path / "no" / "f.png"],
        names=["plot", "does not exist"],
        watch=[tmp_path],
    )


def test_plot_run_is_checked_before_the_work_and_needs_plot(bad_input, tmp_path):
    """A mistyped --plot-run was found after the whole scoring (its tables printed), naming no option;
    without --plot it was dropped without a word."""
    bad_input(
        ["mpx", "score", GOOD, "--no-dtw", "-o", tmp_path / "s.csv", "--plot", tmp_path / "f.png", "--plot-run", "x"],
        names=["--plot-run", "'x'", "zen5_phases_r1"],
        watch=[tmp_path],
    )
    bad_input(["mpx", "score", GOOD, "--no-dtw", "--plot-run", GOOD.stem], names=["--plot-run", "--plot FILE"])


def test_one_figure_for_both_plots_is_refused(bad_input, tmp_path):
    # both figures were written into f.png, the second over the first ('wrote s.csv, f.png, f.png')
    bad_input(
        ["mpx", "score", GOOD, "--no-dtw", "--plot", tmp_path / "f.png", "--plot-ra", tmp_path / "f.png"],
        names=["f.png", "--plot and --plot-ra"],
        watch=[tmp_path],
    )


def test_trace_time_limit_stops_the_program_too(bad_input, tmp_path, software_perf):
    marker = tmp_path / "still-ran"
    bad_input(
        [
            "mpx",
            "trace",
            "-e",
            "task-clock",
            "--timeout",
            0.5,
            "-o",
            tmp_path / "t",
            "--",
            "sh",
            "-c",
            f"sleep 2; touch {marker}",
        ],
        names=["still running after 0.5 s", "give a larger --timeout"],  # the option that gets past it
    )
    import time

    time.sleep(2.5)
    assert not marker.exists()  # the program was stopped with perf, not left running


def test_trace_failing_program_names_the_option(bad_input, tmp_path, software_perf):
    """The way past a failing program is the command's own --allow-failure, not the library's allow_failure."""
    out = tmp_path / "t"
    bad_input(
        ["mpx", "trace", "-e", "task-clock", "-o", out, "--", "false"], names=["'false'", "; pass --allow-failure"]
    )
    assert not out.exists()


def test_trace_output_must_be_a_folder(bad_input, tmp_path):
    f = tmp_path / "file.csv"
    f.write_text("x")
    bad_input(["mpx", "trace", "-e", "task-clock", "-o", f, "--", "true"], names=["file.csv"], watch=[tmp_path])


def test_model_for_other_events_is_refused(bad_input, cli, tmp_path):
    pytest.importorskip("torch")
    model = tmp_path / "m.pt"
    r = cli(["mpx", "fit", GOOD, DATA / "zen5_phases_r2.csv", "--epochs", 1, "--pmcs", 2, "--no-clean", "-o", model])
    assert r.exit_code == 0, r.stderr
    sw = DATA / "ocoe_interval.csv"
    bad_input(
        ["mpx", "score", sw, "--no-clean", "--no-dtw", "-m", model, "-w", "w"],
        names=["trained on events", "knows nothing of"],
        watch=[tmp_path],
    )
    garbage = tmp_path / "g.pt"
    garbage.write_bytes(b"\x80\x04garbage")
    bad_input(["mpx", "estimate", GOOD, "-m", garbage, "-o", tmp_path / "e.csv"], names=["g.pt", "not a saved"])


def test_wrap_around_is_repaired_with_a_warning_or_refused_on_request(cli, bad_input, tmp_path):
    wrapped = DATA / "zen5_py_r3.csv"
    r = cli(["mpx", "emulate", wrapped, "-o", tmp_path / "m.csv"])
    assert r.exit_code == 0 and "hemkit: warning:" in r.stderr and "repaired to 6122" in r.stderr
    bad_input(
        ["mpx", "emulate", wrapped, "--wraps", "error", "-o", tmp_path / "m2.csv"],
        names=["zen5_py_r3.csv", "dTLB-load-misses", "2^47", "; pass --wraps repair"],
        watch=[tmp_path],
    )


@pytest.fixture
def multiplexed(tmp_path):
    """A multiplexed input (``mpx emulate`` output) of the zen5 fixture."""
    from hemkit.io.traces import read_trace
    from hemkit.mpx import emulate

    path = tmp_path / "m.csv"
    emulate(read_trace(GOOD), 2).without_truth().to_tidy().to_csv(path, index=False)
    return path


@pytest.mark.parametrize("level", ["0", "1", "x", "nan", "-0.5", "1.5"])
def test_totals_level_out_of_range_is_refused_naming_level(bad_input, tmp_path, multiplexed, level):
    args = ["mpx", "estimate", multiplexed, "-o", tmp_path / "e.csv", "--totals", tmp_path / "t.csv"]
    bad_input([*args, "--level", level], names=["--level"], watch=[tmp_path])


@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("a folder", ["totals", "is a folder"]),
        ("the estimates file", ["--totals", "-o"]),
        ("the input itself", ["totals", "input"]),
        ("missing folder", ["totals", "does not exist"]),
    ],
)
def test_totals_place_is_checked_before_the_work(bad_input, tmp_path, multiplexed, where, words):
    out = tmp_path / "e.csv"
    target = {
        "a folder": tmp_path,
        "the estimates file": out,
        "the input itself": multiplexed,
        "missing folder": tmp_path / "nowhere" / "t.csv",
    }[where]
    bad_input(["mpx", "estimate", multiplexed, "-o", out, "--totals", target], names=words, watch=[tmp_path])


@pytest.mark.parametrize("given", [["--level", "0.5"], ["--per-run"], ["--level", "0.9", "--per-run"]])
def test_totals_options_without_totals_are_refused(bad_input, tmp_path, multiplexed, given):
    """--level 0.5 (or --per-run) without --totals was dropped without a word: estimates written, exit 0."""
    args = ["mpx", "estimate", multiplexed, "-o", tmp_path / "e.csv", *given]
    bad_input(args, names=[given[0], "--totals FILE"], watch=[tmp_path])


def test_a_new_file_in_an_input_folder_is_refused(bad_input, cli, tmp_path):
    """score traces/ -o traces/s.csv wrote the scores among the traces: the next read of the folder failed on it.
    Every output inside a folder read is refused, a figure too (a folder of perf stat files reads every file)."""
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "w_r1.csv").write_bytes(GOOD.read_bytes())
    for out in ("s.csv", "s.parquet", "s.txt"):
        bad_input(
            ["mpx", "score", traces, "--no-dtw", "-o", traces / out],
            names=[out, "input folder", "outside"],
            watch=[tmp_path],
        )
    bad_input(["mpx", "emulate", traces, "-o", traces / "m.csv"], names=["m.csv", "input folder"], watch=[tmp_path])
    bad_input(["mpx", "score", traces, "--no-dtw", "--plot-ra", traces / "ra.png"], names=["ra.png"], watch=[tmp_path])
    r = cli(["mpx", "score", traces, "--no-dtw", "-q", "--plot-ra", tmp_path / "ra.png"])
    assert r.exit_code == 0, r.stderr
    assert cli(["mpx", "score", traces, "--no-dtw", "-q"]).exit_code == 0
