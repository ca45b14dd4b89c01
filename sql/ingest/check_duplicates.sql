-- Rows of this file whose key (stage._key: the columns that identify a row of the feed) an
-- earlier good row of the file has: every row after the first is a duplicate. Only keys seen
-- twice go through the window.
UPDATE stage SET reason = 'duplicate of line ' || d.first_row
FROM (
    SELECT _row, min(_row) OVER (PARTITION BY _key) AS first_row
    FROM stage SEMI JOIN (
        SELECT _key FROM stage WHERE reason IS NULL GROUP BY _key HAVING count(*) > 1
    ) k USING (_key)
    WHERE reason IS NULL
) d
WHERE stage._row = d._row AND d.first_row < d._row;
