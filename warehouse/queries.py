"""Read-only questions to the warehouse: its summary and ad-hoc SQL.

`run_sql` is the one door for a user's SQL: one SELECT (or EXPLAIN), run after the connection
is locked down (no file, extension or network access, configuration frozen), so it can read the
warehouse and the output tables already loaded into the connection and nothing else."""

from __future__ import annotations

import duckdb

from warehouse.errors import EtplanError
from warehouse.sqlfiles import run

# statement kinds a user may run; everything else (ATTACH, COPY, EXPORT, SET, PRAGMA, CALL,
# CHECKPOINT, INSTALL, LOAD, CREATE, INSERT, ...) is refused before it reaches DuckDB
ALLOWED_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
# set in this order: once the configuration is locked it cannot be unset from SQL
LOCK_DOWN = ("SET enable_external_access = false", "SET autoload_known_extensions = false",
             "SET autoinstall_known_extensions = false", "SET lock_configuration = true")


def summary(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """(what, count) rows: files, rows per feed, rejects, jobs by status."""
    return [(what, int(n)) for what, n in run(con, "summary").fetchall()]


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def check_one_select(query: str) -> str:
    """The query's one statement, when it is a SELECT or EXPLAIN; a one-line error otherwise."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as err:
        raise EtplanError(f"sql: {_first_line(err)}") from None
    if len(statements) != 1:
        raise EtplanError(f"sql: give exactly one statement (got {len(statements)}); "
                          "etplan sql runs one read-only SELECT")
    kind = statements[0].type
    if kind not in ALLOWED_STATEMENTS:
        raise EtplanError(f"sql: {kind.name} statements are not allowed; "
                          "etplan sql runs one read-only SELECT")
    return statements[0].query


def lock_down(con: duckdb.DuckDBPyConnection) -> None:
    """No more file, extension or network access on this connection's database, and its
    configuration frozen. Run it after the output tables are loaded."""
    for statement in LOCK_DOWN:
        con.execute(statement)


def run_sql(con: duckdb.DuckDBPyConnection, query: str) -> tuple[list[str], list[tuple]]:
    """Run one user SELECT on a read-only connection, locked down first; errors become one
    line."""
    statement = check_one_select(query)
    lock_down(con)
    try:
        rel = con.execute(statement)
    except duckdb.Error as err:
        raise EtplanError(f"sql: {_first_line(err)}") from None
    except RuntimeError as err:   # DuckDB's "Query interrupted" on Ctrl-C: an interrupt
        if "interrupted" in str(err).lower():
            raise KeyboardInterrupt from None
        raise
    if rel.description is None:
        return [], []
    return [d[0] for d in rel.description], rel.fetchall()
