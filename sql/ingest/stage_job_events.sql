-- Type and check each job event row on its own. reason is NULL for a good row; the first problem
-- found names the row's fault otherwise. Input: file_in with every contract column present.
CREATE OR REPLACE TEMP TABLE stage AS
WITH c AS (
    SELECT _row, _raw,
        job_id AS job_in, event_time AS event_time_in, nodes AS nodes_in, min_nodes AS min_in,
        max_nodes AS max_in, requested_nodes AS req_in, total_work AS work_in, weight AS weight_in,
        CAST(job_id AS VARCHAR) AS job_id,
        etplan_time(event_time) AS event_time,
        lower(CAST(event AS VARCHAR)) AS event,
        TRY_CAST(nodes AS DOUBLE) AS nodes_d, TRY_CAST(min_nodes AS DOUBLE) AS min_d,
        TRY_CAST(max_nodes AS DOUBLE) AS max_d, TRY_CAST(requested_nodes AS DOUBLE) AS req_d,
        TRY_CAST(total_work AS DOUBLE) AS total_work, TRY_CAST(weight AS DOUBLE) AS weight,
        etplan_text(model) AS model, etplan_text(tenant) AS tenant
    FROM file_in
), t AS (
    SELECT *, etplan_whole(nodes_d) AS nodes, etplan_whole(min_d) AS min_nodes,
           etplan_whole(max_d) AS max_nodes, etplan_whole(req_d) AS requested_nodes,
           -- physical bounds: node counts, then the time (docs/data-contracts.md "Bounds")
           coalesce(etplan_too_large('nodes', nodes_d, 1000000),
                    etplan_too_large('min_nodes', min_d, 1000000),
                    etplan_too_large('max_nodes', max_d, 1000000),
                    etplan_too_large('requested_nodes', req_d, 1000000),
                    etplan_time_bounds('event_time', event_time)) AS too_large,
           coalesce(etplan_outside('total_work', total_work, 1e-6, 1e18),
                    etplan_outside('weight', weight, 1e-6, 1e6)) AS outside
    FROM c
)
SELECT _row,
    job_id, event_time, event, nodes, min_nodes, max_nodes,
    -- a job may be resized twice in one second: its started / scaled events differ by nodes
    row(job_id, event, event_time, CASE WHEN event IN ('started', 'scaled') THEN nodes END) AS _key,
    coalesce(requested_nodes, CASE WHEN event = 'submitted' THEN min_nodes END) AS requested_nodes,
    total_work, weight, model, tenant,
    CASE
        WHEN job_id IS NULL OR etplan_text(job_id) IS NULL THEN 'missing field: job_id'
        WHEN event IS NULL OR etplan_text(event) IS NULL THEN 'missing field: event'
        WHEN event_time IS NULL
            THEN etplan_unreadable('event_time', event_time_in, 'an ISO 8601 timestamp')
        WHEN too_large IS NOT NULL THEN too_large
        WHEN event NOT IN ('submitted', 'started', 'scaled', 'completed', 'failed', 'cancelled')
            THEN 'unknown event ' || etplan_show(event)
                 || ' (expected submitted, started, scaled, completed, failed or cancelled)'
        WHEN nodes IS NULL AND nodes_in IS NOT NULL AND etplan_text(nodes_in) IS NOT NULL
            THEN 'bad type: nodes ' || etplan_show(nodes_in) || ' is not a whole number'
        WHEN min_nodes IS NULL AND min_in IS NOT NULL AND etplan_text(min_in) IS NOT NULL
            THEN 'bad type: min_nodes ' || etplan_show(min_in) || ' is not a whole number'
        WHEN max_nodes IS NULL AND max_in IS NOT NULL AND etplan_text(max_in) IS NOT NULL
            THEN 'bad type: max_nodes ' || etplan_show(max_in) || ' is not a whole number'
        WHEN requested_nodes IS NULL AND req_in IS NOT NULL AND etplan_text(req_in) IS NOT NULL
            THEN 'bad type: requested_nodes ' || etplan_show(req_in) || ' is not a whole number'
        WHEN (total_work IS NULL OR NOT isfinite(total_work)) AND work_in IS NOT NULL
             AND etplan_text(work_in) IS NOT NULL
            THEN 'bad type: total_work ' || etplan_show(work_in) || ' is not a number'
        WHEN (weight IS NULL OR NOT isfinite(weight)) AND weight_in IS NOT NULL
             AND etplan_text(weight_in) IS NOT NULL
            THEN 'bad type: weight ' || etplan_show(weight_in) || ' is not a number'
        WHEN event = 'submitted' AND min_nodes IS NULL THEN 'missing field: min_nodes (needed on submitted)'
        WHEN event = 'submitted' AND max_nodes IS NULL THEN 'missing field: max_nodes (needed on submitted)'
        WHEN event = 'submitted' AND total_work IS NULL THEN 'missing field: total_work (needed on submitted)'
        WHEN event IN ('started', 'scaled') AND nodes IS NULL
            THEN 'missing field: nodes (needed on ' || event || ')'
        WHEN nodes IS NOT NULL AND nodes <= 0 THEN 'nodes must be at least 1 (got ' || nodes || ')'
        WHEN min_nodes IS NOT NULL AND min_nodes <= 0
            THEN 'min_nodes must be at least 1 (got ' || min_nodes || ')'
        WHEN max_nodes IS NOT NULL AND max_nodes <= 0
            THEN 'max_nodes must be at least 1 (got ' || max_nodes || ')'
        WHEN min_nodes > max_nodes
            THEN 'min_nodes ' || min_nodes || ' > max_nodes ' || max_nodes
        WHEN event = 'submitted'
             AND coalesce(requested_nodes, min_nodes) NOT BETWEEN min_nodes AND max_nodes
            THEN 'requested_nodes ' || requested_nodes || ' outside [min_nodes, max_nodes] = ['
                 || min_nodes || ', ' || max_nodes || ']'
        WHEN total_work IS NOT NULL AND total_work <= 0
            THEN 'total_work must be > 0 (got ' || total_work || ')'
        WHEN weight IS NOT NULL AND weight <= 0 THEN 'weight must be > 0 (got ' || weight || ')'
        WHEN outside IS NOT NULL THEN outside
    END AS reason,
    _raw
FROM t;
