"""Plain-data inputs for the replay engine: validated logs, and an estimator that runs the
production estimation SQL on the jobs and samples a replay window has seen."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from warehouse.connection import connect
from warehouse.errors import EtplanError
from warehouse.estimate import JOBS_SCHEMA, SAMPLES_SCHEMA, Curves, estimate_arrow
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
    machines]) seen so far become the estimator's narrow inputs, as Arrow tables, in a
    connection of its own (one thread: the inputs are small). Only the jobs in `wanted` (all
    when None) get a curve; the others, given without sizes, inform their model class only."""

    def __init__(self) -> None:
        self.con = duckdb.connect(config={"threads": 1})
        self.calls = 0

    def __call__(self, jobs, samples, wanted: set[str] | None = None) -> Curves:
        self.calls += 1
        sized = [(j.min_nodes, j.max_nodes) if wanted is None or j.job_id in wanted
                 else (None, None) for j in jobs]
        est_jobs = pa.table([[j.job_id for j in jobs], [j.model for j in jobs],
                             [lo for lo, _ in sized], [hi for _, hi in sized]],
                            schema=JOBS_SCHEMA)
        rows = [(s[0], s[2], s[4] if len(s) > 4 else None, s[3]) for s in samples]
        cols = list(zip(*rows, strict=True)) if rows else [[], [], [], []]
        return estimate_arrow(est_jobs, pa.table(cols, schema=SAMPLES_SCHEMA), self.con)
