-- How many columns the Parquet file $file has (its schema lists a root entry first): a file
-- written from no rows has none, and read_parquet refuses it.
SELECT count(*) - 1 AS columns FROM parquet_schema($file);
