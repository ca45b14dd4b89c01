-- Checks across rows: duplicates, events of unknown jobs, events out of order. Each step looks only
-- at rows that are still good, together with what the warehouse already holds.

-- name: duplicates

-- Duplicates: the same job, event and time twice in this file, or already in the warehouse.
UPDATE stage SET reason = 'duplicate of line ' || d.first_row
FROM (
    -- only keys seen twice go through the window
    SELECT _row, min(_row) OVER (PARTITION BY job_id, event, event_time) AS first_row
    FROM stage SEMI JOIN (
        SELECT job_id, event, event_time FROM stage WHERE reason IS NULL
        GROUP BY ALL HAVING count(*) > 1
    ) k USING (job_id, event, event_time)
    WHERE reason IS NULL
) d
WHERE stage._row = d._row AND d.first_row < d._row;

UPDATE stage SET reason = 'duplicate of a row already loaded (file ' || e.file_id || ', row ' || e.row_no || ')'
FROM job_events e
WHERE stage.reason IS NULL AND e.job_id = stage.job_id AND e.event = stage.event
  AND e.event_time = stage.event_time;

-- A job is submitted once.
UPDATE stage SET reason = 'job ' || stage.job_id || ' already submitted at ' || strftime(s.first_time, '%Y-%m-%dT%H:%M:%SZ')
FROM (
    -- what the warehouse holds comes first, then this file's rows by time
    SELECT job_id, arg_min(event_time, (is_new, event_time, src_row)) AS first_time,
           arg_min(src_row, (is_new, event_time, src_row)) AS first_src
    FROM (
        SELECT job_id, event_time, -1 AS src_row, 0 AS is_new FROM job_events
        WHERE event = 'submitted' AND job_id IN (SELECT job_id FROM stage)
        UNION ALL
        SELECT job_id, event_time, _row, 1 FROM stage WHERE reason IS NULL AND event = 'submitted'
    ) GROUP BY job_id
) s
WHERE stage.reason IS NULL AND stage.event = 'submitted' AND stage.job_id = s.job_id
  AND stage._row <> s.first_src;

-- name: order
-- Run until nothing changes: rejecting one event (say a started) can put a later one out of order.
-- The lifecycle of each job, from good rows already loaded and good rows of this file.
CREATE OR REPLACE TEMP TABLE job_life AS
WITH ev AS (
    SELECT job_id, event, event_time, min_nodes, max_nodes, -1 AS src_row, 0 AS is_new
    FROM job_events WHERE job_id IN (SELECT job_id FROM stage)
    UNION ALL
    SELECT job_id, event, event_time, min_nodes, max_nodes, _row, 1 FROM stage WHERE reason IS NULL
)
SELECT job_id,
       min(event_time) FILTER (WHERE event = 'submitted') AS submit_time,
       any_value(min_nodes) FILTER (WHERE event = 'submitted') AS job_min,
       any_value(max_nodes) FILTER (WHERE event = 'submitted') AS job_max,
       arg_min(event_time, (is_new, event_time, src_row)) FILTER (WHERE event = 'started') AS start_time,
       arg_min(src_row, (is_new, event_time, src_row)) FILTER (WHERE event = 'started') AS start_src,
       arg_min(event_time, (is_new, event_time, src_row)) FILTER (WHERE event IN ('completed', 'failed', 'cancelled')) AS end_time,
       arg_min(event, (is_new, event_time, src_row)) FILTER (WHERE event IN ('completed', 'failed', 'cancelled')) AS end_event,
       arg_min(src_row, (is_new, event_time, src_row)) FILTER (WHERE event IN ('completed', 'failed', 'cancelled')) AS end_src
FROM ev GROUP BY job_id;

UPDATE stage SET reason = CASE
        WHEN l.submit_time IS NULL
            THEN 'unknown job ' || stage.job_id || ': no submitted event for it in this file or the warehouse'
        WHEN stage.event_time < l.submit_time
            THEN 'out of order: ' || stage.event || ' at ' || strftime(stage.event_time, '%Y-%m-%dT%H:%M:%SZ')
                 || ' is before the job was submitted at ' || strftime(l.submit_time, '%Y-%m-%dT%H:%M:%SZ')
        WHEN stage.event = 'started' AND stage._row <> l.start_src
            THEN 'out of order: job already started at ' || strftime(l.start_time, '%Y-%m-%dT%H:%M:%SZ')
        WHEN stage.event IN ('scaled', 'completed')
             AND (l.start_time IS NULL OR stage.event_time < l.start_time)
            THEN 'out of order: ' || stage.event || ' before the job started'
        WHEN stage.event IN ('completed', 'failed', 'cancelled') AND stage._row <> l.end_src
            THEN 'out of order: job already ' || l.end_event || ' at ' || strftime(l.end_time, '%Y-%m-%dT%H:%M:%SZ')
        WHEN stage.event IN ('started', 'scaled') AND stage.event_time > l.end_time
            THEN 'out of order: ' || stage.event || ' after the job ' || l.end_event || ' at '
                 || strftime(l.end_time, '%Y-%m-%dT%H:%M:%SZ')
        WHEN stage.event IN ('started', 'scaled') AND stage.nodes NOT BETWEEN l.job_min AND l.job_max
            THEN 'nodes ' || stage.nodes || ' outside the job''s [min_nodes, max_nodes] = ['
                 || l.job_min || ', ' || l.job_max || ']'
    END
FROM job_life l
WHERE stage.reason IS NULL AND stage.event <> 'submitted' AND l.job_id = stage.job_id;
