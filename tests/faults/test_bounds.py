"""Issue 15 item 3: physical bounds on every number and time at ingest, and `plan window`
checking the instance it builds like `solve` does."""

from __future__ import annotations

import math

import pytest

from flows.usecases.plans import plan_window_in
from warehouse.connection import connect
from warehouse.errors import EtplanError
from warehouse.ingest import ingest_file

EVENTS = ("job_id,event_time,event,nodes,min_nodes,max_nodes,requested_nodes,total_work,weight,"
          "model,tenant\n")
GOOD_SUBMIT = "j1,2026-12-01T10:00:00Z,submitted,,1,8,4,1000000,1,resnet50,a"

# (bad line, expected reason prefix); each is line 3 after a good submitted line
BAD_EVENTS = [
    ("j2,infinity,submitted,,1,8,4,1000,1,m,a", "bad type: event_time 'infinity'"),
    ("j2,-infinity,submitted,,1,8,4,1000,1,m,a", "bad type: event_time '-infinity'"),
    ("j2,epoch,submitted,,1,8,4,1000,1,m,a", "bad type: event_time 'epoch'"),
    ("j2,yesterday,submitted,,1,8,4,1000,1,m,a", "bad type: event_time 'yesterday'"),
    ("j2,2026-12-01T10:00:00+25:00,submitted,,1,8,4,1000,1,m,a", "bad type: event_time"),
    ("j2,1969-07-20T20:17:00Z,submitted,,1,8,4,1000,1,m,a", "out of bounds: event_time"),
    ("j2,2300-01-01T00:00:00Z,submitted,,1,8,4,1000,1,m,a", "out of bounds: event_time"),
    ("j2,2026-12-01T10:00:00Z,submitted,,1,3000000000,4,1000,1,m,a",
     "out of bounds: max_nodes 3000000000"),
    ("j2,2026-12-01T10:00:00Z,submitted,,1,2000000,4,1000,1,m,a", "out of bounds: max_nodes"),
    ("j2,2026-12-01T10:00:00Z,submitted,,1,8,4,1e300,1,m,a", "out of bounds: total_work"),
    ("j2,2026-12-01T10:00:00Z,submitted,,1,8,4,1e-310,1,m,a", "out of bounds: total_work"),
    ("j2,2026-12-01T10:00:00Z,submitted,,1,8,4,1000,1e-300,m,a", "out of bounds: weight"),
    ("j2,2026-12-01T10:00:00Z,submitted,,1,8,4,inf,1,m,a", "bad type: total_work 'inf'"),
    ("j1,2026-12-01T10:01:00Z,started,9999999,,,,,,,", "out of bounds: nodes"),
]


def _reject(con, path):
    r = ingest_file(con, path)
    rows = con.execute("SELECT row_no, reason, rule FROM rejected_rows WHERE file_id = ? "
                       "ORDER BY row_no", [r.file_id]).fetchall()
    return r, rows


@pytest.mark.parametrize(("line", "reason"), BAD_EVENTS)
def test_event_out_of_bounds_is_rejected(tmp_path, con, line, reason):
    path = tmp_path / "events.csv"
    path.write_text(EVENTS + GOOD_SUBMIT + "\n" + line + "\n")
    r, rows = _reject(con, path)
    assert r.status == "loaded" and r.rows_loaded == 1 and r.rows_rejected == 1
    assert rows[0][0] == 3 and rows[0][1].startswith(reason), rows
    assert rows[0][2] in ("bad_type", "out_of_bounds")


def test_event_bounds_hold_for_jsonl_and_offsets_within_14h_pass(tmp_path, con):
    path = tmp_path / "events.jsonl"
    path.write_text(
        '{"job_id": "j1", "event_time": "2026-12-01T10:00:00+14:00", "event": "submitted",'
        ' "min_nodes": 1, "max_nodes": 2, "total_work": 10}\n'
        '{"job_id": "j2", "event_time": "infinity", "event": "submitted",'
        ' "min_nodes": 1, "max_nodes": 2, "total_work": 10}\n'
        '{"job_id": "j3", "event_time": "2026-12-01T10:00:00Z", "event": "submitted",'
        ' "min_nodes": 1, "max_nodes": 2, "total_work": 1e309}\n')
    r, rows = _reject(con, path)
    assert (r.rows_loaded, r.rows_rejected) == (1, 2)
    assert [row[2] for row in rows] == ["bad_type", "bad_type"]


