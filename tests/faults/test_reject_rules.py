"""Issue 15 item 6 (issue 17 item 3): every rejected row carries a stable `rule` code beside
its reason; a migration adds the column and derives it for rows rejected before."""

from __future__ import annotations

from tests.test_ingest_rules import FAULTY_EVENTS, write_faulty_csv
from warehouse.connection import connect
from warehouse.ingest import ingest_file

RULES = {"missing_field", "bad_type", "out_of_bounds", "duplicate", "bad_event_order",
         "unknown_event", "unknown_job", "negative_nodes", "min_gt_max", "nodes_outside_range",
         "bad_machines", "not_positive", "malformed_line"}


def test_every_reject_has_a_known_rule(tmp_path, con):
    path = tmp_path / "events.csv"
    write_faulty_csv(path)
    ingest_file(con, path)
    rows = con.execute("SELECT reason, rule FROM rejected_rows ORDER BY row_no").fetchall()
    assert len(rows) == sum(1 for _, why in FAULTY_EVENTS if why)
    assert {rule for _, rule in rows} <= RULES
    by_reason = dict(rows)
    assert by_reason["min_nodes 8 > max_nodes 4"] == "min_gt_max"
    assert by_reason["duplicate of line 4"] == "duplicate"
    assert by_reason["min_nodes must be at least 1 (got -1)"] == "negative_nodes"
    assert by_reason["out of order: scaled before the job started"] == "bad_event_order"
    assert by_reason["missing field: job_id"] == "missing_field"


def test_migration_derives_the_rule_of_old_rows(tmp_path):
    path = tmp_path / "old.duckdb"
    con = connect(path)
    con.execute("ALTER TABLE rejected_rows DROP COLUMN rule")
    con.execute("INSERT INTO rejected_rows (file_id, path, feed, row_no, raw, reason) VALUES "
                "(1, 'f.csv', 'job_events', 2, 'x', 'duplicate of line 1'), "
                "(1, 'f.csv', 'job_events', 3, 'y', 'bad type: nodes ''x'' is not a number')")
    con.execute("DELETE FROM schema_migrations WHERE version = 6")
    con.close()
    con = connect(path)
    try:
        assert con.execute("SELECT rule FROM rejected_rows ORDER BY row_no").fetchall() == [
            ("duplicate",), ("bad_type",)]
    finally:
        con.close()
