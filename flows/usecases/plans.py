"""Plan use cases: plan the window at a time from the warehouse's state and write it as
Parquet (the operational job behind `etplan plan window` and the scheduled pipeline); solve an
instance file; random instances; the latest plan as ops read it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from flows import defaults
from flows.usecases.common import opened
from solver.churn_rules import ChurnRules
from solver.explain import size_values
from solver.generate import random_instance
from solver.instance import Instance, InvalidInstance, TenantQuota, job_from_state
from solver.plans import Plan
from solver.policies import Settings, plan
from warehouse.connection import warehouse_path
from warehouse.errors import EtplanError
from warehouse.explain import CurveBehind, curve_behind, latest_plan_rows
from warehouse.plans import (
    attach_output_views,
    latest_plan_actions,
    previous_plan_hint,
    write_plan_rows,
)
from warehouse.window_state import WindowState, latest_event_time, load_window

log = logging.getLogger(__name__)


@dataclass
class WindowPlan:
    at: datetime
    instance: Instance
    plan: Plan
    rows: list[dict]        # the Parquet rows written (Plan.rows)
    path: Path

    def brief(self) -> dict:
        """What the CLI and the flows report about it."""
        return {"at": self.at.isoformat(), "path": str(self.path),
                "jobs": len(self.instance.jobs), "solver": self.plan.solver,
                "status": self.plan.status, "objective": self.plan.objective,
                "slot_seconds": self.instance.slot_seconds,
                "capacity": list(self.instance.capacity),
                "slot_prices": getattr(self.plan, "slot_prices", None)}


def window_instance(state: WindowState, *, slot_seconds: float, num_slots: int,
                    rescale_seconds: float, churn: ChurnRules | None = None) -> Instance:
    """The solver's instance (DESIGN §3.3) for a window's state, one Job per running or
    queued job through the one adapter `job_from_state`, with the tenant quotas in force."""
    jobs = [job_from_state(j, state.curves[j["job_id"]], rescale_seconds=rescale_seconds)
            for j in state.jobs]
    return Instance(jobs=jobs, capacity=[int(state.capacity)] * num_slots,
                    slot_seconds=slot_seconds, num_slots=num_slots,
                    window_start=state.at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    quotas={t: TenantQuota(**q) for t, q in state.quotas.items()},
                    **(churn or ChurnRules()).fields())


def plan_window(con: duckdb.DuckDBPyConnection, outputs: Path, run_id: str, *,
                at: datetime | None = None, policy: str = "mip",
                settings: Settings | None = None, churn: ChurnRules | None = None,
                slot_seconds: float = defaults.SLOT_SECONDS,
                num_slots: int = defaults.NUM_SLOTS,
                rescale_seconds: float = defaults.RESCALE_SECONDS) -> WindowPlan:
    """Plan the window starting `at` (default: the latest event in the warehouse, which for a
    live platform is now) and write it to plans/run_id=…/window_start=…/."""
    if at is None:
        at = latest_event_time(con)
        if at is None:
            raise EtplanError("the warehouse has no job events; run `etplan ingest` first")
    at = at.astimezone(UTC)
    state = load_window(con, at, rescale_seconds=rescale_seconds)
    inst = window_instance(state, slot_seconds=slot_seconds, num_slots=num_slots,
                           rescale_seconds=rescale_seconds, churn=churn)
    try:  # the same checks `solve` makes of a file: no NaN or infinite numbers reach a policy
        Instance.from_dict(inst.to_dict())
    except InvalidInstance as e:
        raise EtplanError(f"window {at:%Y-%m-%dT%H:%M:%SZ}: {e}") from None
    # the plan made for an earlier window, moved on to this one, warm-starts the MIP
    hint = previous_plan_hint(con, outputs, at, slot_seconds, num_slots)
    p = plan(inst, policy, settings or Settings(time_limit=defaults.PLAN_TIME_LIMIT), hint=hint)
    rows = p.rows(at)
    path = write_plan_rows(outputs, rows, run_id, at)
    log.info("planned %d jobs at %s with %s (%s): %s", len(inst.jobs), at, p.solver, p.status,
             path)
    return WindowPlan(at, inst, p, rows, path)


def plan_window_in(warehouse: str | Path | None, outputs: Path, run_id: str, *,
                   at: datetime | None = None, policy: str = "mip",
                   settings: Settings | None = None, churn: ChurnRules | None = None
                   ) -> WindowPlan:
    """plan_window on the warehouse file (opened and closed here); a missing one is an error,
    never created empty."""
    require_warehouse(warehouse)
    with opened(warehouse) as con:
        return plan_window(con, outputs, run_id, at=at, policy=policy, settings=settings,
                           churn=churn)


def require_warehouse(warehouse: str | Path | None) -> Path:
    """The warehouse file, which must exist (commands that read state never create it)."""
    path = warehouse_path(warehouse)
    if not path.exists():
        raise EtplanError(f"{path}: no warehouse here yet; run `etplan ingest` first "
                          "or pass --warehouse PATH")
    return path


def solve_file(path: Path, policy: str, settings: Settings,
               churn: Mapping[str, Any] | None = None) -> Plan:
    """Plan the window instance JSON at `path` (DESIGN §3.3); `churn`: churn fields (§4.1)
    that replace the file's."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise EtplanError(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise EtplanError(f"{path}: not a window instance (not UTF-8 text); "
                          "give the JSON of DESIGN §3.3") from None
    try:
        inst = Instance.from_json(text)
    except InvalidInstance as e:
        raise EtplanError(f"{path}: {e}") from None
    return plan(replace(inst, **(churn or {})), policy, settings)


