-- Warehouse schema v1: the three input feeds, the file manifest and the rejects.
-- Timestamps are TIMESTAMPTZ; every connection runs with TimeZone = 'UTC'.

CREATE SEQUENCE IF NOT EXISTS ingested_files_seq START 1;

CREATE TABLE IF NOT EXISTS ingested_files (
    file_id       BIGINT PRIMARY KEY,
    content_hash  VARCHAR NOT NULL,      -- sha256 of the file's bytes
    path          VARCHAR NOT NULL,
    feed          VARCHAR,               -- job_events | throughput_samples | capacity
    format        VARCHAR,               -- csv | jsonl | parquet
    rows_read     BIGINT NOT NULL DEFAULT 0,
    rows_loaded   BIGINT NOT NULL DEFAULT 0,
    rows_rejected BIGINT NOT NULL DEFAULT 0,
    status        VARCHAR NOT NULL,      -- loaded | failed
    error         VARCHAR,
    ingested_at   TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);

CREATE TABLE IF NOT EXISTS job_events (
    file_id         BIGINT NOT NULL,
    row_no          BIGINT NOT NULL,
    job_id          VARCHAR NOT NULL,
    event_time      TIMESTAMPTZ NOT NULL,
    event           VARCHAR NOT NULL,
    nodes           INTEGER,
    min_nodes       INTEGER,
    max_nodes       INTEGER,
    requested_nodes INTEGER,
    total_work      DOUBLE,
    weight          DOUBLE,
    model           VARCHAR,
    tenant          VARCHAR
);

CREATE TABLE IF NOT EXISTS throughput_samples (
    file_id     BIGINT NOT NULL,
    row_no      BIGINT NOT NULL,
    job_id      VARCHAR NOT NULL,
    sample_time TIMESTAMPTZ NOT NULL,
    nodes       INTEGER NOT NULL,
    throughput  DOUBLE NOT NULL
);

CREATE TABLE IF NOT EXISTS capacity (
    file_id        BIGINT NOT NULL,
    row_no         BIGINT NOT NULL,
    pool           VARCHAR NOT NULL,
    effective_from TIMESTAMPTZ NOT NULL,
    nodes          INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS rejected_rows (
    file_id BIGINT NOT NULL,
    path    VARCHAR NOT NULL,
    feed    VARCHAR NOT NULL,
    row_no  BIGINT,       -- line number for CSV (header = line 1) and JSON Lines, row number for Parquet
    raw     VARCHAR,      -- the line as read (CSV parse errors, JSON Lines) or the row's fields as JSON
    reason  VARCHAR NOT NULL
);
