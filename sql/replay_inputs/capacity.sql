-- the pool size over time, all pools together
SELECT effective_from, sum(nodes) FROM (
    SELECT pool, effective_from, nodes FROM capacity
) GROUP BY effective_from ORDER BY effective_from;
