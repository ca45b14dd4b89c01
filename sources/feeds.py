"""THE definition of the four input feeds' columns (DESIGN §3.1) and how a source writes them.

The warehouse's ingest (`warehouse/contracts.py`) takes these names and adds the types and
checks; the generator and the importers write files with exactly these columns.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

JOB_EVENTS = "job_events"
THROUGHPUT_SAMPLES = "throughput_samples"
CAPACITY = "capacity"
TENANT_QUOTAS = "tenant_quotas"

EVENT_COLUMNS = ("job_id", "event_time", "event", "nodes", "min_nodes", "max_nodes",
                 "requested_nodes", "total_work", "weight", "model", "tenant")
# machines: how many machines the sample's nodes spanned; optional (NULL = not reported)
SAMPLE_COLUMNS = ("job_id", "sample_time", "nodes", "throughput", "machines")
CAPACITY_COLUMNS = ("pool", "effective_from", "nodes")
# a tenant's quota from effective_from on (DESIGN §4.2): at most max_nodes, at least
# guaranteed_nodes as far as its jobs can use them
QUOTA_COLUMNS = ("tenant", "effective_from", "max_nodes", "guaranteed_nodes")

COLUMNS: dict[str, tuple[str, ...]] = {
    JOB_EVENTS: EVENT_COLUMNS, THROUGHPUT_SAMPLES: SAMPLE_COLUMNS, CAPACITY: CAPACITY_COLUMNS,
    TENANT_QUOTAS: QUOTA_COLUMNS}
# columns a file must have to be read as this feed
REQUIRED: dict[str, tuple[str, ...]] = {
    JOB_EVENTS: ("job_id", "event_time", "event"),
    THROUGHPUT_SAMPLES: ("job_id", "sample_time", "nodes", "throughput"),
    CAPACITY: CAPACITY_COLUMNS,
    TENANT_QUOTAS: QUOTA_COLUMNS,
}
# columns a writer leaves out of the file when no row has a value for them
OPTIONAL: dict[str, tuple[str, ...]] = {THROUGHPUT_SAMPLES: ("machines",)}

SUFFIXES = {"csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet"}


def columns_for(feed: str, rows: list[dict]) -> list[str]:
    """The feed's columns, without its optional ones that no row has a value for."""
    optional = OPTIONAL.get(feed, ())
    return [c for c in COLUMNS[feed]
            if c not in optional or any(r.get(c) is not None for r in rows)]


def write_rows(feed: str, rows: list[dict], path: Path, fmt: str) -> Path:
    """Write `rows` of `feed` to `path` with the format's suffix: CSV (blank = missing), JSON
    Lines (missing keys left out) or Parquet (every column as text, as a platform exports)."""
    columns = columns_for(feed, rows)
    path = path.with_suffix(SUFFIXES[fmt])
    if fmt == "csv":
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(columns)
            for r in rows:
                w.writerow(["" if r.get(c) is None else r[c] for c in columns])
    elif fmt == "jsonl":
        with path.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({c: r[c] for c in columns if r.get(c) is not None}) + "\n")
    else:
        table = pa.table({c: pa.array([None if r.get(c) is None else str(r[c]) for r in rows],
                                      type=pa.string()) for c in columns})
        pq.write_table(table, path, compression="zstd")
    return path
