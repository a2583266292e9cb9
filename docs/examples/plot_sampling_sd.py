"""
Sampling: how far a profile can be trusted
==========================================

What ``hemkit sampling simulate --plot-sd sd.png`` draws: two tasks share a CPU, a periodic
sampler (every 100 units) profiles them 1000 times from random starts, and the spread of the
profiled shares is compared with the model (Wen et al. 2021, Eqs. 6-9) and the exact
variance over the random start. R is a task's run length over the sampling interval; a
whole-number R gives no error.
"""

from hemkit.sampling import Sampler, Task, Workload, simulate_workload

workload = Workload((Task("a", 0.3, 150), Task("b", 0.2, 30)), n_units=1_000_000)
res = simulate_workload(workload, Sampler(interval=100), reps=1000, seed=1)
print(res.summary())
ax = res.plot_sd()
