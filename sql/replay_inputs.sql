-- What a replay needs from a warehouse, as plain rows.

-- name: jobs
SELECT job_id, submit_time AS submit, min_nodes, max_nodes, requested_nodes, total_work,
       weight, model
FROM jobs ORDER BY submit_time, job_id;

-- name: samples
SELECT job_id, sample_time, nodes, throughput, machines FROM throughput_samples
ORDER BY sample_time, job_id;

-- name: capacity
-- the pool size over time, all pools together
SELECT effective_from, sum(nodes) FROM (
    SELECT pool, effective_from, nodes FROM capacity
) GROUP BY effective_from ORDER BY effective_from;
