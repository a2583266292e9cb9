"""The ``hemkit mpx`` commands: happy paths on the recorded fixture and error paths (exit code 2)."""

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from hemkit.cli import main

DATA = Path(__file__).parent / "data"


def run(*args):
    return CliRunner().invoke(main, ["mpx", *map(str, args)])


def test_emulate_estimate_score(tmp_path):
    mpx = tmp_path / "m.parquet"
    r = run("emulate", DATA / "ocoe_interval.csv", "-c", 2, "-o", mpx)
    assert r.exit_code == 0, r.output
    assert "40% of the time" in r.output
    out = tmp_path / "e.csv"
    r = run("estimate", mpx, "-m", "linear", "-o", out)
    assert r.exit_code == 0, r.output
    est = pd.read_csv(out)
    assert len(est) == len(pd.read_parquet(mpx)) and est["estimate"].notna().all()
    ra_png, s_png = tmp_path / "ra.png", tmp_path / "s.png"
    r = run(
        "score",
        DATA / "ocoe_interval.csv",
        "-c",
        3,
        "-m",
        "fixed",
        "-m",
        "growth",
        "--by",
        "event",
        "--plot-ra",
        ra_png,
        "--plot-series",
        "ocoe_interval",
        "page-faults",
        s_png,
        "-o",
        tmp_path / "s.csv",
    )
    assert r.exit_code == 0, r.output
    assert "RA per event" in r.output and "page-faults" in r.output
    assert ra_png.stat().st_size > 1000 and s_png.stat().st_size > 1000
    assert set(pd.read_csv(tmp_path / "s.csv")["estimator"]) == {"fixed", "growth"}


def test_fit_and_use_a_model(tmp_path):
    pytest.importorskip("torch")
    model = tmp_path / "mlp.pt"
    r = run("fit", DATA / "ocoe_interval.csv", "-m", "mlp", "--epochs", 2, "-c", 2, "-o", model)
    assert r.exit_code == 0, r.output
    r = run("score", DATA / "ocoe_interval.csv", "--no-clean", "-m", "fixed", "-m", model)
    assert r.exit_code == 0, r.output
    assert "mlp" in r.output


def test_errors_exit_2_with_one_line(tmp_path):
    cases = [
        (["score", tmp_path / "missing.csv"], "no such file"),
        (["emulate", DATA / "ocoe_interval.csv", "-c", 0, "-o", tmp_path / "x.parquet"], "counters must be >= 1"),
        (["estimate", DATA / "ocoe_interval.csv", "-m", "magic", "-o", tmp_path / "x.csv"], "unknown estimator"),
        (["score", DATA / "ocoe_interval.csv", "-m", "mlp"], "must be trained first"),
        (["score", DATA / "ocoe_interval.csv", "-m", tmp_path / "nomodel.pt"], "no such model file"),
        (["fit", DATA / "ocoe_interval.csv", "-o", tmp_path / "model.bin"], "model files end in .pt"),
    ]
    for args, msg in cases:
        r = run(*args)
        assert r.exit_code == 2, (args, r.output)
        assert msg in r.output, (args, r.output)
        assert "Traceback" not in r.output


def test_trace_records_real_perf(tmp_path, software_perf):
    out = tmp_path / "t.parquet"
    r = run(
        "trace",
        "-e",
        "task-clock,page-faults",
        "--runs",
        1,
        "-w",
        "dd",
        "-o",
        out,
        "--",
        "dd",
        "if=/dev/zero",
        "of=/dev/null",
        "bs=1M",
        "count=300",
    )
    assert r.exit_code == 0, r.output
    tr = pd.read_parquet(out)
    assert set(tr["event"]) == {"task-clock", "page-faults"} and tr["workload"].iloc[0] == "dd"
    assert (tr["percent"] == 100).all()


def test_estimate_reads_real_multiplexed_perf_output(tmp_path):
    # perf stat -x, -I lines of a multiplexed run: scaled values, running percentages < 100
    text = "\n".join(
        [
            "     0.010000000,4000,,instructions,2500000,25.00,,",
            "     0.010000000,<not counted>,,branches,0,0.00,,",
            "     0.020000000,<not counted>,,instructions,0,0.00,,",
            "     0.020000000,900,,branches,5000000,50.00,,",
            "     0.030000000,2000,,instructions,10000000,100.00,,",
            "     0.030000000,800,,branches,10000000,100.00,,",
        ]
    )
    src = tmp_path / "mpx.txt"
    src.write_text(text + "\n")
    out = tmp_path / "e.csv"
    r = run("estimate", src, "-m", "fixed", "-o", out)
    assert r.exit_code == 0, r.output
    est = pd.read_csv(out).set_index(["event", "step"])["estimate"]
    assert est[("instructions", 0)] == pytest.approx(4000)  # perf's own scaled value, kept
    assert est[("instructions", 1)] == pytest.approx(4000)  # <not counted>: the last rate holds
    assert est[("branches", 1)] == pytest.approx(900) and est[("branches", 0)] == pytest.approx(900)
    assert est[("instructions", 2)] == 2000
    r = run("estimate", src, "-m", "mlp", "-o", out)
    assert r.exit_code == 2 and "must be trained first" in r.output
