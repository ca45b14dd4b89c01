-- Append the stage's good rows to tenant_quotas; row_no is the row's number in the file.
INSERT INTO tenant_quotas BY NAME
SELECT $file_id AS file_id, _row AS row_no, * EXCLUDE (_row, _raw, _key, reason)
FROM stage WHERE reason IS NULL;
