"""A fake ``perf`` for tests: emulates a PMU with few counters, and perf's ways with the workload.

Like the real perf it runs the workload given after ``--`` (so a failing or killed program,
its environment and its folder are real), returns the workload's exit code, reports a
workload killed by a signal only on stderr (``PROGRAM: Killed``) with exit code 0, and puts
its exec folder and the folder of its own ``argv[0]`` first on the workload's PATH (perf's
``setup_path``; the launcher passes ``argv[0]`` in FAKE_PERF_ARGV0).

Behaviour (environment variables):
    FAKE_PERF_COUNTERS   hardware counters (default 5); hardware events beyond them read 0 (silently)
    FAKE_PERF_UNSUPPORTED  comma list of events reported <not supported>
    FAKE_PERF_BREAKER    an event that zeroes the other hardware events of its run (raw FP events)
    FAKE_PERF_FLAKY      a file counting invocations; every 3rd run is multiplexed (percent 60)
    FAKE_PERF_MPX        "always": every run multiplexed
    FAKE_PERF_NOT_COUNTED  a file counting invocations; every 3rd run prints its hardware events
                         <not counted> with running time 0 (a group the free counters could not hold)
    FAKE_PERF_SLEEP      seconds to sleep per run (kill tests)
    FAKE_PERF_EXEC_PATH  perf's exec folder put first on the workload's PATH (default /nonexistent/perf-core)
    FAKE_PERF_NO_RUN     "1": do not run the workload
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
import zlib

SOFTWARE = {"task-clock", "page-faults", "context-switches", "cpu-migrations", "minor-faults", "major-faults"}


def run_workload(workload):
    """Run the workload as perf does; return perf's exit code."""
    if not workload or os.environ.get("FAKE_PERF_NO_RUN") == "1":
        return 0
    argv0 = os.environ.pop("FAKE_PERF_ARGV0", "")
    front = [os.environ.get("FAKE_PERF_EXEC_PATH", "/nonexistent/perf-core")]
    if "/" in argv0:
        front.append(os.path.dirname(argv0))
    env = dict(os.environ)
    env["PATH"] = ":".join([*front, env.get("PATH", "")])
    try:
        proc = subprocess.run(workload, env=env, stdin=subprocess.DEVNULL)
    except OSError:
        sys.stderr.write("Workload failed: No such file or directory\n")
        return 255
    if proc.returncode < 0:
        sys.stderr.write(f"{workload[0]}: {signal.strsignal(-proc.returncode)}\n")
        return 0
    return proc.returncode


def main(argv):
    if argv[:1] == ["--version"]:
        print("perf version 0.fake")
        return 0
    assert argv[0] == "stat", argv
    out, fmt, events = None, "csv", []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--":
            break
        if a == "-o":
            out = argv[i + 1]
            i += 1
        elif a == "-j":
            fmt = "json"
        elif a == "-e":
            events = [e.strip("{}") for e in argv[i + 1].split(",")]
            i += 1
        i += 1
    workload = argv[i + 1 :]
    time.sleep(float(os.environ.get("FAKE_PERF_SLEEP", "0")))
    code = run_workload(workload)
    counters = int(os.environ.get("FAKE_PERF_COUNTERS", "5"))
    unsupported = set(filter(None, os.environ.get("FAKE_PERF_UNSUPPORTED", "").split(",")))
    breaker = os.environ.get("FAKE_PERF_BREAKER")
    percent = 100.0
    flaky = os.environ.get("FAKE_PERF_FLAKY")
    if flaky:
        n = int(open(flaky).read() or 0) if os.path.exists(flaky) else 0
        open(flaky, "w").write(str(n + 1))
        if n % 3 == 2:
            percent = 60.0
    if os.environ.get("FAKE_PERF_MPX") == "always":
        percent = 60.0
    missed = False
    not_counted = os.environ.get("FAKE_PERF_NOT_COUNTED")
    if not_counted:
        n = int(open(not_counted).read() or 0) if os.path.exists(not_counted) else 0
        open(not_counted, "w").write(str(n + 1))
        missed = n % 3 == 2
    rng = random.Random()
    hw_seen = 0
    lines = []
    for e in events:
        base = 1e5 + (zlib.crc32(e.encode()) % 1000) * 1e4
        value = base * (1 + 0.02 * rng.random())
        status = None
        if e in unsupported:
            status = "<not supported>"
        elif e not in SOFTWARE and ":" not in e:
            hw_seen += 1
            if hw_seen > counters or (breaker and breaker in events and e != breaker):
                value = 0.0
            if missed:
                status = "<not counted>"
        v = status or (f"{value:.2f}" if e == "task-clock" else str(int(value)))
        run_ns, pct = (0, 0.0) if status == "<not counted>" else (1000000, percent)
        if fmt == "csv":
            lines.append(f"{v},{'msec' if e == 'task-clock' else ''},{e},{run_ns},{pct:.2f},,")
        else:
            lines.append(
                json.dumps(
                    {
                        "counter-value": v,
                        "unit": "",
                        "event": e,
                        "event-runtime": run_ns,
                        "pcnt-running": pct,
                        "metric-value": 0,
                        "metric-unit": "",
                    }
                )
            )
    with open(out, "w") as f:
        f.write("# started on fake\n\n" + "\n".join(lines) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
