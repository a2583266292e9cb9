"""Bad input to ``hemkit derive``: exit 2, one line 'hemkit: error: ...' naming the culprit, no file changed.

Classes of issue 11: E (malformed measurements, results, presets, event lists), H (option ranges),
A (outputs: a missing folder, a read-only place, a folder, /dev/full, the input itself).
"""

import json
import os
import shutil
import uuid
from pathlib import Path

import pytest

from hemkit.core.errors import HemkitError
from hemkit.derive import analyze, example_measurements
from hemkit.external.process import run
from hemkit.io.derive import write_analysis, write_measurements

HEADER = "family,backend,kernel,size,run,event,code,count,iterations,value\n"


def _rows(*rows):
    return HEADER + "".join(r + "\n" for r in rows)


def _good_csv():
    return example_measurements("branch").to_csv(index=False)


@pytest.fixture
def files(tmp_path):
    """A folder with a good measurements file, a good result and presets; broken variants are written on demand."""
    d = tmp_path / "in"
    d.mkdir()
    write_measurements(example_measurements("branch"), d / "m.csv")
    write_analysis(analyze(example_measurements("branch")), d / "r.json")
    (d / "papi.csv").write_text("preset,definition\nPAPI_BR_CN,1xBc\n")
    (d / "ev.txt").write_text("Bc\nBcm\n")
    return d


# ---------------------------------------------------------------- E: measurements files (derive analyze)
def _good_lines():
    return _good_csv().splitlines()


MEASUREMENTS = {
    "missing": (None, ["nope.csv", "no such measurements file"]),
    "empty": ("", ["bad.csv", "is empty"]),
    "binary": (b"\x00\xff\xfe garbage \x00\n\x81", ["bad.csv"]),
    "header only": (HEADER, ["bad.csv", "no measurements"]),
    "no value column": ("kernel,size,run,event\nnt,1,0,Bc\n", ["bad.csv", "value"]),
    "no run column": ("kernel,size,event,value\nnt,1,Bc,2\n", ["bad.csv", "run"]),
    "NaN value": (
        _rows("branch,valgrind,nt,1,0,Bc,Bc,,1024,", "branch,valgrind,nt,1,1,Bc,Bc,1,1024,2"),
        ["bad.csv", "event Bc", "nt/1", "not a finite number"],
    ),
    "text value": (
        _rows("branch,valgrind,nt,1,0,Bc,Bc,1,1024,two", "branch,valgrind,nt,1,1,Bc,Bc,1,1024,2"),
        ["bad.csv", "'two'"],
    ),
    "negative value": (
        _rows("branch,valgrind,nt,1,0,Bc,Bc,1,1024,-2", "branch,valgrind,nt,1,1,Bc,Bc,1,1024,2"),
        ["bad.csv", "event Bc", "negative"],
    ),
    "infinite value": (
        _rows("branch,valgrind,nt,1,0,Bc,Bc,1,1024,inf", "branch,valgrind,nt,1,1,Bc,Bc,1,1024,2"),
        ["bad.csv", "not a finite number"],
    ),
    "blank event": (
        _rows("branch,valgrind,nt,1,0,,Bc,1,1024,2", "branch,valgrind,nt,1,1,Bc,Bc,1,1024,2"),
        ["bad.csv", "blank event"],
    ),
    "run not a number": (
        _rows("branch,valgrind,nt,1,x,Bc,Bc,1,1024,2", "branch,valgrind,nt,1,1,Bc,Bc,1,1024,2"),
        ["bad.csv", "run 'x'"],
    ),
    "duplicate row": (
        _rows("branch,valgrind,nt,1,0,Bc,Bc,1,1024,2", "branch,valgrind,nt,1,0,Bc,Bc,1,1024,2"),
        ["bad.csv", "listed twice"],
    ),
    "one run": (
        _rows("branch,valgrind,nt,1,0,Bc,Bc,1,1024,2", "branch,valgrind,tk,1,0,Bc,Bc,1,1024,2"),
        ["bad.csv", "only one run"],
    ),
    "unknown loop": (
        _rows("branch,valgrind,nt,1,0,Bc,Bc,1,1024,2", "branch,valgrind,zz,9,1,Bc,Bc,1,1024,2"),
        ["bad.csv: ", "'zz/9'"],  # the file, which the message did not name
    ),
    "two families": (
        _rows("branch,valgrind,nt,1,0,Bc,Bc,1,1024,2", "dcache,valgrind,nt,1,1,Bc,Bc,1,1024,2"),
        ["bad.csv", "family"],
    ),
    "unknown family": (
        _rows("gpu,valgrind,nt,1,0,Bc,Bc,1,1024,2", "gpu,valgrind,nt,1,1,Bc,Bc,1,1024,2"),
        ["bad.csv", "'gpu'"],
    ),
    "event missing on a run": (  # a file cut short: the message named the event, not the file
        "\n".join(_good_lines()[:-1]) + "\n",
        ["bad.csv: ", "event Bim", "no measurement on busy/4 run 2"],
    ),
    "loop missing from a run": (  # every loop of run 0 read, and one of run 1
        _rows("branch,valgrind,nt,1,0,Bc,Bc,1,1024,2", "branch,valgrind,tk,1,0,Bc,Bc,1,1024,2")
        + "branch,valgrind,nt,1,1,Bc,Bc,1,1024,2\n",
        ["bad.csv: ", "tk/1 run 1"],
    ),
}


