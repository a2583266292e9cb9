"""``machines_check(readings, hosts)``: whether the machines of one collection read alike, event by event.

A plan collected on several machines (``hemkit collect --cluster``, ``--shard`` parts on
cluster nodes) is merged as if every run came from one distribution.  This checks it: per
event (every group's readings of it pooled, as :func:`hemkit.compare.compare` pools them), the
readings of each host against those of the others, with the compare machinery of
:mod:`hemkit.core.stats`:

- two hosts: one Brunner-Munzel test per event (its permutation p-value for few runs or
  heavily tied counts), the host with fewer runs against the one with more;
- k > 2 hosts: each host against the other hosts pooled (k tests per event);
- Benjamini-Hochberg across all (event, host) tests at ``1 - level``; a host *differs* on an
  event where its adjusted p-value is at most ``1 - level`` (or where both sides are one
  value each, and different);
- the size: the ratio of the host's median to the others' with a percentile-bootstrap
  interval (:func:`hemkit.core.stats.median_ratio`);
- the margin (``margin``, default :data:`HOSTS_MARGIN`): a host differs only where it is
  flagged and its ratio interval lies wholly outside ``[1 / (1 + margin), 1 + margin]``
  (:func:`hemkit.compare.limits.verdicts`), so that hosts alike to a size that does not matter
  are not named however many runs show it.

A host with fewer than ``MIN_RUNS`` (5) readings of an event (or others with
fewer) is not tested on it, and the table says so.  Calibration (A/A splits of real runs into
fake hosts, injected shifts, a real program given another input on one "host"):
``benchmarks/machines_check.py`` and BENCHMARKS.md.

With k > 2 hosts, a host that differs by a factor ``f`` is among the pooled others of every
other host and moves them (by up to ``f`` to the power of its share of them), so with a large
difference the other hosts may be flagged too, with a smaller ratio on the other side of 1:
those rows name it in ``moved_by``, and ``differing(moved=False)`` leaves them out.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from hemkit.compare.limits import FEW_RUNS, MIN_RUNS, check_level, check_margin, mostly_zero_note, verdicts
from hemkit.core.errors import HemkitWarning, InputError
from hemkit.core.numbers import format_percent
from hemkit.core.readings import Readings
from hemkit.core.results import Result, result
from hemkit.core.rng import SeedLike, child
from hemkit.core.stats import brunner_munzel, fdr_bh, median_ratio, sort_samples

if TYPE_CHECKING:
    import pandas as pd

#: the relative difference between hosts the machines check counts by default (BENCHMARKS.md, issue 25)
HOSTS_MARGIN = 0.005
#: the host of runs whose host is not known (a collection written before hosts were stored)
UNKNOWN = "(unknown)"
#: what a hosts frame may say of each host besides its name (:func:`hemkit.io.run_machines`)
DESCRIBED = ("cpu_model", "kernel", "perf_version")
#: the columns of :meth:`MachinesCheck.to_frame`
COLUMNS = (
    "event",
    "host",
    "against",
    "runs",
    "median",
    "other_runs",
    "other_median",
    "ratio",
    "lower",
    "upper",
    "difference",
    "p_value",
    "q_value",
    "differs",
    "moved_by",
    "note",
)


def _key(value: Any) -> str:
    """A group or run id as text, so that ``1``, ``np.int64(1)`` and ``"1"`` meet."""
    return str(value.item() if isinstance(value, np.generic) else value)


def _host_name(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return UNKNOWN
    text = str(value).strip()
    return text or UNKNOWN


def _host_of_runs(readings: Readings, hosts: Any) -> tuple[dict[Any, np.ndarray], list[str]]:
    """Per group, each run's host (as an index into the sorted host names), and those names."""
    import pandas as pd

    if not isinstance(hosts, pd.DataFrame):
        raise InputError(
            f"hosts must be a DataFrame with columns group, run, host (hemkit.io.run_machines), "
            f"got {type(hosts).__name__}"
        )
    missing = [c for c in ("group", "run", "host") if c not in hosts.columns]
    if missing:
        raise InputError(
            f"hosts has no column {missing[0]!r}; it needs the columns group, run, host "
            f"(it has {', '.join(map(str, hosts.columns)) or 'none'})"
        )
    where: dict[tuple[str, str], str] = {}
    for g, r, h in zip(hosts["group"].tolist(), hosts["run"].tolist(), hosts["host"].tolist()):
        key, name = (_key(g), _key(r)), _host_name(h)
        if where.setdefault(key, name) != name:
            raise InputError(
                f"hosts names two hosts for run {r!r} of group {g!r} ({where[key]!r} and {name!r}); "
                "a run is measured on one host"
            )
    by_group: dict[Any, list[str]] = {}
    unknown: list[tuple[Any, Any]] = []
    for gid, grp in readings.arrays.items():
        gk = _key(gid)
        names = []
        for run in grp.runs.tolist():
            found = where.get((gk, _key(run)))
            if found is None:
                unknown.append((gid, run))
            names.append(found or UNKNOWN)
        by_group[gid] = names
    if unknown:
        gid, run = unknown[0]
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise InputError(
            f"hosts has no row for run {run!r} of group {gid!r}{more}; it needs the host of every run of the "
            "readings (hemkit.io.run_machines of the same databases)"
        )
    names = sorted({n for v in by_group.values() for n in v})
    index = {n: i for i, n in enumerate(names)}
    return {gid: np.array([index[n] for n in v], dtype=np.int64) for gid, v in by_group.items()}, names


