"""Bad input to ``hemkit merge`` and ``hemkit evaluate``: one line naming the culprit, exit 2, nothing written.

Classes of issue 11: A (outputs: missing folder, a folder, the input itself, a device,
two outputs on one file), B (MUCH/copula/joint on degenerate data and options out of
range), C (evaluate on inf, NaN, constant, duplicated or non-numeric columns).  Every case
runs in-process through the ``bad_input`` fixture (tests/conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hemkit.datasets import t2080_hrm, t2080_path

GOOD_TRUTH = pd.DataFrame({"a": [1.0, 2, 3, 4, 5], "b": [2.0, 1, 4, 3, 5], "c": [1.0, 3, 2, 5, 4]})


def tidy(rows: list[tuple]) -> str:
    return "group,run,event,value\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)


def grouped(values_b=None, n: int = 6) -> str:
    """Two groups: (a, b) and (a, c); ``values_b`` replaces b's readings."""
    vb = values_b or [(r * 7) % 5 + 1 for r in range(n)]
    rows = []
    for r in range(n):
        rows += [(1, r, "a", r + 1), (1, r, "b", vb[r]), (2, r, "a", r + 2), (2, r, "c", (r * 3) % 4 + 1)]
    return tidy(rows)


def covering(n: int = 40) -> str:
    """Three events, every pair read together, n runs per group."""
    rng = np.random.default_rng(0)
    rows = []
    for g, (e1, e2) in enumerate([("a", "b"), ("a", "c"), ("b", "c")], start=1):
        for r in range(n):
            rows += [(g, r, e1, int(rng.integers(10, 99))), (g, r, e2, int(rng.integers(10, 99)))]
    return tidy(rows)


@pytest.fixture
def files(tmp_path):
    """Write named input files; returns a function name -> text -> path."""

    def write(name: str, text: str | bytes) -> Path:
        p = tmp_path / name
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
        return p

    return write


# --------------------------------------------------------------------------- inputs of merge
INPUT_CASES = [
    ("no-such-file", None, [], ["{f}: no such file"]),
    ("garbage-bytes", b"\x00\x01\x02PAR1\xff\xfe", [], ["{f}"]),
    ("empty", "", [], ["{f}"]),
    ("not-readings", "x,y\n1,2\n3,4\n", [], ["{f}", "not a readings file"]),
    ("nan", grouped([1, "nan", 3, 4, 5, 6]), [], ["event 'b' has NaN in run 1 of group 1"]),
    ("inf", grouped([1, "inf", 3, 4, 5, 6]), [], ["event 'b'", "infinite", "run 1"]),
    ("negative", grouped([1, -4, 3, 4, 5, 6]), [], ["event 'b' has a negative count -4 in run 1"]),
    ("text-value", grouped([1, "lots", 3, 4, 5, 6]), [], ["non-numeric value 'lots' in run 1 of group 1"]),
    ("constant", grouped([5, 5, 5, 5, 5, 5]), [], ["event 'b' is constant (5)"]),
    ("never-together", grouped(), ["-m", "much", "--n-sims", "30"], ["events 'b' and 'c' were never read together"]),
    ("never-together-joint", grouped(), ["-m", "joint"], ["events 'b' and 'c' were never read together"]),
    ("never-together-copula", grouped(), ["-m", "copula"], ["events 'b' and 'c' were never read together"]),
    (
        "single-event",
        tidy([(1, r, "cycles", r + 1) for r in range(5)]),
        ["-m", "much", "--n-sims", "30"],
        ["{f}: has one event ('cycles')"],
    ),
    # it said 'the readings have one event', naming no file
    ("single-event-joint", tidy([(1, r, "cycles", r + 1) for r in range(5)]), [], ["{f}: has one event ('cycles')"]),
    ("hrm-no-anchor", grouped(), ["-m", "hrm"], ["--anchor"]),
    ("hrm-unknown-anchor", grouped(), ["-m", "hrm", "--anchor", "zz"], ["unknown anchor 'zz'"]),
    ("hrm-anchor-not-everywhere", grouped(), ["-m", "hrm", "--anchor", "b"], ["anchor 'b' is not read in group 2"]),
    (
        "dep-lvl-keeps-one",
        covering(),
        ["-m", "much", "--n-sims", "30", "--dep-lvl", "0.0001"],
        ["--dep-lvl 0.0001 keeps"],
    ),
    ("too-few-runs", grouped(n=2), [], ["has 2 runs; at least 3 are needed"]),
    ("raw-wrong-pmcs", None, ["--pmcs", "5"], ["144 columns is not a multiple of 5", "check --pmcs"]),
    ("raw-no-pmcs", None, [], ["looks like a mergingTools raw file", "give --pmcs"]),  # said 'give pmcs'
]


