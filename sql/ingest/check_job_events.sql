-- Checks across rows: duplicates, events of unknown jobs, events out of order. Each step looks only
-- at rows that are still good, together with what the warehouse already holds.

-- Duplicates: the same job, event and time (and size, for started / scaled) already in the
-- warehouse (check_duplicates.sql took those twice in this file).
-- A row with the key of a loaded row but other values says so: the file was edited since.
UPDATE stage SET reason = 'duplicate of a row already loaded (file ' || e.file_id || ', row ' || e.row_no || ')'
    || CASE WHEN (stage.nodes, stage.min_nodes, stage.max_nodes, stage.requested_nodes,
                  stage.total_work, stage.weight, stage.model, stage.tenant)
                 IS DISTINCT FROM (e.nodes, e.min_nodes, e.max_nodes, e.requested_nodes,
                                   e.total_work, e.weight, e.model, e.tenant)
            THEN ' but with different values: the row changed since it was loaded' ELSE '' END
FROM job_events e
WHERE stage.reason IS NULL AND e.job_id = stage.job_id AND e.event = stage.event
  AND e.event_time = stage.event_time
  AND (stage.event NOT IN ('started', 'scaled') OR e.nodes = stage.nodes);

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

-- Order. Each job's lifecycle (submitted, first start, first end) comes from the good rows of
-- this file and the rows already loaded, and an event that does not fit it is rejected. Rejecting
-- one event (say the first started) changes the lifecycle and can put another out of order, so
-- this is repeated until no job changes (`rounds`, a recursive CTE, one round per repetition:
-- round k + 1 judges again only the jobs that lost a row in round k). A rejected row stays
-- rejected with the reason of the round that rejected it.
UPDATE stage SET reason = r.reason
FROM (
    WITH RECURSIVE
    ev AS (
        SELECT job_id, event, event_time, nodes, min_nodes, max_nodes, -1 AS src_row, 0 AS is_new
        FROM job_events WHERE job_id IN (SELECT job_id FROM stage)
        UNION ALL
        SELECT job_id, event, event_time, nodes, min_nodes, max_nodes, _row, 1
        FROM stage WHERE reason IS NULL
    ),
    rounds(round, job_id, event, event_time, nodes, min_nodes, max_nodes, src_row, is_new,
           reason, changed) AS (
        SELECT 0, *, CAST(NULL AS VARCHAR), true FROM ev
        UNION ALL
        SELECT round, job_id, event, event_time, nodes, min_nodes, max_nodes, src_row, is_new,
               coalesce(reason, verdict), bool_or(verdict IS NOT NULL) OVER (PARTITION BY job_id)
        FROM (
            SELECT *, CASE WHEN reason IS NULL AND is_new = 1 AND event <> 'submitted' THEN CASE
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
            END END AS verdict
            FROM (
                -- the end of the lifecycle: a `completed` before the start is not an end (it is
                -- rejected itself), so it cannot put the start out of order too
                SELECT *,
                       arg_min(event_time, (is_new, event_time, src_row))
                           FILTER (WHERE good AND is_end) OVER job AS end_time,
                       arg_min(event, (is_new, event_time, src_row))
                           FILTER (WHERE good AND is_end) OVER job AS end_event,
                       arg_min(src_row, (is_new, event_time, src_row))
                           FILTER (WHERE good AND is_end) OVER job AS end_src
                FROM (
                    SELECT *, event IN ('failed', 'cancelled')
                              OR (event = 'completed' AND event_time >= start_time) AS is_end
                    FROM (
                        -- the lifecycle from the rows still good; what the warehouse holds
                        -- comes first, then this file's rows by time
                        SELECT round + 1 AS round, job_id, event, event_time, nodes, min_nodes,
                               max_nodes, src_row, is_new, reason, good,
                               min(event_time) FILTER (WHERE good AND event = 'submitted')
                                   OVER job AS submit_time,
                               any_value(min_nodes) FILTER (WHERE good AND event = 'submitted')
                                   OVER job AS job_min,
                               any_value(max_nodes) FILTER (WHERE good AND event = 'submitted')
                                   OVER job AS job_max,
                               arg_min(event_time, (is_new, event_time, src_row))
                                   FILTER (WHERE good AND event = 'started') OVER job
                                   AS start_time,
                               arg_min(src_row, (is_new, event_time, src_row))
                                   FILTER (WHERE good AND event = 'started') OVER job AS start_src
                        FROM (SELECT *, reason IS NULL AS good FROM rounds
                              WHERE changed AND round < 20)
                        WINDOW job AS (PARTITION BY job_id)
                    )
                )
                WINDOW job AS (PARTITION BY job_id)
            )
        )
    )
    SELECT src_row AS _row, arg_max(reason, round) AS reason
    FROM rounds WHERE is_new = 1
    GROUP BY src_row
) r
WHERE stage._row = r._row AND stage.reason IS NULL AND r.reason IS NOT NULL;