def _described(hosts: pd.DataFrame) -> Mapping[str, Mapping[str, str]]:
    """Host -> its cpu_model, kernel and perf_version as the hosts frame gives them (distinct values joined)."""
    cols = [c for c in DESCRIBED if c in hosts.columns]
    out: dict[str, dict[str, list[str]]] = {}
    names = [_host_name(h) for h in hosts["host"].tolist()]
    for c in cols:
        for name, value in zip(names, hosts[c].tolist()):
            if value is None or (isinstance(value, float) and math.isnan(value)) or str(value) == "":
                continue
            seen = out.setdefault(name, {}).setdefault(c, [])
            if str(value) not in seen:
                seen.append(str(value))
    return MappingProxyType({h: MappingProxyType({c: " | ".join(v) for c, v in d.items()}) for h, d in out.items()})


def _per_host(readings: Readings, codes: Mapping[Any, np.ndarray], k: int) -> dict[str, list[np.ndarray]]:
    """Each event's readings on each host (pooled over groups; unsorted)."""
    out: dict[str, list[list[np.ndarray]]] = {e: [[] for _ in range(k)] for e in readings.events}
    for gid, grp in readings.arrays.items():
        code = codes[gid]
        rows = [np.flatnonzero(code == h) for h in range(k)]
        for j, event in enumerate(grp.events):
            column = grp.values[:, j]
            for h in range(k):
                out[event][h].append(column[rows[h]])
    return {
        e: [np.concatenate(parts).astype(np.float64, copy=False) if parts else np.empty(0) for parts in per]
        for e, per in out.items()
    }


def _note(basis: str, host: np.ndarray, other: np.ndarray, differs: bool, lower: float, upper: float) -> str:
    notes = []
    if basis == "constant":
        same = host[0] == other[0]
        notes.append(
            f"constant ({host[0]:g}) on both sides: alike"
            if same
            else f"constant on each side ({host[0]:g} here, {other[0]:g} on the others): differs, without noise"
        )
    elif basis == "mean":
        notes.append(mostly_zero_note(host, other, lower, upper, ("this host", "the others")))
    elif basis == "zero":
        notes.append("0 in every run of the others: ratio infinite" if other[-1] == 0 else "0 in every run here")
    if differs and basis == "median" and lower <= 1.0 <= upper:
        notes.append("differs in spread or shape: the medians' ratio interval holds 1")
    if min(len(host), len(other)) < FEW_RUNS:
        notes.append(f"fewer than {FEW_RUNS} runs a side: only large differences can be seen")
    return "; ".join(notes)


