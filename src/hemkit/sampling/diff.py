"""``profile_diff(a, b)``: which functions' (DSOs', commands') shares changed between two profiles.

With several recordings a side, :func:`diff_recordings` measures each share in every execution
and tests with a moderated t (the measured spread between executions shrunk toward the modelled
one, as limma does); with one a side it is :func:`profile_diff`, described here.

Per key (a symbol with its DSO, a DSO, a command or a thread) present in either profile:
``share_a``, ``share_b``, their ``difference`` with an interval at ``level``, and ``changed``
with the false discovery rate held at ``1 - level`` across keys (Benjamini-Hochberg, as
:func:`hemkit.compare.compare` does across events).

The interval and the test come from each profile's own standard error of each share (the
``se`` column of :class:`~hemkit.sampling.profile.SamplingProfile`, calibrated from the
samples in time order by the ``systematic`` method), made an error between two executions by
:func:`~hemkit.sampling.profile.execution_variance`: the ``se`` models only where the sampling
grid falls, while two profiles are two executions, in which rare events (an interrupt, a
kernel function hit once) may or may not happen and every share varies somewhat more.  So a
key seen in a few bursts has at least the binomial variance, and every variance is scaled by
:data:`~hemkit.sampling.profile.EXECUTION_SCALE` (chosen on A/A pairs of ordinary programs,
BENCHMARKS.md): ``z = difference / sqrt(var_a + var_b)``, normal.  A key absent from one
profile has share 0 there, with the variance the other profile's share would have at this
profile's number of samples (the null of no change).  Two profiles of different events or
periods are compared as shares, and the result says so.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import Fix, HemkitError, HemkitWarning, InputError
from hemkit.core.normal import ndtri
from hemkit.core.numbers import format_percent
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.results import Result, result
from hemkit.core.stats import fdr_bh, normal_sf, t_sf
from hemkit.io.perf_script import FIELDS, dso_name, recording_files
from hemkit.sampling.profile import (
    BY,
    SamplingProfile,
    execution_variance,
    key_labels,
    profile_shares,
    read_samples,
)

#: columns of :meth:`ProfileDiff.to_frame`, after the key
COLUMNS = (
    "share_a",
    "share_b",
    "difference",
    "lower",
    "upper",
    "p_value",
    "q_value",
    "changed",
    "samples_a",
    "samples_b",
    "note",
)


@result
class ProfileDiff(Result):
    """Per-key share differences between two profiles (B - A), largest first.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per key (index named ``by``), sorted by ``|difference|``: the columns of
        :data:`COLUMNS` (shares in [0, 1]; ``note`` says "only in A" / "only in B").
    level : float
    by : str
    only_a, only_b : tuple of str
        Keys sampled in one profile only.
    source_a, source_b : str
    event_a, event_b : str
        The sampling events (compared as shares where they differ).
    samples_a, samples_b : int
        Samples profiled on each side.
    period_a, period_b : float
        Mean period (events per sample) of each side: where they differ the profiles are
        still compared as shares, and the result says so.
    recordings_a, recordings_b : int
        Recordings (executions) on each side: 1 and 1 for two profiles; with several a side
        (:func:`diff_recordings`) the table has the columns of :data:`SEVERAL_COLUMNS`.
    df : float
        Degrees of freedom of the test and intervals: ``inf`` (normal) for two profiles,
        the moderated t's ``prior_df + recordings_a + recordings_b - 2`` with several a side.

    Examples
    --------
    ``parse`` takes 40 % of the time after a change instead of 30 %, at the cost of ``solve``:

    >>> import numpy as np, pandas as pd
    >>> def profile(name, parse, solve):
    ...     seq = (["main"] * 5 + ["parse"] * parse + ["solve"] * solve) * 20
    ...     df = pd.DataFrame({"sym": seq, "dso": "/usr/bin/app", "period": 1_000_000, "comm": "app",
    ...                        "event": "cpu-clock", "tid": 1, "time": np.arange(len(seq))})
    ...     df.attrs["source"] = name
    ...     return df
    >>> d = profile_diff(profile("before", 30, 65), profile("after", 40, 55))
    >>> d.changed, d.samples_a, d.samples_b
    (['parse', 'solve'], 2000, 2000)
    >>> print(d.line().split("; ")[0])
    2 of 3 sym keys changed share at FDR 5% (largest: parse 30.0 % -> 40.0 %)
    >>> table = d.summary()[["share_a", "share_b", "difference", "changed"]]
    >>> print(table.round(2).reset_index().to_string(index=False))
      sym  share_a  share_b  difference  changed
    parse     0.30     0.40         0.1     True
    solve     0.65     0.55        -0.1     True
     main     0.05     0.05         0.0    False
    """

    table: pd.DataFrame
    level: float
    by: str
    only_a: tuple
    only_b: tuple
    source_a: str
    source_b: str
    event_a: str
    event_b: str
    samples_a: int
    samples_b: int
    period_a: float
    period_b: float
    recordings_a: int = 1
    recordings_b: int = 1
    df: float = math.inf

    @property
    def changed(self) -> list[str]:
        """Keys whose share changed (FDR at ``1 - level``), largest change first."""
        return [str(k) for k in self.table.index[self.table["changed"].to_numpy(dtype=bool)]]

    def summary(self, top: int | None = None) -> pd.DataFrame:
        """The difference table (optionally only the ``top`` rows)."""
        return self.table if top is None else self.table.head(top)

    def to_frame(self) -> pd.DataFrame:
        """The full table with the key as its first column."""
        return self.table.reset_index()

    def line(self) -> str:
        """One line: how many keys changed, the largest change, what was compared."""
        ch = self.changed
        biggest = ""
        if ch:  # by position: labels may be numbers (thread ids)
            row = self.table.iloc[int(np.flatnonzero(self.table["changed"].to_numpy(dtype=bool))[0])]
            biggest = f" (largest: {ch[0]} {100 * row['share_a']:.1f} % -> {100 * row['share_b']:.1f} %)"
        events = (
            f"; events differ ({self.event_a} in A, {self.event_b} in B): compared as shares"
            if self.event_a and self.event_b and self.event_a != self.event_b
            else ""
        )
        if not events and not np.isclose(self.period_a, self.period_b, rtol=0.01):
            events = f"; periods differ ({self.period_a:.4g} in A, {self.period_b:.4g} in B): compared as shares"
        one_side = []
        if self.only_a:
            one_side.append(f"{len(self.only_a)} only in A")
        if self.only_b:
            one_side.append(f"{len(self.only_b)} only in B")
        if self.recordings_a > 1 or self.recordings_b > 1:
            sides = (
                f"A {self.source_a} ({self.recordings_a} recordings, {self.samples_a} samples), "
                f"B {self.source_b} ({self.recordings_b} recordings, {self.samples_b} samples); "
                f"spread between executions measured (moderated t, {self.df:g} df)"
            )
        else:
            sides = f"A {self.source_a} ({self.samples_a} samples), B {self.source_b} ({self.samples_b} samples)"
        return (
            f"{len(ch)} of {len(self.table)} {self.by} keys changed share at FDR "
            f"{format_percent(1 - self.level)}{biggest}; {sides}"
            f"{'; ' + ', '.join(one_side) if one_side else ''}{events}"
        )

    def plot(self, ax: Any = None, top: int = 20) -> Any:
        """Differences of the ``top`` largest changes with their intervals, changed ones marked."""
        from hemkit.sampling.plots import plot_diff

        return plot_diff(self, ax=ax, top=top)


def _se_between(p: SamplingProfile) -> np.ndarray:
    """Each share's standard error between two executions: the profile's ``se_exec`` (or made from its ``se``)."""
    t = p.table
    if "se_exec" in t.columns:
        return t["se_exec"].to_numpy(dtype=float)
    bursts = t["runs"].to_numpy() if "runs" in t.columns else np.zeros(len(t), dtype=np.int64)
    share = t["share"].to_numpy(dtype=float)
    var = execution_variance(t["se"].to_numpy(dtype=float) ** 2, share * (1 - share) / max(p.n_eff, 1.0), bursts)
    return np.sqrt(var)


def _raw_keys(p: SamplingProfile) -> pd.Index:
    """The keys of a profile as the same thing is named in any profile (not its display labels).

    By symbol: ``sym`` and DSO short name (a label qualified ``sym (dso)`` only where the
    profile has the symbol in several DSOs); by DSO: the path as perf printed it (matched by
    :func:`_dso_keys`).
    """
    t = p.table
    if p.by == "sym" and "dso" in t.columns:
        dso = t["dso"].astype(str).to_numpy()
        labels = t.index.astype(str).to_numpy()
        suffix = np.char.add(np.char.add(" (", dso.astype(str)), ")")
        qualified = np.array([lab.endswith(s) for lab, s in zip(labels, suffix)], dtype=bool)
        sym = np.array([lab[: -len(s)] if q else lab for lab, s, q in zip(labels, suffix, qualified)], dtype=object)
        return pd.MultiIndex.from_arrays([sym, dso], names=["sym", "dso"])
    if p.by == "dso" and "path" in t.columns:
        return pd.Index(t["path"].astype(str).to_numpy(), name="path")
    return pd.Index(t.index.to_numpy(), name=p.by)


def _dso_keys(ka: pd.Index, kb: pd.Index) -> tuple[pd.Index, pd.Index]:
    """DSO paths of two profiles as keys that match: the short name, the path where it names several paths.

    As symbols are keyed with their DSO's short name: the same program built in two folders
    (``/src/old/prog``, ``/src/new/prog``) is one DSO, where by path every DSO of it was in one
    profile only, 100 % of the samples 'changed'.  A short name that stands for two paths in a
    profile (two ``libfoo.so``) keeps the paths.
    """
    shorts = [pd.Index(k.astype(str)).map(dso_name) for k in (ka, kb)]
    clash: set[str] = set()
    for k, short in zip((ka, kb), shorts):
        paths = pd.Series(k.astype(str).to_numpy()).groupby(short.to_numpy()).nunique()
        clash |= set(paths.index[paths > 1])
    a, b = (
        pd.Index(np.where(short.isin(clash), k.astype(str), short), name="dso") for k, short in zip((ka, kb), shorts)
    )
    return a, b


def _jit_keys(keys: pd.Index) -> pd.Index:
    """A profile's keys with perf's map of JIT code (``[JIT] tid N``) named ``[JIT]``, as in any execution.

    The map is named by the process id, which never repeats: node's or Java's JIT code was 'only in A'
    and 'only in B' in two executions of one program, 100 % -> 0 % changed.  A profile with the maps of
    several processes keeps their ids.
    """
    dso = keys.get_level_values("dso") if isinstance(keys, pd.MultiIndex) else keys
    dso = pd.Index(dso.astype(str))
    jit = dso.str.startswith("[JIT] tid ")
    if not jit.any() or dso[jit].nunique() > 1:
        return keys
    named = dso.where(~jit, "[JIT]")
    if isinstance(keys, pd.MultiIndex):
        return pd.MultiIndex.from_arrays([keys.get_level_values(0), named], names=keys.names)
    return pd.Index(named, name=keys.name)


def _labels(keys: pd.Index, by: str) -> pd.Index:
    """Display labels of the union of keys, as a profile names its rows (:func:`key_labels`)."""
    if isinstance(keys, pd.MultiIndex):
        frame = pd.DataFrame({"sym": keys.get_level_values(0).astype(str), "dso": keys.get_level_values(1).astype(str)})
    else:
        frame = pd.DataFrame({by: keys.astype(str) if by == "dso" else keys})
    return key_labels(frame, by)[0].rename(by)


def _profile(x: Any, side: str, by: str, level: float, **options: Any) -> SamplingProfile:
    if isinstance(x, SamplingProfile):
        if x.by != by:
            raise InputError(f"{side}: a profile by {x.by!r}, but the difference is by {by!r}; profile both alike")
        return x
    if isinstance(x, pd.DataFrame | str | os.PathLike):
        try:
            return profile_shares(x, by=by, level=level, **options)
        except InputError as exc:
            raise exc.reworded(f"{side}: {exc.message}") from exc
    raise InputError(f"{side} must be a SamplingProfile, samples or a file, got {type(x).__name__}")


#: share of each profile's samples on keys the other profile lacks above which the diff warns
DISJOINT = 0.5


def _warn_disjoint(
    keys: pd.Index, by: str, share_a: np.ndarray, share_b: np.ndarray, in_a: np.ndarray, in_b: np.ndarray
) -> None:
    """Warn where most samples of both profiles fall on keys the other lacks: every such key is 'changed'.

    Two builds recorded under different names (``./prog-old``, ``./prog-new``: symbols are keyed
    with their DSO), two different programs, or thread ids (a new run has new ones).
    """
    alone_a, alone_b = float(share_a[~in_b].sum()), float(share_b[~in_a].sum())
    if by in ("sym", "dso", "comm") and max(alone_a, alone_b) > DISJOINT:
        names = _main_names(keys, by, share_a, share_b)
        if names is not None:
            what = {"sym": "functions", "dso": "programs", "comm": "commands"}[by]
            warnings.warn(
                f"A and B were recorded under different names ({names[0]} in A, {names[1]} in B): their {what} "
                f"cannot be matched ({by} keys carry the program's name), so {100 * alone_a:.0f} % of A's "
                f"samples and {100 * alone_b:.0f} % of B's are on {by} keys 'only in' one side, compared against 0; "
                "record both under the same name (copy each build to one path, e.g. ./prog, and perf record -- ./prog)",
                HemkitWarning,
                stacklevel=3,
            )
            return
    if alone_a <= DISJOINT or alone_b <= DISJOINT:
        return
    what = f"{100 * alone_a:.0f} % of A's samples and {100 * alone_b:.0f} % of B's are on {by} keys the other lacks"
    if by == "tid":
        why = "thread ids of different runs never match: diff them --by comm or --by sym"
    elif by in ("sym", "dso"):
        dso = keys.get_level_values("dso") if isinstance(keys, pd.MultiIndex) else keys
        dso = pd.Index(dso.astype(str)).map(lambda d: d.rsplit("/", 1)[-1])
        weight_a = pd.Series(share_a, index=dso).groupby(level=0).sum()
        weight_b = pd.Series(share_b, index=dso).groupby(level=0).sum()
        only_a = weight_a[(weight_a > 0) & (weight_b == 0)].sort_values(ascending=False)
        only_b = weight_b[(weight_b > 0) & (weight_a == 0)].sort_values(ascending=False)
        if len(only_a) and len(only_b):
            why = (
                f"{', '.join(only_a.index[:3])} only in A, {', '.join(only_b.index[:3])} only in B: "
                "symbols are keyed with their DSO: one program built under two names? record both under one name"
            )
        else:
            why = "different programs?"
    else:
        why = "different programs?"
    warnings.warn(f"{what} ({why}); such keys are compared against 0", HemkitWarning, stacklevel=3)


def _is_program(name: str) -> bool:
    """Whether a DSO's short name is a program's: not the kernel's (``[kernel.kallsyms]``) nor a library's."""
    return not name.startswith("[") and ".so" not in name and name not in ("", "nan", "unknown")


def _main_names(keys: pd.Index, by: str, share_a: np.ndarray, share_b: np.ndarray) -> tuple[str, str] | None:
    """The most sampled program (DSO; command ``by="comm"``) of each side where each is absent from the other.

    Two builds recorded under different names (``prog_O0``, ``prog_O2``): None where the sides'
    programs are one, or either is sampled on both sides.
    """
    if by == "comm":
        names = pd.Index(keys.astype(str))
    else:
        dso = keys.get_level_values("dso") if isinstance(keys, pd.MultiIndex) else keys
        names = pd.Index(dso.astype(str)).map(lambda d: d.rsplit("/", 1)[-1])
    weight_a = pd.Series(share_a, index=names).groupby(level=0).sum()
    weight_b = pd.Series(share_b, index=names).groupby(level=0).sum()
    programs = [n for n in weight_a.index if by == "comm" or _is_program(str(n))]
    if not programs:
        return None
    main_a = weight_a[programs].idxmax()
    main_b = weight_b[programs].idxmax()
    if main_a == main_b or weight_a[main_a] <= 0 or weight_b[main_b] <= 0:
        return None
    if weight_b[main_a] > 0 or weight_a[main_b] > 0:
        return None
    return str(main_a), str(main_b)


def _read(x: Any, side: str) -> Any:
    """A path's samples (an error names the side); anything else as it is."""
    if isinstance(x, str | os.PathLike):
        try:
            return read_samples(x)
        except InputError as exc:
            raise exc.reworded(f"{side}: {exc.message}") from exc
    return x


