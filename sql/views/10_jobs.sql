-- One row per job: spec from its submitted event, lifecycle times, state now.
CREATE OR REPLACE TEMP VIEW jobs AS
WITH spec AS (
    SELECT job_id, event_time AS submit_time, min_nodes, max_nodes,
           coalesce(requested_nodes, min_nodes) AS requested_nodes,
           total_work, coalesce(weight, 1.0) AS weight, model, tenant
    FROM job_events WHERE event = 'submitted'
),
life AS (
    SELECT job_id,
           min(event_time) FILTER (WHERE event = 'started') AS first_start,
           min(event_time) FILTER (WHERE event IN ('completed', 'failed', 'cancelled')) AS finish_time,
           arg_min(event, event_time) FILTER (WHERE event IN ('completed', 'failed', 'cancelled')) AS end_event,
           -- the last size event; two in one second: the later one in the file
           arg_max(nodes, (event_time, file_id, row_no))
               FILTER (WHERE event IN ('started', 'scaled')) AS last_nodes,
           count(*) FILTER (WHERE event = 'scaled') AS rescales
    FROM job_events GROUP BY job_id
)
SELECT s.job_id, s.model, s.tenant, s.min_nodes, s.max_nodes, s.requested_nodes,
       s.total_work, s.weight, s.submit_time, l.first_start, l.finish_time,
       CASE WHEN l.end_event IS NOT NULL THEN l.end_event
            WHEN l.first_start IS NOT NULL THEN 'running'
            ELSE 'queued' END AS status,
       CASE WHEN l.end_event IS NULL AND l.first_start IS NOT NULL THEN l.last_nodes ELSE 0 END
           AS current_nodes,
       coalesce(l.rescales, 0) AS rescales
FROM spec s LEFT JOIN life l USING (job_id);