@pytest.mark.parametrize("case", list(MEASUREMENTS))
def test_bad_measurements(bad_input, files, case):
    content, names = MEASUREMENTS[case]
    path = files / ("nope.csv" if content is None else "bad.csv")
    if content is not None:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    bad_input(["derive", "analyze", path, "-o", files / "out.json"], names=names, watch=[files])


def test_measurements_without_family_column_need_a_family(bad_input, files):
    df = example_measurements("branch").drop(columns=["family"])
    df.to_csv(files / "nofam.csv", index=False)
    bad_input(
        ["derive", "analyze", files / "nofam.csv", "-o", files / "o.json"], names=["no family column"], watch=[files]
    )


def test_family_option_must_match_the_file(bad_input, files):
    bad_input(
        ["derive", "analyze", files / "m.csv", "--family", "dcache", "-o", files / "o.json"],
        # the file at fault, and the option that fixes it (the message named neither)
        names=["m.csv: ", "branch family, not dcache", "; pass --family branch"],
        watch=[files],
    )


NO_MEASUREMENTS = {  # said 'the family branch or dcache', naming no option
    "flops has no bundled example": (
        ["--family", "flops"],
        ["--family flops has no bundled example", "name a measurements file", "; pass --signatures paper"],
    ),
    "no family": ([], ["name a measurements file", "--family branch or dcache"]),
    "paper without family": (["--signatures", "paper"], ["paper's own data needs --family flops or branch"]),
    "paper has no dcache": (
        ["--signatures", "paper", "--family", "dcache"],
        ["--family dcache is not in the paper's own data (flops or branch"],
    ),
}


@pytest.mark.parametrize("case", list(NO_MEASUREMENTS))
def test_without_measurements_the_options_that_choose_the_data_are_named(bad_input, files, case):
    args, names = NO_MEASUREMENTS[case]
    bad_input(["derive", "analyze", *args, "-o", files / "o.json"], names=names, watch=[files])


def test_paper_signatures_need_the_papers_basis(bad_input, files):
    write_measurements(example_measurements("dcache"), files / "d.csv")
    bad_input(
        ["derive", "analyze", files / "d.csv", "--signatures", "paper", "-o", files / "o.json"],
        names=["L2_DH", "LL_DH"],
        watch=[files],
    )