@pytest.mark.parametrize(("name", "content", "extra", "names"), INPUT_CASES, ids=[c[0] for c in INPUT_CASES])
def test_merge_input(bad_input, files, tmp_path, name, content, extra, names):
    if name in ("raw-wrong-pmcs", "raw-no-pmcs"):
        f = Path(t2080_path("much_raw.csv"))
    elif content is None:
        f = tmp_path / "missing.csv"
    else:
        f = files(f"{name}.csv", content)
    out = tmp_path / "out.csv"
    bad_input(["merge", f, *extra, "-o", out], names=[n.replace("{f}", str(f)) for n in names], watch=[tmp_path])
    assert not out.exists()


# --------------------------------------------------------------------------- options
OPTION_CASES = [
    (["--n-sims", "0", "-m", "much"], ["--n-sims"]),
    (["--n-sims", "many", "-m", "much"], ["--n-sims"]),
    (["--rows", "2"], ["--rows"]),
    (["--level", "1.5", "--pair-intervals", "PI"], ["--level"]),
    (["--level", "0", "--pair-intervals", "PI"], ["--level"]),
    (["--tails", "-1"], ["--tails"]),
    (["--pearson-weight", "2", "-m", "copula"], ["--pearson-weight"]),
    (["--pearson-weight", "lots", "-m", "copula"], ["--pearson-weight"]),
    (["--seed", "-1"], ["--seed"]),
    (["--method", "magic"], ["--method"]),
    (["--mode", "mergingtools", "-m", "much"], ["--mode"]),
    (["--criterion", "vibes", "-m", "much"], ["--criterion"]),
    (["--dep-lvl", "0", "-m", "much"], ["--dep-lvl"]),
    (["--dep-lvl", "1.5", "-m", "much"], ["--dep-lvl"]),
    (["--dep-lvl", "nan", "-m", "much"], ["--dep-lvl must"]),
    (["--z", "0", "-m", "much", "--outliers", "zscore"], ["--z"]),
    (["--outliers", "all", "-m", "much"], ["--outliers"]),
    (["--impute", "mean"], ["--impute"]),
    (["--pmcs", "0"], ["--pmcs"]),
    (["--bogus"], ["--bogus"]),
    # an option of another method was dropped without a word: -m joint --anchor x merged with joint (the library
    # refuses merge(r, "joint", anchor="x")), --n-sims 500 without -m much drew nothing
    (["--anchor", "a"], ["'--anchor'", "applies to -m hrm, not -m joint", "pass -m hrm"]),
    (["--n-sims", "500"], ["'--n-sims'", "applies to -m much, not -m joint"]),
    (["-m", "much", "--linear", "0"], ["'--linear'", "applies to -m joint, not -m much"]),
    (["-m", "copula", "--mode", "paper"], ["'--mode'", "applies to -m much, not -m copula"]),
    (["-m", "joint", "--pearson-weight", "0"], ["'--pearson-weight'", "applies to -m copula"]),
    (["-m", "hrm", "--anchor", "a", "--impute", "maxdet"], ["'--impute'", "not -m hrm"]),
]


@pytest.mark.parametrize(("args", "names"), OPTION_CASES, ids=[" ".join(c[0]) for c in OPTION_CASES])
def test_merge_option(bad_input, files, tmp_path, args, names):
    f = files("in.csv", covering())
    args = [str(tmp_path / "pi.csv") if a == "PI" else a for a in args]
    bad_input(["merge", f, *args, "-o", tmp_path / "out.csv"], names=names, watch=[tmp_path])


