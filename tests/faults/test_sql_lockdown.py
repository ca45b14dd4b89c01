"""Issue 15 item 2: `etplan sql` runs one read-only statement with external access off."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flows.usecases.data import ingest, query
from warehouse.connection import connect
from warehouse.errors import EtplanError

REFUSED = [
    "ATTACH '{other}' AS v (READ_WRITE)",
    "COPY (SELECT 1) TO '{tmp}/out.csv'",
    "EXPORT DATABASE '{tmp}/exported'",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('/etc/passwd')",
    "SELECT * FROM glob('/root/**')",
    "SELECT * FROM '{other}'",
    "SELECT * FROM read_parquet('{tmp}/**/*.parquet')",
    "SET threads = 1",
    "PRAGMA enable_progress_bar",
    "CHECKPOINT",
    "INSTALL httpfs",
    "LOAD httpfs",
    "CALL pragma_version()",
    "CREATE TEMP TABLE t AS SELECT 1",
    "DROP TABLE job_events",
    "SELECT 1; DROP TABLE job_events",
    "SELECT 1; SELECT 2",
    "",
]


@pytest.fixture(scope="module")
def other(tmp_path_factory, small_logs):
    """A second warehouse the user must not reach through the first."""
    path = tmp_path_factory.mktemp("other") / "other.duckdb"
    ingest([small_logs], warehouse=path)
    return path


@pytest.fixture(scope="module")
def wh(tmp_path_factory, small_logs):
    path = tmp_path_factory.mktemp("wh") / "wh.duckdb"
    ingest([small_logs], warehouse=path)
    return path


@pytest.mark.parametrize("sql", REFUSED)
def test_refused(sql, tmp_path, wh, other):
    text = sql.format(other=other, tmp=tmp_path)
    with pytest.raises(EtplanError) as err:
        query(text, outputs=tmp_path / "outputs", warehouse=wh)
    assert "\n" not in str(err.value) and str(err.value).startswith("sql: ")
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "exported").exists()
    con = connect(other)
    try:
        assert con.execute("SELECT count(*) FROM job_events").fetchone()[0] > 0
    finally:
        con.close()


def test_plain_selects_and_output_tables_still_work(tmp_path, loaded):
    outputs = tmp_path / "outputs"
    part = outputs / "kpis" / "run_id=r1" / "jobs" / "policy=greedy"
    part.mkdir(parents=True)
    pq.write_table(pa.table({"job_id": ["j1"], "nodes": [2]}), part / "part-0.parquet")
    cols, rows = query("SELECT count(*) AS n FROM jobs", outputs=outputs, warehouse=loaded)
    assert cols == ["n"] and rows[0][0] == 20
    cols, rows = query("WITH p AS (SELECT * FROM kpi_jobs) SELECT job_id, nodes FROM p",
                       outputs=outputs, warehouse=loaded)
    assert rows == [("j1", 2)]
    _, rows = query("EXPLAIN SELECT * FROM job_events", outputs=outputs, warehouse=loaded)
    assert rows
    _, rows = query("SELECT current_setting('enable_external_access')", outputs=outputs,
                    warehouse=loaded)
    assert rows == [(False,)]
