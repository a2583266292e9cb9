"""Fixtures of the derive tests: a fake perf that replays perf stat -x, lines for the branch kernels."""

import json
import sys

import pytest

from hemkit.derive.families import branch_family

FAKE = """#!{python}
import json, random, sys
args = sys.argv[1:]
out = args[args.index("-o") + 1]
events = args[args.index("-e") + 1].split(",")
cmd = args[args.index("--") + 1:]
assert "--control" in args and args[args.index("-D") + 1] == "-1"
family, kernel, size, iters = cmd[1:5]
table = json.load(open({table!r}))
with open({log!r}, "a") as log:
    log.write(",".join(events) + "\\n")
lines = []
for e in events:
    code = e.split(":")[0]
    if code in table["unsupported"]:
        lines.append(f"<not supported>,,{{e}},0,100.00,,")
    elif code in table["multiplexed"]:
        lines.append(f"1000,,{{e}},500,50.00,,")
    else:
        v = table["rows"][code][kernel + "/" + size] * int(iters)
        if code in table["noisy"]:
            v *= random.uniform(0.95, 1.05)
        lines.append(f"{{v:.0f}},,{{e}},123456,100.00,,")
open(out, "w").write("\\n".join(lines) + "\\n")
"""


@pytest.fixture
def fake_perf(tmp_path, monkeypatch):
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
    table = {
        "rows": {k: {r: float(v) for r, v in s.items()} for k, s in rows.items()},
        "unsupported": ["r0103"],
        "multiplexed": ["r9999"],
        "noisy": ["cycles"],
    }
    tp = tmp_path / "table.json"
    tp.write_text(json.dumps(table))
    log = tmp_path / "calls.log"
    script = tmp_path / "perf"
    script.write_text(FAKE.format(python=sys.executable, table=str(tp), log=str(log)))
    script.chmod(0o755)
    monkeypatch.setenv("HEMKIT_PERF", str(script))
    return log
