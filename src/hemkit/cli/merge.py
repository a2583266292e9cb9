"""``hemkit merge`` and ``hemkit evaluate``: thin wrappers over :mod:`hemkit.merge` and :mod:`hemkit.evaluate`."""

from __future__ import annotations

import warnings
from pathlib import Path

import click
import pandas as pd

from hemkit.errors import HemkitError, HemkitWarning
from hemkit.readings import Readings

METHOD_CHOICE = click.Choice(["hrm", "much", "copula"])


def load_input(
    path: str | None, *, pmcs: int | None, codes: str | None, method: str = "copula", drop_constant: bool = False
) -> Readings:
    """Readings from INPUT (any format :func:`hemkit.io.read_readings` knows) or the bundled T2080 data."""
    from hemkit import datasets
    from hemkit.io import read_readings

    if path is None:
        return datasets.t2080_hrm() if method == "hrm" else datasets.t2080_much()
    return read_readings(path, pmcs=pmcs, codes=codes, drop_constant=drop_constant)


def _show(title: str, rows: pd.DataFrame) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    table.add_column(rows.index.name or "")
    for c in rows.columns:
        table.add_column(str(c), justify="right")
    for idx, r in rows.iterrows():
        table.add_row(str(idx), *[f"{v:.4g}" if isinstance(v, float) else str(v) for v in r])
    Console().print(table)


@click.command()
@click.argument("input", required=False, type=click.Path(dir_okay=False))
@click.option("--method", "-m", type=METHOD_CHOICE, default="copula", show_default=True, help="Merge method.")
@click.option("--anchor", help="Anchor event (HRM). Default for the bundled data: PROCESSOR_CYCLES.")
@click.option("--pmcs", type=int, help="INPUT is a mergingTools raw file with this many columns per group.")
@click.option("--codes", type=click.Path(dir_okay=False), help="code,name table for a raw file (hems,code).")
@click.option("--n-sims", type=int, default=100, show_default=True, help="MUCH: draws tried.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--n", "n_rows", type=int, help="Rows of the merged table (default: method's own).")
@click.option("--outliers", type=click.Choice(["keep", "zscore"]), default="keep", show_default=True)
@click.option("--impute", type=click.Choice(["maxdet"]), help="Fill pairs never read together (else an error).")
@click.option("--dep-lvl", type=float, help="MUCH: mergingTools-compatible dropping of dependent events.")
@click.option(
    "--criterion",
    type=click.Choice(["arranged", "sample"]),
    default="arranged",
    show_default=True,
    help="MUCH: judge draws by the arranged readings (mergingTools) or the Gaussian sample (fast).",
)
@click.option(
    "--pearson-weight",
    default="auto",
    show_default=True,
    help="copula: 0 = rank target, 1 = match observed Pearson correlations, auto = chosen by holdout.",
)
@click.option("--drop-constant", is_flag=True, help="Drop events constant within a group (else an error).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the merged table (CSV or .parquet).")
def merge(
    input,
    method,
    anchor,
    pmcs,
    codes,
    n_sims,
    seed,
    n_rows,
    outliers,
    impute,
    dep_lvl,
    criterion,
    pearson_weight,
    drop_constant,
    output,
):
    """Merge readings from separate runs into complete vectors.

    INPUT is a tidy table (group,run,event,value; CSV or Parquet), a mergingTools raw CSV
    (with --pmcs), or a collection database from 'hemkit collect'.  Without INPUT the
    bundled NXP T2080 readings are merged (HRM data for --method hrm, MUCH data otherwise).
    """
    from hemkit.datasets import T2080_ANCHOR
    from hemkit.evaluate import evaluate
    from hemkit.io import write_table
    from hemkit.merge import merge as run_merge

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HemkitWarning)
        readings = load_input(input, pmcs=pmcs, codes=codes, method=method, drop_constant=drop_constant)
    for w in caught:
        if issubclass(w.category, HemkitWarning):
            click.echo(f"hemkit: warning: {w.message}", err=True)
    if method == "hrm" and anchor is None:
        if input is None:
            anchor = T2080_ANCHOR
        else:
            raise HemkitError("HRM needs an anchor event: --anchor NAME")
    options: dict = {"n": n_rows}
    if method == "hrm":
        options["anchor"] = anchor
    else:
        options.update(seed=seed, outliers=outliers, impute=impute)
        if method == "much":
            options.update(n_sims=n_sims, dep_lvl=dep_lvl, criterion=criterion)
        else:
            if pearson_weight != "auto":
                try:
                    pearson_weight = float(pearson_weight)
                except ValueError:
                    raise HemkitError(
                        f"--pearson-weight must be a number in [0, 1] or 'auto', got {pearson_weight!r}"
                    ) from None
            options.update(pearson_weight=pearson_weight)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HemkitWarning)
        merged = run_merge(readings, method, **options)
    for w in caught:
        if issubclass(w.category, HemkitWarning):
            click.echo(f"hemkit: warning: {w.message}", err=True)
    source = input or ("bundled T2080 HRM data" if method == "hrm" else "bundled T2080 MUCH data")
    click.echo(
        f"{method}: merged {len(readings)} groups of {source} into {merged.shape[0]} runs x {merged.shape[1]} events"
    )
    info = merged.attrs.get("hemkit", {})
    if info.get("repaired"):
        click.echo("  the pairwise correlation matrix was not positive definite: repaired (nearest correlation)")
    if info.get("imputed"):
        click.echo(f"  imputed {len(info['imputed'])} pair(s) never read together (maxdet)")
    if "pearson_weight" in info:
        click.echo(
            f"  Pearson weight {info['pearson_weight']:g}" + (" (chosen by holdout)" if info.get("holdout_mse") else "")
        )
    if info.get("dropped"):
        click.echo(f"  dropped (dep_lvl): {', '.join(info['dropped'])}")
    summary = evaluate(merged, readings).summary()
    summary.index.name = "vs observed"
    _show("Merged vs observed pairwise correlations", summary)
    if output:
        write_table(merged, output)
        click.echo(f"wrote {output}")


