"""Bad input to every ``hemkit sampling`` command: exit 2, one line naming the culprit, no file changed.

Classes (issue 11): bad perf.data / perf script text (garbage, truncated, empty, another event,
another tool's output), options out of range, bad --task specs, and outputs that cannot be
written (missing folder, read-only place, a folder, /dev/full, the input itself, a full disk).
"""

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
SCRIPT = DATA / "known_shares.script.txt"
DSO = DATA / "libc_kernel.script.txt"


def _header(data_offset: int, data_size: int) -> bytes:
    head = bytearray(104)
    head[:8] = b"PERFILE2"
    head[8:16] = (104).to_bytes(8, "little")
    head[40:48] = data_offset.to_bytes(8, "little")
    head[48:56] = data_size.to_bytes(8, "little")
    return bytes(head)


FILES = {
    "garbage.bin": b"\x81\xfe\x00\x13" * 64,
    "garbage.txt": b"the quick brown fox\njumps over\n",
    "empty.txt": b"",
    "blank.txt": b"\n\n   \n",
    "nul.txt": b"x 1 2.0: 4011a6 f\n\x00\x00\x00",
    "perfstat.csv": b"1234,,task-clock,1234,100.00,,\n56,,page-faults,1234,100.00,,\n",
    "half.txt": SCRIPT.read_bytes()[:5000] + b"\n  truncated lin\n",
    "cut.txt": SCRIPT.read_bytes()[:5000],
    "truncated.data": _header(104, 4000) + bytes(1000),
    "shortheader.data": b"PERFILE2\x68\x00",
    "zeroperiod.txt": b"x 1 2.0: 0 cpu-clock: 4011a6 f\n",
    "twoevents.txt": b"x 1 2.0: 10 cpu-clock: 4011a6 f\nx 1 2.1: 10 page-faults: 4011a6 f\n",
}


@pytest.fixture
def files(tmp_path):
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


# ------------------------------------------------------------------ profile: bad files
@pytest.mark.parametrize(
    "name, args, message",
    [
        ("missing.txt", [], "missing.txt: no such file"),
        ("garbage.bin", [], "garbage.bin: neither perf.data nor perf script text (not UTF-8 at byte 0)"),
        ("garbage.txt", [], "garbage.txt: line 1 is not a perf script sample"),
        ("empty.txt", [], "empty.txt: empty file, no samples"),
        ("blank.txt", [], "blank.txt: empty file, no samples"),
        ("nul.txt", [], "nul.txt: neither perf.data nor perf script text (binary data"),
        (
            "perfstat.csv",
            [],
            "line 1 is not a perf script sample: '1234,,task-clock,1234,100.00,,'; it is a line of perf stat -x output",
        ),
        ("half.txt", [], "half.txt: line 61 is not a perf script sample: 'truncated lin'"),
        ("cut.txt", [], "cut.txt: ends in the middle of line 60 (cut short?)"),
        ("truncated.data", [], "truncated.data: perf.data is truncated"),
        ("shortheader.data", [], "shortheader.data: perf.data header is cut short"),
        ("zeroperiod.txt", [], "zeroperiod.txt: samples with a period that is not a positive number"),
        ("twoevents.txt", ["--event", "cycles"], "no samples of event 'cycles' (events: cpu-clock, page-faults)"),
        ("twoevents.txt", ["--comm", "nope"], "no samples of command 'nope' (commands: x)"),
        ("twoevents.txt", ["--by", "dso", "--event", "page-faults"], "twoevents.txt: the samples carry no DSO names"),
    ],
)
def test_profile_refuses_bad_files(bad_input, files, name, args, message):
    out = files / "out.csv"
    bad_input(
        ["sampling", "profile", files / name, *args, "-o", out, "--plot", files / "p.png"],
        names=[message],
        watch=[files],
    )