# ---------------------------------------------------------------- E: analysis results (derive report)
def _result():
    return analyze(example_measurements("branch")).to_dict()


def _mutate(fn):
    d = _result()
    fn(d)
    return json.dumps(d)


RESULTS = {
    "missing": (None, ["nope.json", "no such result file"]),
    "empty": ("", ["bad.json", "malformed JSON"]),
    "not JSON": ("{", ["bad.json", "malformed JSON"]),
    "binary": (b"\xff\xfe\x00\x81", ["bad.json", "not UTF-8"]),
    "a list": ("[]", ["bad.json", "not a hemkit derive result"]),
    # the measurements given for the result: said as such, with the step between them ('malformed JSON' before)
    "measurements": (
        "family,backend,kernel,size,run,event,code,count,iterations,value\nbranch,valgrind,nt,1,0,Ir,Ir,3,1,3.0\n",
        ["bad.json", "holds derive measurements", "hemkit derive analyze"],
    ),
    "foreign object": ('{"a": 1}', ["bad.json", "format"]),
    "NaN constant": (
        _mutate(lambda d: d.update(family="branch")).replace('"tau": 1e-10', '"tau": NaN'),
        ["bad.json", "NaN"],
    ),
    "no family": (_mutate(lambda d: d.pop("family")), ["bad.json", "'family'"]),
    "newer version": (_mutate(lambda d: d.update(version=99)), ["bad.json", "version 99", "(version 1)", "newer"]),
    "no definitions": (_mutate(lambda d: d.update(definitions=[])), ["bad.json", "definitions"]),
    "definition missing field": (_mutate(lambda d: d["definitions"][0].pop("verdict")), ["bad.json", "definition 1"]),
    "duplicate metric": (
        _mutate(lambda d: d["definitions"].append(dict(d["definitions"][0]))),
        ["bad.json", "defined twice"],
    ),
    "empty metric name": (_mutate(lambda d: d["definitions"][0].update(metric=" ")), ["bad.json", "empty metric"]),
    "empty definition": (
        _mutate(lambda d: d["definitions"][0].update(definition="")),
        ["bad.json", "empty definition"],
    ),
    "unknown verdict": (_mutate(lambda d: d["definitions"][0].update(verdict="maybe")), ["bad.json", "'maybe'"]),
    "negative error": (_mutate(lambda d: d["definitions"][0].update(error=-1)), ["bad.json", "error"]),
    "error as text": (
        _mutate(lambda d: d["definitions"][0].update(backward_error="small")),
        ["bad.json", "backward_error"],
    ),
    "coefficients not numbers": (
        _mutate(lambda d: d["definitions"][0].update(coefficients={"Bc": "one"})),
        ["bad.json", "coefficients"],
    ),
    "variability not a number": (_mutate(lambda d: d["variability"].update(Bc="x")), ["bad.json", "variability of Bc"]),
    "X wrong length": (_mutate(lambda d: d["X"].update(Bc=[1.0])), ["bad.json", "column Bc of X"]),
    "chosen unknown": (_mutate(lambda d: d.update(chosen=["nope"])), ["bad.json", "chosen"]),
    "options missing": (_mutate(lambda d: d["options"].pop("tau")), ["bad.json", "options"]),
    "option negative": (_mutate(lambda d: d["options"].update(alpha=-1)), ["bad.json", "option alpha"]),
    "deep nesting": ("[" * 100000 + "]" * 100000, ["bad.json"]),
}


@pytest.mark.parametrize("case", list(RESULTS))
def test_bad_result(bad_input, files, case):
    content, names = RESULTS[case]
    path = files / ("nope.json" if content is None else "bad.json")
    if content is not None:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    bad_input(["derive", "report", path, "-o", files / "t.csv"], names=names, watch=[files])


