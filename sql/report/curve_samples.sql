-- The measured samples behind the curves: median samples/s per job and size, and how many.
SELECT job_id, nodes, median(throughput) AS throughput, count(*) AS n
FROM throughput_samples
GROUP BY job_id, nodes
ORDER BY job_id, nodes;
