"""perf script parser and profiles by symbol and DSO, checked against perf report's own numbers.

Fixtures (``data/``), all made with the real perf 6.1 on a machine without a PMU:

- ``known_shares.script.txt``: ``perf script -F comm,tid,time,event,ip,sym,period`` (no DSO)
  of the known-share workload, with its measured truth ``known_shares.truth.csv``.
- ``libc_kernel.script.txt``: ``perf script -F comm,tid,time,event,ip,sym,dso,period`` of
  ``perf record -e cpu-clock -c 250000 -- libc_kernel 20`` (``libc_kernel.c``), and
  ``libc_kernel.report_dso.txt`` / ``libc_kernel.report_sym.txt``: ``perf report --stdio
  --sort dso`` and ``--sort dso,sym`` of the same perf.data.
- ``libc_kernel_callchain.script.txt``: the same program recorded with ``-g`` (call chains).
- ``dso_symoff.script.txt``, ``callchain.script.txt``: pid/tid with symoff; a call chain without DSO.
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hemkit.core.errors import InputError
from hemkit.io.perf_script import (
    COLUMNS,
    check_perf_data,
    dso_name,
    parse_perf_script,
    read_perf_script,
)
from hemkit.sampling import profile_shares, read_samples

DATA = Path(__file__).parent / "data"


def perf_report(name):
    """``{(dso, sym) or dso: percent}`` from a saved ``perf report --stdio`` table."""
    out = {}
    for line in (DATA / name).read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"\s*([\d.]+)%\s+(.*?)\s*$", line)
        pct, rest = float(m.group(1)), m.group(2)
        sym = re.search(r"\s+\[[.k]\]\s+(.*)$", rest)
        key = (rest[: sym.start()].strip(), sym.group(1)) if sym else rest
        out[key] = pct
    return out


# ------------------------------------------------------------------ the parser
def test_known_share_fixture_parses():
    df = read_perf_script(DATA / "known_shares.script.txt")
    assert list(df.columns) == COLUMNS
    assert len(df) == 226 and (df["period"] == 4_000_000).all()
    assert set(df["event"]) == {"cpu-clock"} and df["comm"].iloc[0] == "shares-bf5cd7b8"
    assert df["sym"].value_counts()[["work_0", "work_1", "work_2", "work_3"]].tolist() == [31, 39, 74, 80]
    assert df["time"].is_monotonic_increasing
    assert (df["dso"] == "").all()  # this text was decoded without the dso field
    assert df.attrs["source"].endswith("known_shares.script.txt")


def test_dso_fixture_names_what_perf_names():
    df = read_perf_script(DATA / "libc_kernel.script.txt")
    assert len(df) == 325
    dsos = set(df["dso"])
    assert {"[kernel.kallsyms]", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/tmp/samp_try/libc_kernel"} <= dsos
    assert {dso_name(d) for d in dsos} >= {"[kernel.kallsyms]", "libc.so.6", "libc_kernel", "[JIT] tid 29272"}
    jit = df[df["dso"] == "/tmp/perf-29272.map"]
    assert len(jit) == 15 and (jit["sym"] == "[unknown]").all()
    assert not df["sym"].str.contains(r"\+0x").any()


def test_callchain_keeps_leaf_frame():
    df = read_perf_script(DATA / "callchain.script.txt")
    assert df["sym"].tolist()[:3] == ["fb", "fa", "fb"]
    assert df["ip"].iloc[0] == "118b" and df["period"].iloc[0] == 1_000_000
    assert (df["dso"] == "").all()
    chain = read_perf_script(DATA / "libc_kernel_callchain.script.txt")
    assert len(chain) == 13
    first = chain.iloc[0]
    assert (first["sym"], first["dso"]) == ("lock_vma_under_rcu", "[kernel.kallsyms]")
    assert (chain.iloc[1]["sym"], chain.iloc[1]["dso"]) == ("spin", "/tmp/samp_try/libc_kernel")


def test_dso_symoff_pid_tid():
    df = read_perf_script(DATA / "dso_symoff.script.txt")
    assert df["sym"].iloc[0] == "_raw_spin_trylock" and df["dso"].iloc[0] == "[kernel.kallsyms]"
    assert df["tid"].iloc[0] == 4574 and df["sym"].iloc[1] == "init_cpu_features.constprop.0"
    assert df["dso"].iloc[1] == "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"


def test_minimal_fields_comm_with_spaces_and_odd_symbols():
    with pytest.raises(InputError, match="line 1"):
        parse_perf_script("garbage line\n")
    df = parse_perf_script("my prog 12 5.5: 1000 400123 main\nmy prog 12 5.6: 1000 400124 [unknown]\n")
    assert df["comm"].tolist() == ["my prog"] * 2 and df["period"].tolist() == [1000, 1000]
    assert df["sym"].tolist() == ["main", "[unknown]"]
    df = parse_perf_script("x 1 2.0: 4011a6 f\n")  # no period printed: each sample counts 1
    assert df["period"].iloc[0] == 1 and df["ip"].iloc[0] == "4011a6"
    cpp = "x 1/1 [001] 2.0: 10 cycles:u: 4011a6 ns::f(int, char const*)+0x1f (/opt/my app (deleted))\n"
    row = parse_perf_script(cpp).iloc[0]
    assert (row["sym"], row["dso"], row["event"]) == ("ns::f(int, char const*)", "/opt/my app (deleted)", "cycles:u")
    row = parse_perf_script("x 1 2.0: 10 sched:sched_switch: ffff8 __schedule+0x618 ([kernel.kallsyms])").iloc[0]
    assert (row["event"], row["sym"]) == ("sched:sched_switch", "__schedule")
    assert parse_perf_script("# perf script --header\n#\nx 1 2.0: 4011a6 f\n").shape[0] == 1


@pytest.mark.parametrize(
    "text, match",
    [
        ("", "no samples"),
        ("\n\n", "no samples"),
        ("hello world\n", "line 1"),
        ("x 1 2.0: 4011a6 f\n\tnot a frame\n", "line 2"),
        ("\t 4011a6 f\n", "line 1"),
        ("x 99999999999 2.0: 4011a6 f\n", "line 1"),
        ("x 1 2.0: 99999999999999999999 4011a6 f\n", "period"),
    ],
)
def test_bad_text_raises_naming_the_line(text, match):
    with pytest.raises(InputError, match=match) as err:
        parse_perf_script(text, source="x.txt")
    assert str(err.value).startswith("x.txt: ") and "\n" not in str(err.value)


def test_missing_folder_binary_empty_and_perf_data_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_perf_script(tmp_path / "nope.txt")
    with pytest.raises(InputError, match="is a folder"):
        read_perf_script(tmp_path)
    bad = tmp_path / "bin.dat"
    bad.write_bytes(b"\xff\xfe\x00\x81" * 10)
    with pytest.raises(InputError, match="not UTF-8 at byte 0"):
        read_perf_script(bad)
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"x 1 2.0: 4011a6 f\n\x00\x00")
    with pytest.raises(InputError, match="binary data"):
        read_perf_script(nul)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(InputError, match="empty file"):
        read_perf_script(empty)
    data = tmp_path / "perf.data"
    data.write_bytes(b"PERFILE2" + bytes(200))
    with pytest.raises(InputError, match="a perf.data file; decode it"):
        read_perf_script(data)


def _header(data_offset, data_size, size=104):
    head = bytearray(size)
    head[:8] = b"PERFILE2"
    head[8:16] = (104).to_bytes(8, "little")
    head[40:48] = data_offset.to_bytes(8, "little")
    head[48:56] = data_size.to_bytes(8, "little")
    return bytes(head)


def test_truncated_perf_data_is_refused(tmp_path):
    p = tmp_path / "perf.data"
    p.write_bytes(_header(104, 4000) + bytes(1000))
    with pytest.raises(InputError, match="truncated: its data section ends at byte 4104, the file has 1104"):
        check_perf_data(p)
    p.write_bytes(_header(104, 1000) + bytes(1000))
    check_perf_data(p)  # complete
    p.write_bytes(b"PERFILE2" + (16).to_bytes(8, "little"))
    check_perf_data(p)  # pipe mode: no sizes to check
    p.write_bytes(b"PERFILE2\x68")
    with pytest.raises(InputError, match="header is cut short"):
        check_perf_data(p)
    p.write_bytes(b"PERFILE3" + bytes(100))
    with pytest.raises(InputError, match="not a perf.data file"):
        check_perf_data(p)


# ------------------------------------------------------------------ shares against perf report
def test_dso_shares_equal_perf_reports_own_numbers():
    """Same samples, same weighting by period: our shares are perf report's overheads."""
    p = profile_shares(read_samples(DATA / "libc_kernel.script.txt"), by="dso")
    ours = (p.table["share"] * 100).round(2).to_dict()
    assert ours == perf_report("libc_kernel.report_dso.txt")
    assert list(p.table.index[:3]) == ["libc_kernel", "[kernel.kallsyms]", "libc.so.6"]
    assert p.table.loc["libc.so.6", "path"] == "/usr/lib/x86_64-linux-gnu/libc.so.6"
    t = p.table
    assert ((t["low"] <= t["share"]) & (t["share"] <= t["high"])).all()
    assert t["share"].sum() == pytest.approx(1) and p.event == "cpu-clock"