# ---------------------------------------------------------------- E: presets (derive report --presets)
PRESETS = {
    "missing": (None, ["nope.csv", "no such preset file"]),
    "empty": ("", ["p.csv", "is empty"]),
    "no definition column": ("preset\nPAPI_BR_CN\n", ["p.csv", "preset, definition"]),
    "duplicate preset": ("preset,definition\nPAPI_BR_CN,1xBc\nPAPI_BR_CN,1xBcm\n", ["p.csv", "PAPI_BR_CN", "twice"]),
    "empty definition": ("preset,definition\nPAPI_BR_CN,\n", ["p.csv", "PAPI_BR_CN", "empty definition"]),
    "blank preset": ("preset,definition\n,1xBc\n", ["p.csv", "row 1", "no preset name"]),
    "unreadable term": ("preset,definition\nPAPI_BR_CN,2yBc\n", ["p.csv", "PAPI_BR_CN", "'2yBc'"]),
    "header only": ("preset,definition\n", ["p.csv", "no presets"]),
}


@pytest.mark.parametrize("case", list(PRESETS))
def test_bad_presets(bad_input, files, case):
    content, names = PRESETS[case]
    path = files / ("nope.csv" if content is None else "p.csv")
    if content is not None:
        path.write_text(content)
    bad_input(
        ["derive", "report", files / "r.json", "--presets", path, "-o", files / "t.csv"], names=names, watch=[files]
    )


# ---------------------------------------------------------------- E: event lists and set-up (derive run)
EVENTS = {
    "missing": (None, ["nope.txt", "no such event list"]),
    "only comments": ("# none\n\n", ["ev2.txt", "no events listed"]),
    "blank name": (", Bc\n", ["ev2.txt:1", "blank event name"]),
    "duplicate": ("Bc\nBcm\nBc\n", ["ev2.txt:3", "'Bc'", "twice"]),
    "three fields": ("a b c\n", ["ev2.txt:1"]),
    "unknown cachegrind event": ("Bc\nBranches\n", ["ev2.txt", "'Branches'"]),
    "binary": (b"\xff\xfe\x00", ["ev2.txt", "not a text file"]),
}


@pytest.mark.parametrize("case", list(EVENTS))
def test_bad_event_list(bad_input, files, case):
    content, names = EVENTS[case]
    path = files / ("nope.txt" if content is None else "ev2.txt")
    if content is not None:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    bad_input(
        ["derive", "run", "--family", "branch", "--backend", "valgrind", "--events", path, "-o", files / "o.csv"],
        names=names,
        watch=[files],
    )


SETUP = {
    "flops has no simulated events": (
        ["--family", "flops", "--backend", "valgrind"],
        ["floating-point", "perf backend"],
    ),
    "table of another CPU": (
        ["--family", "branch", "--backend", "perf", "--events", "amdzen5"],
        ["amdzen5", "this CPU is", "; pass --events generic"],
    ),
    "no table for this CPU": (  # said 'use the generic events' without the option that chooses them
        ["--family", "branch", "--backend", "perf"],
        ["no bundled event table for this CPU", "; pass --events generic"],
    ),
    "bundled table with valgrind": (
        ["--family", "branch", "--backend", "valgrind", "--events", "amdzen5"],
        ["amdzen5"],
    ),
    # these said 'cache L1: ...', not the option
    "cache spec garbage": (["--family", "dcache", "--backend", "valgrind", "--cache", "L1=abc"], ["--cache L1: "]),
    "cache level unknown": (
        ["--family", "dcache", "--backend", "valgrind", "--cache", "L9=32k,8,64"],
        ["--cache 'L9=32k,8,64'"],
    ),
    "cache not simulable": (
        ["--family", "dcache", "--backend", "valgrind", "--cache", "LL=96k,3,64"],
        ["--cache LL ("],
    ),
    "LL too small, one --cache": (
        ["--family", "dcache", "--backend", "valgrind", "--cache", "L1=32k,8,64", "LL=64k,8,64"],
        ["--cache LL", "4 x D1"],
    ),
    "LL too small": (
        ["--family", "dcache", "--backend", "valgrind", "--cache", "L1=32k,8,64", "--cache", "LL=64k,8,64"],
        ["--cache LL", "4 x D1"],
    ),
    "branch iterations not a power of two": (
        ["--family", "branch", "--backend", "valgrind", "--iterations", "1000"],
        ["power of two", "1000"],
    ),
    "one run": (
        ["--family", "branch", "--backend", "valgrind", "--runs", "1"],
        ["'--runs'", "x>=2"],  # the option's own range (it said x>=1, and the library refused 1 as 'runs')
    ),
}


