"""Read-only questions to the warehouse: its summary and ad-hoc SQL."""

from __future__ import annotations

import duckdb

from warehouse.errors import EtplanError
from warehouse.sqlfiles import run


def summary(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """(what, count) rows: files, rows per feed, rejects, jobs by status."""
    return [(what, int(n)) for what, n in run(con, "summary").fetchall()]


def run_sql(con: duckdb.DuckDBPyConnection, query: str) -> tuple[list[str], list[tuple]]:
    """Run one user query on a read-only connection; errors become one line."""
    try:
        rel = con.execute(query)
    except duckdb.Error as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise EtplanError(f"sql: {first}") from None
    if rel.description is None:
        return [], []
    return [d[0] for d in rel.description], rel.fetchall()
