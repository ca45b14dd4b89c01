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
from warehouse.sqlfiles import sql_text

RESULTS = Path(__file__).resolve().parent / "results"

def make_inputs(folder: Path, jobs: int) -> dict[str, Path]:
    """events and samples, as CSV and as Parquet, from sql/ingest/bench_events.sql and
    bench_samples.sql."""
    con = duckdb.connect()
    files = {}
    for kind, name, params in (("events", "ingest/bench_events", {"jobs": jobs}),
                               ("samples", "ingest/bench_samples", {"samples": jobs * 20})):
        rel = con.sql(sql_text(name), params=params)
        files[f"{kind}.csv"] = folder / f"{kind}.csv"
        rel.write_csv(str(files[f"{kind}.csv"]), header=True)
        files[f"{kind}.parquet"] = folder / f"{kind}.parquet"
        rel.write_parquet(str(files[f"{kind}.parquet"]))
    con.close()
    return files


def bare(path: Path) -> tuple[int, float, float]:
    """Rows, seconds for DuckDB's bare count(*), seconds for a bare unvalidated load (CTAS)."""
    con = duckdb.connect()
    read = con.read_csv if path.suffix == ".csv" else con.read_parquet
    start = time.perf_counter()
    ((n,),) = read(str(path)).aggregate("count(*)").fetchall()
    t_count = time.perf_counter() - start
    start = time.perf_counter()
    read(str(path)).create("t")
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
