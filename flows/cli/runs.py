"""Run commands: backtest, demo, pipeline, serve."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from flows import defaults
from flows.cli.common import (
    NO_CHURN,
    AtOpt,
    ChurnGiven,
    OutputsOpt,
    PreemptionOpt,
    ReplaySlotsOpt,
    ReplayTimeLimitOpt,
    ReplayWindowOpt,
    RunIdOpt,
    WarehouseOpt,
    churn_options,
    err,
    out,
    plain_run_id,
    print_comparison,
    say,
)
from replay import FAITHFUL_ONLY
from solver.policies import POLICIES

app = typer.Typer()


def parse_policies(values: list[str] | None) -> list[str]:
    """--policies as a repeatable option and/or comma lists, each name checked (a usage
    error, exit 2, names the unknown one); none given: the default comparison."""
    if not values:
        return list(defaults.POLICIES)
    known = (*POLICIES, *FAITHFUL_ONLY)
    names = [p.strip() for v in values for p in v.split(",") if p.strip()]
    unknown = [p for p in names if p not in known]
    if unknown or not names:
        bad = unknown[0] if unknown else ""
        raise typer.BadParameter(f"unknown policy {bad!r}; use {', '.join(known)}")
    return list(dict.fromkeys(names))


@contextmanager
def progress_bars(names: list[str]):
    """One bar per policy; yields the on_progress callback of the backtest."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:<8}"), BarColumn(),
                  TextColumn("{task.fields[sim]}"), TimeElapsedColumn(), console=err) as bar:
        tasks = {p: bar.add_task(p, total=1.0, sim="") for p in names}

        def progress(policy: str, done: float, total: float) -> None:
            # past the last arrival the replay drains the queue for a time nobody knows
            # in advance: the bar holds just short of full until the policy is done
            bar.update(tasks[policy], completed=min(done / total, 0.99),
                       sim=f"simulated {done / 3600:.1f} h")

        yield progress
        for p in names:
            bar.update(tasks[p], completed=1.0)


@app.command()
@churn_options
def backtest(
    logs: Annotated[Path, typer.Argument(help="Folder of platform logs (etplan import).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for KPIs and summary.json.")],
    truth: Annotated[Path | None, typer.Option(help="True curves (default LOGS/truth.json).")
                     ] = None,
    policies: Annotated[list[str] | None, typer.Option(
        callback=parse_policies, help="Repeated or comma-separated: mip, optimus, greedy, "
                                      "fifo; with tiresias or optimus-oracle all of them run "
                                      "in the faithful replay (Pollux imports). Default: "
                                      + ",".join(defaults.POLICIES) + ".")] = None,
    capacity: Annotated[int | None, typer.Option(min=1, help="Pool size; default: the "
                                                             "capacity feed.")] = None,
    window: ReplayWindowOpt = defaults.REPLAY_WINDOW,
    slots: ReplaySlotsOpt = defaults.NUM_SLOTS,
    time_limit: ReplayTimeLimitOpt = defaults.BACKTEST_TIME_LIMIT,
    gap: Annotated[float, typer.Option(min=0.0, max=1.0, help="Relative MIP gap per window.")
                   ] = defaults.REPLAY_GAP,
    preemption: PreemptionOpt = False,
    replan_on_events: Annotated[bool, typer.Option(
        "--replan-on-events", help="Also re-plan at arrivals and completions.")] = False,
    churn: ChurnGiven = NO_CHURN,
) -> None:
    """Replay policies on the same trace and compare their KPIs (ratios vs greedy); the churn
    options hold in every window of our policies."""
    from flows.usecases.runs import backtest_and_report, replay_config
    from solver.churn_rules import ChurnRules

    names = policies
    config = replay_config(window, slots, time_limit, gap, preemption=preemption,
                           replan_on_events=replan_on_events,
                           churn=ChurnRules(**churn))
    with progress_bars(names) as progress:
        doc, report = backtest_and_report(logs, names, out_dir, truth=truth, capacity=capacity,
                                          config=config, on_progress=progress)
    print_comparison(doc)
    out.print(f"KPIs: {out_dir / 'kpis'}  summary: {out_dir / 'summary.json'}  "
              f"report: {report}", soft_wrap=True)


