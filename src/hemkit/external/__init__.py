"""Other programs hemkit runs: the one layer that starts processes.

- :mod:`hemkit.external.process` -- :func:`run` and :func:`start` with the user's environment.
- :mod:`hemkit.external.perf` -- ``perf stat``, ``perf script``, ``perf --version``, the PMU check.
- :mod:`hemkit.external.compiler` -- bundled C workloads compiled on first use.

Nothing else in hemkit imports :mod:`subprocess`.
"""
