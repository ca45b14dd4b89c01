"""The `etplan` command line. It prints; the packages below it only log."""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from solver import POLICIES, SOLVERS
from warehouse.errors import EtplanError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="etplan — plan node allocations for elastic deep-learning training jobs.")
out = Console()
err = Console(stderr=True)

WarehouseOpt = Annotated[Path | None, typer.Option(
    "--warehouse", envvar="ETPLAN_WAREHOUSE",
    help="DuckDB warehouse file (default data/etplan.duckdb).")]
PreemptionOpt = Annotated[bool, typer.Option(
    "--preemption", help="Let the MIP stop running jobs before they finish (drops DESIGN §4's "
                         "no-preemption rule).")]


class Feed(StrEnum):
    job_events = "job_events"
    throughput_samples = "throughput_samples"
    capacity = "capacity"


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


@app.command()
def generate(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the logs into.")],
    jobs: Annotated[int, typer.Option(min=1, help="Number of jobs.")] = 200,
    seed: Annotated[int, typer.Option(help="Random seed; same seed, same bytes.")] = 7,
    capacity: Annotated[int, typer.Option(min=1, help="Nodes in the pool.")] = 64,
    load: Annotated[float, typer.Option(min=0.05, max=5.0,
                                        help="Offered load as a share of capacity.")] = 0.9,
    bad_rows: Annotated[float, typer.Option("--bad-rows", min=0.0, max=0.5,
                                            help="Share of rows to corrupt.")] = 0.0,
    fmt: Annotated[LogFormat, typer.Option("--format",
                                           help="File format; mixed = csv/parquet/jsonl.")
                   ] = LogFormat.csv,
) -> None:
    """Write deterministic synthetic platform logs (job events, throughput samples, capacity)."""
    from warehouse.synthetic import write_logs

    if fmt is LogFormat.mixed:
        formats = {"job_events": "csv", "throughput_samples": "parquet", "capacity": "jsonl"}
    else:
        formats = dict.fromkeys(("job_events", "throughput_samples", "capacity"), fmt.value)
    written = write_logs(out_dir, jobs, seed, capacity=capacity, load=load, bad_rows=bad_rows,
                         formats=formats)
    for name, path in written.items():
        out.print(f"{name:<19} {path}")


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Log files or folders of them.")],
    feed: Annotated[Feed | None, typer.Option(help="Feed of every file (default: recognised "
                                                    "from the columns).")] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """Load platform job logs (CSV, JSON Lines, Parquet) into the warehouse."""
    from warehouse.connection import connect, warehouse_path
    from warehouse.ingest import ingest_paths

    con = connect(warehouse)
    with out.status("ingesting…"):
        results = ingest_paths(con, paths, feed=feed.value if feed else None)
    con.close()
    table = Table(title=f"ingest into {warehouse_path(warehouse)}")
    table.add_column("file", overflow="fold")
    for col in ("feed", "status", "read", "loaded", "rejected"):
        table.add_column(col, justify="right" if col in ("read", "loaded", "rejected") else "left",
                         no_wrap=True)
    table.add_column("note", overflow="fold")
    for r in results:
        style = {"failed": "red", "skipped": "dim"}.get(r.status, "")
        table.add_row(r.path, r.feed or "-", r.status, f"{r.rows_read:,}", f"{r.rows_loaded:,}",
                      f"{r.rows_rejected:,}", r.message, style=style)
    out.print(table)
    if any(r.rows_rejected for r in results):
        out.print("rejected rows are in the table rejected_rows: "
                  "etplan sql \"SELECT * FROM rejected_rows\"")
    failed = [r for r in results if r.status == "failed"]
    for r in failed:
        err.print(f"error: {r.path}: {r.message}", highlight=False, soft_wrap=True)
    if failed:
        raise typer.Exit(1)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="SQL to run, read-only.")],
    fmt: Annotated[OutFormat, typer.Option("--format")] = OutFormat.table,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the result here.")] = None,
    outputs: OutputsOpt = Path("data/out"),
    warehouse: WarehouseOpt = None,
) -> None:
    """Run SQL read-only against the warehouse; the views plans, latest_plan, kpis and
    kpi_jobs read the Parquet outputs."""
    from warehouse.connection import connect
    from warehouse.queries import run_sql

    if fmt is OutFormat.parquet and out_file is None:
        raise EtplanError("--format parquet needs --out FILE")
    from warehouse.plans import attach_output_views

    con = connect(warehouse, read_only=True)
    attach_output_views(con, outputs)
    columns, rows = run_sql(con, query)
    if fmt is OutFormat.parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        _out_dir(out_file)
        pq.write_table(pa.table({c: [r[i] for r in rows] for i, c in enumerate(columns)}),
                       out_file)
        out.print(f"{len(rows)} rows written to {out_file}")
        return
    if fmt is OutFormat.table and out_file is None:
        table = Table()
        for c in columns:
            table.add_column(c)
        for r in rows:
            table.add_row(*("" if v is None else str(v) for v in r))
        out.print(table)
        return
    buf = io.StringIO()
    if fmt is OutFormat.json:
        json.dump([dict(zip(columns, r, strict=True)) for r in rows], buf, default=str, indent=1)
        buf.write("\n")
    else:
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        w.writerows(rows)
    if out_file:
        _write_text(out_file, buf.getvalue())
        out.print(f"{len(rows)} rows written to {out_file}")
    else:
        sys.stdout.write(buf.getvalue())


