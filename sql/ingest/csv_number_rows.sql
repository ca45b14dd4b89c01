-- Give each good CSV row its line number, as a view over csv_in (no copy): the k-th good row
-- (k = rowid + 1) is line 1 (header) + k + the number of rejected lines before it. The i-th
-- rejected line (1-based) at line r_i has r_i - 1 - i good rows before it, so it precedes good
-- row k exactly when r_i - 1 - i < k.
CREATE OR REPLACE TEMP TABLE reject_steps AS
SELECT good_before, max(i) AS rejected_so_far
FROM (SELECT _row - 1 - row_number() OVER (ORDER BY _row) AS good_before,
             row_number() OVER (ORDER BY _row) AS i
      FROM parse_rejects)
GROUP BY good_before;

CREATE OR REPLACE TEMP VIEW file_in AS
SELECT 1 + g.k + coalesce(b.rejected_so_far, 0) AS _row, CAST(NULL AS VARCHAR) AS _raw,
       g.* EXCLUDE (k)
FROM (SELECT rowid + 1 AS k, * FROM csv_in) g
ASOF LEFT JOIN reject_steps b ON g.k > b.good_before;
