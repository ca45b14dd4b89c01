-- The quota of each tenant in force at time $at: its row with the latest effective_from <= $at
-- (a later row in the same instant cannot exist: ingest rejects it as a duplicate).
SELECT tenant, arg_max(max_nodes, effective_from) AS max_nodes,
       arg_max(guaranteed_nodes, effective_from) AS guaranteed_nodes
FROM tenant_quotas
WHERE effective_from <= $at
GROUP BY tenant
ORDER BY tenant;