@result
class MachinesCheck(Result):
    """Whether the hosts of a collection read alike, event by event (:func:`machines_check`).

    Attributes
    ----------
    table : DataFrame
        One row per (event, host) test, columns :data:`COLUMNS` (see :meth:`to_frame`); empty
        for one host.
    runs : mapping
        Host -> runs of the readings measured on it (every host, sorted by name).
    level : float
        Interval level; ``differs`` controls the false discovery rate across all tests at
        ``1 - level``.
    tests : int
        Tests made (the rows of :attr:`table` with a p-value).
    machines : mapping
        Host -> what ``hosts`` said of it besides its name (``cpu_model``, ``kernel``,
        ``perf_version`` where given; several values joined by `` | ``).
    margin : float
        The relative difference that counts: a host differs only where its ratio interval
        also lies wholly outside ``[1 / (1 + margin), 1 + margin]``.

    Examples
    --------
    Three hosts measured the same program; host ``c`` reads 5 % more cycles:

    >>> import numpy as np, pandas as pd
    >>> from hemkit import Readings
    >>> from hemkit.compare import machines_check
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(1e6, 1e4, 90) * np.repeat([1.0, 1.0, 1.05], 30)
    >>> r = Readings({1: pd.DataFrame({"cycles": x, "faults": rng.poisson(500, 90)})})
    >>> hosts = pd.DataFrame({"group": 1, "run": range(90), "host": np.repeat(["a", "b", "c"], 30)})
    >>> check = machines_check(r, hosts, margin=0)
    >>> check.hosts, check.tests, dict(check.runs)
    (['a', 'b', 'c'], 6, {'a': 30, 'b': 30, 'c': 30})

    ``c`` differs; counting any difference (``margin=0``), ``a`` and ``b`` are flagged too because
    ``c`` is among the hosts they are compared with (``moved_by``), so ``moved=False`` names the
    host to look at:

    >>> [(e, h, round(r, 2)) for e, h, r in check.differing(moved=False)]
    [('cycles', 'c', 1.05)]
    >>> t = check.to_frame()
    >>> t.loc[t["event"] == "cycles", ["host", "differs", "moved_by"]].values.tolist()
    [['a', True, 'c'], ['b', True, 'c'], ['c', True, '']]

    At the default margin (:data:`HOSTS_MARGIN`, 0.5 %) a difference counts only where its
    interval lies wholly beyond 0.5 %; ``b``'s (x0.984 of the pool holding ``c``, its interval
    reaching 1.0003) does not:

    >>> t = machines_check(r, hosts).to_frame()
    >>> t.loc[t["event"] == "cycles", ["host", "differs", "moved_by"]].values.tolist()
    [['a', True, 'c'], ['b', False, ''], ['c', True, '']]
    """

    table: pd.DataFrame
    runs: Mapping[str, int]
    level: float
    tests: int
    machines: Mapping[str, Mapping[str, str]]
    margin: float = 0.0

    @property
    def hosts(self) -> list[str]:
        """The hosts, sorted by name."""
        return list(self.runs)

    @property
    def one_host(self) -> bool:
        """Whether every run came from one host (nothing to test)."""
        return len(self.runs) < 2

    def to_frame(self) -> pd.DataFrame:
        """One row per (event, host): the host's readings of the event against the others'.

        Columns: ``event``, ``host``, ``against`` (the other host, for two hosts; ``others``
        for more), ``runs`` and ``median`` of the host, ``other_runs`` and ``other_median`` of
        what it is compared with (the grouped median for counts tied at the median, as
        :func:`hemkit.compare.compare` reports it), ``ratio`` (``median / other_median``; of
        the means where a median is 0) with its interval ``lower``, ``upper`` at ``level``,
        ``difference`` (``median - other_median``), ``p_value`` (Brunner-Munzel), ``q_value``
        (Benjamini-Hochberg across all tests), ``differs`` (``q_value <= 1 - level``, and with a
        :attr:`margin` ``m`` the interval wholly outside ``[1 / (1 + m), 1 + m]``), and
        ``moved_by`` (more than two hosts: the host that differs most on this event, where this
        host is flagged with a smaller ratio on the other side of 1 -- that host is among the
        others it is compared with, and moves them; else empty), ``note`` (why a row is not
        tested: too few runs; constant readings; ...).  Rows not tested have NaN p-values and
        ``differs`` False.
        """
        return self.table.copy()

    def runs_per_host(self) -> pd.DataFrame:
        """Runs measured on each host (index ``host``, column ``runs``, and the :attr:`machines` columns)."""
        import pandas as pd

        data: dict[str, list[Any]] = {"runs": list(self.runs.values())}
        for c in DESCRIBED:
            if any(c in self.machines.get(h, {}) for h in self.runs):
                data[c] = [self.machines.get(h, {}).get(c, "") for h in self.runs]
        return pd.DataFrame(data, index=pd.Index(list(self.runs), name="host"))

    @property
    def untested(self) -> list[tuple[str, str, str]]:
        """(event, host, why) of every pair not tested (too few runs of the event on a side)."""
        t = self.table
        skip = t["p_value"].isna()
        return list(zip(t.loc[skip, "event"], t.loc[skip, "host"], t.loc[skip, "note"]))

    def differing(self, *, moved: bool = True) -> list[tuple[str, str, float]]:
        """(event, host, ratio of its median to the others') of every test that differs, largest first.

        ``moved=False`` leaves out the rows moved by another host that differs more on the same
        event (``moved_by``, see :meth:`to_frame`): the hosts to look at.
        """
        keep = self.table["differs"].to_numpy(dtype=bool)
        if not moved:
            keep = keep & (self.table["moved_by"] == "").to_numpy()
        t = self.table[keep]
        size = np.abs(np.log(np.clip(t["ratio"].to_numpy(dtype=np.float64), 1e-300, 1e300)))
        order = np.argsort(-size, kind="stable")
        rows = list(zip(t["event"], t["host"], t["ratio"].astype(float)))
        return [rows[i] for i in order]

    def messages(self, limit: int = 10) -> list[str]:
        """One line per (host, event) that differs, largest first (at most ``limit``, then how many more)."""
        t = self.table[self.table["differs"].to_numpy(dtype=bool)].set_index(["event", "host"])
        lines = []
        found = self.differing()
        for event, host, ratio in found[:limit]:
            row = t.loc[(event, host)]
            against = f"host {row['against']!r}" if row["against"] != "others" else "the other hosts"
            moved = f"; moved by host {row['moved_by']!r}, which differs more" if row["moved_by"] else ""
            lines.append(
                f"host {host!r} reads {event!r} x{ratio:.4g} [{row['lower']:.4g}, {row['upper']:.4g}] of "
                f"{against} (median {row['median']:.6g} against {row['other_median']:.6g}, "
                f"FDR-adjusted p = {row['q_value']:.2g}{moved})"
            )
        if len(found) > limit:
            lines.append(f"... and {len(found) - limit} more (event, host) pairs that differ")
        return lines

    def row(self) -> dict[str, Any]:
        """The numbers of :meth:`summary` as a dict."""
        found = self.differing()
        runs = list(self.runs.values())
        largest = "one host: nothing to compare" if self.one_host else "none"
        if found:
            event, host, ratio = found[0]
            largest = f"{event} on {host} x{ratio:.4g}"
        return {
            "hosts": len(self.runs),
            "runs_per_host": f"{min(runs)}-{max(runs)}" if runs else "0",
            "events": int(self.table["event"].nunique()) if len(self.table) else 0,
            "tests": self.tests,
            "untested": len(self.untested),
            "differ": len(found),
            "moved_by_another": len(found) - len(self.differing(moved=False)),
            "hosts_differing": len({h for _, h, _ in self.differing(moved=False)}),
            "level": self.level,
            "margin": self.margin,
            "largest_difference": largest,
        }

    def summary(self) -> pd.DataFrame:
        """One row: hosts, runs per host, events, tests, pairs not tested, pairs that differ, the largest."""
        import pandas as pd

        return pd.DataFrame([self.row()], index=pd.Index(["machines"], name="result"))

    def line(self) -> str:
        """One sentence: the hosts and their runs, and what differs."""
        hosts = ", ".join(f"{h} {n}" for h, n in self.runs.items())
        if self.one_host:
            return f"machines check: one host ({hosts} runs): nothing to compare"
        found = self.differing()
        said = f"{len(self.runs)} hosts ({hosts} runs), {self.tests} tests"
        if self.untested:
            said += f" ({len(self.untested)} (event, host) pairs with too few runs not tested)"
        at = f"FDR {1 - self.level:.2g}" + (f", margin {format_percent(self.margin)}" if self.margin else "")
        if not found:
            return f"machines check: {said}: no host differs ({at})"
        own = self.differing(moved=False)
        shown = ", ".join(f"{e} on {h} x{r:.4g}" for e, h, r in own[:3])
        more = f" ... ({len(own)} in all)" if len(own) > 3 else ""
        moved = len(found) - len(own)
        also = f"; {moved} more flagged because such a host is among the others they are compared with" if moved else ""
        return f"machines check: {said}: {len(own)} differ ({at}): {shown}{more}{also}"


