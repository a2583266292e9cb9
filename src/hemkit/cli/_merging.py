"""The merge options of every command that merges (``hemkit merge``, ``hemkit report``), and their routing.

One list of options, one help text each, and one function that turns them into the keyword
arguments of :func:`hemkit.merge.merge` for the chosen method, so the two commands take the
same options and mean the same by them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import click

from hemkit.cli._options import given as given_on_command_line
from hemkit.merge.api import METHODS

F = TypeVar("F", bound=Callable[..., Any])

#: the merge methods, the default first: the library's one list
MERGE_METHODS = list(METHODS)


class _Weight(click.ParamType):
    """``auto`` or a number in [0, 1]."""

    name = "auto|W"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, float) or value == "auto":
            return value
        try:
            w = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is neither 'auto' nor a number in [0, 1]", param, ctx)
        if not 0 <= w <= 1:
            self.fail(f"{w:g} is not in [0, 1]", param, ctx)
        return w


@dataclass(frozen=True)
class MergeChoice:
    """The per-method merge options as given on the command line."""

    anchor: str | None = None
    impute: str | None = None
    n_sims: int = 100
    mode: str = "hemkit"
    criterion: str | None = None
    dep_lvl: float | None = None
    outliers: str = "keep"
    z: float = 3.0
    pearson_weight: Any = "auto"
    tails: float = 6.0
    linear: float = 0.5
    ranks: bool = False
    factor: Any = "auto"
    rows: int | None = None
    jobs: int = 1
    #: the options given on the command line (not left at their defaults)
    given: tuple[str, ...] = ()

    def check(self, method: str) -> None:
        """Refuse an option given for another method: ``-m joint --anchor cycles`` merged with joint, anchor unused."""
        for name in self.given:
            methods = _APPLIES.get(name)
            if methods is not None and method not in methods:
                flag = "--" + name.replace("_", "-")
                them = " or ".join(f"-m {m}" for m in methods)
                raise click.BadParameter(
                    f"applies to {them}, not -m {method}: pass {them}, or leave {flag} out", param_hint=f"'{flag}'"
                )

    def kwargs(self, method: str, *, progress: bool = False) -> dict[str, Any]:
        """The keyword arguments of :func:`hemkit.merge.merge` that ``method`` takes (``jobs`` aside)."""
        if method == "hrm":
            return {"anchor": self.anchor, "rows": self.rows}
        if method == "much":
            return {
                "n_sims": self.n_sims,
                "mode": self.mode,
                "rows": self.rows,
                "impute": self.impute,
                "criterion": self.criterion,
                "dep_lvl": self.dep_lvl,
                "outliers": self.outliers,
                "z": self.z,
                "progress": progress,
            }
        if method == "copula":
            opts = {"pearson_weight": self.pearson_weight, "rows": self.rows, "impute": self.impute}
            return {**opts, "outliers": self.outliers, "z": self.z}
        joint = {"tails": self.tails or None, "linear": self.linear, "ranks": self.ranks, "factor": self.factor}
        return {"rows": self.rows, "impute": self.impute, **joint, "progress": progress}


_OPTIONS = [
    click.option("--anchor", help="HRM anchor event (read in every group)."),
    click.option(
        "--impute", type=click.Choice(["maxdet"]), help="Fill pairs never read together (else an error naming them)."
    ),
    click.option(
        "--n-sims",
        type=click.IntRange(min=1),
        default=100,
        show_default=True,
        help="MUCH: draws tried (warns under 30).",
    ),
    click.option(
        "--mode",
        type=click.Choice(["hemkit", "paper"]),
        default="hemkit",
        show_default=True,
        help="MUCH: 'paper' follows the SAC 2021 paper as written.",
    ),
    click.option(
        "--criterion",
        type=click.Choice(["arranged", "sample"]),
        help="MUCH: judge draws by the arranged readings or the sample.",
    ),
    click.option(
        "--dep-lvl",
        type=click.FloatRange(0, 1, min_open=True),
        help="MUCH: mergingTools' dropping of dependent events.",
    ),
    click.option(
        "--outliers", type=click.Choice(["keep", "zscore"]), default="keep", show_default=True, help="MUCH, copula."
    ),
    click.option(
        "--z",
        "z",
        type=click.FloatRange(0, min_open=True),
        default=3.0,
        show_default=True,
        help="z of --outliers zscore.",
    ),
    click.option(
        "--pearson-weight", type=_Weight(), default="auto", show_default=True, help="copula: 0 ranks .. 1 Pearson."
    ),
    click.option(
        "--tails",
        type=click.FloatRange(0),
        default=6.0,
        show_default=True,
        help="joint: robust z above which readings are placed to match Pearson (0: off).",
    ),
    click.option(
        "--linear",
        type=click.FloatRange(0, 1),
        default=0.5,
        show_default=True,
        help="joint: weight of a Gaussian fitted to the raw readings of all groups in the merged correlations "
        "(0: the copula likelihood fit alone; BENCHMARKS.md compares them).",
    ),
    click.option(
        "--ranks/--no-ranks",
        default=False,
        show_default=True,
        help="joint: correct the arrangement so merged Spearman correlations match (heavy-tailed hardware "
        "counters read for ranks: --ranks --linear 0).",
    ),
    click.option(
        "--factor",
        type=_Weight(),
        default="auto",
        show_default=True,
        help="joint: pull each pair toward a factor model of all pairs: 'auto' chooses the model (1-4 factors) "
        "and each pair's weight from the data (BENCHMARKS.md); a number in [0, 1] is a fixed weight of one "
        "factor (for events that all follow one quantity); 0: off.",
    ),
    click.option("--rows", type=click.IntRange(min=3), help="Rows of the merged table (default: every reading)."),
    click.option(
        "--jobs",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="Threads for sorts and ranks; the result is the same for any number.",
    ),
]

#: the parameter names of the shared options (the fields of MergeChoice)
NAMES = tuple(f.name for f in fields(MergeChoice) if f.name != "given")

#: the methods each option is for (those not listed, rows and jobs, are for every method)
_APPLIES: dict[str, tuple[str, ...]] = {
    "anchor": ("hrm",),
    "impute": ("joint", "copula", "much"),
    **dict.fromkeys(("n_sims", "mode", "criterion", "dep_lvl"), ("much",)),
    **dict.fromkeys(("outliers", "z"), ("copula", "much")),
    "pearson_weight": ("copula",),
    **dict.fromkeys(("tails", "linear", "ranks", "factor"), ("joint",)),
}


def merge_options(anchor_help: str = "") -> Callable[[F], F]:
    """Add the per-method merge options; the command receives them as one ``merging: MergeChoice``."""

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            ctx = click.get_current_context()
            given = tuple(n for n in NAMES if given_on_command_line(n, ctx))
            choice = MergeChoice(**{name: kwargs.pop(name) for name in NAMES}, given=given)
            return f(*args, merging=choice, **kwargs)

        options = list(_OPTIONS)
        if anchor_help:
            options[0] = click.option("--anchor", help=anchor_help)
        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper  # type: ignore[return-value]

    return decorate
