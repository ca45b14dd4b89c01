-- Type and check each capacity row on its own (reason NULL = good).
CREATE OR REPLACE TEMP TABLE stage AS
WITH c AS (
    SELECT _row, _raw, effective_from AS time_in, nodes AS nodes_in,
           CAST(pool AS VARCHAR) AS pool,
           TRY_CAST(effective_from AS TIMESTAMPTZ) AS effective_from,
           etplan_whole(TRY_CAST(nodes AS DOUBLE)) AS nodes
    FROM file_in
)
SELECT _row, pool, effective_from, nodes,
    CASE
        WHEN pool IS NULL OR etplan_text(pool) IS NULL THEN 'missing field: pool'
        WHEN effective_from IS NULL AND (time_in IS NULL OR etplan_text(time_in) IS NULL)
            THEN 'missing field: effective_from'
        WHEN effective_from IS NULL
            THEN 'bad type: effective_from ' || etplan_show(time_in) || ' is not an ISO 8601 timestamp'
        WHEN nodes IS NULL AND (nodes_in IS NULL OR etplan_text(nodes_in) IS NULL)
            THEN 'missing field: nodes'
        WHEN nodes IS NULL THEN 'bad type: nodes ' || etplan_show(nodes_in) || ' is not a whole number'
        WHEN nodes < 0 THEN 'nodes must be at least 0 (got ' || nodes || ')'
    END AS reason,
    _raw
FROM c;
