-- Small look-ups the ingest code makes on its scratch tables and on input files.

-- name: parquet_columns
DESCRIBE SELECT * FROM read_parquet($path);

-- name: table_columns
SELECT name FROM pragma_table_info($table);

-- name: stage_counts
SELECT count(*) FILTER (WHERE reason IS NULL), count(*) FILTER (WHERE reason IS NOT NULL) FROM stage;

-- name: parse_reject_count
SELECT count(*) FROM parse_rejects;
