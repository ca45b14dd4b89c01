-- The rows of a JSON Lines or Parquet file, under the name the stage SQL reads.
CREATE OR REPLACE TEMP VIEW file_in AS SELECT * FROM file_rows;
