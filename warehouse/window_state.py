"""The state a planner sees at time `at` (DESIGN §3.3), read from the warehouse as plain data;
`solver.instance.job_from_state` turns each job and its curve into a solver Job."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import duckdb

from warehouse.errors import EtplanError
from warehouse.sqlfiles import run


@dataclass
class WindowState:
    at: datetime
    capacity: int                            # nodes of all pools at `at`
    # live jobs in submit order, keys: job_id, min_nodes, max_nodes, requested_nodes,
    # current_nodes, remaining_work, total_work, weight, waiting_seconds, tenant,
    # seconds_since_resize (None when not running)
    jobs: list[dict]
    curves: dict[str, dict[int, float]]      # job_id -> {nodes: samples/s}
    # tenant -> {"max_nodes": int, "guaranteed_nodes": int}: the quotas in force at `at`
    quotas: dict[str, dict[str, int]] = field(default_factory=dict)


def latest_event_time(con: duckdb.DuckDBPyConnection) -> datetime | None:
    return run(con, "window_state/latest_event").fetchone()[0]


def quotas_at(con: duckdb.DuckDBPyConnection, at: datetime) -> dict[str, dict[str, int]]:
    """The tenant_quotas in force at `at` (DESIGN §4.2): per tenant, its row with the latest
    effective_from at or before `at`; tenants with none yet have no quota."""
    return {t: {"max_nodes": m, "guaranteed_nodes": g}
            for t, m, g in run(con, "window_state/quotas", {"at": at}).fetchall()}


def load_window(con: duckdb.DuckDBPyConnection, at: datetime, *, rescale_seconds: float
                ) -> WindowState:
    """Jobs submitted and not finished at `at` with the work they have left (each interval
    they ran loses `rescale_seconds`), their curves, and the pool size."""
    cur = run(con, "window_state/jobs", {"at": at, "rescale": rescale_seconds})
    cols = [d[0] for d in cur.description]
    jobs = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    for j in jobs:
        j["waiting_seconds"] = float(j["waiting_seconds"])
    curves: dict[str, dict[int, float]] = {}
    for jid, n, tp in run(con, "window_state/curves", {"at": at}).fetchall():
        curves.setdefault(jid, {})[n] = tp
    missing = [j["job_id"] for j in jobs if j["job_id"] not in curves]
    if missing:
        raise EtplanError(f"job {missing[0]}: no throughput curve; run `etplan estimate` first")
    (cap,) = run(con, "window_state/capacity", {"at": at}).fetchone()
    return WindowState(at=at, capacity=int(cap), jobs=jobs, curves=curves,
                       quotas=quotas_at(con, at))