def _common_event(a: Any, b: Any, comm: str | None) -> str | None:
    """The event to profile on both sides where either has samples of several: the most sampled of both.

    Each profile left to itself takes its own most sampled event, so a profile of task-clock and
    page-faults against one of task-clock alone compared page-faults with task-clock.  None:
    no choice to make, or no event in both (each side then chooses, and the diff says so).
    """
    if not all(isinstance(x, pd.DataFrame) and "event" in x.columns for x in (a, b)):
        return None
    counts = []
    for x in (a, b):
        kept = x if comm is None or "comm" not in x.columns else x[x["comm"] == comm]
        counts.append(kept["event"].astype(str).value_counts())
    if len(counts[0]) <= 1 and len(counts[1]) <= 1:
        return None
    both = counts[0].index.intersection(counts[1].index)
    if not len(both):
        return None
    total = (counts[0].reindex(both) + counts[1].reindex(both)).sort_values(ascending=False, kind="stable")
    chosen = str(total.index[0])
    # the way to another event is one both profiles sampled: --event of an event of one side only is an error
    other = [Fix("event", e) for e in total.index[1:2]]
    for side, c, x in zip("AB", counts, (a, b)):
        if len(c) > 1:
            said = ", ".join(f"{e} {n}" for e, n in c.items())
            warnings.warn(
                HemkitWarning(
                    f"{side}: {x.attrs.get('source', 'samples')}: samples of {len(c)} events ({said}); compared "
                    f"{chosen}, the most sampled of those in both profiles",
                    fix=other,
                ),
                stacklevel=4,
            )
    return chosen


