"""Fixtures of the derive tests: a fake perf replaying perf stat -x, lines, valgrind runs shared by tests."""

import shutil

import pytest

from hemkit.derive.families import branch_family

FAKE = """#!/bin/sh
# a fake 'perf stat -o OUT -x, -e EVENTS [-D -1 --control fifo:C,A] -- KERNEL FAMILY KERNEL SIZE ITERS SEED'
out=""; events=""; control=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2;;
    -e) events="$2"; shift 2;;
    --control) control=1; shift 2;;
    --) shift; break;;
    *) shift;;
  esac
done
if [ $control = 0 ]; then  # the probe 'perf stat -e instructions true': no PMU here
  echo "<not supported>,,instructions,0,100.00,," > "$out"; exit 0
fi
echo "$events" >> {log}
awk -v events="$events" -v loop="$3/$4" -v iters="$5" -v seed="$$" '
  {{ value[$1 " " $2] = $3; kind[$1] = $4 }}
  END {{
    srand(seed); n = split(events, ev, ",")
    for (i = 1; i <= n; i++) {{
      code = ev[i]; sub(/:.*/, "", code)
      if (kind[code] == "unsupported") print "<not supported>,," ev[i] ",0,100.00,,"
      else if (kind[code] == "multiplexed") print "1000,," ev[i] ",500,50.00,,"
      else {{
        v = value[code " " loop] * iters
        if (kind[code] == "noisy") v *= 0.95 + 0.1 * rand()
        printf "%.0f,,%s,123456,100.00,,\\n", v, ev[i]
      }}
    }}
  }}' {table} > "$out"
"""


@pytest.fixture
def fake_perf(tmp_path, monkeypatch):
    """``$HEMKIT_PERF`` = a script answering like perf for the branch kernels; returns the call log."""
    fam = branch_family()
    E = fam.basis
    rows = {
        "r00c2": E["CR"] + E["D"],  # retired branches
        "r00c3": E["M"],  # retired mispredicted branches
        "r10d1": E["CR"],  # conditional branches
        "r20d1": E["T"],  # conditional taken
        "r00c4": E["T"] + E["D"],  # all taken
        "r0000": 0 * E["T"],  # counts nothing here
        "cycles": 7 * E["CR"],
    }
    kinds = {"r0103": "unsupported", "r9999": "multiplexed", "cycles": "noisy"}
    lines = [
        f"{code} {loop} {float(v)} {kinds.get(code, 'ok')}" for code, col in rows.items() for loop, v in col.items()
    ]
    lines += [f"{code} - 0 {kind}" for code, kind in kinds.items() if code not in rows]
    tp = tmp_path / "table.txt"
    tp.write_text("\n".join(lines) + "\n")
    log = tmp_path / "calls.log"
    script = tmp_path / "perf"
    script.write_text(FAKE.format(table=str(tp), log=str(log)))
    script.chmod(0o755)
    monkeypatch.setenv("HEMKIT_PERF", str(script))
    return log


needs_valgrind = pytest.mark.skipif(
    shutil.which("valgrind") is None, reason="valgrind not installed (apt-get install valgrind)"
)

#: a tiny simulated hierarchy, so that the dcache family runs in seconds under valgrind
TINY_CACHES = ("L1=4k,4,64", "LL=64k,8,64")


@pytest.fixture(scope="session")
def valgrind_branch():
    """The branch family under valgrind (4096 random bytes per loop, 2 runs), measured once per session."""
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind not installed (apt-get install valgrind)")
    from hemkit.derive import MeasureOptions, run_family

    return run_family("branch", backend="valgrind", options=MeasureOptions(runs=2, iterations=4096, seed=11))


@pytest.fixture(scope="session")
def valgrind_dcache():
    """The dcache family under valgrind with tiny caches (2 runs), measured once per session."""
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind not installed (apt-get install valgrind)")
    from hemkit.derive import MeasureOptions, cache_geometry, run_family

    options = MeasureOptions(runs=2, iterations=4096, seed=5, cache=cache_geometry(TINY_CACHES))
    return run_family("dcache", backend="valgrind", options=options)
