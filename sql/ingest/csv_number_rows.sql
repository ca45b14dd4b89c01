-- Give each good CSV row its line number: the k-th good row is line 1 (header) + k + the number of
-- rejected lines before it. The i-th rejected line (1-based) at line r_i has r_i - 1 - i good rows
-- before it, so it precedes good row k exactly when r_i - 1 - i < k.
CREATE OR REPLACE TEMP TABLE file_in AS
WITH good AS (SELECT rowid + 1 AS k, * FROM csv_in),
bad AS (
    SELECT _row - 1 - row_number() OVER (ORDER BY _row) AS good_before,
           row_number() OVER (ORDER BY _row) AS i
    FROM parse_rejects
),
bad_steps AS (SELECT good_before, max(i) AS rejected_so_far FROM bad GROUP BY good_before)
SELECT 1 + g.k + coalesce(b.rejected_so_far, 0) AS _row,
       CAST(NULL AS VARCHAR) AS _raw,
       g.* EXCLUDE (k)
FROM good g ASOF LEFT JOIN bad_steps b ON g.k > b.good_before;
