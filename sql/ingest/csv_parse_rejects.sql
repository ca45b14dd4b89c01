-- One row per CSV line the reader could not take, with what was wrong with it.
CREATE OR REPLACE TEMP TABLE parse_rejects AS
WITH e AS (
    SELECT line, csv_line, error_type, column_idx,
           TRY_CAST(regexp_extract(error_message, 'Expected Number of Columns: (\d+)', 1) AS INTEGER) AS expected,
           TRY_CAST(regexp_extract(error_message, 'Found: (\d+)', 1) AS INTEGER) AS found,
           CASE WHEN error_type = 'CAST' THEN
               'bad type: ' || coalesce(column_name, '?') || ' '
               || coalesce('''' || regexp_extract(error_message, 'Could not convert string "(.*)" to', 1) || '''', '')
               || ' is not ' || CASE WHEN column_name LIKE '%time' OR column_name = 'effective_from'
                                     THEN 'an ISO 8601 timestamp' ELSE 'a number' END
           ELSE lower(error_type) || ': ' || error_message END AS problem
    FROM csv_rejects
)
SELECT line AS _row,
       any_value(csv_line) AS _raw,
       CASE
           WHEN bool_or(error_type = 'MISSING COLUMNS')
               THEN 'missing fields: the line has ' || min(found) FILTER (WHERE error_type = 'MISSING COLUMNS')
                    || ' of ' || max(expected) || ' fields'
           WHEN bool_or(error_type = 'TOO MANY COLUMNS')
               THEN 'too many fields: the line has ' || max(found) || ' fields, the header '
                    || max(expected)
           ELSE string_agg(problem, '; ' ORDER BY column_idx)
       END AS reason
FROM e
GROUP BY line;
