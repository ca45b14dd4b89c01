"""Data commands: generate, ingest, sql, summary, estimate, import pollux / philly."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from flows import defaults
from flows.cli.common import (
    OutputsOpt,
    WarehouseOpt,
    err,
    iso_time,
    out,
    print_counts,
    print_written,
    whole_table,
)
from warehouse.errors import EtplanError

app = typer.Typer()


class Feed(StrEnum):
    job_events = "job_events"
    throughput_samples = "throughput_samples"
    capacity = "capacity"
    tenant_quotas = "tenant_quotas"


class LogFormat(StrEnum):
    csv = "csv"
    jsonl = "jsonl"
    parquet = "parquet"
    mixed = "mixed"


class OutFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


NUMBER = (int, float, Decimal)
FEED_SHORT = {"job_events": "events", "throughput_samples": "samples",
              "tenant_quotas": "quotas"}  # fit 80 columns
ProfilesOpt = Annotated[Path, typer.Option(
    "--profiles", help="Folder of measured profiles (…/pollux/traces).")]
StartOpt = Annotated[datetime, typer.Option(parser=iso_time, metavar="TIME",
                                           help="Time of the workload's second 0, ISO 8601.")]
PoolOpt = Annotated[int, typer.Option(
    min=1, help="Pool size in nodes (a node is one GPU in the imported traces).")]
ElasticOpt = Annotated[str | None, typer.Option(
    "--elastic-range", metavar="LO,HI", help="Each job's range: [⌈LO·req⌉, min(⌊HI·req⌋, "
    "largest measured size)], 0 < LO ≤ 1 ≤ HI (default: 1 to the largest).")]


@app.command()
def generate(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the logs into.")],
    jobs: Annotated[int, typer.Option(min=1, max=10_000_000, help="Number of jobs.")
                ] = defaults.SYNTHETIC_JOBS,
    seed: Annotated[int, typer.Option(min=0, help="Random seed; same seed, same bytes.")
                    ] = defaults.SYNTHETIC_SEED,
    capacity: Annotated[int, typer.Option(min=1, help="Nodes in the pool.")
                        ] = defaults.POOL_NODES,
    load: Annotated[float, typer.Option(min=0.05, max=5.0,
                                        help="Offered load as a share of capacity.")] = 0.9,
    bad_rows: Annotated[float, typer.Option("--bad-rows", min=0.0, max=0.5,
                                            help="Share of rows to corrupt.")] = 0.0,
    fmt: Annotated[LogFormat, typer.Option("--format",
                                           help="File format; mixed = csv/parquet/jsonl.")
                   ] = LogFormat.csv,
) -> None:
    """Write deterministic synthetic platform logs (job events, throughput samples, capacity)."""
    from flows.usecases.data import generate_logs

    print_written(generate_logs(out_dir, jobs, seed, capacity=capacity, load=load,
                                bad_rows=bad_rows, fmt=fmt.value))


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Log files or folders of them.")],
    feed: Annotated[Feed | None, typer.Option(help="Feed of every file (default: recognised "
                                                    "from the columns).")] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """Load platform job logs (CSV, JSON Lines, Parquet) into the warehouse."""
    from flows.usecases.data import ingest as run_ingest
    from warehouse.connection import warehouse_path

    with out.status("ingesting…"):
        results = run_ingest(paths, warehouse, feed=feed.value if feed else None)
    folder = common_folder([Path(r.path) for r in results])
    out.print(f"ingest into {warehouse_path(warehouse)} from {folder}", highlight=False)
    names = [str(Path(r.path).relative_to(folder)) for r in results]
    out.print(ingest_table(names, results))
    for name, r in zip(names, results, strict=True):
        if r.message and r.status != "failed":
            out.print(f"{name}: {r.message}", highlight=False, markup=False)
    if any(r.rows_rejected for r in results):
        out.print("rejected rows are in the table rejected_rows; to see them:\n"
                  "  etplan sql \"SELECT path, row_no, rule, reason FROM rejected_rows\"")
    failed = [r for r in results if r.status == "failed"]
    for r in failed:
        err.print(f"error: {r.path}: {r.message}", highlight=False, soft_wrap=True)
    if failed:
        raise typer.Exit(1)


INGEST_COLUMNS = ("file", "feed", "status", "read", "loaded", "rejected")


def ingest_table(names: list[str], results: list) -> Table:
    """One row per file, every cell whole (`whole_table`): rows read, loaded and rejected."""
    rows = [(name, FEED_SHORT.get(r.feed, r.feed or "-"), r.status, f"{r.rows_read:,}",
             f"{r.rows_loaded:,}", f"{r.rows_rejected:,}")
            for name, r in zip(names, results, strict=True)]
    return whole_table(list(INGEST_COLUMNS), rows, right_from=3, styles=[
        {"failed": "red", "skipped": "dim"}.get(r.status, "") for r in results])


def common_folder(paths: list[Path]) -> Path:
    """The folder every path is in (the table then shows each path relative to it)."""
    parents = [p.parent for p in paths] or [Path(".")]
    return Path(os.path.commonpath([str(p) for p in parents])) if len(
        {p.is_absolute() for p in parents}) == 1 else Path("/")


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="SQL to run, read-only.")],
    fmt: Annotated[OutFormat, typer.Option(
        "--format", help="table (vertical when too wide), csv, json; parquet needs --out.")
                   ] = OutFormat.table,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the result here.")] = None,
    outputs: OutputsOpt = defaults.OUTPUTS,
    warehouse: WarehouseOpt = None,
) -> None:
    """Run SQL read-only against the warehouse; the views plans, latest_plan, kpis and
    kpi_jobs read the Parquet outputs."""
    from flows.usecases.data import export_rows, rows_as_text
    from flows.usecases.data import query as run_query

    if fmt is OutFormat.parquet and out_file is None:
        raise EtplanError("--format parquet needs --out FILE")
    columns, rows = run_query(query, outputs, warehouse)
    if out_file:
        export_rows(columns, rows, fmt.value, out_file)
        out.print(f"{len(rows)} rows written to {out_file}")
    elif fmt is OutFormat.table:
        print_result(columns, rows)
    else:
        sys.stdout.write(rows_as_text(columns, rows, fmt.value))


def cell(v) -> str:
    """A value as the table shows it: numbers with thousands separators, floats rounded."""
    if v is None:
        return ""
    if isinstance(v, bool) or not isinstance(v, NUMBER):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:,.3f}".rstrip("0").rstrip(".") if abs(v) < 1e15 else f"{v:.4g}"


def print_result(columns: list[str], rows: list[tuple]) -> None:
    """A query result as a table, numbers right-aligned; when its columns do not fit the
    terminal, one block per row (column | value), like psql's expanded display."""
    texts = [[cell(v) for v in r] for r in rows]
    numeric = [all(isinstance(r[i], NUMBER) and not isinstance(r[i], bool)
                   for r in rows if r[i] is not None) and any(r[i] is not None for r in rows)
               for i in range(len(columns))]
    widths = [max([len(c), *(len(t[i]) for t in texts)]) for i, c in enumerate(columns)]
    if sum(widths) + 3 * len(columns) + 1 <= out.width:
        table = Table()
        for c, num in zip(columns, numeric, strict=True):
            table.add_column(c, justify="right" if num else "left", no_wrap=True)
        for t in texts:
            table.add_row(*t)
        out.print(table)
        return
    name_width = max(len(c) for c in columns)
    for n, t in enumerate(texts, 1):
        out.print(f"-[ row {n} ]" + "-" * max(0, min(out.width, 40) - 10 - len(str(n))),
                  highlight=False)
        for c, v in zip(columns, t, strict=True):
            out.print(f"{c:<{name_width}} | {v}", highlight=False, markup=False)
    out.print(f"({len(texts)} rows)", highlight=False)