def _tested(diff: np.ndarray, se: np.ndarray, level: float, df: float) -> dict[str, np.ndarray]:
    """The test columns of a diff table: ``difference``, its interval, ``p_value``, ``q_value`` and ``changed``.

    Each difference against its standard error: a normal test (``df = inf``, two profiles) or Student's t on
    ``df`` degrees of freedom (several recordings a side); Benjamini-Hochberg across keys at ``1 - level``.
    A difference whose standard error is 0 is certain: p 1 where it is 0, else 0.

    Examples
    --------
    >>> t = _tested(np.array([0.0, 0.1]), np.array([0.01, 0.01]), 0.95, math.inf)
    >>> t["changed"].tolist(), [round(float(x), 4) for x in t["upper"]]
    ([False, True], [0.0196, 0.1196])
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.abs(diff) / se
    tail = normal_sf if math.isinf(df) else (lambda x: t_sf(x, df))
    p = np.array([min(1.0, 2.0 * tail(s)) if np.isfinite(s) else (1.0 if x == 0 else 0.0) for s, x in zip(stat, diff)])
    q = fdr_bh(p)
    z = _t_quantile(0.5 + level / 2.0, df)
    return {
        "difference": diff,
        "lower": diff - z * se,
        "upper": diff + z * se,
        "p_value": p,
        "q_value": q,
        "changed": q <= 1.0 - level,
    }


def _one_side_note(in_a: np.ndarray, in_b: np.ndarray) -> np.ndarray:
    """``only in A`` / ``only in B`` for keys sampled on one side alone, else empty."""
    return np.where(in_a & in_b, "", np.where(in_a, "only in A", "only in B"))


def profile_diff(
    a: SamplingProfile | pd.DataFrame | str | os.PathLike[str],
    b: SamplingProfile | pd.DataFrame | str | os.PathLike[str],
    *,
    by: str = "sym",
    level: float = 0.95,
    comm: str | None = None,
    event: str | None = None,
) -> ProfileDiff:
    """Which keys' shares changed from profile A to profile B, with intervals and FDR control.

    Parameters
    ----------
    a, b : SamplingProfile, samples or path
        Profiles (from :func:`~hemkit.sampling.profile.profile_shares`, by ``by``), samples
        from :func:`~hemkit.sampling.profile.read_samples`, or ``perf.data`` / ``perf script``
        files, profiled here with the default (calibrated) interval method.
    by : {"sym", "dso", "comm", "tid"}
    level : float in (0, 1), default 0.95
        Level of the difference intervals; ``changed`` holds the false discovery rate across
        keys at ``1 - level``.
    comm, event : str, optional
        Keep only samples of this command / event (for samples and files).

    Returns
    -------
    ProfileDiff

    Raises
    ------
    InputError
        Either side unreadable or empty (naming the side), profiles by different keys, a
        level out of range, no standard errors in a profile, ``by="tid"`` of profiles that share
        no thread id (two executions: compare ``by="comm"``).

    Examples
    --------
    >>> def run(weights):
    ...     seq = [f for f, w in weights for _ in range(w)] * 20
    ...     return pd.DataFrame({"sym": seq, "dso": "/bin/x", "period": 1000, "comm": "x",
    ...                          "event": "cpu-clock", "tid": 1, "time": np.arange(len(seq))})
    >>> d = profile_diff(run([("f", 30), ("g", 70)]), run([("f", 40), ("g", 60)]))
    >>> d.changed, round(float(d.table.loc["f", "difference"]), 2)
    (['f', 'g'], 0.1)
    """
    if by not in BY:
        raise InputError(f"cannot compare profiles by {by!r} (use {', '.join(BY)})")
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
        raise InputError(f"level must be a number in (0, 1), got {level!r}", param="level")
    if event is None:
        a, b = _read(a, "A"), _read(b, "B")
        event = _common_event(a, b, comm)
    options = {"comm": comm, "event": event}
    pa, pb = _profile(a, "A", by, level, **options), _profile(b, "B", by, level, **options)
    for side, prof in (("A", pa), ("B", pb)):
        if "se" not in prof.table.columns:
            raise InputError(f"{side}: {prof.source}: the profile has no standard errors ('se'); profile it again")
    ka, kb = _raw_keys(pa), _raw_keys(pb)
    if by == "tid" and len(ka) and len(kb) and not len(ka.intersection(kb)):
        # every thread would be 'changed' (100 % -> 0 %): ids of two executions never repeat
        raise InputError(
            f"by 'tid': A ({pa.source}) and B ({pb.source}) share no thread id: thread ids of two executions never "
            "match, so every thread would be 'changed'; compare the threads by command",
            param="by",
            fix=Fix("by", "comm"),
        )
    if by == "dso":
        ka, kb = _dso_keys(ka, kb)
    if by in ("sym", "dso"):
        ka, kb = _jit_keys(ka), _jit_keys(kb)
    if isinstance(ka, pd.MultiIndex) != isinstance(kb, pd.MultiIndex):  # symbols with their DSO on one side only
        side, prof, other = ("A", pa, "B") if isinstance(kb, pd.MultiIndex) else ("B", pb, "A")
        raise InputError(
            f"{side}: {prof.source}: the samples carry no DSO names and {other}'s do, so their symbols cannot be "
            f"matched; decode the perf.data with 'perf script -F {FIELDS}' (or diff them --by comm)"
        )
    ta = pd.DataFrame(
        {"share": pa.table["share"].to_numpy(), "se": _se_between(pa), "samples": pa.table["samples"].to_numpy()},
        index=ka,
    )
    tb = pd.DataFrame(
        {"share": pb.table["share"].to_numpy(), "se": _se_between(pb), "samples": pb.table["samples"].to_numpy()},
        index=kb,
    )
    keys = ka.append(kb.difference(ka, sort=False)) if len(kb) else ka
    ta, tb = ta.reindex(keys), tb.reindex(keys)
    in_a, in_b = ta["share"].notna().to_numpy(), tb["share"].notna().to_numpy()
    share_a = ta["share"].fillna(0.0).to_numpy(dtype=float)
    share_b = tb["share"].fillna(0.0).to_numpy(dtype=float)
    se_a, se_b = ta["se"].to_numpy(dtype=float), tb["se"].to_numpy(dtype=float)
    # a key one profile did not sample: the error its share would have there under no change
    scale = np.sqrt(max(pb.n_samples, 1) / max(pa.n_samples, 1))
    se_a = np.where(in_a, se_a, se_b * scale)
    se_b = np.where(in_b, se_b, se_a / scale)
    table = pd.DataFrame(
        {
            "share_a": share_a,
            "share_b": share_b,
            **_tested(share_b - share_a, np.sqrt(se_a**2 + se_b**2), level, math.inf),
            "samples_a": ta["samples"].fillna(0).to_numpy(dtype=np.int64),
            "samples_b": tb["samples"].fillna(0).to_numpy(dtype=np.int64),
            "note": _one_side_note(in_a, in_b),
        },
        index=_labels(keys, by),
    )
    order = np.lexsort((-np.maximum(share_a, share_b), -np.abs(share_b - share_a)))
    table = table.iloc[order]
    if pa.event and pb.event and pa.event != pb.event:
        warnings.warn(
            f"the profiles sample different events ({pa.event} in A, {pb.event} in B): compared as shares",
            HemkitWarning,
            stacklevel=2,
        )
    elif not np.isclose(pa.table["period"].sum() / pa.n_samples, pb.table["period"].sum() / pb.n_samples, rtol=0.01):
        warnings.warn(
            "the profiles were sampled at different periods (events per sample): compared as shares",
            HemkitWarning,
            stacklevel=2,
        )
    _warn_disjoint(keys, by, share_a, share_b, in_a, in_b)
    labels = table.index.astype(str)
    return ProfileDiff(
        table=table,
        level=float(level),
        by=by,
        only_a=tuple(labels[table["note"].to_numpy() == "only in A"]),
        only_b=tuple(labels[table["note"].to_numpy() == "only in B"]),
        source_a=pa.source,
        source_b=pb.source,
        event_a=pa.event,
        event_b=pb.event,
        samples_a=int(pa.n_samples),
        samples_b=int(pb.n_samples),
        period_a=float(pa.table["period"].sum() / max(pa.n_samples, 1)),
        period_b=float(pb.table["period"].sum() / max(pb.n_samples, 1)),
    )


# --------------------------------------------------------------------------------------------
# several recordings a side: the spread between executions measured


#: Prior degrees of freedom of the moderated variance: how many executions' worth the modelled
#: variance (``se_exec``) counts for beside the measured spread (chosen on the A/A ``choice`` set
#: of ``benchmarks/sampling_diff_aa.py``: BENCHMARKS.md, "Several recordings a side").
PRIOR_DF = 4.0

#: columns of the table with several recordings a side (:func:`diff_recordings`), after the key
SEVERAL_COLUMNS = (*COLUMNS[:-1], "recordings_a", "recordings_b", "spread_a", "spread_b", "note")


@dataclass(frozen=True)
class DiffOptions:
    """What :func:`diff_recordings` compares, besides the key and the level.

    Attributes
    ----------
    comm, event : str, optional
        Keep only samples of this command / event (on both sides).
    prior_df : float, default :data:`PRIOR_DF`
        With several recordings a side: the degrees of freedom of the modelled variance, the
        weight it gets beside the measured spread (``inf``: the modelled variance alone, scaled
        up where all keys varied more than modelled; 0: the measured spread alone, a pooled t).

    Examples
    --------
    >>> DiffOptions(comm="sort").prior_df == PRIOR_DF
    True
    """

    comm: str | None = None
    event: str | None = None
    prior_df: float = PRIOR_DF


def _t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (the normal's for ``df = inf``)."""
    if math.isinf(df):
        return float(ndtri(p))
    from scipy.special import stdtrit  # only with several recordings a side (SciPy costs 0.2-1 s to import)

    return float(stdtrit(df, p))


