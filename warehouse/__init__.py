"""The DuckDB warehouse: connection and migrations, ingest and validation, state queries."""
