-- Views over the Parquet outputs; the file globs are session variables set by the code.

-- name: plans_glob
SET VARIABLE plans_glob = $glob;

-- name: kpis_glob
SET VARIABLE kpis_glob = $glob;

-- name: kpi_jobs_glob
SET VARIABLE kpi_jobs_glob = $glob;

-- name: plans
CREATE OR REPLACE TEMP VIEW plans AS
SELECT * FROM read_parquet(getvariable('plans_glob'), hive_partitioning = true,
                           union_by_name = true);

-- name: kpis
CREATE OR REPLACE TEMP VIEW kpis AS
SELECT * FROM read_parquet(getvariable('kpis_glob'), hive_partitioning = true,
                           union_by_name = true);

-- name: kpi_jobs
CREATE OR REPLACE TEMP VIEW kpi_jobs AS
SELECT * FROM read_parquet(getvariable('kpi_jobs_glob'), hive_partitioning = true,
                           union_by_name = true);

-- name: latest_plan
-- the newest window's plan, from the run that wrote it last
CREATE OR REPLACE TEMP VIEW latest_plan AS
WITH newest AS (
    SELECT arg_max(run_id, (window_time, created_at)) AS run_id, max(window_time) AS window_time
    FROM plans
)
SELECT p.* FROM plans p JOIN newest n USING (run_id, window_time);

-- name: plan_show
-- what ops act on: slot 0 of the latest plan, against the size each job has now
SELECT p.job_id, p.action, p.current_nodes AS nodes_now, p.nodes AS nodes_next,
       p.etc_seconds, p.static_etc_seconds - p.etc_seconds AS saved_seconds,
       p.window_time, p.run_id, p.solver, p.status
FROM latest_plan p
WHERE p.slot = 0
ORDER BY CASE p.action WHEN 'start' THEN 0 WHEN 'scale_up' THEN 1 WHEN 'scale_down' THEN 2
                      WHEN 'stop' THEN 3 WHEN 'keep' THEN 4 ELSE 5 END, p.job_id;

-- name: previous_plan
-- the newest plan of a window that started before $at (from the run that wrote it last), and
-- its age in seconds: the next window's warm start
WITH newest AS (
    SELECT arg_max(run_id, (window_time, created_at)) AS run_id, max(window_time) AS window_time
    FROM plans WHERE window_time < $at
)
SELECT p.job_id, p.slot, p.nodes, epoch($at) - epoch(n.window_time) AS age_s
FROM plans p JOIN newest n USING (run_id, window_time)
ORDER BY p.job_id, p.slot;