def _side(x: Any, side: str) -> list[tuple[str, Any]]:
    """The recordings of one side: ``(name, item)`` for a file, a folder's files, a sequence or one object."""
    if isinstance(x, str | os.PathLike):
        try:
            return [(str(f), f) for f in recording_files(x)]
        except InputError as exc:
            raise exc.reworded(f"{side}: {exc.message}") from exc
    if isinstance(x, Sequence) and not isinstance(x, str | bytes):
        out: list[tuple[str, Any]] = []
        for item in x:
            out += _side(item, side)
        if not out:
            raise InputError(f"{side}: no recordings given")
        return out
    if isinstance(x, pd.DataFrame):
        return [(str(x.attrs.get("source", "samples")), x)]
    if isinstance(x, SamplingProfile):
        return [(x.source, x)]
    raise InputError(
        f"{side} must be a file, a folder, samples, a profile or a sequence of them, got {type(x).__name__}"
    )


def _read_one(name: str, item: Any, side: str, progress: Any) -> Any:
    """A path's samples (any error names the side); anything else as it is."""
    if isinstance(item, str | os.PathLike):
        try:
            return read_samples(item, progress=progress)
        except HemkitError as exc:
            raise exc.reworded(f"{side}: {exc.message}") from exc
    return item


def _selected(samples: pd.DataFrame, comm: str | None) -> pd.DataFrame:
    return samples if comm is None or "comm" not in samples.columns else samples[samples["comm"] == comm]


