"""Prefect flows: thin orchestration over the use cases (`flows.usecases`).

- `etplan-ingest`, `etplan-estimate`, `etplan-plan-window`: the operational steps;
- `etplan-pipeline`: ingest → estimate → plan window (the scheduled deployment);
- `etplan-backtest`: replay policies on one trace, KPIs + report;
- `etplan-sweep`: backtests of policies × workloads × capacities as concurrent tasks, locally or
  on a Dask cluster (`prefect-dask`); workers write Parquet only, never the DuckDB file;
- `etplan-demo`: generate → ingest → estimate → backtest → plan the latest window → report.

No `from __future__ import annotations` here: Prefect builds each flow's parameter model from
its annotations when a deployment runs it, and string annotations do not resolve there.
"""

import logging
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import (
    create_link_artifact,
    create_markdown_artifact,
    create_table_artifact,
)

from flows import defaults
from flows.usecases import data, plans, runs, sweep
from flows.usecases.common import new_run_id
from replay.engine import ReplayConfig
from solver.churn_rules import ChurnRules
from solver.policies import Settings

OUTPUTS = str(defaults.OUTPUTS)


@task(name="ingest logs", retries=2, retry_delay_seconds=5)
def ingest_task(paths: list[str], warehouse: str | None) -> list[dict]:
    return [asdict(r) for r in data.ingest(paths, warehouse)]


@task(name="estimate throughput curves", retries=2, retry_delay_seconds=5)
def estimate_task(warehouse: str | None) -> dict:
    return data.estimate(warehouse)


@task(name="plan window", retries=1, retry_delay_seconds=5)
def plan_window_task(warehouse: str | None, outputs: str, run_id: str, at: datetime | None,
                     policy: str, time_limit: float, churn: ChurnRules | None = None) -> dict:
    wp = plans.plan_window_in(warehouse, Path(outputs), run_id, at=at, policy=policy,
                              settings=Settings(time_limit=time_limit), churn=churn)
    return wp.brief() | {"rows": wp.rows}


@task(name="generate synthetic logs")
def generate_task(out: str, jobs: int, seed: int) -> dict:
    return {k: str(v) for k, v in data.generate_logs(Path(out), jobs, seed).items()}


def _kpi_cell(key: str, value, ratio) -> str:
    if value is None:
        return "-"
    text = (f"{value:,.3f}" if isinstance(value, float) and abs(value) < 10
            else f"{value:,.0f}")
    return text + (f" (×{ratio:.2f} vs greedy)" if ratio is not None else "")


def _publish_artifacts(summary: dict, report: Path | None, title: str) -> None:
    """The KPI comparison as a table (one row per KPI, one column per policy) and a link to
    the report."""
    pols = summary.get("policies", {})
    ratios = summary.get("ratios_vs_greedy", {})
    keys = list(dict.fromkeys(k for s in pols.values() for k in s))
    rows = [{"KPI": k, **{p: _kpi_cell(k, s.get(k), None if p == "greedy"
                                       else ratios.get(p, {}).get(k))
                         for p, s in pols.items()}} for k in keys]
    if rows:
        create_table_artifact(table=rows, key="etplan-kpis", description=f"KPIs — {title}")
    if report:
        create_link_artifact(key="etplan-report", link=Path(report).resolve().as_uri(),
                             link_text=str(report), description=f"Report — {title}")


def _publish_plan(result: dict) -> None:
    """The plan's first slot as a table (job, action, nodes now → next, ETC) and a link to
    its Parquet file."""
    create_table_artifact(table=plans.plan_table(result["rows"]), key="etplan-plan",
                          description=f"Plan: {_planned(result)}")
    create_link_artifact(key="etplan-plan-parquet", link=Path(result["path"]).resolve().as_uri(),
                         link_text=result["path"], description="The plan as Parquet")


def _planned(result: dict) -> str:
    return (f"{result['jobs']} jobs at {result['at']} with {result['solver']} "
            f"({result['status']})")


