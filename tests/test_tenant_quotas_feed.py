"""The tenant_quotas feed (DESIGN §3.1, §4.2): ingest with reasons and rule codes, idempotent
re-ingest, recognition among the feeds, and the quotas in force at a window time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flows.usecases.plans import window_instance
from solver.instance import TenantQuota, job_from_state
from sources import feeds
from warehouse.contracts import recognise_feed
from warehouse.ingest import ingest_paths
from warehouse.window_state import WindowState, quotas_at

GOOD = [
    {"tenant": "team-a", "effective_from": "2026-12-01T00:00:00Z", "max_nodes": 16,
     "guaranteed_nodes": 4},
    {"tenant": "team-b", "effective_from": "2026-12-01T00:00:00Z", "max_nodes": 8,
     "guaranteed_nodes": 0},
    {"tenant": "team-a", "effective_from": "2026-12-02T00:00:00Z", "max_nodes": 20,
     "guaranteed_nodes": 20},
]
# (row, the rule code it breaks, the start of its reason)
BAD = [
    ({"tenant": "team-a", "effective_from": "2026-12-01T00:00:00Z", "max_nodes": 12,
      "guaranteed_nodes": 4}, "duplicate", "duplicate of line 2"),
    ({"tenant": " ", "effective_from": "2026-12-01", "max_nodes": 8, "guaranteed_nodes": 0},
     "missing_field", "missing field: tenant"),
    ({"tenant": "c", "effective_from": "yesterday", "max_nodes": 8, "guaranteed_nodes": 0},
     "bad_type", "bad type: effective_from 'yesterday'"),
    ({"tenant": "c", "effective_from": "1960-01-01", "max_nodes": 8, "guaranteed_nodes": 0},
     "out_of_bounds", "out of bounds: effective_from 1960-01-01"),
    ({"tenant": "c", "effective_from": "2026-12-01", "max_nodes": -1, "guaranteed_nodes": 0},
     "negative_nodes", "max_nodes must be at least 0 (got -1)"),
    ({"tenant": "c", "effective_from": "2026-12-01", "max_nodes": 2.5, "guaranteed_nodes": 0},
     "bad_type", "bad type: max_nodes '2.5' is not a whole number"),
    ({"tenant": "c", "effective_from": "2026-12-01", "max_nodes": 8, "guaranteed_nodes": -2},
     "negative_nodes", "guaranteed_nodes must be at least 0 (got -2)"),
    ({"tenant": "c", "effective_from": "2026-12-01", "max_nodes": 8, "guaranteed_nodes": 9},
     "guaranteed_gt_max", "guaranteed_nodes 9 > max_nodes 8"),
    ({"tenant": "c", "effective_from": "2026-12-01", "max_nodes": None, "guaranteed_nodes": 0},
     "missing_field", "missing field: max_nodes"),
    ({"tenant": "c", "effective_from": "2026-12-01", "max_nodes": 8, "guaranteed_nodes": None},
     "missing_field", "missing field: guaranteed_nodes"),
    ({"tenant": "c", "effective_from": "2026-12-01", "max_nodes": 2e9, "guaranteed_nodes": 0},
     "out_of_bounds", "out of bounds: max_nodes"),
]


def test_columns_are_declared_once_and_the_feed_is_recognised():
    assert feeds.COLUMNS[feeds.TENANT_QUOTAS] == (
        "tenant", "effective_from", "max_nodes", "guaranteed_nodes")
    assert recognise_feed(list(feeds.QUOTA_COLUMNS)).name == "tenant_quotas"
    assert recognise_feed(list(feeds.CAPACITY_COLUMNS)).name == "capacity"


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_good_and_bad_rows_with_reasons_then_idempotent(con, tmp_path, fmt):
    path = feeds.write_rows(feeds.TENANT_QUOTAS, GOOD + [r for r, _, _ in BAD],
                            tmp_path / "quotas", fmt)
    (r,) = ingest_paths(con, [path])
    assert (r.status, r.feed, r.format) == ("loaded", "tenant_quotas", fmt)
    assert (r.rows_read, r.rows_loaded, r.rows_rejected) == (len(GOOD) + len(BAD), 3, len(BAD))
    loaded = con.execute("SELECT tenant, strftime(effective_from, '%Y-%m-%d'), max_nodes, "
                         "guaranteed_nodes FROM tenant_quotas ORDER BY row_no").fetchall()
    assert loaded == [("team-a", "2026-12-01", 16, 4), ("team-b", "2026-12-01", 8, 0),
                      ("team-a", "2026-12-02", 20, 20)]
    rejects = con.execute("SELECT row_no, rule, reason, feed FROM rejected_rows "
                          "ORDER BY row_no").fetchall()
    first = 2 if fmt == "csv" else 1          # CSV: the header is line 1
    first_bad = first + len(GOOD)
    assert [row for row, *_ in rejects] == list(range(first_bad, first_bad + len(BAD)))
    for (_, rule, reason, feed), (_, want_rule, want_reason) in zip(rejects, BAD, strict=True):
        assert feed == "tenant_quotas"
        assert rule == want_rule, reason
        assert reason.startswith(want_reason.replace("line 2", f"line {first}")), reason
    # the same bytes again load nothing; new rows for an instant already loaded are duplicates
    (again,) = ingest_paths(con, [path])
    assert again.status == "skipped" and again.rows_loaded == 0
    more = feeds.write_rows(feeds.TENANT_QUOTAS, GOOD[:1], tmp_path / "more", "csv")
    (dup,) = ingest_paths(con, [more])
    assert (dup.rows_loaded, dup.rows_rejected) == (0, 1)
    (reason,) = con.execute("SELECT reason FROM rejected_rows WHERE file_id = ?",
                            [dup.file_id]).fetchone()
    assert reason.startswith("duplicate of a row already loaded (file ")
    assert con.execute("SELECT count(*) FROM tenant_quotas").fetchone() == (3,)


def test_feed_option_and_missing_columns(con, tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("tenant,effective_from,max_nodes,guaranteed_nodes\nx,2026-12-01,4,1\n")
    (r,) = ingest_paths(con, [path], feed="tenant_quotas")
    assert (r.status, r.feed, r.rows_loaded) == ("loaded", "tenant_quotas", 1)
    short = tmp_path / "short.csv"
    short.write_text("tenant,effective_from,guaranteed_nodes\nx,2026-12-03,1\n")
    (r,) = ingest_paths(con, [short])
    assert r.status == "failed"
    assert r.message.startswith("tenant_quotas file lacks column(s) max_nodes")


def test_quotas_in_force_at_a_time(con, tmp_path):
    path = feeds.write_rows(feeds.TENANT_QUOTAS, GOOD, tmp_path / "quotas", "csv")
    ingest_paths(con, [path])

    def at(day: int, hour: int = 0) -> datetime:
        return datetime(2026, 12, day, hour, tzinfo=UTC)

    assert quotas_at(con, at(1).replace(year=2025)) == {}
    assert quotas_at(con, at(1)) == {"team-a": {"max_nodes": 16, "guaranteed_nodes": 4},
                                     "team-b": {"max_nodes": 8, "guaranteed_nodes": 0}}
    assert quotas_at(con, at(1, 23))["team-a"] == {"max_nodes": 16, "guaranteed_nodes": 4}
    assert quotas_at(con, at(2))["team-a"] == {"max_nodes": 20, "guaranteed_nodes": 20}
    assert quotas_at(con, at(9))["team-b"] == {"max_nodes": 8, "guaranteed_nodes": 0}
    # the plan use case attaches them to the window instance
    state = WindowState(at=at(2), capacity=64, jobs=[], curves={}, quotas=quotas_at(con, at(2)))
    inst = window_instance(state, slot_seconds=600, num_slots=3, rescale_seconds=30)
    assert inst.quotas == {"team-a": TenantQuota(max_nodes=20, guaranteed_nodes=20),
                           "team-b": TenantQuota(max_nodes=8, guaranteed_nodes=0)}


def test_a_job_keeps_its_tenant_into_the_instance():
    state = {"job_id": "j", "tenant": "team-a", "min_nodes": 1, "max_nodes": 2,
             "requested_nodes": 1, "current_nodes": 0, "remaining_work": 10.0,
             "total_work": 10.0, "weight": 1.0, "waiting_seconds": 0}
    assert job_from_state(state, {1: 1.0, 2: 2.0}).tenant == "team-a"
    assert job_from_state(state | {"tenant": None}, {1: 1.0}).tenant is None