@app.command()
def summary(warehouse: WarehouseOpt = None) -> None:
    """What the warehouse holds."""
    from warehouse.connection import connect
    from warehouse.queries import summary as warehouse_summary

    con = connect(warehouse, read_only=True)
    _print_summary(warehouse_summary(con))


@app.command()
def estimate(warehouse: WarehouseOpt = None) -> None:
    """Fit a throughput curve for every job from its samples (replaces throughput_curves)."""
    from warehouse.connection import connect
    from warehouse.estimate import estimate as run_estimate

    con = connect(warehouse)
    with out.status("estimating throughput curves…"):
        counts = run_estimate(con)
    con.close()
    table = Table(title="throughput curves")
    table.add_column("source")
    table.add_column("jobs", justify="right")
    for source in ("job", "model", "global"):
        table.add_row(source, f"{counts.get(source, 0):,}")
    out.print(table)
    out.print(f"{counts.get('curve rows', 0):,} curve rows in {counts['seconds']} s; "
              "see the views throughput_curves and scaling_efficiency")


import_app = typer.Typer(no_args_is_help=True, help="Turn public traces into platform logs.")
app.add_typer(import_app, name="import")

ProfilesOpt = Annotated[Path, typer.Option(
    "--profiles", help="Folder of measured profiles (…/pollux/traces).")]


def _parse_time(text: str, option: str):
    from datetime import UTC, datetime

    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise EtplanError(f"{option} {text!r}: not an ISO 8601 time "
                          "(e.g. 2017-10-09T06:00:00Z)") from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _out_dir(path: Path) -> None:
    """Create the folder an --out file goes into; a one-line error when that cannot be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EtplanError(f"{path}: cannot create its folder ({e.strerror})") from None


def _write_text(path: Path, text: str) -> None:
    _out_dir(path)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise EtplanError(f"{path}: cannot write ({e.strerror})") from None


def _print_written(written: dict[str, Path]) -> None:
    for name, path in written.items():
        out.print(f"{name:<19} {path}")


def _check_profiles(profiles: Path) -> None:
    if not (profiles / "cifar10" / "placements.csv").is_file():
        raise EtplanError(f"--profiles {profiles}: no measured profiles here "
                          "(expected <model>/placements.csv, e.g. ../shared/data/pollux/traces)")


@import_app.command("pollux")
def import_pollux_cmd(
    workload: Annotated[Path, typer.Option(help="A Pollux workload-<k>.csv.")],
    profiles: ProfilesOpt,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the logs.")],
    seed: Annotated[int, typer.Option(help="Seed of the measurement noise.")] = 0,
    start: Annotated[str, typer.Option(help="Time of the workload's second 0.")
                     ] = "2026-01-05T00:00:00Z",
    capacity: Annotated[int, typer.Option(min=1, help="Pool size (GPUs).")] = 64,
) -> None:
    """A Pollux workload as platform logs, with each job's true curve in truth.json."""
    from warehouse.importers import import_pollux

    _check_profiles(profiles)
    _print_written(import_pollux(workload, profiles, out_dir, seed=seed,
                                 start=_parse_time(start, "--start"), capacity=capacity))