def _table(rows: list[dict[str, Any]], cols: Mapping[str, np.ndarray], notes: list[str]) -> pd.DataFrame:
    """The per-(event, host) table of :class:`MachinesCheck` (columns :data:`COLUMNS`)."""
    import pandas as pd

    n = len(rows)
    data: dict[str, Any] = {c: np.array([r[c] for r in rows], dtype=object) for c in ("event", "host", "against")}
    data["runs"] = np.array([r["runs"] for r in rows], dtype=np.int64)
    data["other_runs"] = np.array([r["other_runs"] for r in rows], dtype=np.int64)
    for c in ("median", "other_median", "ratio", "lower", "upper", "difference", "p_value", "q_value"):
        data[c] = cols.get(c, np.full(n, np.nan))
    data["differs"] = cols.get("differs", np.zeros(n, dtype=bool))
    data["moved_by"] = np.array([""] * n, dtype=object)
    data["note"] = np.array(notes, dtype=object)
    table = pd.DataFrame(data, columns=list(COLUMNS))
    _mark_moved(table)
    return table


def _mark_moved(table: pd.DataFrame) -> None:
    """Per event, the flagged hosts moved the other way by the host that differs most on it (k > 2).

    Each host is compared with the others pooled, so a host reading an event ``f`` times the
    rest moves every other host's pool: they may be flagged too, with a smaller ratio on the
    other side of 1.  Such a row gets that host's name in ``moved_by`` and a note.
    """
    flagged = table[table["differs"].to_numpy(dtype=bool) & (table["against"] == "others")]
    for _, rows in flagged.groupby("event", sort=False):
        if len(rows) < 2:
            continue
        logr = np.log(np.clip(rows["ratio"].to_numpy(dtype=np.float64), 1e-300, 1e300))
        top = int(np.argmax(np.abs(logr)))
        name, ratio = rows["host"].iloc[top], rows["ratio"].iloc[top]
        for i, idx in enumerate(rows.index):
            if i != top and logr[i] * logr[top] < 0 and abs(logr[i]) < abs(logr[top]):
                table.loc[idx, "moved_by"] = name
                said = f"moved by host {name!r} (x{ratio:.4g} on this event), which is among the others here"
                old = table.loc[idx, "note"]
                table.loc[idx, "note"] = f"{old}; {said}" if old else said


