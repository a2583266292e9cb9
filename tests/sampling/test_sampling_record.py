"""Real ``perf record`` profiles: DSOs and symbols named as perf names them, shares as perf report has them.

Skipped, with the reason, where perf cannot record (no perf, sampling not allowed).
"""

import platform
import re

import pytest

from hemkit.core.errors import InputError
from hemkit.core.progress import RecordingProgress
from hemkit.external.perf import find_perf
from hemkit.external.process import run
from hemkit.sampling import CheckOptions, profile_shares, read_samples, validate_coverage
from hemkit.sampling.record import coverage_table, record_known_shares

pytestmark = pytest.mark.perf


def perf_report_dso(data):
    """perf report's own overhead per DSO (percent, 2 decimals), all samples."""
    done = run([find_perf(), "report", "-i", str(data), "--stdio", "--sort", "dso"])
    out = {}
    for line in done.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(.*?)\s*$", line)
        if m and not line.startswith("#"):
            out[m.group(2)] = float(m.group(1))
    return out


def test_profile_by_dso_lists_binary_libc_and_kernel(libc_kernel_record, cli, tmp_path):
    data, exe = libc_kernel_record
    res = cli(["sampling", "profile", data, "--by", "dso", "-o", tmp_path / "dso.csv", "--plot", tmp_path / "dso.png"])
    assert res.exit_code == 0, res.stderr
    binary = exe.name
    for name in (binary, "libc.so.6", "[kernel.kallsyms]"):
        assert name in res.stdout
    assert res.stdout.strip().splitlines()[-1].startswith("sampling profile: read ")
    p = profile_shares(read_samples(data), by="dso")
    t = p.table
    # the binary, libc and the kernel each take a real share (the program spends ~1/3 in each)
    for name in (binary, "libc.so.6", "[kernel.kallsyms]"):
        assert 0.1 < t.loc[name, "share"] < 0.6 and t.loc[name, "low"] < t.loc[name, "share"] < t.loc[name, "high"]
    assert t.loc[binary, "path"] == str(exe.resolve())
    # perf's own numbers for the very same samples
    assert (t["share"] * 100).round(2).to_dict() == perf_report_dso(data)
    saved = (tmp_path / "dso.csv").read_text().splitlines()
    assert saved[0].startswith("dso,path,samples,period,share,se,low,high")
    assert (tmp_path / "dso.png").stat().st_size > 1000


def test_profile_by_symbol_names_symbols_with_their_dso(libc_kernel_record):
    data, exe = libc_kernel_record
    t = profile_shares(data, by="sym").table
    assert t.loc["spin", "dso"] == exe.name
    libc = t[t["dso"] == "libc.so.6"]
    assert libc.index.str.contains("mem(?:set|cpy|move)").any()
    assert (t["dso"] == "[kernel.kallsyms]").any()
    if platform.machine() == "x86_64":  # the program runs code from an anonymous mapping there
        jit = t[t["dso"].str.startswith("[JIT] tid ")]
        assert "[unknown]" in jit.index and jit["share"].sum() > 0.01


def test_known_share_run_and_coverage(perf_can_record):
    run_ = record_known_shares((20_000, 40_000), period=500_000, event="cpu-clock")
    t = coverage_table(run_)
    assert list(t.index) == ["work_0", "work_1"] and t["n"].iloc[0] > 20
    assert (t["designed"] - [1 / 3, 2 / 3]).abs().max() < 1e-12
    assert run_.summary().loc["work_1", "samples"] > 0
    rec = RecordingProgress()
    options = CheckOptions(periods=(500_000,), freqs=(997,), runs=1, units=(20_000, 40_000))
    res = validate_coverage(options, methods=("wilson", "bound"), progress=rec)
    assert [e[1:] for e in rec.events] == [
        (1, 2, "cpu-clock -c 500000, granularity 50"),
        (2, 2, "cpu-clock -F 997, granularity 50"),
    ]
    overall = res.summary().xs("all", level="setting")
    assert set(overall.index.get_level_values("method")) == {"wilson", "bound"} and len(res.cases) == 8


def test_record_cycles_on_a_pmu_machine(hardware_perf):
    """With a PMU, event-based sampling on cycles: shares near the measured CPU-time shares."""
    run_ = record_known_shares((20_000, 60_000), period=2_000_000, event="cycles")
    t = coverage_table(run_)
    assert run_.event == "cycles" and t["n"].iloc[0] > 100
    assert (t["share"] - t["truth"]).abs().max() < 0.05


def test_known_shares_in_two_threads(perf_can_record):
    """Two worker threads, each sampled on its own clock: the truth sums both, the profile spans both."""
    run_ = record_known_shares((20_000, 40_000), period=250_000, event="cpu-clock", threads=2, granularity=500)
    mine = run_.samples[run_.samples["sym"].isin(run_.truth.index)]
    assert mine["tid"].nunique() == 2
    assert (run_.truth - [1 / 3, 2 / 3]).abs().max() < 0.03
    t = coverage_table(run_)
    wide = coverage_table(run_, method="wilson")
    # calls of ~4 sampling intervals: the calibrated interval is several times narrower than the binomial
    assert ((t["high"] - t["low"]) < (wide["high"] - wide["low"]) / 2).all()
    with pytest.raises(InputError, match="threads must be 1 to 64"):
        record_known_shares((1, 1), period=250_000, threads=0)
    with pytest.raises(InputError, match="threads"):
        CheckOptions(periods=(250_000,), threads=(0,))


@pytest.mark.parametrize("methods", [(), []])
def test_validate_coverage_needs_a_method(methods):
    """Refused before anything is recorded, naming methods and the valid ones (was: unknown interval method '')."""
    with pytest.raises(
        InputError, match=r"^methods is empty: give at least one interval method \(systematic, wilson, bound\)$"
    ):
        validate_coverage(methods=methods)
    with pytest.raises(InputError, match=r"^unknown interval method 'wilsn' \(use systematic, wilson, bound\)$"):
        validate_coverage(methods=("wilson", "wilsn"))
    # one method as a string is that method, not its letters (was: unknown interval method 'w')
    with pytest.raises(InputError, match=r"^unknown interval method 'wilsn' \(use systematic, wilson, bound\)$"):
        validate_coverage(methods="wilsn")