# --------------------------------------------------------------------------- outputs (class A)
def _outputs(tmp_path: Path, input_file: Path) -> list[tuple[str, list[str], list[str]]]:
    folder = tmp_path / "adir"
    folder.mkdir(exist_ok=True)
    return [
        ("missing-folder", ["-o", str(tmp_path / "nope" / "m.csv")], ["nope", "does not exist"]),
        ("is-a-folder", ["-o", str(folder)], [str(folder), "--output", "is a directory"]),
        ("is-the-input", ["-o", str(input_file)], [str(input_file), "is also an input"]),
        ("device", ["-o", "/dev/full"], ["/dev/full"]),
        ("device-null", ["-o", "/dev/null"], ["/dev/null"]),
        (
            "intervals-missing-folder",
            ["--pair-intervals", str(tmp_path / "nope" / "p.csv")],
            ["nope", "does not exist"],
        ),
        ("intervals-is-the-input", ["--pair-intervals", str(input_file)], ["is also an input"]),
        ("plot-missing-folder", ["--plot", str(tmp_path / "nope" / "p.png")], ["nope", "does not exist"]),
        ("plot-is-a-folder", ["--plot", str(folder)], ["--plot", "is a directory"]),
        (
            "two-outputs-one-file",
            ["-o", str(tmp_path / "same.csv"), "--pair-intervals", str(tmp_path / "same.csv")],
            ["same.csv", "given for both -o/--output and --pair-intervals"],  # the options, not pair_intervals
        ),
    ]


OUTPUT_NAMES = [c[0] for c in _outputs(Path("/tmp"), Path("/tmp/x"))]


@pytest.mark.parametrize("case", OUTPUT_NAMES)
def test_merge_output(bad_input, files, tmp_path, case):
    f = files("in.csv", covering())
    (tmp_path / "same.csv").unlink(missing_ok=True)
    _, args, names = next(c for c in _outputs(tmp_path, f) if c[0] == case)
    bad_input(["merge", f, *args], names=names, watch=[tmp_path])


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a read-only place a non-root user cannot write either")
def test_merge_output_read_only_filesystem(bad_input, files, tmp_path):
    # /proc refuses new files even for root: a read-only place
    f = files("in.csv", covering())
    bad_input(["merge", f, "-o", "/proc/hemkit-merged.csv"], names=["/proc/hemkit-merged.csv"], watch=[tmp_path])


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in a folder without write permission")
def test_merge_output_read_only_folder(bad_input, files, tmp_path):
    f = files("in.csv", covering())
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        bad_input(["merge", f, "-o", ro / "m.csv"], names=[str(ro), "read-only"], watch=[tmp_path])
    finally:
        ro.chmod(0o700)


def test_an_existing_output_is_left_as_it_was_on_bad_input(bad_input, files, tmp_path):
    out = files("out.csv", "precious\n")
    f = files("in.csv", grouped([5, 5, 5, 5, 5, 5]))
    bad_input(["merge", f, "-o", out], names=["event 'b' is constant"], watch=[tmp_path])
    assert out.read_text() == "precious\n"


# --------------------------------------------------------------------------- evaluate (class C)
def _csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False)


EVAL_CASES = [
    ("merged-inf", _csv(GOOD_TRUTH.assign(b=[1.0, np.inf, 2, 3, 4])), ["merged-inf.csv", "column 'b'", "infinite"]),
    (
        "merged-nan",
        _csv(GOOD_TRUTH.assign(c=[1.0, 2, np.nan, 3, 4])),
        ["merged-nan.csv", "column 'c' has NaN in row 3"],
    ),
    ("merged-constant", _csv(GOOD_TRUTH.assign(b=7)), ["merged-constant.csv", "column 'b' is constant (7)"]),
    ("merged-duplicate", "a,b,a\n1,2,3\n2,1,4\n3,4,1\n4,3,2\n", ["merged-duplicate.csv", "'a' appears twice"]),
    ("merged-text", _csv(GOOD_TRUTH.assign(b=list("vwxyz"))), ["merged-text.csv", "column 'b' is not numeric"]),
    ("merged-one-column", _csv(GOOD_TRUTH[["a"]]), ["merged-one-column.csv", "has 1 event column"]),
    ("merged-empty", "", ["merged-empty.csv"]),
    ("merged-grouped", tidy([(1, r, "a", r) for r in range(4)]), ["merged-grouped.csv", "grouped readings"]),
    ("merged-all-nan", "a,b\nnan,nan\nnan,nan\nnan,nan\n", ["merged-all-nan.csv", "NaN"]),
]