def machines_check(
    readings: Readings,
    hosts: pd.DataFrame,
    *,
    level: float = 0.95,
    seed: SeedLike = 0,
    margin: float = HOSTS_MARGIN,
) -> MachinesCheck:
    """Test, per event, whether the readings of each host come from the distribution of the others'.

    Parameters
    ----------
    readings : Readings
        The pooled readings of a collection (one or several databases).
    hosts : DataFrame
        Columns ``group``, ``run``, ``host``: the host of every run of ``readings``
        (:func:`hemkit.io.run_machines`; group and run ids as the readings name
        them; further rows and columns are ignored; a missing host is ``"(unknown)"``).
    level : float in (0, 1), default 0.95
        Level of the ratio intervals; a host differs on an event where the
        Benjamini-Hochberg adjusted p-value across all (event, host) tests is at most
        ``1 - level``.
    seed : int, Generator or None, default 0
        Randomness of the permutation p-values and of the bootstrap intervals.
    margin : float in [0, 1), default HOSTS_MARGIN
        The relative difference that counts (0.01: 1 %): a flagged host differs only where its
        ratio interval lies wholly outside ``[1 / (1 + margin), 1 + margin]``; 0 counts any
        difference the runs can see.

    Returns
    -------
    MachinesCheck
        With one host, a check with no test (:attr:`MachinesCheck.one_host`).

    Raises
    ------
    InputError
        ``hosts`` not a DataFrame with those columns, a run of the readings without a row in
        it, a run given two hosts, ``level`` or ``margin`` out of range.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hemkit import Readings
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(1e6, 1e4, 90) * np.repeat([1.0, 1.0, 1.05], 30)  # host c reads 5 % more
    >>> r = Readings({1: pd.DataFrame({"cycles": x, "faults": rng.poisson(500, 90)})})
    >>> hosts = pd.DataFrame({"group": 1, "run": range(90), "host": np.repeat(["a", "b", "c"], 30)})
    >>> check = machines_check(r, hosts)
    >>> [(e, h, round(x, 2)) for e, h, x in check.differing()][:1]
    [('cycles', 'c', 1.05)]
    """
    level = check_level(level)
    margin = check_margin(margin)
    if not isinstance(readings, Readings):
        raise InputError(
            f"readings must be Readings (hemkit.io.read_readings reads any file), got {type(readings).__name__}"
        )
    codes, names = _host_of_runs(readings, hosts)
    k = len(names)
    counts = np.zeros(k, dtype=np.int64)
    for code in codes.values():
        counts += np.bincount(code, minlength=k)
    runs = MappingProxyType({n: int(c) for n, c in zip(names, counts)})
    if k < 2:
        return MachinesCheck(
            table=_table([], {}, []), runs=runs, level=level, tests=0, machines=_described(hosts), margin=margin
        )
    samples = _per_host(readings, codes, k)
    # two hosts: one test, the host with fewer runs against the other; more: each against the rest
    reference = int(np.lexsort((np.arange(k), -counts))[0])
    rows: list[dict[str, Any]] = []
    host_side: list[np.ndarray] = []
    other_side: list[np.ndarray] = []
    for event in readings.events:
        per = samples[event]
        pairs = [(h, [reference]) for h in range(k) if h != reference] if k == 2 else [(h, None) for h in range(k)]
        for h, against in pairs:
            others = [j for j in range(k) if j != h] if against is None else against
            other = per[others[0]] if len(others) == 1 else np.concatenate([per[j] for j in others])
            row = {
                "event": event,
                "host": names[h],
                "against": names[others[0]] if k == 2 else "others",
                "runs": len(per[h]),
                "other_runs": len(other),
            }
            if min(len(per[h]), len(other)) < MIN_RUNS:
                side = "this host" if len(per[h]) < MIN_RUNS else "the others"
                row["note"] = (
                    f"not tested: {min(len(per[h]), len(other))} run(s) of the event on {side} "
                    f"(a test needs {MIN_RUNS} on each side)"
                )
            else:
                row["test"] = len(host_side)
                host_side.append(per[h])
                other_side.append(other)
            rows.append(row)
    m = len(host_side)
    nan = np.full(len(rows), np.nan)
    cols: dict[str, Any] = {c: nan.copy() for c in ("median", "other_median", "ratio", "lower", "upper")}
    cols.update(difference=nan.copy(), p_value=nan.copy(), q_value=nan.copy(), differs=np.zeros(len(rows), bool))
    notes = [r.get("note", "") for r in rows]
    if m:
        hs, os_ = sort_samples(host_side), sort_samples(other_side)
        alpha = 1.0 - level
        p, _ = brunner_munzel(os_, hs, method="auto", resolution=alpha / m, seed=child(seed, "test"))
        ratios = median_ratio(os_, hs, level=level, seed=child(seed, "ratios"))
        q = fdr_bh(p)
        constant = ratios.basis == "constant"
        flagged = (q <= alpha) | (constant & (ratios.median_a != ratios.median_b))
        differs, _ = verdicts(flagged, ratios.lower, ratios.upper, margin)
        for i, r in enumerate(rows):
            if "test" not in r:
                continue
            j = r["test"]
            cols["median"][i], cols["other_median"][i] = ratios.median_b[j], ratios.median_a[j]
            cols["ratio"][i], cols["lower"][i], cols["upper"][i] = ratios.ratio[j], ratios.lower[j], ratios.upper[j]
            cols["difference"][i] = ratios.median_b[j] - ratios.median_a[j]
            cols["p_value"][i], cols["q_value"][i], cols["differs"][i] = p[j], q[j], bool(differs[j])
            notes[i] = _note(
                str(ratios.basis[j]), hs[j], os_[j], bool(differs[j]), float(ratios.lower[j]), float(ratios.upper[j])
            )
            if flagged[j] and not differs[j]:
                within = f"the test sees a difference, not shown to exceed the {format_percent(margin)} margin"
                notes[i] = f"{notes[i]}; {within}" if notes[i] else within
    return MachinesCheck(
        table=_table(rows, cols, notes), runs=runs, level=level, tests=m, machines=_described(hosts), margin=margin
    )


