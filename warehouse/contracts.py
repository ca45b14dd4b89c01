"""The three input feeds of DESIGN §3.1: their columns, types and how to recognise them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Feed:
    name: str                       # also the warehouse table it loads into
    # contract column -> the type the CSV reader gives it. Whole numbers are read as DOUBLE and
    # checked by the stage SQL, since DuckDB's reader rounds '2.5' to 2 for an integer type.
    columns: dict[str, str]
    required: tuple[str, ...]       # columns a file must have to be this feed
    marker: str                     # a column that only this feed has

    def csv_columns(self, header: list[str]) -> dict[str, str]:
        """Reader columns for a CSV header: contract columns typed, others as text."""
        return {c: self.columns.get(c, "VARCHAR") for c in header}


JOB_EVENTS = Feed(
    name="job_events",
    columns={
        "job_id": "VARCHAR", "event_time": "TIMESTAMPTZ", "event": "VARCHAR",
        "nodes": "DOUBLE", "min_nodes": "DOUBLE", "max_nodes": "DOUBLE",
        "requested_nodes": "DOUBLE", "total_work": "DOUBLE", "weight": "DOUBLE",
        "model": "VARCHAR", "tenant": "VARCHAR",
    },
    required=("job_id", "event_time", "event"),
    marker="event",
)
THROUGHPUT_SAMPLES = Feed(
    name="throughput_samples",
    columns={"job_id": "VARCHAR", "sample_time": "TIMESTAMPTZ", "nodes": "DOUBLE",
             "throughput": "DOUBLE", "machines": "DOUBLE"},
    required=("job_id", "sample_time", "nodes", "throughput"),
    marker="throughput",
)
CAPACITY = Feed(
    name="capacity",
    columns={"pool": "VARCHAR", "effective_from": "TIMESTAMPTZ", "nodes": "DOUBLE"},
    required=("pool", "effective_from", "nodes"),
    marker="effective_from",
)
FEEDS: dict[str, Feed] = {f.name: f for f in (JOB_EVENTS, THROUGHPUT_SAMPLES, CAPACITY)}
# Ingest order within one call: a sample or an event needs its job's submission loaded first.
FEED_ORDER = ("capacity", "job_events", "throughput_samples")

# .json is not taken: a folder of logs may hold other JSON (truth.json, instances)
FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
           ".pq": "parquet"}


def file_format(path: Path) -> str | None:
    return FORMATS.get(path.suffix.lower())


def recognise_feed(columns: list[str]) -> Feed | None:
    """The feed whose marker column the file has (None when no feed or more than one matches)."""
    matches = [f for f in FEEDS.values() if f.marker in columns]
    return matches[0] if len(matches) == 1 else None