@pytest.mark.parametrize(("name", "content", "names"), EVAL_CASES, ids=[c[0] for c in EVAL_CASES])
def test_evaluate_merged_table(bad_input, files, tmp_path, name, content, names):
    merged = files(f"{name}.csv", content)
    truth = files("truth.csv", _csv(GOOD_TRUTH))
    bad_input(
        ["evaluate", "pairs", merged, "--truth", truth, "-o", tmp_path / "pairs.csv", "--plot", tmp_path / "p.png"],
        names=names,
        watch=[tmp_path],
    )


TRUTH_CASES = [
    ("truth-inf", _csv(GOOD_TRUTH.assign(a=[1.0, 2, np.inf, 3, 4])), ["truth-inf.csv", "column 'a'", "infinite"]),
    ("truth-constant", _csv(GOOD_TRUTH.assign(c=0)), ["truth-constant.csv", "column 'c' is constant"]),
    ("truth-duplicate", "a,b,b\n1,2,3\n2,1,4\n3,4,1\n4,3,2\n", ["truth-duplicate.csv", "'b' appears twice"]),
    ("truth-nan", _csv(GOOD_TRUTH.assign(b=[1.0, np.nan, 2, 3, 4])), ["truth-nan.csv", "column 'b' has NaN"]),
    # said "merged data and reference share ...", naming neither file
    (
        "truth-other-events",
        _csv(GOOD_TRUTH.rename(columns=str.upper)),
        ["merged.csv vs", "truth-other-events.csv", "share fewer than 2 events"],
    ),
]


@pytest.mark.parametrize(("name", "content", "names"), TRUTH_CASES, ids=[c[0] for c in TRUTH_CASES])
def test_evaluate_truth(bad_input, files, tmp_path, name, content, names):
    merged = files("merged.csv", _csv(GOOD_TRUTH))
    truth = files(f"{name}.csv", content)
    bad_input(
        ["evaluate", "pairs", merged, "--truth", truth, "-o", tmp_path / "pairs.csv"], names=names, watch=[tmp_path]
    )


#: a truth a study can split: 4 events (groups of 2 or 3 counters), 40 runs
STUDY_TRUTH = pd.DataFrame(
    {e: np.random.default_rng(k).integers(100, 200, 40).astype(float) for k, e in enumerate("abcd")}
)
NEGATIVE = STUDY_TRUTH.copy()
NEGATIVE.loc[4, "b"] = -3.0
HEADERLESS = "".join(f"{r},{e},{v:g},100.00\n" for r in range(1, 41) for e, v in zip("abcd", STUDY_TRUTH.iloc[r - 1]))

STUDY_CASES = [
    # the merge refused it naming 'group 1', which the table never had, and not the file
    ("study-negative", _csv(NEGATIVE), ["--pmcs", "2"], ["study-negative.csv", "column 'b'", "negative", "row 5"]),
    # one group read all 4 events: nothing was merged, the study exited 0 with MSE ratios of NaN
    # or near 0 (its trivial splits pulled every method's geometric mean down)
    ("study-one-group", _csv(STUDY_TRUTH), ["--pmcs", "4"], ["--pmcs 4", "4 events fit in one group"]),
    ("study-default-pmcs", _csv(STUDY_TRUTH), [], ["--pmcs 4", "nothing to split or merge"]),
    # named no file: 'the truth has 2 events, ...'
    (
        "study-two-events",
        _csv(STUDY_TRUTH[["a", "b"]]),
        [],
        ["study-two-events.csv: the truth has 2 events", "3 events or more"],
    ),
    # perf-like run,event,value,pct lines without a header (shared/data/zen5/truth): said only
    # "column 'a' is not numeric", of a column named by its first data line
    ("study-headerless", HEADERLESS, ["--pmcs", "2"], ["study-headerless.csv", "is data, not column names"]),
]


@pytest.mark.parametrize(("name", "content", "args", "names"), STUDY_CASES, ids=[c[0] for c in STUDY_CASES])
def test_evaluate_study_truth(bad_input, files, tmp_path, name, content, args, names):
    truth = files(f"{name}.csv", content)
    study = ["evaluate", "study", "--truth", truth, *args, "--splits", "1", "--reps", "1", "-q"]
    bad_input([*study, "-o", tmp_path / "study.csv"], names=names, watch=[tmp_path])


