"""``hemkit sampling diff`` with several recordings a side: the spread between executions measured.

Executions are simulated as periodic samples of a program whose functions' shares are drawn anew
in every execution with a known spread (a function whose speed varies between executions), so
whether a test holds its level is known; the perf script fixture gives the command line's files.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from hemkit.core.errors import HemkitWarning, InputError
from hemkit.sampling.diff import (
    PRIOR_DF,
    SEVERAL_COLUMNS,
    DiffOptions,
    _t_quantile,
    diff_recordings,
    profile_diff,
)
from hemkit.sampling.profile import profile_shares, read_samples

FIXTURES = __import__("pathlib").Path(__file__).parent / "data"
SCRIPT = FIXTURES / "known_shares.script.txt"


def _execution(shares, *, spread=0.0, samples=1600, run=8, seed=0):
    """One execution: each function's share drawn around ``shares`` with SD ``spread`` (then renormalised),
    its time cut into runs of ``run`` samples interleaved at random and sampled every interval."""
    rng = np.random.default_rng(seed)
    s = np.clip(np.asarray(shares, float) + rng.normal(0.0, spread, len(shares)), 0.01, None)
    counts = np.round(s / s.sum() * samples).astype(int)
    runs = np.concatenate([np.full(max(c // run, 1), i) for i, c in enumerate(counts)])
    rng.shuffle(runs)
    per = {i: np.diff(np.linspace(0, c, max(c // run, 1) + 1).round().astype(int)) for i, c in enumerate(counts)}
    taken = {i: 0 for i in per}
    seq = []
    for i in runs:
        seq += [i] * int(per[i][taken[i]])
        taken[i] += 1
    names = np.array([f"f{i}" for i in range(len(shares))], dtype=object)
    n = len(seq)
    return pd.DataFrame(
        {"comm": "prog", "tid": 1, "time": np.arange(n, dtype=float), "event": "cpu-clock", "period": 1000}
        | {"sym": names[np.array(seq)], "dso": "/bin/prog"}
    )


def _side(shares, k, spread, seed):
    return [profile_shares(_execution(shares, spread=spread, seed=seed * 100 + i)) for i in range(k)]


def test_the_moderated_t_by_hand():
    """Known answer: the table's p-value and interval are limma's moderated t, computed here from the
    per-execution shares and se_exec with SciPy's t distribution and digamma function."""
    from scipy import special, stats

    pa, pb = _side([0.3, 0.2, 0.5], 3, 0.02, 1), _side([0.33, 0.2, 0.47], 3, 0.02, 2)
    d = diff_recordings(pa, pb)
    assert list(d.table.columns) == list(SEVERAL_COLUMNS)
    assert (d.recordings_a, d.recordings_b, d.df) == (3, 3, PRIOR_DF + 4)
    keys = ["f0", "f1", "f2"]
    sa = np.array([[p.table.loc[k, "share"] for p in pa] for k in keys])
    sb = np.array([[p.table.loc[k, "share"] for p in pb] for k in keys])
    model = np.array([np.mean([p.table.loc[k, "se_exec"] ** 2 for p in pa + pb]) for k in keys])
    measured = (((sa - sa.mean(1, keepdims=True)) ** 2).sum(1) + ((sb - sb.mean(1, keepdims=True)) ** 2).sum(1)) / 4
    # how much more than modelled the executions varied (limma's prior variance for d0 = inf), at least 1
    scale = np.exp(np.mean(np.log(measured / model)) - (special.digamma(2) - np.log(2)))
    assert scale > 1.5  # an SD of 2 points between executions against about 0.25 modelled
    moderated = (PRIOR_DF * scale * model + 4 * measured) / (PRIOR_DF + 4)
    se = np.sqrt(moderated * (1 / 3 + 1 / 3))
    t = (sb.mean(1) - sa.mean(1)) / se
    for i, key in enumerate(keys):
        row = d.table.loc[key]
        assert row["difference"] == pytest.approx(sb[i].mean() - sa[i].mean(), abs=1e-15)
        assert row["p_value"] == pytest.approx(2 * stats.t.sf(abs(t[i]), PRIOR_DF + 4), rel=1e-6)
        half = stats.t.ppf(0.975, PRIOR_DF + 4) * se[i]
        assert row["upper"] - row["difference"] == pytest.approx(half, rel=1e-6)
        assert row["spread_a"] == pytest.approx(sa[i].std(ddof=1)) and row["spread_b"] == pytest.approx(
            sb[i].std(ddof=1)
        )
        assert row["samples_a"] == sum(p.table.loc[key, "samples"] for p in pa)
    # executions alike (no spread beyond the sampling grid's): the model is not scaled down
    alike = diff_recordings(_side([0.3, 0.2, 0.5], 3, 0.0, 3), _side([0.3, 0.2, 0.5], 3, 0.0, 4))
    assert not alike.changed