@click.command()
@click.argument("merged", required=False, type=click.Path(dir_okay=False))
@click.option(
    "--truth",
    type=click.Path(dir_okay=False),
    help="Ground truth (all events read at once: wide CSV/Parquet) or grouped input readings.",
)
@click.option("--pmcs", type=int, help="--truth (or --holdout INPUT) is a mergingTools raw file.")
@click.option(
    "--holdout",
    "holdout_input",
    is_flag=False,
    flag_value="",
    default=None,
    help="Instead of MERGED: split INPUT's runs (default: bundled T2080 MUCH data), merge half, "
    "compare with the other half.",
)
@click.option("--methods", default="much,copula", show_default=True, help="Methods for --holdout.")
@click.option("--anchor", help="Anchor for hrm in --holdout.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--pairs", type=click.Path(dir_okay=False), help="Write per-pair differences (CSV).")
@click.option("--plot", type=click.Path(dir_okay=False), help="PNG of sorted per-pair differences.")
def evaluate(merged, truth, pmcs, holdout_input, methods, anchor, seed, pairs, plot):
    """How well MERGED keeps the pairwise correlations of TRUTH (Pearson and Spearman).

    TRUTH is either a full table read all at once (columns = events) or grouped readings
    (tidy or raw), whose observed pairwise correlations are then the reference.
    """
    from hemkit.evaluate import evaluate as run_evaluate
    from hemkit.evaluate import holdout, plot_pair_differences
    from hemkit.io import read_table

    if holdout_input is not None:
        readings = load_input(holdout_input or None, pmcs=pmcs, codes=None)
        names = [m.strip() for m in methods.split(",") if m.strip()]
        bad = [m for m in names if m not in ("hrm", "much", "copula")]
        if bad:
            raise HemkitError(f"unknown method {bad[0]!r} in --methods")
        options = {"seed": seed}
        fns = {}
        from hemkit.merge import merge as run_merge

        for m in names:
            if m == "hrm":
                a = anchor or (readings.events[0] if holdout_input == "" else None)
                if a is None:
                    raise HemkitError("hrm in --holdout needs --anchor")
                fns[m] = lambda r, a=a: run_merge(r, "hrm", anchor=a)
            else:
                fns[m] = lambda r, m=m: run_merge(r, m, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HemkitWarning)
            results = holdout(readings, fns, seed=seed)
    else:
        if merged is None or truth is None:
            raise HemkitError("give MERGED and --truth, or --holdout [INPUT]")
        table = read_table(merged)
        if {"group", "run", "event", "value"} <= set(table.columns):
            raise HemkitError(f"{merged}: looks like grouped readings, not a merged table (one column per event)")
        nonnum = [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c])]
        if nonnum:
            raise HemkitError(f"{merged}: column {nonnum[0]!r} is not numeric")
        tt = read_table(truth)
        if pmcs is not None or {"group", "run", "event", "value"} <= set(tt.columns):
            reference = load_input(truth, pmcs=pmcs, codes=None)
        else:
            bad = [c for c in tt.columns if not pd.api.types.is_numeric_dtype(tt[c])]
            if bad:
                raise HemkitError(f"{truth}: column {bad[0]!r} is not numeric")
            if tt.isna().any().any():
                raise HemkitError(f"{truth}: has NaN in column {tt.columns[tt.isna().any()][0]!r}")
            reference = tt
        if table.isna().any().any():
            raise HemkitError(f"{merged}: has NaN in column {table.columns[table.isna().any()][0]!r}")
        results = {Path(merged).stem: run_evaluate(table, reference)}
    rows = pd.DataFrame(
        {
            name: {
                "pairs": int(ev.pairs["diff_pearson"].notna().sum()),
                "pearson_mse": ev.mse("pearson"),
                "pearson_max": ev.max_abs("pearson"),
                "spearman_mse": ev.mse("spearman"),
                "spearman_max": ev.max_abs("spearman"),
            }
            for name, ev in results.items()
        }
    ).T
    rows.index.name = "method"
    _show("Pairwise correlation differences", rows)
    if pairs:
        from hemkit.io import write_table

        write_table(pd.concat({n: e.pairs for n, e in results.items()}, names=["method"]).reset_index(), pairs)
        click.echo(f"wrote {pairs}")
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = plot_pair_differences(results)
        ax.figure.savefig(plot, dpi=120, bbox_inches="tight")
        click.echo(f"wrote {plot}")
