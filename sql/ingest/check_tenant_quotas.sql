-- A tenant has one quota per point in time: not one already loaded (check_duplicates.sql took
-- those twice in this file).
UPDATE stage SET reason = 'duplicate of a row already loaded (file ' || q.file_id || ', row ' || q.row_no || ')'
FROM tenant_quotas q
WHERE stage.reason IS NULL AND q.tenant = stage.tenant AND q.effective_from = stage.effective_from;
