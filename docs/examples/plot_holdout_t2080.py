"""
Evaluate: holdout on the T2080 readings
=======================================

What ``hemkit evaluate --holdout --methods much,joint --plot pairs.png`` draws. Real data
has no truth table, so each group's runs are split in two: one half is merged, the other
half's observed correlations are the reference. The figure is the MUCH paper's Fig. 5: the
per-pair differences of each method, sorted.
"""

from hemkit.datasets import t2080_much
from hemkit.evaluate import holdout

res = holdout(t2080_much(), ["much", "joint"], seed=3)
print(res.summary())
ax = res.plot()
