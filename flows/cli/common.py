"""What the command groups share: the consoles, the shared options, parsing of times, and the
printing of tables that more than one command shows."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from flows import defaults
from solver.instance import (
    DEFAULT_RESCALE_PENALTY,
    SHORT_SLOT_RESCALE_PENALTY,
    SHORT_SLOT_SECONDS,
)
from solver.policies import POLICIES, SOLVERS
from warehouse.outputs import PARTITION_VALUE

# soft wrap: a line longer than the terminal is never broken by rich, so paths and commands
# stay whole for copy-paste and in pipes (tables still fit the width). No markup nor emoji
# codes: data and paths are printed as they are ("[/x]" in a row or a file name would raise
# rich's MarkupError, ":x:" would become an emoji)
out = Console(soft_wrap=True, markup=False, emoji=False)
err = Console(stderr=True, soft_wrap=True, markup=False, emoji=False)

WarehouseOpt = Annotated[Path | None, typer.Option(
    "--warehouse", envvar="ETPLAN_WAREHOUSE",
    help=f"DuckDB warehouse file (default {defaults.WAREHOUSE}).")]
OutputsOpt = Annotated[Path, typer.Option(
    "--outputs", envvar="ETPLAN_OUTPUTS", help="Folder of Parquet plans, KPIs and reports.")]
PreemptionOpt = Annotated[bool, typer.Option(
    "--preemption", help="Let the MIP stop running jobs before they finish (drops DESIGN §4's "
                         "no-preemption rule); a stop costs the rescale penalty, as a resize.")]


def plain_run_id(value: str | None) -> str | None:
    """A run id names a folder: no '/', no '..' (it would write outside outputs/…/run_id=)."""
    if value is not None and not PARTITION_VALUE.fullmatch(value):
        raise typer.BadParameter(f"{value!r}: use 1 to 100 letters, digits, '.', '_', '-' or "
                                 "'+', not starting with '.'")
    return value


RunIdOpt = Annotated[str | None, typer.Option(
    "--run-id", callback=plain_run_id,
    help="Names the outputs' run_id= folder (default: time + random); a rerun with the same id "
         "replaces them.")]
# the replay's options (backtest, sweep)
ReplayWindowOpt = Annotated[float, typer.Option("--window", min=1.0,
                                                help="Seconds between plans.")]
ReplaySlotsOpt = Annotated[int, typer.Option("--slots", min=1, help="Slots per plan.")]
ReplayTimeLimitOpt = Annotated[float, typer.Option("--time-limit", min=0.01,
                                                   help="MIP seconds per window.")]


def iso_time(text: str | datetime) -> datetime:
    """The option type of every time option: ISO 8601, an aware datetime (UTC when no zone is
    given); anything else is a usage error naming the option (exit 2)."""
    if isinstance(text, datetime):
        return text
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not an ISO 8601 time "
                                 "(e.g. 2017-10-09T06:00:00Z)") from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


AtOpt = Annotated[datetime | None, typer.Option(
    parser=iso_time, metavar="TIME",
    help="Window start, ISO 8601 (default: the latest event in the warehouse).")]
# the churn rules of DESIGN §4.1; None: not given (the instance's, or solver.instance's default)
MaxRescalesOpt = Annotated[int | None, typer.Option(
    "--max-rescales", min=0, metavar="N",
    help="At most N running jobs change size in a window's first slot (a start is not a "
         "rescale). Default: no budget.")]
CooldownOpt = Annotated[float | None, typer.Option(
    "--cooldown", min=0.0, metavar="SECONDS",
    help="A running job whose size changed less than SECONDS ago keeps its size in a window's "
         "first slot. Default: none.")]
RescalePenaltyOpt = Annotated[float | None, typer.Option(
    "--rescale-penalty", min=0.0, max=1e6, metavar="K",
    help=f"κ: node-slots taken off the objective for each slot in which a job changes size "
         f"(default {SHORT_SLOT_RESCALE_PENALTY:g} with slots of at most "
         f"{SHORT_SLOT_SECONDS:g} s, else {DEFAULT_RESCALE_PENALTY:g}).")]

# the choices the solver package offers (named there, light to import)
Policy = StrEnum("Policy", [(p, p) for p in POLICIES])
SolverName = StrEnum("SolverName", [(s, s) for s in SOLVERS])

COMPARED = ("completed", "mean_queue_s", "p95_queue_s", "mean_jct_s", "p95_jct_s", "mean_run_s",
            "makespan_s", "utilization", "gpu_efficiency", "speedup_vs_static", "rescales",
            "rescales_per_job", "decision_p50_s",
            "decision_p95_s")
FRACTIONS = ("util", "gpu_", "speedup", "rescales_", "dec")  # KPIs shown with 3 decimals


def churn_given(max_rescales: int | None, cooldown: float | None,
                penalty: float | None) -> dict[str, int | float]:
    """The churn options given on the command line, as `Instance` / `ChurnRules` fields."""
    given = {"max_rescales": max_rescales, "cooldown_seconds": cooldown,
             "rescale_penalty": penalty}
    return {k: v for k, v in given.items() if v is not None}


ChurnGiven = Mapping[str, int | float]
NO_CHURN: ChurnGiven = MappingProxyType({})


def churn_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give a command the three churn options (--max-rescales, --cooldown, --rescale-penalty):
    typer sees them in its signature, the command gets them as one `churn` dict of the ones
    given (`churn_given`). Declared once here instead of in every command's signature."""
    sig = inspect.signature(command, eval_str=True)
    kept = [p for p in sig.parameters.values() if p.name != "churn"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                               annotation=option)
             for name, option in (("max_rescales", MaxRescalesOpt), ("cooldown", CooldownOpt),
                                  ("rescale_penalty", RescalePenaltyOpt))]

    @functools.wraps(command)
    def with_churn(*args, max_rescales: int | None = None, cooldown: float | None = None,
                   rescale_penalty: float | None = None, **kwargs) -> None:
        command(*args, churn=churn_given(max_rescales, cooldown, rescale_penalty), **kwargs)

    with_churn.__signature__ = sig.replace(parameters=kept + added)  # type: ignore[attr-defined]
    return with_churn


