"""Open the warehouse file, apply migrations, create the views, and turn DuckDB's lock errors
into one line; `transaction()` is the one place that begins, commits and rolls back."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from warehouse.errors import EtplanError
from warehouse.locking import open_waiting, snapshot
from warehouse.sqlfiles import create_views, migrations, run, run_text

log = logging.getLogger(__name__)

DEFAULT_WAREHOUSE = Path("data") / "etplan.duckdb"


def warehouse_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The warehouse file: the argument, else $ETPLAN_WAREHOUSE, else data/etplan.duckdb."""
    if path:
        return Path(path)
    env = os.environ.get("ETPLAN_WAREHOUSE")
    return Path(env) if env else DEFAULT_WAREHOUSE


def connect(path: str | os.PathLike[str] | None = None, *, read_only: bool = False
            ) -> duckdb.DuckDBPyConnection:
    """A connection to the warehouse in UTC, migrated to the newest schema unless read-only,
    with the macros and views of `sql/` created for it."""
    target = warehouse_path(path)
    if read_only:
        _check_exists(target)
    _check_is_warehouse(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    con = open_waiting(target, read_only)      # waits while another process holds the file
    _check_opened_a_file(con, target)
    con.execute("SET TimeZone = 'UTC'")
    run(con, "macros")      # before the migrations: 006 derives rejected_rows.rule with one
    if not read_only:
        apply_migrations(con)
    create_views(con)
    return con


def _check_exists(target: Path) -> None:
    """A reader never creates an empty warehouse."""
    if not target.exists():
        raise EtplanError(f"{target}: no warehouse here yet; run `etplan ingest` first "
                          "or pass --warehouse PATH")


DUCKDB_MAGIC = b"DUCK"   # bytes 8..12 of every DuckDB database file


def _check_is_warehouse(target: Path) -> None:
    """Refuse a path that exists but is not a DuckDB database file (a CSV, a Parquet file, a
    folder): DuckDB would open some of them as a temporary in-memory database and every write
    would be lost."""
    if not target.exists():
        return
    if not target.is_file():
        raise EtplanError(f"{target}: not a warehouse file (it is a folder); "
                          "pass --warehouse PATH/etplan.duckdb")
    try:
        with target.open("rb") as fh:
            head = fh.read(12)
    except OSError as err:
        raise EtplanError(f"{target}: cannot read warehouse ({err.strerror})") from None
    if head[8:12] != DUCKDB_MAGIC:
        raise EtplanError(f"{target}: not a DuckDB warehouse file (an existing file of another "
                          "kind); pass --warehouse a new or an etplan .duckdb path")


def _check_opened_a_file(con: duckdb.DuckDBPyConnection, target: Path) -> None:
    """The main database must be the file itself, never an in-memory stand-in."""
    if str(target) == ":memory:":
        return
    row = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = "
                      "current_database()").fetchone()
    if not row or not row[0]:
        con.close()
        raise EtplanError(f"{target}: DuckDB did not open it as a database file; "
                          "pass --warehouse a new or an etplan .duckdb path")


@contextmanager
def snapshot_connection(path: str | os.PathLike[str] | None = None
                        ) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to a private copy of the warehouse (warehouse/locking.py): a
    long query on it never keeps a writer out. Closed and removed when the block ends."""
    target = warehouse_path(path)
    _check_exists(target)
    _check_is_warehouse(target)
    with snapshot(target) as copy:
        con = connect(copy, read_only=True)
        try:
            yield con
        finally:
            con.close()


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """BEGIN; COMMIT when the block ends, ROLLBACK (and re-raise) when it raises."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def apply_migrations(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Apply every migration not yet recorded, each in its own transaction; return their names."""
    run(con, "schema_migrations/create")
    done = {v for (v,) in run(con, "schema_migrations/applied").fetchall()}
    applied = []
    for version, name, sql in migrations():
        if version in done:
            continue
        with transaction(con):
            run_text(con, sql)
            run(con, "schema_migrations/record", {"version": version, "name": name})
        log.info("applied migration %s", name)
        applied.append(name)
    return applied
