"""The command line names, for each fix an error carries, the running command's own option."""

from __future__ import annotations

import pandas as pd

from hemkit.cli import _HemkitGroup, main, render_error
from hemkit.core.errors import Fix, InputError


def test_a_fix_is_named_as_the_option_of_the_command_that_failed():
    exc = InputError("x is constant", fix=[Fix("drop_constant", True), Fix("impute", "maxdet")])
    merge = main.get_command(None, "merge")
    assert render_error(exc, merge) == "x is constant; pass --drop-constant --impute maxdet"
    export = main.get_command(None, "export")  # export has --drop-constant only: no option it lacks is named
    assert render_error(exc, export) == "x is constant; pass --drop-constant"
    assert str(exc) == "x is constant; pass drop_constant=True and impute='maxdet'"


def test_the_command_is_found_through_groups_and_options():
    group: _HemkitGroup = main  # type: ignore[assignment]
    assert group._leaf(["merge", "a.csv", "-m", "much"]).name == "merge"
    assert group._leaf(["mpx", "score", "traces/", "--pmcs", "2"]).name == "score"
    assert group._leaf(["--version"]) is None


def _grouped(tmp_path, b_values):
    rows = []
    for r in range(6):
        rows += [(1, r, "a", r + 1.0), (1, r, "b", b_values[r]), (2, r, "a", 7.0 - r), (2, r, "c", (r * 3) % 5 + 1.0)]
        rows += [(3, r, "b", r % 3 + 1.0), (3, r, "c", r + 2.0)]
    path = tmp_path / "in.csv"
    pd.DataFrame(rows, columns=["group", "run", "event", "value"]).to_csv(path, index=False)
    return path


def test_merge_refuses_a_constant_event_naming_both_options_then_merges_with_them(cli, tmp_path):
    path = _grouped(tmp_path, [0.0] * 6)
    res = cli(["merge", path, "-q"])
    assert res.exit_code == 2
    assert "event 'b' is constant (0) in every run of group 1" in res.stderr
    assert "'a' and 'b'" in res.stderr and "pass --drop-constant --impute maxdet" in res.stderr
    fixed = cli(["merge", path, "-q", "--drop-constant", "--impute", "maxdet"])
    assert fixed.exit_code == 0, fixed.stderr
    assert "dropped: 1 constant event(s) in 1 group(s) ('b')" in fixed.stdout
    assert "imputed 1 pair(s) never read together ('a'/'b')" in fixed.stdout
    assert (
        "a correlation observed in 6 runs is uncertain by +-0.81 (95 %)" in fixed.stderr
    )  # 6 runs a group: observed correlations are that noisy


def test_a_long_list_of_unread_pairs_goes_to_a_file_named_in_the_error(cli, tmp_path):
    rows = [(g, r, e, float((r * (g + 2)) % 7 + r)) for g in range(12) for r in range(5) for e in (f"e{g}", "x")]
    path = tmp_path / "many.csv"
    pd.DataFrame(rows, columns=["group", "run", "event", "value"]).to_csv(path, index=False)
    res = cli(["merge", path, "-q"])
    assert res.exit_code == 2 and "66 pairs of events were never read together" in res.stderr
    assert "(and 56 more)" in res.stderr
    listed = res.stderr.rsplit("(all 66 in ", 1)[1].split(")")[0]
    lines = open(listed, encoding="utf-8").read().splitlines()
    assert len(lines) == 66 and lines[0].split("\t")[:2] == ["e0", "e1"]


def test_an_off_switch_is_named_by_its_off_spelling():
    import click

    cmd = click.Command("plan", params=[click.Option(["--check-events/--no-check-events"], default=True)])
    assert render_error(InputError("unknown", fix=Fix("check_events", False)), cmd) == "unknown; pass --no-check-events"


def test_an_interruption_is_one_line_without_an_empty_one_before(cli, monkeypatch, tmp_path):
    """Ctrl-C or SIGTERM in a command (mpx trace, export ...) printed an empty line, then 'hemkit: interrupted':
    click echoes one when a KeyboardInterrupt passes through it."""
    import hemkit.cli.collect as cli_collect

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_collect, "_export", interrupted)
    table = tmp_path / "t.csv"
    table.write_text("group,run,event,value\n0,0,a,1\n0,0,b,2\n0,1,a,3\n0,1,b,4\n")
    res = cli(["export", table, "-o", tmp_path / "o.csv"])
    assert res.exit_code == 130
    assert res.stderr.splitlines() == ["hemkit: interrupted"], repr(res.stderr)


def test_holdout_does_not_offer_drop_constant_for_an_event_constant_only_in_one_half(cli, tmp_path):
    rows = []
    for r in range(20):  # 'c' is 0 in 17 of group 1's 20 runs: seed 1's split leaves one half all 0
        rows += [(1, r, "a", (r * 7) % 11 + 1.0), (1, r, "c", 0.0 if r < 17 else r + 0.0)]
        rows += [(2, r, "a", (r * 5) % 13 + 1.0), (2, r, "c", (r * 3) % 7 + 1.0)]
    path = tmp_path / "t.csv"
    pd.DataFrame(rows, columns=["group", "run", "event", "value"]).to_csv(path, index=False)
    res = cli(["evaluate", "holdout", path, "--drop-constant", "--methods", "much", "--seed", "1", "-q"])
    assert res.exit_code == 2
    assert "event 'c' varies in group 1 but is constant (0) in the 10 runs of one part" in res.stderr
    assert "another seed may split it so" in res.stderr and "--drop-constant" not in res.stderr
