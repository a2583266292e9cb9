"""hemkit.sampling.diff (``hemkit sampling diff``): share changes between two profiles, with FDR control.

Profiles are simulated as periodic samples of a program whose functions run in calls of known
lengths and known shares, in time order (what the calibrated ``se`` reads), so the truth is known.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from hemkit.sampling.diff import COLUMNS, profile_diff
from hemkit.sampling.profile import profile_shares

FIXTURES = __import__("pathlib").Path(__file__).parent / "data"


def _program(shares, *, samples=1600, call=5.0, seed=0, dso="/bin/prog", event="cpu-clock"):
    """Periodic samples of a program whose functions take exactly the given shares of its time.

    As the bundled known-share workload: each function's time is cut into calls of uniform
    length in ``[call / 2, 3 call / 2]`` sampling intervals, the calls of all functions are
    interleaved at random, and a sample falls every interval from a random phase.  Each
    function's time is fixed, so the shares' error is the sampling error alone.
    """
    rng = np.random.default_rng(seed)
    names = np.array([f"f{i}" for i in range(len(shares))], dtype=object)
    total = np.asarray(shares, dtype=float) / np.sum(shares) * samples
    fn, length = [], []
    for i, t in enumerate(total):
        d = rng.uniform(call / 2, 1.5 * call, size=int(2 * t / call) + 2)
        d = d[: int(np.searchsorted(np.cumsum(d), t)) + 1]
        d[-1] -= d.sum() - t  # the last call ends the function's time exactly
        fn.append(np.full(len(d), i))
        length.append(d)
    order = rng.permutation(sum(len(f) for f in fn))
    fn_seq, ends = np.concatenate(fn)[order], np.cumsum(np.concatenate(length)[order])
    at = rng.uniform() + np.arange(int(ends[-1]))
    which = fn_seq[np.minimum(np.searchsorted(ends, at), len(fn_seq) - 1)]
    return pd.DataFrame(
        {"comm": "prog", "tid": 1, "time": at, "event": event, "period": 1000, "sym": names[which], "dso": dso}
    )


def test_columns_order_and_a_shift_is_flagged():
    a = _program([0.30, 0.20, 0.50], seed=1)
    b = _program([0.40, 0.20, 0.40], seed=2)
    d = profile_diff(a, b)
    assert list(d.to_frame().columns) == ["sym", *COLUMNS]
    assert d.table.index[0] in ("f0", "f2")  # largest |difference| first
    assert {"f0", "f2"} <= set(d.changed)
    assert d.table.loc["f0", "difference"] == pytest.approx(0.10, abs=0.05)
    assert d.table.loc["f0", "lower"] < d.table.loc["f0", "difference"] < d.table.loc["f0", "upper"]


def test_the_same_program_flags_about_nothing_and_intervals_cover():
    """A/A over 60 pairs of disjoint simulated runs: few keys flagged, the intervals cover 0."""
    flagged = keys = covers = 0
    for s in range(60):
        d = profile_diff(_program([0.3, 0.2, 0.5], seed=2 * s), _program([0.3, 0.2, 0.5], seed=2 * s + 1))
        flagged += int(d.table["changed"].sum())
        keys += len(d.table)
        covers += int(((d.table["lower"] <= 0) & (0 <= d.table["upper"])).sum())
    assert flagged / keys <= 0.06
    assert covers / keys >= 0.88


def test_keys_in_one_profile_only_are_named_and_compared_against_zero():
    a = _program([0.5, 0.5], seed=3)
    b = _program([0.5, 0.3, 0.2], seed=4)
    d = profile_diff(a, b)
    assert d.only_b == ("f2",) and d.only_a == ()
    row = d.table.loc["f2"]
    assert row["share_a"] == 0 and row["note"] == "only in B" and row["changed"]
    assert row["samples_a"] == 0 and row["samples_b"] > 0
    assert "1 only in B" in d.line()


def test_a_symbol_in_two_dsos_is_two_keys_named_by_their_dso():
    a = _program([0.5, 0.5], seed=5)
    b = _program([0.5, 0.5], seed=6)
    b.loc[b["sym"] == "f1", "dso"] = "/lib/libc.so.6"  # f1 now comes from another DSO
    d = profile_diff(a, b)
    assert {"f1 (prog)", "f1 (libc.so.6)"} <= set(d.table.index)
    assert d.table.loc["f1 (prog)", "note"] == "only in A"


def test_profiles_of_different_events_are_compared_as_shares_and_said():
    a = _program([0.5, 0.5], seed=7)
    b = _program([0.5, 0.5], seed=8, event="task-clock")
    with pytest.warns(UserWarning, match="different events"):
        d = profile_diff(a, b)
    assert "compared as shares" in d.line()


def test_profiles_of_different_periods_are_compared_as_shares_and_said():
    a = _program([0.5, 0.5], seed=13)
    b = _program([0.5, 0.5], seed=14).assign(period=4000)
    with pytest.warns(UserWarning, match="different periods"):
        d = profile_diff(a, b)
    assert "periods differ (1000 in A, 4000 in B)" in d.line()


def test_precomputed_profiles_must_be_by_the_same_key():
    a = profile_shares(_program([0.5, 0.5], seed=9), by="dso")
    with pytest.raises(Exception, match="by 'dso'"):
        profile_diff(a, _program([0.5, 0.5], seed=10), by="sym")


def test_plot_is_titled_and_labelled():
    d = profile_diff(_program([0.3, 0.7], seed=11), _program([0.4, 0.6], seed=12))
    ax = d.plot()
    assert "Share changes" in ax.get_title() and "percentage points" in ax.get_xlabel()
    assert ax.get_ylabel() == "symbol"
    # red for changed keys, grey for the others: a legend says which (README: every figure has one)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["changed (FDR 5%)", "unchanged"]


def test_cli_diff_of_two_perf_script_files(cli, tmp_path):
    """The real perf script fixture against itself: nothing changes; against a shifted copy: its key changes."""
    src = FIXTURES / "known_shares.script.txt"
    out, fig = tmp_path / "d.csv", tmp_path / "d.png"
    res = cli(["sampling", "diff", str(src), str(src), "-o", str(out), "--plot", str(fig)])
    assert res.exit_code == 0, res.stderr
    assert "0 of" in res.stdout and "keys changed share" in res.stdout
    table = pd.read_csv(out)
    assert list(table.columns) == ["sym", *COLUMNS] and not table["changed"].any()
    assert fig.stat().st_size > 0


def test_cli_bad_inputs(bad_input, tmp_path):
    src = FIXTURES / "known_shares.script.txt"
    bad_input(["sampling", "diff", str(src), str(tmp_path / "nope.data")], names=["B:", "nope.data"])
    bad_input(["sampling", "diff", str(src), str(src), "--level", "2"], names=["--level"])
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    bad_input(["sampling", "diff", str(empty), str(src)], names=["A:", "empty.txt"], watch=[tmp_path])


def test_report_with_two_profiles_has_the_diff_section(tmp_path):
    from hemkit.report import ReportOptions, build_report

    src = FIXTURES / "known_shares.script.txt"
    rep = build_report(None, options=ReportOptions(profiles=(src, src)))
    keys = [s.key for s in rep.sections]
    assert "profile-diff" in keys
    diff = rep.sections[keys.index("profile-diff")]
    assert diff.paragraphs[0].startswith("0 of") and diff.figures
    assert "Sampling profiles compared" in rep.html


def test_by_thread_the_line_names_the_largest_change():
    """Thread ids are numbers: the summary line (and the figure) found the largest change by label and failed."""
    a, b = _program([0.30, 0.70], seed=1), _program([0.60, 0.40], seed=2)
    for x in (a, b):
        x["tid"] = np.where(x["sym"] == "f0", 101, 102)
    d = profile_diff(a, b, by="tid")
    share_a = (a["tid"] == 101).mean()
    share_b = (b["tid"] == 101).mean()
    assert sorted(d.changed) == ["101", "102"]
    said = {
        f"largest: 101 {100 * share_a:.1f} % -> {100 * share_b:.1f} %",
        f"largest: 102 {100 * (1 - share_a):.1f} % -> {100 * (1 - share_b):.1f} %",
    }
    assert any(s in d.line() for s in said), d.line()
    assert d.plot().get_title()


def test_profiles_that_share_almost_no_key_are_said_to():
    """Two builds under different names (./prog-old, ./prog-new), or threads of two runs: every key
    is in one profile only and 'changed'; the diff warns, naming the DSOs, instead of only flagging."""
    from hemkit.core.errors import HemkitWarning

    a = _program([0.5, 0.5], seed=21, dso="/tmp/prog-old")
    b = _program([0.5, 0.5], seed=22, dso="/tmp/prog-new")
    with pytest.warns(HemkitWarning, match=r"prog-old in A, prog-new in B"):
        profile_diff(a, b)
    with pytest.warns(HemkitWarning, match="thread ids"):  # a thread in both, most samples on threads of one
        profile_diff(pd.concat([a.assign(tid=3), a.head(50)]), pd.concat([b.assign(tid=2), b.head(50)]), by="tid")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HemkitWarning)
        profile_diff(a, _program([0.6, 0.4], seed=23, dso="/tmp/prog-old"))  # the same program: no warning
        profile_diff(a, a.assign(tid=2), by="comm")


def _build(shares, *, seed, name, kernel):
    """A program ``name`` with a share ``kernel`` of its samples in the kernel (page faults: in any build)."""
    prog = _program(shares, seed=seed, dso=f"/tmp/{name}").assign(comm=name)
    k = int(len(prog) * kernel)
    prog.loc[prog.index[:k], ["sym", "dso"]] = ["clear_page_erms", "[kernel.kallsyms]"]
    return prog


@pytest.mark.parametrize("by", ["sym", "dso", "comm"])
def test_two_builds_under_different_names_are_said_to_even_where_one_side_is_mostly_shared(by):
    """prog_O0 against prog_O2: every function 'only in A' and 'only in B' and no hint where most of B's samples
    were in the kernel (shared): the old warning needed most samples of both sides on keys the other lacks."""
    from hemkit.core.errors import HemkitWarning

    a = _build([0.5, 0.5], seed=41, name="prog_O0", kernel=0.1)
    b = _build([0.5, 0.5], seed=42, name="prog_O2", kernel=0.6)
    with pytest.warns(HemkitWarning, match=r"different names \(prog_O0 in A, prog_O2 in B\).*same name") as said:
        profile_diff(a, b, by=by)
    assert len([w for w in said if "names" in str(w.message)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", HemkitWarning)
        profile_diff(a, _build([0.6, 0.4], seed=43, name="prog_O0", kernel=0.6), by=by)  # one name: no warning


def test_the_line_and_figure_show_a_level_of_0_999_as_it_is():
    d = profile_diff(_program([0.3, 0.7], seed=31), _program([0.6, 0.4], seed=32), level=0.999)
    assert "at FDR 0.1%" in d.line()
    ax = d.plot()
    assert "FDR 0.1%" in ax.get_title() and "99.9% intervals" in ax.get_xlabel()


@pytest.mark.parametrize("command", ["diff", "profile"])
def test_cli_one_file_for_the_table_and_the_figure_is_refused(bad_input, tmp_path, command):
    """-o x --plot x (no suffix: CSV and PNG) wrote the table, then the figure over it."""
    src = str(FIXTURES / "known_shares.script.txt")
    same = tmp_path / "result"
    args = ["sampling", command, src, *([src] if command == "diff" else []), "-o", same, "--plot", same]
    bad_input(args, names=[str(same), "table", "plot"], watch=[tmp_path])


def test_a_profile_of_two_events_is_compared_on_the_event_both_sampled():
    """A: task-clock and more page-faults samples; B: task-clock alone.  Each side chose its own
    most sampled event, so page-faults in A were compared with task-clock in B."""
    from hemkit.core.errors import HemkitWarning

    clock = _program([0.5, 0.5], seed=41, event="task-clock")
    faults = _program([0.2, 0.8], seed=42, samples=4000, event="page-faults")
    a = pd.concat([clock, faults], ignore_index=True)
    b = _program([0.5, 0.5], seed=43, event="task-clock")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = profile_diff(a, b)
    assert d.event_a == d.event_b == "task-clock"
    assert not any("different events" in str(w.message) for w in caught)
    assert any(issubclass(w.category, HemkitWarning) and "task-clock" in str(w.message) for w in caught)
    assert d.changed == []
    assert d.samples_a == (a["event"] == "task-clock").sum()


def test_the_event_a_two_event_profile_offers_instead_is_one_both_sampled():
    """A: cpu-clock and a few page-faults; B: cpu-clock alone.  The warning offered 'pass event='page-faults''
    for another, which B cannot give: the diff then refused it ('B: no samples of event page-faults')."""
    from hemkit.core.errors import HemkitWarning

    clock = _program([0.5, 0.5], seed=51)
    faults = _program([0.2, 0.8], seed=52, samples=10, event="page-faults")
    a = pd.concat([clock, faults], ignore_index=True)
    for b, offered in (
        (_program([0.5, 0.5], seed=53), ()),
        (pd.concat([_program([0.5, 0.5], seed=53), faults], ignore_index=True), ("page-faults",)),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            profile_diff(a, b)
        said = [w.message for w in caught if issubclass(w.category, HemkitWarning) and "samples of 2" in str(w.message)]
        assert said and all(tuple(f.value for f in w.fixes) == offered for w in said), [str(w) for w in said]
        for event in offered:
            profile_diff(a, b, event=event)  # what it offers works


def test_by_dso_the_same_program_built_in_two_folders_is_one_dso():
    """By symbol a key's DSO is its short name, so /src/old/prog and /src/new/prog matched; by DSO the key was
    the path, so every DSO of the program was 'only in A' or 'only in B' and 100 % of the samples changed."""
    libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
    old = pd.concat([_program([0.5, 0.5], seed=61, dso="/src/old/prog"), _program([1.0], seed=62, dso=libc)])
    new = pd.concat([_program([0.5, 0.5], seed=63, dso="/src/new/prog"), _program([1.0], seed=64, dso=libc)])
    for x in (old, new):
        x["time"] = np.arange(len(x))
    d = profile_diff(old, new, by="dso")
    assert sorted(d.table.index) == ["libc.so.6", "prog"] and d.changed == [] and not d.only_a and not d.only_b
    # two DSOs of one short name in a profile stay two keys, named by their paths
    other = _program([1.0], seed=65, dso="/opt/lib/libc.so.6")
    both = pd.concat([new, other])
    both["time"] = np.arange(len(both))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = profile_diff(old, both, by="dso")
    assert {libc, "/opt/lib/libc.so.6", "prog"} == set(d.table.index)
    assert d.only_b == ("/opt/lib/libc.so.6",)


def test_symbols_without_dso_on_one_side_are_refused_not_all_changed():
    """perf script text without the dso field against a perf.data: every key was 'only in' one side
    (sym against (sym, dso)), all flagged, the rows labelled as tuples."""
    from hemkit.core.errors import InputError

    a = _program([0.5, 0.5], seed=51).drop(columns="dso")
    b = _program([0.5, 0.5], seed=52)
    with pytest.raises(InputError, match=r"^A: .*no DSO names.*perf script -F"):
        profile_diff(a, b)
    with pytest.raises(InputError, match=r"^B: .*no DSO names"):
        profile_diff(b, a)
    assert profile_diff(a, b, by="comm").changed == []


def _with_burst(df, name, start, length):
    """``df`` with ``length`` consecutive samples from ``start`` on given to ``name`` (one burst)."""
    out = df.copy()
    out.loc[start : start + length - 1, "sym"] = name
    return out


def test_a_key_in_one_burst_of_two_samples_against_none_is_not_flagged():
    """A kernel function hit once in B (2 adjacent samples), never in A: whether such an event happens
    differs from execution to execution. Within B its share is known to 1/6 sample^2, which called it
    changed (p about 0.01); between two executions its variance is at least the binomial's."""
    a = _program([0.3, 0.2, 0.5], seed=41)
    b = _with_burst(_program([0.3, 0.2, 0.5], seed=42), "do_irq", 800, 2)
    d = profile_diff(a, b)
    row = d.table.loc["do_irq"]
    assert row["note"] == "only in B" and row["samples_b"] == 2
    assert not row["changed"] and row["p_value"] > 0.3
    assert row["lower"] < 0 < row["upper"]


