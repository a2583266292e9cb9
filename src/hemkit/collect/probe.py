"""Counter probe: how many of the given events this machine counts correctly at once.

perf's own percentage cannot be trusted here (``notes/perf.md``): on the Zen 5 VMs perf
reports 100 % for a 6th hardware event that silently reads 0, and raw floating-point
events corrupt the other events of their run.  So the probe

1. measures every event **alone** (``repeats`` runs of the same workload): events perf
   reports ``<not supported>`` and events that read 0 in every run are flagged; the
   run-to-run spread (coefficient of variation) of each alone count is kept;
2. grows a group of the hardware events one at a time, measuring the group ``repeats``
   times: a step is accepted when every event's median in-group count is within
   ``max(tol, 4 x CV)`` of its alone median and no event was multiplexed; an event whose
   addition breaks the group is left out and the next one tried;
3. reports the **budget**, the largest group that read correctly, and the events that
   broke a group smaller than that budget (measure those alone).

Software events and tracepoints use no hardware counter ("no counter limit").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError
from hemkit.perf import run_perf_stat

#: perf's software events (``perf list sw``); they use no hardware counter
SOFTWARE_EVENTS = frozenset(
    {
        "cpu-clock",
        "task-clock",
        "page-faults",
        "faults",
        "context-switches",
        "cs",
        "cpu-migrations",
        "migrations",
        "minor-faults",
        "major-faults",
        "alignment-faults",
        "emulation-faults",
        "dummy",
        "bpf-output",
        "cgroup-switches",
    }
)
_MODIFIERS = re.compile(r"^[ukhIGHpPSDWe]{1,6}$")


def event_kind(event: str) -> str:
    """``"software"``, ``"tracepoint"`` or ``"hardware"`` (anything that may take a counter).

    Examples
    --------
    >>> [event_kind(e) for e in ["task-clock", "sched:sched_switch", "cycles:u", "r00c0"]]
    ['software', 'tracepoint', 'hardware', 'hardware']
    """
    name, _, suffix = event.partition(":")
    if name in SOFTWARE_EVENTS and (not suffix or _MODIFIERS.match(suffix)):
        return "software"
    if suffix and "/" not in event and not _MODIFIERS.match(suffix):
        return "tracepoint"
    return "hardware"


@dataclass(frozen=True)
class ProbeResult:
    """Outcome of :func:`probe`.

    Attributes
    ----------
    events : DataFrame
        One row per event: ``kind``, ``alone`` (median count), ``cv``, ``verdict``.
    steps : DataFrame
        The growing-group trials: ``size``, ``added``, ``ok``, ``note``.
    budget : int or None
        Largest number of hardware events read correctly at once; None when no hardware
        event counts here (see ``note``).
    note : str
    """

    events: pd.DataFrame
    steps: pd.DataFrame
    budget: int | None
    note: str

    def summary(self) -> str:
        lines = [self.note, ""]
        lines += [f"  {r.event:<32} {r.kind:<10} {r.verdict}" for r in self.events.itertuples()]
        return "\n".join(lines)


def _measure(events: Sequence[str], command: Sequence[str], repeats: int, **kw) -> pd.DataFrame:
    """``repeats`` runs of one group -> long table run, event, value, percent, status."""
    parts = []
    for r in range(repeats):
        c = run_perf_stat(list(events), command, **kw).counts
        parts.append(c.assign(run=r))
    return pd.concat(parts, ignore_index=True)


def probe(
    events: Sequence[str],
    command: Sequence[str],
    *,
    repeats: int = 3,
    tol: float = 0.3,
    perf: str | None = None,
    fmt: str = "csv",
    timeout: float | None = None,
    cpu: int | None = None,
) -> ProbeResult:
    """Find which ``events`` count here and how many hardware events count correctly at once.

    Parameters
    ----------
    events : sequence of str
    command : sequence of str
        A workload that runs the same way each time (e.g. a bundled microbenchmark).
    repeats : int
        Runs per measurement (medians are compared).
    tol : float
        Relative difference between in-group and alone counts still accepted (raised to
        4 x the event's run-to-run CV when that is larger).

    Examples
    --------
    >>> from hemkit.collect import probe, ubench_command
    >>> res = probe(["task-clock", "instructions"], ubench_command("iadd", "L1", 10**6))  # doctest: +SKIP
    >>> print(res.note)  # doctest: +SKIP
    perf counts no hardware event here (1 of 1 <not supported>: no PMU driver?); ...
    """
    if not events:
        raise HemkitError("no events to probe")
    if repeats < 1:
        raise HemkitError("repeats must be at least 1")
    kw = dict(perf=perf, fmt=fmt, timeout=timeout, cpu=cpu)
    rows = []
    for e in events:
        t = _measure([e], command, repeats, **kw)
        t = t[t["event"] == e]
        kind = event_kind(e)
        vals = t.loc[t["status"] == "ok", "value"].to_numpy(dtype=float)
        alone = float(np.median(vals)) if len(vals) else float("nan")
        cv = float(np.std(vals) / np.mean(vals)) if len(vals) > 1 and np.mean(vals) > 0 else 0.0
        if t.empty:
            verdict = "no output from perf"
        elif (t["status"] == "not supported").any():
            verdict = "unsupported"
        elif (t["status"] == "not counted").all():
            verdict = "not counted even alone"
        elif len(vals) and (vals == 0).all():
            verdict = "reads constant zero"
        elif kind != "hardware":
            verdict = "ok (no counter limit)"
        else:
            verdict = "ok"
        rows.append({"event": e, "kind": kind, "alone": alone, "cv": cv, "verdict": verdict})
    table = pd.DataFrame(rows)
    hw = table[table["kind"] == "hardware"]
    usable = hw[hw["verdict"] == "ok"]
    steps = []
    group: list[str] = []
    broke_early: list[str] = []
    for e in usable["event"]:
        trial = group + [e]
        if len(trial) == 1:
            group = trial
            steps.append({"size": 1, "added": e, "ok": True, "note": "alone"})
            continue
        t = _measure(trial, command, repeats, **kw)
        bad = []
        for x in trial:
            tx = t[t["event"] == x]
            ref = table.set_index("event").loc[x]
            if tx.empty or (tx["status"] != "ok").any():
                bad.append(f"{x} not counted")
                continue
            if (tx["percent"] < 100).any():
                bad.append(f"{x} multiplexed")
                continue
            med = float(tx["value"].median())
            lim = max(tol, 4 * ref["cv"])
            if abs(med - ref["alone"]) > lim * ref["alone"]:
                bad.append(f"{x} reads {med:.3g} in the group vs {ref['alone']:.3g} alone")
        ok = not bad
        steps.append({"size": len(trial), "added": e, "ok": ok, "note": "; ".join(bad)})
        if ok:
            group = trial
        else:
            broke_early.append(e)
    steps_df = pd.DataFrame(steps, columns=["size", "added", "ok", "note"])
    budget = len(group) if len(usable) else None
    # an event whose addition failed at a size below the final budget breaks its neighbours
    for e in broke_early:
        size = int(steps_df.loc[steps_df["added"] == e, "size"].iloc[0])
        verdict = (
            "breaks its group: measure alone"
            if budget is not None and size <= budget
            else f"did not fit (group of {size} over the budget)"
        )
        table.loc[table["event"] == e, "verdict"] = verdict
    n_sw = int((table["kind"] != "hardware").sum())
    unsup = int((hw["verdict"] == "unsupported").sum())
    if len(hw) == 0:
        note = f"no counter limit: all {n_sw} events are software events or tracepoints, which use no counter"
    elif len(usable) == 0:
        note = (
            f"perf counts no hardware event here ({unsup} of {len(hw)} <not supported>"
            f"{': no PMU driver?' if unsup == len(hw) else ''}); budget unknown"
        )
        if n_sw:
            note += f"; the {n_sw} software/tracepoint events use no counter (no counter limit)"
    else:
        tried = len(usable)
        note = f"budget: {budget} hardware events read correctly at once"
        if budget == tried:
            note += f" (all {tried} usable events tried; the real limit may be higher)"
        if n_sw:
            note += f"; {n_sw} software/tracepoint events use no counter"
    return ProbeResult(table, steps_df, budget, note)
