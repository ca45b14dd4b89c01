-- Checks across rows: duplicates and jobs submitted twice (the order of each job's events is
-- order_job_events.sql). Each step looks only at rows that are still good, together with what
-- the warehouse already holds.

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
