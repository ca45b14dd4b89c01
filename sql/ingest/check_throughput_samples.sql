-- Duplicates (same job, time and size) and samples of jobs the warehouse does not know.
UPDATE stage SET reason = 'duplicate of line ' || d.first_row
FROM (
    -- only keys seen twice go through the window
    SELECT _row, min(_row) OVER (PARTITION BY job_id, sample_time, nodes) AS first_row
    FROM stage SEMI JOIN (
        SELECT job_id, sample_time, nodes FROM stage WHERE reason IS NULL
        GROUP BY ALL HAVING count(*) > 1
    ) k USING (job_id, sample_time, nodes)
    WHERE reason IS NULL
) d
WHERE stage._row = d._row AND d.first_row < d._row;

UPDATE stage SET reason = 'duplicate of a row already loaded (file ' || s.file_id || ', row ' || s.row_no || ')'
FROM throughput_samples s
WHERE stage.reason IS NULL AND s.job_id = stage.job_id AND s.sample_time = stage.sample_time
  AND s.nodes = stage.nodes;

UPDATE stage SET reason = 'unknown job ' || job_id || ': ingest its job events (submitted) first'
WHERE reason IS NULL
  AND job_id NOT IN (SELECT job_id FROM job_events WHERE event = 'submitted');