def test_t_quantile_matches_scipy():
    from scipy import stats

    for df in (1.0, 2.5, 8.0, 40.0):
        for p in (0.5, 0.9, 0.975, 0.9995):
            assert _t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-7, abs=1e-9)
    assert _t_quantile(0.975, math.inf) == pytest.approx(1.959964, abs=1e-6)


def _aa_rate(spread, prior_df=PRIOR_DF, reps=40, k=3, seed=0):
    """A/A: the share of comparisons of ``k`` executions against ``k`` flagging any key (``k=1``: profile_diff)."""
    flagged = 0
    for r in range(reps):
        pa = _side([0.3, 0.2, 0.5], k, spread, seed + 2 * r)
        pb = _side([0.3, 0.2, 0.5], k, spread, seed + 2 * r + 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            d = diff_recordings(pa, pb, options=DiffOptions(prior_df=prior_df))
        flagged += bool(d.table["changed"].any())
    return flagged / reps


@pytest.mark.parametrize("spread", [0.005, 0.01, 0.02])
def test_aa_with_a_known_spread_between_executions_holds_its_level(spread):
    """Shares drawn with an SD of 0.5-2 points between executions, where one profile's model sees about
    0.25: one recording a side flags a third to most A/A comparisons; the moderated t of 3 against 3,
    which measures the spread, flags about its level (FDR 5 %: 2 of 40; at most 5 of 40 asked)."""
    assert _aa_rate(spread, k=1) >= 0.3
    assert _aa_rate(spread) <= 0.125


def test_aa_of_executions_alike_and_of_the_measured_spread_alone():
    """Executions that differ only by the sampling grid flag nothing; the measured spread alone (a pooled
    t on 4 degrees of freedom, prior_df=0) holds the level too."""
    assert _aa_rate(0.0, reps=20) <= 0.05
    assert _aa_rate(0.02, prior_df=0.0, reps=20) <= 0.15


def test_a_large_shift_is_flagged_and_its_interval_covers_it():
    """5 points more for f0 with an SD of 1 point between executions: flagged in every comparison of
    3 against 3, and the interval covers the drawn means' difference."""
    flagged = covered = 0
    for r in range(10):
        pa = _side([0.30, 0.20, 0.50], 3, 0.01, 500 + 2 * r)
        pb = _side([0.35, 0.19, 0.46], 3, 0.01, 501 + 2 * r)
        row = diff_recordings(pa, pb).table.loc["f0"]
        flagged += bool(row["changed"])
        covered += bool(row["lower"] <= 0.05 <= row["upper"])
    assert flagged == 10 and covered >= 9


def test_one_recording_a_side_is_exactly_profile_diff(tmp_path):
    """One recording a side, given as files, one-file folders or samples: profile_diff's result as it was."""
    other = tmp_path / "other.txt"
    lines = SCRIPT.read_text().splitlines(keepends=True)
    other.write_text("".join(lines[:150] + [line.replace("work_1", "work_0") for line in lines[150:]]))
    before = profile_diff(read_samples(SCRIPT), read_samples(other), by="sym")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "run.txt").write_text(SCRIPT.read_text())
    for a, b in ((SCRIPT, other), (str(tmp_path / "a"), other), ([read_samples(SCRIPT)], [read_samples(other)])):
        d = diff_recordings(a, b)
        pd.testing.assert_frame_equal(d.table, before.table)
        assert (d.recordings_a, d.recordings_b, d.df) == (1, 1, math.inf)
        assert list(d.table.columns) == [c for c in before.table.columns]
    assert diff_recordings(SCRIPT, other).line() == before.line()


def _copies(folder, n, *, seed, event=None, comm=None):
    """``n`` executions of the fixture: each drops a random tenth of its samples (shares vary a little)."""
    folder.mkdir()
    lines = SCRIPT.read_text().splitlines(keepends=True)
    rng = np.random.default_rng(seed)
    for i in range(n):
        keep = [line for line in lines if rng.uniform() > 0.1]
        text = "".join(keep)
        if event:
            text = text.replace(" cpu-clock:", f" {event}:")
        if comm:
            text = text.replace("shares-bf5cd7b8", comm)
        (folder / f"run{i + 1}.txt").write_text(text)
    return folder


