-- Append the stage's good rows to capacity; row_no is the row's number in the file.
INSERT INTO capacity BY NAME
SELECT $file_id AS file_id, _row AS row_no, * EXCLUDE (_row, _raw, _key, reason)
FROM stage WHERE reason IS NULL;
