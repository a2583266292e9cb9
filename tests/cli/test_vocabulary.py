"""Every subcommand speaks the one vocabulary of DESIGN.md section 8 (walks every --help)."""

from __future__ import annotations

import click
import pytest

from hemkit.cli import COMMANDS, SUMMARIES, main
from hemkit.cli._options import OLD_SPELLINGS, AliasOption, PagePath, PlanPath, TablePath, alias, output_option

FORBIDDEN = {"--out", "--png", "--plots", "--R", "--repeats", "--counters", "--n-pmcs", "--repetitions", "--nsims"}


def _walk():
    ctx = click.Context(main)
    for name in main.list_commands(ctx):
        cmd = main.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            sub_ctx = click.Context(cmd, parent=ctx)
            for sub in cmd.list_commands(sub_ctx):
                yield f"{name} {sub}", cmd.get_command(sub_ctx, sub)
        else:
            yield name, cmd


COMMAND_LIST = list(_walk())


def test_every_area_has_commands():
    names = {n.split()[0] for n, _ in COMMAND_LIST}
    assert set(COMMANDS) <= names


@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_top_level_summaries_match_the_commands(name):
    cmd = main.get_command(click.Context(main), name)
    assert SUMMARIES[name] == cmd.get_short_help_str(limit=200)


@pytest.mark.parametrize(("name", "cmd"), COMMAND_LIST, ids=[n for n, _ in COMMAND_LIST])
def test_options_follow_the_vocabulary(name, cmd):
    problems = []
    for p in cmd.params:
        if not isinstance(p, click.Option):
            continue
        opts = set(p.opts) | set(p.secondary_opts)
        if p.hidden:
            if not (p.deprecated or isinstance(p, AliasOption)):
                problems.append(f"hidden option {sorted(opts)} is not a deprecated alias")
            continue
        bad = opts & FORBIDDEN
        if bad:
            problems.append(f"off-vocabulary option {sorted(bad)}")
        if name.startswith("mpx") and "-c" in opts:
            problems.append("-c for counters: use --pmcs")
        if "--output" in opts and "-o" not in opts:
            problems.append("--output without -o")
        if "-o" in opts and "--output" not in opts:
            problems.append("-o is not --output")
        if any(o.startswith("--plot") for o in opts) and not all(
            o == "--plot" or o.startswith("--plot-") for o in opts if o.startswith("--")
        ):
            problems.append(f"plot option {sorted(opts)}")
        if any(o.startswith("--fig") or o.startswith("--png") or o.startswith("--svg") for o in opts):
            problems.append(f"figure option {sorted(opts)}: use --plot / --plot-<what>")
        if "--seed" in opts:
            if not (isinstance(p.type, click.IntRange) and p.type.min == 0):
                problems.append("--seed is not an integer >= 0")
        for flag in ("--pmcs", "--runs", "--reps"):
            if flag in opts and not (isinstance(p.type, click.IntRange) and (p.type.min or 0) >= 1):
                problems.append(f"{flag} is not an integer >= 1")
        if "--quiet" in opts and "-q" not in opts:
            problems.append("--quiet without -q")
        if any(o.startswith("--allow") for o in opts) and not (
            p.is_flag and all(o.startswith("--allow-") for o in opts if o.startswith("--"))
        ):
            problems.append(f"{sorted(opts)}: --allow-<what> options are flags")
    assert not problems, f"hemkit {name}: " + "; ".join(problems)


@pytest.mark.parametrize(("name", "cmd"), COMMAND_LIST, ids=[n for n, _ in COMMAND_LIST])
def test_every_command_takes_q(name, cmd):
    """-q is in the vocabulary: a script passing it to every command (export, compare, derive analyze ...)
    got 'No such option' from eight of them."""
    opts = {o for p in cmd.params if isinstance(p, click.Option) for o in p.opts}
    assert "-q" in opts, f"hemkit {name} has no -q"


@pytest.mark.parametrize("name", [n for n, _ in COMMAND_LIST])
def test_help_renders(name, cli):
    res = cli([*name.split(), "--help"])
    assert res.exit_code == 0, res.stderr
    assert "Usage:" in res.stdout


