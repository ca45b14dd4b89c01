-- Replace the jobs and samples of an in-memory estimation warehouse (replay windows).
-- $-free: the rows come from the Arrow tables est_in_jobs and est_in_samples.

-- name: load
DELETE FROM job_events;
DELETE FROM throughput_samples;
INSERT INTO job_events (file_id, row_no, job_id, event_time, event, min_nodes, max_nodes,
                        requested_nodes, total_work, weight, model)
SELECT 0, row_number() OVER (), job_id, TIMESTAMPTZ '2000-01-01 00:00:00+00', 'submitted',
       min_nodes, max_nodes, min_nodes, 1.0, 1.0, model
FROM est_in_jobs;
INSERT INTO throughput_samples (file_id, row_no, job_id, sample_time, nodes, throughput,
                                machines)
SELECT 0, row_number() OVER (), job_id, TIMESTAMPTZ '2000-01-01 00:00:00+00', nodes, throughput,
       machines
FROM est_in_samples;

-- name: curves
SELECT job_id, nodes, throughput FROM throughput_curves;