def test_symbol_shares_equal_perf_report_by_dso_and_symbol():
    p = profile_shares(read_samples(DATA / "libc_kernel.script.txt"), by="sym")
    report = perf_report("libc_kernel.report_sym.txt")
    ours = {(row.dso, sym): round(row.share * 100, 2) for sym, row in p.table.iterrows()}
    named = {k: v for k, v in report.items() if not k[1].startswith("0x")}  # perf report prints JIT addresses
    assert {k: ours[k] for k in named} == named
    assert ours[("[JIT] tid 29272", "[unknown]")] == report[("[JIT] tid 29272", "0x00007fc03f1a100d")]


def test_callchain_profile_by_dso_equals_perf_report():
    p = profile_shares(read_samples(DATA / "libc_kernel_callchain.script.txt"), by="dso")
    assert (p.table["share"] * 100).round(2).to_dict() == {
        "libc.so.6": 38.46,
        "[kernel.kallsyms]": 30.77,
        "libc_kernel": 30.77,
    }


def test_same_symbol_in_two_dsos_are_two_rows():
    text = "\n".join(
        [
            "a 1 1.0: 10 cpu-clock: 1 f (/bin/a)",
            "a 1 1.1: 10 cpu-clock: 2 f (/lib/libx.so)",
            "a 1 1.2: 10 cpu-clock: 2 f (/lib/libx.so)",
            "a 1 1.3: 10 cpu-clock: 3 g (/lib/libx.so)",
            "a 1 1.4: 10 cpu-clock: 4 h (/other/libx.so)",
        ]
    )
    df = parse_perf_script(text)
    by_sym = profile_shares(df).table
    assert by_sym.loc["f (libx.so)", "samples"] == 2 and by_sym.loc["f (a)", "samples"] == 1
    assert by_sym.loc["g", "dso"] == "libx.so"
    by_dso = profile_shares(df, by="dso").table
    assert set(by_dso.index) == {"a", "/lib/libx.so", "/other/libx.so"}  # same file name: full paths


