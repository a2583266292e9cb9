"""``hemkit plan`` (and plan files read by ``hemkit collect``) refuse bad input properly (issue 11).

Every case: exit 2, exactly one stderr line ``hemkit: error: ...`` naming the culprit, and
no file created or changed.  Classes (issue 11): A outputs, E plan files, H options and
names, I inputs that would run for minutes (refused up front with the reason).
"""

import os
import stat
import subprocess

import pytest

EV = ["cycles", "a", "b", "c", "d"]
NO_CHECK = "--no-check-events"  # made-up event names: not checked with this machine's perf


def plan(*args):
    return ["plan", *EV, NO_CHECK, *map(str, args)]


# ---------------------------------------------------------------- class H
OPTION_CASES = [
    (plan("--pmcs", "0"), ["--pmcs", "0"]),
    (plan("--pmcs", "-2"), ["--pmcs"]),
    (plan("--pmcs", "65"), ["--pmcs", "65"]),
    (plan("--pmcs", "x"), ["--pmcs"]),
    (plan("--pmcs", "2.5"), ["--pmcs"]),
    (["plan", *EV], ["--pmcs"]),
    (["plan", "--pmcs", "3"], ["EVENTS"]),
    (plan("--pmcs", "3", "--seed", "-1"), ["--seed", "-1"]),
    (plan("--pmcs", "3", "--seed", "x"), ["--seed"]),
    (plan("--pmcs", "3", "--budget", "0"), ["--budget", "0"]),
    (plan("--pmcs", "3", "--budget", "-1"), ["--budget"]),
    (plan("--pmcs", "3", "--budget", "99"), ["--budget"]),
    (plan("--pmcs", "3", "--time-budget", "-1"), ["--time-budget"]),
    (plan("--pmcs", "3", "--time-budget", "1e9"), ["--time-budget"]),
    (plan("--pmcs", "3", "--time-budget", "nan"), ["--time-budget must", "nan"]),
    (plan("--pmcs", "3", "--design", "foo"), ["--design", "foo"]),
    # an event an option names that EVENTS lack: the option, and the closest event (a typo), were not said
    (plan("--pmcs", "3", "--design", "hrm", "--anchor", "nosuch"), ["--anchor", "'nosuch' is not among EVENTS"]),
    (plan("--pmcs", "3", "--anchor", "nosuch"), ["--anchor", "'nosuch' is not among EVENTS"]),
    (plan("--pmcs", "3", "--anchor", "cycels"), ["--anchor", "'cycels'", "did you mean 'cycles'?"]),
    (plan("--pmcs", "3", "--must-share", "a,nosuch"), ["--must-share", "'nosuch' is not among EVENTS"]),
    (plan("--pmcs", "3", "--must-share", "a,cycels"), ["--must-share", "did you mean 'cycles'?"]),
    (plan("--pmcs", "3", "--fixed", "cycels"), ["--fixed", "did you mean 'cycles'?"]),
    # the library's words named no option: "counter restriction names unknown event 'nosuch'",
    # "event 'a': counter must be an integer from 0 to 2, got 7"
    (plan("--pmcs", "3", "--event-counters", "nosuch=0"), ["--event-counters", "'nosuch=0'", "not among the events"]),
    (plan("--pmcs", "3", "--event-counters", "a=7"), ["--event-counters", "'a=7'", "counter 7 is beyond --pmcs 3"]),
    (plan("--pmcs", "3", "--event-counters", "a=-1"), ["--event-counters", "'a=-1'", "counter -1", "0 to 2"]),
    (plan("--pmcs", "3", "--event-counters", "a=x"), ["--event-counters", "'a=x'"]),
    (plan("--pmcs", "3", "--event-counters", "a0"), ["--event-counters", "'a0'"]),
    (plan("--pmcs", "3", "--event-counters", "=0"), ["--event-counters"]),
    (plan("--pmcs", "3", "--event-counters", "a="), ["'a'", "counters"]),
    (["plan", "a", "b", "a", "--pmcs", "3"], ["'a'", "twice"]),
    (["plan", "a", "b\x01", "--pmcs", "3"], ["control"]),
    (["plan", ",", "--pmcs", "3"], ["no events"]),
    (plan("--pmcs", "1"), ["(--pmcs is 1)"]),  # said "pmcs is 1"
    (plan("--pmcs", "1", "--design", "hrm"), ["HRM needs at least 2 counters"]),
    (plan("--pmcs", "3", "--must-share", "a,b,c,d"), ["must-share set", "needs 4"]),
    # a set of one event shares nothing: it was accepted and did nothing
    (plan("--pmcs", "3", "--must-share", "a"), ["--must-share", "'a'", "one event"]),
    (plan("--pmcs", "3", "--must-share", "a,a"), ["--must-share", "'a,a'", "one event"]),
    (["plan", "a", NO_CHECK, "--pmcs", "3", "--must-share", "a"], ["--must-share", "'a'", "one event"]),
    (plan("--pmcs", "3", "--anchor", "cycles", "--budget", "1"), ["'cycles'", "no counter", "--budget 2"]),
    # the budget, not pmcs, caps these groups: they named 'pmcs is 3' or no limit, and no way out
    (plan("--pmcs", "3", "--anchor", "cycles", "--budget", "2"), ["read no pair", "budget allows 2", "--budget 3"]),
    (plan("--pmcs", "3", "--budget", "1"), ["read no pair", "budget allows 1 of the 3", "--budget 2"]),
    (plan("--pmcs", "3", "--budget", "2", "--must-share", "a,b,c"), ["needs 3", "budget allows 2", "--budget 3"]),
    (
        plan("--pmcs", "4", "--event-counters", "a=0", "--event-counters", "b=0"),
        ["'a' and 'b' can never be read together", "no group holds both on the counters their events may use"],
    ),
    # a must-share set that fills the groups keeps its events from every other: this said
    # '(counter restrictions or group budget)', naming neither the set nor the counters
    (
        plan("--pmcs", "3", "--must-share", "a,b,c"),
        [
            "'cycles' and 'a' can never be read together",
            "must-share set ['a', 'b', 'c'] with 'cycles' needs 4",
            "--pmcs is 3",
        ],
    ),
    (
        plan("--pmcs", "4", "--budget", "3", "--must-share", "a,b,c"),
        ["must-share set ['a', 'b', 'c'] with 'cycles' needs 4", "budget allows 3 of the 4", "--budget 4"],
    ),
    (plan("--pmcs", "3", "--design", "hrm", "--event-counters", "a=0", "--must-share", "a,b"), []),  # feasible
    # an event whose only counter is the anchor's: this said "must-share set ['b'] cannot be
    # placed", naming a set the user never gave and neither counter
    (
        plan("--pmcs", "3", "--design", "hrm", "--anchor", "a", "--event-counters", "a=0", "--event-counters", "b=0"),
        ["event 'b' can never be read with 'a', which is read in every group", "'b' may use counter 0 only"],
    ),
    (
        plan("--pmcs", "3", "--anchor", "a", "--event-counters", "a=0", "--event-counters", "b=0"),
        ["event 'b' can never be read with 'a'", "'a' counter 0 only"],
    ),
    (
        plan("--pmcs", "3", "--must-share", "b,c", "--event-counters", "b=1", "--event-counters", "c=1"),
        ["must-share set ['b', 'c']", "'b' may use counter 1 only, 'c' counter 1 only"],
    ),
    # class I: a plan nobody could run is refused up front, with the reason
    (["plan", *[f"e{i}" for i in range(300)], NO_CHECK, "--pmcs", "2"], ["44850 groups", "Schönheim"]),
    (["plan", *[f"e{i}" for i in range(3100)], NO_CHECK, "--pmcs", "64"], ["3100 events"]),
]


