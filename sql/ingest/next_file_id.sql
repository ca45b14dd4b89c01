-- The id of the next file in the ingested_files manifest.
SELECT nextval('ingested_files_seq');
