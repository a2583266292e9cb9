"""Every subcommand speaks the one vocabulary of DESIGN.md section 8 (walks every --help)."""

from __future__ import annotations

import click
import pytest

from hemkit.cli import COMMANDS, SUMMARIES, main
from hemkit.cli._options import AliasOption, alias, output_option

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
    assert not problems, f"hemkit {name}: " + "; ".join(problems)


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
