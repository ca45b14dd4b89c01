-- Scaffolding for bench/estimation.py: a warehouse of $jobs jobs and $samples samples.

-- name: fill
INSERT INTO job_events (file_id, row_no, job_id, event_time, event, min_nodes, max_nodes,
                        requested_nodes, total_work, weight, model)
SELECT 0, i, 'job-' || i, TIMESTAMPTZ '2026-01-01 00:00:00+00', 'submitted', 1,
       CAST(4 * (1 + i % 4) AS INTEGER), 1, 1e9, 1.0,
       CASE WHEN i % 50 = 0 THEN NULL ELSE 'model-' || (i % 6) END
FROM range($jobs) r(i);

INSERT INTO throughput_samples (file_id, row_no, job_id, sample_time, nodes, throughput,
                                machines)
SELECT 0, k, 'job-' || (k % $jobs),
       TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(k),
       -- a tenth of the jobs report one size only; the rest 1, 2, 4 or 8 nodes
       CAST(CASE WHEN (k % $jobs) % 10 = 0 THEN 2 ELSE pow(2, (k // $jobs) % 4) END AS INTEGER)
           AS nodes,
       (100 + (k % $jobs) % 97) * nodes / (1 + 0.05 * (1 + (k % $jobs) % 6) * (nodes - 1))
           * (1 + 0.03 * sin(k)) AS throughput,
       -- 4 nodes per machine; one sample in seven spread one node per machine
       CAST(CASE WHEN k % 7 = 0 THEN nodes ELSE ceil(nodes / 4) END AS INTEGER) AS machines
FROM range($samples) r(k);
