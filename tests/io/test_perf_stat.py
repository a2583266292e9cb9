"""The perf stat parser on real perf output (tests/io/data/make_fixtures.sh made every file).

Each parsed value is checked against the number perf printed, taken from the file by a
separate, naive reading of its fields, so a parser that picks the wrong field fails.
"""

import json
import math
from pathlib import Path

import pytest

from hemkit.core.errors import InputError
from hemkit.io.perf_stat import decimal_commas, parse_perf_stat, scan_perf_stat

DATA = Path(__file__).parent / "data"
PERF = DATA / "perf"


def event_lines(path):
    return [s for s in path.read_text().splitlines() if s.strip() and not s.startswith("#")]


def printed(path, sep=",", skip=0):
    """(event, value text) as perf printed them: ``skip`` fields before the value."""
    out = []
    for s in event_lines(path):
        f = [x.strip() for x in s.split(sep)]
        out.append((f[skip + 2], f[skip]))
    return out


def as_value(text):
    return math.nan if text.startswith("<") else float(text)


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize(
    ("name", "sep", "skip"),
    [
        ("software.csv", ",", 0),
        ("plain.csv", ",", 0),
        ("interval.csv", ",", 1),
        ("per_cpu.csv", ",", 1),
        ("per_core.csv", ",", 2),
        ("per_socket.csv", ",", 2),
        ("interval_per_cpu.csv", ",", 2),
        ("not_counted.csv", ",", 0),
        ("semicolon.csv", ";", 0),
        ("tab.csv", "\t", 0),
        ("tracepoints.csv", ",", 0),
    ],
)
def test_csv_values_are_what_perf_printed(name, sep, skip):
    scan = scan_perf_stat((PERF / name).read_text(), source=name)
    want = printed(PERF / name, sep, skip)
    got = [(p.event, p.value) for p in scan.lines]
    assert [e for e, _ in got] == [e for e, _ in want]
    assert all(same(v, as_value(t)) for (_, v), (_, t) in zip(got, want))
    assert scan.fmt == "csv" and scan.sep == sep


def test_space_separator():
    # perf stat -x' ': an empty unit makes two spaces, and "CPUs utilized" holds one
    scan = scan_perf_stat((PERF / "space.csv").read_text())
    lines = event_lines(PERF / "space.csv")
    assert [p.event for p in scan.lines] == ["task-clock", "page-faults", "context-switches"]
    assert [p.value for p in scan.lines] == [float(s.split(" ")[0]) for s in lines]
    assert scan.sep == " "


@pytest.mark.parametrize(
    "name", ["software.json", "interval.json", "per_cpu.json", "per_core.json", "not_counted.json", "repeat.json"]
)
def test_json_values_are_what_perf_printed(name):
    objs = [json.loads(s) for s in event_lines(PERF / name)]
    scan = scan_perf_stat((PERF / name).read_text(), source=name)
    assert scan.fmt == "json"
    assert [p.event for p in scan.lines] == [o["event"] for o in objs]
    assert all(same(p.value, as_value(o["counter-value"])) for p, o in zip(scan.lines, objs))
    assert [p.run_time_ns for p in scan.lines] == [float(o["event-runtime"]) for o in objs]
    assert all(same(p.t, float(o.get("interval", math.nan))) for p, o in zip(scan.lines, objs))


def test_aggregation_ids():
    cpu = scan_perf_stat((PERF / "per_cpu.csv").read_text()).lines
    assert {p.aggr for p in cpu} == {"CPU0", "CPU1"}
    assert {p.aggr for p in scan_perf_stat((PERF / "per_cpu.json").read_text()).lines} == {"CPU0", "CPU1"}
    assert {p.aggr for p in scan_perf_stat((PERF / "per_core.csv").read_text()).lines} == {"S0-D0-C0", "S0-D0-C1"}
    assert {p.aggr for p in scan_perf_stat((PERF / "per_core.json").read_text()).lines} == {"S0-D0-C0", "S0-D0-C1"}
    assert {p.aggr for p in scan_perf_stat((PERF / "per_socket.csv").read_text()).lines} == {"S0"}
    iv = scan_perf_stat((PERF / "interval_per_cpu.csv").read_text()).lines
    assert {p.aggr for p in iv} == {"CPU0", "CPU1"} and {p.kind for p in iv} == {"interval"}
    assert [p.t for p in iv[:2]] == [0.050110636, 0.050110636]


