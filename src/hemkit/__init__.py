"""hemkit: hardware event counters when the counters are few.

Areas (one sub-package each): ``plan`` (which events to read together), ``collect``
(repeated, validated ``perf`` runs), ``merge`` (complete vectors from separate runs),
``mpx`` (multiplexing estimation), ``derive`` (metrics from raw events) and
``sampling`` (accuracy of sampling profiles).  The lingua franca between areas is the
tidy table with columns ``group, run, event, value`` held by :class:`Readings`.
"""

from hemkit.errors import HemkitError, HemkitWarning
from hemkit.readings import Readings

__version__ = "0.1.0"

__all__ = ["HemkitError", "HemkitWarning", "Readings", "__version__"]
