"""Optional threads, ``jobs`` (issue 15): the same numbers for any number of jobs, bad numbers refused."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hemkit.core import parallel
from hemkit.core.errors import InputError
from hemkit.core.parallel import check_jobs, job_count, jobs, rowwise


@pytest.fixture
def split_everything(monkeypatch):
    """Split even tiny arrays, so that small test data goes through the threaded path."""
    monkeypatch.setattr(parallel, "MIN_SPLIT", 0)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 7), min_size=1, max_size=3),
    n=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_rowwise_is_the_function_whatever_the_split(shape, n, seed):
    old = parallel.MIN_SPLIT
    parallel.MIN_SPLIT = 0
    try:
        x = np.random.default_rng(seed).integers(0, 4, size=shape).astype(float)  # ties on purpose
        with jobs(n):
            got = rowwise(lambda a: np.argsort(a, axis=-1, kind="stable"), x, dtype=np.intp)
        assert got.shape == x.shape and got.dtype == np.intp
        assert (got == np.argsort(x, axis=-1, kind="stable")).all()
    finally:
        parallel.MIN_SPLIT = old


def test_jobs_hold_for_the_block_only():
    assert job_count() == 1
    with jobs(3) as n:
        assert n == job_count() == 3
        with jobs(None):
            assert job_count() >= 1
        assert job_count() == 3
    assert job_count() == 1


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_blas_runs_one_thread_inside_the_block_whatever_the_jobs_and_is_restored_after():
    np.linalg.eigh(np.eye(3))  # NumPy's BLAS loaded
    before = _blas_threads()
    assert before, "NumPy's BLAS is not seen by threadpoolctl"
    with jobs(1):
        assert _blas_threads() == [1] * len(before)
        with jobs(2):  # it followed the jobs, and its sums, rounded by its thread count, with it
            assert _blas_threads() == [1] * len(before)
        assert _blas_threads() == [1] * len(before)
    assert _blas_threads() == before


def test_a_blas_loaded_inside_the_block_gets_one_thread_and_the_environment_is_restored():
    import subprocess
    import sys

    code = (
        "import os, numpy\n"
        "from hemkit.core.parallel import jobs\n"
        "from threadpoolctl import threadpool_info\n"
        "with jobs(1):\n"
        "    import scipy.optimize, scipy.linalg\n"
        "    scipy.optimize.minimize(lambda x: (x ** 2).sum(), [1.0, 2.0], method='L-BFGS-B')\n"
        "print(sorted({i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'"
        " and 'scipy_openblas-' in i['filepath']}), 'OPENBLAS_NUM_THREADS' in os.environ)\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    threads, leaked = out.split("]")
    assert leaked.strip() == "False"
    assert threads.strip("[ ") in ("1", "")  # "": this SciPy uses NumPy's BLAS (already held to 1)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_bad_numbers_of_jobs_are_refused(bad):
    with pytest.raises(InputError, match=r"jobs \(None: one per CPU\) must be an integer of at least 1"):
        check_jobs(bad)


def _digest(res) -> str:
    return hashlib.sha256(res.data.to_numpy().tobytes()).hexdigest()


@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("copula", {}),
        ("much", {"rows": 2000, "n_sims": 30}),
        ("much", {"rows": 2000, "n_sims": 30, "criterion": "sample"}),
        # every reading (24 000 rows): a threaded BLAS summed frame @ frame.T by its thread count, and a few
        # near-tied readings changed places with --jobs 2 (hemkit merge -m much --jobs 2, the README's example)
        ("much", {"n_sims": 30}),
        ("joint", {"rows": 2000}),
    ],
)
def test_merges_are_the_same_on_two_threads(split_everything, method, options):
    from hemkit.datasets import t2080_much
    from hemkit.merge import merge

    one = merge(t2080_much(), method, seed=5, jobs=1, **options)
    two = merge(t2080_much(), method, seed=5, jobs=2, **options)  # a fresh Readings: nothing cached
    assert _digest(one) == _digest(two)
    assert one.diagnostics == two.diagnostics


def test_merge_refuses_a_bad_number_of_jobs():
    from hemkit.datasets import t2080_much
    from hemkit.merge import merge

    with pytest.raises(InputError, match="jobs"):
        merge(t2080_much(), "copula", jobs=-2)


def test_cli_jobs_give_the_same_file(tmp_path, split_everything, cli):
    outs = []
    for n in (1, 2):
        out = tmp_path / f"m{n}.csv"
        res = cli(["merge", "-m", "copula", "--pearson-weight", "0.5", "--jobs", n, "-o", out, "-q"])
        assert res.exit_code == 0, res.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_cli_refuses_zero_jobs(tmp_path, bad_input):
    out = tmp_path / "m.csv"
    out.write_text("keep me\n")
    bad_input(["merge", "-m", "copula", "--jobs", "0", "-o", out], names=["--jobs"], watch=[tmp_path])


@settings(max_examples=40, deadline=None)
@given(
    lead=st.lists(st.integers(1, 4), min_size=0, max_size=2),
    k=st.integers(1, 5),
    n=st.integers(1, 9),
    values_rows=st.sampled_from(["k", "one", "full"]),
    n_jobs=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_place_by_puts_each_sorted_value_where_its_order_says(lead, k, n, values_rows, n_jobs, seed):
    from hemkit.merge.reorder import place_by

    rng = np.random.default_rng(seed)
    shape = (*lead, k, n)
    order = np.argsort(rng.random(shape), axis=-1)
    sorted_values = np.sort(rng.random({"k": (k, n), "one": (1, n), "full": shape}[values_rows]), axis=-1)
    want = np.empty(shape)
    full = np.broadcast_to(sorted_values, shape)
    for idx in np.ndindex(*shape[:-1]):  # the definition, one row at a time
        want[idx][order[idx]] = full[idx]
    old = parallel.MIN_SPLIT
    parallel.MIN_SPLIT = 0
    try:
        with jobs(n_jobs):
            got = place_by(order, sorted_values)
    finally:
        parallel.MIN_SPLIT = old
    assert (got == want).all()
