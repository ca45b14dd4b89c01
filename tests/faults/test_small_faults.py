"""Issue 15 item 8: the smaller faults, each closed."""

from __future__ import annotations

import os
import time

import pytest

from flows.usecases.plans import solve_file
from solver.policies.settings import Settings
from warehouse.errors import EtplanError
from warehouse.ingest import ingest_file, ingest_paths
from warehouse.outputs import STALE_SECONDS, write_partition

EVENTS = ("job_id,event_time,event,nodes,min_nodes,max_nodes,requested_nodes,total_work,weight,"
          "model,tenant\n")
SUBMIT = "j1,2026-12-01T10:00:00Z,submitted,,1,8,4,1000000,1,m,a\n"


def _rejects(con, file_id):
    return con.execute("SELECT row_no, reason FROM rejected_rows WHERE file_id = ? "
                       "ORDER BY row_no", [file_id]).fetchall()


def test_csv_header_with_a_byte_order_mark(tmp_path, con):
    path = tmp_path / "events.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (EVENTS + SUBMIT).encode())
    r = ingest_file(con, path)
    assert (r.status, r.rows_loaded, r.rows_rejected) == ("loaded", 1, 0), r.message


def test_a_non_utf8_byte_early_rejects_its_line_only(tmp_path, con):
    path = tmp_path / "events.csv"
    path.write_bytes((EVENTS + SUBMIT).encode()
                     + b"j2,2026-12-01T10:00:00Z,submitted,,1,8,4,1000,1,m\xff,a\n"
                     + b"j3,2026-12-01T10:00:00Z,submitted,,1,8,4,1000,1,m,a\n")
    r = ingest_file(con, path)
    assert (r.status, r.rows_loaded, r.rows_rejected) == ("loaded", 2, 1), r.message
    assert _rejects(con, r.file_id)[0][0] == 3
    assert con.execute("SELECT rule FROM rejected_rows").fetchall() == [("bad_encoding",)]


@pytest.mark.parametrize("feed", [None, "job_events"])
def test_a_broken_first_jsonl_line_rejects_that_line_only(tmp_path, con, feed):
    path = tmp_path / "events.jsonl"
    path.write_text('{"job_id": "j0", "event_time": "2026-12-01T10:00:00Z", "ev\n'
                    '{"job_id": "j1", "event_time": "2026-12-01T10:00:00Z", "event": '
                    '"submitted", "min_nodes": 1, "max_nodes": 2, "total_work": 10}\n')
    r = ingest_file(con, path, feed=feed)
    assert (r.status, r.rows_loaded, r.rows_rejected) == ("loaded", 1, 1), r.message
    assert _rejects(con, r.file_id)[0][1].startswith("malformed JSON")


def test_jsonl_duplicate_keys_reject_the_line(tmp_path, con):
    path = tmp_path / "events.jsonl"
    path.write_text('{"job_id": "j1", "event_time": "2026-12-01T10:00:00Z", "event": '
                    '"submitted", "min_nodes": 1, "max_nodes": 2, "total_work": 10}\n'
                    '{"job_id": "j2", "event_time": "2026-12-01T10:00:00Z", "event": '
                    '"submitted", "min_nodes": 1, "max_nodes": 2, "max_nodes": 9, '
                    '"total_work": 10, "total_work": 5}\n')
    r = ingest_file(con, path)
    assert (r.rows_loaded, r.rows_rejected) == (1, 1)
    assert _rejects(con, r.file_id) == [
        (2, "malformed JSON: key max_nodes, total_work appears more than once in the object")]


def test_unreadable_file_is_recorded(tmp_path, con):
    link = tmp_path / "gone.csv"
    link.symlink_to(tmp_path / "missing.csv")
    r = ingest_file(con, link)
    assert r.status == "failed" and "cannot read file" in r.message
    rows = con.execute("SELECT path, status, error FROM ingested_files").fetchall()
    assert rows == [(str(link), "failed", r.message)]


