"""What the kernel says about this machine's counters: the files under /proc, /sys and /dev/kmsg.

Counter thieves and limits that perf does not report in its output (issue 27 item 3):

- ``/proc/sys/kernel/nmi_watchdog``: 1 when the hard-lockup detector runs on perf; it keeps
  one hardware counter busy on every CPU, so one counter fewer is free for events (what
  toplev and likwid warn about).  ``sysctl kernel.nmi_watchdog=0`` frees it until reboot.
- ``/proc/sys/kernel/perf_event_paranoid``: above 1 an unprivileged user counts only user
  space (perf turns ``cycles`` into ``cycles:u``) and cannot count CPU-wide; above 2 (Debian
  and Android kernels) not at all.  Root (or ``CAP_PERFMON``) is not limited.
- ``/sys/bus/event_source/devices/*/cpus`` of the core PMUs: a hybrid CPU has one core PMU
  per core type (``cpu_core``: P cores, ``cpu_atom``: E cores), each with its own CPUs.
- The kernel log's ``Performance Events:`` lines (x86): the PMU driver, or why there is none
  (``PMU not available due to virtualization``), and the nominal number of general
  (``generic registers``) and fixed counters (``fixed-purpose events``).

Every reader takes ``root`` (default ``$HEMKIT_SYSROOT`` or ``/``) so that tests can give a
machine's files without the machine.
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from hemkit.io.perf_files import is_core_pmu, split_pmu

#: where the kernel's files are read (tests substitute a folder holding proc/, sys/ and dev/kmsg)
SYSROOT_ENV = "HEMKIT_SYSROOT"
#: most kernel-log bytes read while looking for the PMU lines
_KMSG_LIMIT = 4 * 2**20


def sysroot(root: str | os.PathLike[str] | None = None) -> Path:
    """The folder the kernel's files are read under: ``root``, else ``$HEMKIT_SYSROOT``, else ``/``."""
    return Path(os.fspath(root)) if root is not None else Path(os.environ.get(SYSROOT_ENV) or "/")