def test_alias_warns_only_for_the_old_spelling():
    @click.command()
    @output_option(default="def.csv")
    @alias("--out", "output", "-o/--output")
    def cmd(output):
        click.echo(f"output={output}")

    from click.testing import CliRunner

    runner = CliRunner()
    new = runner.invoke(cmd, ["-o", "a.csv"])
    old = runner.invoke(cmd, ["--out", "b.csv"])
    none = runner.invoke(cmd, [])
    assert (new.stdout, new.stderr) == ("output=a.csv\n", "")
    assert old.stdout == "output=b.csv\n"
    assert old.stderr == "hemkit: warning: --out is deprecated; use -o/--output\n"
    assert (none.stdout, none.stderr) == ("output=def.csv\n", "")


def test_required_options_are_required():
    @click.command()
    @output_option(required=True)
    def cmd(output):
        click.echo(output)

    from click.testing import CliRunner

    res = CliRunner().invoke(cmd, [])
    assert res.exit_code == 2 and "Missing option" in res.output


def _alias_cases():
    for name, cmd in COMMAND_LIST:
        shown = [p for p in cmd.params if isinstance(p, click.Option) and not p.hidden]
        for old, news in OLD_SPELLINGS.items():
            target = next((p for new in news for p in shown if new in p.opts), None)
            if target is not None:
                yield name, old, target.opts[-1]


ALIAS_CASES = list(_alias_cases())


def test_every_old_spelling_is_somewhere():
    assert {old for _, old, _ in ALIAS_CASES} == set(OLD_SPELLINGS)
    assert {n for n, old, _ in ALIAS_CASES if old == "--out"} == {n for n, c in COMMAND_LIST if _has(c, "--output")}


def _has(cmd, opt):
    return any(opt in p.opts for p in cmd.params if isinstance(p, click.Option) and not p.hidden)


@pytest.mark.parametrize(("name", "old", "new"), ALIAS_CASES, ids=[f"{n} {o}" for n, o, _ in ALIAS_CASES])
def test_old_spelling_works_on_every_command_with_the_new_one(name, old, new, capsys):
    cmd = dict(COMMAND_LIST)[name]
    alias_opt = next(p for p in cmd.params if old in p.opts)
    assert alias_opt.hidden and isinstance(alias_opt, AliasOption)
    target = next(p for p in cmd.params if new in p.opts and not p.hidden)
    # a table is CSV or Parquet, a page HTML, a plan TOML
    kinds = {TablePath: ".csv", PagePath: ".html", PlanPath: ".toml"}
    suffix = next((s for k, s in kinds.items() if isinstance(target.type, k)), ".png")
    value = "2" if isinstance(target.type, click.IntRange) else "f" + suffix
    ctx = cmd.make_context(name, [old, value], resilient_parsing=True)
    expected = target.type_cast_value(ctx, [value] if target.multiple else value)
    assert ctx.params[target.name] == expected
    shown = "/".join(sorted(target.opts, key=len))
    assert capsys.readouterr().err == f"hemkit: warning: {old} is deprecated; use {shown}\n"
    # the new spelling still wins when both are given
    other = "3" if value == "2" else "g" + suffix
    ctx = cmd.make_context(name, [new, other, old, value], resilient_parsing=True)
    got = ctx.params[target.name]
    assert (other in [str(v) for v in got]) if target.multiple else str(got) == other


def test_the_readme_lists_the_old_spellings_that_work():
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    sentence = readme[readme.index("Older spellings") :].split("\n\n")[0]
    quoted = re.findall(r"`([^`]+)`", sentence.split("still work")[0])
    listed = {o for q in quoted for o in q.split("/")}
    hidden = {o for _, c in COMMAND_LIST for p in c.params if isinstance(p, AliasOption) for o in p.opts}
    assert listed and listed <= hidden


