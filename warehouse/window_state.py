"""The window instance (DESIGN §3.3) for time `at`, read from the warehouse."""

from __future__ import annotations

from datetime import datetime

import duckdb

from solver.instance import Instance, Job, candidate_sizes
from warehouse.errors import EtplanError
from warehouse.sqlfiles import load_query


def latest_event_time(con: duckdb.DuckDBPyConnection) -> datetime | None:
    return con.execute(load_query("window_state", "latest_event")).fetchone()[0]


def window_instance(con: duckdb.DuckDBPyConnection, at: datetime, *, slot_seconds: float = 600,
                    num_slots: int = 6, rescale_seconds: float = 30.0) -> Instance:
    params = {"at": at, "rescale": rescale_seconds}
    cur = con.execute(load_query("window_state", "jobs"), params)
    cols = [d[0] for d in cur.description]
    rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    curves: dict[str, dict[int, float]] = {}
    for jid, n, tp in con.execute(load_query("window_state", "curves"), {"at": at}).fetchall():
        curves.setdefault(jid, {})[n] = tp
    missing = [r["job_id"] for r in rows if r["job_id"] not in curves]
    if missing:
        raise EtplanError(f"job {missing[0]}: no throughput curve; run `etplan estimate` first")
    (cap,) = con.execute(load_query("window_state", "capacity"), {"at": at}).fetchone()
    jobs = []
    for r in rows:
        curve = curves[r["job_id"]]
        allowed = [n for n in candidate_sizes(r["min_nodes"], r["max_nodes"],
                                              r["requested_nodes"], r["current_nodes"])
                   if n in curve]
        jobs.append(Job(job_id=r["job_id"], min_nodes=r["min_nodes"],
                        max_nodes=r["max_nodes"], requested_nodes=r["requested_nodes"],
                        current_nodes=r["current_nodes"], remaining_work=r["remaining_work"],
                        total_work=r["total_work"], weight=r["weight"],
                        waiting_seconds=float(r["waiting_seconds"]),
                        rescale_seconds=rescale_seconds,
                        throughput={n: curve[n] for n in allowed}, allowed_nodes=allowed))
    return Instance(jobs=jobs, capacity=[int(cap)] * num_slots, slot_seconds=slot_seconds,
                    num_slots=num_slots, window_start=at.strftime("%Y-%m-%dT%H:%M:%SZ"))