@app.command()
def summary(warehouse: WarehouseOpt = None) -> None:
    """What the warehouse holds."""
    from flows.usecases.data import summary as warehouse_summary

    print_counts("warehouse", ("what", "count"), warehouse_summary(warehouse))


@app.command()
def estimate(warehouse: WarehouseOpt = None) -> None:
    """Fit a throughput curve for every job from its samples (replaces throughput_curves)."""
    from flows.usecases.data import estimate as run_estimate
    from flows.usecases.plans import require_warehouse

    path = require_warehouse(warehouse)
    with out.status("estimating throughput curves…"):
        counts = run_estimate(warehouse)
    if not any(counts.get(s, 0) for s in ("job", "model", "global")):
        raise EtplanError(f"{path}: no jobs to estimate; run `etplan ingest` first")
    print_counts("throughput curves", ("source", "jobs"),
                 [(s, counts.get(s, 0)) for s in ("job", "model", "global")])
    out.print(f"{counts.get('curve rows', 0):,} curve rows in {counts['seconds']} s; "
              "see the table throughput_curves and the view scaling_efficiency")


import_app = typer.Typer(no_args_is_help=True, help="Turn public traces into platform logs.")
app.add_typer(import_app, name="import")


@import_app.command("pollux")
def import_pollux(
    workload: Annotated[Path, typer.Argument(help="A Pollux workload-<k>.csv.")],
    profiles: ProfilesOpt,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the logs.")],
    seed: Annotated[int, typer.Option(min=0, help="Seed of the measurement noise.")] = 0,
    start: StartOpt = "2026-01-05T00:00:00Z",   # parsed by iso_time like a given value
    capacity: PoolOpt = defaults.POOL_NODES,
    elastic_range: ElasticOpt = None,
) -> None:
    """A Pollux workload as platform logs, with each job's true curve in truth.json."""
    from flows.usecases.data import import_pollux as run_import

    print_written(run_import(workload, profiles, out_dir, seed=seed,
                             start=start, capacity=capacity,
                             elastic_range=elastic_range))


@import_app.command("philly")
def import_philly(
    trace: Annotated[Path, typer.Argument(help="philly.csv of the Pollux artifact.")],
    start: Annotated[datetime, typer.Option(parser=iso_time, metavar="TIME",
                                            help="Slice start, ISO 8601 (the trace is "
                                                 "Oct–Dec 2017).")],
    hours: Annotated[float, typer.Option(min=0.01, max=24 * 366,
                                         help="Slice length in hours.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the logs.")],
    profiles: Annotated[Path | None, typer.Option(
        "--profiles", help="Measured profiles (default: the trace's folder).")] = None,
    jobs: Annotated[int | None, typer.Option(min=1, help="Sample this many jobs.")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the sampling and the noise.")] = 0,
    capacity: PoolOpt = defaults.POOL_NODES,
    elastic_range: ElasticOpt = None,
) -> None:
    """A slice of the Philly trace as platform logs, each job mapped to a measured model."""
    from flows.usecases.data import import_philly as run_import

    print_written(run_import(trace, profiles, out_dir, start=start,
                             hours=hours, jobs=jobs, seed=seed, capacity=capacity,
                             elastic_range=elastic_range))
