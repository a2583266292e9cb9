"""``profile_diff(a, b)``: which functions' (DSOs', commands') shares changed between two profiles.

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

import os
import warnings
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.errors import Fix, HemkitWarning, InputError
from hemkit.core.normal import ndtri
from hemkit.core.numbers import format_percent
from hemkit.core.results import Result, result
from hemkit.core.stats import fdr_bh, normal_sf
from hemkit.io.perf_script import FIELDS, dso_name
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
        return (
            f"{len(ch)} of {len(self.table)} {self.by} keys changed share at FDR "
            f"{format_percent(1 - self.level)}{biggest}; "
            f"A {self.source_a} ({self.samples_a} samples), B {self.source_b} ({self.samples_b} samples)"
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
    diff = share_b - share_a
    se = np.sqrt(se_a**2 + se_b**2)
    z = float(ndtri(0.5 + level / 2.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.abs(diff) / se
    p = np.array(
        [min(1.0, 2.0 * normal_sf(s)) if np.isfinite(s) else (1.0 if d == 0 else 0.0) for s, d in zip(stat, diff)]
    )
    q = fdr_bh(p)
    note = np.where(in_a & in_b, "", np.where(in_a, "only in A", "only in B"))
    table = pd.DataFrame(
        {
            "share_a": share_a,
            "share_b": share_b,
            "difference": diff,
            "lower": diff - z * se,
            "upper": diff + z * se,
            "p_value": p,
            "q_value": q,
            "changed": q <= 1.0 - level,
            "samples_a": ta["samples"].fillna(0).to_numpy(dtype=np.int64),
            "samples_b": tb["samples"].fillna(0).to_numpy(dtype=np.int64),
            "note": note,
        },
        index=_labels(keys, by),
    )
    order = np.lexsort((-np.maximum(share_a, share_b), -np.abs(diff)))
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


__all__ = ["COLUMNS", "ProfileDiff", "profile_diff"]
