"""Counter probe: how many of the given events this machine counts correctly at once.

perf's own percentage cannot be trusted here (``notes/perf.md``): on the Zen 5 VMs perf
reports 100 % for a 6th hardware event that silently reads 0, and raw floating-point
events corrupt the other events of their run.  So the probe

1. measures every event **alone** (``runs`` runs of the same workload): events perf
   reports ``<not supported>`` and events that read 0 in every run are flagged; the
   run-to-run spread (coefficient of variation) of each alone count is kept;
2. grows a group of the hardware events one at a time, measuring the group ``runs``
   times: a step is accepted when every event's median in-group count is within
   ``max(tol, 4 x CV)`` of its alone median and no event was multiplexed; an event whose
   addition breaks the group is left out and the next one tried;
3. reports the **budget**, the largest group that read correctly, and the events that
   broke a group smaller than that budget (measure those alone);
4. puts it beside the **nominal** number of general counters the kernel announced at boot
   (``generic registers`` in its log, x86), with the reason for a difference it can name:
   the NMI watchdog holding one, or events perf reported as counted that read wrong.  The
   kernel settings that cost counters or events (the NMI watchdog, ``perf_event_paranoid``)
   are each said in one warning with how to change them (:mod:`hemkit.io.kernel`).

Software events and tracepoints use no hardware counter ("no counter limit").
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hemkit.collect.collector import available_cpus
from hemkit.collect.kinds import event_kind, warn_settings
from hemkit.core.checks import check_scalar
from hemkit.core.errors import Fix, InputError, MeasurementError
from hemkit.core.progress import ProgressLike, ProgressTask, as_progress
from hemkit.core.results import Result, result
from hemkit.external.perf import PerfStatOptions, run_perf_stat
from hemkit.external.process import describe_status
from hemkit.io.kernel import CounterSettings, counter_settings
from hemkit.plan.problem import check_name


@dataclass(frozen=True)
class ProbeOptions:
    """How :func:`probe` measures.

    Parameters
    ----------
    tol : float
        Relative difference between in-group and alone counts still accepted (raised to
        4 x the event's run-to-run CV when that is larger).
    pin : int, optional
        CPU to run the command on.
    fmt : {"csv", "json"}
        perf's output format.
    timeout : float, optional
        Seconds per run before it is killed.
    perf : str, optional
        perf binary (default ``$HEMKIT_PERF`` or ``perf``).
    allow_failure : bool
        Accept runs whose program exits non-zero or is killed.

    Examples
    --------
    >>> ProbeOptions(tol=0.1).tol
    0.1
    """

    tol: float = 0.3
    pin: int | None = None
    fmt: str = "csv"
    timeout: float | None = None
    perf: str | None = None
    allow_failure: bool = False

    def __post_init__(self) -> None:
        check_scalar(self.tol, "tol", "real", min_val=0)
        if self.pin is not None and self.pin not in available_cpus():
            raise InputError(f"pin must be one of the CPUs hemkit may use, got {self.pin}")
        if self.fmt not in ("csv", "json"):
            raise InputError(f"fmt must be 'csv' or 'json', got {self.fmt!r}")
        if self.timeout is not None and not 0 < self.timeout < float("inf"):
            raise InputError(f"timeout must be a number of seconds above 0, got {self.timeout}", param="timeout")


#: what the probe table shows where an event has no count, by its verdict (perf's words where perf said it)
_NO_COUNT = {
    "unsupported": "<not supported>",
    "not counted even alone": "<not counted>",
    "no output from perf": "no output",
}


@result
class ProbeResult(Result):
    """Outcome of :func:`probe`.

    Attributes
    ----------
    events : DataFrame
        One row per event: ``event``, ``kind``, ``alone`` (median count; NaN without one),
        ``cv`` (NaN without a count), ``verdict``.
    steps : DataFrame
        The growing-group trials: ``size``, ``added``, ``ok``, ``note``.
    budget : int or None
        Largest number of hardware events read correctly at once; None when no hardware
        event counts here (see ``note``).
    note : str
        The finding in one line.
    runs : int
        perf runs made.
    nominal : int or None
        General counters the kernel announced (None: it did not say).
    settings : CounterSettings or None
        The kernel settings read before probing (:func:`hemkit.io.kernel.counter_settings`).

    Examples
    --------
    Probing needs perf, so these lines are not run here.  On a virtual machine without a
    PMU, only the software event counts:

    >>> from hemkit.collect import probe
    >>> res = probe(["task-clock", "instructions", "cycles"], ["true"])  # doctest: +SKIP
    >>> res.budget is None, res.runs  # doctest: +SKIP
    (True, 9)
    >>> res.summary()["verdict"].to_dict()  # doctest: +SKIP
    {'task-clock': 'ok (no counter limit)', 'instructions': 'unsupported', 'cycles': 'unsupported'}
    >>> print(res.note)  # doctest: +SKIP
    perf counts no hardware event here (2 of 2 <not supported>: no PMU driver?); budget unknown; ...
    """

    events: pd.DataFrame
    steps: pd.DataFrame
    budget: int | None
    note: str
    runs: int = 0
    nominal: int | None = None
    settings: CounterSettings | None = None

    def summary(self) -> pd.DataFrame:
        """Per event: kind, median count alone, run-to-run CV and the verdict.

        An event without a count says why in perf's words (``<not supported>``,
        ``<not counted>``) where its count would be, and has no CV: never NaN
        (:attr:`events` keeps the numbers, NaN there).
        """
        table = self.events.set_index("event")
        missing = table["alone"].isna().to_numpy()
        if not missing.any():
            return table
        out = table.astype({"alone": object, "cv": object})
        out.loc[missing, "alone"] = [_NO_COUNT.get(v, "no count") for v in table.loc[missing, "verdict"]]
        out.loc[missing, "cv"] = ""
        return out

    def line(self) -> str:
        """The finding in one line, with the number of perf runs it took."""
        return f"{self.note} ({self.runs} perf runs)"


class _Measurer:
    """``runs`` perf runs of one group at a time, checked and counted."""

    def __init__(self, command: Sequence[str], runs: int, opts: ProbeOptions, task: ProgressTask):
        self.command, self.runs, self.opts, self.task = list(command), runs, opts, task
        self.done = 0

    def __call__(self, events: Sequence[str]) -> pd.DataFrame:
        """``runs`` runs of one group -> long table run, event, value, percent, status."""
        parts = []
        for r in range(self.runs):
            res = run_perf_stat(
                list(events),
                self.command,
                PerfStatOptions(
                    perf=self.opts.perf,
                    fmt=self.opts.fmt,
                    timeout=self.opts.timeout,
                    cpu=self.opts.pin,
                    start_new_session=True,
                ),
            )
            if res.returncode != 0 and not self.opts.allow_failure:
                raise MeasurementError(
                    f"{shlex.join(self.command)}: {describe_status(res.returncode)} while measuring "
                    f"{', '.join(events)}; fix the program, or accept its failing runs to measure it on purpose",
                    fix=Fix("allow_failure", True),
                )
            parts.append(res.counts.assign(run=r))
            self.done += 1
            self.task.advance(info=", ".join(events) if len(events) < 4 else f"{len(events)} events")
        return pd.concat(parts, ignore_index=True)


def probe(
    events: Sequence[str],
    command: Sequence[str],
    *,
    runs: int = 3,
    options: ProbeOptions | None = None,
    progress: ProgressLike = None,
) -> ProbeResult:
    """Find which ``events`` count here and how many hardware events count correctly at once.

    Parameters
    ----------
    events : sequence of str
    command : sequence of str
        A workload that runs the same way each time (e.g. a bundled microbenchmark).
    runs : int
        Runs per measurement (medians are compared).
    options : ProbeOptions, optional
        Tolerance, CPU, perf format, timeout, perf binary, allow_failure.
    progress : bool or Progress, optional
        Progress display (see :mod:`hemkit.core.progress`).

    Raises
    ------
    InputError
        No events, a bad parameter, or a program that cannot be found.
    MeasurementError
        The program exits non-zero or is killed (unless ``allow_failure``), or perf fails.

    Examples
    --------
    >>> from hemkit.collect import probe, ubench_command
    >>> res = probe(["task-clock", "instructions"], ubench_command("iadd", "L1", 10**6))  # doctest: +SKIP
    >>> print(res.note)  # doctest: +SKIP
    perf counts no hardware event here (1 of 1 <not supported>: no PMU driver?); ...
    """
    if not events:
        raise InputError("no events to probe")
    events = _checked_events(events)
    check_scalar(runs, "runs", min_val=1)
    if not command:
        raise InputError("no command to measure")
    opts = options or ProbeOptions()
    tol = opts.tol
    n_hw = sum(event_kind(e) == "hardware" for e in events)
    settings = counter_settings()
    warn_settings(settings, hardware=n_hw > 0)
    with as_progress(progress).task("probe", total=runs * (len(events) + max(n_hw - 1, 0))) as task:
        measure = _Measurer(command, runs, opts, task)
        table, steps, budget, note = _probe(list(events), measure, tol)
    note += _beside_nominal(settings, budget, table)
    return ProbeResult(table, steps, budget, note, runs=measure.done, nominal=settings.generic, settings=settings)


def _checked_events(events: Sequence[str]) -> list[str]:
    """The event names, each once and one event each (``'a,b'`` was probed as one unknown hardware event).

    Examples
    --------
    >>> _checked_events(["task-clock", "cpu/event=0x3c,umask=0x0/"])
    ['task-clock', 'cpu/event=0x3c,umask=0x0/']
    >>> _checked_events(["page-faults,task-clock"])
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: event name 'page-faults,task-clock' holds several events; give each one apart
    """
    out: list[str] = []
    for e in events:
        name = check_name(e, "event")  # one event: no white space, no comma (but in a PMU's term list)
        if name in out:
            raise InputError(f"event {name!r} is given twice")
        out.append(name)
    return out


def _beside_nominal(settings: CounterSettings, budget: int | None, table: pd.DataFrame) -> str:
    """The measured budget beside the kernel's nominal counters, with the reason for a difference."""
    hw = table[table["kind"] == "hardware"]
    if len(hw) and budget is None and settings.no_pmu:
        return f"; the kernel says: {settings.no_pmu}"
    nominal = settings.generic
    if nominal is None or budget is None:
        return ""
    tried = int((hw["verdict"] != "unsupported").sum())
    said = f"; nominal: {nominal} general counters (kernel log)"
    if settings.fixed:
        said += f" and {settings.fixed} fixed"
    if budget >= nominal:
        return said + (" - cycles, instructions and ref-cycles may sit on fixed counters" if budget > nominal else "")
    if tried <= budget:
        return said + f" (only {tried} events tried)"
    reasons = []
    if settings.watchdog_on:
        reasons.append("the NMI watchdog holds one")
    if budget < nominal - int(settings.watchdog_on):
        reasons.append("perf reported events as counted that read wrong in a larger group (a silent failure)")
    return said + f"; measured {budget}: " + "; ".join(reasons)


def _probe(events: list[str], measure: _Measurer, tol: float) -> tuple[pd.DataFrame, pd.DataFrame, int | None, str]:
    rows = []
    for e in events:
        t = measure([e])
        t = t[t["event"] == e]
        kind = event_kind(e)
        vals = t.loc[t["status"] == "ok", "value"].to_numpy(dtype=float)
        alone = float(np.median(vals)) if len(vals) else float("nan")
        cv = float(np.std(vals) / np.mean(vals)) if len(vals) > 1 and np.mean(vals) > 0 else 0.0
        if not len(vals):
            cv = float("nan")  # no count (an unsupported event): no variation to show, as no median
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
        t = measure(trial)
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
            lim = max(tol, 4 * ref["cv"]) if np.isfinite(ref["cv"]) else tol
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
    return table, steps_df, budget, note
