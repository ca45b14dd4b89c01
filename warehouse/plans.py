"""Allocation plans as Parquet (DESIGN §8) and the SQL views over the outputs."""

from __future__ import annotations

import glob
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from solver.instance import Plan
from warehouse.outputs import write_partition
from warehouse.sqlfiles import load_query

DEFAULT_OUTPUTS = Path("data") / "out"


def partition_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def plan_rows(plan: Plan, window_start: datetime, current: dict[str, int]) -> list[dict]:
    """One row per job and slot: the allocation, the job's size before the plan, its ETCs and
    the plan's header."""
    etc = {j.job_id: j for j in plan.jobs}
    now = datetime.now(UTC)
    rows = []
    for a in plan.allocations:
        e = etc[a.job_id]
        rows.append({
            "window_time": window_start, "job_id": a.job_id, "slot": a.slot,
            "current_nodes": current.get(a.job_id, 0), "nodes": a.nodes,
            "action": a.action, "expected_throughput": a.expected_throughput,
            "expected_progress": a.expected_progress, "etc_seconds": e.etc_seconds,
            "static_etc_seconds": e.static_etc_seconds, "policy": plan.policy,
            "solver": plan.solver, "status": plan.status, "objective": plan.objective,
            "mip_gap": plan.mip_gap, "solve_seconds": plan.solve_seconds,
            "reason": plan.reason, "warnings": "; ".join(plan.warnings), "created_at": now})
    return rows


def write_plan(outputs: Path, plan: Plan, run_id: str, window_start: datetime,
               current: dict[str, int]) -> Path:
    """plans/run_id=…/window_start=…/part-0.parquet, replaced on a rerun."""
    return write_partition(outputs / "plans", plan_rows(plan, window_start, current),
                           run_id=run_id, window_start=partition_time(window_start))


def attach_output_views(con: duckdb.DuckDBPyConnection, outputs: Path) -> list[str]:
    """Temp views `plans`, `latest_plan` and `kpis` over the Parquet outputs that exist."""
    made = []
    globs = {"plans": outputs / "plans" / "*" / "*" / "*.parquet",
             "kpis": outputs / "kpis" / "*" / "runs" / "*" / "*.parquet",
             "kpi_jobs": outputs / "kpis" / "*" / "jobs" / "*" / "*.parquet"}
    for name, pattern in globs.items():
        if not glob.glob(str(pattern)):
            continue
        con.execute(load_query("output_views", f"{name}_glob"), {"glob": str(pattern)})
        con.execute(load_query("output_views", name))
        made.append(name)
    if "plans" in made:
        con.execute(load_query("output_views", "latest_plan"))
        made.append("latest_plan")
    return made


def previous_plan_hint(con: duckdb.DuckDBPyConnection, outputs: Path, at: datetime,
                       slot_seconds: float, num_slots: int) -> dict[str, list[int]]:
    """The newest plan written for a window before `at`, shifted by the slots that have passed
    since: {job_id: nodes per slot from `at` on}; empty when there is none or it is too old."""
    if "plans" not in attach_output_views(con, outputs):
        return {}
    rows = con.execute(load_query("output_views", "previous_plan"), {"at": at}).fetchall()
    if not rows:
        return {}
    shift = max(0, round(rows[0][3] / slot_seconds))
    if shift >= num_slots:
        return {}
    hint: dict[str, list[int]] = {}
    for job_id, slot, nodes, _ in rows:
        if slot >= shift:
            hint.setdefault(job_id, []).append(int(nodes))
    return hint
