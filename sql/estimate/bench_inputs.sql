-- Estimator inputs for bench/estimation.py: $jobs jobs and $samples samples as the tables
-- est_jobs and est_samples of a plain connection (the narrow inputs of fit_curves.sql).
CREATE OR REPLACE TABLE est_jobs AS
SELECT 'job-' || i AS job_id,
       CASE WHEN i % 50 = 0 THEN NULL ELSE 'model-' || (i % 6) END AS model,
       1 AS min_nodes, CAST(4 * (1 + i % 4) AS INTEGER) AS max_nodes
FROM range($jobs) r(i);

CREATE OR REPLACE TABLE est_samples AS
SELECT 'job-' || (k % $jobs) AS job_id,
       -- a tenth of the jobs report one size only; the rest 1, 2, 4 or 8 nodes
       CAST(CASE WHEN (k % $jobs) % 10 = 0 THEN 2 ELSE pow(2, (k // $jobs) % 4) END AS INTEGER)
           AS nodes,
       -- 4 nodes per machine; one sample in seven spread one node per machine
       CAST(CASE WHEN k % 7 = 0 THEN nodes ELSE ceil(nodes / 4) END AS INTEGER) AS machines,
       (100 + (k % $jobs) % 97) * nodes / (1 + 0.05 * (1 + (k % $jobs) % 6) * (nodes - 1))
           * (1 + 0.03 * sin(k)) AS throughput
FROM range($samples) r(k);