def say(line: str) -> None:
    """One line as it is: no wrapping, no highlighting (paths, URLs and commands to copy)."""
    out.print(line, soft_wrap=True, highlight=False)


def print_written(written: dict[str, Path]) -> None:
    for name, path in written.items():
        out.print(f"{name:<19} {path}", highlight=False)


def whole_table(headers: list[str], rows: list[tuple[str, ...]], *, right_from: int,
                title: str | None = None, styles: list[str] | None = None) -> Table:
    """A table whose cells are never cut: each column as wide as its longest cell (on a narrow
    terminal or in a pipe, 80 columns, it runs wider instead); columns from `right_from` on
    right-aligned."""
    table = Table(title=title)
    for i, head in enumerate(headers):
        table.add_column(head, justify="right" if i >= right_from else "left", no_wrap=True,
                         min_width=max([len(head), *(len(row[i]) for row in rows)]))
    for i, row in enumerate(rows):
        table.add_row(*row, style=styles[i] if styles else None)
    return table


def print_comparison(doc: dict) -> None:
    """The backtest summary: one column per policy, ratios vs greedy in brackets."""
    pols = doc["policies"]
    ratios = doc.get("ratios_vs_greedy", {})
    rows = []
    for key in COMPARED:
        cells = []
        for p, s in pols.items():
            v = s.get(key)
            text = "-" if v is None else (f"{v:,.3f}" if key.startswith(FRACTIONS)
                                          else f"{v:,.0f}")
            r = ratios.get(p, {}).get(key)
            cells.append(text + (f" ({r:.2f})" if r is not None and p != "greedy" else ""))
        rows.append((key, *cells))
    title = f"backtest, {doc.get('engine', 'windowed')} replay" + (
        " (ratio vs greedy in brackets)" if ratios else "")
    out.print(whole_table(["KPI", *pols], rows, right_from=1, title=title))


def print_counts(title: str, head: tuple[str, str], rows: list[tuple[str, int]]) -> None:
    """A two-column table of counts."""
    table = Table(title=title)
    table.add_column(head[0])
    table.add_column(head[1], justify="right")
    for what, n in rows:
        table.add_row(what, f"{n:,}")
    out.print(table)
