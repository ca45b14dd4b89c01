-- The newest window's plan, from the run that wrote it last.
CREATE OR REPLACE TEMP VIEW latest_plan AS
WITH newest AS (
    SELECT arg_max(run_id, (window_time, created_at)) AS run_id, max(window_time) AS window_time
    FROM plans
)
SELECT p.* FROM plans p JOIN newest n USING (run_id, window_time);
