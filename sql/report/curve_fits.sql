-- The fitted throughput curves the plans use, with the source of each job's curve (job, model,
-- global) and the job's model, for the report's curves section.
SELECT c.job_id, j.model, c.source, c.nodes, c.throughput
FROM throughput_curves c
LEFT JOIN jobs j USING (job_id)
ORDER BY c.source, c.job_id, c.nodes;