def test_by_dso_needs_dso_names():
    df = read_samples(DATA / "known_shares.script.txt")
    with pytest.raises(InputError, match=r"known_shares.script.txt: the samples carry no DSO names"):
        profile_shares(df, by="dso")
    assert "dso" not in profile_shares(df).table.columns  # by symbol: plain names


def test_known_share_fixture_intervals_cover_truth():
    df = read_samples(DATA / "known_shares.script.txt")
    truth = pd.read_csv(DATA / "known_shares.truth.csv", index_col="function")["truth"]
    p = profile_shares(df[df["sym"].isin(truth.index)])
    t = p.table.loc[truth.index]
    assert p.n_samples == 224 and np.isclose(t["share"].sum(), 1)
    assert ((t["low"] <= truth) & (truth <= t["high"])).all()
    assert t.loc["work_0", "share"] == pytest.approx(31 / 224)


def test_weighted_shares_use_periods_and_effective_n():
    df = pd.DataFrame(
        {
            "sym": ["a", "b", "b"],
            "period": [2000, 1000, 1000],
            "comm": "x",
            "event": "e",
            "tid": 1,
            "time": [1.0, 2.0, 3.0],
        }
    )
    p = profile_shares(df)
    assert p.table.loc["a", "share"] == pytest.approx(0.5)
    assert p.n_eff == pytest.approx(16 / 6)
    assert p.table.loc["b", "runs"] == 1 and p.table.loc["b", "R_est"] == 2


def test_profile_errors_name_the_culprit():
    df = read_samples(DATA / "known_shares.script.txt")
    with pytest.raises(InputError, match="no samples of command 'nope'"):
        profile_shares(df, comm="nope")
    with pytest.raises(InputError, match="cannot profile by 'colour'"):
        profile_shares(df, by="colour")
    with pytest.raises(InputError, match="method"):
        profile_shares(df, method="bayes")
    with pytest.raises(InputError, match="level"):
        profile_shares(df, level=1.5)
    with pytest.raises(InputError, match="no samples of event 'cycles' \\(events: cpu-clock\\)"):
        profile_shares(df, event="cycles")
    two = pd.concat([df, df.assign(event="cycles")])
    assert profile_shares(two, event="cycles").n_samples == len(df)
    with pytest.raises(InputError, match="period"):
        profile_shares(df.assign(period=0))