@pytest.mark.parametrize(
    ("args", "warning", "pmcs", "event_counters"),
    [
        (["--counters", "2"], "--counters is deprecated; use --pmcs", 2, ()),
        (["-c", "2"], "-c is deprecated; use --pmcs", 2, ()),
        (
            ["--pmcs", "2", "--counters", "a=0"],
            "--counters EVENT=C1,C2 is deprecated; use --event-counters",
            2,
            ("a=0",),
        ),
        (
            ["--event-counters", "b=1", "--pmcs", "2", "--counters", "a=0"],
            "--counters EVENT=C1,C2 is deprecated; use --event-counters",
            2,
            ("b=1", "a=0"),
        ),
    ],
)
def test_plan_counters_keeps_both_old_meanings(cli, tmp_path, args, warning, pmcs, event_counters):
    res = cli(["plan", "a", "b", "c", "--time-budget", "0", "--no-check-events", *args, "-o", tmp_path / "p.toml"])
    assert res.exit_code == 0, res.stderr
    assert f"hemkit: warning: {warning}\n" in res.stderr
    cmd = dict(COMMAND_LIST)["plan"]
    ctx = cmd.make_context("plan", ["a", *args], resilient_parsing=True)
    assert ctx.params["pmcs"] == pmcs and tuple(ctx.params["event_counters"]) == event_counters


@pytest.mark.parametrize("name", ["merge", "report", "export"])
def test_out_writes_where_output_would(cli, tmp_path, name):
    src = tmp_path / "r.csv"
    from hemkit.datasets import t2080_much

    t2080_much().to_tidy().head(6000).to_csv(src, index=False)
    suffix = ".html" if name == "report" else ".csv"
    res = cli([name, src, "--out", tmp_path / f"x{suffix}", *(["-q"] if name != "export" else [])])
    assert res.exit_code == 0, res.stderr
    assert "hemkit: warning: --out is deprecated; use -o/--output" in res.stderr
    assert (tmp_path / f"x{suffix}").stat().st_size > 100


@pytest.mark.parametrize(
    ("args", "suggested"),
    [
        (["mpx", "estimate", "m.csv", "--total", "t.csv"], "Did you mean '--totals'?"),
        (["mpx", "estimate", "m.csv", "--ou", "e.csv"], "Did you mean '--output'?"),
        (["merge", "x.csv", "--outpt", "y.csv"], "'--output'"),
    ],
)
def test_a_typo_is_pointed_to_the_options_help_shows_not_the_hidden_old_spellings(bad_input, args, suggested):
    """Click suggested the deprecated --out next to --totals for --total (the old spellings are hidden)."""
    line = bad_input(args, names=[suggested])
    assert not any(f"'{old}'" in line for old in OLD_SPELLINGS)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["export", "{src}", "-o", "{tmp}/x.xlsx"], ["'-o' / '--output'", "x.xlsx", "name it .csv or .parquet"]),
        (["merge", "{src}", "-o", "{tmp}/m.csv", "--pair-intervals", "{tmp}/p.tsv"], ["'--pair-intervals'", "p.tsv"]),
        (["compare", "{src}", "{src}", "--pairs", "{tmp}/p.json"], ["'--pairs'", "p.json"]),
        (["mpx", "estimate", "{src}", "-o", "{tmp}/e.csv", "--totals", "{tmp}/t.json"], ["'--totals'", "t.json"]),
        # a report is one HTML page: r.pdf held HTML text that no PDF reader opens
        (["report", "{src}", "-o", "{tmp}/r.pdf"], ["'-o' / '--output'", "r.pdf", "name it .html"]),
        (["report", "{src}", "-o", "{tmp}/r.csv"], ["'-o' / '--output'", "r.csv", "name it .html"]),
    ],
)
def test_a_table_output_named_for_another_format_is_refused_before_any_work(bad_input, tmp_path, args, names):
    """Every table was written as CSV under any name but .parquet: x.xlsx held CSV text."""
    src = tmp_path / "in" / "t.csv"
    src.parent.mkdir()
    src.write_text("group,run,event,value\n1,1,a,1\n")
    args = [a.format(src=src, tmp=tmp_path) for a in args]
    bad_input(args, names=names, watch=[tmp_path])


