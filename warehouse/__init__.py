"""The DuckDB warehouse, and only DuckDB work: connection, migrations and transactions, the SQL
loader, ingest and validation, estimation, window state, replay inputs and Parquet outputs. It
imports neither the solver nor the report's plotting; of the trace sources only the feed columns."""
