"""
Derive: event variability of the branch kernels
===============================================

What ``hemkit derive analyze --family branch --plot variability.png`` draws on the bundled
example (measured with valgrind's cachegrind, so it needs neither perf nor a PMU): each raw
event's variability over the repeated kernel runs (max RNMSE, the paper's Fig. 2). Events
above the threshold are too noisy to define a metric with.
"""

from hemkit.derive import analyze, example_measurements

res = analyze(example_measurements("branch"))
print(res.summary()[["papi", "definition", "verdict"]])
ax = res.plot()
