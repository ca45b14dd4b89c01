"""Ingest throughput: 1M job-event rows and 5M throughput samples, from CSV and from Parquet.

For each file, times `etplan`'s ingest (validation, rejects, manifest, all of it) into a fresh
warehouse and DuckDB's bare `SELECT count(*) FROM read_csv(...)` / `read_parquet(...)` of the
same file, in the same run, and reports rows/s and the ratio of the two; also the ratio to a
bare unvalidated load (`CREATE TABLE AS SELECT *`), since count(*) of a Parquet file reads only
its footer. Figures go to bench/results/ingest.json.
Run: `make bench` or `.venv/bin/python bench/ingest.py`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import duckdb

from warehouse.connection import connect
from warehouse.ingest import ingest_file

RESULTS = Path(__file__).resolve().parent / "results"

EVENTS_SQL = """
COPY (
  WITH j AS (SELECT i, 'job-' || lpad(i::VARCHAR, 7, '0') AS job_id,
                    TIMESTAMPTZ '2026-11-01 00:00:00+00' + to_seconds(i * 7) AS t0,
                    1 + i % 4 AS mn, 4 + 4 * (i % 3) AS mx FROM range({jobs}) r(i))
  SELECT * FROM (
    SELECT job_id, t0 AS event_time, 'submitted' AS event, NULL::INT AS nodes, mn AS min_nodes,
           mx AS max_nodes, mn AS requested_nodes, 1e6 + i AS total_work, 1.0 AS weight,
           'resnet50' AS model, 'vision' AS tenant FROM j
    UNION ALL SELECT job_id, t0 + INTERVAL 60 SECOND, 'started', mn, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL FROM j
    UNION ALL SELECT job_id, t0 + INTERVAL 600 SECOND, 'scaled', mx, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL FROM j
    UNION ALL SELECT job_id, t0 + INTERVAL 3600 SECOND, 'completed', NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL FROM j
  ) ORDER BY event_time, job_id
) TO '{path}' {fmt}
"""

SAMPLES_SQL = """
COPY (
  SELECT 'job-' || lpad((i // 20)::VARCHAR, 7, '0') AS job_id,
         TIMESTAMPTZ '2026-11-01 00:02:00+00'
             + to_seconds((i // 20) * 7 + (i % 20) * 150) AS sample_time,
         CASE WHEN i % 20 < 4 THEN 1 + (i // 20) % 4 ELSE 4 + 4 * ((i // 20) % 3) END AS nodes,
         round(1000.0 + (i % 977), 3) AS throughput
  FROM range({samples}) r(i)
) TO '{path}' {fmt}
"""


def make_inputs(folder: Path, jobs: int) -> dict[str, Path]:
    files = {}
    for fmt, opt in (("csv", "(FORMAT csv, HEADER true)"), ("parquet", "(FORMAT parquet)")):
        ev = folder / f"events.{fmt}"
        tp = folder / f"samples.{fmt}"
        duckdb.sql(EVENTS_SQL.format(jobs=jobs, path=ev, fmt=opt))
        duckdb.sql(SAMPLES_SQL.format(samples=jobs * 20, path=tp, fmt=opt))
        files[f"events.{fmt}"] = ev
        files[f"samples.{fmt}"] = tp
    return files


def bare(path: Path) -> tuple[int, float, float]:
    """Rows, seconds for DuckDB's bare count(*), seconds for a bare unvalidated load (CTAS)."""
    reader = "read_csv" if path.suffix == ".csv" else "read_parquet"
    con = duckdb.connect()
    start = time.perf_counter()
    (n,) = con.execute(f"SELECT count(*) FROM {reader}(?)", [str(path)]).fetchone()
    t_count = time.perf_counter() - start
    start = time.perf_counter()
    con.execute(f"CREATE TABLE t AS SELECT * FROM {reader}(?)", [str(path)])
    t_load = time.perf_counter() - start
    return n, t_count, t_load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=250_000,
                        help="jobs; 4 events and 20 samples each (default 250k = 1M + 5M rows)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = make_inputs(folder, args.jobs)
        for fmt in ("csv", "parquet"):
            con = connect(folder / f"wh-{fmt}.duckdb")
            for kind in ("events", "samples"):
                path = files[f"{kind}.{fmt}"]
                n_bare, t_bare, t_load = bare(path)
                start = time.perf_counter()
                result = ingest_file(con, path)
                t_ingest = time.perf_counter() - start
                assert result.status == "loaded", result.message
                assert result.rows_read == n_bare, (result.rows_read, n_bare)
                rows.append({
                    "file": path.name, "rows": n_bare, "loaded": result.rows_loaded,
                    "rejected": result.rows_rejected, "mb": round(path.stat().st_size / 1e6, 1),
                    "ingest_s": round(t_ingest, 3), "bare_count_s": round(t_bare, 3),
                    "bare_load_s": round(t_load, 3), "rows_per_s": round(n_bare / t_ingest),
                    "ratio_vs_count": round(t_ingest / t_bare, 1),
                    "ratio_vs_load": round(t_ingest / t_load, 1),
                })
            con.close()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ingest.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{'file':<16}{'rows':>10}{'MB':>7}{'ingest s':>9}{'count s':>9}{'load s':>8}"
          f"{'rows/s':>11}{'x count':>9}{'x load':>8}")
    for r in rows:
        print(f"{r['file']:<16}{r['rows']:>10,}{r['mb']:>7}{r['ingest_s']:>9}"
              f"{r['bare_count_s']:>9}{r['bare_load_s']:>8}{r['rows_per_s']:>11,}"
              f"{r['ratio_vs_count']:>9}{r['ratio_vs_load']:>8}")
    print("x count = ingest time / DuckDB's bare SELECT count(*) of the same file; "
          "x load = ingest time / a bare CREATE TABLE AS SELECT * (no validation)")
    print(f"written to {RESULTS / 'ingest.json'}")


if __name__ == "__main__":
    main()
