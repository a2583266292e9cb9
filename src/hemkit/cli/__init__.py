"""The ``hemkit`` command line: a thin layer that parses arguments and calls the library.

Each area has its own module here (``hemkit.cli.merge``, ``hemkit.cli.plan``, ...) holding
its click commands; they are imported only when used, so ``hemkit --help`` stays fast and
the heavy extras (PyTorch) load only for the commands that need them.  Any
:class:`hemkit.HemkitError` becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from hemkit import __version__
from hemkit.errors import HemkitError

#: command name -> "module:attribute" of its click command or group
COMMANDS = {
    "merge": "hemkit.cli.merge:merge",
    "evaluate": "hemkit.cli.merge:evaluate",
    "plan": "hemkit.cli.plan:plan",
    "probe": "hemkit.cli.collect:probe",
    "collect": "hemkit.cli.collect:collect",
    "mpx": "hemkit.cli.mpx:mpx",
    "derive": "hemkit.cli.derive:derive",
    "sampling": "hemkit.cli.sampling:sampling",
}


def fail(message: str) -> None:
    """Print ``hemkit: error: MESSAGE`` on stderr and exit with code 2."""
    click.echo(f"hemkit: error: {message}", err=True)
    sys.exit(2)


class _HemkitGroup(click.Group):
    """Loads area commands lazily and turns user errors into one line + exit code 2."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = [n for n, target in COMMANDS.items() if importlib.util.find_spec(target.split(":")[0]) is not None]
        return sorted(set(names) | set(super().list_commands(ctx)))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS:
            module, attr = COMMANDS[name].split(":")
            if importlib.util.find_spec(module) is None:
                return None
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except HemkitError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            click.echo("hemkit: interrupted", err=True)
            sys.exit(130)


@click.group(cls=_HemkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hemkit")
def main() -> None:
    """hemkit: hardware event counters when the counters are few.

    Plan which events to read together, collect them with perf, merge separate runs into
    complete vectors, estimate multiplexed counts, derive metrics from raw events and
    check the accuracy of sampling profiles.
    """
