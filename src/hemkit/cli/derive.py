"""``hemkit derive``: measure raw events on CAT-style kernels, analyse, report metric definitions."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd

from hemkit.errors import HemkitError

FAMILIES = click.Choice(["flops", "branch", "dcache"])


@click.group()
def derive() -> None:
    """Define metrics (FLOPs, branches, cache hits) from raw events (Barry, Danalis, Dongarra)."""


@derive.command()
@click.option("--family", type=FAMILIES, required=True, help="Kernel family to run.")
@click.option(
    "--events",
    "events_file",
    type=click.Path(dir_okay=False),
    help="Event list (one per line); default: the Zen 5 tables + generic events.",
)
@click.option("--reps", default=3, show_default=True, help="Repetitions of every measurement.")
@click.option("--iterations", type=int, help="Loop iterations per kernel run (default per family).")
@click.option(
    "--group",
    default=1,
    show_default=True,
    help="Events per perf run (1..5; >1 only for combinations checked against single runs).",
)
@click.option("--threads", default=1, show_default=True, help="Concurrent copies per run; the median is kept.")
@click.option("--kernel-mode", is_flag=True, help="Also count kernel mode (default: user mode only, :u).")
@click.option("--out", "-o", type=click.Path(dir_okay=False), default="derive-measurements.csv", show_default=True)
def run(family, events_file, reps, iterations, group, threads, kernel_mode, out):
    """Measure every event on every kernel loop of a family (one event per perf run)."""
    from rich.progress import Progress

    from hemkit.derive.events import family_events, read_event_list
    from hemkit.derive.families import get_family
    from hemkit.derive.kernels import available_widths
    from hemkit.derive.measure import measure

    fam = get_family(family, widths=available_widths()) if family == "flops" else get_family(family)
    events = read_event_list(events_file) if events_file else family_events(family)
    with Progress(transient=True) as bar:
        task = bar.add_task(f"{family}: {len(events)} events", total=None)
        df = measure(
            fam,
            events,
            reps=reps,
            iterations=iterations,
            group=group,
            threads=threads,
            user_only=not kernel_mode,
            progress=lambda d, t: bar.update(task, completed=d, total=t),
        )
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out, index=False)
    click.echo(
        f"wrote {len(df)} measurements ({len(events)} events x {len(fam.loops)} kernel loops x {reps} reps) to {out}"
    )


@derive.command()
@click.argument("measurements", type=click.Path(dir_okay=False))
@click.option("--family", type=FAMILIES, required=True)
@click.option("--tau", type=float, help="Noise threshold on max RNMSE (Eq. 4).")
@click.option("--alpha", type=float, help="Rounding tolerance of the pivoted QR (Algorithm 2).")
@click.option("--proj-tol", type=float, help="Largest relative residual of the projection onto the basis.")
@click.option("--define-tol", type=float, help="Largest backward error of a defined metric.")
@click.option("--out", "-o", type=click.Path(dir_okay=False), default="derive-result.json", show_default=True)
def analyze(measurements, family, tau, alpha, proj_tol, define_tol, out):
    """Noise filter, projection, pivoted QR and least squares; print and save the result."""
    from hemkit.derive.analysis import analyze as run_analysis
    from hemkit.derive.families import family_for_loops

    path = Path(measurements)
    if not path.exists():
        raise HemkitError(f"{path}: no such measurements file")
    try:
        df = pd.read_csv(path, dtype={"size": str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise HemkitError(f"{path}: not a CSV file ({exc})") from exc
    if not {"kernel", "size"} <= set(df.columns):
        raise HemkitError(f"{path}: measurements lack column(s) kernel/size")
    fam = family_for_loops(family, zip(df["kernel"], df["size"], strict=True))
    res = run_analysis(df, fam, tau=tau, alpha=alpha, proj_tol=proj_tol, define_tol=define_tol)
    Path(out).write_text(res.to_json())
    click.echo(res.summary())
    click.echo(f"\nresult written to {out}")


@derive.command()
@click.argument("result", type=click.Path(dir_okay=False))
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="Write the table (.md, .csv or .json).")
@click.option("--plot", type=click.Path(dir_okay=False), help="Write the variability plot (Fig. 2 style).")
@click.option("--presets", type=click.Path(dir_okay=False), help="CSV preset,definition to compare with (e.g. PAPI's).")
def report(result, out, plot, presets):
    """Metric-definition table (Tables V-VIII style), optional PAPI comparison and plot."""
    from rich.console import Console
    from rich.table import Table

    from hemkit.derive.analysis import DerivationResult
    from hemkit.derive.families import PAPI
    from hemkit.derive.report import compare_presets, definition_table, plot_variability, write_table

    path = Path(result)
    if not path.exists():
        raise HemkitError(f"{path}: no such result file")
    res = DerivationResult.from_json(path.read_text(), source=str(path))
    papi = PAPI.get(res.family, {})
    table = definition_table(res, papi)
    if presets:
        ppath = Path(presets)
        if not ppath.exists():
            raise HemkitError(f"{ppath}: no such preset file")
        table = compare_presets(res, papi, pd.read_csv(ppath))
    t = Table(title=f"{res.family}: metric definitions")
    for c in table.columns:
        t.add_column(str(c), overflow="fold")
    for _, r in table.iterrows():
        t.add_row(*[f"{v:.2e}" if isinstance(v, float) else str(v) for v in r])
    Console().print(t)
    if out:
        write_table(table, out)
        click.echo(f"table written to {out}")
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = plot_variability(res)
        ax.figure.tight_layout()
        ax.figure.savefig(plot, dpi=120)
        click.echo(f"plot written to {plot}")
