-- Per-run KPI rows under kpis/run_id=…/runs/… (the files matching $glob), as the temp table
-- `kpis` (a table for the reason given in attach_plans.sql).
CREATE OR REPLACE TEMP TABLE kpis AS
SELECT * FROM read_parquet($glob, hive_partitioning = true, union_by_name = true);