@flow(name="etplan-ingest")
def ingest_flow(paths: list[str], warehouse: str | None = None) -> list[dict]:
    return ingest_task(paths, warehouse)


@flow(name="etplan-estimate")
def estimate_flow(warehouse: str | None = None) -> dict:
    return estimate_task(warehouse)


@flow(name="etplan-plan-window")
def plan_window_flow(warehouse: str | None = None, outputs: str = OUTPUTS,
                     at: datetime | None = None, run_id: str | None = None,
                     policy: str = "mip", time_limit: float = defaults.PLAN_TIME_LIMIT,
                     max_rescales: int | None = None, cooldown_seconds: float | None = None,
                     rescale_penalty: float | None = None) -> dict:
    """Plan one window; the churn parameters are DESIGN §4.1's (`etplan plan window`'s
    --max-rescales, --cooldown, --rescale-penalty)."""
    result = plan_window_task(warehouse, outputs, run_id or new_run_id(), at, policy,
                              time_limit, ChurnRules(max_rescales, cooldown_seconds,
                                                     rescale_penalty))
    _publish_plan(result)
    return result


@flow(name="etplan-pipeline")
def pipeline_flow(paths: list[str], warehouse: str | None = None, outputs: str = OUTPUTS,
                  at: datetime | None = None, run_id: str | None = None,
                  policy: str = "mip", time_limit: float = defaults.PLAN_TIME_LIMIT,
                  max_rescales: int | None = None, cooldown_seconds: float | None = None,
                  rescale_penalty: float | None = None) -> dict:
    """Ingest → estimate → plan window; the churn parameters as in `etplan-plan-window`."""
    logger = get_run_logger()
    ingested = ingest_task(paths, warehouse)
    failed = [r for r in ingested if r["status"] == "failed"]
    for r in failed:
        logger.warning("%s: %s", r["path"], r["message"])
    curves = estimate_task(warehouse)
    planned = plan_window_task(warehouse, outputs, run_id or new_run_id(), at, policy,
                               time_limit, ChurnRules(max_rescales, cooldown_seconds,
                                                      rescale_penalty))
    _publish_plan(planned)
    create_markdown_artifact(
        key="etplan-pipeline",
        markdown=f"Ingested {len(ingested)} files ({len(failed)} failed); throughput curves: "
                 + ", ".join(f"{n:,} {k}" for k, n in curves.items() if k != "seconds")
                 + f"; planned {_planned(planned)}; plan `{planned['path']}`")
    return {"ingested": ingested, "curves": curves, "plan": planned}


@flow(name="etplan-backtest")
def backtest_flow(logs: str, policies: list[str], out: str, capacity: int | None = None,
                  window: float = defaults.REPLAY_WINDOW, slots: int = defaults.NUM_SLOTS,
                  time_limit: float = defaults.BACKTEST_TIME_LIMIT,
                  gap: float = defaults.REPLAY_GAP, report: bool = True,
                  max_rescales: int | None = None, cooldown_seconds: float | None = None,
                  rescale_penalty: float | None = None) -> dict:
    """Replay policies on one trace; the churn parameters hold in every window."""
    config = runs.replay_config(window, slots, time_limit, gap,
                                churn=ChurnRules(max_rescales, cooldown_seconds,
                                                 rescale_penalty))
    if report:
        summary, path = runs.backtest_and_report(Path(logs), policies, Path(out),
                                                 capacity=capacity, config=config)
    else:
        summary, path = runs.backtest(Path(logs), policies, Path(out), capacity=capacity,
                                      config=config), None
    _publish_artifacts(summary, path, f"backtest of {logs}")
    return summary


@task(name="sweep cell", task_run_name="{cell.key}")
def sweep_cell_task(cell: sweep.Cell, out: str, config: ReplayConfig) -> dict:
    return sweep.run_cell(cell, Path(out), config)


