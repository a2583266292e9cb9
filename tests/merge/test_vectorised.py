"""The vectorised steps of the joint merge give what the loops they replaced gave (issue 28).

Each reference below is the loop as it stood before the step was vectorised; the comparisons
are exact where the new code promises the same numbers to the last bit.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.merge.joint import _likelihood, _unpack


def _loop_likelihood(k: int, plan: list, p: np.ndarray) -> tuple[float, np.ndarray]:
    """The objective of ``ml_correlation`` before issue 28: one Cholesky and one inverse per event set."""
    il = np.tril_indices(k)
    diag = il[0] == il[1]
    lower = np.zeros((k, k))
    v = p.copy()
    v[diag] = np.exp(v[diag])
    lower[il] = v
    sigma = lower @ lower.T
    grad = np.zeros((k, k))
    value = 0.0
    for o, s, n in plan:
        oo = np.ix_(o, o)
        so = sigma[oo]
        try:
            chol = np.linalg.cholesky(so)
            inv = np.linalg.inv(so)
        except np.linalg.LinAlgError:
            return 1e300, np.zeros_like(p)
        value += 0.5 * (2 * n * np.log(np.diag(chol)).sum() + float(np.sum(inv * s)))
        grad[oo] += 0.5 * (n * inv - inv @ s @ inv)
    d_lower = 2 * grad @ lower
    g = d_lower[il]
    g[diag] *= np.diag(lower)
    return value, g


def _random_plan(rng: np.random.Generator, k: int, sizes: list[int]) -> list:
    plan = []
    for size in sizes:
        o = np.sort(rng.choice(k, size=min(size, k), replace=False))
        x = rng.normal(size=(int(rng.integers(5, 40)), len(o))) @ rng.normal(size=(len(o), len(o)))
        x -= x.mean(axis=0)
        plan.append((o, x.T @ x, len(x)))
    return plan


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 9),
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=12),
    spread=st.floats(0.01, 2.0),
)
def test_likelihood_is_the_loop_over_event_sets(seed, k, sizes, spread):
    rng = np.random.default_rng(seed)
    plan = _random_plan(rng, k, sizes)  # event sets of mixed sizes, repeated sets allowed
    p = rng.normal(scale=spread, size=k * (k + 1) // 2)
    value, grad = _likelihood(k, plan)(p)
    ref_value, ref_grad = _loop_likelihood(k, plan, p)
    assert value == ref_value  # the same sums in the same order: the same bits
    np.testing.assert_array_equal(grad, ref_grad)


def test_likelihood_rejects_a_step_out_of_the_cone():
    rng = np.random.default_rng(1)
    plan = _random_plan(rng, 4, [3, 3, 2])
    p = np.zeros(10)
    p[np.tril_indices(4)[0] == np.tril_indices(4)[1]] = 800.0  # exp overflows: sigma is not finite
    assert _likelihood(4, plan)(p)[0] == 1e300
    assert np.all(np.isfinite(_unpack(np.zeros(10), 4)))
