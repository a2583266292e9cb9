"""
Plan: a MUCH pair covering
==========================

``hemkit plan e0 ... e15 --pmcs 6 --design much`` groups 16 events for 6 counters so that
every pair of events shares a group. The figures are those of the report's "Plan and
coverage" section: which group reads which event, and how often each pair is read together
(no zero off the diagonal: every pair is covered).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from hemkit.plan import make_plan

events = [f"e{i}" for i in range(16)]
plan = make_plan(events, pmcs=6, design="much", seed=0)
print(plan.summary())

member = np.array([[e in g for e in plan.events] for g in plan.groups], dtype=float)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
left.imshow(member, aspect="auto", cmap="Blues", vmin=0, vmax=1)
left.set_title("Plan: events read in each group")
left.set_xlabel("event")
left.set_ylabel("group")
left.set_xticks(range(len(plan.events)), plan.events, rotation=90, fontsize=7)
left.set_yticks(range(len(plan.groups)))

pairs = member.T @ member
im = right.imshow(pairs, cmap="viridis", vmin=0)  # a zero would be a pair never read together
right.set_title("Pair coverage: groups that read both events")
right.set_xlabel("event")
right.set_ylabel("event")
right.set_xticks(range(len(plan.events)), plan.events, rotation=90, fontsize=7)
right.set_yticks(range(len(plan.events)), plan.events, fontsize=7)
fig.colorbar(im, ax=right, label="groups (count)", ticks=MaxNLocator(integer=True))
fig.tight_layout()
