-- Allocation history: one row per period a job held a fixed number of nodes.
-- end_time is NULL while the job still runs at that size.
CREATE OR REPLACE TEMP VIEW job_intervals AS
WITH ev AS (
    SELECT job_id, event, event_time, nodes,
           lead(event_time) OVER (PARTITION BY job_id ORDER BY event_time, file_id, row_no)
               AS next_time
    FROM job_events
    WHERE event IN ('started', 'scaled', 'completed', 'failed', 'cancelled')
)
SELECT job_id, event_time AS start_time, next_time AS end_time, nodes
FROM ev WHERE event IN ('started', 'scaled');