@pytest.mark.parametrize("args,names", OPTION_CASES)
def test_bad_options_and_names(bad_input, cli, tmp_path, args, names):
    if not names:  # a control: the same kind of command, but valid
        assert cli([*args, "-q"], cwd=tmp_path).exit_code == 0
        return
    bad_input([*args, "-q", "-o", tmp_path / "p.toml"], names=names, watch=[tmp_path], cwd=tmp_path)


# ---------------------------------------------------------------- class A
def test_output_missing_folder(bad_input, tmp_path):
    bad_input(plan("--pmcs", "3", "-o", tmp_path / "no" / "p.toml"), names=["does not exist"], watch=[tmp_path])


def test_output_is_a_folder(bad_input, tmp_path):
    (tmp_path / "d").mkdir()
    bad_input(plan("--pmcs", "3", "-o", tmp_path / "d"), names=[str(tmp_path / "d")], watch=[tmp_path])


def test_output_device(bad_input, tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    bad_input(plan("--pmcs", "3", "-o", "/dev/full"), names=["/dev/full"], watch=[tmp_path])


def test_output_read_only_place(bad_input, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "p.toml").write_text("groups = [['x']]\n")
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(ro, os.W_OK):
            pytest.skip("running as a user who may write anywhere (root)")
        bad_input(plan("--pmcs", "3", "-o", ro / "p.toml"), names=[str(ro)], watch=[ro])
    finally:
        ro.chmod(stat.S_IRWXU)


@pytest.fixture
def tmpfs(tmp_path):
    """``tmpfs(options)``: a small tmpfs mounted in tmp_path (skips where mounting is not allowed)."""
    mounted = []

    def mount(options):
        where = tmp_path / f"mnt{len(mounted)}"
        where.mkdir()
        res = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "none", str(where)], capture_output=True, text=True
        )
        if res.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {res.stderr.strip() or res.returncode}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", str(where)], capture_output=True)