def test_a_key_in_a_few_long_bursts_whose_share_truly_moves_is_still_flagged():
    """The floor is the binomial variance, not the burst's square: a phase of 100 samples that takes
    200 in B (one burst each), and a key of 80 samples in B only, are changes."""
    base = _program([0.3, 0.2, 0.5], seed=43)
    a = _with_burst(base, "init", 0, 100)
    b = _with_burst(_with_burst(_program([0.3, 0.2, 0.5], seed=44), "init", 0, 200), "new_path", 900, 80)
    d = profile_diff(a, b)
    assert {"init", "new_path"} <= set(d.changed)


def test_execution_variance_floors_few_bursts_and_scales_the_rest():
    from hemkit.sampling.profile import EXECUTION_SCALE, FEW_BURSTS, execution_variance

    rng = np.random.default_rng(0)
    var = rng.uniform(0, 1e-4, 200)
    share = rng.uniform(0, 0.5, 200)
    bursts = rng.integers(1, 40, 200)
    binomial = share * (1 - share) / 1000
    v = execution_variance(var, binomial, bursts)
    few = bursts <= FEW_BURSTS
    assert np.allclose(v[~few], EXECUTION_SCALE * var[~few])  # many bursts: the calibrated variance, scaled
    assert np.allclose(v[few], EXECUTION_SCALE * np.maximum(var[few], binomial[few]))
    assert np.all(v >= EXECUTION_SCALE * var)
    assert np.allclose(execution_variance(var, binomial, bursts, scale=1.0, few=0), var)
    assert np.allclose(execution_variance(var, binomial, bursts, extra=1e-5, scale=2.0, few=0), 2 * (var + 1e-5))


