-- The throughput curve the estimator gave job $job (DESIGN §5): per size its samples/s, where
-- the curve came from (job | model | global), the fit's r² and the sizes it was fitted on.
SELECT c.nodes, c.throughput, c.source, c.r2, c.n_points, j.model
FROM throughput_curves c LEFT JOIN jobs j USING (job_id)
WHERE c.job_id = $job
ORDER BY c.nodes;
