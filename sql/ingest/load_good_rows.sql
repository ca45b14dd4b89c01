-- Append the good rows of the stage to the feed's table ({feed} is one of the three feed tables,
-- chosen by the code from its own list). Column order follows the table.
INSERT INTO {feed} BY NAME
SELECT $file_id AS file_id, _row AS row_no, * EXCLUDE (_row, _raw, reason)
FROM stage WHERE reason IS NULL;