@flow(name="etplan-sweep")
def sweep_flow(workloads: list[str], policies: list[str], capacities: list[int | None],
               out: str, window: float = defaults.REPLAY_WINDOW,
               slots: int = defaults.NUM_SLOTS,
               time_limit: float = defaults.BACKTEST_TIME_LIMIT,
               gap: float = defaults.REPLAY_GAP, force: bool = False) -> dict:
    """Every (workload, capacity, policy) cell as its own task, run concurrently on the
    flow's task runner (a Dask cluster with `etplan sweep`); cells finished before with the
    same inputs are read back, not replayed (`force` replays them all). Results land in
    out/<workload>/cap=<C>/policy=<P>/. Returns {"results": {cell: KPIs}, "replayed": n,
    "reused": n}."""
    logger = get_run_logger()
    config = runs.replay_config(window, slots, time_limit, gap)
    cells, done = sweep.prior(workloads, policies, capacities, Path(out), config, force)
    todo = [c for c in cells if c.key not in done]
    logger.info("sweep: %d cells, %d finished before, %d to replay", len(cells), len(done),
                len(todo))
    futures = {c.key: sweep_cell_task.submit(c, out, config) for c in todo}
    fresh = {key: fut.result() for key, fut in futures.items()}
    results = {c.key: done.get(c.key) or fresh[c.key] for c in cells}
    table = sweep.results_table(results)
    if table:
        create_table_artifact(table=table, key="etplan-sweep",
                              description=f"Sweep into {out}")
    return {"results": results, "replayed": len(fresh), "reused": len(done)}


def dask_runner(address: str | None, workers: int):
    """The sweep's task runner: the Dask scheduler at `address` (tcp://host:8786), or a
    `LocalCluster` of `workers` single-threaded worker processes started for the run."""
    from prefect_dask import DaskTaskRunner

    if address:
        return DaskTaskRunner(address=address)
    # its advice to install jupyter-server-proxy is for a dashboard this cluster does not run
    logging.getLogger("distributed.http.proxy").setLevel(logging.WARNING)
    # the scheduler always serves HTTP (health, metrics) and binds :8787 unless told
    # otherwise, which clashes with a dashboard already there: a free port, no dashboard
    return DaskTaskRunner(cluster_kwargs={"n_workers": workers, "threads_per_worker": 1,
                                          "processes": True, "dashboard_address": ":0",
                                          "scheduler_kwargs": {"dashboard": False}})


@flow(name="etplan-demo")
def demo_flow(data_dir: str = str(defaults.DEMO_LOGS), outputs: str = OUTPUTS,
              warehouse: str | None = None, jobs: int = defaults.SYNTHETIC_JOBS,
              seed: int = defaults.SYNTHETIC_SEED, run_id: str | None = None) -> dict:
    """The main job on the embedded default: generate → ingest → estimate → backtest (mip,
    optimus, greedy, fifo) → plan the latest window → report."""
    run_id = run_id or f"demo-seed{seed}"
    written = generate_task(data_dir, jobs, seed)
    logs = [p for k, p in written.items() if k != "truth"]
    ingested = ingest_task(logs, warehouse)
    curves = estimate_task(warehouse)
    kpi_root = Path(outputs) / "kpis" / f"run_id={run_id}"
    summary = runs.demo_backtest(Path(data_dir), kpi_root)
    planned = plan_window_task(warehouse, outputs, run_id, None, "mip",
                               defaults.PLAN_TIME_LIMIT)
    _publish_plan(planned)
    report = runs.run_report(Path(outputs), run_id, summary, kpi_root, planned, warehouse)
    planned.pop("rows")
    _publish_artifacts(summary, report, f"etplan run {run_id}")
    create_link_artifact(key="etplan-kpis-parquet", link=kpi_root.resolve().as_uri(),
                         link_text=str(kpi_root), description="The KPIs as Parquet")
    return {"run_id": run_id, "ingested": ingested, "curves": curves, "summary": summary,
            "plan": planned, "kpis": str(kpi_root), "report": str(report)}
