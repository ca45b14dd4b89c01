"""Load and run the project's SQL files (`sql/**/*.sql`). The one convention:

- A file is one unit of work, named by its path under `sql/` without `.sql`
  (``"ingest/read_csv"``): a single statement, or a script of several that run top to bottom
  (the order of a multi-step computation lives in its file). A file never holds unrelated
  queries; small look-ups get a file each, grouped in a folder (``window_state/curves``).
- Parameters are DuckDB named parameters ``$name``, passed as one dict; each statement of a
  script gets the ones it names. Nothing is spliced into SQL text: no ``str.format``, no
  ``replace``, no ``SET VARIABLE``. Where only the table differs there is one file per table
  (``ingest/load_<feed>``), chosen by the code from its own list of feeds.
- ``sql/migrations/NNN_*.sql`` create tables, each applied once, in order.
  ``sql/views/NN_*.sql`` create TEMP views, re-created in that order on every connection.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import duckdb


def _package(folder: str) -> str:
    return "sql" + ("." + folder.replace("/", ".") if folder else "")


@cache
def sql_text(name: str) -> str:
    """Text of `sql/<name>.sql`; `name` may hold folders, e.g. ``"ingest/read_csv"``."""
    folder, _, stem = name.rpartition("/")
    return resources.files(_package(folder)).joinpath(f"{stem}.sql").read_text(encoding="utf-8")


@cache
def _statements(name: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The statements of a file with the parameters each names."""
    return tuple((s.query, frozenset(s.named_parameters))
                 for s in duckdb.extract_statements(sql_text(name)))


def run(con: duckdb.DuckDBPyConnection, name: str, params: dict | None = None
        ) -> duckdb.DuckDBPyConnection:
    """Run the statements of `sql/<name>.sql` in turn, each with the parameters it names;
    return the connection holding the last one's result."""
    return _run(con, _statements(name), params or {})


def _run(con: duckdb.DuckDBPyConnection, statements: tuple[tuple[str, frozenset[str]], ...],
         params: dict) -> duckdb.DuckDBPyConnection:
    for query, names in statements:
        if names:
            con.execute(query, {k: params[k] for k in names})
        else:
            con.execute(query)
    return con


def _folder(folder: str) -> list[tuple[str, str]]:
    """(file name, text) of the .sql files of `sql/<folder>/`, in name order."""
    return sorted((e.name, e.read_text(encoding="utf-8"))
                  for e in resources.files(_package(folder)).iterdir()
                  if e.name.endswith(".sql"))


def migrations() -> list[tuple[int, str, str]]:
    """All schema migrations as (version, name, sql), in version order."""
    return [(int(name[:3]), name, text) for name, text in _folder("migrations")
            if name[:3].isdigit()]


def run_text(con: duckdb.DuckDBPyConnection, text: str, params: dict | None = None) -> None:
    """Run a script that is not a named file (a migration, a view file) the same way."""
    statements = tuple((s.query, frozenset(s.named_parameters))
                       for s in duckdb.extract_statements(text))
    _run(con, statements, params or {})


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    """(Re-)create every view of `sql/views/` as a TEMP view of this connection."""
    for _, text in _folder("views"):
        run_text(con, text)
