-- The samples behind job $job's curve: its own per size (count, median samples/s), and the
-- number of samples and jobs of its model class (what a 'model' curve is fitted on).
SELECT 'job' AS scope, s.nodes, count(*) AS samples, median(s.throughput) AS median_tp,
       1 AS jobs
FROM throughput_samples s WHERE s.job_id = $job
GROUP BY s.nodes
UNION ALL
SELECT 'model', NULL, count(s.job_id), NULL, count(DISTINCT s.job_id)
FROM jobs j LEFT JOIN throughput_samples s USING (job_id)
WHERE j.model = (SELECT model FROM jobs WHERE job_id = $job)
ORDER BY scope, nodes;