def _one_host(readings: Readings, used: Sequence[Any]) -> pd.DataFrame:
    """The hosts frame of readings all measured on one host, described by the machines it ran as."""
    import pandas as pd

    keys = [(gid, run) for gid, g in readings.arrays.items() for run in g.runs.tolist()]
    frame = pd.DataFrame(keys, columns=["group", "run"])
    for c in ("host", *DESCRIBED):
        frame[c] = " | ".join(dict.fromkeys(str(getattr(m, c)) for m in used)) if used else ""
    return frame


def collection_machines(
    sources: Sequence[str | os.PathLike[str]],
    readings: Readings | None = None,
    *,
    level: float = 0.95,
    seed: SeedLike = 0,
    warn: bool = False,
    margin: float = HOSTS_MARGIN,
) -> MachinesCheck | None:
    """The machines check of one collection (one or several databases), or None for any other input.

    When every one of ``sources`` is a collection database (or a folder of them), the hosts of its runs are read
    with :func:`hemkit.io.run_machines` and :func:`machines_check` is run (also
    with one host: :attr:`MachinesCheck.one_host`); other inputs name no host: None.

    Parameters
    ----------
    sources : sequence of paths
        What ``readings`` were read from (:func:`hemkit.io.read_readings`).
    readings : Readings, optional
        The readings of ``sources``; None: their valid runs are read here (groups of any
        number of runs, machines of another CPU model or kernel with a warning, as
        ``hemkit collect --status`` needs them).
    level, seed, margin
        As :func:`machines_check` takes them.
    warn : bool, default False
        Also say each (host, event) that differs (not moved by another host) as a
        :class:`~hemkit.core.errors.HemkitWarning`: one line each, at most 10 and a line saying
        how many more (what ``hemkit merge`` shows when it pools such readings).

    Examples
    --------
    >>> collection_machines(["runs/"]) is None  # doctest: +SKIP
    True
    """
    from hemkit.io.readings import database_files

    found = database_files(list(sources)) if sources else None
    if not found:
        return None
    paths: list[str | os.PathLike[str]] = list(found)
    from hemkit.io.collection import CollectionDB, load_collections, run_machines

    used = []
    for p in paths:
        with CollectionDB(p) as db:
            used += db.machines_used()
    if readings is None:  # runs of machines of another kind are said (a warning), not refused: this is the check
        readings = load_collections(paths, min_runs=1, allow_mixed_machines=True)
    if len({_host_name(m.host) for m in used}) < 2:  # one host: every run is its (no need to read them all again)
        check = machines_check(readings, _one_host(readings, used), level=level, seed=seed, margin=margin)
    else:
        check = machines_check(readings, run_machines(paths), level=level, seed=seed, margin=margin)
    if warn:
        import warnings

        own = check.differing(moved=False)
        for event, host, ratio in own[:10]:
            row = check.table[(check.table["event"] == event) & (check.table["host"] == host)].iloc[0]
            against = f"host {row['against']!r}" if row["against"] != "others" else "the other hosts"
            warnings.warn(
                f"pooling readings that differ by host: host {host!r} reads {event!r} x{ratio:.4g} "
                f"[{row['lower']:.4g}, {row['upper']:.4g}] of {against} (FDR-adjusted p = {row['q_value']:.2g})",
                HemkitWarning,
                stacklevel=2,
            )
        if len(own) > 10:
            warnings.warn(
                f"pooling readings that differ by host: {len(own) - 10} more (event, host) pairs differ "
                "(hemkit report shows them all)",
                HemkitWarning,
                stacklevel=2,
            )
    return check