def test_profile_of_a_collection_database_is_refused_without_a_warning_of_its_bytes(bad_input, cli):
    """A hemkit collection database given for a profile drew '1337 byte sequence(s) that are not UTF-8 ...; perf
    prints command and symbol names as the binaries hold them' before the error that it is binary data."""
    db = Path(__file__).parents[1] / "data" / "compare" / "kernel_a.db"
    bad_input(["sampling", "profile", db], names=[f"{db}: neither perf.data nor perf script text (binary data"])
    assert cli(["sampling", "profile", db]).stderr.count("\n") == 1  # the error alone


def test_profile_refuses_a_folder(bad_input, files):
    bad_input(["sampling", "profile", files], names=[f"{files}: is a folder"], watch=[files])


def test_profile_refuses_a_device(bad_input):
    bad_input(["sampling", "profile", "/dev/null"], names=["/dev/null: not a regular file"])


def test_profile_of_another_event_in_a_real_file(bad_input):
    bad_input(
        ["sampling", "profile", DSO, "--event", "cycles"], names=["no samples of event 'cycles' (events: cpu-clock)"]
    )


# ------------------------------------------------------------------ profile: perf.data that perf cannot decode
@pytest.fixture
def recorded(perf_can_record, tmp_path):
    from hemkit.external.perf import perf_record

    data = tmp_path / "perf.data"
    perf_record(["true"], data, event="cpu-clock", period=100_000)
    return data


