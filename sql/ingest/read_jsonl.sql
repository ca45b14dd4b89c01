-- Read a JSON Lines file line by line; each line keeps its number and raw text. $schema maps every
-- contract column to VARCHAR so that types are checked by the stage step, not guessed here.
CREATE OR REPLACE TEMP TABLE jsonl_read AS
SELECT line FROM read_csv($path, columns = {'line': 'VARCHAR'}, header = false, auto_detect = false,
                          delim = chr(31), quote = '', escape = '', max_line_size = 100000000);

CREATE OR REPLACE TEMP TABLE jsonl_lines AS SELECT rowid + 1 AS _row, line AS _raw FROM jsonl_read;

-- blank lines are not rows
DELETE FROM jsonl_lines WHERE trim(coalesce(_raw, '')) = '';

CREATE OR REPLACE TEMP TABLE parse_rejects AS
SELECT _row, _raw, 'malformed JSON: each line must be one JSON object' AS reason
FROM jsonl_lines
WHERE NOT coalesce(json_valid(_raw), false) OR json_type(CASE WHEN json_valid(_raw) THEN _raw END) <> 'OBJECT';

-- an object naming a key twice: which value is meant is unknown, so the line is rejected
INSERT INTO parse_rejects
SELECT _row, any_value(_raw), 'malformed JSON: key ' || string_agg(k, ', ' ORDER BY k)
                             || ' appears more than once in the object' AS reason
FROM (SELECT _row, any_value(_raw) AS _raw, k
      FROM (SELECT _row, _raw, unnest(json_keys(_raw)) AS k FROM jsonl_lines
            WHERE _row NOT IN (SELECT _row FROM parse_rejects))
      GROUP BY _row, k HAVING count(*) > 1)
GROUP BY _row;

CREATE OR REPLACE TEMP TABLE file_rows AS
SELECT _row, _raw, unnest(from_json(_raw, $schema))
FROM jsonl_lines
WHERE _row NOT IN (SELECT _row FROM parse_rejects);