@pytest.mark.parametrize("case", list(SETUP))
def test_bad_run_setup(bad_input, files, case):
    args, names = SETUP[case]
    if case in ("table of another CPU", "no table for this CPU"):
        from hemkit.derive.events import EVENT_TABLES
        from hemkit.derive.kernels import cpu_identity

        if EVENT_TABLES["amdzen5"].matches(cpu_identity()):
            pytest.skip("this CPU is a Zen 5")
    bad_input(["derive", "run", *args, "-o", files / "o.csv"], names=names, watch=[files])


# ---------------------------------------------------------------- H: option ranges
OPTIONS = {
    "tau -1": (["derive", "analyze", "{m}", "--tau", "-1"], ["--tau"]),
    "alpha 0": (["derive", "analyze", "{m}", "--alpha", "0"], ["--alpha"]),
    "alpha -1": (["derive", "analyze", "{m}", "--alpha", "-1"], ["--alpha"]),
    "proj-tol -1": (["derive", "analyze", "{m}", "--proj-tol", "-1"], ["--proj-tol"]),
    "define-tol -1": (["derive", "analyze", "{m}", "--define-tol", "-1"], ["--define-tol"]),
    "quantum -1": (["derive", "analyze", "{m}", "--quantum", "-1"], ["--quantum"]),
    "tau nan": (["derive", "analyze", "{m}", "--tau", "nan"], ["--tau"]),
    "tau text": (["derive", "analyze", "{m}", "--tau", "small"], ["--tau"]),
    "signatures unknown": (["derive", "analyze", "{m}", "--signatures", "intel"], ["--signatures"]),
    "family unknown": (["derive", "analyze", "{m}", "--family", "gpu"], ["--family"]),
    "runs 0": (["derive", "run", "--family", "branch", "--runs", "0"], ["--runs"]),
    "reps 1": (["derive", "run", "--family", "branch", "--reps", "1"], ["'--reps'", "x>=2"]),
    "iterations 0": (["derive", "run", "--family", "branch", "--iterations", "0"], ["--iterations"]),
    "group 0": (["derive", "run", "--family", "branch", "--group", "0"], ["--group"]),
    "group 6": (["derive", "run", "--family", "branch", "--group", "6"], ["--group"]),
    "threads 0": (["derive", "run", "--family", "branch", "--threads", "0"], ["--threads"]),
    "jobs 0": (["derive", "run", "--family", "branch", "--jobs", "0"], ["--jobs"]),
    "seed -1": (["derive", "run", "--family", "branch", "--seed", "-1"], ["--seed"]),
    "backend unknown": (["derive", "run", "--family", "branch", "--backend", "papi"], ["--backend"]),
    "family missing": (["derive", "run"], ["--family"]),
    "family gpu": (["derive", "run", "--family", "gpu"], ["--family"]),
}


@pytest.mark.parametrize("case", list(OPTIONS))
def test_bad_option(bad_input, files, case):
    args, names = OPTIONS[case]
    args = [a.replace("{m}", str(files / "m.csv")) for a in args]
    bad_input([*args, "-o", files / "o.out"], names=names, watch=[files])