def _recordings_event(sides: dict[str, list[tuple[str, pd.DataFrame]]], comm: str | None) -> str | None:
    """The event every recording is profiled on: refused where the recordings sampled no event in common.

    Two profiles of different events are compared as shares (with a warning), but a measured spread of
    recordings of different events is a spread of different things.
    """
    counts = {}
    for side, recs in sides.items():
        for name, df in recs:
            kept = _selected(df, comm)
            if "event" in df.columns and len(kept):  # one without samples of comm is refused when profiled
                counts[(side, name)] = kept["event"].astype(str).value_counts()
    if not counts:
        return None
    common: set[str] = set.intersection(*(set(c.index) for c in counts.values()))
    if not common:
        items = list(counts.items())
        (s1, n1), c1 = items[0]
        differs = [(k, c) for k, c in items[1:] if set(c.index) != set(c1.index)]
        (s2, n2), c2 = next(((k, c) for k, c in differs if not set(c.index) & set(c1.index)), differs[0])
        raise InputError(
            f"recordings of different events: {s1} {n1} sampled {', '.join(c1.index)}, {s2} {n2} "
            f"{', '.join(c2.index)}; record every execution with the same perf record -e"
        )
    total = sum((c.reindex(sorted(common)) for c in counts.values()), pd.Series(0, index=sorted(common)))
    chosen = str(total.sort_values(ascending=False, kind="stable").index[0])
    several = [(k, c) for k, c in counts.items() if len(c) > 1]
    if several:
        (side, name), c = several[0]
        said = ", ".join(f"{e} {n}" for e, n in c.items())
        other = [Fix("event", e) for e in sorted(common) if e != chosen][:1]
        warnings.warn(
            HemkitWarning(
                f"{side}: {name}: samples of {len(c)} events ({said}); compared {chosen}, the most sampled of "
                f"those every recording has" + (f" ({len(several)} recordings alike)" if len(several) > 1 else ""),
                fix=other,
            ),
            stacklevel=3,
        )
    return chosen


