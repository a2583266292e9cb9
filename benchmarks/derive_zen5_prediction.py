"""What the analysis should find on AMD Zen 5 *if* the events count what their descriptions say.

    .venv/bin/python benchmarks/derive_zen5_prediction.py [--markdown]

NOT a measurement: this VM has no PMU.  Each selected Zen 5 event (Linux perf tables shipped in
hemkit/derive/data) is given the per-iteration response its BriefDescription implies on hemkit's
kernels, e.g. ``fp_ret_sse_avx_ops.mac_flops`` = 2 x lanes per FMA instruction, ``ex_ret_brn_tkn``
= taken conditional + unconditional branches.  The analysis then runs exactly as on measured data.
The real run on Zen 5 (BENCHMARKS.md) confirms or refutes these predictions event by event.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from hemkit.derive.analysis import analyze_cube
from hemkit.derive.events import zen5_events
from hemkit.derive.families import LANES, branch_family, flops_family
from hemkit.derive.tables import to_markdown


def _flops_responses(fam) -> dict[str, np.ndarray]:
    """Per-instruction response of FP events in the basis coordinates, from their descriptions."""
    cols = list(fam.basis.columns)
    spec = [(c.split("_")[0].lower(), c.split("_")[1].lower(), c.endswith("_FMA")) for c in cols]

    def vec(fn):
        return np.array([float(fn(p, w, f)) for p, w, f in spec])

    return {
        "fp_ret_sse_avx_ops.all": vec(lambda p, w, f: LANES[p][w] * (2 if f else 1)),
        "fp_ret_sse_avx_ops.add_sub_flops": vec(lambda p, w, f: 0 if f else 0.5 * LANES[p][w]),
        "fp_ret_sse_avx_ops.mult_flops": vec(lambda p, w, f: 0 if f else 0.5 * LANES[p][w]),
        "fp_ret_sse_avx_ops.mac_flops": vec(lambda p, w, f: 2 * LANES[p][w] if f else 0),
        "fp_ret_sse_avx_ops.scalar_single_flops": vec(lambda p, w, f: (p == "sp" and w == "scalar") * (2 if f else 1)),
        "fp_ret_sse_avx_ops.packed_single_flops": vec(
            lambda p, w, f: (p == "sp" and w != "scalar") * LANES[p][w] * (2 if f else 1)
        ),
        "fp_ret_sse_avx_ops.scalar_double_flops": vec(lambda p, w, f: (p == "dp" and w == "scalar") * (2 if f else 1)),
        "fp_ret_sse_avx_ops.packed_double_flops": vec(
            lambda p, w, f: (p == "dp" and w != "scalar") * LANES[p][w] * (2 if f else 1)
        ),
        "fp_ops_retired_by_width.scalar_uops_retired": vec(lambda p, w, f: w == "scalar"),
        "fp_ops_retired_by_width.pack_128_uops_retired": vec(lambda p, w, f: w == "128"),
        "fp_ops_retired_by_width.pack_256_uops_retired": vec(lambda p, w, f: w == "256"),
        "fp_ops_retired_by_width.pack_512_uops_retired": vec(lambda p, w, f: w == "512"),
        "fp_ops_retired_by_width.all": vec(lambda p, w, f: 1),
        "fp_ops_retired_by_type.scalar_add": vec(lambda p, w, f: (w == "scalar" and not f) * 0.5),
        "fp_ops_retired_by_type.scalar_mul": vec(lambda p, w, f: (w == "scalar" and not f) * 0.5),
        "fp_ops_retired_by_type.scalar_mac": vec(lambda p, w, f: w == "scalar" and f),
        "fp_ops_retired_by_type.vector_add": vec(lambda p, w, f: (w != "scalar" and not f) * 0.5),
        "fp_ops_retired_by_type.vector_mul": vec(lambda p, w, f: (w != "scalar" and not f) * 0.5),
        "fp_ops_retired_by_type.vector_mac": vec(lambda p, w, f: w != "scalar" and f),
    }


def _branch_responses(fam) -> dict[str, np.ndarray]:
    e = {c: np.eye(5)[i] for i, c in enumerate(fam.basis.columns)}
    return {
        "ex_ret_brn": e["CR"] + e["D"],
        "ex_ret_brn_misp": e["M"],
        "ex_ret_brn_tkn": e["T"] + e["D"],
        "ex_ret_brn_tkn_misp": 0.5 * e["M"],  # a random branch is taken in half of its mispredictions
        "ex_ret_cond": e["CR"],
        "ex_ret_uncond_brnch_instr": e["D"],
        "ex_ret_msprd_brnch_instr_dir_msmtch": e["M"],
        "ex_ret_ind_brch_instr": 0 * e["D"],
    }


def predict(family: str) -> tuple[pd.DataFrame, list[str]]:
    fam = flops_family() if family == "flops" else branch_family()
    resp = _flops_responses(fam) if family == "flops" else _branch_responses(fam)
    codes = zen5_events().set_index("name")["code"]
    names = [f"{n} ({codes.get(n, '?')})" for n in resp]
    M = fam.basis.to_numpy() @ np.array(list(resp.values())).T  # expected count per iteration
    res = analyze_cube(np.stack([M] * 3), names, fam)
    return res.table(), list(res.chosen)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    for fam in ("flops", "branch"):
        table, chosen = predict(fam)
        print(f"### {fam}: predicted from descriptions (QR picks: {', '.join(chosen)})\n")
        print(to_markdown(table) if a.markdown else table.to_string(index=False))
        print()


if __name__ == "__main__":
    main()
