"""Plan use cases: plan the window at a time from the warehouse's state and write it as
Parquet (the operational job behind `etplan plan window` and the scheduled pipeline); solve an
instance file; random instances; the latest plan as ops read it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from flows import defaults
from flows.usecases.common import opened
from solver.generate import random_instance
from solver.instance import Instance, InvalidInstance, job_from_state
from solver.plans import Plan
from solver.policies import Settings, plan
from warehouse.errors import EtplanError
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
                "status": self.plan.status, "objective": self.plan.objective}


def window_instance(state: WindowState, *, slot_seconds: float, num_slots: int,
                    rescale_seconds: float) -> Instance:
    """The solver's instance (DESIGN §3.3) for a window's state, one Job per running or
    queued job through the one adapter `job_from_state`."""
    jobs = [job_from_state(j, state.curves[j["job_id"]], rescale_seconds=rescale_seconds)
            for j in state.jobs]
    return Instance(jobs=jobs, capacity=[int(state.capacity)] * num_slots,
                    slot_seconds=slot_seconds, num_slots=num_slots,
                    window_start=state.at.strftime("%Y-%m-%dT%H:%M:%SZ"))


def plan_window(con: duckdb.DuckDBPyConnection, outputs: Path, run_id: str, *,
                at: datetime | None = None, policy: str = "mip",
                settings: Settings | None = None,
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
                           rescale_seconds=rescale_seconds)
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
                   settings: Settings | None = None) -> WindowPlan:
    """plan_window on the warehouse file (opened and closed here)."""
    with opened(warehouse) as con:
        return plan_window(con, outputs, run_id, at=at, policy=policy, settings=settings)


def solve_file(path: Path, policy: str, settings: Settings) -> Plan:
    """Plan the window instance JSON at `path` (DESIGN §3.3)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise EtplanError(f"{path}: cannot read ({e.strerror})") from None
    try:
        inst = Instance.from_json(text)
    except InvalidInstance as e:
        raise EtplanError(f"{path}: {e}") from None
    return plan(inst, policy, settings)


def random_instance_json(jobs: int, slots: int = defaults.NUM_SLOTS,
                         capacity: int | None = None, seed: int = 0) -> str:
    return random_instance(jobs, slots, capacity, seed).to_json() + "\n"


def latest_plan(outputs: Path = defaults.OUTPUTS) -> list[tuple]:
    """The latest plan as ops act on it: (job, action, nodes now, next, ETC, saved vs static,
    window, run, solver, status) per job."""
    con = duckdb.connect()
    if "latest_plan" not in attach_output_views(con, outputs):
        raise EtplanError(f"{outputs}: no plans yet; run `etplan plan window` first")
    return latest_plan_actions(con)
