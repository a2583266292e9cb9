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
    param : str, optional
        The parameter whose value is at fault, named in the message (``pmcs must be an
        integer of at least 2, got 1``): the command line names the option that sets it
        instead, at its first mention as a word of its own (``--pmcs must be ...``).

    Attributes
    ----------
    message : str
        The message without the fixes.
    fixes : tuple of Fix
        The parameters that would get past it.
    details : tuple of str
        The whole list the message shortens, if any.
    param : str or None
        The parameter at fault, named in the message.

    Examples
    --------
    Every error hemkit raises for a user's input or machine is a :class:`HemkitError`, so one
    ``except`` catches them all; the command line prints ``hemkit: error: MESSAGE``:

    >>> from hemkit.core.rng import as_generator
    >>> try:
    ...     as_generator(-1)
    ... except HemkitError as exc:
    ...     print(f"hemkit: error: {exc}")
    hemkit: error: seed must be a non-negative integer, got -1

    A fix is appended to the message (``str``) and kept apart from it (``message``):

    >>> exc = HemkitError("event 'a' is constant", fix=Fix("drop_constant", True))
    >>> str(exc), exc.message, exc.fixes[0].library()
    ("event 'a' is constant; pass drop_constant=True", "event 'a' is constant", 'drop_constant=True')
    """

    def __init__(
        self,
        message: Any = "",
        *,
        fix: Fix | Sequence[Fix] | None = None,
        details: Sequence[str] | None = None,
        param: str | None = None,
    ):
        super().__init__(message)
        self.message = str(message)
        self.fixes: tuple[Fix, ...] = (fix,) if isinstance(fix, Fix) else tuple(fix or ())
        self.details: tuple[str, ...] = tuple(details or ())
        self.param = param

    def reworded(self, message: str, cls: type[HemkitError] | None = None) -> HemkitError:
        """The same error (or one of ``cls``) with a new message, keeping its fixes, details and parameter.

        For a caller that adds where the error happened: ``raise exc.reworded(f"{path}: {exc.message}")``.
        """
        return (cls or type(self))(message, fix=self.fixes, details=self.details, param=self.param)

    def __str__(self) -> str:
        if not self.fixes:
            return self.message
        return f"{self.message}; pass {' and '.join(f.library() for f in self.fixes)}"


class InputError(HemkitError, ValueError):
    """Input data or a parameter value is wrong (names the file, group, run, event or parameter).

    Also a :class:`ValueError`, so code that catches that keeps working.

    Examples
    --------
    >>> from hemkit.core.rng import as_generator
    >>> try:
    ...     as_generator(2.5)
    ... except ValueError as exc:
    ...     print(type(exc).__name__, isinstance(exc, HemkitError), "|", exc)
    InputError True | seed must be a non-negative integer, a numpy Generator or None, got 2.5
    """


class OutputError(HemkitError, OSError):
    """An output cannot be written where it was asked for.

    Raised before any work is done, when the place is checked; also an :class:`OSError`.

    Examples
    --------
    >>> from hemkit.io.atomic import check_output
    >>> try:
    ...     check_output("/no/such/folder/out.csv")
    ... except HemkitError as exc:
    ...     print(type(exc).__name__, isinstance(exc, OSError), "|", exc)
    OutputError True | /no/such/folder/out.csv: folder /no/such/folder does not exist
    """


class MeasurementError(HemkitError):
    """A measurement failed: the program, perf or valgrind, or the counts it gave.

    Examples
    --------
    A measured program that outlives its time limit is stopped, and the measurement fails:

    >>> from hemkit.external.process import run
    >>> try:
    ...     run(["sleep", "5"], timeout=0.2)
    ... except HemkitError as exc:
    ...     print(type(exc).__name__, "|", exc)
    MeasurementError | sleep: still running after 0.2 s; stopped
    """


class DesignError(HemkitError):
    """No design (plan) satisfies the events, counters and constraints asked for.

    Examples
    --------
    With one counter no two events are ever read together, so no MUCH plan exists:

    >>> from hemkit.plan import covering_design
    >>> try:
    ...     covering_design(["a", "b", "c"], 1)
    ... except HemkitError as exc:
    ...     print(type(exc).__name__, "|", exc.message.split(";")[0])
    DesignError | groups of 1 event(s) read no pair together
    """


class SetupError(HemkitError):
    """A tool hemkit needs is missing or unusable on this machine.

    The message says what is missing and how to install it.

    Examples
    --------
    >>> from hemkit.external.process import find_tool
    >>> try:
    ...     find_tool("no-such-perf", env="HEMKIT_NO_SUCH_VARIABLE", default="perf", install="apt install linux-perf")
    ... except HemkitError as exc:
    ...     print(type(exc).__name__, "|", exc)
    SetupError | perf not found ('no-such-perf'); install it (apt install linux-perf)
    """


class HemkitWarning(UserWarning):
    """Something was done on the user's behalf that they should know about.

    Examples
    --------
    Cleaning a trace drops a broken run (its count far below the other runs') and says so:

    >>> import warnings
    >>> import pandas as pd
    >>> from hemkit.mpx.traces import clean_runs
    >>> trace = pd.DataFrame(
    ...     {"run": list("aabbcc"), "step": [0, 1] * 3, "event": "e", "value": [500.0] * 4 + [1.0] * 2}
    ... )
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     kept = clean_runs(trace, tail_steps=0)
    >>> caught[0].category.__name__, sorted(set(kept["run"]))
    ('HemkitWarning', ['a', 'b'])
    >>> print(caught[0].message)
    dropped 1 run(s) whose total is below 0.2 x the median run of their workload (broken collections): c

    ``warnings.simplefilter("error", HemkitWarning)`` turns such a step into an error instead.

    A warning may name a parameter that chooses otherwise, as an error names its fix: the
    library says ``pass event='page-faults'``, the command line the option that sets it:

    >>> str(HemkitWarning("profiled task-clock, the most sampled event", fix=Fix("event", "page-faults")))
    "profiled task-clock, the most sampled event; pass event='page-faults' for another"

    A parameter that was given but has no effect is named the same way, in front of the
    message: the library says ``pmcs ignored: ...``, the command line ``--pmcs 6 ignored: ...``:

    >>> str(HemkitWarning("t.csv is a tidy table, whose groups are in the file", ignored=Fix("pmcs", 6)))
    'pmcs ignored: t.csv is a tidy table, whose groups are in the file'

    A parameter whose value the warning is about is named in the message, as an error's
    ``param``: the command line names the option instead (``--n-sims 10 is below 30``):

    >>> HemkitWarning("n_sims 10 is below 30", param="n_sims").param
    'n_sims'
    """

    def __init__(
        self,
        message: Any = "",
        *,
        fix: Fix | Sequence[Fix] | None = None,
        ignored: Fix | None = None,
        param: str | None = None,
    ):
        super().__init__(message)
        self.message = str(message)
        self.fixes: tuple[Fix, ...] = (fix,) if isinstance(fix, Fix) else tuple(fix or ())
        #: the parameter given that had no effect, named before the message (``pmcs ignored: ...``)
        self.ignored = ignored
        #: the parameter whose value the message is about, named in it (``n_sims 10 is below 30``)
        self.param = param

    def __str__(self) -> str:
        text = f"{self.ignored.param} ignored: {self.message}" if self.ignored is not None else self.message
        if not self.fixes:
            return text
        return f"{text}; pass {' and '.join(f.library() for f in self.fixes)} for another"


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
