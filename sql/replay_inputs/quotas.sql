-- What a replay needs from a warehouse, as plain rows: every tenant quota, in time order.
SELECT tenant, effective_from, max_nodes, guaranteed_nodes
FROM tenant_quotas ORDER BY tenant, effective_from;