def test_output_on_a_read_only_file_system(bad_input, tmpfs):
    ro = tmpfs("ro,size=64k")
    bad_input(plan("--pmcs", "3", "-o", ro / "p.toml"), names=[str(ro)], watch=[ro])


def test_output_on_a_full_disk(bad_input, tmpfs):
    full = tmpfs("size=4k")
    (full / "filler").write_bytes(b"x" * 4096)
    bad_input(
        ["plan", *[f"event{i}" for i in range(200)], NO_CHECK, "--pmcs", "8", "--time-budget", "0"]
        + ["-o", full / "p.toml"],
        names=[str(full / "p.toml"), "no space"],
        watch=[full],
    )


def test_output_in_a_pseudo_file_system(bad_input, tmp_path):
    if not os.path.isdir("/sys") or os.access("/sys", os.W_OK) and not os.path.ismount("/sys"):
        pytest.skip("no /sys here")
    bad_input(plan("--pmcs", "3", "-o", "/sys/p.toml"), names=["/sys/p.toml"], watch=[tmp_path])


def test_existing_output_unchanged_when_refused(bad_input, tmp_path):
    out = tmp_path / "p.toml"
    out.write_text("groups = [['keep']]\n")
    bad_input([*plan("--pmcs", "3", "--anchor", "nosuch"), "-o", out], names=["nosuch"], watch=[out])


# ---------------------------------------------------------------- class E
E_CASES = [
    ("p.toml", "groups = [[\n", ["p.toml", "not valid TOML"]),
    ("p.json", "{", ["p.json", "not valid JSON"]),
    ("p.json", "[]", ["p.json", "table of keys"]),
    ("p.toml", b"\x80\x81", ["p.toml", "UTF-8"]),
    ("p.toml", "pmcs = 2\n", ["p.toml", "no 'groups' key"]),
    ("p.toml", "groups = 'ab'\n", ["p.toml", "key 'groups'"]),
    ("p.toml", "pmcs = 'x'\ngroups = [['a']]\n", ["p.toml", "key 'pmcs'"]),
    ("p.toml", "groups = [['a', 'a']]\n", ["p.toml", "key 'groups'", "'a' twice"]),
    ("p.toml", "events = ['a', 'a']\ngroups = [['a']]\n", ["p.toml", "key 'events'"]),
    ("p.toml", "pmcs = 1\ngroups = [['a', 'b']]\n", ["p.toml", "key 'groups'", "pmcs is 1"]),
    ("p.toml", "events = ['a']\ngroups = [['a', 'z']]\n", ["p.toml", "'z'", "not in the event list"]),
    ("p.toml", "groupz = [['a']]\ngroups = [['a']]\n", ["p.toml", "unknown key 'groupz'"]),
]


@pytest.mark.parametrize("name,text,names", E_CASES)
def test_bad_plan_files_through_collect(bad_input, tmp_path, name, text, names):
    """``hemkit collect PLAN`` reads the plan first: a bad one is one line naming file and key."""
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    bad_input(["collect", path, "--runs", "1", "--", "true"], names=names, watch=[tmp_path], cwd=tmp_path)


def test_plan_file_that_is_missing_or_a_folder(bad_input, tmp_path):
    bad_input(["collect", tmp_path / "none.toml", "--runs", "1", "--", "true"], names=["none.toml"], watch=[tmp_path])
    (tmp_path / "d.toml").mkdir()
    bad_input(["collect", tmp_path / "d.toml", "--runs", "1", "--", "true"], names=["d.toml"], watch=[tmp_path])


def test_a_budget_below_pmcs_is_named_as_the_group_size(cli, tmp_path):
    """plan --budget 2 --pmcs 3 said '15 groups of at most 3 counters', though no group could hold more than 2."""
    out = tmp_path / "p.toml"
    res = cli(["plan", *"abcdef", NO_CHECK, "--pmcs", "3", "--budget", "2", "-o", out])
    assert res.exit_code == 0, res.stderr
    first, last = res.stdout.splitlines()[0], res.stdout.splitlines()[-1]
    assert "15 groups of at most 2 of the 3 counters" in first and "at most 3 counters" not in first
    assert "at most 2 of the 3 counters (--budget 2)" in last
    assert out.read_text().startswith("# hemkit much plan: 6 events in 15 groups of at most 2 of the 3 counters")


def test_an_anchor_on_a_fixed_counter_keeps_the_budget(cli):
    """HRM with its anchor on a fixed counter cut the others in chunks of --pmcs, whatever --budget said."""
    res = cli(
        ["plan", "cycles", *"abcdef", NO_CHECK, "--pmcs", "3", "--budget", "2", "--design", "hrm", "--fixed", "cycles"]
    )
    assert res.exit_code == 0, res.stderr
    assert "3 groups of at most 2 of the 3 counters + 1 fixed" in res.stdout
    assert "cycles, a, b, c" not in res.stdout
