-- Read a Parquet file; rows are numbered from 1 in file order.
CREATE OR REPLACE TEMP TABLE file_rows AS
SELECT file_row_number + 1 AS _row, CAST(NULL AS VARCHAR) AS _raw, * EXCLUDE (file_row_number)
FROM read_parquet($path, file_row_number = true);
