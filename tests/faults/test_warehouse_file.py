"""Issue 15 item 1: `--warehouse` naming an existing file that is not a DuckDB database."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flows.usecases.data import ingest, summary
from tests.conftest import run_cli
from warehouse.connection import connect
from warehouse.errors import EtplanError


def _victims(tmp_path):
    csv = tmp_path / "victim.csv"
    csv.write_text("a,b\n1,2\n")
    parquet = tmp_path / "victim.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), parquet)
    text = tmp_path / "notes.duckdb"
    text.write_text("hello, not a database\n")
    empty = tmp_path / "empty.duckdb"
    empty.write_bytes(b"")
    return [csv, parquet, text, empty]


def test_existing_non_duckdb_file_is_refused_and_left_unchanged(tmp_path, small_logs):
    for victim in _victims(tmp_path):
        before = victim.read_bytes()
        with pytest.raises(EtplanError, match="not a DuckDB warehouse"):
            ingest([small_logs], warehouse=victim)
        with pytest.raises(EtplanError, match="not a DuckDB warehouse"):
            summary(warehouse=victim)
        assert victim.read_bytes() == before


def test_folder_as_warehouse_is_refused(tmp_path):
    with pytest.raises(EtplanError, match="folder"):
        connect(tmp_path)


def test_new_and_existing_warehouses_still_open(tmp_path, small_logs):
    wh = tmp_path / "sub" / "wh.duckdb"
    ingest([small_logs], warehouse=wh)
    counts = dict(summary(warehouse=wh))
    assert any(n > 0 for n in counts.values())
    connect(":memory:").close()


def test_cli_says_one_line_and_loads_nothing(tmp_path, small_logs):
    victim = tmp_path / "victim.csv"
    victim.write_text("a,b\n1,2\n")
    r = run_cli("ingest", str(small_logs), "--warehouse", str(victim))
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1 and "not a DuckDB warehouse" in r.stderr
    assert "loaded" not in r.stdout
