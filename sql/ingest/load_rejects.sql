-- Keep every rejected row with its number, raw content, reason and rule (its stable code):
-- reader rejects (CSV parse errors, raw = the line) and rows the checks turned down (raw = the
-- line for JSON Lines, the row's fields as read, as JSON, for CSV and Parquet).
INSERT INTO rejected_rows (file_id, path, feed, row_no, raw, reason, rule)
SELECT $file_id, $path, $feed, s._row,
       coalesce(s._raw, CAST(json_merge_patch(to_json(f), '{"_row": null}') AS VARCHAR)), s.reason,
       etplan_rule(s.reason)
FROM stage s
LEFT JOIN (SELECT * EXCLUDE (_raw) FROM file_in WHERE _row IN (SELECT _row FROM stage WHERE reason IS NOT NULL)) f
       ON f._row = s._row
WHERE s.reason IS NOT NULL
UNION ALL
SELECT $file_id, $path, $feed, _row, _raw, reason, etplan_rule(reason) FROM parse_rejects;
