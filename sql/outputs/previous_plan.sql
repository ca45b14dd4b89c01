-- the newest plan of a window that started before $at (from the run that wrote it last), and
-- its age in seconds: the next window's warm start
WITH newest AS (
    SELECT arg_max(run_id, (window_time, created_at)) AS run_id, max(window_time) AS window_time
    FROM plans WHERE window_time < $at
)
SELECT p.job_id, p.slot, p.nodes, epoch($at) - epoch(n.window_time) AS age_s
FROM plans p JOIN newest n USING (run_id, window_time)
ORDER BY p.job_id, p.slot;
