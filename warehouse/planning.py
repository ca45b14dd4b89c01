"""Plan the window at a given time from the warehouse's state and export it (the operational
job behind `etplan plan window` and the scheduled pipeline)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from solver.instance import Instance, Plan
from solver.policies import Settings, plan
from warehouse.errors import EtplanError
from warehouse.plans import previous_plan_hint, write_plan
from warehouse.window_state import latest_event_time, window_instance

log = logging.getLogger(__name__)


@dataclass
class WindowPlan:
    at: datetime
    instance: Instance
    plan: Plan
    path: Path


def plan_window(con: duckdb.DuckDBPyConnection, outputs: Path, run_id: str, *,
                at: datetime | None = None, policy: str = "mip",
                settings: Settings | None = None, slot_seconds: float = 600,
                num_slots: int = 6) -> WindowPlan:
    """Plan the window starting `at` (default: the latest event in the warehouse, which for a
    live platform is now) and write it to plans/run_id=…/window_start=…/."""
    if at is None:
        at = latest_event_time(con)
        if at is None:
            raise EtplanError("the warehouse has no job events; run `etplan ingest` first")
    at = at.astimezone(UTC)
    inst = window_instance(con, at, slot_seconds=slot_seconds, num_slots=num_slots)
    # the plan made for an earlier window, moved on to this one, warm-starts the MIP
    hint = previous_plan_hint(con, outputs, at, slot_seconds, num_slots)
    p = plan(inst, policy, settings or Settings(), hint=hint)
    current = {j.job_id: j.current_nodes for j in inst.jobs}
    path = write_plan(outputs, p, run_id, at, current)
    log.info("planned %d jobs at %s with %s (%s): %s", len(inst.jobs), at, p.solver, p.status,
             path)
    return WindowPlan(at, inst, p, path)
