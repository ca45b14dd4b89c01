"""Load the project's SQL statements from `sql/*.sql` by name.

A file holds one purpose. Where that purpose needs several small statements run at different
moments, the file names them with ``-- name: NAME`` lines and :func:`load_query` returns one.
"""

import re
from functools import cache
from importlib import resources

import duckdb

_NAME_LINE = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


@cache
def load_sql(name: str) -> str:
    """Text of `sql/<name>.sql`; `name` may hold a folder, e.g. ``"ingest/read_csv"``."""
    folder, _, stem = name.rpartition("/")
    package = "sql" + ("." + folder.replace("/", ".") if folder else "")
    return resources.files(package).joinpath(f"{stem}.sql").read_text(encoding="utf-8")


@cache
def load_query(name: str, query: str) -> str:
    """The statement introduced by ``-- name: <query>`` in `sql/<name>.sql`."""
    parts = _NAME_LINE.split(load_sql(name))
    named = dict(zip(parts[1::2], parts[2::2], strict=True))
    if query not in named:
        raise KeyError(f"sql/{name}.sql has no query named {query!r}")
    return named[query].strip()


def migrations() -> list[tuple[int, str, str]]:
    """All schema migrations as (version, name, sql), in version order."""
    found = []
    for entry in resources.files("sql.migrations").iterdir():
        if entry.name.endswith(".sql") and entry.name[:3].isdigit():
            found.append((int(entry.name[:3]), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def run_script(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None
               ) -> duckdb.DuckDBPyConnection | None:
    """Run every statement of `sql` in turn, each with the parameters it names; return the
    result of the last one."""
    result = None
    for statement in duckdb.extract_statements(sql):
        wanted = {k: v for k, v in (params or {}).items() if k in statement.named_parameters}
        result = con.execute(statement, wanted) if wanted else con.execute(statement)
    return result