def test_typed_parquet_times_take_the_value_and_infinity_is_rejected(tmp_path, con):
    """A Parquet sample_time typed TIMESTAMP (no zone: read as UTC, as its text would be) or
    TIMESTAMPTZ is taken without the text round trip; an infinite one is rejected as before."""
    import duckdb
    events = tmp_path / "events.csv"
    events.write_text(EVENTS + GOOD_SUBMIT + "\n")
    assert ingest_file(con, events).rows_loaded == 1
    for kind, at in (("TIMESTAMP", "2026-12-01 10:05:00"), ("TIMESTAMPTZ", "2026-12-01 10:06:00")):
        path = tmp_path / f"samples-{kind}.parquet"
        duckdb.sql(f"SELECT 'j1' AS job_id, CAST(t AS {kind}) AS sample_time, 4 AS nodes, "
                   f"350.5 AS throughput FROM (VALUES ('{at}'), ('infinity')) v(t)"
                   ).write_parquet(str(path))
        r, rows = _reject(con, path)
        assert (r.rows_loaded, r.rows_rejected) == (1, 1), kind
        assert rows[0][1] == "bad type: sample_time 'infinity' is not an ISO 8601 timestamp"
    loaded = con.execute("SELECT strftime(sample_time AT TIME ZONE 'UTC', '%H:%M:%S') "
                         "FROM throughput_samples ORDER BY sample_time").fetchall()
    assert loaded == [("10:05:00",), ("10:06:00",)]


@pytest.mark.parametrize("value", ["1e-310", "1.7e308", "1e13", "inf", "nan"])
def test_throughput_out_of_bounds_is_rejected(tmp_path, con, value):
    events = tmp_path / "events.csv"
    events.write_text(EVENTS + GOOD_SUBMIT + "\n")
    assert ingest_file(con, events).rows_loaded == 1
    samples = tmp_path / "samples.csv"
    samples.write_text("job_id,sample_time,nodes,throughput\n"
                       "j1,2026-12-01T10:05:00Z,4,350.5\n"
                       f"j1,2026-12-01T10:06:00Z,4,{value}\n"
                       "j1,epoch,4,350\n")
    r, rows = _reject(con, samples)
    assert (r.rows_loaded, r.rows_rejected) == (1, 2)
    assert rows[0][1].startswith(("out of bounds: throughput", "bad type: throughput")), rows
    assert rows[1][1].startswith("bad type: sample_time 'epoch'")


def test_capacity_out_of_bounds_is_rejected(tmp_path, con):
    path = tmp_path / "capacity.csv"
    path.write_text("pool,effective_from,nodes\ndefault,2026-12-01T00:00:00Z,64\n"
                    "default,infinity,64\ndefault,2026-12-02T00:00:00Z,5000000\n")
    r, rows = _reject(con, path)
    assert (r.rows_loaded, r.rows_rejected) == (1, 2)
    assert [row[2] for row in rows] == ["bad_type", "out_of_bounds"]


def test_plan_window_refuses_a_non_finite_curve(tmp_path, loaded):
    """Curves that are NaN or infinite (say written by an older etplan) never reach a policy:
    plan window names the job in one line and writes nothing."""
    from flows.usecases.data import estimate
    estimate(warehouse=loaded)
    con = connect(loaded)
    try:
        con.execute("UPDATE throughput_curves SET throughput = ? WHERE job_id = "
                    "(SELECT min(job_id) FROM jobs WHERE status IN ('running', 'queued'))",
                    [math.inf])
        assert con.execute("SELECT count(*) FROM throughput_curves WHERE NOT isfinite("
                           "throughput)").fetchone()[0] > 0
    finally:
        con.close()
    outputs = tmp_path / "outputs"
    with pytest.raises(EtplanError, match="must be a number"):
        plan_window_in(loaded, outputs, "r1", policy="greedy")
    assert not list(outputs.rglob("*.parquet"))