@import_app.command("philly")
def import_philly_cmd(
    trace: Annotated[Path, typer.Option(help="philly.csv of the Pollux artifact.")],
    start: Annotated[str, typer.Option(help="Slice start, ISO 8601 (the trace is Oct–Dec 2017).")],
    hours: Annotated[float, typer.Option(min=0.01, help="Slice length in hours.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the logs.")],
    profiles: Annotated[Path | None, typer.Option(
        "--profiles", help="Measured profiles (default: the trace's folder).")] = None,
    jobs: Annotated[int | None, typer.Option(min=1, help="Sample this many jobs.")] = None,
    seed: Annotated[int, typer.Option()] = 0,
    capacity: Annotated[int, typer.Option(min=1)] = 64,
) -> None:
    """A slice of the Philly trace as platform logs, each job mapped to a measured model."""
    from warehouse.importers import import_philly

    if not trace.is_file():
        raise EtplanError(f"--trace {trace}: no such file")
    profiles = profiles or trace.parent
    _check_profiles(profiles)
    _print_written(import_philly(trace, profiles, out_dir, start=_parse_time(start, "--start"),
                                 hours=hours, jobs=jobs, seed=seed, capacity=capacity))


# the choices the solver package offers (named there, light to import)
Policy = StrEnum("Policy", [(p, p) for p in POLICIES])
SolverName = StrEnum("SolverName", [(s, s) for s in SOLVERS])


@app.command()
def solve(
    instance: Annotated[Path, typer.Argument(help="Window instance JSON (DESIGN §3.3).")],
    policy: Annotated[Policy, typer.Option()] = Policy.mip,
    solver: Annotated[SolverName, typer.Option(
        help="auto = column generation, and when it does not prove the gap the full MIP on "
             "Gurobi (if its licence admits the model) or HiGHS; columns = the same with "
             "HiGHS; gurobi / highs = the full MIP on that backend only.")
                      ] = SolverName.auto,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.01, help="Seconds.")] = 10.0,
    gap: Annotated[float, typer.Option(min=0.0, max=1.0, help="Relative MIP gap.")] = 1e-4,
    threads: Annotated[int, typer.Option(min=1)] = 1,
    preemption: PreemptionOpt = False,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the plan JSON here "
                                                                "(default: stdout).")] = None,
) -> None:
    """Plan one window: the MIP of DESIGN §4, or a baseline, as plan JSON."""
    from solver.instance import Instance, InvalidInstance
    from solver.policies import Settings, plan

    try:
        text = instance.read_text(encoding="utf-8")
    except OSError as e:
        raise EtplanError(f"{instance}: cannot read ({e.strerror})") from None
    try:
        inst = Instance.from_json(text)
    except InvalidInstance as e:
        raise EtplanError(f"{instance}: {e}") from None
    result = plan(inst, policy.value, Settings(solver=solver.value, time_limit=time_limit,
                                               gap=gap, threads=threads,
                                               preemption=preemption))
    if out_file:
        _write_text(out_file, result.to_json() + "\n")
        err.print(f"{result.policy} plan ({result.solver}, {result.status}, objective "
                  f"{result.objective:.6g}, {result.solve_seconds:.2f} s) written to {out_file}",
                  highlight=False)
    else:
        sys.stdout.write(result.to_json() + "\n")


