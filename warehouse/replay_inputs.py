"""Plain-data inputs for the replay engine: validated logs, and an estimator that runs the
production estimation SQL on the jobs and samples a replay window has seen."""

from __future__ import annotations

from pathlib import Path

import duckdb

from warehouse.connection import connect
from warehouse.errors import EtplanError
from warehouse.estimate import Curves, estimate_rows
from warehouse.ingest import FileResult, ingest_paths
from warehouse.sqlfiles import run


def load_logs(paths: list[Path]) -> tuple[dict, list[FileResult]]:
    """Ingest logs into an in-memory warehouse (same validation as `etplan ingest`) and return
    {"jobs": [...], "samples": [...], "capacity": [...], "quotas": [...]} as plain rows."""
    con = connect(":memory:")
    results = ingest_paths(con, paths)
    failed = [r for r in results if r.status == "failed"]
    if failed:
        raise EtplanError(f"{failed[0].path}: {failed[0].message}")
    cur = run(con, "replay_inputs/jobs")
    cols = [d[0] for d in cur.description]
    data = {
        "jobs": [dict(zip(cols, r, strict=True)) for r in cur.fetchall()],
        "samples": run(con, "replay_inputs/samples").fetchall(),
        "capacity": run(con, "replay_inputs/capacity").fetchall(),
        "quotas": run(con, "replay_inputs/quotas").fetchall(),
    }
    con.close()
    if not data["jobs"]:
        rejected = sum(r.rows_rejected for r in results)
        raise EtplanError(f"{', '.join(map(str, paths))}: no jobs in these logs"
                          + (f" ({rejected} rows rejected; `etplan ingest` them and query "
                             "rejected_rows to see why)" if rejected else ""))
    return data, results


class SqlEstimator:
    """The estimator of `etplan estimate` for replay windows: the jobs (objects with job_id,
    model, min_nodes, max_nodes) and the sample tuples (job_id, time, nodes, throughput[,
    machines]) seen so far become the estimator's narrow inputs in a connection of its own."""

    def __init__(self) -> None:
        self.con = duckdb.connect()
        self.calls = 0

    def __call__(self, jobs, samples) -> Curves:
        self.calls += 1
        return estimate_rows(
            [{"job_id": j.job_id, "model": j.model, "min_nodes": j.min_nodes,
              "max_nodes": j.max_nodes} for j in jobs],
            [{"job_id": s[0], "nodes": s[2], "throughput": s[3],
              "machines": s[4] if len(s) > 4 else None} for s in samples],
            self.con)
