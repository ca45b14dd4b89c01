-- The columns of the Parquet file at $path.
DESCRIBE SELECT * FROM read_parquet($path);