@app.command("generate-instance")
def generate_instance(
    jobs: Annotated[int, typer.Option(min=1)] = 50,
    slots: Annotated[int, typer.Option(min=1)] = 6,
    capacity: Annotated[int | None, typer.Option(min=0, help="Nodes; default about 2/3 of "
                                                           "the jobs' requests.")] = None,
    seed: Annotated[int, typer.Option()] = 0,
    out_file: Annotated[Path | None, typer.Option("--out")] = None,
) -> None:
    """Write a random but realistic window instance (JSON)."""
    from solver.generate import random_instance

    text = random_instance(jobs, slots, capacity, seed).to_json() + "\n"
    if out_file:
        _write_text(out_file, text)
    else:
        sys.stdout.write(text)


@app.command()
def backtest(
    logs: Annotated[Path, typer.Option(help="Folder of platform logs (e.g. from etplan import).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for KPIs and summary.json.")],
    truth: Annotated[Path | None, typer.Option(help="True curves (default LOGS/truth.json).")
                     ] = None,
    policies: Annotated[str, typer.Option(help="Comma-separated: mip, optimus, greedy, fifo.")
                        ] = "mip,greedy,fifo",
    capacity: Annotated[int | None, typer.Option(min=1, help="Pool size; default: the "
                                                             "capacity feed.")] = None,
    window: Annotated[float, typer.Option(min=1.0, help="Seconds between plans.")] = 300.0,
    slots: Annotated[int, typer.Option(min=1, help="Slots per plan.")] = 6,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.01,
                                              help="MIP seconds per window.")] = 2.0,
    gap: Annotated[float, typer.Option(min=0.0, max=1.0)] = 1e-3,
    preemption: PreemptionOpt = False,
    replan_on_events: Annotated[bool, typer.Option(
        "--replan-on-events", help="Also re-plan at arrivals and completions.")] = False,
) -> None:
    """Replay policies on the same trace and compare their KPIs (ratios vs greedy)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from flows.backtest import backtest as run_backtest
    from replay.engine import ReplayConfig
    from solver.policies import Settings

    names = [p.strip() for p in policies.split(",") if p.strip()]
    unknown = [p for p in names if p not in POLICIES]
    if unknown or not names:
        bad = unknown[0] if unknown else ""
        raise EtplanError(f"--policies {policies}: unknown policy {bad!r}; "
                          f"use {', '.join(POLICIES)}")
    config = ReplayConfig(window=window, slots=slots, replan_on_events=replan_on_events,
                          settings=Settings(time_limit=time_limit, gap=gap,
                                            preemption=preemption))
    with Progress(TextColumn("{task.description:<8}"), BarColumn(),
                  TextColumn("{task.fields[sim]}"), TimeElapsedColumn(), console=err) as bar:
        tasks = {p: bar.add_task(p, total=1.0, sim="") for p in names}

        def progress(policy: str, done: float, total: float) -> None:
            # past the last arrival the replay drains the queue for a time nobody knows
            # in advance: the bar holds just short of full until the policy is done
            bar.update(tasks[policy], completed=min(done / total, 0.99),
                       sim=f"simulated {done / 3600:.1f} h")

        doc = run_backtest(logs, names, out_dir, truth=truth, capacity=capacity, config=config,
                           on_progress=progress)
        for p in names:
            bar.update(tasks[p], completed=1.0)
    from warehouse.report import write_report

    report = write_report(out_dir / "report.html", doc, out_dir / "kpis", None,
                          title=f"backtest of {logs}")
    _print_comparison(doc)
    out.print(f"KPIs: {out_dir / 'kpis'}  summary: {out_dir / 'summary.json'}  "
              f"report: {report}", soft_wrap=True)


def _print_comparison(doc: dict) -> None:
    pols = doc["policies"]
    ratios = doc.get("ratios_vs_greedy", {})
    table = Table(title="backtest (ratio vs greedy in brackets)")
    table.add_column("KPI")
    for p in pols:
        table.add_column(p, justify="right")
    for key in ("completed", "mean_queue_s", "p95_queue_s", "mean_jct_s", "p95_jct_s",
                "mean_run_s", "makespan_s", "utilization", "efficiency", "rescales",
                "decision_p50_s", "decision_p95_s"):
        cells = []
        for p, s in pols.items():
            v = s.get(key)
            text = "-" if v is None else (f"{v:,.3f}" if key.startswith(("util", "eff", "dec"))
                                          else f"{v:,.0f}")
            r = ratios.get(p, {}).get(key)
            cells.append(text + (f" ({r:.2f})" if r is not None and p != "greedy" else ""))
        table.add_row(key, *cells)
    out.print(table)


def _print_summary(rows: list[tuple[str, int]]) -> None:
    table = Table(title="warehouse")
    table.add_column("what")
    table.add_column("count", justify="right")
    for what, n in rows:
        table.add_row(what, f"{n:,}")
    out.print(table)


OutputsOpt = Annotated[Path, typer.Option(
    "--outputs", envvar="ETPLAN_OUTPUTS", help="Folder of Parquet plans, KPIs and reports.")]


@app.command()
def demo(
    data_dir: Annotated[Path, typer.Option("--data-dir", help="Where the demo logs go.")
                        ] = Path("data/demo-logs"),
    outputs: OutputsOpt = Path("data/out"),
    jobs: Annotated[int, typer.Option(min=1)] = 200,
    seed: Annotated[int, typer.Option()] = 7,
    run_id: Annotated[str | None, typer.Option("--run-id", help="Default demo-seed<S>; a "
                                                                "rerun replaces its outputs.")
                      ] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """The main job on the embedded default (Prefect's ephemeral API): generate a seeded trace,
    ingest it, estimate throughput curves, replay mip, greedy and fifo, plan the latest window,
    write the report."""
    from flows.pipeline import demo_flow
    from warehouse.connection import warehouse_path

    result = demo_flow(data_dir=str(data_dir), outputs=str(outputs),
                       warehouse=str(warehouse) if warehouse else None, jobs=jobs, seed=seed,
                       run_id=run_id)
    for r in result["ingested"]:
        out.print(f"  {r['path']}: {r['status']}, {r['rows_loaded']:,} loaded, "
                  f"{r['rows_rejected']:,} rejected {r['message']}")
    c = result["curves"]
    out.print(f"throughput curves: {c.get('job', 0)} jobs from their own samples, "
              f"{c.get('model', 0)} from their model class, {c.get('global', 0)} global")
    _print_comparison(result["summary"])
    p = result["plan"]
    out.print(f"latest window {p['at']}: {p['jobs']} jobs planned by {p['solver']} "
              f"({p['status']})")
    out.print(f"warehouse: {warehouse_path(warehouse)}")
    out.print(f"plans:     {p['path']}", soft_wrap=True)
    out.print(f"KPIs:      {result['kpis']}", soft_wrap=True)
    out.print(f"report:    {result['report']}", soft_wrap=True)


plan_app = typer.Typer(no_args_is_help=True, help="Plan the next window; show the plan.")
app.add_typer(plan_app, name="plan")


@plan_app.command("window")
def plan_window_cmd(
    at: Annotated[str | None, typer.Option(help="Window start, ISO 8601 (default: the latest "
                                                "event in the warehouse).")] = None,
    run_id: Annotated[str | None, typer.Option("--run-id")] = None,
    policy: Annotated[Policy, typer.Option()] = Policy.mip,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.01)] = 10.0,
    preemption: PreemptionOpt = False,
    outputs: OutputsOpt = Path("data/out"),
    warehouse: WarehouseOpt = None,
) -> None:
    """Plan the window starting --at from the warehouse's state and write it as Parquet."""
    from flows.pipeline import new_run_id
    from solver.policies import Settings
    from warehouse.connection import connect
    from warehouse.planning import plan_window

    con = connect(warehouse)
    wp = plan_window(con, outputs, run_id or new_run_id(),
                     at=_parse_time(at, "--at") if at else None, policy=policy.value,
                     settings=Settings(time_limit=time_limit, preemption=preemption))
    con.close()
    out.print(f"{len(wp.instance.jobs)} jobs planned at {wp.at:%Y-%m-%dT%H:%M:%SZ} by "
              f"{wp.plan.solver} ({wp.plan.status}); plan written to {wp.path}")
    for w in wp.plan.warnings:
        err.print(f"warning: {w}", highlight=False)


@plan_app.command("show")
def plan_show(outputs: OutputsOpt = Path("data/out"), warehouse: WarehouseOpt = None) -> None:
    """The latest plan as ops act on it: job, action, nodes now → next, ETC, saved vs static."""
    import duckdb

    from warehouse.plans import attach_output_views
    from warehouse.sqlfiles import load_query

    con = duckdb.connect()
    if "latest_plan" not in attach_output_views(con, outputs):
        raise EtplanError(f"{outputs}: no plans yet; run `etplan plan window` first")
    rows = con.execute(load_query("output_views", "plan_show")).fetchall()
    if not rows:
        out.print("the latest plan has no jobs")
        return
    table = Table(title=f"plan for {rows[0][6]:%Y-%m-%d %H:%M} UTC (run {rows[0][7]}, "
                        f"{rows[0][8]}, {rows[0][9]})")
    for c in ("job", "action", "nodes now → next", "ETC", "saved vs static"):
        table.add_column(c, justify="left" if c in ("job", "action") else "right")
    for job, action, now, nxt, etc, saved, *_ in rows:
        table.add_row(job, action, f"{now} → {nxt}", _duration(etc), _duration(saved))
    out.print(table)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    sign = "-" if seconds < 0 else ""
    s = abs(int(round(seconds)))
    if s >= 3600:
        return f"{sign}{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{sign}{s // 60}m{s % 60:02d}s"


@app.command()
def pipeline(
    paths: Annotated[list[Path], typer.Argument(help="Log files or folders to ingest.")],
    at: Annotated[str | None, typer.Option(help="Window start (default: latest event).")
                  ] = None,
    run_id: Annotated[str | None, typer.Option("--run-id")] = None,
    outputs: OutputsOpt = Path("data/out"),
    warehouse: WarehouseOpt = None,
) -> None:
    """Ingest → estimate → plan window, as the Prefect flow the schedule runs."""
    from flows.pipeline import pipeline_flow

    result = pipeline_flow([str(p) for p in paths],
                           warehouse=str(warehouse) if warehouse else None,
                           outputs=str(outputs), at=_parse_time(at, "--at") if at else None,
                           run_id=run_id)
    p = result["plan"]
    out.print(f"planned {p['jobs']} jobs at {p['at']} with {p['solver']} ({p['status']}); "
              f"plan: {p['path']}")


@app.command()
def serve(
    paths: Annotated[list[Path], typer.Argument(help="Log folders the schedule ingests.")],
    cron: Annotated[str, typer.Option(help="Cron schedule.")] = "*/10 * * * *",
    outputs: OutputsOpt = Path("data/out"),
    warehouse: WarehouseOpt = None,
) -> None:
    """Serve the `pipeline` deployment on a cron schedule (Ctrl-C stops it)."""
    from flows.pipeline import pipeline_flow

    pipeline_flow.serve(name="etplan-pipeline", cron=cron, parameters={
        "paths": [str(p) for p in paths],
        "warehouse": str(warehouse) if warehouse else None, "outputs": str(outputs)})


def main() -> None:
    """Console entry point: one-line errors, exit 1; usage errors exit 2 (typer)."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # no machine here may call home; Prefect's server would log a failure on every start
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    try:
        app()
    except EtplanError as e:
        err.print(f"error: {e}", highlight=False, soft_wrap=True)
        sys.exit(1)
