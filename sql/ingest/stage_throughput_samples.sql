-- Type and check each throughput sample on its own (reason NULL = good). Cheap tests come first
-- in each condition: only rows that fail them pay for the text conversions.
CREATE OR REPLACE TEMP TABLE stage AS
WITH c AS (
    SELECT _row, _raw, job_id AS job_in, sample_time AS time_in, nodes AS nodes_in,
           throughput AS tp_in, machines AS machines_in,
           CAST(job_id AS VARCHAR) AS job_id,
           etplan_time(sample_time) AS sample_time,
           TRY_CAST(nodes AS DOUBLE) AS nodes_d,
           TRY_CAST(throughput AS DOUBLE) AS throughput,
           TRY_CAST(machines AS DOUBLE) AS machines_d
    FROM file_in
), t AS (
    SELECT *, etplan_whole(nodes_d) AS nodes, etplan_whole(machines_d) AS machines,
           -- physical bounds (docs/data-contracts.md "Bounds")
           coalesce(etplan_too_large('nodes', nodes_d, 1000000),
                    etplan_too_large('machines', machines_d, 1000000),
                    etplan_time_bounds('sample_time', sample_time)) AS too_large
    FROM c
)
SELECT _row, job_id, sample_time, nodes, throughput, machines,
    row(job_id, sample_time, nodes) AS _key,
    CASE
        WHEN job_id IS NULL OR etplan_text(job_id) IS NULL THEN 'missing field: job_id'
        WHEN sample_time IS NULL
            THEN etplan_unreadable('sample_time', time_in, 'an ISO 8601 timestamp')
        WHEN too_large IS NOT NULL THEN too_large
        WHEN nodes IS NULL THEN etplan_unreadable('nodes', nodes_in, 'a whole number')
        WHEN throughput IS NULL OR NOT isfinite(throughput)
            THEN etplan_unreadable('throughput', tp_in, 'a number')
        WHEN nodes <= 0 THEN 'nodes must be at least 1 (got ' || nodes || ')'
        WHEN throughput <= 0 THEN 'throughput must be > 0 (got ' || throughput || ')'
        WHEN etplan_outside('throughput', throughput, 1e-9, 1e12) IS NOT NULL
            THEN etplan_outside('throughput', throughput, 1e-9, 1e12)
        WHEN machines IS NULL AND machines_in IS NOT NULL AND etplan_text(machines_in) IS NOT NULL
            THEN 'bad type: machines ' || etplan_show(machines_in) || ' is not a whole number'
        WHEN machines < 1 OR machines > nodes
            THEN 'machines must be between 1 and nodes (got ' || machines || ' for ' || nodes
                 || ' nodes)'
    END AS reason,
    _raw
FROM t;