# ---------------------------------------------------------------- A: outputs
@pytest.fixture(scope="module")
def read_only_dir(tmp_path_factory):
    """A folder on a read-only tmpfs (root ignores permission bits, so a mount is the honest test)."""
    d = tmp_path_factory.mktemp("ro") / f"ro-{uuid.uuid4().hex[:8]}"
    d.mkdir()
    if os.geteuid() != 0:
        d.chmod(0o555)
        yield d
        d.chmod(0o755)
        return
    if shutil.which("mount") is None:
        pytest.skip("mount not available to make a read-only file system")
    try:
        proc = run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(d)], timeout=30)
    except HemkitError as exc:
        pytest.skip(f"cannot mount a read-only tmpfs here: {exc}")
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {proc.stderr.strip()}")
    try:
        yield d
    finally:
        run(["umount", str(d)], timeout=30)


def _commands(files):
    """command name -> (argument list before the output, output suffix)."""
    return {
        "run": (["derive", "run", "--family", "branch", "--backend", "valgrind", "--events", files / "ev.txt"], ".csv"),
        "analyze": (["derive", "analyze", files / "m.csv"], ".json"),
        "report": (["derive", "report", files / "r.json"], ".csv"),
    }


PLACES = ["missing folder", "read-only place", "a folder", "/dev/full"]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("command", ["run", "analyze", "report"])
def test_bad_output_place(bad_input, files, tmp_path, request, command, place):
    args, suffix = _commands(files)[command]
    if place == "missing folder":
        out, names = tmp_path / "nodir" / f"out{suffix}", ["nodir", "does not exist"]
    elif place == "read-only place":
        ro = request.getfixturevalue("read_only_dir")
        out, names = ro / f"out{suffix}", [str(ro), "cannot write"]
    elif place == "a folder":
        out, names = files, [str(files), "is a directory"]  # click's own check names the option
    else:
        # the report's table format comes from the suffix, so /dev/full is refused for that first
        out, names = (
            Path("/dev/full"),
            ["/dev/full", "unknown table format" if command == "report" else "not a regular file"],
        )
    bad_input([*args, "-o", out], names=names, watch=[files])


@pytest.mark.parametrize("place", PLACES[:3])  # /dev/full has no figure suffix: see test_unknown_suffixes
@pytest.mark.parametrize("command", ["analyze", "report"])
def test_bad_plot_place(bad_input, files, tmp_path, request, command, place):
    args, suffix = _commands(files)[command]
    if place == "missing folder":
        out, names = tmp_path / "nodir" / "v.png", ["nodir", "does not exist"]
    elif place == "read-only place":
        ro = request.getfixturevalue("read_only_dir")
        out, names = ro / "v.png", [str(ro), "cannot write"]
    elif place == "a folder":
        out, names = files / "sub.png", ["--plot", "sub.png", "is a directory"]
        out.mkdir()
    bad_input([*args, "-o", tmp_path / f"ok{suffix}", "--plot", out], names=names, watch=[files, tmp_path])


def test_output_may_not_overwrite_the_input(bad_input, files):
    bad_input(
        ["derive", "analyze", files / "m.csv", "-o", files / "m.csv"], names=["m.csv", "also an input"], watch=[files]
    )
    bad_input(
        ["derive", "report", files / "r.json", "-o", files / "r.json"], names=["r.json", "also an input"], watch=[files]
    )
    bad_input(
        [
            "derive",
            "report",
            files / "r.json",
            "-o",
            files / "t.csv",
            "--presets",
            files / "papi.csv",
            "--plot",
            files / "papi.csv",
        ],
        names=["papi.csv"],
        watch=[files],
    )


def test_unknown_suffixes(bad_input, files):
    bad_input(
        ["derive", "report", files / "r.json", "-o", files / "t.txt"],
        names=["t.txt", ".md, .csv or .json"],
        watch=[files],
    )
    bad_input(
        ["derive", "analyze", files / "m.csv", "-o", files / "o.json", "--plot", files / "v.xyz"],
        names=["v.xyz", "figure format"],
        watch=[files],
    )
