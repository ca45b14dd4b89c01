-- A pool has one size per point in time.
UPDATE stage SET reason = 'duplicate of line ' || d.first_row
FROM (
    SELECT _row, min(_row) OVER (PARTITION BY pool, effective_from) AS first_row
    FROM stage WHERE reason IS NULL
) d
WHERE stage._row = d._row AND d.first_row < d._row;

UPDATE stage SET reason = 'duplicate of a row already loaded (file ' || c.file_id || ', row ' || c.row_no || ')'
FROM capacity c
WHERE stage.reason IS NULL AND c.pool = stage.pool AND c.effective_from = stage.effective_from;
