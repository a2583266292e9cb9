"""
Multiplexing: estimators scored on a synthetic trace
====================================================

What ``hemkit mpx score TRACES --pmcs 2 -m fixed -m linear -m phase --plot mpx.png`` draws,
on a synthetic interval trace whose truth is known: the kernel's round-robin multiplexing
is emulated on 2 counters, each estimator fills the intervals an event spent off its
counter, and the estimates are scored against the truth (RA: relative accuracy, 1 is
exact). ``fixed`` is perf's own scaling; ``phase`` is hemkit's default.
"""

# %%
from hemkit.mpx import make_estimator, score_traces, synthetic_trace

traces = synthetic_trace(runs=3, steps=200, seed=0)
scores = score_traces(traces, {name: make_estimator(name) for name in ("fixed", "linear", "phase")})
print(scores.summary()[["ra", "dtw", "total_error", "rank"]])
ax = scores.plot()

# %%
# One event of one run: the truth, what each estimator rebuilt, and where it was on a counter.
from hemkit.mpx import emulate
from hemkit.mpx.plots import plot_series

mpx = emulate(traces, pmcs=2)
estimates = {name: make_estimator(name).estimate_array(mpx) for name in ("fixed", "phase")}
ax = plot_series(mpx, estimates, mpx.keys["run"][0], "ev0")
