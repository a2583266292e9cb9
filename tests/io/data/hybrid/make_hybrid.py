"""Write the hybrid-CPU perf stat fixtures of this folder (no machine here has a hybrid PMU).

The line formats are perf's own, as documented in tools/perf/Documentation/intel-hybrid.txt and
printed by perf 6.x on Alder/Raptor Lake in public reports (rust-lang/rustc-perf#1480,
andikleen/pmu-tools#500): ``-x,`` lines ``value,unit,event,run_time_ns,percentage,metric,unit``
with each hardware event once per core PMU, ``cpu_core/instructions/`` and
``cpu_atom/instructions/``; a PMU whose cores did not run the task prints
``<not counted>,,cpu_atom/instructions/,0,0.00,,``; ``-j`` prints the same as JSON objects.

    python tests/io/data/hybrid/make_hybrid.py

- ``pinned/``: ``taskset -c 0 perf stat -x, -e task-clock,instructions,cycles|branch-misses ...``
  on P core 0: every cpu_atom line is <not counted> (3 groups x 4 runs, CSV; group 3 as -j).
- ``system/``: ``perf stat -a -x, ...``: both PMUs count on their CPUs all the time (100.00 %).
- ``migrated/``: an unpinned run that moved to an E core for 2 % of the time (both PMUs below
  100 %, perf scaled each up) beside pinned runs.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
GROUPS = [["instructions", "cycles"], ["instructions", "branch-misses"], ["cycles", "branch-misses"]]
SCALE = {"instructions": 2.05e10, "cycles": 1.21e10, "branch-misses": 4.1e7}


def line_csv(value: str, event: str, run_ns: int, pct: float, unit: str = "") -> str:
    return f"{value},{unit},{event},{run_ns},{pct:.2f},,"


def line_json(value: str, event: str, run_ns: int, pct: float, unit: str = "") -> str:
    return json.dumps(
        {
            "counter-value": value,
            "unit": unit,
            "event": event,
            "event-runtime": run_ns,
            "pcnt-running": pct,
            "metric-value": "0.000000",
            "metric-unit": "",
        },
        separators=(", ", " : "),
    )


def run_lines(events, rng, *, atom: str, fmt: str = "csv") -> list[str]:
    """atom: 'idle' (pinned to P cores), 'system' (both count all the time), 'migrated' (2 % on E cores)."""
    line = line_csv if fmt == "csv" else line_json
    ms = rng.uniform(5400, 6200)
    ns = int(ms * 1e6)
    out = [line(f"{ms:.2f}", "task-clock", ns, 100.0, "msec")]
    for e in events:
        core = SCALE[e] * ms / 5800 * rng.uniform(0.98, 1.02)
        if atom == "idle":
            out.append(line(f"{core:.0f}", f"cpu_core/{e}/", ns, 100.0))
            out.append(line("<not counted>", f"cpu_atom/{e}/", 0, 0.0))
        elif atom == "system":
            out.append(line(f"{core * 1.9:.0f}", f"cpu_core/{e}/", 2 * ns, 100.0))
            out.append(line(f"{core * 0.35:.0f}", f"cpu_atom/{e}/", 2 * ns, 100.0))
        else:  # migrated: perf scales each PMU's raw count by enabled / running
            out.append(line(f"{core / 0.97:.0f}", f"cpu_core/{e}/", int(ns * 0.97), 97.0))
            out.append(line(f"{core * 0.02 * 0.6 / 0.02:.0f}", f"cpu_atom/{e}/", int(ns * 0.02), 2.0))
    return out


def write(folder: Path, name: str, lines: list[str], fmt: str = "csv") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    head = [] if fmt == "json" else ["# started on Thu Nov 26 05:00:00 2026", ""]
    (folder / f"{name}.{fmt}").write_text("\n".join(head + lines) + "\n")


def main() -> None:
    rng = random.Random(26)
    for k in range(12):
        g = k % 3
        fmt = "json" if g == 2 else "csv"
        write(HERE / "pinned", f"run_{k + 1:02d}", run_lines(GROUPS[g], rng, atom="idle", fmt=fmt), fmt)
        write(HERE / "system", f"run_{k + 1:02d}", run_lines(GROUPS[g], rng, atom="system"))
    for k in range(6):
        atom = "migrated" if k == 4 else "idle"
        write(HERE / "migrated", f"run_{k + 1:02d}", run_lines(GROUPS[0], rng, atom=atom))


if __name__ == "__main__":
    main()
