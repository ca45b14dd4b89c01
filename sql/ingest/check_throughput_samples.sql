-- Samples already loaded (same job, time and size; check_duplicates.sql took those twice in
-- this file) and samples of jobs the warehouse does not know.
UPDATE stage SET reason = 'duplicate of a row already loaded (file ' || s.file_id || ', row ' || s.row_no || ')'
FROM throughput_samples s
WHERE stage.reason IS NULL AND s.job_id = stage.job_id AND s.sample_time = stage.sample_time
  AND s.nodes = stage.nodes;

UPDATE stage SET reason = 'unknown job ' || job_id || ': ingest its job events (submitted) first'
WHERE reason IS NULL
  AND job_id NOT IN (SELECT job_id FROM job_events WHERE event = 'submitted');
