-- Job events for bench/ingest.py: $jobs jobs, each submitted, started, scaled and completed.
WITH j AS (SELECT i, 'job-' || lpad(i::VARCHAR, 7, '0') AS job_id,
                  TIMESTAMPTZ '2026-11-01 00:00:00+00' + to_seconds(i * 7) AS t0,
                  1 + i % 4 AS mn, 4 + 4 * (i % 3) AS mx FROM range($jobs) r(i))
SELECT * FROM (
  SELECT job_id, t0 AS event_time, 'submitted' AS event, NULL::INT AS nodes, mn AS min_nodes,
         mx AS max_nodes, mn AS requested_nodes, 1e6 + i AS total_work, 1.0 AS weight,
         'resnet50' AS model, 'vision' AS tenant FROM j
  UNION ALL SELECT job_id, t0 + INTERVAL 60 SECOND, 'started', mn, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL FROM j
  UNION ALL SELECT job_id, t0 + INTERVAL 600 SECOND, 'scaled', mx, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL FROM j
  UNION ALL SELECT job_id, t0 + INTERVAL 3600 SECOND, 'completed', NULL, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL FROM j
) ORDER BY event_time, job_id
