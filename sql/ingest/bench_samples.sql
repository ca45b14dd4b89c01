-- Throughput samples for bench/ingest.py: $samples samples, 20 per job of bench_events.sql.
SELECT 'job-' || lpad((i // 20)::VARCHAR, 7, '0') AS job_id,
       TIMESTAMPTZ '2026-11-01 00:02:00+00'
           + to_seconds((i // 20) * 7 + (i % 20) * 150) AS sample_time,
       CASE WHEN i % 20 < 4 THEN 1 + (i // 20) % 4 ELSE 4 + 4 * ((i // 20) % 3) END AS nodes,
       round(1000.0 + (i % 977), 3) AS throughput
FROM range($samples) r(i)
