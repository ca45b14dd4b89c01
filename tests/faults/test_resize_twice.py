"""Issue 15 item 5: two size events of one job in the same second, with different sizes, are
both kept and the later one in the file is the job's size."""

from __future__ import annotations

from warehouse.ingest import ingest_file

EVENTS = ("job_id,event_time,event,nodes,min_nodes,max_nodes,requested_nodes,total_work,weight,"
          "model,tenant\n")


def test_two_scaled_events_in_one_second_both_load(tmp_path, con):
    path = tmp_path / "events.csv"
    path.write_text(EVENTS +
                    "j1,2026-12-01T10:00:00Z,submitted,,1,8,4,1000000,1,m,a\n"
                    "j1,2026-12-01T10:01:00Z,started,4,,,,,,,\n"
                    "j1,2026-12-01T10:05:00Z,scaled,8,,,,,,,\n"
                    "j1,2026-12-01T10:05:00Z,scaled,2,,,,,,,\n"
                    "j1,2026-12-01T10:05:00Z,scaled,2,,,,,,,\n")
    r = ingest_file(con, path)
    assert (r.rows_loaded, r.rows_rejected) == (4, 1)
    assert con.execute("SELECT row_no, reason FROM rejected_rows").fetchall() == [
        (6, "duplicate of line 5")]
    assert con.execute("SELECT current_nodes, rescales FROM jobs").fetchall() == [(2, 2)]
    # the same sizes again in a later file are duplicates of what is loaded; a new size is not
    again = tmp_path / "again.csv"
    again.write_text(EVENTS + "j1,2026-12-01T10:05:00Z,scaled,8,,,,,,,\n"
                     "j1,2026-12-01T10:05:00Z,scaled,6,,,,,,,\n")
    r = ingest_file(con, again)
    assert (r.rows_loaded, r.rows_rejected) == (1, 1)
    assert con.execute("SELECT current_nodes FROM jobs").fetchall() == [(6,)]


def test_window_state_takes_the_last_size(tmp_path, con):
    from datetime import UTC, datetime

    from warehouse.sqlfiles import run
    path = tmp_path / "events.csv"
    path.write_text(EVENTS +
                    "j1,2026-12-01T10:00:00Z,submitted,,1,8,4,1000000,1,m,a\n"
                    "j1,2026-12-01T10:01:00Z,started,4,,,,,,,\n"
                    "j1,2026-12-01T10:05:00Z,scaled,8,,,,,,,\n"
                    "j1,2026-12-01T10:05:00Z,scaled,2,,,,,,,\n")
    ingest_file(con, path)
    at = datetime(2026, 12, 1, 10, 30, tzinfo=UTC)
    cur = run(con, "window_state/jobs", {"at": at, "rescale": 30})
    cols = [d[0] for d in cur.description]
    assert [dict(zip(cols, r, strict=True))["current_nodes"] for r in cur.fetchall()] == [2]
