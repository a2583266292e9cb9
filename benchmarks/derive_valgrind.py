"""Issue 12's done-when with the valgrind backend: time per family and the definition tables.

    nice -n 10 .venv/bin/python benchmarks/derive_valgrind.py [--out /tmp/derive-bench] [--runs 3]

Runs, as a user would, for the branch and dcache families (default geometry: sysfs)::

    hemkit derive run --family F --backend valgrind -o F.csv -q
    hemkit derive analyze F.csv -o F.json
    hemkit derive report F.json -o F-table.csv

times each command (wall clock; valgrind runs use every CPU), checks the issue's answers
(PAPI_BR_CN = 1xBc and PAPI_BR_MSP = 1xBcm with backward error < 1e-10, "Conditional Branches
Executed" not definable; PAPI_L1_DCM = 1xD1mr and every dcache metric defined), shows that the
flops family is refused with the reason, and prints Markdown for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

from hemkit.derive.tables import to_markdown
from hemkit.external.process import run


def hemkit(*args: str) -> tuple[float, str, str, int]:
    t0 = time.perf_counter()
    proc = run([sys.executable, "-m", "hemkit", *args], timeout=3600)
    return time.perf_counter() - t0, proc.stdout, proc.stderr, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/derive-bench")
    ap.add_argument("--runs", default="3")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start\n")
    timings, checks = [], []
    for family in ("branch", "dcache"):
        csv, js, table = out / f"{family}.csv", out / f"{family}.json", out / f"{family}-table.csv"
        t_run, so, se, rc = hemkit(
            "derive", "run", "--family", family, "--backend", "valgrind", "--runs", a.runs, "-o", str(csv), "-q"
        )
        if rc:
            raise SystemExit(f"derive run failed: {se}")
        summary = [ln for ln in so.splitlines() if " with valgrind: " in ln][-1]
        t_an, _, se, rc = hemkit("derive", "analyze", str(csv), "-o", str(js))
        if rc:
            raise SystemExit(f"derive analyze failed: {se}")
        t_rep, _, se, rc = hemkit("derive", "report", str(js), "-o", str(table))
        if rc:
            raise SystemExit(f"derive report failed: {se}")
        timings.append(
            {
                "family": family,
                "derive run (s)": f"{t_run:.1f}",
                "analyze (s)": f"{t_an:.1f}",
                "report (s)": f"{t_rep:.1f}",
                "what ran": summary.split(": ", 1)[1].split(";")[0],
            }
        )
        t = pd.read_csv(table)
        print(f"### {family} (valgrind): definition table\n")
        t["backward_error"] = t["backward_error"].map(lambda v: f"{v:.2e}")
        print(
            to_markdown(
                t[["metric", "papi", "definition", "backward_error", "verdict", "preset_definition", "agree"]].fillna(
                    ""
                )
            )
        )
        by = t.set_index("papi")
        if family == "branch":
            ce = t.set_index("metric").loc["Conditional Branches Executed.", "verdict"]
            checks += [
                (
                    "PAPI_BR_CN = 1xBc, error < 1e-10",
                    by.loc["PAPI_BR_CN", "definition"] == "1xBc"
                    and float(by.loc["PAPI_BR_CN", "backward_error"]) < 1e-10,
                ),
                (
                    "PAPI_BR_MSP = 1xBcm, error < 1e-10",
                    by.loc["PAPI_BR_MSP", "definition"] == "1xBcm"
                    and float(by.loc["PAPI_BR_MSP", "backward_error"]) < 1e-10,
                ),
                ("Conditional Branches Executed not definable", ce == "not definable"),
            ]
        else:
            checks += [
                ("PAPI_L1_DCM = 1xD1mr", by.loc["PAPI_L1_DCM", "definition"] == "1xD1mr"),
                ("every dcache metric defined", bool((t["verdict"] == "defined").all())),
            ]
    _, _, se, rc = hemkit("derive", "run", "--family", "flops", "--backend", "valgrind", "-o", str(out / "flops.csv"))
    checks.append(("flops refused with the reason (exit 2)", rc == 2 and "no floating-point events" in se))
    print("### time per family (wall clock)\n")
    print(to_markdown(pd.DataFrame(timings)))
    print("### checks\n")
    print(to_markdown(pd.DataFrame(checks, columns=["done-when", "holds"])))
    print(f"flops: {se.strip()}")
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
