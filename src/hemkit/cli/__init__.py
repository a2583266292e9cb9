"""The ``hemkit`` command line: a thin layer that parses arguments and calls the library.

Each area has its own module here (``hemkit.cli.merge``, ``hemkit.cli.plan``, ...) holding
its click commands; they are imported only when used, so ``hemkit --help`` stays fast and
the heavy extras (PyTorch) load only for the commands that need them.  Any
:class:`hemkit.HemkitError` becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import signal
import sys
import warnings
from typing import Any

import click

from hemkit import __version__
from hemkit.cli._render import render_error, render_warning
from hemkit.core.errors import HemkitError

#: command name -> "module:attribute" of its click command or group
COMMANDS = {
    "merge": "hemkit.cli.merge:merge",
    "evaluate": "hemkit.cli.evaluate:evaluate",
    "plan": "hemkit.cli.plan:plan",
    "probe": "hemkit.cli.collect:probe",
    "collect": "hemkit.cli.collect:collect",
    "export": "hemkit.cli.collect:export",
    "mpx": "hemkit.cli.mpx:mpx",
    "derive": "hemkit.cli.derive:derive",
    "sampling": "hemkit.cli.sampling:sampling",
    "report": "hemkit.cli.report:report",
    "compare": "hemkit.cli.compare:compare",
}

#: command name -> its one-line help, shown by ``hemkit --help`` without importing the command
#: (a test checks that each equals the command's own short help)
SUMMARIES = {
    "merge": "Merge readings from separate runs into complete vectors.",
    "evaluate": "How well MERGED keeps the pairwise correlations of TRUTH (Pearson and Spearman).",
    "plan": "Design groups for EVENTS on --pmcs counters (MUCH pair covering or HRM anchor groups).",
    "probe": "Find which EVENTS count here and how many hardware events count correctly at once.",
    "collect": "Collect --runs valid perf runs of every group of PLAN_FILE into an SQLite database.",
    "mpx": "Multiplexing estimation: traces, emulation, estimators (fixed, linear, growth, MLP, Bi-GRU), scores.",
    "derive": "Define metrics (FLOPs, branches, cache hits) from raw events (Barry, Danalis, Dongarra).",
    "sampling": "Accuracy of sampling profiles: simulate, model, and intervals for perf record profiles.",
    "report": "Write one self-contained HTML report of a collection database or readings.",
    "export": "Write readings INPUT (collection databases, perf stat files or folders, a table) as one tidy file.",
    "compare": "Which events changed from A to B, by how much, with a controlled false discovery rate.",
}


def fail(message: str, code: int = 2) -> None:
    """Print ``hemkit: error: MESSAGE`` (one line) on stderr and exit with ``code``."""
    one_line = " ".join(str(message).split())
    click.echo(f"hemkit: error: {one_line}", err=True)
    sys.exit(code)


def _details_file(exc: HemkitError) -> str:
    """Write an error's whole list (its ``details``) to a file and name it, or '' when there is none."""
    if not exc.details:
        return ""
    import tempfile

    try:
        fd, name = tempfile.mkstemp(prefix="hemkit-error-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(exc.details) + "\n")
    except OSError:
        return ""
    return f" (all {len(exc.details)} in {name})"


def _one_line_warning(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
    """Every warning a command lets through is one line on stderr (never Python's two-line form)."""
    from hemkit.core.errors import HemkitWarning

    ctx = click.get_current_context(silent=True)
    text = render_warning(message, ctx.command if ctx is not None else None)
    if issubclass(category, HemkitWarning):
        click.echo(f"hemkit: warning: {text}", err=True)
    else:
        click.echo(f"hemkit: warning: {category.__name__}: {text}", err=True)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _sigterm_as_interrupt() -> Any:
    """SIGTERM ends a command like Ctrl-C (clean-up runs, exit 130); returns the old handler."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_interrupt)


def _usage_message(exc: click.UsageError) -> str:
    """Click's usage error as one line that names the option and the command."""
    ctx = exc.ctx
    if isinstance(exc, click.NoSuchOption) and exc.possibilities and ctx is not None:
        # a typo's suggestions are the options --help shows, not the old spellings kept hidden (--out)
        hidden = {o for p in ctx.command.params if getattr(p, "hidden", False) for o in (*p.opts, *p.secondary_opts)}
        exc.possibilities = [p for p in exc.possibilities if p not in hidden] or None  # type: ignore[misc]
    msg = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    where = f" (see '{ctx.command_path} --help')" if ctx is not None and ctx.command_path else ""
    return f"{msg}{where}"


class _Interrupted(Exception):  # noqa: N818 (an interruption, not an error)
    """A Ctrl-C or SIGTERM carried past click, which would print an empty line before the message."""


class _HemkitGroup(click.Group):
    """Loads area commands lazily and turns user errors into one line + exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; an interruption leaves as :class:`_Interrupted`, not through click's own echo."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _Interrupted from exc

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(super().list_commands(ctx)))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the commands with their one-line help, importing only those without a summary."""
        rows = []
        for name in self.list_commands(ctx):
            text = SUMMARIES.get(name)
            if text is None:
                cmd = self.get_command(ctx, name)
                if cmd is None or cmd.hidden:
                    continue
                text = cmd.get_short_help_str(limit=formatter.width - 6 - len(name))
            rows.append((name, text))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS:
            module, attr = COMMANDS[name].split(":")
            if importlib.util.find_spec(module) is None:
                return None
            from hemkit.cli._options import add_old_spellings

            return add_old_spellings(getattr(importlib.import_module(module), attr))
        return super().get_command(ctx, name)

    def _leaf(self, args: list[str]) -> click.Command | None:
        """The command the arguments ran (``mpx score`` for ``hemkit mpx score ...``), or None."""
        cmd: click.Command = self
        for token in args:
            if token == "--":
                break
            if token.startswith("-") or not isinstance(cmd, click.Group):
                continue
            sub = cmd.get_command(click.Context(cmd), token)
            if sub is None:
                break
            cmd = sub
        return None if cmd is self else cmd

    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:  # type: ignore[override]
        """Run the command; every way it can end is one line and an exit code.

        0 success; 1 an internal error (a bug: please report it); 2 a user error (bad input,
        option, file, measurement); 130 interrupted (Ctrl-C or SIGTERM).
        """
        previous = _sigterm_as_interrupt()
        shown_warning = warnings.showwarning
        warnings.showwarning = _one_line_warning
        try:
            rv = super().main(args=args, prog_name=prog_name or "hemkit", standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            fail(_usage_message(exc))
        except click.exceptions.Abort:
            click.echo("hemkit: interrupted", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            fail(exc.format_message())
        except HemkitError as exc:
            fail(render_error(exc, self._leaf(sys.argv[1:] if args is None else list(args))) + _details_file(exc))
        except (KeyboardInterrupt, _Interrupted):
            click.echo("hemkit: interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:  # e.g. hemkit ... | head
            sys.stderr.close()
            sys.exit(0)
        except Exception as exc:  # a bug: one line, and the traceback only when asked for
            if os.environ.get("HEMKIT_DEBUG"):
                raise
            fail(
                f"internal error: {type(exc).__name__}: {exc} (a bug in hemkit; set HEMKIT_DEBUG=1 "
                "for the traceback and report it)",
                code=1,
            )
        finally:
            warnings.showwarning = shown_warning
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
        if isinstance(rv, int) and rv:
            sys.exit(rv)
        return rv


@click.group(cls=_HemkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hemkit")
def main() -> None:
    """hemkit: hardware event counters when the counters are few.

    Plan which events to read together, collect them with perf, merge separate runs into
    complete vectors, estimate multiplexed counts, derive metrics from raw events and
    check the accuracy of sampling profiles.
    """