@result
class CollectionCheck(Result):
    """Where a collection stands and whether its hosts read alike, from one moment (:func:`collection_check`).

    Attributes
    ----------
    path : str
        The collection database.
    command : tuple of str
        The measured command.
    groups : DataFrame
        Per group: ``group``, ``events``, ``valid`` and ``invalid`` runs, ``target``,
        ``last_invalid_reason``.
    machines : MachinesCheck or None
        The machines check of its valid runs (runs per host, events that differ by host);
        None before the first valid run, or where the readings could not be checked
        (:attr:`not_checked` says why).
    not_checked : str
        Why the machines were not checked ("" where they were, or there is no valid run).
    folder : str or None
        The folder the command runs in, as stored (None: a database made before hemkit stored it).

    Examples
    --------
    >>> res = collection_check("c.db")  # doctest: +SKIP
    >>> res.stored == sum(res.machines.runs.values())  # doctest: +SKIP
    True
    """

    path: str
    command: tuple
    groups: pd.DataFrame
    machines: MachinesCheck | None
    not_checked: str
    folder: str | None = None

    @property
    def valid(self) -> int:
        """Valid runs, counted up to the target of each group (as ``hemkit.collect.CollectResult.valid``)."""
        return int(self.groups["valid"].clip(upper=self.groups["target"]).sum())

    @property
    def stored(self) -> int:
        """Every valid run stored (a group may hold more than its target)."""
        return int(self.groups["valid"].sum())

    @property
    def wanted(self) -> int:
        """Valid runs the collection wants in all (this shard's part of the plan's runs, for a shard)."""
        return int(self.groups["target"].sum())

    @property
    def invalid(self) -> int:
        """Runs stored as invalid."""
        return int(self.groups["invalid"].sum())

    def row(self) -> dict[str, Any]:
        """The numbers of :meth:`summary` as a dict."""
        m = self.machines
        return {
            "groups": len(self.groups),
            "valid": self.valid,
            "wanted": self.wanted,
            "invalid": self.invalid,
            "hosts": len(m.runs) if m is not None else 0,
            "hosts_differing": len({h for _, h, _ in m.differing(moved=False)}) if m is not None else 0,
        }

    def summary(self) -> pd.DataFrame:
        """One row: groups, valid runs (to each group's target), runs wanted, invalid runs, hosts, hosts differing."""
        import pandas as pd

        return pd.DataFrame([self.row()], index=pd.Index([self.path], name="collection"))

    def line(self) -> str:
        """``DB: N of M runs valid (P%), K invalid``."""
        if not self.wanted:
            return f"{self.path}: no runs planned"
        share = f"{self.valid / self.wanted:.0%}"
        return f"{self.path}: {self.valid} of {self.wanted} runs valid ({share}), {self.invalid} invalid"