@pytest.mark.parametrize(
    "args",
    [
        ["export", "{src}", "-o", "-"],
        ["merge", "{src}", "-o", "-"],
        ["merge", "{src}", "--plot", "-"],
        ["report", "{src}", "-o", "-"],
        ["plan", "a", "b", "--pmcs", "2", "--no-check-events", "-o", "-"],
        ["collect", "{plan}", "--runs", "3", "-o", "-", "--", "true"],
        ["derive", "analyze", "--family", "branch", "-o", "-"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_a_dash_for_an_output_is_refused_not_written_as_a_file_named_dash(bad_input, tmp_path, args):
    """'-o -' wrote a file named '-' in the current folder (and nothing on standard output, as '-' says)."""
    src = tmp_path / "in" / "t.csv"
    src.parent.mkdir()
    src.write_text("group,run,event,value\n" + "".join(f"1,{r},a,{r}\n1,{r},b,{r * r}\n" for r in range(5)))
    plan = tmp_path / "in" / "plan.toml"
    plan.write_text('groups = [["task-clock", "page-faults"]]\n')
    args = [a.format(src=src, plan=plan) for a in args]
    bad_input(args, names=["'-'", "standard output", "name a file"], watch=[tmp_path], cwd=tmp_path)
    assert not (tmp_path / "-").exists()


def test_export_help_says_constant_events_are_written(cli, tmp_path):
    """export's help said a file is written only with 'no constant event unless --drop-constant', and
    --drop-constant 'else an error naming them', yet export (as the README says) writes a constant event."""
    runs = tmp_path / "runs"
    runs.mkdir()
    for i in range(3):
        (runs / f"r{i}.csv").write_text(
            f"{1 + i / 10:.2f},msec,task-clock,1000,100.00,,\n0,,context-switches,1000,100.00,,\n"
        )
    res = cli(["export", runs, "-o", tmp_path / "t.csv"])
    assert res.exit_code == 0, res.stderr
    assert "context-switches" in (tmp_path / "t.csv").read_text()
    text = " ".join(cli(["export", "--help"]).stdout.split())
    assert "no constant event unless" not in text and "within a group (else an error" not in text
    assert "Events constant within a group are written as read, unless --drop-constant" in text


def test_each_output_is_named_once_in_the_summary_line(cli, tmp_path):
    """evaluate, merge, compare and report printed 'wrote F' and then a summary line saying it again."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = [(g, r, e, float(rng.integers(1, 100))) for g in (1, 2) for r in range(12) for e in ("a", "b", "c")]
    data = tmp_path / "d.csv"
    pd.DataFrame(rows, columns=["group", "run", "event", "value"]).to_csv(data, index=False)
    runs = [
        ["evaluate", "holdout", data, "--methods", "much", "-o", tmp_path / "h.csv"],
        ["merge", data, "-m", "much", "-o", tmp_path / "m.csv"],
        ["compare", data, data, "-o", tmp_path / "c.csv"],
        ["report", data, "-m", "none", "-o", tmp_path / "r.html"],
        # derive printed 'wrote the analysis to F' and 'wrote the variability figure to P', a line each
        ["derive", "analyze", "--family", "branch", "--plot", tmp_path / "v.png", "-o", tmp_path / "a.json"],
        ["derive", "report", tmp_path / "a.json", "--plot", tmp_path / "v2.png", "-o", tmp_path / "t.csv"],
    ]
    for args in runs:
        res = cli([*args, "-q"])
        assert res.exit_code == 0, res.stderr
        assert res.stdout.count(f"wrote {args[-1]}") == 1, res.stdout
        assert res.stdout.splitlines()[-1].count(str(args[-1])) == 1, res.stdout
        assert [line for line in res.stdout.splitlines() if line.startswith("wrote")] == [], res.stdout
        if "--plot" in args:  # every file written, named once, in the last line
            plot = str(args[args.index("--plot") + 1])
            assert res.stdout.count(plot) == 1 and plot in res.stdout.splitlines()[-1], res.stdout


@pytest.mark.parametrize("command", [["report"], ["compare"], ["merge"]])
def test_drop_constant_help_is_true_of_every_command_that_takes_it(cli, command):
    """'--drop-constant: ... a merge refuses them' was read in 'hemkit report --help', whose merge section
    leaves constant events out itself and says so, and in compare's, which merges nothing."""
    text = " ".join(cli([*command, "--help"]).stdout.split())
    assert "a merge refuses them" not in text
    assert "no merge can use them, and each command that merges names them" in text
