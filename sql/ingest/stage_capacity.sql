-- Type and check each capacity row on its own (reason NULL = good).
CREATE OR REPLACE TEMP TABLE stage AS
WITH c AS (
    SELECT _row, _raw, effective_from AS time_in, nodes AS nodes_in,
           CAST(pool AS VARCHAR) AS pool,
           etplan_time(effective_from) AS effective_from,
           TRY_CAST(nodes AS DOUBLE) AS nodes_d,
           etplan_whole(TRY_CAST(nodes AS DOUBLE)) AS nodes
    FROM file_in
)
SELECT _row, pool, effective_from, nodes,
    row(pool, effective_from) AS _key,   -- a pool has one size per point in time
    CASE
        WHEN pool IS NULL OR etplan_text(pool) IS NULL THEN 'missing field: pool'
        WHEN effective_from IS NULL
            THEN etplan_unreadable('effective_from', time_in, 'an ISO 8601 timestamp')
        WHEN etplan_time_bounds('effective_from', effective_from) IS NOT NULL
            THEN etplan_time_bounds('effective_from', effective_from)
        WHEN etplan_too_large('nodes', nodes_d, 1000000) IS NOT NULL
            THEN etplan_too_large('nodes', nodes_d, 1000000)
        WHEN nodes IS NULL THEN etplan_unreadable('nodes', nodes_in, 'a whole number')
        WHEN nodes < 0 THEN 'nodes must be at least 0 (got ' || nodes || ')'
    END AS reason,
    _raw
FROM c;
