"""Throughput scaling estimation (DESIGN §5), all in `sql/estimate/throughput_curves.sql`."""

from __future__ import annotations

import logging
import time

import duckdb

from warehouse.sqlfiles import load_query, load_sql, run_script

log = logging.getLogger(__name__)

STEPS = ("machine", "groups", "points", "fits", "cross", "anchors", "classes", "class_cross",
         "global", "class_ratios")


def estimate(con: duckdb.DuckDBPyConnection) -> dict[str, int | float]:
    """Replace `throughput_curves` with fresh curves for every job; return counts by source."""
    start = time.perf_counter()
    for step in STEPS:
        con.execute(load_query("estimate/throughput_curves", step))
    con.execute("BEGIN TRANSACTION")
    try:
        run_script(con, load_query("estimate/throughput_curves", "write"))
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    counts = dict(con.execute(load_sql("estimate/curve_summary")).fetchall())
    counts["seconds"] = round(time.perf_counter() - start, 3)
    log.info("estimated curves: %s", counts)
    return counts
