"""How ingest reads and recognises the four input feeds of DESIGN §3.1: the type each column
is read as and the column that marks a feed. The column names themselves are defined once, in
`sources.feeds`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sources import feeds


@dataclass(frozen=True)
class Feed:
    name: str                       # also the warehouse table it loads into
    # contract column -> the type the CSV reader gives it. Whole numbers are read as DOUBLE and
    # checked by the stage SQL, since DuckDB's reader rounds '2.5' to 2 for an integer type.
    columns: dict[str, str]
    required: tuple[str, ...]       # columns a file must have to be this feed
    marker: str                     # a column that only this feed has
    # a check (sql/ingest/<name>.sql) run again while it rejects rows: rejecting one row can
    # make another wrong (an event out of order once an earlier one is rejected)
    recheck: str | None = None

    def csv_columns(self, header: list[str]) -> dict[str, str]:
        """Reader columns for a CSV header: contract columns typed, others as text."""
        return {c: self.columns.get(c, "VARCHAR") for c in header}


# contract columns read as text; every other one is read as a number. Times are read as text
# too: the stage SQL takes only ISO 8601 (etplan_time), where DuckDB's reader would also take
# 'infinity', 'epoch' and offsets past ±14:00.
TEXT = {"job_id", "event", "model", "tenant", "pool", "event_time", "sample_time",
        "effective_from"}


def _feed(name: str, marker: str, recheck: str | None = None) -> Feed:
    types = {c: "VARCHAR" if c in TEXT else "DOUBLE" for c in feeds.COLUMNS[name]}
    return Feed(name=name, columns=types, required=feeds.REQUIRED[name], marker=marker,
                recheck=recheck)


JOB_EVENTS = _feed(feeds.JOB_EVENTS, marker="event", recheck="order_job_events")
THROUGHPUT_SAMPLES = _feed(feeds.THROUGHPUT_SAMPLES, marker="throughput")
CAPACITY = _feed(feeds.CAPACITY, marker="pool")
TENANT_QUOTAS = _feed(feeds.TENANT_QUOTAS, marker="guaranteed_nodes")
FEEDS: dict[str, Feed] = {f.name: f for f in (JOB_EVENTS, THROUGHPUT_SAMPLES, CAPACITY,
                                              TENANT_QUOTAS)}
# Ingest order within one call: a sample or an event needs its job's submission loaded first.
FEED_ORDER = (feeds.CAPACITY, feeds.TENANT_QUOTAS, feeds.JOB_EVENTS, feeds.THROUGHPUT_SAMPLES)

# .json is not taken: a folder of logs may hold other JSON (truth.json, instances)
FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
           ".pq": "parquet"}


def file_format(path: Path) -> str | None:
    return FORMATS.get(path.suffix.lower())


def recognise_feed(columns: list[str]) -> Feed | None:
    """The feed whose marker column the file has (None when no feed or more than one matches)."""
    matches = [f for f in FEEDS.values() if f.marker in columns]
    return matches[0] if len(matches) == 1 else None
