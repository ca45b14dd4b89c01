"""What every use case shares: a warehouse connection that closes, run ids, and writing a
user-named file with a one-line error."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import duckdb

from warehouse.connection import connect
from warehouse.errors import EtplanError


@contextmanager
def opened(warehouse: str | Path | None, *, read_only: bool = False
           ) -> Iterator[duckdb.DuckDBPyConnection]:
    """The warehouse (default: $ETPLAN_WAREHOUSE or defaults.WAREHOUSE), closed afterwards."""
    con = connect(warehouse, read_only=read_only)
    try:
        yield con
    finally:
        con.close()


def new_run_id() -> str:
    return datetime.now().strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def out_dir(path: Path) -> None:
    """Create the folder an --out file goes into; a one-line error when that cannot be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EtplanError(f"{path}: cannot create its folder ({e.strerror})") from None


def write_text(path: Path, text: str) -> None:
    out_dir(path)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise EtplanError(f"{path}: cannot write ({e.strerror})") from None
