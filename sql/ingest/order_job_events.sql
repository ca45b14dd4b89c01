-- Order, one round. Each job's lifecycle (submitted, first start, first end) comes from the good
-- rows of this file and the rows already loaded, and an event that does not fit it is rejected.
-- Rejecting one event (say the first started) changes the lifecycle and can put another out of
-- order, so warehouse/ingest.py runs this again while it rejects rows (Feed.recheck); a round
-- judges every job, and a job that lost no row judges the same as before. A rejected row keeps
-- the reason of the round that rejected it. Its result is the number of rows it rejected.

UPDATE stage SET reason = r.verdict
FROM (
    WITH
    -- the good events of the file's jobs, loaded and new
    order_events AS (
        SELECT job_id, event, event_time, nodes, min_nodes, max_nodes, -1 AS src_row, 0 AS is_new
        FROM job_events WHERE job_id IN (SELECT job_id FROM stage WHERE reason IS NULL)
        UNION ALL
        SELECT job_id, event, event_time, nodes, min_nodes, max_nodes, _row, 1
        FROM stage WHERE reason IS NULL
    ),
    -- each job's lifecycle: what the warehouse holds comes first, then this file's rows by time
    life AS (
        SELECT job_id,
               min(event_time) FILTER (WHERE event = 'submitted') AS submit_time,
               any_value(min_nodes) FILTER (WHERE event = 'submitted') AS job_min,
               any_value(max_nodes) FILTER (WHERE event = 'submitted') AS job_max,
               arg_min(event_time, (is_new, event_time, src_row))
                   FILTER (WHERE event = 'started') AS start_time,
               arg_min(src_row, (is_new, event_time, src_row))
                   FILTER (WHERE event = 'started') AS start_src
        FROM order_events GROUP BY job_id
    ),
    -- its end: a `completed` before the start is not an end (it is rejected itself), so it
    -- cannot put the start out of order too
    ends AS (
        SELECT job_id,
               arg_min(event_time, (is_new, event_time, src_row)) AS end_time,
               arg_min(event, (is_new, event_time, src_row)) AS end_event,
               arg_min(src_row, (is_new, event_time, src_row)) AS end_src
        FROM order_events JOIN life USING (job_id)
        WHERE event IN ('failed', 'cancelled')
           OR (event = 'completed' AND event_time >= start_time)
        GROUP BY job_id
    )
    SELECT src_row, CASE
        WHEN submit_time IS NULL
            THEN 'unknown job ' || job_id || ': no submitted event for it in this file or the warehouse'
        WHEN event_time < submit_time
            THEN 'out of order: ' || event || ' at ' || strftime(event_time, '%Y-%m-%dT%H:%M:%SZ')
                 || ' is before the job was submitted at ' || strftime(submit_time, '%Y-%m-%dT%H:%M:%SZ')
        WHEN event = 'started' AND src_row <> start_src
            THEN 'out of order: job already started at ' || strftime(start_time, '%Y-%m-%dT%H:%M:%SZ')
        WHEN event IN ('scaled', 'completed')
             AND (start_time IS NULL OR event_time < start_time)
            THEN 'out of order: ' || event || ' before the job started'
        WHEN event IN ('completed', 'failed', 'cancelled') AND src_row <> end_src
            THEN 'out of order: job already ' || end_event || ' at ' || strftime(end_time, '%Y-%m-%dT%H:%M:%SZ')
        WHEN event IN ('started', 'scaled') AND event_time > end_time
            THEN 'out of order: ' || event || ' after the job ' || end_event || ' at '
                 || strftime(end_time, '%Y-%m-%dT%H:%M:%SZ')
        WHEN event IN ('started', 'scaled') AND nodes NOT BETWEEN job_min AND job_max
            THEN 'nodes ' || nodes || ' outside the job''s [min_nodes, max_nodes] = ['
                 || job_min || ', ' || job_max || ']'
    END AS verdict
    FROM order_events LEFT JOIN life USING (job_id) LEFT JOIN ends USING (job_id)
    WHERE is_new = 1 AND event <> 'submitted'
) r
WHERE stage._row = r.src_row AND stage.reason IS NULL AND r.verdict IS NOT NULL;
