"""Migrations, staging views, the synthetic generator."""

from __future__ import annotations

import hashlib

import duckdb

from sources.synthetic import write_logs
from warehouse.connection import connect
from warehouse.ingest import ingest_paths
from warehouse.sqlfiles import migrations


def test_migrations_recorded_and_old_warehouse_upgrades(tmp_path):
    path = tmp_path / "old.duckdb"
    # a warehouse made by an older etplan that knew only the first migration
    raw = duckdb.connect(str(path))
    version, name, sql = migrations()[0]
    raw.execute(sql)
    raw.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR, "
                "applied_at TIMESTAMPTZ DEFAULT current_timestamp)")
    raw.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [version, name])
    raw.close()
    con = connect(path)
    applied = [v for (v,) in con.execute("SELECT version FROM schema_migrations ORDER BY 1")
               .fetchall()]
    assert applied == [v for v, _, _ in migrations()]
    assert con.execute("SELECT count(*) FROM jobs").fetchone()[0] == 0
    con.close()
    con = connect(path)  # opening again applies nothing twice
    assert con.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(migrations())


def test_jobs_and_intervals_views(con, tmp_path):
    f = tmp_path / "ev.csv"
    f.write_text(
        "job_id,event_time,event,nodes,min_nodes,max_nodes,requested_nodes,total_work\n"
        "a,2026-12-01T10:00:00Z,submitted,,1,8,4,1000\n"
        "b,2026-12-01T10:00:30Z,submitted,,2,2,,500\n"
        "a,2026-12-01T10:01:00Z,started,4,,,,\n"
        "a,2026-12-01T10:05:00Z,scaled,8,,,,\n"
        "a,2026-12-01T10:09:00Z,completed,,,,,\n"
        "c,2026-12-01T10:10:00Z,submitted,,1,2,,50\n"
        "c,2026-12-01T10:11:00Z,started,2,,,,\n")
    ingest_paths(con, [f])
    jobs = con.execute("SELECT job_id, status, current_nodes, rescales, requested_nodes, "
                       "epoch(finish_time - submit_time) FROM jobs ORDER BY job_id").fetchall()
    assert jobs == [("a", "completed", 0, 1, 4, 540.0), ("b", "queued", 0, 0, 2, None),
                    ("c", "running", 2, 0, 1, None)]
    iv = con.execute("SELECT job_id, strftime(start_time, '%H:%M'), "
                     "strftime(end_time, '%H:%M'), nodes FROM job_intervals "
                     "ORDER BY job_id, start_time").fetchall()
    assert iv == [("a", "10:01", "10:05", 4), ("a", "10:05", "10:09", 8), ("c", "10:11", None, 2)]


def test_generator_is_deterministic_and_realistic(tmp_path):
    a = write_logs(tmp_path / "a", 400, 11)
    b = write_logs(tmp_path / "b", 400, 11)
    c = write_logs(tmp_path / "c", 400, 12)
    digest = {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in a.items()}
    assert digest == {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in b.items()}
    assert digest["job_events"] != hashlib.sha256(c["job_events"].read_bytes()).hexdigest()
    con = connect(tmp_path / "w.duckdb")
    results = ingest_paths(con, [tmp_path / "a"])
    assert sum(r.rows_rejected for r in results) == 0
    status = dict(con.execute("SELECT status, count(*) FROM jobs GROUP BY 1").fetchall())
    assert sum(status.values()) == 400
    # the log ends mid-run: a planner finds queued and running jobs
    assert status.get("queued", 0) > 0 and status.get("running", 0) > 0
    assert status["completed"] > 200
    # elastic jobs were scaled, samples exist at more than one size for some jobs
    assert con.execute("SELECT count(*) FROM job_events WHERE event = 'scaled'").fetchone()[0] > 0
    multi = con.execute("SELECT count(*) FROM (SELECT job_id FROM throughput_samples GROUP BY 1 "
                        "HAVING count(DISTINCT nodes) > 1)").fetchone()[0]
    assert multi > 0
    # throughput grows with nodes but sub-linearly within a model class
    per_node = con.execute("""
        SELECT j.model, s.nodes, median(s.throughput / s.nodes) FROM throughput_samples s
        JOIN jobs j USING (job_id) WHERE j.model = 'resnet50' GROUP BY ALL ORDER BY 2""").fetchall()
    assert per_node[0][2] > per_node[-1][2]
    # no job ever holds more nodes than the pool
    peak = con.execute("""
        WITH e AS (SELECT start_time AS t, nodes AS d FROM job_intervals
                   UNION ALL SELECT end_time, -nodes FROM job_intervals WHERE end_time IS NOT NULL)
        SELECT max(s) FROM (SELECT sum(d) OVER (ORDER BY t, d ROWS UNBOUNDED PRECEDING) s FROM e)
    """).fetchone()[0]
    assert peak <= 64


def test_next_window_is_warm_started_from_the_previous_plan_moved_on(con, tmp_path):
    from datetime import timedelta

    from flows.usecases.plans import plan_window
    from warehouse.estimate import estimate
    from warehouse.plans import previous_plan_hint

    write_logs(tmp_path / "logs", 120, 5)
    ingest_paths(con, [tmp_path / "logs"])
    estimate(con)
    out = tmp_path / "out"
    first = plan_window(con, out, "r1")
    assert previous_plan_hint(con, out, first.at, 600, 6) == {}    # nothing before it
    rows = first.plan.nodes_by_job()
    later = first.at + timedelta(seconds=1200)
    assert previous_plan_hint(con, out, later, 600, 6) == {j: r[2:] for j, r in rows.items()}
    assert previous_plan_hint(con, out, first.at + timedelta(hours=2), 600, 6) == {}