# ------------------------------------------------------------------ properties
@settings(max_examples=200, deadline=None)
@given(
    comm=st.from_regex(r"[A-Za-z_][A-Za-z0-9_ .:-]{0,13}[A-Za-z0-9_]", fullmatch=True),
    tid=st.integers(1, 4_000_000),
    time=st.floats(0, 1e6, allow_nan=False).map(lambda x: round(x, 6)),
    period=st.integers(1, 10**10),
    ip=st.integers(1, 2**64 - 1).map(lambda x: f"{x:x}"),
    sym=st.from_regex(r"[A-Za-z_][A-Za-z0-9_.:<>, ()]{0,30}[A-Za-z0-9_)>]", fullmatch=True),
    dso=st.sampled_from(["/usr/bin/x", "[kernel.kallsyms]", "[unknown]", "/opt/a b/lib (deleted)"]),
    event=st.sampled_from(["cpu-clock", "cycles", "cycles:u", "r00c0", "sched:sched_switch"]),
)
def test_parser_round_trip(comm, tid, time, period, ip, sym, dso, event):
    """Lines in perf script's layout parse back to their fields."""
    line = f"{comm:>16} {tid:>6} {time:12.6f}: {period:>10} {event}: {ip:>16} {sym}+0x1f ({dso})"
    row = parse_perf_script(line + "\n").iloc[0]
    got = (row["comm"], int(row["tid"]), int(row["period"]), row["event"], row["ip"], row["sym"], row["dso"])
    assert got == (comm, tid, period, event, ip, sym.strip(), dso)
    assert row["time"] == pytest.approx(time, abs=1e-6)


LINE_CHARS = st.sampled_from(list(" \t:/.[]()+x0123456789abcdefkmnopqrstu-_#\r\x00é\u2028"))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=400),
        st.lists(st.text(LINE_CHARS, max_size=100), max_size=12).map("\n".join),
        st.lists(
            st.tuples(st.text(LINE_CHARS, max_size=20), st.integers(-5, 10**12), st.text(LINE_CHARS, max_size=40)).map(
                lambda t: f"{t[0]} {t[1]} 1.5: {t[2]}"
            ),
            max_size=8,
        ).map("\n".join),
    )
)
def test_parser_raises_only_input_error_or_returns_a_valid_table(text):
    try:
        df = parse_perf_script(text, source="any.txt")
    except InputError as exc:
        assert str(exc).startswith("any.txt: ") and "\n" not in str(exc)
        return
    assert list(df.columns) == COLUMNS and len(df) >= 1
    assert df["tid"].dtype == np.int64 and df["period"].dtype == np.int64 and (df["period"] >= 0).all()
    assert np.isfinite(df["time"]).all() and (df["time"] >= 0).all()
    for col in ("comm", "event", "sym", "dso"):  # categorical columns of str
        assert isinstance(df[col].dtype, pd.CategoricalDtype) and pd.api.types.is_string_dtype(df[col].cat.categories)
    assert all(isinstance(s, str) and s != "" for s in df["sym"]) and all(isinstance(s, str) for s in df["dso"])


def test_names_that_are_not_utf8_are_read_with_one_warning(tmp_path):
    """perf prints names as binaries hold them (fails before issue 22: the file was refused as binary)."""
    import warnings

    from hemkit.core.errors import HemkitWarning

    good = Path(__file__).parent / "data" / "known_shares.script.txt"
    raw = good.read_bytes()
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(raw.replace(b"work_2", b"w\xe9rk_2"))  # a latin-1 symbol name
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = read_perf_script(bad)
    want = read_perf_script(good)
    assert len(got) == len(want) and (got["period"] == want["period"]).all()
    assert set(got["sym"]) == {s.replace("work_2", "w\ufffdrk_2") for s in want["sym"]}
    said = [str(w.message) for w in caught if issubclass(w.category, HemkitWarning)]
    n = raw.count(b"work_2")
    assert len(said) == 1 and said[0].startswith(f"{bad}: {n} byte sequence(s) that are not UTF-8, the first on line")


@pytest.mark.perf
def test_a_perf_data_file_of_a_program_with_a_non_utf8_name(tmp_path, cli):
    """perf script prints the command's raw bytes: the profile is read, with one warning."""
    import shutil

    from hemkit.core.errors import HemkitError
    from hemkit.external.perf import perf_record

    shell = shutil.which("sh")
    if shell is None:
        pytest.skip("no sh")
    prog = tmp_path / "sp\udce9n"  # the byte 0xe9 in the file name (os.fsencode gives it back)
    shutil.copy(shell, prog)
    data = tmp_path / "perf.data"
    try:
        perf_record([str(prog), "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"], data, period=250_000)
    except HemkitError as exc:
        pytest.skip(f"perf cannot record here: {exc}")
    res = cli(["sampling", "profile", data, "--by", "comm"])
    assert res.exit_code == 0, res.stderr
    assert "sp\ufffdn" in res.stdout
    warned = [line for line in res.stderr.splitlines() if "not UTF-8" in line]
    assert len(warned) == 1 and "through perf script" in warned[0]