def _check_commands(side: str, recs: list[tuple[str, pd.DataFrame]], event: str | None) -> None:
    """A side is several executions of one program: its recordings' most sampled commands must agree."""
    if not recs or "comm" not in recs[0][1].columns:
        return
    top = []
    for name, df in recs:
        kept = df if event is None or "event" not in df.columns else df[df["event"].astype(str) == event]
        counts = kept["comm"].astype(str).value_counts()
        if len(counts):  # one without samples of the event is refused when profiled
            top.append((name, str(counts.index[0]), set(counts.index)))
    if len({t for _, t, _ in top}) <= 1:
        return  # one command (or none to tell)
    first = top[0]
    other = next(t for t in top if t[1] != first[1])
    shared = set.intersection(*(c for _, _, c in top))
    raise InputError(
        f"{side}: recordings of different commands ({first[0]}: {first[1]}, {other[0]}: {other[1]}): the "
        "recordings of a side are executions of one program, whose spread is measured",
        fix=[Fix("comm", first[1])] if first[1] in shared else [],
    )


def _several_keys(profiles: list[SamplingProfile], by: str) -> list[pd.Index]:
    """Every profile's keys as the same thing is named in all of them (as :func:`profile_diff` matches two)."""
    keys = [_raw_keys(p) for p in profiles]
    if by == "dso":
        shorts = [pd.Index(k.astype(str)).map(dso_name) for k in keys]
        clash: set[str] = set()
        for k, short in zip(keys, shorts):
            paths = pd.Series(k.astype(str).to_numpy()).groupby(short.to_numpy()).nunique()
            clash |= set(paths.index[paths > 1])
        keys = [
            pd.Index(np.where(short.isin(clash), k.astype(str), short), name="dso") for k, short in zip(keys, shorts)
        ]
    if by in ("sym", "dso"):
        keys = [_jit_keys(k) for k in keys]
    kinds = [isinstance(k, pd.MultiIndex) for k in keys]
    if any(kinds) and not all(kinds):
        bare = profiles[kinds.index(False)]
        raise InputError(
            f"{bare.source}: the samples carry no DSO names and other recordings' do, so their symbols cannot be "
            f"matched; decode the perf.data with 'perf script -F {FIELDS}' (or diff them --by comm)"
        )
    return keys


def _fill_variances(var: np.ndarray, n: np.ndarray, cols: list[int], other: list[int]) -> np.ndarray:
    """Modelled variances of keys a recording did not sample: what their share would have there under no change.

    The variance of a share falls as 1 / samples: a key's ``var x samples`` in the recordings of its side
    that sampled it (else of the other side), at the samples of the recording that did not.
    """
    out = var.copy()
    scaled = var * n[None, :]
    for pool in (cols, other):
        present = ~np.isnan(scaled[:, pool])
        mean = np.where(
            present.any(axis=1), np.nansum(scaled[:, pool], axis=1) / np.maximum(present.sum(axis=1), 1), np.nan
        )
        for j in cols:
            gap = np.isnan(out[:, j])
            out[gap, j] = mean[gap] / n[j]
    return out


def _prior_scale(measured: np.ndarray, model: np.ndarray, d: int) -> float:
    """How much more the executions vary than modelled, over all keys: at least 1.

    limma's estimate of the prior variance (Smyth 2004, Sec. 6.2, for a prior of infinite weight):
    ``exp(mean(log(s^2 / s0^2)) - E[log(chi2_d / d)])`` over the keys with a measured spread, where
    ``E[log(chi2_d / d)] = digamma(d / 2) - log(d / 2)``.  Below 1 it is taken as 1: the modelled
    variance is deliberately generous for most keys (rare keys' binomial floor, the scale 1.5), and
    scaling it down would undo that for the keys it is not generous to.
    """
    ok = (measured > 0) & (model > 0) & np.isfinite(measured) & np.isfinite(model)
    if ok.sum() < 2:
        return 1.0
    from scipy.special import digamma  # only with several recordings a side

    expected = float(digamma(d / 2.0)) - math.log(d / 2.0)
    return max(1.0, math.exp(float(np.mean(np.log(measured[ok] / model[ok]))) - expected))