def _int_file(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _kernel_log(path: Path) -> list[str]:
    """The kernel log's messages (``/dev/kmsg`` records, or a plain text copy of it); [] if unreadable."""
    out: list[str] = []
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return out
    try:
        got, pending = 0, b""
        while got < _KMSG_LIMIT:
            try:
                chunk = os.read(fd, 8192)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EPIPE:  # a record overwritten while reading: go on
                    continue
                break
            if not chunk:
                break
            got += len(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            out.extend(x.decode("utf-8", "replace") for x in lines)
        if pending:
            out.append(pending.decode("utf-8", "replace"))
    finally:
        os.close(fd)
    return [s.split(";", 1)[1] if re.match(r"^\d+,\d+,\d+,[^;]*;", s) else s for s in out]


def _after(lines: list[str], key: str) -> int | None:
    for s in lines:
        m = re.search(rf"\.\.\. {key}:\s*(\d+)", s)
        if m:
            return int(m.group(1))
    return None


@dataclass(frozen=True)
class CounterSettings:
    """The kernel settings and facts that decide how many counters perf can use here.

    Attributes
    ----------
    nmi_watchdog : int or None
        ``/proc/sys/kernel/nmi_watchdog`` (None: unreadable or absent).
    paranoid : int or None
        ``/proc/sys/kernel/perf_event_paranoid``.
    root : bool
        This process runs as root (paranoid does not limit it).
    pmu_driver : str
        The kernel log's ``Performance Events:`` line ("" when not found).
    generic, fixed : int or None
        Nominal general and fixed counters per CPU, from the kernel log (x86).
    core_pmus : dict
        Hybrid CPUs: core PMU -> its CPUs (``{"cpu_core": "0-15", "cpu_atom": "16-23"}``);
        empty on other machines.

    Examples
    --------
    >>> CounterSettings(nmi_watchdog=1, paranoid=2, root=False).lines()[0][:40]
    'the NMI watchdog is on (/proc/sys/kernel'
    """

    nmi_watchdog: int | None = None
    paranoid: int | None = None
    root: bool = False
    pmu_driver: str = ""
    generic: int | None = None
    fixed: int | None = None
    core_pmus: dict[str, str] = field(default_factory=dict)

    @property
    def watchdog_on(self) -> bool:
        """The NMI watchdog holds a counter on every CPU."""
        return bool(self.nmi_watchdog)

    @property
    def no_pmu(self) -> str:
        """Why the kernel has no hardware PMU ("" when it has one or does not say)."""
        low = self.pmu_driver.lower()
        return self.pmu_driver if ("not available" in low or "no pmu" in low) else ""

    def pmu_of_cpu(self, cpu: int) -> str:
        """The hybrid core PMU whose CPUs include ``cpu`` ("" on other machines)."""
        for pmu, cpus in self.core_pmus.items():
            if cpu in cpu_list(cpus):
                return pmu
        return ""

    def lines(self, *, hardware: bool = True) -> list[str]:
        """One line per setting that costs counters or events, with what it costs and how to change it.

        ``hardware=False``: events that take no counter are measured, so the NMI watchdog costs nothing.
        """
        out = []
        if self.watchdog_on and hardware:
            out.append(
                "the NMI watchdog is on (/proc/sys/kernel/nmi_watchdog = 1): it keeps one hardware counter busy on "
                "every CPU, so one counter fewer is free for events; 'sudo sysctl kernel.nmi_watchdog=0' frees it "
                "until reboot"
            )
        if self.paranoid is not None and not self.root:
            if self.paranoid >= 3:
                out.append(
                    f"perf_event_paranoid = {self.paranoid} and not root: this kernel lets no unprivileged user "
                    "count events; 'sudo sysctl kernel.perf_event_paranoid=1' (or run as root / with CAP_PERFMON)"
                )
            elif self.paranoid >= 2:
                out.append(
                    f"perf_event_paranoid = {self.paranoid} and not root: perf counts user space only (kernel time "
                    "and most tracepoints are not counted, cycles becomes cycles:u); "
                    "'sudo sysctl kernel.perf_event_paranoid=1' counts the kernel too"
                )
        return out


#: Intel's architectural fixed counters, in order (fixed counter 0, 1, 2, 3), as perf names their events
FIXED_EVENTS = (("instructions",), ("cycles", "cpu-cycles"), ("ref-cycles",), ("slots", "topdown-slots"))


def fixed_counter_events(events: list[str] | tuple[str, ...], settings: CounterSettings) -> list[str]:
    """The ``events`` this CPU counts on fixed counters (per the kernel log's ``fixed-purpose events``).

    A PMU-qualified name counts too (``cpu_core/instructions/``); modifiers do not change the
    counter (``cycles:u``).

    Examples
    --------
    >>> fixed_counter_events(["cycles", "branches", "cpu_core/instructions/"], CounterSettings(fixed=3))
    ['cycles', 'cpu_core/instructions/']
    >>> fixed_counter_events(["cycles"], CounterSettings(fixed=0))
    []
    """
    names = {n for group in FIXED_EVENTS[: settings.fixed or 0] for n in group}
    out = []
    for e in events:
        pmu, name = split_pmu(e)
        if (pmu in ("", "cpu") or is_core_pmu(pmu)) and name.split(":")[0] in names:
            out.append(e)
    return out


def cpu_list(text: str) -> set[int]:
    """The CPUs of a sysfs CPU list (``"0-3,8"`` -> {0, 1, 2, 3, 8}).

    Examples
    --------
    >>> sorted(cpu_list("0-2,5"))
    [0, 1, 2, 5]
    """
    out: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        try:
            out.update(range(int(lo), int(hi or lo) + 1))
        except ValueError:
            continue
    return out


def counter_settings(root: str | os.PathLike[str] | None = None) -> CounterSettings:
    """Read :class:`CounterSettings` from the kernel's files under ``root`` (see :func:`sysroot`).

    Never raises: what cannot be read is None or empty.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "proc/sys/kernel").mkdir(parents=True)
    >>> _ = (d / "proc/sys/kernel/nmi_watchdog").write_text("1\\n")
    >>> counter_settings(d).watchdog_on
    True
    """
    base = sysroot(root)
    log = _kernel_log(base / "dev" / "kmsg")
    driver = next((s.split("Performance Events:", 1)[1].strip() for s in log if "Performance Events:" in s), "")
    pmus: dict[str, str] = {}
    devices = base / "sys" / "bus" / "event_source" / "devices"
    try:
        names = sorted(p.name for p in devices.iterdir())
    except OSError:
        names = []
    for name in names:
        if is_core_pmu(name):
            try:
                pmus[name] = (devices / name / "cpus").read_text().strip()
            except OSError:
                continue
    return CounterSettings(
        nmi_watchdog=_int_file(base / "proc" / "sys" / "kernel" / "nmi_watchdog"),
        paranoid=_int_file(base / "proc" / "sys" / "kernel" / "perf_event_paranoid"),
        root=hasattr(os, "geteuid") and os.geteuid() == 0,
        pmu_driver=driver,
        generic=_after(log, "generic registers"),
        fixed=_after(log, "fixed-purpose events"),
        core_pmus=pmus if len(pmus) > 1 else {},
    )


__all__ = [
    "FIXED_EVENTS",
    "SYSROOT_ENV",
    "CounterSettings",
    "counter_settings",
    "cpu_list",
    "fixed_counter_events",
    "sysroot",
]