@app.command()
def demo(
    data_dir: Annotated[Path, typer.Option("--data-dir", help="Where the demo logs go.")
                        ] = defaults.DEMO_LOGS,
    outputs: OutputsOpt = defaults.OUTPUTS,
    jobs: Annotated[int, typer.Option(min=1, help="Jobs in the synthetic trace.")
                    ] = defaults.SYNTHETIC_JOBS,
    seed: Annotated[int, typer.Option(min=0, help="Random seed; same seed, same trace.")
                    ] = defaults.SYNTHETIC_SEED,
    run_id: Annotated[str | None, typer.Option("--run-id", callback=plain_run_id,
                                               help="Default demo-seed<S>; a "
                                                                "rerun replaces its outputs.")
                      ] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """The main job on the embedded default (Prefect's ephemeral API): generate a seeded trace,
    ingest it, estimate throughput curves, replay mip, optimus, greedy and fifo, plan the latest
    window, write the report."""
    from flows.pipeline import demo_flow
    from warehouse.connection import warehouse_path

    result = demo_flow(data_dir=str(data_dir), outputs=str(outputs),
                       warehouse=str(warehouse) if warehouse else None, jobs=jobs, seed=seed,
                       run_id=run_id)
    for r in result["ingested"]:
        out.print(f"  {r['path']}: {ingest_line(r)}", highlight=False)
    c = result["curves"]
    out.print(f"throughput curves: {c.get('job', 0)} jobs from their own samples, "
              f"{c.get('model', 0)} from their model class, {c.get('global', 0)} global")
    print_comparison(result["summary"])
    p = result["plan"]
    out.print(f"latest window {p['at']}: {p['jobs']} jobs planned by {p['solver']} "
              f"({p['status']})")
    out.print(f"warehouse: {warehouse_path(warehouse)}")
    out.print(f"plans:     {p['path']}", soft_wrap=True)
    out.print(f"KPIs:      {result['kpis']}", soft_wrap=True)
    out.print(f"report:    {result['report']}", soft_wrap=True)


@app.command()
@churn_options
def pipeline(
    paths: Annotated[list[Path], typer.Argument(help="Log files or folders to ingest.")],
    at: AtOpt = None,
    run_id: RunIdOpt = None,
    churn: ChurnGiven = NO_CHURN,
    outputs: OutputsOpt = defaults.OUTPUTS,
    warehouse: WarehouseOpt = None,
) -> None:
    """Ingest → estimate → plan window, as the Prefect flow the schedule runs."""
    from flows.pipeline import pipeline_flow

    result = pipeline_flow([str(p) for p in paths],
                           warehouse=str(warehouse) if warehouse else None,
                           outputs=str(outputs), at=at, run_id=run_id,
                           **churn)
    p = result["plan"]
    out.print(f"planned {p['jobs']} jobs at {p['at']} with {p['solver']} ({p['status']}); "
              f"plan: {p['path']}")


def ingest_line(r: dict) -> str:
    """One ingested file's outcome: its counts when it loaded, else what happened."""
    if r["status"] != "loaded":
        return f"{r['status']}: {r['message']}" if r["message"] else r["status"]
    counts = f"{r['rows_loaded']:,} rows loaded, {r['rows_rejected']:,} rejected"
    return f"{counts}; {r['message']}" if r["message"] else counts


def prefect_command() -> str:
    """The `prefect` beside this Python (relative to the working folder when inside it)."""
    exe = Path(sys.executable).with_name("prefect")
    try:
        return str(exe.relative_to(Path.cwd()))
    except ValueError:
        return str(exe)


@app.command()
@churn_options
def serve(
    paths: Annotated[list[Path], typer.Argument(help="Log folders the schedule ingests.")],
    cron: Annotated[str, typer.Option(help="Cron schedule, UTC.")] = defaults.SERVE_CRON,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.01,
                                              help="MIP seconds per plan.")
                          ] = defaults.PLAN_TIME_LIMIT,
    churn: ChurnGiven = NO_CHURN,
    outputs: OutputsOpt = defaults.OUTPUTS,
    warehouse: WarehouseOpt = None,
) -> None:
    """Run the pipeline on a cron schedule until Ctrl-C or SIGTERM: on the Prefect API that
    PREFECT_API_URL names, or else on a local Prefect server started (and stopped) for it."""
    import os

    from flows.cli.server import prefect_api
    from warehouse.connection import warehouse_path

    # absolute, so a run finds them whatever folder Prefect starts it in
    params = {"paths": [str(p.resolve()) for p in paths], "outputs": str(outputs.resolve()),
              "warehouse": str(warehouse_path(warehouse).resolve()), "time_limit": time_limit,
              **churn}
    home = Path(os.environ.get("PREFECT_HOME", defaults.PREFECT_HOME))
    with prefect_api(home, say) as api:
        from flows.pipeline import pipeline_flow

        say("to run it now, from another shell:")
        say(f"  export PREFECT_API_URL={api}")
        say(f"  {prefect_command()} deployment run "
            f"'{pipeline_flow.name}/{defaults.SERVE_DEPLOYMENT}'")
        pipeline_flow.serve(name=defaults.SERVE_DEPLOYMENT, cron=cron, global_limit=1,
                            parameters=params)