def test_interval_kinds_and_not_counted():
    lines = scan_perf_stat((PERF / "interval.csv").read_text()).lines
    assert {p.kind for p in lines} == {"interval"}
    idle = [p for p in lines if p.status == "not counted"]
    assert len(idle) == 3 and all(p.run_time_ns == 0 for p in idle)
    summary = scan_perf_stat((PERF / "summary.csv").read_text()).lines
    assert [p.kind for p in summary][-3:] == ["summary"] * 3 and all(math.isnan(p.t) for p in summary[-3:])
    nocsv = scan_perf_stat((PERF / "no_csv_summary.csv").read_text()).lines
    assert [p.kind for p in nocsv][-3:] == ["total"] * 3 and [p.value for p in nocsv][-3:] == [1.19, 75, 1]


def test_repeat_variance_column():
    lines = scan_perf_stat((PERF / "repeat.csv").read_text()).lines
    want = [float(s.split(",")[3].rstrip("%")) for s in event_lines(PERF / "repeat.csv")]
    assert [p.variance for p in lines] == want
    assert all(math.isnan(p.variance) for p in scan_perf_stat((PERF / "software.csv").read_text()).lines)


def test_event_name_with_the_separator():
    t = parse_perf_stat((PERF / "pmu_comma.csv").read_text())
    assert t["event"].tolist() == ["software/config=2,period=1/", "task-clock"]
    assert t["value"].iloc[0] == float(event_lines(PERF / "pmu_comma.csv")[0].split(",")[0])


def test_append_blocks():
    lines = scan_perf_stat((PERF / "append.csv").read_text()).lines
    assert [p.block for p in lines] == [1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_unsupported_and_status():
    t = parse_perf_stat((PERF / "plain.csv").read_text())
    assert t.set_index("event")["status"].to_dict() == {
        "task-clock": "ok",
        "page-faults": "ok",
        "context-switches": "ok",
        "cycles": "not supported",
    }


@pytest.mark.parametrize("name", ["de_DE.csv", "de_DE_semicolon.csv", "de_DE.json"])
def test_decimal_commas_refused_with_a_hint(name):
    with pytest.raises(InputError, match=r"decimal commas.*LC_ALL=C perf stat") as e:
        scan_perf_stat((PERF / name).read_text(), source=name)
    assert name in str(e.value) and "line 3" in str(e.value)
    with pytest.raises(InputError, match="LC_ALL=C"):  # even the lenient parser: never a silent misreading
        parse_perf_stat((PERF / name).read_text())


def test_decimal_commas_examples():
    assert all(decimal_commas(s) for s in event_lines(PERF / "de_DE.csv"))
    for name in ("software.csv", "per_socket.csv", "per_core.csv", "repeat.csv", "interval.csv", "software.json"):
        assert not any(decimal_commas(s) for s in event_lines(PERF / name)), name


def test_text_output_refused_with_a_hint():
    with pytest.raises(InputError, match=r"human.txt: line \d+: perf stat's text output.*-x,.*-j"):
        scan_perf_stat((PERF / "human.txt").read_text(), source="human.txt")


def test_strict_names_the_line_lenient_skips_it():
    lines = (PERF / "software.csv").read_text().splitlines()
    text = "\n".join(lines[:4] + ["hello,world,1,2,3,4"] + lines[4:])  # the program's output mixed in
    with pytest.raises(InputError, match=r"x.csv: line 5: not a perf stat event line"):
        scan_perf_stat(text, source="x.csv")
    assert parse_perf_stat(text)["event"].tolist() == ["task-clock", "page-faults", "context-switches"]


def test_parse_columns_and_empty():
    t = parse_perf_stat("")
    assert t.empty and list(t.columns) == ["t", "event", "value", "unit", "run_time_ns", "percent", "status"] + [
        "aggr",
        "variance",
    ]
    assert parse_perf_stat("random words\n\n# comment\n").empty


def test_fmt_and_interval_restrict():
    text = (PERF / "interval.csv").read_text()
    assert parse_perf_stat(text, fmt="json").empty
    assert parse_perf_stat(text, interval=False).empty
    assert len(parse_perf_stat(text, interval=True)) == 9
    with pytest.raises(InputError, match="fmt must be"):
        scan_perf_stat(text, fmt="xml")


def test_zen5_interval_trace_slice():
    # real Zen 5 hardware readings (shared/data/zen5/traces): the known 2^47 wrap-around is parsed as printed
    lines = scan_perf_stat((DATA / "zen5" / "py_r3.csv").read_text()).lines
    assert len(lines) == 35 and {p.kind for p in lines} == {"interval"}
    assert lines[-1].event == "dTLB-load-misses" and lines[-1].value == 2**47 + 6122 and lines[-1].t == 4.178216369
