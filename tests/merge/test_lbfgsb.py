"""hemkit's driver of SciPy's compiled L-BFGS-B takes SciPy's steps (issue 28)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from hemkit.merge import lbfgsb
from hemkit.merge.joint import _likelihood


def _scipy(fun, x0, max_iter):
    res = optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    return res.x, int(res.nit), bool(res.success)


def _rosenbrock(x):
    f = float(np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))
    g = np.zeros_like(x)
    g[:-1] = -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    g[1:] += 200 * (x[1:] - x[:-1] ** 2)
    return f, g


def test_the_compiled_routine_is_used_here():
    assert lbfgsb._setulb() is not None  # SciPy >= 1.15 in the test environment: the direct path is tested


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12), max_iter=st.sampled_from([3, 15, 200]))
def test_rosenbrock_takes_scipys_steps(seed, n, max_iter):
    x0 = np.random.default_rng(seed).uniform(-2, 2, n)
    x, nit, ok = lbfgsb.minimize(_rosenbrock, x0, max_iter=max_iter)
    want_x, want_nit, want_ok = _scipy(_rosenbrock, x0, max_iter)
    assert (nit, ok) == (want_nit, want_ok)  # stopped where SciPy stops, with SciPy's verdict
    np.testing.assert_array_equal(x, want_x)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(3, 7))
def test_a_likelihood_fit_takes_scipys_steps(seed, k):
    """The fits of ml_correlation: stacked event sets, steps out of the cone rejected with 1e300."""
    rng = np.random.default_rng(seed)
    plan = []
    for _ in range(int(rng.integers(k, 3 * k))):
        o = np.sort(rng.choice(k, size=int(rng.integers(2, k + 1)), replace=False))
        x = rng.normal(size=(int(rng.integers(8, 40)), len(o))) @ rng.normal(size=(len(o), len(o)))
        x -= x.mean(axis=0)
        plan.append((o, x.T @ x / np.outer(x.std(axis=0), x.std(axis=0)) / len(x), len(x)))
    fun = _likelihood(k, plan)
    p0 = np.zeros(k * (k + 1) // 2)
    x, nit, ok = lbfgsb.minimize(fun, p0, max_iter=60)
    want_x, want_nit, want_ok = _scipy(fun, p0, 60)
    assert (nit, ok) == (want_nit, want_ok)
    np.testing.assert_array_equal(x, want_x)


def test_without_the_compiled_routine_it_calls_scipy_optimize(monkeypatch):
    monkeypatch.setattr(lbfgsb, "_SETULB", [None])
    x0 = np.array([-1.2, 1.0, 0.5])
    x, nit, ok = lbfgsb.minimize(_rosenbrock, x0, max_iter=500)
    want_x, want_nit, want_ok = _scipy(_rosenbrock, x0, 500)
    assert (nit, ok) == (want_nit, want_ok) and ok
    np.testing.assert_allclose(x, [1, 1, 1], atol=1e-4)
    np.testing.assert_array_equal(x, want_x)


@pytest.mark.parametrize("version", ["1.14.1", "1.9.3", "2.x"])
def test_older_or_odd_scipy_versions_fall_back(monkeypatch, version):
    import scipy

    monkeypatch.setattr(scipy, "__version__", version)
    assert lbfgsb._load() is None


def test_scipys_blas_runs_one_thread_during_the_fit_and_gets_its_setting_back():
    from threadpoolctl import ThreadpoolController

    lbfgsb.minimize(_rosenbrock, np.array([-1.2, 1.0]), max_iter=2)  # SciPy's routine (and its BLAS) loaded
    scipys = [c for c in ThreadpoolController().lib_controllers if "scipy.libs" in c.filepath]
    if not scipys:
        pytest.skip("SciPy's bundled OpenBLAS is not loaded here (not a SciPy wheel on Linux)")
    lib = scipys[0]

    def get():
        return lib.get_num_threads()

    lib.set_num_threads(2)
    if get() != 2:
        pytest.skip("OpenBLAS here runs one thread at most")
    seen = []

    def fun(x):
        seen.append(get())
        return _rosenbrock(x)

    lbfgsb.minimize(fun, np.array([-1.2, 1.0]), max_iter=20)
    assert set(seen) == {1}
    assert get() == 2
