-- Per-job KPI rows under kpis/run_id=…/jobs/… (the files matching $glob), as the temp table
-- `kpi_jobs` (a table for the reason given in attach_plans.sql).
CREATE OR REPLACE TEMP TABLE kpi_jobs AS
SELECT * FROM read_parquet($glob, hive_partitioning = true, union_by_name = true);