def test_evaluate_study_control(cli, files, tmp_path):
    """The same truth with counters that split it: the study runs (the cases above are refused for their input)."""
    truth = files("truth.csv", _csv(STUDY_TRUTH))
    res = cli(["evaluate", "study", "--truth", truth, "--pmcs", "2", "--pmcs", "3", "--splits", "1", "--reps", "1"])
    assert res.exit_code == 0, res.stderr
    assert "nan" not in res.stdout.lower()


def _evaluate_usage(tmp_path: Path, merged: Path, truth: Path) -> list[tuple[str, list[str], list[str]]]:
    m, t = str(merged), str(truth)
    return [
        ("no-truth", ["pairs", m], ["--truth"]),
        ("no-merged", ["pairs", "--truth", t], ["MERGED"]),
        ("study-with-input", ["study", m], ["unexpected extra argument", "evaluate study"]),
        ("study-grouped-truth", ["study", "--truth", str(tmp_path / "grouped.csv")], ["grouped.csv", "of 2 groups"]),
        ("holdout-unknown-method", ["holdout", "--methods", "much,magic"], ["unknown method 'magic'"]),
        ("holdout-typo", ["holdout", "--methods", "much,jiont"], ["unknown method 'jiont'", "mean 'joint'?"]),
        ("holdout-twice", ["holdout", "--methods", "much,much"], ["method 'much' is given twice"]),
        ("holdout-no-anchor", ["holdout", str(tmp_path / "cover.csv"), "--methods", "hrm"], ["hrm needs --anchor"]),
        ("runs-with-input", ["diagnostics", "--plot-runs", str(tmp_path / "r.png"), m], ["--plot-runs"]),
        ("diagnostics-nothing", ["diagnostics"], ["--plot-sims", "--plot-runs", "--plot-design"]),
        # the library's check_scalar said 'pmcs must be ...', a name the command line does not have
        ("design-pmcs-1", ["diagnostics", "--plot-design", str(tmp_path / "d.png"), "--pmcs", "1"], ["--pmcs must"]),
        ("missing-truth-file", ["pairs", m, "--truth", str(tmp_path / "nope.csv")], ["nope.csv", "no such file"]),
        ("output-is-input", ["pairs", m, "--truth", t, "-o", m], ["is also an input"]),
        ("output-missing-folder", ["pairs", m, "--truth", t, "-o", str(tmp_path / "n" / "p.csv")], ["does not exist"]),
        ("plot-device", ["pairs", m, "--truth", t, "--plot", "/dev/full"], ["/dev/full"]),
        ("study-splits-0", ["study", "--splits", "0"], ["--splits"]),
        ("study-reps-0", ["study", "--reps", "0"], ["--reps"]),
        ("study-level", ["study", "--level", "2"], ["--level"]),
        ("seed", ["holdout", "--seed", "-3"], ["--seed"]),
        # the old flag forms, for one release
        ("legacy-two-modes", ["--holdout", "--study"], ["--holdout", "--study"]),
        ("legacy-no-truth", [m], ["--truth"]),
        ("legacy-study-with-input", ["--study", m], ["unexpected extra argument"]),
    ]


EVAL_USAGE = [c[0] for c in _evaluate_usage(Path("/tmp"), Path("/tmp/m"), Path("/tmp/t"))]


@pytest.mark.parametrize("case", EVAL_USAGE)
def test_evaluate_usage(bad_input, files, tmp_path, case):
    merged = files("merged.csv", _csv(GOOD_TRUTH))
    truth = files("truth.csv", _csv(GOOD_TRUTH))
    files("grouped.csv", grouped())
    files("cover.csv", covering())
    _, args, names = next(c for c in _evaluate_usage(tmp_path, merged, truth) if c[0] == case)
    bad_input(["evaluate", *args], names=names, watch=[tmp_path])


def test_hrm_input_of_the_wrong_kind_for_holdout(bad_input, files, tmp_path):
    f = files("h.csv", t2080_hrm().to_tidy().to_csv(index=False))
    bad_input(
        ["evaluate", "holdout", f, "--methods", "hrm", "--anchor", "zz"],
        names=["unknown anchor 'zz'"],
        watch=[tmp_path],
    )
