"""Prefect flows: thin orchestration over warehouse, replay and solver.

- `etplan-ingest`, `etplan-estimate`, `etplan-plan-window`: the operational steps;
- `etplan-pipeline`: ingest → estimate → plan window (the scheduled deployment);
- `etplan-backtest`: replay policies on one trace, KPIs + report;
- `etplan-sweep`: backtests of policies × workloads × capacities as concurrent tasks, locally or
  on a Dask cluster (`prefect-dask`); workers write Parquet only, never the DuckDB file.

No `from __future__ import annotations` here: Prefect builds each flow's parameter model from
its annotations when a deployment runs it, and string annotations do not resolve there.
"""


import uuid
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from flows.backtest import backtest as run_backtest
from replay.engine import ReplayConfig
from solver.policies import Settings
from warehouse.connection import connect
from warehouse.estimate import estimate
from warehouse.ingest import ingest_paths
from warehouse.planning import plan_window
from warehouse.plans import plan_rows
from warehouse.report import write_report


def new_run_id() -> str:
    return datetime.now().strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


@task(name="ingest logs", retries=2, retry_delay_seconds=5)
def ingest_task(paths: list[str], warehouse: str | None) -> list[dict]:
    con = connect(warehouse)
    try:
        results = ingest_paths(con, paths)
    finally:
        con.close()
    return [asdict(r) for r in results]


@task(name="estimate throughput curves", retries=2, retry_delay_seconds=5)
def estimate_task(warehouse: str | None) -> dict:
    con = connect(warehouse)
    try:
        return estimate(con)
    finally:
        con.close()


@task(name="plan window", retries=1, retry_delay_seconds=5)
def plan_window_task(warehouse: str | None, outputs: str, run_id: str, at: datetime | None,
                     policy: str, time_limit: float) -> dict:
    con = connect(warehouse)
    try:
        wp = plan_window(con, Path(outputs), run_id, at=at, policy=policy,
                         settings=Settings(time_limit=time_limit))
    finally:
        con.close()
    current = {j.job_id: j.current_nodes for j in wp.instance.jobs}
    rows = plan_rows(wp.plan, wp.at, current)
    return {"at": wp.at.isoformat(), "path": str(wp.path), "jobs": len(wp.instance.jobs),
            "solver": wp.plan.solver, "status": wp.plan.status,
            "objective": wp.plan.objective, "rows": rows}


@task(name="replay policy on trace")
def backtest_task(logs: str, policy: str, out: str, capacity: int | None, window: float,
                  slots: int, time_limit: float) -> dict:
    return run_backtest(Path(logs), [policy], Path(out), capacity=capacity,
                        config=ReplayConfig(window=window, slots=slots,
                                            settings=Settings(time_limit=time_limit)))


def _publish_artifacts(summary: dict, report: Path | None, title: str) -> None:
    rows = [{"policy": p, **{k: (round(v, 3) if isinstance(v, float) else v)
                             for k, v in s.items()}}
            for p, s in summary.get("policies", {}).items()]
    if rows:
        create_table_artifact(table=rows, key="etplan-kpis", description=f"KPIs — {title}")
    create_markdown_artifact(
        key="etplan-summary",
        markdown=f"# {title}\n\n" + "\n".join(
            f"- **{r['policy']}**: mean JCT {r.get('mean_jct_s')} s, mean queue "
            f"{r.get('mean_queue_s')} s" for r in rows)
        + (f"\n\nReport: `{report}`" if report else ""))


@flow(name="etplan-ingest")
def ingest_flow(paths: list[str], warehouse: str | None = None) -> list[dict]:
    return ingest_task(paths, warehouse)


@flow(name="etplan-estimate")
def estimate_flow(warehouse: str | None = None) -> dict:
    return estimate_task(warehouse)


@flow(name="etplan-plan-window")
def plan_window_flow(warehouse: str | None = None, outputs: str = "data/out",
                     at: datetime | None = None, run_id: str | None = None,
                     policy: str = "mip", time_limit: float = 10.0) -> dict:
    result = plan_window_task(warehouse, outputs, run_id or new_run_id(), at, policy,
                              time_limit)
    create_markdown_artifact(
        key="etplan-plan",
        markdown=f"Planned {result['jobs']} jobs at {result['at']} with {result['solver']} "
                 f"({result['status']}). Plan: `{result['path']}`")
    return result


