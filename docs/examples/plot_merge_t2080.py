"""
Merge: the T2080 readings
=========================

What ``hemkit merge --plot pairs.png --pair-intervals pairs.csv`` draws on the bundled NXP
T2080 readings: 16 events read in 24 groups of 6 counters, 1000 runs each, merged by the
default method (``joint``) with a 90 % interval on every merged correlation. Each point is a
pair of events, its merged correlation against the one observed in the runs that read both.
"""

# %%
from hemkit.datasets import t2080_much
from hemkit.merge import merge

readings = t2080_much()
res = merge(readings, seed=0, level=0.9)
print(res.summary().T)
ax = res.plot()

# %%
# The merged correlations as a heatmap (the one ``hemkit report`` shows): every pair now has
# a correlation, although no run read more than 6 of the 16 events.
import matplotlib.pyplot as plt

corr = res.data.corr()
fig, ax = plt.subplots(figsize=(7, 6))
im = ax.imshow(corr.to_numpy(), cmap="RdBu_r", vmin=-1, vmax=1)
ax.set_xticks(range(len(corr)), corr.columns, rotation=90, fontsize=7)
ax.set_yticks(range(len(corr)), corr.index, fontsize=7)
ax.set_title("T2080: merged Pearson correlations (joint)")
fig.colorbar(im, ax=ax, label="correlation (unitless)")
fig.tight_layout()

# %%
# The per-pair intervals, widest first:
print(res.pair_intervals.assign(width=lambda t: t.upper - t.lower).sort_values("width", ascending=False).head())