def random_instance_json(jobs: int, slots: int = defaults.NUM_SLOTS,
                         capacity: int | None = None, seed: int = 0) -> str:
    return random_instance(jobs, slots, capacity, seed).to_json() + "\n"


def duration_text(seconds: float | None) -> str:
    """Seconds as ops read them: 1h05m, 4m30s, - when unknown."""
    if seconds is None:
        return "-"
    sign = "-" if seconds < 0 else ""
    s = abs(int(round(seconds)))
    if s >= 3600:
        return f"{sign}{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{sign}{s // 60}m{s % 60:02d}s"


def plan_table(rows: list[dict]) -> list[dict]:
    """A plan's first slot as ops act on it: job, action, nodes now → next, ETC, saved vs
    static (the rows of Plan.rows), jobs that change first."""
    first = [r for r in rows if r["slot"] == 0]
    first.sort(key=lambda r: (r["action"] in ("keep", "wait"), str(r["job_id"])))
    return [{"job": str(r["job_id"]), "action": r["action"],
             "nodes now → next": f"{r['current_nodes']} → {r['nodes']}",
             "ETC": duration_text(r["etc_seconds"]),
             "saved vs static": duration_text(
                 None if r["etc_seconds"] is None or r["static_etc_seconds"] is None
                 else r["static_etc_seconds"] - r["etc_seconds"])} for r in first]


def latest_plan(outputs: Path = defaults.OUTPUTS) -> list[tuple]:
    """The latest plan as ops act on it: (job, action, nodes now, next, ETC, saved vs static,
    window, run, solver, status) per job."""
    con = duckdb.connect()
    if "latest_plan" not in attach_output_views(con, outputs):
        raise EtplanError(f"{outputs}: no plans yet; run `etplan plan window` first")
    return latest_plan_actions(con)


@dataclass
class JobExplanation:
    """What `etplan plan explain JOB` prints: the job's rows of the latest plan (nodes, action,
    why, why_text, slot_price per slot), the plan's header, the curve behind the job (None
    without a warehouse), and the value of each allowed size per slot (recomputed from the
    warehouse's state at the plan's window; None when it cannot be)."""
    job_id: str
    rows: list[dict]
    curve: CurveBehind | None
    sizes: list[int]
    values: list[list[float]] | None   # [size][slot]


def explain_job(job_id: str, outputs: Path = defaults.OUTPUTS,
                warehouse: str | Path | None = None) -> JobExplanation:
    """The explanation of `job_id` in the latest plan (DESIGN §11)."""
    con = duckdb.connect()
    if "latest_plan" not in attach_output_views(con, outputs):
        raise EtplanError(f"{outputs}: no plans yet; run `etplan plan window` first")
    rows = latest_plan_rows(con)
    con.close()
    mine = [r for r in rows if str(r["job_id"]) == job_id]
    if not mine:
        at = f" at {rows[0]['window_time']:%Y-%m-%dT%H:%M:%SZ}" if rows else ""
        raise EtplanError(f"job {job_id}: not in the latest plan{at}; "
                          "`etplan plan show` lists its jobs")
    if not warehouse_path(warehouse).exists():
        return JobExplanation(job_id, mine, None, [], None)
    with opened(warehouse, read_only=True) as wh:
        curve = curve_behind(wh, job_id)
        sizes, values = _size_values_at(wh, rows, job_id)
    return JobExplanation(job_id, mine, curve, sizes, values)


def _size_values_at(con: duckdb.DuckDBPyConnection, rows: list[dict], job_id: str
                    ) -> tuple[list[int], list[list[float]] | None]:
    """The job's allowed sizes and their value in each slot of the plan `rows`, on the
    instance rebuilt from the warehouse at the plan's window (as `plan window` built it)."""
    slots = 1 + max(r["slot"] for r in rows)
    try:
        state = load_window(con, rows[0]["window_time"], rescale_seconds=defaults.RESCALE_SECONDS)
    except EtplanError as e:
        log.info("no size values for %s: %s", job_id, e)
        return [], None
    inst = window_instance(state, slot_seconds=defaults.SLOT_SECONDS, num_slots=slots,
                           rescale_seconds=defaults.RESCALE_SECONDS)
    index = {job.job_id: j for j, job in enumerate(inst.jobs)}
    if job_id not in index:
        return [], None
    nodes = np.zeros((len(inst.jobs), slots), dtype=int)
    for r in rows:
        if str(r["job_id"]) in index:
            nodes[index[str(r["job_id"])], r["slot"]] = r["nodes"]
    sv = size_values(inst, nodes)
    j = index[job_id]
    k = len(inst.jobs[j].allowed)
    return [int(n) for n in sv.sizes[j, :k]], sv.values[j, :k].tolist()