def test_truncated_real_perf_data(bad_input, recorded):
    blob = recorded.read_bytes()
    import struct

    offset, size = struct.unpack_from("<QQ", blob, 40)
    cut = recorded.with_name("cut.data")
    cut.write_bytes(blob[: offset + size // 2])
    bad_input(["sampling", "profile", cut], names=[f"{cut}: perf.data is truncated"], watch=[cut])


def test_perf_data_with_garbage_data(bad_input, perf_can_record, tmp_path):
    bad = tmp_path / "garbage.data"
    bad.write_bytes(_header(104, 3000) + b"\x17\x42" * 1500)
    bad_input(["sampling", "profile", bad], names=[f"{bad}: perf script cannot decode it"], watch=[tmp_path])


def test_perf_data_without_samples(bad_input, perf_can_record, tmp_path):
    from hemkit.external.perf import perf_record

    data = tmp_path / "none.data"
    perf_record(["true"], data, event="cpu-clock", period=10**12)  # no sample fits in `true`
    bad_input(["sampling", "profile", data], names=[f"{data}: no samples (perf recorded none"], watch=[tmp_path])


# ------------------------------------------------------------------ options out of range
@pytest.mark.parametrize(
    "args, culprit",
    [
        (["profile", SCRIPT, "--level", "1.5"], "--level"),
        (["profile", SCRIPT, "--level", "0"], "--level"),
        (["profile", SCRIPT, "--top", "0"], "--top"),
        (["profile", SCRIPT, "--by", "colour"], "--by"),
        (["profile", SCRIPT, "--method", "bayes"], "--method"),
        (["model", "--share", "2"], "--share"),
        (["model", "--share", "-0.1"], "--share"),
        (["model", "--share", "nan"], "shares must lie in [0, 1], got nan"),
        (["model", "--share", "0.3", "--ratio", "nan"], "run ratios R must be positive, got nan"),
        (["model", "--share", "0.3", "--half-width", "nan"], "--half-width must be in (0, 1), got nan"),
        (["profile", SCRIPT, "--level", "nan"], "confidence level must be in (0, 1), got nan"),
        (["simulate", "--task", "a:0.3:30", "--interval", "nan"], "sampling interval must be positive, got nan"),
        (["simulate", "--task", "a:0.3:30", "--interval", "inf"], "sampling interval must be positive, got inf"),
        (["simulate", "--task", "a:0.3:30", "--noise", "nan"], "noise SD must be a non-negative number, got nan"),
        (["simulate", "--task", "a:0.3:30", "--idle-granularity", "nan"], "--idle-granularity nan is not in"),
        (["model", "--share", "0.3", "--ratio", "0"], "--ratio"),
        (["model", "--share", "0.3", "--samples", "0"], "--samples"),
        (["model", "--share", "0.3", "--half-width", "1"], "--half-width"),
        (["model", "--share", "0.3", "--level", "1"], "--level"),
        (["model"], "--share"),
        (["model", "--share", "0.3", "--ratio", "1", "--ratio", "2"], "one run ratio per share (1 shares, 2 ratios)"),
        (["simulate", "--task", "a:0.3:30", "--interval", "0"], "--interval"),
        (["simulate", "--task", "a:0.3:30", "--interval", "-5"], "--interval"),
        (["simulate", "--task", "a:0.3:30", "--reps", "0"], "--reps"),
        (["simulate", "--task", "a:0.3:30", "--reps", "99999999"], "--reps must be in [2, 1e7]"),
        (["simulate", "--task", "a:0.3:30", "--seed", "-1"], "--seed"),
        (["simulate", "--task", "a:0.3:30", "--seed", "x"], "--seed"),
        (["simulate", "--task", "a:0.3:30", "--units", "0"], "--units"),
        (["simulate", "--task", "a:0.3:30", "--jitter", "-1"], "--jitter"),
        (["simulate", "--task", "a:0.3:30", "--noise", "-0.5"], "--noise"),
        (["simulate", "--task", "a:0.3:30", "--idle-granularity", "0.5"], "--idle-granularity"),
        (["simulate", "--task", "a:0.3:30", "--mode", "cycles"], "--mode"),
        (["simulate", "--paper", "7"], "--paper"),
        (["simulate", "--paper", "4", "--reps", "0"], "--reps"),
        (["simulate"], "--paper"),
        (["simulate", "--paper", "4", "--task", "a:0.3:30"], "--task"),
        (["simulate", "--paper", "4", "--interval", "50"], "--interval does not apply to --paper"),
        (["simulate", "--paper", "5", "--mode", "event"], "--mode does not apply to --paper"),
        (["simulate", "--task", "a:0.3:30", "--units", "1000", "--interval", "5000"], "sampling interval 5000"),
        (["check", "--runs", "0"], "--runs"),
        (["check", "--period", "0"], "--period"),
        (["check", "--freq", "-5"], "--freq"),
        (["check", "--granularity", "0"], "--granularity"),
        (["check", "--level", "1.5"], "--level"),
        (["check", "--seed", "-1"], "--seed"),
        (["check", "--method", "bayes"], "--method"),
        (["check", "--threads", "0"], "--threads"),
        (["check", "--threads", "65"], "--threads"),
        (["profile", str(DATA / "known_shares.script.txt"), "--method", "bootstrap"], "--method"),
    ],
)
def test_options_out_of_range(bad_input, tmp_path, args, culprit):
    bad_input(["sampling", *args, "-o", tmp_path / "out.csv"], names=[culprit], watch=[tmp_path])


def test_unknown_sampling_event(bad_input, perf_can_record, tmp_path):
    bad_input(
        ["sampling", "check", "--event", "nosuch", "--period", "100000", "--runs", "1", "-o", tmp_path / "c.csv", "-q"],
        names=["perf does not know the event 'nosuch'"],
        watch=[tmp_path],
    )


# ------------------------------------------------------------------ bad --task specs
@pytest.mark.parametrize(
    "tasks, culprit",
    [
        (["a:0.3"], "task 'a:0.3': use NAME:SHARE:GRANULARITY"),
        (["a:x:30"], "task 'a:x:30': share, granularity and rate must be numbers"),
        (["a:0.3:30:constant:1:2"], "task 'a:0.3:30:constant:1:2'"),
        ([":0.3:30"], "task ':0.3:30'"),
        (["a:inf:30"], "task 'a:inf:30': share, granularity and rate must be finite"),
        (["a:0.3:30:gamma"], "task 'a': unknown distribution 'gamma'"),
        (["a:1.5:30"], "task 'a': share 1.5 is not in (0, 1]"),
        (["a:0:30"], "task 'a': share 0 is not in (0, 1]"),
        (["a:0.3:0.5"], "task 'a': granularity 0.5"),
        (["a:0.3:30:constant:-1"], "task 'a': event rate -1"),
        (["a:0.6:30", "b:0.6:30"], "task shares add up to 1.2 > 1"),
        (["idle:0.3:30"], "not 'idle'"),
        (["a:0.3:30", "a:0.2:30"], "task names must be unique"),
    ],
)
def test_bad_task_specs(bad_input, tmp_path, tasks, culprit):
    args = ["sampling", "simulate", "--units", "1000", "--reps", "5", "-o", tmp_path / "t.csv"]
    for t in tasks:
        args += ["--task", t]
    bad_input(args, names=[culprit], watch=[tmp_path])


# ------------------------------------------------------------------ outputs that cannot be written (class A)
COMMANDS = {
    "profile": ["profile", SCRIPT],
    "simulate": ["simulate", "--task", "a:0.3:30", "--units", "2000", "--reps", "5"],
    "model": ["model", "--share", "0.3"],
    "check": ["check", "--period", "100000", "--runs", "1"],  # refused before any perf run
}
OPTIONS = {
    "profile": ["-o", "--plot"],
    "simulate": ["-o", "--plot-sd", "--plot-means", "--plot-histogram"],
    "model": ["-o", "--plot"],
    "check": ["-o", "--plot"],
}
CASES = [(cmd, opt) for cmd, opts in OPTIONS.items() for opt in opts]


def _name(opt: str) -> str:
    """A file name for ``opt``: a table (-o) is CSV or Parquet, a figure PNG."""
    return "out.csv" if opt == "-o" else "out.png"


@pytest.mark.parametrize("cmd, opt", CASES)
def test_output_in_a_missing_folder(bad_input, tmp_path, cmd, opt):
    target = tmp_path / "nope" / _name(opt)
    bad_input(
        ["sampling", *COMMANDS[cmd], opt, target],
        names=[f"{target}: folder {tmp_path / 'nope'} does not exist"],
        watch=[tmp_path],
    )


@pytest.mark.parametrize("cmd, opt", CASES)
def test_output_is_a_folder(bad_input, tmp_path, cmd, opt):
    bad_input(
        ["sampling", *COMMANDS[cmd], opt, tmp_path],
        names=[f"'{opt}'", f"'{tmp_path}' is a directory"],
        watch=[tmp_path],
    )


@pytest.mark.parametrize("cmd, opt", CASES)
def test_output_to_dev_full(bad_input, tmp_path, cmd, opt):
    bad_input(["sampling", *COMMANDS[cmd], opt, "/dev/full"], names=["/dev/full: exists and is not a regular file"])


@pytest.mark.parametrize("cmd, opt", CASES)
def test_output_in_a_read_only_place(bad_input, readonly_dir, cmd, opt):
    target = readonly_dir / _name(opt)
    bad_input(
        ["sampling", *COMMANDS[cmd], opt, target],
        names=[f"{target}: cannot write in {readonly_dir}"],
        watch=[readonly_dir],
    )


@pytest.mark.parametrize("target", ["/proc/hemkit-out.csv", "/sys/hemkit-out.png"])
def test_output_in_a_pseudo_file_system(bad_input, target):
    """Writable by its permissions, refused by the kernel: found at write time, still one line and exit 2."""
    bad_input(
        ["sampling", "model", "--share", "0.3", "--plot" if target.endswith(".png") else "-o", target], names=[target]
    )


def test_output_on_a_full_disk(bad_input, full_dir):
    target = full_dir / "bar.png"
    bad_input(
        ["sampling", "profile", SCRIPT, "--plot", target],
        names=[f"plot {target}: cannot be written (no space left on the device)"],
        watch=[full_dir],
    )


def test_output_is_the_input(bad_input, tmp_path):
    copy = tmp_path / "in.txt"
    copy.write_bytes(SCRIPT.read_bytes())
    bad_input(["sampling", "profile", copy, "-o", copy], names=[f"{copy}: is also an input"], watch=[tmp_path])
    png = tmp_path / "in.png"  # perf script text under a figure's name: refused as the input, not by its suffix
    png.write_bytes(SCRIPT.read_bytes())
    bad_input(["sampling", "profile", png, "--plot", png], names=[f"{png}: is also an input"], watch=[tmp_path])
