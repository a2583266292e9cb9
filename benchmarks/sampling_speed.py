"""Simulator speed: 1e6 units x 1000 profiling repetitions (target < 10 s).

    .venv/bin/python benchmarks/sampling_speed.py

Times state generation and the 1000 profiles separately, for time-based sampling, with
jitter and noise, and event-based sampling; best of 3.
"""

from __future__ import annotations

import time

from hemkit.sampling import Sampler, generate_states, simulate_profiles
from hemkit.sampling.paper import mixed_tasks


def best(f, n=3):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> None:
    tasks = mixed_tasks()
    t_gen = best(lambda: generate_states(tasks, 1_000_000, seed=0))
    rs = generate_states(tasks, 1_000_000, seed=0)
    print(f"generate 1e6 units (mixed tasks): {t_gen:.3f} s")
    for label, kw in [
        ("time-based", {}),
        ("time-based + jitter 5 + noise N(0,2)", {"jitter": 5.0, "noise": 2.0}),
        ("event-based", {"mode": "event"}),
    ]:
        t = best(lambda kw=kw: simulate_profiles(rs, Sampler(100, **kw), 1000, seed=1))
        print(f"1e6 units x 1000 repetitions, {label}: {t:.2f} s")


if __name__ == "__main__":
    main()
