-- Read a CSV file: comma-separated, double-quoted, one header line. The columns are named by the
-- header ($columns, read by the code) and contract columns get their types there, so nothing
-- is guessed. Values that do not convert and lines with the wrong number of fields land in
-- csv_rejects with their line number.
CREATE OR REPLACE TEMP TABLE csv_in AS
SELECT * FROM read_csv($path, header = true, auto_detect = false, delim = ',', quote = '"',
                       escape = '"', columns = $columns,
                       store_rejects = true, rejects_table = 'csv_rejects',
                       rejects_scan = 'csv_scans', rejects_limit = 0);
