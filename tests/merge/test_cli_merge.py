"""The merge and evaluate commands, run as a user runs them (a subprocess)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hemkit.datasets import t2080_hrm, t2080_path


def hemkit(*args, cwd=None):
    env = dict(os.environ, COLUMNS="120")
    return subprocess.run(
        [sys.executable, "-m", "hemkit", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


def test_merge_bundled_hrm_writes_reference(tmp_path):
    out = tmp_path / "hrm.csv"
    p = hemkit("merge", "--method", "hrm", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert "merged 3 groups of bundled T2080 HRM data into 1000 runs x 16 events" in p.stdout
    merged = pd.read_csv(out)
    ref = pd.read_csv(t2080_path("hrm_merged_reference.csv"))
    np.testing.assert_array_equal(merged[ref.columns].to_numpy(), ref.to_numpy())


def test_merge_tidy_and_raw_inputs(tmp_path):
    tidy = tmp_path / "hrm.parquet"
    t2080_hrm().to_tidy().to_parquet(tidy)
    p = hemkit("merge", str(tidy), "--method", "hrm", "--anchor", "PROCESSOR_CYCLES", "-o", str(tmp_path / "a.csv"))
    assert p.returncode == 0, p.stderr
    p = hemkit(
        "merge",
        str(t2080_path("much_raw.csv")),
        "--pmcs",
        "6",
        "--codes",
        str(t2080_path("code2name.csv")),
        "--method",
        "much",
        "--n-sims",
        "5",
        "-o",
        str(tmp_path / "much.parquet"),
    )
    assert p.returncode == 0, p.stderr
    merged = pd.read_parquet(tmp_path / "much.parquet")
    assert merged.shape == (1000, 16) and "L2_MISSES" in merged.columns


def test_evaluate_truth_and_holdout(tmp_path):
    from hemkit.datasets.synthetic import make_truth, split_into_groups
    from hemkit.plan import much_design

    truth = make_truth(6, 3000, seed=0)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    r = split_into_groups(truth, much_design(list(truth.columns), 3), 100, seed=0)
    r.to_tidy().to_csv(tmp_path / "groups.csv", index=False)
    p = hemkit("merge", str(tmp_path / "groups.csv"), "--method", "copula", "-o", str(tmp_path / "m.csv"))
    assert p.returncode == 0, p.stderr
    p = hemkit(
        "evaluate",
        str(tmp_path / "m.csv"),
        "--truth",
        str(tmp_path / "truth.csv"),
        "--plot",
        str(tmp_path / "f.png"),
        "--pairs",
        str(tmp_path / "pairs.csv"),
    )
    assert p.returncode == 0, p.stderr
    pairs = pd.read_csv(tmp_path / "pairs.csv")
    assert len(pairs) == 15 and (tmp_path / "f.png").stat().st_size > 5000
    assert pairs["diff_pearson"].abs().max() < 0.5
    p = hemkit("evaluate", "--holdout", "--methods", "much,copula")
    assert p.returncode == 0, p.stderr
    assert "much" in p.stdout and "copula" in p.stdout


def write(path, text):
    Path(path).write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "content, args, message",
    [
        (None, ["merge", "/no/such.csv"], "/no/such.csv: no such file"),
        ("group,run,event\n1,1,a\n", ["merge", "{f}"], "not a readings file"),
        (
            "group,run,event,value\n"
            + "".join(f"1,{r},a,{r}\n1,{r},b,{'nan' if r == 2 else r * r}\n" for r in range(5)),
            ["merge", "{f}"],
            "event 'b' has NaN in run 2 of group 1",
        ),
        (
            "group,run,event,value\n" + "".join(f"1,{r},a,{r}\n1,{r},b,{'lots' if r == 1 else r}\n" for r in range(5)),
            ["merge", "{f}"],
            "non-numeric value 'lots' in run 1 of group 1",
        ),
        (
            "group,run,event,value\n" + "".join(f"1,{r},a,{r}\n1,{r},b,5\n" for r in range(5)),
            ["merge", "{f}"],
            "event 'b' is constant (5)",
        ),
        (
            "group,run,event,value\n"
            + "".join(f"1,{r},a,{r}\n1,{r},b,{r % 3}\n2,{r},a,{r}\n2,{r},c,{r % 2}\n" for r in range(6)),
            ["merge", "{f}", "--method", "much"],
            "events 'b' and 'c' were never read together",
        ),
        (
            "group,run,event,value\n" + "".join(f"1,{r},a,{r}\n1,{r},b,{r % 3}\n" for r in range(5)),
            ["merge", "{f}", "--method", "hrm"],
            "HRM needs an anchor event",
        ),
        (
            "group,run,event,value\n" + "".join(f"1,{r},a,{r}\n1,{r},b,{r % 3}\n" for r in range(5)),
            ["merge", "{f}", "--method", "hrm", "--anchor", "zz"],
            "unknown anchor 'zz'",
        ),
        (
            "group,run,event,value\n" + "".join(f"1,{r},a,{r}\n1,{r},b,{r % 3}\n" for r in range(5)),
            ["merge", "{f}", "--pearson-weight", "lots"],
            "--pearson-weight must be a number",
        ),
        (None, ["merge", str(t2080_path("much_raw.csv")), "--pmcs", "5"], "144 columns is not a multiple of 5"),
        ("a,b\n1,2\n2,x\n3,1\n", ["evaluate", "{f}", "--truth", "{f}"], "column 'b' is not numeric"),
        (None, ["evaluate"], "give MERGED and --truth, or --holdout"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(tmp_path, content, args, message):
    f = write(tmp_path / "in.csv", content) if content is not None else ""
    p = hemkit(*[a.replace("{f}", f) for a in args])
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in p.stderr
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_drop_constant_on_a_raw_file(tmp_path):
    raw = tmp_path / "raw.csv"
    raw.write_text("X1,X2,X1.1,X3\n" + "".join(f"{10 + r},{(r * 7) % 5},{20 + r},5\n" for r in range(6)))
    p = hemkit("merge", str(raw), "--pmcs", "2", "--method", "much", "--n-sims", "3", "--impute", "maxdet")
    assert p.returncode == 2 and "event 'X3' is constant (5)" in p.stderr
    p = hemkit("merge", str(raw), "--pmcs", "2", "--method", "much", "--n-sims", "3", "--drop-constant")
    assert p.returncode == 0, p.stderr
    assert "dropped constant event(s) 'X3'" in p.stderr
    assert "merged 2 groups" in p.stdout
