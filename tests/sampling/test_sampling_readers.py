"""The fast readers of sampling profiles give the line parser's table, and bad profiles are said in one line.

Issue 24 item 4: ``perf.data`` is read through a ``perf script --dlfilter`` (binary records) or,
for text, an array parser over the bytes (:func:`hemkit.io.perf_script._parse_fast`, fed in
chunks by :class:`hemkit.io.perf_script.ScriptChunks`); both must give exactly what the
line-by-line parser (:func:`hemkit.io.perf_script._parse_lines`) gives on the same recording.
Item 5: names that are not UTF-8, no samples of the program, lost samples and several events
are read, with one warning line each; only a profile with nothing to report is an error.
"""

import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hemkit.core.errors import HemkitWarning
from hemkit.io.perf_script import (
    ScriptChunks,
    _parse_fast,
    _parse_lines,
    parse_perf_script,
    perf_data_command,
    recorded_program,
)
from hemkit.sampling import profile_shares, read_samples
from hemkit.sampling.profile import _decode, _decode_records

DATA = Path(__file__).parent / "data"
SCRIPTS = sorted(DATA.glob("*.script.txt"))


def _same_profiles(a: pd.DataFrame, b: pd.DataFrame) -> None:
    for by in ("sym", "dso", "comm", "tid"):
        pd.testing.assert_frame_equal(profile_shares(a, by=by).table, profile_shares(b, by=by).table)


# ------------------------------------------------------------------ item 4: same table, faster
@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_array_parser_gives_the_line_parsers_table_on_every_fixture(path):
    data = path.read_bytes()
    slow = _parse_lines(data.decode(), str(path))
    fast = _parse_fast(data)
    if "callchain" in path.name:
        assert fast is None  # call chains: left to the line parser
    else:
        assert fast is not None
        pd.testing.assert_frame_equal(fast, slow)
    pd.testing.assert_frame_equal(parse_perf_script(data, str(path)).reset_index(drop=True), slow)


def test_chunks_give_the_whole_table():
    data = (DATA / "libc_kernel.script.txt").read_bytes()
    chunks = ScriptChunks("x", chunk_bytes=1000)  # about 8 lines a piece, cut anywhere
    for i in range(0, len(data), 777):
        chunks.feed(data[i : i + 777])
    assert len(chunks.frames) > 20
    got = chunks.result(lambda: b"")
    pd.testing.assert_frame_equal(got, _parse_lines(data.decode(), "x"))
    _same_profiles(got, _parse_lines(data.decode(), "x"))


def test_chunks_fall_back_to_the_line_parser_for_call_chains():
    data = (DATA / "libc_kernel_callchain.script.txt").read_bytes()
    chunks = ScriptChunks("x", chunk_bytes=500)
    chunks.feed(data)
    got = chunks.result(lambda: data)
    assert not chunks.fast
    pd.testing.assert_frame_equal(got.reset_index(drop=True), _parse_lines(data.decode(), "x"))