def _several(
    pa: list[SamplingProfile], pb: list[SamplingProfile], by: str, level: float, prior_df: float, sources: tuple
) -> ProfileDiff:
    """The moderated t of every key's mean share over the executions of each side (see :func:`diff_recordings`)."""
    profiles = [*pa, *pb]
    na, nb = len(pa), len(pb)
    keyed = _several_keys(profiles, by)
    keys = keyed[0]
    for k in keyed[1:]:
        keys = keys.append(k.difference(keys, sort=False))
    m = len(keys)
    share = np.zeros((m, na + nb))
    count = np.zeros((m, na + nb), dtype=np.int64)
    var = np.full((m, na + nb), np.nan)
    for j, (p, k) in enumerate(zip(profiles, keyed)):
        at = keys.get_indexer(k)
        share[at, j] = p.table["share"].to_numpy(dtype=float)
        count[at, j] = p.table["samples"].to_numpy()
        var[at, j] = _se_between(p) ** 2
    n = np.array([max(p.n_samples, 1) for p in profiles], dtype=float)
    a, b = list(range(na)), list(range(na, na + nb))
    model = np.empty_like(var)
    model[:, a] = _fill_variances(var, n, a, b)[:, a]
    model[:, b] = _fill_variances(var, n, b, a)[:, b]
    mean_a, mean_b = share[:, a].mean(axis=1), share[:, b].mean(axis=1)
    resid = ((share[:, a] - mean_a[:, None]) ** 2).sum(axis=1) + ((share[:, b] - mean_b[:, None]) ** 2).sum(axis=1)
    d = na + nb - 2
    measured = resid / d
    prior = np.nan_to_num(model.mean(axis=1))
    prior = prior * _prior_scale(measured, prior, d)
    moderated = prior if math.isinf(prior_df) else (prior_df * prior + d * measured) / (prior_df + d)
    se = np.sqrt(moderated * (1 / na + 1 / nb))
    df = prior_df + d
    in_a, in_b = count[:, a].sum(axis=1) > 0, count[:, b].sum(axis=1) > 0
    table = pd.DataFrame(
        {
            "share_a": mean_a,
            "share_b": mean_b,
            **_tested(mean_b - mean_a, se, level, df),
            "samples_a": count[:, a].sum(axis=1),
            "samples_b": count[:, b].sum(axis=1),
            "recordings_a": na,
            "recordings_b": nb,
            "spread_a": share[:, a].std(axis=1, ddof=1),
            "spread_b": share[:, b].std(axis=1, ddof=1),
            "note": _one_side_note(in_a, in_b),
        },
        index=_labels(keys, by),
    )
    table = table.iloc[np.lexsort((-np.maximum(mean_a, mean_b), -np.abs(mean_b - mean_a)))]
    _warn_disjoint(keys, by, mean_a, mean_b, in_a, in_b)
    labels = table.index.astype(str)

    def period(side: list[SamplingProfile]) -> float:
        return float(sum(p.table["period"].sum() for p in side) / max(sum(p.n_samples for p in side), 1))

    return ProfileDiff(
        table=table,
        level=float(level),
        by=by,
        only_a=tuple(labels[table["note"].to_numpy() == "only in A"]),
        only_b=tuple(labels[table["note"].to_numpy() == "only in B"]),
        source_a=sources[0],
        source_b=sources[1],
        event_a=pa[0].event,
        event_b=pb[0].event,
        samples_a=int(sum(p.n_samples for p in pa)),
        samples_b=int(sum(p.n_samples for p in pb)),
        period_a=period(pa),
        period_b=period(pb),
        recordings_a=na,
        recordings_b=nb,
        df=float(df),
    )


def _side_name(x: Any, recs: list[tuple[str, Any]]) -> str:
    if isinstance(x, str | os.PathLike):
        return os.fspath(x)
    return recs[0][0] if len(recs) == 1 else f"{recs[0][0]} and {len(recs) - 1} more"


