"""Throughput scaling estimation (DESIGN §5), all in `sql/estimate/fit_curves.sql`.

The fit reads two narrow inputs and nothing else: est_jobs(job_id, model, min_nodes,
max_nodes) and est_samples(job_id, nodes, machines, throughput). In the warehouse they are
views over its tables (`sql/views/40_estimate_inputs.sql`) and `estimate` writes the curves to
`throughput_curves`; anywhere else (the replay, the accuracy harness, the bench)
`estimate_rows` registers plain rows under the same names in a connection of its own.
"""

from __future__ import annotations

import logging
import time

import duckdb
import pyarrow as pa

from warehouse.connection import transaction
from warehouse.sqlfiles import run

log = logging.getLogger(__name__)

JOBS_SCHEMA = pa.schema([("job_id", pa.string()), ("model", pa.string()),
                         ("min_nodes", pa.int32()), ("max_nodes", pa.int32())])
SAMPLES_SCHEMA = pa.schema([("job_id", pa.string()), ("nodes", pa.int32()),
                            ("machines", pa.int32()), ("throughput", pa.float64())])

Curves = dict[str, dict[int, float]]


def fit(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Fit a curve for every job of est_jobs into the temp table est_curves; return the jobs per
    curve source and the number of curve rows."""
    run(con, "estimate/fit_curves")
    return dict(run(con, "estimate/curve_summary").fetchall())


def estimate(con: duckdb.DuckDBPyConnection) -> dict[str, int | float]:
    """Replace the warehouse's `throughput_curves` with fresh curves for every job; return
    counts by source."""
    start = time.perf_counter()
    counts: dict[str, int | float] = dict(fit(con))
    with transaction(con):
        run(con, "estimate/write_curves")
    counts["seconds"] = round(time.perf_counter() - start, 3)
    log.info("estimated curves: %s", counts)
    return counts


def estimate_rows(jobs: list[dict], samples: list[dict],
                  con: duckdb.DuckDBPyConnection | None = None) -> Curves:
    """Curves {job_id: {nodes: samples/s}} for plain rows: `jobs` with the keys of est_jobs,
    `samples` with those of est_samples (machines may be missing or None). `con` is a plain
    DuckDB connection to reuse (not a warehouse: its views would hide the rows); default a
    fresh in-memory one."""
    return estimate_arrow(
        pa.Table.from_pylist([{k: j.get(k) for k in JOBS_SCHEMA.names} for j in jobs],
                             schema=JOBS_SCHEMA),
        pa.Table.from_pylist([{k: s.get(k) for k in SAMPLES_SCHEMA.names} for s in samples],
                             schema=SAMPLES_SCHEMA), con)


def estimate_arrow(jobs: pa.Table, samples: pa.Table,
                   con: duckdb.DuckDBPyConnection | None = None) -> Curves:
    """`estimate_rows` for inputs already in Arrow (JOBS_SCHEMA, SAMPLES_SCHEMA): the same SQL
    over them, registered as est_jobs and est_samples. A job whose sizes are null gets no curve;
    its samples still inform its model class (fit_curves.sql)."""
    con = con or duckdb.connect()
    con.register("est_jobs", jobs)
    con.register("est_samples", samples)
    run(con, "estimate/fit_curves")   # not `fit`: nobody here reads the per-source counts
    out: Curves = {}
    for jid, n, tp in run(con, "estimate/curves").fetchall():
        out.setdefault(jid, {})[n] = tp
    return out