def test_dangling_symlink_and_loop_in_a_folder_are_reported(tmp_path, con):
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    (logs / "sub" / "events.csv").write_text(EVENTS + SUBMIT)
    (logs / "sub" / "back").symlink_to(logs, target_is_directory=True)
    (logs / "dangling").symlink_to(tmp_path / "nowhere")
    (logs / "gone.csv").symlink_to(tmp_path / "nowhere.csv")
    results = ingest_paths(con, [logs])
    by_status = {}
    for r in results:
        by_status.setdefault(r.status, []).append(r)
    assert [r.rows_loaded for r in by_status["loaded"]] == [1]
    messages = " | ".join(r.message for r in by_status["failed"])
    assert "symlink loop" in messages and "dangling" in messages
    assert "cannot read file" in messages


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_unreadable_subfolder_is_reported(tmp_path, con):
    logs = tmp_path / "logs"
    (logs / "locked").mkdir(parents=True)
    (logs / "locked").chmod(0)
    try:
        results = ingest_paths(con, [logs])
    finally:
        (logs / "locked").chmod(0o755)
    assert [r.status for r in results] == ["failed"]
    assert "cannot read folder" in results[0].message


def test_reingested_file_with_one_changed_row_says_it_differs(tmp_path, con):
    path = tmp_path / "events.csv"
    path.write_text(EVENTS + SUBMIT + "j1,2026-12-01T10:01:00Z,started,4,,,,,,,\n")
    ingest_file(con, path)
    path.write_text(EVENTS + SUBMIT.replace("1000000", "2000000")
                    + "j1,2026-12-01T10:01:00Z,started,4,,,,,,,\n")
    r = ingest_file(con, path)
    assert (r.rows_loaded, r.rows_rejected) == (0, 2)
    reasons = dict(_rejects(con, r.file_id))
    assert reasons[2].endswith("but with different values: the row changed since it was loaded")
    assert reasons[3] == "duplicate of a row already loaded (file 1, row 3)"


def test_too_large_integers_say_out_of_bounds(tmp_path, con):
    path = tmp_path / "events.csv"
    path.write_text(EVENTS + "j1,2026-12-01T10:00:00Z,submitted,,1,99999999999,4,1000,1,m,a\n")
    r = ingest_file(con, path)
    assert _rejects(con, r.file_id)[0][1].startswith("out of bounds: max_nodes 99999999999")


def test_solve_on_a_binary_file_is_one_line(tmp_path):
    path = tmp_path / "instance.json"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(EtplanError, match="not UTF-8"):
        solve_file(path, "greedy", Settings())


def test_a_killed_writers_temp_file_is_swept_from_another_run(tmp_path):
    plans = tmp_path / "plans"
    old_run = plans / "run_id=killed" / "window_start=20260101T000000Z"
    old_run.mkdir(parents=True)
    stale = old_run / ".part-abc.tmp"
    stale.write_bytes(b"partial")
    past = time.time() - STALE_SECONDS - 10
    os.utime(stale, (past, past))
    young = old_run / ".part-def.tmp"
    young.write_bytes(b"a writer at work")
    write_partition(plans, [{"a": 1}], run_id="new", window_start="20260101T001000Z")
    assert not stale.exists() and young.exists()


def test_completed_before_started_spares_the_valid_start(tmp_path, con):
    path = tmp_path / "events.csv"
    path.write_text(EVENTS + SUBMIT + "j1,2026-12-01T10:05:00Z,completed,,,,,,,,\n"
                    "j1,2026-12-01T10:10:00Z,started,4,,,,,,,\n")
    r = ingest_file(con, path)
    assert (r.rows_loaded, r.rows_rejected) == (2, 1)
    assert _rejects(con, r.file_id) == [(3, "out of order: completed before the job started")]
    assert con.execute("SELECT status, current_nodes FROM jobs").fetchall() == [("running", 4)]
