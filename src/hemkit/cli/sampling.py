"""``hemkit sampling``: accuracy of sampling profiles (Wen et al. 2021)."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np
import pandas as pd

from hemkit.errors import HemkitError


def _print_table(df: pd.DataFrame, title: str, index: bool = True) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title)
    frame = df.reset_index() if index else df
    for c in frame.columns:
        t.add_column(str(c), justify="left" if frame[c].dtype == object else "right")
    for row in frame.itertuples(index=False):
        t.add_row(*[_fmt(v) for v in row])
    Console(width=200).print(t)


def _fmt(v) -> str:
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return "-"
        if v != 0 and abs(v) < 1e-3:
            return f"{v:.3e}"
        return f"{v:.0f}" if abs(v) >= 1e4 else f"{v:.4f}"
    return str(v)


def _save(ax, path: Path) -> None:
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def _parse_task(spec: str):
    from hemkit.sampling import Task

    parts = spec.split(":")
    if not 3 <= len(parts) <= 5:
        raise HemkitError(f"task {spec!r}: use NAME:SHARE:GRANULARITY[:DISTRIBUTION[:RATE]]")
    try:
        share, gran = float(parts[1]), float(parts[2])
        rate = float(parts[4]) if len(parts) == 5 else 1.0
    except ValueError as exc:
        raise HemkitError(f"task {spec!r}: share, granularity and rate must be numbers") from exc
    return Task(parts[0], share, gran, parts[3] if len(parts) >= 4 else "constant", rate)


@click.group()
def sampling() -> None:
    """Accuracy of sampling profiles: simulate, model, and intervals for perf record profiles."""


@sampling.command()
@click.option(
    "--paper",
    type=click.Choice(["2", "3", "4", "5", "6", "all"]),
    help="Re-run the paper's Table N (beside its figures).",
)
@click.option(
    "--task",
    "tasks",
    multiple=True,
    metavar="NAME:SHARE:GRAN[:DIST[:RATE]]",
    help="A task (repeatable); DIST constant|exponential|uniform.",
)
@click.option("--idle-granularity", default=1.0, show_default=True, help="Mean run length of idle.")
@click.option(
    "--idle-distribution",
    type=click.Choice(["constant", "exponential", "uniform"]),
    default="constant",
    show_default=True,
)
@click.option("--units", default=1_000_000, show_default=True, help="Resource units of the running states.")
@click.option("--interval", default=100.0, show_default=True, help="Sampling interval in units (or base events).")
@click.option("--reps", default=1000, show_default=True, help="Profiling repetitions.")
@click.option("--mode", type=click.Choice(["time", "event"]), default="time", show_default=True)
@click.option("--jitter", default=0.0, show_default=True, help="SD of noise on each sampling interval.")
@click.option(
    "--noise", default=0.0, show_default=True, help="SD s of noise on the unit of events, U(1+N(0,s)) (Eq. 10)."
)
@click.option("--seed", default=0, show_default=True)
@click.option("--plots", type=click.Path(file_okay=False), help="Write PNG plots into this directory.")
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="Write the table(s) as CSV.")
def simulate(
    paper, tasks, idle_granularity, idle_distribution, units, interval, reps, mode, jitter, noise, seed, plots, out
):
    """Simulate profiles of known running states; print mean and SD of the profiles."""
    from hemkit.sampling import generate_states, simulate_profiles
    from hemkit.sampling import plots as pl
    from hemkit.sampling.paper import reproduce, single_task

    if not paper and not tasks:
        raise HemkitError("give --paper N or at least one --task NAME:SHARE:GRANULARITY")
    plot_dir = Path(plots) if plots else None
    if plot_dir:
        plot_dir.mkdir(parents=True, exist_ok=True)
    tables = []
    if paper:
        for name in ("2", "3", "4", "5", "6") if paper == "all" else (paper,):
            t = reproduce(name, reps=reps, seed=seed)
            _print_table(t, f"Table {name} (Wen et al. 2021), hemkit beside the paper", index=False)
            tables.append(t.assign(table=name))
            if plot_dir and name in ("2", "3"):
                _save(pl.plot_sd_vs_R(t), plot_dir / f"table{name}_sd_vs_R.png")
                _save(pl.plot_profiled_vs_true(t), plot_dir / f"table{name}_profiled_vs_true.png")
        if plot_dir:  # the paper's Fig. 11: 80 % utilisation, granularity 30
            res = single_task(0.8, 30, reps=reps, seed=seed)
            _save(pl.plot_profile_histogram(res.profiles["task"], res.truth["task"]), plot_dir / "fig11_histogram.png")
    else:
        rs = generate_states(
            [_parse_task(s) for s in tasks],
            units,
            idle_granularity=idle_granularity,
            idle_distribution=idle_distribution,
            seed=seed,
        )
        res = simulate_profiles(rs, interval, reps, mode=mode, jitter=jitter, noise=noise, seed=seed + 1)
        t = res.summary()
        _print_table(t, f"{reps} profiles, interval {interval:g}, {res.n_samples[0]} samples each")
        tables.append(t.reset_index())
        if plot_dir:
            _save(pl.plot_profiled_vs_true(t), plot_dir / "profiled_vs_true.png")
            _save(pl.plot_sd_vs_R(t), plot_dir / "sd_vs_R.png")
            task = t.drop(index="idle", errors="ignore")["profile_sd"].idxmax() if len(t) > 1 else t.index[0]
            _save(pl.plot_profile_histogram(res.profiles[task], res.truth[task]), plot_dir / "histogram.png")
    if out:
        pd.concat(tables, ignore_index=True).to_csv(out, index=False)
        click.echo(f"table written to {out}")
    if plot_dir:
        click.echo(f"plots written to {plot_dir}/")


@sampling.command()
@click.argument("source", type=click.Path())
@click.option("--by", type=click.Choice(["sym", "comm", "dso", "tid"]), default="sym", show_default=True)
@click.option("--comm", help="Only samples of this command.")
@click.option("--event", help="Only samples of this event (needed when the file has several).")
@click.option("--level", default=0.95, show_default=True, help="Confidence level of the intervals.")
@click.option(
    "--method",
    type=click.Choice(["wilson", "bound"]),
    default="wilson",
    show_default=True,
    help="wilson: binomial; bound: Poisson bound valid for any run length.",
)
@click.option("--top", default=20, show_default=True, help="Rows to show.")
@click.option("--png", type=click.Path(dir_okay=False), help="Write a bar chart with the intervals.")
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="Write the full table as CSV.")
def profile(source, by, comm, event, level, method, top, png, out):
    """Per-symbol shares with confidence intervals of perf.data or `perf script` text.

    Text input should come from `perf script -F comm,tid,time,event,ip,sym,period`.
    """
    from hemkit.sampling.plots import plot_shares
    from hemkit.sampling.profile import profile_shares
    from hemkit.sampling.record import read_samples

    samples = read_samples(source)
    p = profile_shares(samples, by=by, level=level, method=method, comm=comm, event=event)
    _print_table(
        p.summary(top),
        f"{source}: {p.n_samples} samples (effective {p.n_eff:.0f}), {level:.0%} intervals ({method})",
    )
    if png:
        _save(plot_shares(p, top=top), Path(png))
        click.echo(f"bar chart written to {png}")
    if out:
        p.table.to_csv(out)
        click.echo(f"table written to {out}")


@sampling.command()
@click.option("--share", "shares", type=float, multiple=True, required=True, help="True share of a task (repeatable).")
@click.option(
    "--R", "ratios", type=float, multiple=True, help="Run ratio granularity/interval per share (default: unknown)."
)
@click.option("--samples", type=int, default=10_000, show_default=True, help="Samples per profile.")
@click.option("--half-width", type=float, help="Also print the samples needed for this interval half width.")
@click.option("--level", default=0.95, show_default=True)
def model(shares, ratios, samples, half_width, level):
    """Model SD and interval of shares, and samples needed (Eqs. 5-9)."""
    from hemkit.sampling import model as m

    if ratios and len(ratios) != len(shares):
        raise HemkitError(f"give one --R per --share ({len(shares)} shares, {len(ratios)} ratios)")
    p = np.array(shares)
    if ratios:
        t = m.model_table(p, np.array(ratios), samples, level)
    else:  # unknown run lengths: the bound p / n
        from scipy.stats import norm

        sd = np.sqrt(p / samples)
        z = norm.ppf(0.5 + level / 2)
        t = pd.DataFrame({"R": np.nan, "expected": p, "sd": sd, "low": p - z * sd, "high": p + z * sd})
    if half_width:
        t["samples_needed"] = m.samples_needed(p, half_width, level, R=np.array(ratios) if ratios else None)
    _print_table(t, f"model for {samples} samples ({'given R' if ratios else 'R unknown: bound p/n'})", index=False)


@sampling.command()
@click.option("--period", "periods", type=int, multiple=True, help="perf record -c N (ns for cpu-clock); repeatable.")
@click.option("--freq", "freqs", type=int, multiple=True, help="perf record -F HZ; repeatable.")
@click.option("--granularity", "granularities", type=int, multiple=True, help="Units (~1.5 us) per call; repeatable.")
@click.option("--repeats", default=3, show_default=True)
@click.option("--event", help="Sampling event (default: cycles with a PMU, else cpu-clock).")
@click.option("--level", default=0.95, show_default=True)
@click.option(
    "--method",
    "methods",
    type=click.Choice(["wilson", "bound"]),
    multiple=True,
    help="Interval method(s); default both.",
)
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="Write every case as CSV.")
def check(periods, freqs, granularities, repeats, event, level, methods, out):
    """Record the known-share workload with perf and report how often intervals cover the truth."""
    from rich.progress import Progress

    from hemkit.sampling.record import validate_coverage

    if not periods and not freqs:
        periods = (100_000, 1_000_000)
    with Progress(transient=True) as bar:
        task = bar.add_task("perf record runs", total=None)
        res = validate_coverage(
            periods,
            freqs,
            granularities=granularities or (50,),
            repeats=repeats,
            level=level,
            methods=methods or ("wilson", "bound"),
            event=event,
            progress=lambda d, t: bar.update(task, completed=d, total=t),
        )
    _print_table(res.summary(), f"coverage of {level:.0%} intervals on the known-share workload")
    if out:
        res.cases.to_csv(out, index=False)
        click.echo(f"cases written to {out}")
