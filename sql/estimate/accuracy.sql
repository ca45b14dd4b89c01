-- Scaffolding for warehouse/estimate_accuracy.py: measured profiles as jobs and samples.

-- name: load
INSERT INTO job_events (file_id, row_no, job_id, event_time, event, min_nodes, max_nodes,
                        requested_nodes, total_work, weight, model)
SELECT 0, row_number() OVER (), job_id, TIMESTAMPTZ '2026-01-01 00:00:00+00', 'submitted',
       1, 64, 1, 1e9, 1.0, model
FROM acc_jobs;

INSERT INTO throughput_samples (file_id, row_no, job_id, sample_time, nodes, throughput,
                                machines)
SELECT 0, row_number() OVER (), job_id,
       TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(row_number() OVER ()), nodes, throughput,
       machines
FROM acc_samples;

-- name: curves
SELECT job_id, nodes, throughput FROM throughput_curves;

-- name: reset
DELETE FROM job_events;
DELETE FROM throughput_samples;
