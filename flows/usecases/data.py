"""Data use cases: synthetic and imported logs, ingest, estimate, the warehouse summary, and
read-only SQL with its export."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from flows import defaults
from flows.usecases.common import opened, out_dir, write_text
from sources import importers
from sources.synthetic import write_logs
from warehouse.connection import snapshot_connection
from warehouse.errors import EtplanError
from warehouse.estimate import estimate as run_estimate
from warehouse.ingest import FileResult, ingest_paths
from warehouse.plans import attach_output_views
from warehouse.queries import run_sql
from warehouse.queries import summary as warehouse_summary

FEEDS = ("job_events", "throughput_samples", "capacity")
# `--format mixed`: one feed per file format
MIXED_FORMATS = {"job_events": "csv", "throughput_samples": "parquet", "capacity": "jsonl"}


def generate_logs(out: Path, jobs: int = defaults.SYNTHETIC_JOBS,
                  seed: int = defaults.SYNTHETIC_SEED, *, capacity: int = defaults.POOL_NODES,
                  load: float = 0.9, bad_rows: float = 0.0, fmt: str = "csv"
                  ) -> dict[str, Path]:
    """Deterministic synthetic logs in `fmt` (csv, jsonl, parquet or mixed) plus truth.json."""
    formats = MIXED_FORMATS if fmt == "mixed" else dict.fromkeys(FEEDS, fmt)
    return write_logs(out, jobs, seed, capacity=capacity, load=load, bad_rows=bad_rows,
                      formats=formats)


def _check_profiles(profiles: Path) -> None:
    if not (profiles / "cifar10" / "placements.csv").is_file():
        raise EtplanError(f"--profiles {profiles}: no measured profiles here "
                          "(expected <model>/placements.csv, e.g. ../shared/data/pollux/traces)")


def import_pollux(workload: Path, profiles: Path, out: Path, *, seed: int, start: datetime,
                  capacity: int, elastic_range: str | None = None) -> dict[str, Path]:
    """A Pollux workload as platform logs, with each job's true curve in truth.json;
    `elastic_range` "LO,HI": each job's range as factors of its request (DESIGN §6)."""
    elastic = importers.parse_elastic_range(elastic_range) if elastic_range else None
    _check_profiles(profiles)
    return importers.import_pollux(workload, profiles, out, seed=seed, start=start,
                                   capacity=capacity, elastic=elastic)


def import_philly(trace: Path, profiles: Path | None, out: Path, *, start: datetime,
                  hours: float, jobs: int | None, seed: int, capacity: int,
                  elastic_range: str | None = None) -> dict[str, Path]:
    """A slice of the Philly trace as platform logs (profiles default: the trace's folder);
    `elastic_range` as in import_pollux."""
    elastic = importers.parse_elastic_range(elastic_range) if elastic_range else None
    if not trace.is_file():
        raise EtplanError(f"{trace}: no such file; give the Pollux artifact's philly.csv")
    profiles = profiles or trace.parent
    _check_profiles(profiles)
    return importers.import_philly(trace, profiles, out, start=start, hours=hours, jobs=jobs,
                                   seed=seed, capacity=capacity, elastic=elastic)


def ingest(paths: list[str] | list[Path], warehouse: str | Path | None = None,
           feed: str | None = None) -> list[FileResult]:
    with opened(warehouse) as con:
        return ingest_paths(con, paths, feed=feed)


def estimate(warehouse: str | Path | None = None) -> dict:
    """Fit every job's throughput curve; counts by source, curve rows and seconds."""
    with opened(warehouse) as con:
        return run_estimate(con)


def summary(warehouse: str | Path | None = None) -> list[tuple[str, int]]:
    with opened(warehouse, read_only=True) as con:
        return warehouse_summary(con)


def query(sql: str, outputs: Path = defaults.OUTPUTS, warehouse: str | Path | None = None
          ) -> tuple[list[str], list[tuple]]:
    """Run SQL read-only; the views plans, latest_plan, kpis and kpi_jobs read the outputs."""
    with snapshot_connection(warehouse) as con:   # a long query never keeps ingest out
        attach_output_views(con, outputs)
        return run_sql(con, sql)


def rows_as_text(columns: list[str], rows: list[tuple], fmt: str) -> str:
    """A query result as JSON (a list of objects) or CSV with a header."""
    buf = io.StringIO()
    if fmt == "json":
        json.dump([dict(zip(columns, r, strict=True)) for r in rows], buf, default=str, indent=1)
        buf.write("\n")
    else:
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        w.writerows(rows)
    return buf.getvalue()


def export_rows(columns: list[str], rows: list[tuple], fmt: str, path: Path) -> None:
    """Write a query result to `path` as parquet, json or csv (table is written as csv)."""
    if fmt != "parquet":
        write_text(path, rows_as_text(columns, rows, fmt))
        return
    out_dir(path)
    pq.write_table(pa.table({c: [r[i] for r in rows] for i, c in enumerate(columns)}), path)
