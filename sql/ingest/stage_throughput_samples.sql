-- Type and check each throughput sample on its own (reason NULL = good).
CREATE OR REPLACE TEMP TABLE stage AS
WITH t AS (
    SELECT _row, _raw,
        etplan_text(job_id) AS job_id,
        sample_time AS time_in, TRY_CAST(sample_time AS TIMESTAMPTZ) AS sample_time,
        nodes AS nodes_in, etplan_int(nodes) AS nodes,
        throughput AS tp_in, etplan_num(throughput) AS throughput
    FROM file_in
)
SELECT _row, job_id, sample_time, nodes, throughput,
    CASE
        WHEN job_id IS NULL THEN 'missing field: job_id'
        WHEN time_in IS NULL OR etplan_text(time_in) IS NULL THEN 'missing field: sample_time'
        WHEN sample_time IS NULL
            THEN 'bad type: sample_time ' || etplan_show(time_in) || ' is not an ISO 8601 timestamp'
        WHEN nodes_in IS NULL OR etplan_text(nodes_in) IS NULL THEN 'missing field: nodes'
        WHEN nodes IS NULL THEN 'bad type: nodes ' || etplan_show(nodes_in) || ' is not a whole number'
        WHEN tp_in IS NULL OR etplan_text(tp_in) IS NULL THEN 'missing field: throughput'
        WHEN throughput IS NULL THEN 'bad type: throughput ' || etplan_show(tp_in) || ' is not a number'
        WHEN nodes <= 0 THEN 'nodes must be at least 1 (got ' || nodes || ')'
        WHEN throughput <= 0 THEN 'throughput must be > 0 (got ' || throughput || ')'
    END AS reason,
    _raw
FROM t;