COMM = st.from_regex(r"[A-Za-z_#][A-Za-z0-9_ .:/#-]{0,13}[A-Za-z0-9_]", fullmatch=True)
ODD = st.sampled_from(["", " ", "  ", "\u00a0", "é", "(", ")", " (x)", ":", ": ", "1.5: ", "+0x1f", "[001] ", "#", "٣"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            COMM,
            st.integers(-2, 5_000_000),
            st.integers(0, 10**7),
            st.integers(0, 999_999),
            st.integers(0, 10**12),
            st.sampled_from(["cpu-clock", "cycles:u", "sched:sched_switch", "", "a b"]),
            st.integers(0, 2**64 - 1),
            st.from_regex(r"[A-Za-z_][A-Za-z0-9_.:<>, ()+]{0,20}", fullmatch=True),
            st.sampled_from(["(/usr/bin/x)", "([kernel.kallsyms])", "(/opt/a b/lib (deleted))", "", "([unknown])"]),
            ODD,
            st.integers(0, 6),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_array_parser_reads_a_line_as_the_line_parser_or_leaves_it(rows):
    """On lines in perf's layout with odd names and odd bytes put in: the same table, or None."""
    lines = []
    for comm, tid, sec, usec, period, event, ip, sym, dso, odd, where in rows:
        parts = [f"{comm:>16}", f"{tid:>6}", f"{sec}.{usec:06d}:", f"{period:>10}", f"{event}:", f"{ip:>16x}", sym, dso]
        parts[min(where, len(parts) - 1)] += odd
        lines.append(" ".join(parts))
    text = "\n".join(lines) + "\n"
    try:
        slow = _parse_lines(text, "t")
    except Exception:  # noqa: BLE001 - the line parser refuses it: the array parser must not read it
        assert _parse_fast(text.encode()) is None
        return
    fast = _parse_fast(text.encode())
    if fast is not None:
        pd.testing.assert_frame_equal(fast, slow)


@pytest.mark.perf
def test_dlfilter_records_give_the_text_parsers_table_on_a_real_recording(libc_kernel_record):
    """The binary records of perf script --dlfilter, perf's text through the array parser, and the line parser agree."""
    from hemkit.external.perf import run_perf_script

    data, _ = libc_kernel_record
    records = _decode_records(str(data))
    if records is None:
        pytest.skip("this perf has no --dlfilter")
    chunks = _decode(str(data))
    text = run_perf_script(data).stdout
    lines = _parse_lines(text, str(data))
    assert len(records) > 100
    pd.testing.assert_frame_equal(records, chunks)
    pd.testing.assert_frame_equal(records, lines)
    _same_profiles(records, lines)


@pytest.mark.perf
def test_a_call_chain_recording_profiles_as_its_leaf_frames(perf_can_record, tmp_path):
    """perf record -g: the sample (-G, or the records) is the first frame the line parser keeps of the chain."""
    from hemkit.external.compiler import compile_c
    from hemkit.external.perf import perf_script_text
    from hemkit.external.process import run

    exe = compile_c(DATA / "libc_kernel.c", flags=("-O1",))
    data = tmp_path / "perf.data"
    done = run(["perf", "record", "-q", "-g", "-e", "cpu-clock", "-c", "250000", "-o", str(data), "--", str(exe), "20"])
    if done.failed:
        pytest.skip(f"perf record -g failed here: {done.stderr.strip()[-200:]}")
    text = perf_script_text(data)
    assert "\n\t" in text or "\n    " in text  # the text has call chains
    lines = _parse_lines(text, str(data))
    got = read_samples(data)
    # perf prints a user-space frame's address relative to its object, the sample's IP absolute
    pd.testing.assert_frame_equal(got.drop(columns="ip"), lines.drop(columns="ip"))
    _same_profiles(got, lines)


# ------------------------------------------------------------------ item 5: said in one line
def test_several_events_profile_the_most_sampled_one_with_one_warning(cli, tmp_path):
    text = tmp_path / "two.txt"
    text.write_text(
        "x 1 2.0: 10 cpu-clock: 4011a6 f (/bin/x)\n"
        "x 1 2.1: 10 page-faults: 4011a6 g (/bin/x)\n"
        "x 1 2.2: 10 page-faults: 4011a6 g (/bin/x)\n"
    )
    res = cli(["sampling", "profile", text])
    assert res.exit_code == 0, res.stderr
    warned = [line for line in res.stderr.splitlines() if line.startswith("hemkit: warning: ")]
    assert len(warned) == 1
    assert "samples of 2 events (cpu-clock 1, page-faults 2); profiled page-faults" in warned[0]
    assert warned[0].endswith("; pass --event cpu-clock for another")  # the option, not the library's event=
    assert "2 samples of page-faults" in res.stdout and "1 of other commands/events left out" in res.stdout
    res = cli(["sampling", "profile", text, "--event", "cpu-clock"])
    assert res.exit_code == 0 and "hemkit: warning" not in res.stderr


def test_a_dso_name_that_is_not_utf8_is_read_with_one_warning(tmp_path):
    raw = (DATA / "libc_kernel.script.txt").read_bytes().replace(b"libc.so.6", b"libc\xff.so.6")
    bad = tmp_path / "dso.txt"
    bad.write_bytes(raw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = profile_shares(read_samples(bad), by="dso")
    said = [str(w.message) for w in caught if issubclass(w.category, HemkitWarning)]
    assert len(said) == 1 and "not UTF-8" in said[0]
    assert "libc\ufffd.so.6" in p.table.index


@pytest.mark.parametrize(
    "command, program",
    [
        (["/usr/bin/perf", "record", "-q", "-e", "cpu-clock", "-c", "1000", "-o", "x", "--", "./prog", "1"], "prog"),
        (["perf", "record", "-e", "cycles", "python3", "-c", "pass"], "python3"),
        (["perf", "record", "-g", "--call-graph=dwarf", "/opt/a/verylongprogramname"], "verylongprogram"),
        (["perf", "record", "--call-graph", "dwarf", "-F", "997", "./prog"], "prog"),
        (["perf", "record", "-a", "--", "sleep", "1"], None),
        (["perf", "record", "-p", "123"], None),
        (["perf", "record"], None),
    ],
)
def test_the_recorded_program(command, program):
    assert recorded_program(command) == program


@pytest.mark.perf
def test_no_samples_of_the_recorded_program_is_said_in_one_line(perf_can_record, cli, tmp_path):
    """The header names the program; its samples are missing (here: its name in the header changed)."""
    import shutil

    from hemkit.external.perf import perf_record

    prog = tmp_path / "spin_sh"
    shutil.copy(shutil.which("sh"), prog)
    data = tmp_path / "perf.data"
    perf_record([str(prog), "-c", "i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done"], data, period=1_000_000)
    assert recorded_program(perf_data_command(data)) == "spin_sh"
    res = cli(["sampling", "profile", data, "--by", "comm"])
    assert res.exit_code == 0 and "hemkit: warning" not in res.stderr, res.stderr
    blob = bytearray(data.read_bytes())
    import struct

    offset, size = struct.unpack_from("<QQ", blob, 40)
    tail = blob[offset + size :]
    assert tail.count(b"spin_sh") >= 1
    blob[offset + size :] = tail.replace(b"spin_sh", b"gone_sh")  # the header now names another program
    data.write_bytes(bytes(blob))
    res = cli(["sampling", "profile", data, "--by", "comm"])
    assert res.exit_code == 0, res.stderr
    warned = [line for line in res.stderr.splitlines() if line.startswith("hemkit: warning: ")]
    assert len(warned) == 1 and "no samples of the program perf recorded, 'gone_sh' (samples of: spin_sh" in warned[0]


@pytest.mark.perf
def test_lost_samples_are_said_in_one_line(perf_can_record, cli, tmp_path):
    """A 1-page buffer at 500 000 samples per second loses samples; the profile is read, with one warning."""
    from hemkit.external.process import run

    data = tmp_path / "lost.data"
    loop = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"
    done = run(
        ["perf", "record", "-q", "-m", "1", "-e", "cpu-clock", "-c", "2000", "-o", str(data), "--", "sh", "-c", loop]
    )
    if done.failed:
        pytest.skip(f"perf record -m 1 failed here: {done.stderr.strip()[-200:]}")
    report = run(["perf", "report", "-i", str(data), "--stdio", "--header-only"]).stdout
    res = cli(["sampling", "profile", data])
    assert res.exit_code == 0, res.stderr
    warned = [line for line in res.stderr.splitlines() if line.startswith("hemkit: warning: ")]
    lost = [line for line in warned if "perf lost samples while recording" in line]
    if "lost" not in (report + done.stderr).lower() and not lost:
        pytest.skip("perf lost no samples this time")
    assert len(lost) == 1 and "lost" in lost[0].split("(", 1)[1]
