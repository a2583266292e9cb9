"""The vectorised steps of the joint merge give what the loops they replaced gave (issue 28).

Each reference below is the loop as it stood before the step was vectorised; the comparisons
are exact where the new code promises the same numbers to the last bit.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.merge.joint import MAX_CANDIDATES, POOL_ROWS, _likelihood, _unpack, bootstrap_counts, place_tails


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


def _loop_place_tails(x, goal, *, threshold, rng, rounds=3):
    """``place_tails`` before issue 28: every candidate's gains made alone, one after the other."""
    x = np.array(x, dtype=float)
    k, n = x.shape
    c = x - np.median(x, axis=1, keepdims=True)
    scale = np.max(np.abs(c), axis=1, keepdims=True)
    c = c / np.where(scale > 0, scale, 1.0)
    c = c - c.mean(axis=1, keepdims=True)
    sd = np.sqrt((c * c).mean(axis=1))
    sd = np.where(sd > 0, sd, 1.0)
    r = (c @ c.T) / n / np.outer(sd, sd)
    mad = np.median(np.abs(c - np.median(c, axis=1, keepdims=True)), axis=1, keepdims=True) * 1.4826
    rz = np.abs(c - np.median(c, axis=1, keepdims=True)) / np.where(mad > 0, mad, sd[:, None])
    pool = np.arange(n) if n <= POOL_ROWS else rng.choice(n, POOL_ROWS, replace=False)
    others = np.ones((k, k))
    np.fill_diagonal(others, 0.0)
    swaps = np.zeros(k, dtype=np.int64)
    for _ in range(rounds):
        changed = 0
        for i in range(k):
            cand = np.flatnonzero(rz[i] > threshold)
            if not len(cand):
                continue
            cand = cand[np.argsort(-rz[i, cand])][:MAX_CANDIDATES]
            for a in cand:
                cols = pool
                d = c[i, cols] - c[i, a]
                dr = d[None, :] * (c[:, a][:, None] - c[:, cols]) / (n * sd[i] * sd[:, None])
                now = (r[i] - goal[i]) * others[i]
                new = (r[i][:, None] + dr - goal[i][:, None]) * others[i][:, None]
                gain = (now**2).sum() - (new**2).sum(axis=0)
                best = int(np.argmax(gain))
                if gain[best] <= 1e-12:
                    continue
                b = cols[best]
                r[i] += dr[:, best]
                r[:, i] = r[i]
                r[i, i] = 1.0
                c[i, a], c[i, b] = c[i, b], c[i, a]
                x[i, a], x[i, b] = x[i, b], x[i, a]
                rz[i, a], rz[i, b] = rz[i, b], rz[i, a]
                swaps[i] += 1
                changed += 1
        if not changed:
            break
    return x, swaps


def _heavy_table(rng: np.random.Generator, k: int, n: int, ties: bool) -> np.ndarray:
    z = rng.normal(size=(n, 2)) @ rng.normal(size=(2, k)) + rng.normal(size=(n, k))
    x = np.exp(z.T * rng.uniform(0.3, 1.5, size=(k, 1)))  # log-normal columns: outliers in every event
    return np.round(x * 3) if ties else x


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 7), n=st.integers(20, 400), ties=st.booleans())
def test_place_tails_is_the_loop_over_candidates(seed, k, n, ties):
    rng = np.random.default_rng(seed)
    x = _heavy_table(rng, k, n, ties)
    goal = np.clip(np.corrcoef(x) + rng.uniform(-0.4, 0.4, size=(k, k)), -0.95, 0.95)
    goal = (goal + goal.T) / 2
    np.fill_diagonal(goal, 1.0)
    threshold = float(rng.uniform(1.5, 6))
    moved, swaps = place_tails(x, goal, threshold=threshold, rng=np.random.default_rng(seed))
    ref, ref_swaps = _loop_place_tails(x, goal, threshold=threshold, rng=np.random.default_rng(seed))
    np.testing.assert_array_equal(moved, ref)
    np.testing.assert_array_equal(swaps, ref_swaps)


def test_place_tails_with_a_pool_of_partners_is_the_loop_at_any_margin(monkeypatch):
    import hemkit.merge.joint as joint

    rng = np.random.default_rng(7)
    x = _heavy_table(rng, 5, POOL_ROWS + 1500, False)  # partners drawn at random: 4 000 of 5 500 rows
    x[2, :40] = x[2, 40]  # tied readings: many partners with the same gain
    goal = np.corrcoef(x)
    goal[0, 1] = goal[1, 0] = 0.9
    ref, ref_swaps = _loop_place_tails(x, goal, threshold=4.0, rng=np.random.default_rng(1))
    assert ref_swaps.sum() > 5  # the case moves readings
    for margin in (joint.GAIN_MARGIN, 1e-3, 1e3):  # the default; many partners, every partner the old way
        monkeypatch.setattr(joint, "GAIN_MARGIN", margin)
        moved, swaps = place_tails(x, goal, threshold=4.0, rng=np.random.default_rng(1))
        np.testing.assert_array_equal(moved, ref)
        np.testing.assert_array_equal(swaps, ref_swaps)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), boot=st.integers(1, 50))
def test_bootstrap_counts_is_one_bincount_per_resample(seed, n, boot):
    counts = bootstrap_counts(n, boot, np.random.default_rng(seed))
    draws = np.random.default_rng(seed).integers(0, n, size=(boot, n))  # the same draws
    ref = np.array([np.bincount(draws[b], minlength=n) for b in range(boot)], dtype=float)
    np.testing.assert_array_equal(counts, ref)
    assert counts.dtype == np.float64 and counts.shape == (boot, n)


def test_both_jackknife_scales_from_one_pass_are_each_scale_alone():
    from hemkit.datasets import split_truth, zen5_br_64kb
    from hemkit.merge.intervals import _mix_jackknife, mix_jackknife

    r = split_truth(zen5_br_64kb(), 3, seed=2)
    both = _mix_jackknife(r, 100, ("z", "r"))  # small chunks: several per group
    np.testing.assert_array_equal(both["z"], mix_jackknife(r, chunk=100))
    np.testing.assert_array_equal(both["r"], mix_jackknife(r, chunk=100, scale="r"))
    assert not np.array_equal(both["z"], both["r"])