def diff_recordings(
    a: Any,
    b: Any,
    *,
    by: str = "sym",
    level: float = 0.95,
    options: DiffOptions | None = None,
    progress: ProgressLike = None,
) -> ProfileDiff:
    """Which keys' shares changed from A to B, each side one recording or several executions.

    With one recording a side this is :func:`profile_diff` (each share's error between
    executions modelled: ``se_exec``).  With several a side, each key's share is measured in
    every execution; a side's share is their mean, and the test uses the spread between
    executions that was measured, moderated as limma's moderated t does (Smyth 2004): the
    pooled variance of the per-execution shares around their side's mean, ``s^2`` with
    ``d = n_a + n_b - 2`` degrees of freedom, is shrunk toward the modelled variance of one
    execution's share ``s0^2`` (the mean ``se_exec^2`` of the key's recordings, times how much
    more all keys' executions varied than modelled, where they did: limma's estimate of the
    prior variance, taken as 1 below 1),
    which counts for ``d0 = prior_df`` degrees of freedom::

        s~^2 = (d0 s0^2 + d s^2) / (d0 + d),   t = (mean_b - mean_a) / (s~ sqrt(1/n_a + 1/n_b))

    and ``t`` is referred to Student's t with ``d0 + d`` degrees of freedom; the interval is
    ``difference +- t_q s~ sqrt(1/n_a + 1/n_b)``; Benjamini-Hochberg across keys as with two
    profiles.  A key whose speed varies between executions (a memory-bound phase) gets the
    spread it showed; a key measured alike in every execution keeps about the model's error,
    and with 3 recordings a side a raw variance on 4 degrees of freedom alone would be far
    too noisy.  ``d0`` is fixed (:data:`PRIOR_DF`), not fitted across keys as limma does: a
    profile by DSO has a handful of keys, and the modelled variances are generous for most
    keys and short for a few, which a fit reads as a prior to scale down (BENCHMARKS.md,
    "Several recordings a side").

    Parameters
    ----------
    a, b : path, samples, profile, or a sequence of them
        Each side: a ``perf.data`` / ``perf script`` file, a folder of them (one execution
        per file, natural order), samples from :func:`~hemkit.sampling.profile.read_samples`,
        a :class:`~hemkit.sampling.profile.SamplingProfile`, or a sequence of these.
    by : {"sym", "dso", "comm", "tid"}
        ``"tid"`` needs one recording a side (thread ids of two executions never match).
    level : float in (0, 1), default 0.95
        Level of the intervals; ``changed`` holds the false discovery rate at ``1 - level``.
    options : DiffOptions, optional
        ``comm``, ``event`` and ``prior_df``.
    progress : bool or Progress, optional
        Report the decoding of the recordings (see :mod:`hemkit.core.progress`).

    Returns
    -------
    ProfileDiff
        With several recordings a side, the columns of :data:`SEVERAL_COLUMNS`: also each
        side's ``recordings`` and the measured ``spread`` (SD of the per-execution shares).

    Raises
    ------
    InputError
        Anything :func:`profile_diff` refuses; a folder without recordings; a file that is not
        perf data (named); several recordings on one side and one on the other; recordings
        that sampled no event in common; a side whose recordings are of different commands;
        ``by="tid"`` with several recordings a side.

    Examples
    --------
    Three executions a side, in which ``parse`` takes 30 % (then 40 %) of the time give or
    take a point between executions:

    >>> rng = np.random.default_rng(0)
    >>> def run(parse):
    ...     p = int(round(100 * (parse + rng.normal(0, 0.01))))
    ...     seq = (["main"] * 5 + ["parse"] * p + ["solve"] * (95 - p)) * 20
    ...     return pd.DataFrame({"sym": seq, "dso": "/usr/bin/app", "period": 1_000_000, "comm": "app",
    ...                          "event": "cpu-clock", "tid": 1, "time": np.arange(len(seq))})
    >>> d = diff_recordings([run(0.3) for _ in range(3)], [run(0.4) for _ in range(3)])
    >>> d.changed, d.recordings_a, d.recordings_b, d.df
    (['parse', 'solve'], 3, 3, 8.0)
    """
    options = options or DiffOptions()
    if by not in BY:
        raise InputError(f"cannot compare profiles by {by!r} (use {', '.join(BY)})")
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
        raise InputError(f"level must be a number in (0, 1), got {level!r}", param="level")
    prior = options.prior_df
    if isinstance(prior, bool) or not isinstance(prior, int | float) or not prior >= 0:
        raise InputError(f"prior_df must be a number of at least 0 (or inf), got {prior!r}", param="prior_df")
    ra, rb = _side(a, "A"), _side(b, "B")
    bar = as_progress(progress)
    if len(ra) == 1 and len(rb) == 1:  # two profiles: exactly profile_diff
        sa = _read_one(*ra[0], "A", bar)
        same = all(isinstance(x, str | os.PathLike) for x in (ra[0][1], rb[0][1])) and os.path.realpath(
            ra[0][1]
        ) == os.path.realpath(rb[0][1])
        sb = sa if same else _read_one(*rb[0], "B", bar)
        return profile_diff(sa, sb, by=by, level=level, comm=options.comm, event=options.event)
    if len(ra) == 1 or len(rb) == 1:
        one, many = ("A", "B") if len(ra) == 1 else ("B", "A")
        counts = {"A": len(ra), "B": len(rb)}
        raise InputError(
            f"{many} has {counts[many]} recordings and {one} one: the spread between executions is measured on "
            f"each side, so give several recordings (a folder of them) on both sides, or one on each"
        )
    if by == "tid":
        raise InputError(
            "by 'tid' needs one recording a side: thread ids of two executions never match; compare the "
            "executions' threads by command",
            param="by",
            fix=Fix("by", "comm"),
        )
    sides: dict[str, list[tuple[str, Any]]] = {}
    for side, recs in (("A", ra), ("B", rb)):
        sides[side] = [(name, _read_one(name, item, side, bar)) for name, item in recs]
    frames = {s: [(n, x) for n, x in recs if isinstance(x, pd.DataFrame)] for s, recs in sides.items()}
    event = options.event if options.event is not None else _recordings_event(frames, options.comm)
    for side, recs in frames.items():
        _check_commands(side, [(n, _selected(x, options.comm)) for n, x in recs], event)
    profiles: dict[str, list[SamplingProfile]] = {}
    for side, recs in sides.items():
        profiles[side] = []
        for name, x in recs:
            if isinstance(x, pd.DataFrame) and name != x.attrs.get("source"):
                x = x.copy(deep=False)
                x.attrs["source"] = name
            with warnings.catch_warnings():  # the event chosen above was said once
                warnings.filterwarnings("ignore", message=".*samples of .* events", category=HemkitWarning)
                prof = _profile(x, side, by, level, comm=options.comm, event=event)
            if "se" not in prof.table.columns:
                raise InputError(f"{side}: {prof.source}: the profile has no standard errors ('se'); profile it again")
            profiles[side].append(prof)
    events = {p.event for p in profiles["A"] + profiles["B"] if p.event}
    if len(events) > 1:  # profiles given ready-made
        raise InputError(
            f"recordings of different events ({', '.join(sorted(events))}); profile every execution on one event"
        )
    return _several(profiles["A"], profiles["B"], by, level, float(prior), (_side_name(a, ra), _side_name(b, rb)))


__all__ = ["COLUMNS", "PRIOR_DF", "SEVERAL_COLUMNS", "DiffOptions", "ProfileDiff", "diff_recordings", "profile_diff"]
