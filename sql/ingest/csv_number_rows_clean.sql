-- Line numbers of a CSV file the reader took whole: row k (k = rowid + 1) is line k + 1.
CREATE OR REPLACE TEMP VIEW file_in AS
SELECT rowid + 2 AS _row, CAST(NULL AS VARCHAR) AS _raw, * FROM csv_in;
