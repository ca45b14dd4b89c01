"""Whole files: mixed formats, idempotence, files that cannot be read."""

from __future__ import annotations

import duckdb

from sources.synthetic import write_logs
from warehouse.ingest import ingest_paths


def counts(results):
    return {r.feed: (r.rows_read, r.rows_loaded, r.rows_rejected) for r in results}


def test_mixed_formats_reconcile_and_load_once(con, tmp_path):
    logs = tmp_path / "logs"
    write_logs(logs, 150, 3, bad_rows=0.03,
               formats={"job_events": "csv", "throughput_samples": "parquet",
                        "capacity": "jsonl"})
    first = ingest_paths(con, [logs])
    assert sorted(r.format for r in first) == ["csv", "jsonl", "parquet"]
    assert all(r.status == "loaded" for r in first)
    for r in first:
        assert r.rows_read == r.rows_loaded + r.rows_rejected
        assert r.rows_loaded > 0
    assert counts(first)["job_events"][2] > 0 and counts(first)["throughput_samples"][2] > 0
    # the warehouse agrees with the per-file counts
    for r in first:
        table = r.feed
        n = con.execute(f"SELECT count(*) FROM {table} WHERE file_id = ?", [r.file_id]).fetchone()
        rej = con.execute("SELECT count(*) FROM rejected_rows WHERE file_id = ?",
                          [r.file_id]).fetchone()
        assert (n[0], rej[0]) == (r.rows_loaded, r.rows_rejected)
    before = con.execute("SELECT (SELECT count(*) FROM job_events), "
                         "(SELECT count(*) FROM throughput_samples), "
                         "(SELECT count(*) FROM rejected_rows)").fetchone()
    again = ingest_paths(con, [logs])
    assert [r.status for r in again] == ["skipped"] * 3
    assert sum(r.rows_loaded for r in again) == 0
    after = con.execute("SELECT (SELECT count(*) FROM job_events), "
                        "(SELECT count(*) FROM throughput_samples), "
                        "(SELECT count(*) FROM rejected_rows)").fetchone()
    assert after == before
    # the same bytes under another name load once, too
    copy = tmp_path / "copy.csv"
    copy.write_bytes((logs / "job_events.csv").read_bytes())
    (r,) = ingest_paths(con, [copy])
    assert r.status == "skipped" and "already loaded" in r.message


def test_unreadable_files_fail_alone(con, tmp_path):
    logs = tmp_path / "logs"
    write_logs(logs, 40, 5)
    good_parquet = tmp_path / "p.parquet"
    duckdb.sql(f"COPY (SELECT * FROM read_csv('{logs / 'throughput_samples.csv'}')) "
               f"TO '{good_parquet}' (FORMAT parquet)")
    data = good_parquet.read_bytes()
    (logs / "truncated.parquet").write_bytes(data[: len(data) // 2])
    (logs / "garbage.csv").write_bytes(bytes(range(256)) * 40)
    (logs / "empty.csv").write_bytes(b"")
    (logs / "strange.csv").write_text("a,b\n1,2\n")
    results = {r.path.rsplit("/", 1)[1]: r for r in ingest_paths(con, [logs])}
    for name in ("truncated.parquet", "garbage.csv", "empty.csv", "strange.csv"):
        r = results[name]
        assert r.status == "failed", name
        assert r.message and "\n" not in r.message, (name, r.message)
    assert "cannot tell which feed" in results["strange.csv"].message
    for name in ("job_events.csv", "throughput_samples.csv", "capacity.csv"):
        assert results[name].status == "loaded" and results[name].rows_loaded > 0
    failed = con.execute("SELECT count(*) FROM ingested_files WHERE status = 'failed' "
                         "AND error IS NOT NULL").fetchone()[0]
    assert failed == 4
    # a failed file left no rows behind
    assert con.execute("SELECT count(*) FROM rejected_rows").fetchone()[0] == 0


def test_missing_required_column_fails_the_file(con, tmp_path):
    f = tmp_path / "tp.csv"
    f.write_text("job_id,sample_time,throughput\nj,2026-12-01T00:00:00Z,3\n")
    (r,) = ingest_paths(con, [f])
    assert r.status == "failed"
    assert r.message.startswith("throughput_samples file lacks column(s) nodes")