def collection_check(
    db_path: str | os.PathLike[str], *, level: float = 0.95, seed: SeedLike = 0, margin: float = HOSTS_MARGIN
) -> CollectionCheck:
    """Where a collection stands (runs per group) and its machines check, read at one moment.

    What ``hemkit collect --status`` shows.  The database may be being written by a
    collector: the runs per group and the runs per host are read in one read transaction
    (:func:`hemkit.io.collection.status_snapshot`), so they count the same runs.

    Parameters
    ----------
    db_path : path
        A collection database.
    level, seed, margin
        As :func:`machines_check` takes them.

    Returns
    -------
    CollectionCheck

    Raises
    ------
    InputError
        A database :class:`hemkit.io.collection.CollectionDB` refuses, or a run that does
        not match its checksum.

    Examples
    --------
    >>> collection_check("c.db").line()  # doctest: +SKIP
    'c.db: 60 of 60 runs valid (100%), 0 invalid'
    """
    from hemkit.core.errors import HemkitError
    from hemkit.io.collection import status_snapshot

    snap = status_snapshot(db_path)
    check, why = None, ""
    if len(snap.tidy):
        try:
            readings = Readings.from_tidy(snap.tidy, source=str(snap.path), min_runs=1)
            check = machines_check(readings, snap.machines, level=level, seed=seed, margin=margin)
        except HemkitError as exc:
            why = str(exc)
    command = tuple(str(c) for c in snap.meta.get("command") or [])
    folder = snap.meta.get("folder")
    return CollectionCheck(
        path=os.fspath(db_path),
        command=command,
        groups=snap.status,
        machines=check,
        not_checked=why,
        folder=str(folder) if folder is not None else None,
    )


__all__ = [
    "COLUMNS",
    "DESCRIBED",
    "HOSTS_MARGIN",
    "UNKNOWN",
    "CollectionCheck",
    "MachinesCheck",
    "collection_check",
    "collection_machines",
    "machines_check",
]
