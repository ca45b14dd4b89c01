"""Every rejection rule of DESIGN §3.2, each checked with its exact row and reason."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.ingest import ingest_file, ingest_paths

EVENTS_HEADER = ("job_id,event_time,event,nodes,min_nodes,max_nodes,requested_nodes,"
                 "total_work,weight,model,tenant\n")

# line number -> expected reason (prefix) for each bad line; good lines have no entry.
FAULTY_EVENTS = [
    ("j1,2026-12-01T10:00:00Z,submitted,,1,8,4,1000000,1,resnet50,a", None),
    ("j2,2026-12-01T10:01:00Z,submitted,,2,4,,5e5,,bert,b", None),
    ("j1,2026-12-01T10:02:00Z,started,4,,,,,,,", None),
    (",2026-12-01T10:03:00Z,submitted,,1,2,1,100,1,x,a", "missing field: job_id"),
    ("j3,not-a-time,submitted,,1,2,1,100,1,x,a", "bad type: event_time 'not-a-time'"),
    ("j4,2026-12-01T10:04:00Z,submitted,,one,2,1,100,1,x,a",
     "bad type: min_nodes 'one' is not a number"),
    ("j5,2026-12-01T10:05:00Z,submitted,,1,2.5,1,100,1,x,a",
     "bad type: max_nodes '2.5' is not a whole number"),
    ("j6,2026-12-01T10:06:00Z,submitted,,-1,2,1,100,1,x,a",
     "min_nodes must be at least 1 (got -1)"),
    ("j7,2026-12-01T10:07:00Z,submitted,,8,4,4,100,1,x,a", "min_nodes 8 > max_nodes 4"),
    ("j8,2026-12-01T10:08:00Z,submitted,,1,4,16,100,1,x,a",
     "requested_nodes 16 outside [min_nodes, max_nodes] = [1, 4]"),
    ("j9,2026-12-01T10:09:00Z,submitted,,1,4,2,-5,1,x,a", "total_work must be > 0 (got -5.0)"),
    ("j10,2026-12-01T10:10:00Z,submitted,,1,4,2,100,0,x,a", "weight must be > 0 (got 0.0)"),
    ("j1,2026-12-01T10:11:00Z,exploded,,,,,,,,", "unknown event 'exploded'"),
    ("ghost,2026-12-01T10:12:00Z,started,2,,,,,,,", "unknown job ghost: no submitted event"),
    ("j2,2026-12-01T09:00:00Z,started,2,,,,,,,", "out of order: started at 2026-12-01T09:00:00Z "
     "is before the job was submitted at 2026-12-01T10:01:00Z"),
    ("j2,2026-12-01T10:13:00Z,scaled,3,,,,,,,", "out of order: scaled before the job started"),
    ("j1,2026-12-01T10:14:00Z,scaled,0,,,,,,,", "nodes must be at least 1 (got 0)"),
    ("j1,2026-12-01T10:15:00Z,scaled,16,,,,,,,",
     "nodes 16 outside the job's [min_nodes, max_nodes] = [1, 8]"),
    ("j1,2026-12-01T10:02:00Z,started,4,,,,,,,", "duplicate of line 4"),
    ("j1,2026-12-01T10:16:00Z,scaled,,,,,,,,", "missing field: nodes (needed on scaled)"),
    ("j1,2026-12-01T10:20:00Z,completed,,,,,,,,", None),
    ("j1,2026-12-01T10:21:00Z,scaled,2,,,,,,,",
     "out of order: scaled after the job completed at 2026-12-01T10:20:00Z"),
    ("j1,2026-12-01T10:22:00Z,failed,,,,,,,,",
     "out of order: job already completed at 2026-12-01T10:20:00Z"),
    ("j1,2026-12-01T10:23:00Z,started,1,,,,,,,",
     "out of order: job already started at 2026-12-01T10:02:00Z"),
    ("j2,2026-12-01T10:30:00Z,submitted,,2,4,,5e5,,bert,b",
     "job j2 already submitted at 2026-12-01T10:01:00Z"),
    ("j11,2026-12-01T10:31:00Z,submitted,,1,2", "missing fields: the line has 6 of 11 fields"),
    ("j12,2026-12-01T10:32:00Z,submitted,,1,2,1,100,1,x,a,extra",
     "too many fields: the line has 12 fields, the header 11"),
    ("j13,2026-12-01T10:33:00Z,submitted,,1,2,1,100,1,x,a", None),
]


def write_faulty_csv(path):
    path.write_text(EVENTS_HEADER + "\n".join(line for line, _ in FAULTY_EVENTS) + "\n")


def rejects(con, file_id):
    return dict(con.execute(
        "SELECT row_no, reason FROM rejected_rows WHERE file_id = ? ORDER BY row_no",
        [file_id]).fetchall())


def test_csv_faults_each_rejected_with_its_reason(con, tmp_path):
    path = tmp_path / "events.csv"
    write_faulty_csv(path)
    result = ingest_file(con, path)
    assert result.status == "loaded"
    expected_bad = {i + 2: reason for i, (_, reason) in enumerate(FAULTY_EVENTS) if reason}
    got = rejects(con, result.file_id)
    assert sorted(got) == sorted(expected_bad)
    for line, reason in expected_bad.items():
        assert got[line].startswith(reason), (line, got[line], reason)
    good = len(FAULTY_EVENTS) - len(expected_bad)
    assert (result.rows_read, result.rows_loaded, result.rows_rejected) == (
        len(FAULTY_EVENTS), good, len(expected_bad))
    loaded = con.execute("SELECT job_id, event, row_no FROM job_events ORDER BY row_no").fetchall()
    assert loaded == [("j1", "submitted", 2), ("j2", "submitted", 3), ("j1", "started", 4),
                      ("j1", "completed", 22), ("j13", "submitted", 29)]
    # the raw content keeps what the user wrote
    raw = con.execute("SELECT raw FROM rejected_rows WHERE row_no = 28").fetchone()[0]
    assert raw == "j12,2026-12-01T10:32:00Z,submitted,,1,2,1,100,1,x,a,extra"
    # defaults of the spec: requested = min, weight = 1
    j2 = con.execute("SELECT requested_nodes, weight FROM jobs WHERE job_id = 'j2'").fetchone()
    assert j2 == (2, 1.0)


def test_a_rejected_event_can_put_later_ones_out_of_order(con, tmp_path):
    # the first start is rejected for its size; then the scale and the completion that fitted
    # the lifecycle with it are before any start, and are rejected in the next round
    path = tmp_path / "cascade.csv"
    path.write_text(EVENTS_HEADER
                    + "j1,2026-12-01T10:00:00Z,submitted,,1,4,2,100,1,x,a\n"
                    + "j1,2026-12-01T10:01:00Z,started,8,,,,,,,\n"
                    + "j1,2026-12-01T10:02:00Z,scaled,2,,,,,,,\n"
                    + "j1,2026-12-01T10:03:00Z,completed,,,,,,,,\n")
    result = ingest_file(con, path)
    assert rejects(con, result.file_id) == {
        3: "nodes 8 outside the job's [min_nodes, max_nodes] = [1, 4]",
        4: "out of order: scaled before the job started",
        5: "out of order: completed before the job started"}
    # a later file starts it properly, judged against what the warehouse holds
    later = tmp_path / "later.csv"
    later.write_text(EVENTS_HEADER + "j1,2026-12-01T10:10:00Z,started,2,,,,,,,\n")
    assert ingest_file(con, later).rows_loaded == 1


def test_sample_and_capacity_rules(con, tmp_path):
    (tmp_path / "ev.csv").write_text(
        EVENTS_HEADER + "a,2026-12-01T10:00:00Z,submitted,,1,4,2,1e6,1,m,t\n")
    (tmp_path / "tp.csv").write_text(
        "job_id,sample_time,nodes,throughput\n"
        "a,2026-12-01T10:05:00Z,2,100.5\n"
        "a,2026-12-01T10:06:00Z,2,0\n"
        "a,2026-12-01T10:07:00Z,0,10\n"
        "a,2026-12-01T10:08:00Z,2,fast\n"
        "zz,2026-12-01T10:09:00Z,2,10\n"
        "a,2026-12-01T10:05:00Z,2,100.5\n"
        "a,,2,10\n")
    (tmp_path / "cap.csv").write_text(
        "pool,effective_from,nodes\n"
        "p,2026-12-01T00:00:00Z,64\n"
        "p,2026-12-01T00:00:00Z,60\n"
        "p,2026-12-01T01:00:00Z,-3\n"
        "p,2026-12-01T02:00:00Z,0\n")
    results = {r.feed: r for r in ingest_paths(con, [tmp_path])}
    assert {k: (r.rows_read, r.rows_loaded, r.rows_rejected) for k, r in results.items()} == {
        "job_events": (1, 1, 0), "throughput_samples": (7, 1, 6), "capacity": (4, 2, 2)}
    tp = rejects(con, results["throughput_samples"].file_id)
    assert tp[3] == "throughput must be > 0 (got 0.0)"
    assert tp[4] == "nodes must be at least 1 (got 0)"
    assert tp[5].startswith("bad type: throughput 'fast' is not a number")
    assert tp[6].startswith("unknown job zz")
    assert tp[7] == "duplicate of line 2"
    assert tp[8] == "missing field: sample_time"
    cap = rejects(con, results["capacity"].file_id)
    assert cap == {3: "duplicate of line 2", 4: "nodes must be at least 0 (got -3)"}


def test_jsonl_and_parquet_rules(con, tmp_path):
    (tmp_path / "a_events.jsonl").write_text("\n".join([
        json.dumps({"job_id": "a", "event_time": "2026-12-01T10:00:00+01:00", "event": "submitted",
                    "min_nodes": 1, "max_nodes": 4, "total_work": 1e6}),
        "{not json",
        "",
        json.dumps({"job_id": "a", "event_time": "2026-12-01T09:05:00Z", "event": "started",
                    "nodes": "2.5"}),
        json.dumps([1, 2]),
        json.dumps({"job_id": "a", "event_time": "2026-12-01T09:06:00Z", "event": "started",
                    "nodes": 2}),
    ]) + "\n")
    pq.write_table(pa.table({
        "job_id": ["a", "a", None], "sample_time": ["2026-12-01T09:10:00Z"] * 3,
        "nodes": ["2", "x", "1"], "throughput": [50.0, 60.0, 70.0]}),
        tmp_path / "b_samples.parquet")
    results = {r.feed: r for r in ingest_paths(con, [tmp_path])}
    ev = results["job_events"]
    assert (ev.rows_read, ev.rows_loaded, ev.rows_rejected) == (5, 2, 3)
    got = rejects(con, ev.file_id)
    assert got == {2: "malformed JSON: each line must be one JSON object",
                   4: "bad type: nodes '2.5' is not a whole number",
                   5: "malformed JSON: each line must be one JSON object"}
    # an offset in the timestamp is honoured: 10:00+01:00 is 09:00Z, so 09:06Z is after it
    sub = con.execute("SELECT strftime(submit_time, '%H:%M') FROM jobs").fetchone()[0]
    assert sub == "09:00"
    tp = results["throughput_samples"]
    assert (tp.rows_read, tp.rows_loaded, tp.rows_rejected) == (3, 1, 2)
    assert rejects(con, tp.file_id) == {2: "bad type: nodes 'x' is not a whole number",
                                        3: "missing field: job_id"}
    raw = con.execute("SELECT raw FROM rejected_rows WHERE file_id = ? AND row_no = 2",
                      [tp.file_id]).fetchone()[0]
    assert json.loads(raw)["nodes"] == "x"


def test_optional_columns_may_be_absent(con, tmp_path):
    pq.write_table(pa.table({
        "job_id": ["a", "a"], "event_time": ["2026-12-01T09:00:00Z", "2026-12-01T09:01:00Z"],
        "event": ["submitted", "started"], "nodes": [None, 2], "min_nodes": [1, None],
        "max_nodes": [2, None], "total_work": [10.0, None]}), tmp_path / "ev.parquet")
    (tmp_path / "ev2.csv").write_text("event,job_id,event_time,min_nodes,max_nodes,total_work\n"
                                      "submitted,b,2026-12-01T09:00:00Z,1,1,5\n")
    results = ingest_paths(con, [tmp_path])
    assert [(r.status, r.rows_loaded) for r in results] == [("loaded", 2), ("loaded", 1)]
    assert con.execute("SELECT job_id, status, weight, tenant FROM jobs ORDER BY 1").fetchall() == [
        ("a", "running", 1.0, None), ("b", "queued", 1.0, None)]


def test_the_warehouse_wins_over_a_later_file(con, tmp_path):
    first = tmp_path / "a.csv"
    first.write_text(EVENTS_HEADER + "j1,2026-12-01T10:00:00Z,submitted,,1,4,2,100,1,m,t\n"
                                     "j1,2026-12-01T10:05:00Z,started,2,,,,,,,\n")
    second = tmp_path / "b.csv"
    # an earlier-dated submission and start of the same job arrive in a later file
    second.write_text(EVENTS_HEADER + "j1,2026-12-01T09:00:00Z,submitted,,1,8,2,100,1,m,t\n"
                                      "j1,2026-12-01T09:01:00Z,started,4,,,,,,,\n"
                                      "j1,2026-12-01T10:30:00Z,completed,,,,,,,,\n")
    ingest_file(con, first)
    r = ingest_file(con, second)
    assert rejects(con, r.file_id) == {
        2: "job j1 already submitted at 2026-12-01T10:00:00Z",
        3: "out of order: started at 2026-12-01T09:01:00Z is before the job was submitted "
           "at 2026-12-01T10:00:00Z"}
    assert con.execute("SELECT status, max_nodes FROM jobs").fetchone() == ("completed", 4)


def test_samples_may_say_how_many_machines_they_spanned(con, tmp_path):
    (tmp_path / "ev.csv").write_text(
        EVENTS_HEADER + "a,2026-12-01T10:00:00Z,submitted,,1,8,2,1e6,1,m,t\n")
    (tmp_path / "tp.csv").write_text(
        "job_id,sample_time,nodes,throughput,machines\n"
        "a,2026-12-01T10:05:00Z,4,100,2\n"
        "a,2026-12-01T10:06:00Z,4,100,\n"
        "a,2026-12-01T10:07:00Z,2,100,3\n"
        "a,2026-12-01T10:08:00Z,2,100,0\n"
        "a,2026-12-01T10:09:00Z,2,100,1.5\n")
    results = {r.feed: r for r in ingest_paths(con, [tmp_path])}
    tp = results["throughput_samples"]
    assert (tp.rows_read, tp.rows_loaded, tp.rows_rejected) == (5, 2, 3)
    assert rejects(con, tp.file_id) == {
        4: "machines must be between 1 and nodes (got 3 for 2 nodes)",
        5: "machines must be between 1 and nodes (got 0 for 2 nodes)",
        6: "bad type: machines '1.5' is not a whole number"}
    assert con.execute("SELECT machines FROM throughput_samples ORDER BY sample_time"
                       ).fetchall() == [(2,), (None,)]
