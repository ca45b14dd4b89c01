-- The pool size at time $at, all pools together.
SELECT coalesce(sum(nodes), 0) FROM (
    SELECT pool, arg_max(nodes, effective_from) AS nodes FROM capacity
    WHERE effective_from <= $at GROUP BY pool
);
