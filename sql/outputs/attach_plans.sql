-- The plan rows under plans/run_id=…/window_start=…/ (the files matching $glob), as the temp
-- table `plans`. A table, not a view: DuckDB cannot take a parameter in CREATE VIEW, and a view
-- would need the path spliced into its text. It holds the files as they were when attached.
CREATE OR REPLACE TEMP TABLE plans AS
SELECT * FROM read_parquet($glob, hive_partitioning = true, union_by_name = true);
-- Plans written before explanations (DESIGN §11) lack these columns: NULL there, so every
-- query may name them.
ALTER TABLE plans ADD COLUMN IF NOT EXISTS why VARCHAR;
ALTER TABLE plans ADD COLUMN IF NOT EXISTS why_text VARCHAR;
ALTER TABLE plans ADD COLUMN IF NOT EXISTS slot_price DOUBLE;
