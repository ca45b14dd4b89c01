-- Type and check each capacity row on its own (reason NULL = good).
CREATE OR REPLACE TEMP TABLE stage AS
WITH t AS (
    SELECT _row, _raw,
        etplan_text(pool) AS pool,
        effective_from AS time_in, TRY_CAST(effective_from AS TIMESTAMPTZ) AS effective_from,
        nodes AS nodes_in, etplan_int(nodes) AS nodes
    FROM file_in
)
SELECT _row, pool, effective_from, nodes,
    CASE
        WHEN pool IS NULL THEN 'missing field: pool'
        WHEN time_in IS NULL OR etplan_text(time_in) IS NULL THEN 'missing field: effective_from'
        WHEN effective_from IS NULL
            THEN 'bad type: effective_from ' || etplan_show(time_in) || ' is not an ISO 8601 timestamp'
        WHEN nodes_in IS NULL OR etplan_text(nodes_in) IS NULL THEN 'missing field: nodes'
        WHEN nodes IS NULL THEN 'bad type: nodes ' || etplan_show(nodes_in) || ' is not a whole number'
        WHEN nodes < 0 THEN 'nodes must be at least 0 (got ' || nodes || ')'
    END AS reason,
    _raw
FROM t;