def test_cli_folders_of_recordings(cli, tmp_path):
    a, b = _copies(tmp_path / "before", 3, seed=1), _copies(tmp_path / "after", 3, seed=2)
    out = tmp_path / "d.csv"
    res = cli(["sampling", "diff", str(a), str(b), "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    table = pd.read_csv(out)
    assert list(table.columns) == ["sym", *SEVERAL_COLUMNS]
    assert (table["recordings_a"] == 3).all() and (table["recordings_b"] == 3).all()
    assert table["spread_a"].gt(0).any() and not table["changed"].any()
    assert "3 recordings" in res.stdout and "moderated t" in res.stdout
    assert "spread_a" in res.stdout  # the shown table has the measured spread


def test_several_recordings_as_a_list_of_files_and_of_profiles():
    """The library takes a side as a sequence of files, samples or profiles alike."""
    d = diff_recordings([SCRIPT, SCRIPT], [SCRIPT, SCRIPT])
    assert d.recordings_a == 2 and not d.changed and d.table["spread_a"].eq(0).all()
    p = profile_shares(read_samples(SCRIPT))
    assert diff_recordings([p, p], [p, p]).table.equals(d.table)


def test_cli_several_recordings_bad_inputs(bad_input, tmp_path):
    good = _copies(tmp_path / "good", 2, seed=3)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".hidden").write_text("x")
    bad_input(["sampling", "diff", str(empty), str(good)], names=["A:", "empty", "no perf.data"], watch=[tmp_path])
    nested = tmp_path / "nested"
    nested.mkdir()
    (nested / "inner").mkdir()
    bad_input(["sampling", "diff", str(good), str(nested)], names=["B:", "inner"], watch=[tmp_path])
    # one side several, the other one
    line = bad_input(["sampling", "diff", str(good), str(SCRIPT)], names=["A has 2 recordings", "B one"])
    assert "both sides" in line
    # a file that is not a recording, among recordings
    notes = _copies(tmp_path / "notes", 2, seed=4)
    (notes / "README.txt").write_text("recorded on Tuesday\n")
    bad_input(["sampling", "diff", str(good), str(notes)], names=["B:", "README.txt"], watch=[tmp_path])
    # recordings of different events (the other side, or within one)
    pages = _copies(tmp_path / "pages", 2, seed=5, event="page-faults")
    line = bad_input(["sampling", "diff", str(good), str(pages)], names=["different events", "page-faults"])
    assert "cpu-clock" in line
    mixed_events = tmp_path / "mixed_events"
    mixed_events.mkdir()
    for f in (good / "run1.txt", pages / "run2.txt"):
        (mixed_events / f.name).write_text(f.read_text())
    bad_input(["sampling", "diff", str(mixed_events), str(good)], names=["different events", "run2.txt"])
    # a side whose recordings are of different commands
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "r1.txt").write_text((good / "run1.txt").read_text())
    (mixed / "r2.txt").write_text(_copies(tmp_path / "other", 1, seed=6, comm="gzip").joinpath("run1.txt").read_text())
    bad_input(["sampling", "diff", str(mixed), str(good)], names=["A:", "different commands", "gzip", "r2.txt"])
    # thread ids of several executions never match
    bad_input(["sampling", "diff", str(good), str(good), "--by", "tid"], names=["--by", "--by comm"])


def test_library_refusals_are_input_errors():
    p = profile_shares(read_samples(SCRIPT))
    with pytest.raises(InputError, match="prior_df"):
        diff_recordings([p, p], [p, p], options=DiffOptions(prior_df=-1))
    with pytest.raises(InputError, match="A has 2 recordings and B one"):
        diff_recordings([p, p], p)
    with pytest.raises(InputError, match="no recordings"):
        diff_recordings([], [p, p])


def test_perf_data_folders(perf_can_record, libc_kernel_record, cli, tmp_path):
    """Real perf.data recordings, two a side, in folders (perf record as the other sampling tests do)."""
    from hemkit.external.perf import perf_record

    _, exe = libc_kernel_record
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        for i in range(2):
            perf_record([str(exe), "20"], tmp_path / side / f"{i}.data", event="cpu-clock", period=250_000, timeout=300)
    res = cli(["sampling", "diff", str(tmp_path / "a"), str(tmp_path / "b"), "--by", "dso"])
    assert res.exit_code == 0, res.stderr
    assert "2 recordings" in res.stdout
