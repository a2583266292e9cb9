"""The one exception type for mistakes a user can make.

Every error a user can cause (bad input file, missing column, NaN, a pair of events
never read together, an event ``perf`` does not support, ...) is raised as
:class:`HemkitError` with a one-line message naming the file, group, event or pair at
fault.  The command line turns it into that line on stderr and exit code 2.
"""

from __future__ import annotations


class HemkitError(ValueError):
    """A problem with the user's input or environment, explained in one line."""


class HemkitWarning(UserWarning):
    """Something was done on the user's behalf that they should know about."""
