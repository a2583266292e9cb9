"""How the command line words what the library says: a fix or a choice named as the running command's option."""

from __future__ import annotations

import re
from typing import Any

import click

from hemkit.core.errors import HemkitError


def _option_for(command: click.Command | None, param: str, value: Any) -> str | None:
    """``--drop-constant`` or ``--impute maxdet``: the option of ``command`` that sets library ``param``."""
    if command is None:
        return None
    for p in command.params:
        if isinstance(p, click.Option) and p.name == param and not p.hidden:
            if p.is_flag and p.secondary_opts and value is False:  # --x/--no-x: the off switch
                return max(p.secondary_opts, key=len)
            flag = max(p.opts, key=len)  # the long spelling
            if p.is_flag:
                return flag
            return f"{flag} {value}"
    return None


def _options_for(command: click.Command | None, fixes: Any) -> list[str]:
    """The options of ``command`` that set the parameters of ``fixes`` (those it has no option for left out)."""
    return [o for o in (_option_for(command, f.param, f.value) for f in fixes) if o]


def render_warning(message: Any, command: click.Command | None) -> str:
    """A warning's text, one line, with the fix it names as an option of ``command`` (left out when it has none).

    Examples
    --------
    >>> from hemkit.core.errors import Fix, HemkitWarning
    >>> cmd = click.Command("x", params=[click.Option(["--event"])])
    >>> render_warning(HemkitWarning("profiled a", fix=Fix("event", "b")), cmd)
    'profiled a; pass --event b for another'
    >>> render_warning(HemkitWarning("profiled a", fix=Fix("event", "b")), click.Command("y"))
    'profiled a'

    A parameter given to no effect is named as the option the user gave (the library's name
    when the command has no option for it):

    >>> cmd = click.Command("x", params=[click.Option(["--pmcs"], type=int)])
    >>> render_warning(HemkitWarning("t.csv is a tidy table", ignored=Fix("pmcs", 6)), cmd)
    '--pmcs 6 ignored: t.csv is a tidy table'
    >>> render_warning(HemkitWarning("t.csv is a tidy table", ignored=Fix("pmcs", 6)), click.Command("y"))
    'pmcs ignored: t.csv is a tidy table'

    The parameter a warning is about is named as the option, as an error's:

    >>> cmd = click.Command("x", params=[click.Option(["--n-sims"], type=int)])
    >>> render_warning(HemkitWarning("n_sims 10 is below 30", param="n_sims"), cmd)
    '--n-sims 10 is below 30'
    """
    from hemkit.core.errors import HemkitWarning

    if isinstance(message, HemkitWarning) and (message.fixes or message.ignored is not None or message.param):
        text = _named_as_option(message.message, message.param, command)
        if message.ignored is not None:
            given = _option_for(command, message.ignored.param, message.ignored.value) or message.ignored.param
            text = f"{given} ignored: {text}"
        options = _options_for(command, message.fixes)
        text += f"; pass {' '.join(options)} for another" if options else ""
    else:
        text = str(message)
    return " ".join(text.split())


def _flag_for(command: click.Command | None, param: str) -> str | None:
    """``--pmcs``: the long spelling of the option of ``command`` that sets library ``param``."""
    for p in command.params if command is not None else ():
        if isinstance(p, click.Option) and p.name == param and not p.hidden:
            return max(p.opts, key=len)
    return None


def _named_as_option(message: str, param: str | None, command: click.Command | None) -> str:
    """``message`` with the first mention of its parameter at fault (a word of its own) as the option."""
    flag = _flag_for(command, param) if param else None
    if not flag or not param:
        return message
    # not inside a longer name, a path (a folder 'pmcs/') or a library spelling ('pmcs=3')
    return re.sub(rf"(?<![\w\-=./]){re.escape(param)}(?![\w\-=./])", lambda m: flag, message, count=1)


def render_error(exc: HemkitError, command: click.Command | None) -> str:
    """An error's message with each fix, and the parameter at fault, named as an option of ``command``.

    Fixes and parameters the command has no option for are left out, or left in the library's words.

    Examples
    --------
    >>> from hemkit.core.errors import Fix, InputError
    >>> cmd = click.Command("x", params=[click.Option(["--drop-constant"], is_flag=True), click.Option(["--pmcs"])])
    >>> render_error(InputError("event 'a' is constant", fix=Fix("drop_constant")), cmd)
    "event 'a' is constant; pass --drop-constant"
    >>> render_error(InputError("pair never read", fix=Fix("impute", "maxdet")), cmd)
    'pair never read'
    >>> render_error(InputError("pmcs must be an integer of at least 2, got 1", param="pmcs"), cmd)
    '--pmcs must be an integer of at least 2, got 1'
    >>> render_error(InputError("pmcs/raw.csv: 7 columns is not a multiple of 2; check pmcs", param="pmcs"), cmd)
    'pmcs/raw.csv: 7 columns is not a multiple of 2; check --pmcs'
    """
    message = _named_as_option(exc.message, exc.param, command)
    if not exc.fixes:
        return message
    options = _options_for(command, exc.fixes)
    return message + (f"; pass {' '.join(options)}" if options else "")


__all__ = ["render_error", "render_warning"]
