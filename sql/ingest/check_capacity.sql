-- A pool has one size per point in time: not one already loaded (check_duplicates.sql took
-- those twice in this file).
UPDATE stage SET reason = 'duplicate of a row already loaded (file ' || c.file_id || ', row ' || c.row_no || ')'
FROM capacity c
WHERE stage.reason IS NULL AND c.pool = stage.pool AND c.effective_from = stage.effective_from;