def test_bursts_end_where_their_thread_does():
    """A key's runs (bursts) are counted per thread: the last sample of one thread and the first of the
    next are not one run."""
    df = pd.DataFrame(
        {
            "sym": ["f", "g", "g", "f", "f"],
            "tid": [1, 1, 1, 2, 2],
            "time": [1, 2, 3, 1, 2],
            "period": 1000,
            "comm": "x",
            "event": "cpu-clock",
            "dso": "/bin/x",
        }
    )
    df.loc[2, "sym"] = "f"  # thread 1 ends with f, thread 2 starts with f
    assert profile_shares(df).table.loc["f", "runs"] == 3


def test_cli_a_burst_of_two_samples_in_one_profile_is_not_a_change(cli, tmp_path):
    """The CLI path of the walk: a perf script file against the same program with one 2-sample burst
    of a function the other never sampled: nothing changed, exit 0."""
    src = FIXTURES / "known_shares.script.txt"
    lines = src.read_text().splitlines(keepends=True)
    for i in (100, 101):
        lines[i] = lines[i].rsplit(" ", 1)[0] + " do_irq\n"
    other = tmp_path / "other.txt"
    other.write_text("".join(lines))
    out = tmp_path / "d.csv"
    res = cli(["sampling", "diff", str(src), str(other), "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    table = pd.read_csv(out).set_index("sym")
    assert table.loc["do_irq", "samples_b"] == 2 and not table.loc["do_irq", "changed"]
    assert "0 of" in res.stdout and "1 only in B" in res.stdout


def test_cli_by_thread_of_two_executions_is_refused_pointing_to_comm(cli, bad_input, tmp_path):
    """Thread ids never repeat across executions: --by tid marked every thread changed (100 % -> 0 %)
    and exited 0 with a warning. Where the profiles share no thread id it is refused; where they do
    (one recording, or profiles of it) it works."""
    src = FIXTURES / "known_shares.script.txt"
    other = tmp_path / "other.txt"
    other.write_text(src.read_text().replace(" 9173 ", " 9174 "))
    line = bad_input(["sampling", "diff", str(src), str(other), "--by", "tid"], names=["--by", "--by comm"])
    assert "thread id" in line
    res = cli(["sampling", "diff", str(src), str(src), "--by", "tid"])
    assert res.exit_code == 0, res.stderr
    assert "0 of 1 tid keys changed" in res.stdout
    with pytest.raises(Exception, match="share no thread id"):
        profile_diff(_program([0.5, 0.5], seed=45), _program([0.5, 0.5], seed=46).assign(tid=2), by="tid")


def _threads(main, io, seed):
    """A main thread alternating f0 and f1 in runs of ~8 samples, and an I/O thread of ``io`` samples
    alternating read and write in runs of ~8 (both long-run keys within their threads)."""
    rng = np.random.default_rng(seed)
    a = np.array(["f0", "f1"] * (main // 16 + 1), dtype=object).repeat(8)[:main]
    b = np.array(["read", "write"] * (io // 16 + 1), dtype=object).repeat(8)[:io]
    sym = np.concatenate([a, b])
    tid = np.r_[np.full(main, 1), np.full(io, 2)]
    time = np.r_[np.arange(main), rng.uniform(0, main, io).round(3)]
    df = pd.DataFrame({"sym": sym, "tid": tid, "time": time, "period": 1000, "comm": "prog", "event": "cpu-clock"})
    return df.assign(dso="/bin/prog")


def test_how_much_a_thread_ran_varies_between_executions():
    """zstd's I/O thread took 69 to 99 samples of ~2 000 in six executions: within one profile each
    thread's CPU time is fixed, so its keys (in long runs) had a tiny se and every pair flagged them.
    Between executions each thread's share of the samples is taken as multinomial."""
    from hemkit.sampling.profile import execution_terms

    d = profile_diff(_threads(1500, 60, 1), _threads(1500, 85, 2))
    assert not d.changed, d.table[["samples_a", "samples_b", "p_value"]]
    one = execution_terms(np.array([0, 1] * 50), np.ones(100))  # one thread, no kernel samples: nothing to add
    assert np.all(one == 0)


def test_kernel_samples_count_as_independent_draws_between_executions():
    """Kernel time (page faults in runs of 3 samples) went from 40 to 60 samples of 1 500: within the
    profile its runs give a small se (flagged, p < 1e-6); the kernel's samples are events of the machine,
    and between executions they count as binomial."""

    def run(kernel, seed):
        r = np.random.default_rng(seed)
        user = np.array(["f0", "f1"] * 200, dtype=object).repeat(4)[: 1500 - kernel]
        at = np.sort(r.choice(np.arange(1, len(user)), kernel // 3, replace=False))
        sym = np.insert(user, np.repeat(at, 3), "clear_page")
        dso = np.where(sym == "clear_page", "[kernel.kallsyms]", "/bin/prog")
        return pd.DataFrame(
            {
                "sym": sym,
                "dso": dso,
                "tid": 1,
                "time": np.arange(len(sym)),
                "period": 1000,
                "comm": "prog",
                "event": "cpu-clock",
            }
        )

    a, b = run(39, 4), run(60, 5)
    d = profile_diff(a, b)
    assert d.table.loc["clear_page", "samples_b"] - d.table.loc["clear_page", "samples_a"] == 21
    assert not d.changed, d.table[["samples_a", "samples_b", "p_value"]]
    by_dso = profile_diff(a, b, by="dso")
    assert not by_dso.changed
    # a real change of kernel time is still seen
    assert "clear_page" in profile_diff(a, run(150, 6)).changed


def test_jit_code_of_two_executions_is_one_dso():
    """perf names the map of JIT code (node, Java) by the process id, '[JIT] tid 12322', which never repeats:
    two executions of node had their JIT code 'only in A' and 'only in B', flagged in every pair."""
    a = _program([0.5, 0.5], seed=51)
    b = _program([0.5, 0.5], seed=52)
    a.loc[a["sym"] == "f1", ["sym", "dso"]] = ["[unknown]", "/tmp/perf-12322.map"]
    b.loc[b["sym"] == "f1", ["sym", "dso"]] = ["[unknown]", "/tmp/perf-13084.map"]
    for by in ("sym", "dso"):
        d = profile_diff(a, b, by=by)
        assert not d.only_a and not d.only_b and not d.changed, d.table
    assert "[JIT]" in profile_diff(a, b, by="dso").table.index
    assert (
        profile_shares(a, by="dso").table.index.str.startswith("[JIT] tid 12322").any()
    )  # a profile keeps perf's name
