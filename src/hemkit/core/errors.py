"""The exceptions and warnings hemkit raises for things a user can cause or fix.

One hierarchy, rooted at :class:`HemkitError`.  Every message is one line that names the
file, group, run, event, pair or parameter at fault, in the library's words (a parameter
is named as the Python argument, e.g. ``pmcs``, never as a command-line flag).  The command
line turns any :class:`HemkitError` into ``hemkit: error: MESSAGE`` and exit code 2.

==================  ==============================================================
class               raised when
==================  ==============================================================
InputError          input data or a parameter value is wrong: an unreadable file, a
                    missing column, NaN, an unknown event, a value out of range
OutputError         an output cannot be written where asked (missing folder,
                    read-only place, full disk, the input itself, not a file)
MeasurementError    a measurement failed: the measured program exited non-zero or
                    was killed, perf reported an error, counts are unusable
DesignError         no plan satisfies the events, counters and constraints asked for
SetupError          a tool hemkit needs is missing or unusable here: perf, valgrind,
                    a C compiler, PyTorch, hardware counters
==================  ==============================================================

Examples
--------
>>> from hemkit.core.errors import HemkitError, InputError
>>> issubclass(InputError, HemkitError), issubclass(InputError, ValueError)
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fix:
    """A way out of an error: pass the library parameter ``param`` with ``value``.

    The library names it in its own words (``pass drop_constant=True``); the command line
    names the option of the running command that sets that parameter (``pass
    --drop-constant``), and leaves it out when the command has no such option, so a hint
    never names an option the user cannot give.

    Examples
    --------
    >>> str(InputError("group 1: event 'a' is constant", fix=Fix("drop_constant", True)))
    "group 1: event 'a' is constant; pass drop_constant=True"
    """

    param: str
    value: Any = True

    def library(self) -> str:
        """The fix in the library's words: ``drop_constant=True``."""
        return f"{self.param}={self.value!r}"


class HemkitError(Exception):
    """A problem with the user's input or environment, explained in one line.

    Parameters
    ----------
    message : str
        What is wrong, naming the file, group, run, event, pair or parameter at fault.
    fix : Fix or sequence of Fix, optional
        The parameter(s) that, given together, would get past it; appended to the message as
        ``; pass P=V`` (or ``; pass P=V and Q=W``).  :attr:`message` is the text without them.
    details : sequence of str, optional
        The whole list when the message names only the first items (every pair never read
        together, one per line): the command line writes it to a file and names the file.
    """

    def __init__(
        self, message: Any = "", *, fix: Fix | Sequence[Fix] | None = None, details: Sequence[str] | None = None
    ):
        super().__init__(message)
        self.message = str(message)
        self.fixes: tuple[Fix, ...] = (fix,) if isinstance(fix, Fix) else tuple(fix or ())
        self.details: tuple[str, ...] = tuple(details or ())

    def reworded(self, message: str, cls: type[HemkitError] | None = None) -> HemkitError:
        """The same error (or one of ``cls``) with a new message, keeping its fixes and details.

        For a caller that adds where the error happened: ``raise exc.reworded(f"{path}: {exc.message}")``.
        """
        return (cls or type(self))(message, fix=self.fixes, details=self.details)

    def __str__(self) -> str:
        if not self.fixes:
            return self.message
        return f"{self.message}; pass {' and '.join(f.library() for f in self.fixes)}"


class InputError(HemkitError, ValueError):
    """Input data or a parameter value is wrong (names the file, group, run, event or parameter)."""


class OutputError(HemkitError, OSError):
    """An output cannot be written where it was asked for."""


class MeasurementError(HemkitError):
    """A measurement failed: the program, perf or valgrind, or the counts it gave."""


class DesignError(HemkitError):
    """No design (plan) satisfies the events, counters and constraints asked for."""


class SetupError(HemkitError):
    """A tool hemkit needs is missing or unusable on this machine."""


class HemkitWarning(UserWarning):
    """Something was done on the user's behalf that they should know about."""


__all__ = [
    "DesignError",
    "Fix",
    "HemkitError",
    "HemkitWarning",
    "InputError",
    "MeasurementError",
    "OutputError",
    "SetupError",
]