@flow(name="etplan-pipeline")
def pipeline_flow(paths: list[str], warehouse: str | None = None, outputs: str = "data/out",
                  at: datetime | None = None, run_id: str | None = None,
                  policy: str = "mip", time_limit: float = 10.0) -> dict:
    logger = get_run_logger()
    ingested = ingest_task(paths, warehouse)
    failed = [r for r in ingested if r["status"] == "failed"]
    for r in failed:
        logger.warning("%s: %s", r["path"], r["message"])
    curves = estimate_task(warehouse)
    planned = plan_window_task(warehouse, outputs, run_id or new_run_id(), at, policy,
                               time_limit)
    create_markdown_artifact(
        key="etplan-pipeline",
        markdown=f"Ingested {len(ingested)} files ({len(failed)} failed); curves {curves}; "
                 f"planned {planned['jobs']} jobs at {planned['at']} with {planned['solver']} "
                 f"({planned['status']}). Plan: `{planned['path']}`")
    return {"ingested": ingested, "curves": curves, "plan": planned}


@flow(name="etplan-backtest")
def backtest_flow(logs: str, policies: list[str], out: str, capacity: int | None = None,
                  window: float = 300.0, slots: int = 6, time_limit: float = 2.0,
                  report: bool = True) -> dict:
    summary = run_backtest(Path(logs), policies, Path(out), capacity=capacity,
                           config=ReplayConfig(window=window, slots=slots,
                                               settings=Settings(time_limit=time_limit)))
    path = write_report(Path(out) / "report.html", summary, Path(out) / "kpis", None,
                        title=f"backtest of {logs}") if report else None
    _publish_artifacts(summary, path, f"backtest of {logs}")
    return summary


@flow(name="etplan-sweep")
def sweep_flow(workloads: list[str], policies: list[str], capacities: list[int], out: str,
               window: float = 300.0, slots: int = 6, time_limit: float = 2.0) -> dict:
    """Every (workload, capacity, policy) as its own task; they run concurrently on the flow's
    task runner. Results land in out/<workload>/cap=<C>/ as Parquet and summary.json."""
    futures = {}
    for w in workloads:
        for c in capacities:
            for p in policies:
                dest = str(Path(out) / Path(w).name / f"cap={c}" / f"policy={p}")
                futures[(Path(w).name, c, p)] = backtest_task.submit(w, p, dest, c, window,
                                                                     slots, time_limit)
    results: dict[str, dict] = {}
    for (w, c, p), fut in futures.items():
        results.setdefault(f"{w}/cap={c}", {})[p] = fut.result()["policies"][p]
    return results


@task(name="generate synthetic logs")
def generate_task(out: str, jobs: int, seed: int) -> dict:
    from warehouse.synthetic import write_logs

    return {k: str(v) for k, v in write_logs(Path(out), jobs, seed).items()}


@flow(name="etplan-demo")
def demo_flow(data_dir: str = "data/demo-logs", outputs: str = "data/out",
              warehouse: str | None = None, jobs: int = 200, seed: int = 7,
              run_id: str | None = None) -> dict:
    """The main job on the embedded default: generate → ingest → estimate → backtest (mip,
    greedy, fifo) → plan the latest window → report."""
    run_id = run_id or f"demo-seed{seed}"
    written = generate_task(data_dir, jobs, seed)
    logs = [p for k, p in written.items() if k != "truth"]
    ingested = ingest_task(logs, warehouse)
    curves = estimate_task(warehouse)
    kpi_root = Path(outputs) / "kpis" / f"run_id={run_id}"
    summary = run_backtest(Path(data_dir), ["mip", "greedy", "fifo"], kpi_root,
                           config=ReplayConfig(window=600.0, slots=6,
                                               settings=Settings(time_limit=0.5, gap=1e-3)),
                           kpi_dir=kpi_root)
    planned = plan_window_task(warehouse, outputs, run_id, None, "mip", 10.0)
    report = write_report(Path(outputs) / "reports" / f"run_id={run_id}" / "report.html",
                          summary, kpi_root, planned["rows"], title=f"etplan run {run_id}")
    _publish_artifacts(summary, report, f"etplan run {run_id}")
    return {"run_id": run_id, "ingested": ingested, "curves": curves, "summary": summary,
            "plan": {k: v for k, v in planned.items() if k != "rows"}, "kpis": str(kpi_root),
            "report": str(report)}
