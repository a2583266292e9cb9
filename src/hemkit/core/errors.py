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


class HemkitError(Exception):
    """A problem with the user's input or environment, explained in one line."""


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
    "HemkitError",
    "HemkitWarning",
    "InputError",
    "MeasurementError",
    "OutputError",
    "SetupError",
]
