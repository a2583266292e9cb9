"""``hemkit derive run | analyze | report`` end to end (fake perf) and their error paths (exit code 2)."""

import json

import pandas as pd
from click.testing import CliRunner

from hemkit.cli import main


def _run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_run_analyze_report_with_fake_perf(fake_perf, tmp_path):
    ev = tmp_path / "events.txt"
    ev.write_text("# branch events\nex_ret_brn r00c2\nex_ret_brn_misp r00c3\ncond r10d1\ncond_tkn,r20d1\ncycles\n")
    meas = tmp_path / "m.csv"
    r = _run("derive", "run", "--family", "branch", "--events", str(ev), "--iterations", "1000", "-o", str(meas))
    assert r.exit_code == 0, r.output
    df = pd.read_csv(meas)
    assert set(df["event"]) == {"ex_ret_brn", "ex_ret_brn_misp", "cond", "cond_tkn", "cycles"}
    res = tmp_path / "res.json"
    r = _run("derive", "analyze", str(meas), "--family", "branch", "-o", str(res))
    assert r.exit_code == 0, r.output
    assert "Mispredicted Branches." in r.output and "1xex_ret_brn_misp" in r.output
    assert json.loads(res.read_text())["chosen"]
    presets = tmp_path / "papi.csv"
    presets.write_text(
        "preset,definition\nPAPI_BR_MSP,1xex_ret_brn_misp\nPAPI_BR_INS,1xex_ret_brn\nPAPI_BR_UCN,1xcond\n"
    )
    md, png = tmp_path / "t.md", tmp_path / "v.png"
    r = _run("derive", "report", str(res), "-o", str(md), "--plot", str(png), "--presets", str(presets))
    assert r.exit_code == 0, r.output
    text = md.read_text()
    assert "| Mispredicted Branches. | PAPI_BR_MSP | 1xex_ret_brn_misp | 1xex_ret_brn_misp | True |" in text
    assert "| Unconditional Branches. | PAPI_BR_UCN |" in text and "False" in text
    assert png.stat().st_size > 1000
    r = _run("derive", "report", str(res), "-o", str(tmp_path / "t.csv"))
    assert r.exit_code == 0 and "backward_error" in (tmp_path / "t.csv").read_text()


def test_errors_exit_2_with_one_line(fake_perf, tmp_path):
    runner = CliRunner()
    ev = tmp_path / "events.txt"
    ev.write_text("r0103\n")
    r = runner.invoke(main, ["derive", "run", "--family", "branch", "--events", str(ev), "-o", str(tmp_path / "m.csv")])
    assert r.exit_code == 2
    assert "hemkit: error: perf cannot count event r0103 on this machine: <not supported>" in r.output
    r = runner.invoke(main, ["derive", "run", "--family", "branch", "--events", str(tmp_path / "none.txt")])
    assert r.exit_code == 2 and "none.txt: no such event list" in r.output
    r = runner.invoke(main, ["derive", "analyze", str(tmp_path / "nope.csv"), "--family", "flops"])
    assert r.exit_code == 2 and "nope.csv: no such measurements file" in r.output
    bad = tmp_path / "bad.csv"
    bad.write_text("kernel,size,rep,event,value\nnt,1,0,a,1\nzz,9,0,a,1\n")
    r = runner.invoke(main, ["derive", "analyze", str(bad), "--family", "branch"])
    assert r.exit_code == 2 and "kernel loop 'zz/9' is not in the family's basis" in r.output
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    r = runner.invoke(main, ["derive", "report", str(junk)])
    assert r.exit_code == 2 and "junk.json: not a hemkit derive result" in r.output
    r = runner.invoke(main, ["derive", "run", "--family", "gpu"])
    assert r.exit_code == 2  # click's own usage error
