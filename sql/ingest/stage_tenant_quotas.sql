-- Type and check each tenant_quotas row on its own (reason NULL = good): the first rule it
-- breaks, in column order, then guaranteed_nodes <= max_nodes.
CREATE OR REPLACE TEMP TABLE stage AS
WITH q AS (
    SELECT _row, _raw, effective_from AS time_in, max_nodes AS max_in,
           guaranteed_nodes AS guaranteed_in,
           etplan_text(tenant) AS tenant,
           etplan_time(effective_from) AS effective_from,
           TRY_CAST(max_nodes AS DOUBLE) AS max_d,
           etplan_whole(TRY_CAST(max_nodes AS DOUBLE)) AS max_nodes,
           TRY_CAST(guaranteed_nodes AS DOUBLE) AS guaranteed_d,
           etplan_whole(TRY_CAST(guaranteed_nodes AS DOUBLE)) AS guaranteed_nodes
    FROM file_in
)
SELECT _row, tenant, effective_from, max_nodes, guaranteed_nodes,
    row(tenant, effective_from) AS _key,   -- a tenant has one quota per point in time
    coalesce(
        CASE WHEN tenant IS NULL THEN 'missing field: tenant' END,
        etplan_time_reason('effective_from', time_in, effective_from),
        etplan_count_reason('max_nodes', max_in, max_d, max_nodes),
        etplan_count_reason('guaranteed_nodes', guaranteed_in, guaranteed_d, guaranteed_nodes),
        CASE WHEN guaranteed_nodes > max_nodes
             THEN 'guaranteed_nodes ' || guaranteed_nodes || ' > max_nodes ' || max_nodes END
    ) AS reason,
    _raw
FROM q;
