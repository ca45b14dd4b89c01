"""What the report shows of the warehouse, as plain rows: the throughput curves with their
source and the samples behind them, and the rejected input rows per rule."""

from __future__ import annotations

import duckdb

from warehouse.sqlfiles import run


def _dicts(cur: duckdb.DuckDBPyConnection) -> list[dict]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def curve_fits(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """{job_id, model, source, nodes, throughput} of every fitted curve point."""
    return _dicts(run(con, "report/curve_fits"))


def curve_samples(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """{job_id, nodes, throughput (median), n} of the measured samples."""
    return _dicts(run(con, "report/curve_samples"))


def rejected_by_rule(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """{feed, rule, n, example} of the rejected rows, most frequent first."""
    return _dicts(run(con, "report/rejected_by_rule"))
